"""``ppg.rerank_frame``: many queries of a pandas DataFrame, in parallel."""

from __future__ import annotations

import inspect
from typing import Any, Optional, Sequence

import numpy as np
import pandas as pd

from ppg import _attributes, _checks
from ppg import _ppg
from ppg._ppg import rerank_many

SEED_BY = ("index", "qid")

#: The output's own columns.
OUTPUT = ("qid", "session", "rank", "item", "certified", "gap")

#: The training and metric keywords, passed through to the extension as one dict.
RECIPE = (
    "sessions", "intra", "epochs", "batch", "lr", "patience", "sampler", "gradient",
    "baseline", "grow", "hold", "certify", "levels", "mix_fairness", "mix_weight", "ndcg_k", "initial_weight",
    "rank_start", "browse", "browse_patience", "cascade_utility", "ee_level", "ee_measure", "ee_raw",
    "awrf_groups", "awrf_depth",
)


def rerank_frame(
    df: Any,
    *,
    qid: str = "qid",
    item: str = "item",
    score: str = "score",
    group: str = "group",
    utility: Optional[str] = None,
    metric: str = "eel",
    seed_by: str = "index",
    threads: Optional[int] = None,
    keep: Sequence[str] = (),
    costs: bool = False,
    sessions: int = 1,
    intra: bool = False,
    seed: int = 0,
    epochs: int = 50,
    batch: int = 16,
    lr: float = 0.4,
    patience: int = 20,
    sampler: str = "uncorrected",
    gradient: str = "approximate",
    baseline: bool = False,
    grow: bool = True,
    hold: bool = True,
    certify: bool = True,
    levels: int = 5,
    mix_fairness: str = "eel",
    mix_weight: float = 1.0,
    ndcg_k: int = 10,
    initial_weight: float = 0.5,
    rank_start: str = "one",
    browse: str = "cascade",
    browse_patience: float = 0.5,
    cascade_utility: float = 0.5,
    ee_level: str = "group",
    ee_measure: str = "loss",
    ee_raw: bool = False,
    awrf_groups: Optional[int] = None,
    awrf_depth: Optional[int] = None,
    attributes: Any = None,
    attribute_background: Any = None,
    attribute_target: Any = None,
    attribute_unknown: Optional["dict[str, str]"] = None,
) -> Any:
    """Re-ranks every query of ``df`` and returns the rankings as rows
    ``qid, session, rank, item, certified, gap`` (sessions and ranks from 1), queries in
    order of first appearance. ``certified`` says that the query's rankings are within
    1e-8 of the metric's exact optimum, and ``gap`` is how far above it they are (NaN
    where the metric has no bound: an NDCG mix, expected exposure's EE-D or EE-R), as
    ``ppg rerank --report`` writes them; both repeat on every row of the query. With
    ``certify`` (default) training stops once certified; ``certify=False`` trains on until
    patience runs out and computes no bound.

    ``df`` is a pandas DataFrame, or a polars one (converted through Arrow, which needs
    pyarrow; the output is then a polars DataFrame too). The columns are those of
    ``ppg rerank``'s input, named by the keywords: a query's rows need not be contiguous,
    its starting ranking is its rows by ``score`` descending (ties: the later row first),
    ``group`` holds any hashable group names, and the utility the metric uses is
    ``utility`` if given, else ``"label"`` when ``df`` has it, else ``score``. The recipe
    keywords are :func:`ppg.rerank`'s; ``awrf_groups`` (AWRF's population, uniform over
    that many groups) defaults to the groups of the whole frame, as ``ppg rerank`` counts
    a file's, so that a query lacking a group is scored as TREC 2021 scored it.

    ``metric="awrf2022"`` is ``1 - AWRF x NDCG`` as TREC 2022 scored a ranking
    (``ppg rerank --metric awrf2022``): the items' soft attributes come from
    ``attributes`` (a path to the ``item attribute level weight`` table, or a DataFrame
    with those columns, its items named as the ``item`` column's text), with
    ``attribute_background`` or ``attribute_target`` and ``attribute_unknown`` as
    :func:`ppg.metrics.awrf2022` takes them; the output equals ``ppg rerank`` with the
    same files and flags. The ``group`` column is read as for every metric and not scored.

    The rows follow ``ppg rerank``'s rules (the same code checks them): ids neither
    missing, empty nor holding a NUL byte, utilities non-negative (below 1024 with
    ``ndcg-mix``), an item once per query, at most as many groups as the metric takes; a
    query of one row is passed through. A bad row's error gives its index label.

    ``keep`` names input columns to carry onto each output row (such as ``score``,
    ``group``, ``label``), so that the output can be scored by :func:`ppg.metrics.frame`
    without a merge. With ``costs=True`` the call returns ``(rankings, costs)``, where
    ``costs`` has one row per query, indexed by qid: ``before`` (the input ranking's
    cost) and ``after`` (the result's), the cost optimised (EEL with ``levels`` grades,
    DTR - 1, the expected-exposure number, 1 - AWRF x NDCG, or the NDCG mix; 0 for a
    query of one row; NaN for a query ``"ee"`` at group level or ``"awrf"`` has no value
    for, which keeps its starting ranking, as ``ppg rerank`` passes it through); and the
    relevance certificate, as ``ppg rerank --report`` gives it: ``ndcg`` (the result's
    NDCG@10 of the utility, averaged over sessions), ``ndcg_bound`` (an upper bound on it
    over every ranking at least as fair) and ``ndcg_gap`` (their difference; NaN for a
    query of one row or without a value).

    Queries run in parallel on ``threads`` threads (default: one per core) with the GIL
    released; a count above the machine's cores is capped to them (the work is all
    computation: more threads only take turns). The output does not depend on the thread
    count. Ctrl-C stops the call within a fraction of a second (``KeyboardInterrupt``).

    ``seed_by`` says what fixes a query's seed:

    - ``"index"`` (default): the query's position in ``df``, as ``ppg rerank`` does; groups
      are numbered in order of first appearance, as ``ppg rerank`` numbers them. The output
      then equals ``ppg rerank`` on the same rows with the same ``seed``.
    - ``"qid"``: the text of the query's id (``str(qid)``), which a distributed job can
      know; groups are numbered in sorted order and a query's rows are taken in order of
      ``item``. The output then does not depend on how rows are split or ordered: it is
      what :func:`ppg.spark.rerank` returns for the same data.

    >>> import pandas as pd, ppg
    >>> df = pd.DataFrame({"qid": [1, 1, 1, 1, 2, 2, 2],
    ...                    "item": ["a", "b", "c", "d", "e", "f", "g"],
    ...                    "score": [4.0, 3, 2, 1, 3, 2, 1],
    ...                    "group": ["x", "x", "y", "y", "x", "y", "y"]})
    >>> out = ppg.rerank_frame(df, metric="eel", sessions=2, seed=7)
    >>> list(out.columns), len(out)
    (['qid', 'session', 'rank', 'item', 'certified', 'gap'], 14)
    >>> out, costs = ppg.rerank_frame(df, keep=["group"], costs=True, seed=7)
    >>> list(out.columns), list(costs.columns), costs.index.tolist()
    (['qid', 'session', 'rank', 'item', 'certified', 'gap', 'group'], ['before', 'after', 'ndcg', 'ndcg_bound', 'ndcg_gap'], [1, 2])
    """
    arguments = locals()
    frame, polars = _pandas(df)
    out, query_costs = _rerank_rows(
        frame,
        qid=qid,
        item=item,
        score=score,
        group=group,
        utility=utility,
        metric=metric,
        seed_by=seed_by,
        threads=threads,
        seed=seed,
        groups_known=None,
        options={k: arguments[k] for k in RECIPE},
        keep=keep,
        attributes=_attribute_texts(metric, attributes, attribute_background, attribute_target, attribute_unknown),
    )
    if polars:
        import polars as pl

        out = pl.from_pandas(out)
        query_costs = pl.from_pandas(query_costs.reset_index())
    return (out, query_costs) if costs else out


def _attribute_texts(metric: Any, attributes: Any, background: Any, target: Any, unknown: Any) -> Any:
    """``metric="awrf2022"``'s side data as the extension reads them; ``None`` for another
    metric, which refuses them."""
    if metric != "awrf2022":
        given = [n for n, v in (("attributes", attributes), ("attribute_background", background),
                                ("attribute_target", target), ("attribute_unknown", unknown)) if v is not None]
        if given:
            raise ValueError(f"{given[0]}: only metric=\"awrf2022\" reads the items' attributes")
        return None
    if attributes is None:
        raise ValueError("attributes: metric=\"awrf2022\" needs the items' attributes (a path or a DataFrame)")
    return _attributes.texts(attributes, background, target, unknown)


def _pandas(df: Any) -> "tuple[pd.DataFrame, bool]":
    """``df`` as a pandas DataFrame, and whether it came from polars."""
    if isinstance(df, pd.DataFrame):
        return df, False
    kind = type(df)
    if kind.__module__.split(".")[0] == "polars" and kind.__name__ == "DataFrame":
        try:
            return df.to_pandas(), True
        except ImportError as e:  # polars converts through pyarrow
            raise ImportError(f"df: a polars DataFrame is converted through Arrow, which needs pyarrow ({e})") from e
    raise TypeError(f"df: expected a pandas or polars DataFrame, got {kind.__module__}.{kind.__name__}")


def recipe(**given: Any) -> "dict[str, Any]":
    """The recipe keywords ``given``, completed with :func:`rerank_frame`'s defaults."""
    unknown = sorted(set(given) - set(RECIPE))
    if unknown:
        raise TypeError(f"{unknown[0]}: not a recipe keyword")
    parameters = inspect.signature(rerank_frame).parameters
    return {k: given.get(k, parameters[k].default) for k in RECIPE}


def _column(df: pd.DataFrame, name: Optional[str], argument: str) -> pd.Series:
    if name not in df.columns:
        raise ValueError(f"{argument}: the DataFrame has no column {name!r}")
    return df[name]


def _present(values: pd.Series, argument: str, labels: pd.Index) -> None:
    """No missing value in the column of ``argument``."""
    missing = values.isna().to_numpy()
    if missing.any():
        at = int(np.flatnonzero(missing)[0])
        raise ValueError(
            f"{argument}: column {values.name!r} has a missing value at {_checks.where(at, labels)}"
        )


def _ids(values: pd.Series, argument: str, labels: pd.Index) -> None:
    """``values`` (a qid or item column) present, and text ids as ``ppg rerank`` takes
    them (the rule is the command line's own: ``_ppg.id_refusal``)."""
    _present(values, argument, labels)
    if pd.api.types.is_numeric_dtype(values):
        return
    refused = _ppg.id_refusal(argument, values.astype(str).tolist())
    if refused is not None:
        at, why = refused
        raise ValueError(f"{argument}: {why} (column {values.name!r}) at {_checks.where(at, labels)}")


def _rerank_rows(
    df: pd.DataFrame,
    *,
    qid: str,
    item: Optional[str],
    score: str,
    group: str,
    utility: Optional[str],
    metric: str,
    seed_by: str,
    threads: Optional[int],
    seed: int,
    groups_known: Optional[Sequence[Any]],
    options: "dict[str, Any]",
    keep: Sequence[str] = (),
    attributes: Any = None,
) -> "tuple[pd.DataFrame, pd.DataFrame]":
    """:func:`rerank_frame` (the rankings and the per-query costs); ``groups_known``
    lists every group name of the whole data set, in id order, when ``df`` is only part of
    it (a Spark task's share)."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df: expected a pandas DataFrame, got {type(df).__name__}")
    if seed_by not in SEED_BY:
        raise ValueError(f"seed_by: {seed_by!r} is neither 'index' nor 'qid'")
    if not isinstance(metric, str):
        raise TypeError("metric: rerank_frame takes a metric name (a callable needs ppg.rerank)")
    fairness = _checks.fairness_of(metric, options["mix_fairness"])
    limit, why = _checks.group_limit(fairness)
    # Capped by the extension to the machine's cores: here only the type and sign.
    workers = 0 if threads is None else min(_checks.integer(threads, "threads", 1), _checks.COUNT)
    opts = _checks.options(metric=metric, **options)
    kept = _kept(df, keep)
    if utility is None:
        utility = "label" if "label" in df.columns else score
    labels = df.index
    q = _column(df, qid, "qid")
    items = _column(df, item, "item")
    s = _checks.numbers(_column(df, score, "score").to_numpy(), "score", labels=labels)
    u = _checks.numbers(_column(df, utility, "utility").to_numpy(), "utility", labels=labels)
    _checks.utility(u, f"utility (column {utility!r})", fairness, metric == "ndcg-mix", labels)
    g_values = _column(df, group, "group")
    _ids(q, "qid", labels)
    _ids(items, "item", labels)
    _present(g_values, "group", labels)
    if len(df) == 0:
        raise ValueError("df: no rows")

    codes, names = pd.factorize(q, sort=False)
    if groups_known is not None:
        g_codes = pd.Categorical(g_values, categories=list(groups_known)).codes
        if (g_codes < 0).any():
            raise ValueError("group: a group name missing from the known groups")
        count = len(groups_known)
    else:
        g_codes, g_names = pd.factorize(g_values, sort=seed_by == "qid")
        count = len(g_names)
    if count > limit:
        raise ValueError(f"group: column {group!r} has {count} groups: {why}")
    # AWRF's population: the whole frame's groups (a Spark task: the whole data set's), as
    # `ppg rerank` counts a file's, unless given (issue 38, point 8).
    if opts["awrf_groups"] is None:
        opts["awrf_groups"] = max(count, 1)
    elif opts["awrf_groups"] < count:
        raise ValueError(f"awrf_groups: {opts['awrf_groups']} is fewer than the {count} groups of column {group!r}")
    keys = pd.DataFrame({"q": codes, "i": items.to_numpy()})
    duplicated = keys.duplicated()
    if duplicated.any():
        row = int(np.flatnonzero(duplicated.to_numpy())[0])
        raise ValueError(
            f"item: item {keys['i'].iat[row]!r} appears twice in query {names[codes[row]]!r} "
            f"(again at {_checks.where(row, labels)})"
        )
    if seed_by == "index":
        order = np.argsort(codes, kind="stable")
    else:
        order = keys.sort_values(["q", "i"], kind="mergesort").index.to_numpy()
    lengths = np.bincount(codes, minlength=len(names))
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    rows, before, after, certified, gap, (ndcg, ndcg_bound, ndcg_gap) = rerank_many(
        np.ascontiguousarray(s[order]),
        np.ascontiguousarray(u[order]),
        np.ascontiguousarray(g_codes[order], dtype=np.uint8),
        offsets,
        [str(x) for x in names],
        opts,
        _checks.seed_value(seed),
        seed_by == "qid",
        workers,
        items=None if attributes is None else [str(x) for x in items.to_numpy()[order]],
        attributes=attributes,
    )
    sessions = opts["sessions"]
    per_query = lengths * sessions
    n_of_row = np.repeat(lengths, per_query)
    t = np.arange(len(rows)) - np.repeat(np.cumsum(per_query) - per_query, per_query)
    source = order[rows]
    out = pd.DataFrame(
        {
            "qid": np.repeat(np.asarray(names), per_query),
            "session": t // n_of_row + 1,
            "rank": t % n_of_row + 1,
            "item": items.to_numpy()[source],
            "certified": np.repeat(certified, per_query),
            "gap": np.repeat(gap, per_query),
        }
    )
    for column in kept:
        out[column] = df[column].iloc[source].reset_index(drop=True)
    query_costs = pd.DataFrame(
        {"before": before, "after": after, "ndcg": ndcg, "ndcg_bound": ndcg_bound, "ndcg_gap": ndcg_gap},
        index=pd.Index(names, name=qid),
    )
    return out, query_costs


def _kept(df: pd.DataFrame, keep: Sequence[str]) -> "list[str]":
    """The columns ``keep`` names, checked: in ``df``, each once, none an output column."""
    if isinstance(keep, str):
        raise TypeError(f"keep: expected a list of column names, got the string {keep!r}")
    kept = list(keep)
    for name in kept:
        if name in OUTPUT:
            raise ValueError(f"keep: {name!r} is a column of the output already")
        if name not in df.columns:
            raise ValueError(f"keep: the DataFrame has no column {name!r}")
    if len(set(kept)) != len(kept):
        raise ValueError("keep: a column is named twice")
    return kept
