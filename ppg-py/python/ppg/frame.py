"""``ppg.rerank_frame``: many queries of a pandas DataFrame, in parallel."""

from __future__ import annotations

import inspect
from typing import Any, Optional, Sequence

import numpy as np
import pandas as pd

from ppg import _checks
from ppg._ppg import rerank_many

SEED_BY = ("index", "qid")

#: The training and metric keywords, passed through to the extension as one dict.
RECIPE = (
    "sessions", "intra", "epochs", "batch", "lr", "patience", "sampler", "gradient",
    "baseline", "grow", "hold", "certify", "levels", "mix_fairness", "mix_weight", "ndcg_k", "initial_weight",
    "rank_start",
)


def rerank_frame(
    df: pd.DataFrame,
    *,
    qid: str = "qid",
    item: str = "item",
    score: str = "score",
    group: str = "group",
    utility: Optional[str] = None,
    metric: str = "eel",
    seed_by: str = "index",
    threads: Optional[int] = None,
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
) -> pd.DataFrame:
    """Re-ranks every query of ``df`` and returns the rankings as rows
    ``qid, session, rank, item, certified, gap`` (sessions and ranks from 1), queries in
    order of first appearance. ``certified`` says that the query's rankings are within
    1e-8 of the metric's exact optimum, and ``gap`` is how far above it they are (NaN
    where the metric has no bound: an NDCG mix, more than two groups), as ``ppg rerank
    --report`` writes them; both repeat on every row of the query. With ``certify``
    (default) training stops once certified; ``certify=False`` trains on until patience
    runs out and computes no bound.

    The columns are those of ``ppg rerank``'s input, named by the keywords: a query's rows
    need not be contiguous, its starting ranking is its rows by ``score`` descending (ties:
    the later row first), ``group`` holds any hashable group names, and the utility the
    metric uses is ``utility`` if given, else ``"label"`` when ``df`` has it, else
    ``score``. The recipe keywords are :func:`ppg.rerank`'s.

    Queries run in parallel on ``threads`` threads (default: one per core) with the GIL
    released; the output does not depend on the thread count.

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
    """
    arguments = locals()
    return _rerank_rows(
        df,
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
    )


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
) -> pd.DataFrame:
    """:func:`rerank_frame`; ``groups_known`` lists every group name of the whole data
    set, in id order, when ``df`` is only part of it (a Spark task's share)."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df: expected a pandas DataFrame, got {type(df).__name__}")
    if seed_by not in SEED_BY:
        raise ValueError(f"seed_by: {seed_by!r} is neither 'index' nor 'qid'")
    if not isinstance(metric, str):
        raise TypeError("metric: rerank_frame takes a metric name (a callable needs ppg.rerank)")
    fairness = _checks.fairness_of(metric, options["mix_fairness"])
    limit, why = _checks.group_limit(fairness)
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads: expected a positive integer, got {threads!r}")
    if utility is None:
        utility = "label" if "label" in df.columns else score
    q = _column(df, qid, "qid")
    items = _column(df, item, "item")
    s = _checks.numbers(_column(df, score, "score").to_numpy(), "score")
    u = _checks.numbers(_column(df, utility, "utility").to_numpy(), "utility")
    _checks.non_negative(u, f"utility (column {utility!r})", metric, fairness)
    g_values = _column(df, group, "group")
    if q.isna().any():
        raise ValueError(f"qid: column {qid!r} has a missing value")
    if g_values.isna().any():
        raise ValueError(f"group: column {group!r} has a missing value")
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
    keys = pd.DataFrame({"q": codes, "i": items.to_numpy()})
    duplicated = keys.duplicated()
    if duplicated.any():
        row = int(np.flatnonzero(duplicated.to_numpy())[0])
        raise ValueError(
            f"item: item {keys['i'].iat[row]!r} appears twice in query {names[codes[row]]!r}"
        )
    if seed_by == "index":
        order = np.argsort(codes, kind="stable")
    else:
        order = keys.sort_values(["q", "i"], kind="mergesort").index.to_numpy()
    lengths = np.bincount(codes, minlength=len(names))
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    opts = _checks.options(metric=metric, **options)
    rows, _, _, certified, gap = rerank_many(
        np.ascontiguousarray(s[order]),
        np.ascontiguousarray(u[order]),
        np.ascontiguousarray(g_codes[order], dtype=np.uint8),
        offsets,
        [str(x) for x in names],
        opts,
        _checks.seed_value(seed),
        seed_by == "qid",
        threads or 0,
    )
    sessions = opts["sessions"]
    per_query = lengths * sessions
    n_of_row = np.repeat(lengths, per_query)
    t = np.arange(len(rows)) - np.repeat(np.cumsum(per_query) - per_query, per_query)
    return pd.DataFrame(
        {
            "qid": np.repeat(np.asarray(names), per_query),
            "session": t // n_of_row + 1,
            "rank": t % n_of_row + 1,
            "item": items.to_numpy()[order[rows]],
            "certified": np.repeat(certified, per_query),
            "gap": np.repeat(gap, per_query),
        }
    )
