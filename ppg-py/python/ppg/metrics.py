"""The protocol's metrics of given rankings (the definitions ``ppg reproduce`` evaluates
with): EEL, DTR and NDCG@k, of one list (:func:`eel`, :func:`dtr`, :func:`ndcg`) or of
every query of a frame (:func:`frame`).

The TREC Fair Ranking measures of one list: expected exposure (:func:`expected_exposure`:
EE-L, EE-D, EE-R as TREC 2020 scored them), AWRF with its NDCG product as TREC 2021
scored it (:func:`awrf`, one group per item) and as TREC 2022 did (:func:`awrf2022`, soft
attributes with unknowns); docs/metrics.md gives the definitions.

A ranking is a 1-D array of item indices (one session) or a 2-D ``(sessions, n)`` array,
each row a permutation of ``0..n``; ``utility[i]`` and ``groups[i]`` describe item ``i``.
Utilities follow ``ppg rerank``'s rule: non-negative.

>>> import numpy as np
>>> from ppg import metrics
>>> utility, groups = np.array([1.0, 1.0]), np.array([0, 1])
>>> round(metrics.dtr([0, 1], utility, groups, rank_start="zero"), 6)  # log2(3)
1.584963
>>> metrics.dtr([[0, 1], [1, 0]], utility, groups)  # two sessions that swap: fair
1.0
>>> metrics.eel([0, 1], np.array([1.0, 0.0]), groups, levels=2)
0.0
>>> metrics.ndcg([1, 0], np.array([1.0, 0.0]), k=10) < 1
True
>>> metrics.expected_exposure([0, 1], [1.0, 0.0], [0, 1], level="item")["loss"]
0.0
>>> metrics.awrf([0, 1], [1.0, 0.0], [0, 1], target=[0.5, 0.5])["awrf"]
1.0
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pandas as pd

from ppg import _attributes, _checks, _ppg

__all__ = ["eel", "dtr", "ndcg", "frame", "expected_exposure", "awrf", "awrf2022"]


def _ranking(ranking: Any, n: int) -> "tuple[np.ndarray, int]":
    """``ranking`` as flat uint16 ids and its session count; each row a permutation."""
    a = np.asarray(ranking)
    if a.dtype.kind not in "iu":
        raise TypeError(f"ranking: expected integer item indices, got dtype {a.dtype}")
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2 or a.shape[0] == 0 or a.shape[1] != n:
        raise ValueError(f"ranking: expected shape (n,) or (sessions, n) with n = {n}, got {np.shape(ranking)}")
    if not (np.sort(a, axis=1) == np.arange(n)).all():
        raise ValueError(f"ranking: every row must be a permutation of 0..{n - 1}")
    return np.ascontiguousarray(a, dtype=np.uint16).ravel(), a.shape[0]


def _inputs(utility: Any, groups: Any, limit: int, why: str) -> "tuple[np.ndarray, np.ndarray]":
    u = _checks.numbers(utility, "utility")
    _checks.list_length(len(u), "utility")
    _checks.utility(u, "utility", "eel", False)
    return u, _checks.group_ids(groups, "groups", len(u), limit, why)


def eel(ranking: Any, utility: Any, groups: Any, *, levels: int = 2, rank_start: str = "one") -> float:
    """Expected exposure loss: sum over groups of (expected exposure - target)^2, the
    target from ``levels`` grades of ``utility`` (the protocol evaluates with 2 and
    optimises with 5). 0 is optimal."""
    u, g = _inputs(utility, groups, _ppg.MAX_GROUPS, f"EEL takes at most {_ppg.MAX_GROUPS} groups")
    r, sessions = _ranking(ranking, len(u))
    return _ppg.eel(r, sessions, u, g, _checks.integer(levels, "levels", 1, _checks.U32), rank_start)


def dtr(ranking: Any, utility: Any, groups: Any, *, rank_start: str = "one") -> float:
    """Disparity of treatment ratio: the largest exposure-per-utility ratio over the
    smallest among the groups with utility (the paper's DTR on groups 0 and 1; up to
    16 groups), over all sessions; 1 is fair (and degenerate cases)."""
    u, g = _inputs(utility, groups, _ppg.MAX_GROUPS, f"DTR takes at most {_ppg.MAX_GROUPS} groups")
    r, sessions = _ranking(ranking, len(u))
    return _ppg.dtr(r, sessions, u, g, rank_start)


def ndcg(ranking: Any, utility: Any, *, k: int = 10) -> float:
    """NDCG@k with gains 2^utility - 1 and discount 1 / log2(r + 2), r from 0, averaged
    over sessions."""
    u = _checks.numbers(utility, "utility")
    _checks.list_length(len(u), "utility")
    _checks.utility(u, "utility", "eel", True)
    k = _checks.integer(k, "k", 1)
    r, sessions = _ranking(ranking, len(u))
    return _ppg.ndcg(r, sessions, u, k)


#: What :func:`frame` computes, by name.
FRAME_METRICS = ("eel", "dtr", "ndcg")


def frame(
    df: Any,
    *,
    metric: str,
    levels: Optional[int] = None,
    k: int = 10,
    qid: str = "qid",
    item: str = "item",
    group: str = "group",
    utility: Optional[str] = None,
    rank: str = "rank",
    session: str = "session",
    score: str = "score",
    rank_start: str = "one",
) -> pd.Series:
    """The metric of every query of a frame of rankings: a Series indexed by qid (queries
    in order of first appearance), named after the metric.

    ``df`` is a pandas (or polars) DataFrame with a row per item and session, such as
    :func:`ppg.rerank_frame`'s input or its output with ``keep=["group", "label"]``. A
    query's ranking in each session is its rows by ``rank`` ascending when ``df`` has a
    ``rank`` column (``session`` tells sessions apart when present), else by ``score``
    descending with ``ppg rerank``'s tie rule (the later row first): the ranking
    re-ranking starts from. ``item`` matches an item's rows across sessions; ``group``
    holds any hashable labels; the utility is ``utility`` if given, else ``"label"``
    when ``df`` has it, else ``score`` (as in :func:`ppg.rerank_frame`).

    ``metric`` is ``"eel"`` (EEL with ``levels`` grades, which has no default: the
    protocol evaluates with 2, and re-ranking optimises with 5 unless told otherwise),
    ``"dtr"`` (the ratio, 1 is fair) or ``"ndcg"`` (NDCG@``k``, averaged over sessions).

    >>> import pandas as pd, ppg
    >>> df = pd.DataFrame({"qid": [1, 1, 1, 2, 2], "item": list("abcde"),
    ...                    "score": [3.0, 2, 1, 2, 1], "group": list("xyyxy"),
    ...                    "label": [1.0, 1, 0, 0, 1]})
    >>> before = ppg.metrics.frame(df, metric="eel", levels=5)
    >>> out = ppg.rerank_frame(df, keep=["group", "label"], seed=1)
    >>> after = ppg.metrics.frame(out, metric="eel", levels=5)
    >>> bool((after <= before).all()), before.index.tolist()
    (True, [1, 2])
    """
    from ppg.frame import _column, _ids, _pandas, _present

    df, _ = _pandas(df)
    if metric not in FRAME_METRICS:
        raise ValueError(f"metric: unknown metric {metric!r} (expected one of {', '.join(FRAME_METRICS)})")
    if metric == "eel":
        if levels is None:
            raise TypeError(
                "levels: EEL needs its grade levels stated (2 as the protocol evaluates, 5 as "
                "re-ranking optimises by default)"
            )
        levels = _checks.integer(levels, "levels", 1, _checks.U32)
    k = _checks.integer(k, "k", 1)
    if utility is None:
        utility = "label" if "label" in df.columns else score
    labels = df.index
    q = _column(df, qid, "qid")
    items = _column(df, item, "item")
    _ids(q, "qid", labels)
    _ids(items, "item", labels)
    u = _checks.numbers(_column(df, utility, "utility").to_numpy(), "utility", labels=labels)
    _checks.utility(u, f"utility (column {utility!r})", "eel", metric == "ndcg", labels)
    g_values = _column(df, group, "group")
    _present(g_values, "group", labels)
    if len(df) == 0:
        raise ValueError("df: no rows")
    codes, names = pd.factorize(q, sort=False)
    g_codes, g_names = pd.factorize(g_values, sort=False)
    if metric != "ndcg" and len(g_names) > _ppg.MAX_GROUPS:
        raise ValueError(f"group: column {group!r} has {len(g_names)} groups: {_checks.group_limit(metric)[1]}")
    if rank in df.columns:
        position = _checks.numbers(df[rank].to_numpy(), "rank", labels=labels)
        if session in df.columns:
            s_codes = pd.factorize(df[session], sort=True)[0]
        else:
            s_codes = np.zeros(len(df), dtype=np.int64)
        order = np.lexsort((position, s_codes, codes))
    else:
        s = _checks.numbers(_column(df, score, "score").to_numpy(), "score", labels=labels)
        s_codes = np.zeros(len(df), dtype=np.int64)
        grouped = np.argsort(codes, kind="stable")
        bounds = np.concatenate(([0], np.cumsum(np.bincount(codes)))).astype(np.int64)
        if (np.diff(bounds) > _ppg.MAX_ITEMS).any():
            raise ValueError(f"qid: a query has more than the {_ppg.MAX_ITEMS} items the engine takes")
        order = grouped[_ppg.score_order(np.ascontiguousarray(s[grouped]), bounds)]
    # Rows in ranking order, query by query and session by session; an item's id is its
    # position in its query's first session.
    q_o, s_o = codes[order], s_codes[order]
    i_codes = pd.factorize(pd.MultiIndex.from_arrays([codes, items.to_numpy()]))[0][order]
    first_session = np.minimum.reduceat(s_o, np.flatnonzero(np.r_[True, q_o[1:] != q_o[:-1]]))
    lengths = np.bincount(codes, minlength=len(names))
    in_first = s_o == np.repeat(first_session, np.bincount(q_o, minlength=len(names)))
    n_items = np.bincount(q_o[in_first], minlength=len(names))
    # Every session of a query as long as its first.
    starts_of_runs = np.flatnonzero(np.r_[True, (q_o[1:] != q_o[:-1]) | (s_o[1:] != s_o[:-1])])
    run_lengths = np.diff(np.r_[starts_of_runs, len(order)])
    short = np.flatnonzero(run_lengths != n_items[q_o[starts_of_runs]])
    if len(short):
        at = int(order[starts_of_runs[short[0]]])
        raise ValueError(
            f"{session}: a session of query {names[codes[at]]!r} has {run_lengths[short[0]]} "
            f"rows where its first has {n_items[codes[at]]} (at {_checks.where(at, labels)})"
        )
    sessions = lengths // n_items
    if (n_items > _ppg.MAX_ITEMS).any():
        at = int(np.flatnonzero(n_items > _ppg.MAX_ITEMS)[0])
        raise ValueError(f"qid: query {names[at]!r} has {n_items[at]} items, more than the {_ppg.MAX_ITEMS} the engine takes")
    # Local id of each item: its rank in the first session.
    first_rows = order[in_first]
    local = np.full(i_codes.max() + 1, -1, dtype=np.int64)
    starts = np.repeat(np.cumsum(n_items) - n_items, n_items)
    local[i_codes[in_first]] = np.arange(in_first.sum()) - starts
    ids = local[i_codes]
    if (ids < 0).any():
        at = int(order[np.flatnonzero(ids < 0)[0]])
        raise ValueError(
            f"item: item {items.iat[at]!r} of query {names[codes[at]]!r} is not in the query's "
            f"first session (at {_checks.where(at, labels)})"
        )
    # Each session a permutation of the query's items: every (query, session, id) once.
    triples = pd.DataFrame({"q": q_o, "s": s_o, "i": ids})
    again = triples.duplicated().to_numpy()
    if again.any():
        at = int(order[np.flatnonzero(again)[0]])
        raise ValueError(
            f"item: item {items.iat[at]!r} appears twice in a session of query "
            f"{names[codes[at]]!r} (at {_checks.where(at, labels)})"
        )
    if rank in df.columns:
        # Two rows of one session at one rank have no order between them.
        p_o = position[order]
        tie = (q_o[1:] == q_o[:-1]) & (s_o[1:] == s_o[:-1]) & (p_o[1:] == p_o[:-1])
        if tie.any():
            at = int(order[np.flatnonzero(tie)[0] + 1])
            raise ValueError(
                f"rank: column {rank!r}: two rows of a session of query {names[codes[at]]!r} have rank "
                f"{position[at]:g} (at {_checks.where(at, labels)})"
            )
    item_offsets = np.concatenate(([0], np.cumsum(n_items))).astype(np.int64)
    # An item is one item in every session: the metric reads its utility and group from
    # the first session, so another value in a later one is refused, not ignored.
    key = item_offsets[q_o] + ids
    first_row = np.empty(item_offsets[-1], dtype=np.int64)
    first_row[key[in_first]] = first_rows
    ref = first_row[key]
    for argument, column, value, shown in (
        ("utility", utility, u, df[utility]),
        ("group", group, g_codes, g_values),
    ):
        differs = value[order] != value[ref]
        if differs.any():
            at, was = int(order[np.flatnonzero(differs)[0]]), int(ref[np.flatnonzero(differs)[0]])
            raise ValueError(
                f"{argument}: column {column!r}: item {items.iat[at]!r} of query {names[codes[at]]!r} has "
                f"{shown.iat[at]!r} here and {shown.iat[was]!r} in the query's first session "
                f"(at {_checks.where(at, labels)})"
            )
    values = _ppg.many(
        metric,
        np.ascontiguousarray(ids, dtype=np.uint16),
        item_offsets,
        sessions.astype(np.int64),
        np.ascontiguousarray(u[first_rows]),
        np.ascontiguousarray(g_codes[first_rows], dtype=np.uint8),
        [str(x) for x in names],
        levels or 1,
        k,
        rank_start,
    )
    return pd.Series(values, index=pd.Index(names, name=qid), name=metric)


def _probability(value: Any, name: str, low_open: bool) -> float:
    """A float in ``(0, 1]`` (``low_open``) or ``[0, 1]``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}: expected a number, got {type(value).__name__}")
    v = float(value)
    ok = (0.0 < v <= 1.0) if low_open else (0.0 <= v <= 1.0)
    if not ok:
        raise ValueError(f"{name}: must be in {'(0, 1]' if low_open else '[0, 1]'}, got {value!r}")
    return v


def expected_exposure(
    ranking: Any,
    utility: Any,
    groups: Any,
    *,
    browse: str = "cascade",
    patience: float = 0.5,
    cascade_utility: float = 0.5,
    level: str = "group",
    normalised: bool = True,
    rank_start: str = "one",
) -> "dict[str, float]":
    """Expected exposure as diazf/expeval scores a re-ranking (TREC Fair Ranking 2020's
    settings: patience 0.5, ``level="group"``, normalised): ``{"loss": EE-L,
    "disparity": EE-D, "relevance": EE-R}``, raw or normalised per query. ``browse`` is
    "cascade" (the published cascade, the default: only relevant items count toward the
    stop), "cascade-judged" (the evaluator's gerr at d943b3e: every judged item does; ppg's
    published TREC figures), "rbp" or "log" (the paper's discount, from ``rank_start``).
    At group level only items with utility > 0 count, and at least one is needed."""
    u, g = _inputs(utility, groups, _ppg.MAX_GROUPS, f"expected exposure takes at most {_ppg.MAX_GROUPS} groups")
    if browse not in _ppg.BROWSE_NAMES:
        raise ValueError(f"browse: {browse!r} is none of {', '.join(map(repr, _ppg.BROWSE_NAMES))}")
    if level not in ("group", "item"):
        raise ValueError(f"level: {level!r} is neither 'group' nor 'item'")
    p = _probability(patience, "patience", True)
    c = _probability(cascade_utility, "cascade_utility", False)
    if level == "group" and not (u > 0).any():
        raise ValueError("utility: group-level expected exposure needs an item with utility > 0")
    r, sessions = _ranking(ranking, len(u))
    v = _ppg.expected_exposure(r, sessions, u, g, browse, p, c, level, rank_start)
    values = v[3:] if normalised else v[:3]
    return dict(zip(("loss", "disparity", "relevance"), values))


def awrf(
    ranking: Any,
    utility: Any,
    groups: Any,
    *,
    target: Any = None,
    population: Any = None,
    depth: Optional[int] = None,
) -> "dict[str, float]":
    """Attention-weighted rank fairness as TREC Fair Ranking 2021 scored a ranking:
    ``{"awrf": AWRF, "ndcg": NDCG, "product": AWRF x NDCG}``, each the mean over sessions.
    The target distribution over groups ``0..len`` is ``target`` when given, else TREC's:
    the relevant items' (utility > 0) group distribution averaged with ``population``
    (default uniform over groups ``0..=max id``). An intersection of attributes is one
    group id per cell of their product. ``depth`` scores only the first ``depth`` ranks of
    each session, as TREC 2021 did (``depth=20``; NDCG's ideal stays the whole list's);
    default the whole list."""
    u = _checks.numbers(utility, "utility")
    _checks.list_length(len(u), "utility")
    if target is not None and population is not None:
        raise ValueError("target, population: give at most one")
    given = target if target is not None else population
    if given is None:
        k = int(np.max(np.asarray(groups))) + 1 if len(u) else 1
        given = np.ones(max(k, 1))
    d = _checks.numbers(given, "target" if target is not None else "population")
    if len(d) == 0 or len(d) > _ppg.MAX_GROUPS:
        raise ValueError(f"{'target' if target is not None else 'population'}: expected 1 to {_ppg.MAX_GROUPS} groups, got {len(d)}")
    g = _checks.group_ids(groups, "groups", len(u), len(d), f"the target covers groups 0..{len(d) - 1}")
    r, sessions = _ranking(ranking, len(u))
    if depth is not None:
        depth = _checks.integer(depth, "depth", 1, 65_535)
    v = _ppg.awrf(r, sessions, u, g, d, target is None, depth)
    return dict(zip(("awrf", "ndcg", "product"), v))


def awrf2022(
    ranking: Any,
    utility: Any,
    items: Any,
    attributes: Any,
    *,
    attribute_background: Any = None,
    attribute_target: Any = None,
    attribute_unknown: Optional["dict[str, str]"] = None,
) -> "dict[str, float]":
    """AWRF as TREC Fair Ranking 2022 scored a ranking (``ppg rerank --metric awrf2022``):
    ``{"awrf": AWRF, "ndcg": NDCG, "product": AWRF x NDCG}``, each the mean over sessions.
    ``items[i]`` names item ``i`` in ``attributes``, the long table ``item attribute level
    weight`` (a path, or a DataFrame with those columns); an item missing from it has no
    alignment and is dropped with its attention. The target is TREC's (the relevant
    items' mean alignment, averaged 50/50 with ``attribute_background`` where given), or
    the product of the marginals ``attribute_target``; ``attribute_unknown`` maps an
    attribute to its unknown policy (``"level"``, the default, ``"drop"`` or
    ``"uniform"``). The shapes are those of ``ppg rerank``'s flags of the same names
    (``ppg._attributes``); a missing file or a bad line raises ``ValueError`` naming the
    argument and the line."""
    u = _checks.numbers(utility, "utility")
    _checks.list_length(len(u), "utility")
    _checks.utility(u, "utility", "awrf2022", False)
    if isinstance(items, (str, bytes)):
        raise TypeError("items: expected a sequence of item names, got a string")
    names = [str(x) for x in items]
    if len(names) != len(u):
        raise ValueError(f"items: {len(names)} names for {len(u)} utilities")
    r, sessions = _ranking(ranking, len(u))
    texts = _attributes.texts(attributes, attribute_background, attribute_target, attribute_unknown)
    v = _ppg.awrf2022(r.tolist(), sessions, u.tolist(), names, texts)
    return dict(zip(("awrf", "ndcg", "product"), v))
