"""``ppg.frontier``: what fairness costs in relevance over a frame's queries."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pandas as pd

from ppg import _checks
from ppg._ppg import MAX_ITEMS
from ppg._ppg import frontier as _frontier

#: The output's columns.
COLUMNS = ("row", "level", "fairness", "ndcg", "bound", "exact", "queries")


def frontier(
    df: Any,
    *,
    metric: str = "dtr",
    sessions: int = 1,
    levels: int = 20,
    k: int = 10,
    utility: str = "label",
    seed: int = 0,
    budget: int = 20_000_000,
    threads: Optional[int] = None,
    qid: str = "qid",
    group: str = "group",
    label: str = "label",
    score: str = "score",
) -> pd.DataFrame:
    """The trade-off between fairness and relevance over the queries of ``df``, the numbers
    of ``ppg frontier``'s table (the same code computes both): for ``levels`` fairness
    levels ``t`` from each query's exact optimum (``t = 0``) to the input ranking's own
    (``t = 1``), the mean over the queries of the fairness allowed, of the best mean
    NDCG@``k`` over ``sessions`` rankings within it and of an upper bound on that.

    ``df`` is a pandas DataFrame with a query id (``qid``), two groups (``group``, any
    hashable names, numbered in order of first appearance), true relevance labels
    (``label``) and the model's score (``score``; the input ranking is by score,
    descending), both non-negative. Queries are taken in order of first appearance (a
    query's rows need not be contiguous); ``ppg frontier`` on the same rows written query
    by query, with ``score`` as ``ltr_grade``, gives the same numbers.

    ``metric`` is ``"dtr"`` or ``"eel"`` (two groups; fairness on the sessions' mean
    exposure; EEL on 2 grade levels). ``utility`` (``"label"`` or ``"score"``) is what the
    default recipe's point optimises; ``seed`` its seed. ``budget``: nodes of the walks per
    query and level before they settle for the best found. Queries the metric does not
    score (no relevant item under DTR, one group) are left out, as the command does.

    Returns one row per level (``row`` ``"level"``, ``level`` = t), then ``"none"`` (no
    fairness constraint; ``fairness`` NaN), ``"input"`` (the input ranking) and
    ``"recipe"`` (``ppg rerank``'s default recipe; for these two ``level``, ``bound`` and
    ``exact`` are missing). ``exact`` counts the queries whose best is proven: at one
    session the walk finished, at several the best reached the bound. ``queries`` is the
    number of queries scored. ``attrs`` holds ``metric``, ``sessions`` and ``k``.

    >>> import pandas as pd, ppg
    >>> df = pd.DataFrame({"qid": [1] * 6, "group": list("aabbab"),
    ...                    "label": [0, 1, 2, 0, 1, 3], "score": [6.0, 5, 4, 3, 2, 1]})
    >>> f = ppg.frontier(df, levels=3, sessions=2)
    >>> f["row"].tolist()
    ['level', 'level', 'level', 'none', 'input', 'recipe']
    >>> bool((f["ndcg"][:4] <= f["bound"][:4]).all()), bool(f["ndcg"][:4].is_monotonic_increasing)
    (True, True)
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df: expected a pandas DataFrame, got {type(df).__name__}")
    if not isinstance(metric, str):
        raise TypeError(f"metric: expected a name, got {metric!r}")
    if not isinstance(utility, str):
        raise TypeError(f"utility: expected a name, got {utility!r}")
    sessions = _checks.integer(sessions, "sessions", 1)
    levels = _checks.integer(levels, "levels", 2)
    k = _checks.integer(k, "k", 1)
    seed = _checks.seed_value(seed)
    budget = _checks.integer(budget, "budget", 1, 2**64 - 1)
    threads = 0 if threads is None else _checks.integer(threads, "threads", 1)
    columns = {}
    for argument, name in (("qid", qid), ("group", group), ("label", label), ("score", score)):
        if name not in df.columns:
            raise ValueError(f"{argument}: the DataFrame has no column {name!r}")
        values = df[name]
        missing = values.isna().to_numpy()
        if missing.any():
            at = int(np.flatnonzero(missing)[0])
            raise ValueError(f"{argument}: column {name!r} has a missing value at {_checks.where(at, df.index)}")
        columns[argument] = values
    # Queries in order of first appearance, each query's rows in the frame's order.
    codes, _ = pd.factorize(columns["qid"])
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes, minlength=codes.max() + 1 if len(codes) else 0)
    # ``ppg frontier``'s rules for a query's length.
    if len(counts) and counts.min() < 2:
        name = columns["qid"].iloc[int(np.flatnonzero(codes == int(np.argmin(counts)))[0])]
        raise ValueError(f"qid: query {name!r} has only one row: nothing to rank")
    if len(counts) and counts.max() > MAX_ITEMS:
        raise ValueError(f"qid: a query has {counts.max():,} rows, more than the {MAX_ITEMS:,} the search takes")
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    labels = df.index[order]
    arrays = {}
    for argument in ("label", "score"):
        a = _checks.numbers(columns[argument].to_numpy()[order], argument, labels=labels)
        if (a < 0).any():
            at = int(np.flatnonzero(a < 0)[0])
            raise ValueError(f"{argument}: value {a[at]} at {_checks.where(at, labels)} is negative")
        arrays[argument] = a
    groups, names = pd.factorize(columns["group"].to_numpy()[order])
    if len(names) > 2:
        raise ValueError(
            f"group: {len(names)} groups ({', '.join(map(repr, names[:3]))}, ...); the frontier compares two"
        )
    queries, rows, inp, recipe = _frontier(
        arrays["label"], arrays["score"], groups.astype(np.uint8), offsets,
        metric, sessions, levels, k, utility, seed, budget, threads,
    )
    nan = float("nan")
    table = [
        ("level" if t is not None else "none", nan if t is None else t, fairness, ndcg, bound, exact, queries)
        for t, fairness, ndcg, bound, exact in rows
    ]
    table += [("input", nan, inp[0], inp[1], nan, None, queries), ("recipe", nan, recipe[0], recipe[1], nan, None, queries)]
    out = pd.DataFrame(table, columns=list(COLUMNS))
    out["exact"] = out["exact"].astype("Int64")
    out.attrs.update(metric=metric, sessions=sessions, k=k)
    return out
