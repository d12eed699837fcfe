"""``ppg.pyterrier``: PPG search as a PyTerrier re-ranking stage (:class:`PPGReRanker`),
and ppg's fairness measures for ``pt.Experiment`` (:func:`EEL`, :func:`DTR`,
:func:`ExpectedExposure`, :func:`AWRF`). Needs the ``pyterrier`` extra:
``pip install "ppg[pyterrier]"`` (PyTerrier 1.x, whose core needs no Java).

The stage takes a result frame (``qid, docno, score`` and a group for each document) and
returns it re-ranked, each query by :func:`ppg.rerank_frame`: the same rankings as
``ppg rerank`` on the same rows and seed. The measures are ir_measures measures defined at
run time (``ir_measures.define``), so ``pt.Experiment`` lists them beside nDCG and the
others; each scores a query's run by its ``score`` order with the qrels' labels as the
utility (0 for an unjudged document) and the groups given to it.

>>> import pandas as pd, pyterrier as pt
>>> from ppg.pyterrier import PPGReRanker
>>> run = pd.DataFrame({"qid": ["1"] * 4, "docno": list("abcd"),
...                     "score": [4.0, 3, 2, 1], "group": list("xxyy")})
>>> out = (PPGReRanker(metric="eel", seed=7) % 3)(run)
>>> out["rank"].tolist(), bool(out["score"].is_monotonic_decreasing)
([0, 1, 2], True)
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Union

import numpy as np
import pandas as pd

try:
    import ir_measures
    import pyterrier as pt
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"ppg.pyterrier needs PyTerrier and ir_measures: pip install \"ppg[pyterrier]\" ({e})"
    ) from e

from ppg import metrics
from ppg.frame import recipe as _recipe
from ppg.frame import rerank_frame

__all__ = ["PPGReRanker", "EEL", "DTR", "ExpectedExposure", "AWRF"]

#: Groups given as a mapping docno -> group: a dict, a Series indexed by docno, or a
#: DataFrame with columns ``docno`` and ``group``.
Groups = Union[Mapping[Any, Any], pd.Series, pd.DataFrame]


class PPGReRanker(pt.Transformer):
    """Re-ranks each query's candidates of a result frame for group fairness.

    The input is a PyTerrier result frame: ``qid``, ``docno``, ``score`` (the ranking to
    start from: rows by score descending, ties the later row first, as ``ppg rerank``
    takes them) and each document's group, from the column ``group`` (the default name)
    or from ``groups``, a mapping docno -> group (a dict, a Series indexed by docno, or a
    frame with columns ``docno`` and ``group``). The utility the metric weighs is the
    column ``utility`` when named, else the ``qrels``' ``label`` when given (a frame
    ``qid, docno, label`` as PyTerrier datasets give it; 0 for an unjudged document or a
    negative judgement),
    else ``score``; utilities must be non-negative (``ppg rerank``'s rule), so a model
    with negative scores needs the qrels or a utility column. A missing column raises
    ``pt.validate.InputValidationError`` naming it; a bad value raises ``ValueError``
    naming the column and the row.

    The output is the input's rows re-ranked: every input column kept, ``rank`` from 0
    (PyTerrier's first rank) and ``score`` replaced by ``n - rank`` for a query of ``n``
    documents, so that sorting by score gives the new order; queries in order of first
    appearance. With ``sessions=S`` the ``S`` rankings are optimised together (expected
    fairness over sessions); the output is the first session's ranking, or all ``S``
    with ``all_sessions=True``, told apart by a column ``session`` (1..S), for
    stochastic evaluation (:func:`ppg.metrics.frame` scores such a frame). ``% k`` after
    the stage keeps each ranking's first ``k`` (in each session).

    ``metric``, ``seed``, ``threads`` and the recipe keywords (``intra``, ``epochs``,
    ``levels``, ``ee_measure``, ...) are :func:`ppg.rerank_frame`'s; the rankings are
    what ``ppg rerank`` prints for the same rows (docno as ``item``, the utility as
    ``label``) and seed.
    """

    def __init__(
        self,
        metric: str = "eel",
        *,
        group: str = "group",
        groups: Optional[Groups] = None,
        utility: Optional[str] = None,
        qrels: Optional[pd.DataFrame] = None,
        sessions: int = 1,
        all_sessions: bool = False,
        seed: int = 0,
        threads: Optional[int] = None,
        **recipe: Any,
    ) -> None:
        if utility is not None and qrels is not None:
            raise ValueError("utility, qrels: give at most one (the utility's source)")
        self.options = _recipe(sessions=sessions, **recipe)  # unknown keywords: TypeError
        self.metric = metric
        self.group = group
        self.groups = None if groups is None else _mapping(groups, "groups")
        self.utility = utility
        self.qrels = None if qrels is None else _qrels(qrels)
        self.sessions = sessions
        self.all_sessions = bool(all_sessions)
        self.seed = seed
        self.threads = threads

    def __repr__(self) -> str:
        return f"PPGReRanker(metric={self.metric!r}, sessions={self.sessions}, seed={self.seed})"

    def transform(self, inp: pd.DataFrame) -> pd.DataFrame:
        needed = ["score"]
        if self.groups is None:
            needed.append(self.group)
        if self.utility is not None:
            needed.append(self.utility)
        pt.validate.result_frame(inp, extra_columns=needed, context=self)
        if self.all_sessions and "session" in inp.columns:
            raise ValueError("all_sessions: the input has a column 'session' already")
        if len(inp) == 0:
            out = inp.copy()
            out["rank"] = pd.Series(dtype="int64")
            if self.all_sessions:
                out["session"] = pd.Series(dtype="int64")
            return out
        frame = pd.DataFrame(
            {"qid": inp["qid"].to_numpy(), "item": inp["docno"].to_numpy(), "score": inp["score"].to_numpy()},
            index=inp.index,
        )
        frame["group"] = self._groups(inp)
        frame["utility"] = self._utility(inp)
        frame["_row"] = np.arange(len(inp))
        out = rerank_frame(
            frame,
            utility="utility",
            metric=self.metric,
            seed=self.seed,
            threads=self.threads,
            keep=["_row"],
            **self.options,
        )
        if not self.all_sessions:
            out = out[out["session"] == 1]
        result = inp.iloc[out["_row"].to_numpy()].reset_index(drop=True)
        rank = out["rank"].to_numpy() - 1
        n = out.groupby(["qid", "session"], sort=False)["rank"].transform("size").to_numpy()
        result["score"] = (n - rank).astype(np.float64)
        result["rank"] = rank
        if self.all_sessions:
            result["session"] = out["session"].to_numpy()
        return result

    def _groups(self, inp: pd.DataFrame) -> np.ndarray:
        if self.groups is None:
            return inp[self.group].to_numpy()
        g = inp["docno"].map(self.groups)
        missing = g.isna().to_numpy()
        if missing.any():
            at = int(np.flatnonzero(missing)[0])
            raise ValueError(f"groups: no group for docno {inp['docno'].iat[at]!r} (row {inp.index[at]!r})")
        return g.to_numpy()

    def _utility(self, inp: pd.DataFrame) -> np.ndarray:
        if self.utility is not None:
            return inp[self.utility].to_numpy()
        if self.qrels is None:
            return inp["score"].to_numpy()
        keys = pd.MultiIndex.from_arrays([inp["qid"].astype(str), inp["docno"].astype(str)])
        # A negative judgement (TREC's -2 for spam) is no relevance: 0, as the measures take it.
        return np.maximum(self.qrels.reindex(keys).fillna(0.0).to_numpy(dtype=np.float64), 0.0)


def _mapping(groups: Groups, argument: str) -> pd.Series:
    """``groups`` as a Series docno -> group."""
    if isinstance(groups, pd.DataFrame):
        for column in ("docno", "group"):
            if column not in groups.columns:
                raise ValueError(f"{argument}: the frame has no column {column!r}")
        groups = pd.Series(groups["group"].to_numpy(), index=groups["docno"].to_numpy())
    elif not isinstance(groups, pd.Series):
        if not isinstance(groups, Mapping):
            raise TypeError(f"{argument}: expected a mapping docno -> group, got {type(groups).__name__}")
        groups = pd.Series(dict(groups), dtype=object)
    if groups.index.has_duplicates:
        raise ValueError(f"{argument}: docno {groups.index[groups.index.duplicated()][0]!r} appears twice")
    if groups.isna().any():
        raise ValueError(f"{argument}: docno {groups.index[groups.isna().to_numpy()][0]!r} has no group")
    return groups


def _qrels(qrels: pd.DataFrame) -> pd.Series:
    """The qrels as a Series (qid, docno) -> label, ids as text."""
    if not isinstance(qrels, pd.DataFrame):
        raise TypeError(f"qrels: expected a DataFrame, got {type(qrels).__name__}")
    for column in ("qid", "docno", "label"):
        if column not in qrels.columns:
            raise ValueError(f"qrels: the frame has no column {column!r}")
    keys = pd.MultiIndex.from_arrays([qrels["qid"].astype(str), qrels["docno"].astype(str)])
    if keys.has_duplicates:
        raise ValueError(f"qrels: the pair {keys[keys.duplicated()][0]!r} appears twice")
    return pd.Series(qrels["label"].to_numpy(dtype=np.float64), index=keys)


# The measures. ir_measures hands a measure the run as (query_id, doc_id, score), each
# query's rows sorted by score descending, and the qrels as (query_id, doc_id, relevance).


def _measure(name: str, groups: Groups, value) -> Any:
    """An ir_measures measure called ``name`` whose value on a query is ``value(utility,
    group ids, group count)`` of the run's documents in score order (None: no value, the
    query left out of the mean, as the track's evaluator leaves it out)."""
    mapping = _mapping(groups, "groups")
    codes, names = pd.factorize(mapping, sort=False)
    ids = pd.Series(codes, index=mapping.index)
    count = len(names)

    def impl(qrels: pd.DataFrame, run: pd.DataFrame):
        labels = pd.Series(
            qrels["relevance"].to_numpy(dtype=np.float64),
            index=pd.MultiIndex.from_arrays([qrels["query_id"].astype(str), qrels["doc_id"].astype(str)]),
        )
        for qid, rows in run.groupby("query_id", sort=False):
            docs = rows["doc_id"].astype(str)
            g = docs.map(ids)
            if g.isna().any():
                raise ValueError(f"groups: no group for doc_id {docs[g.isna()].iat[0]!r} of query {qid!r}")
            keys = pd.MultiIndex.from_arrays([np.repeat(str(qid), len(docs)), docs.to_numpy()])
            u = np.maximum(labels.reindex(keys).fillna(0.0).to_numpy(), 0.0)
            v = value(u, g.to_numpy(dtype=np.int64), count)
            if v is not None:
                yield qid, v

    return ir_measures.define(impl, name=name, support_cutoff=True)


def _text(groups: Groups) -> Groups:
    """``groups`` with text keys: ir_measures gives doc_id as text."""
    m = _mapping(groups, "groups")
    return pd.Series(m.to_numpy(), index=m.index.astype(str))


def EEL(groups: Groups, *, levels: int = 2, rank_start: str = "one") -> Any:
    """:func:`ppg.metrics.eel` (``levels`` grades: 2 as the protocol evaluates) as an
    ir_measures measure, named ``EEL(levels=...)``; lower is better."""
    def value(u, g, _):
        return metrics.eel(np.arange(len(u)), u, g, levels=levels, rank_start=rank_start)

    return _measure(f"EEL(levels={levels})", _text(groups), value)


def DTR(groups: Groups, *, rank_start: str = "one") -> Any:
    """:func:`ppg.metrics.dtr` as an ir_measures measure, named ``DTR``; 1 is fair."""
    def value(u, g, _):
        return metrics.dtr(np.arange(len(u)), u, g, rank_start=rank_start)

    return _measure("DTR", _text(groups), value)


def ExpectedExposure(
    groups: Groups,
    *,
    measure: str = "loss",
    browse: str = "cascade",
    patience: float = 0.5,
    cascade_utility: float = 0.5,
    level: str = "group",
    normalised: bool = True,
) -> Any:
    """:func:`ppg.metrics.expected_exposure`'s ``measure`` (``"loss"``: EE-L in TREC 2020's
    settings under the published cascade, ``browse="cascade-judged"`` for d943b3e's;
    ``"disparity"``, ``"relevance"``) as an ir_measures measure, named ``EE-L``, ``EE-D``
    or ``EE-R`` with the parameters that differ from the defaults. A query without a
    relevant document has no group-level value and is left out."""
    if measure not in ("loss", "disparity", "relevance"):
        raise ValueError(f"measure: {measure!r} is none of 'loss', 'disparity', 'relevance'")
    differs = {
        k: v
        for k, v in dict(browse=browse, patience=patience, cascade_utility=cascade_utility, level=level, normalised=normalised).items()
        if v != dict(browse="cascade", patience=0.5, cascade_utility=0.5, level="group", normalised=True)[k]
    }
    name = "EE-" + measure[0].upper() + ("(" + ",".join(f"{k}={v}" for k, v in differs.items()) + ")" if differs else "")

    def value(u, g, _):
        if level == "group" and not (u > 0).any():
            return None
        return metrics.expected_exposure(
            np.arange(len(u)), u, g, browse=browse, patience=patience,
            cascade_utility=cascade_utility, level=level, normalised=normalised,
        )[measure]

    return _measure(name, _text(groups), value)


def AWRF(groups: Groups, *, value: str = "awrf", target: Any = None, population: Any = None) -> Any:
    """:func:`ppg.metrics.awrf`'s ``value`` (``"awrf"``, ``"ndcg"`` or ``"product"``,
    AWRF x NDCG as TREC 2021 scored it) as an ir_measures measure, named ``AWRF``,
    ``AWRF-NDCG`` or ``AWRFxNDCG``. Group ids follow the order of first appearance in
    ``groups``, which ``target`` and ``population`` are indexed by; the population is by
    default uniform over every group of ``groups``, as ``ppg rerank`` counts a file's. A
    query without a relevant document is left out (the track's evaluator skips it)."""
    names = {"awrf": "AWRF", "ndcg": "AWRF-NDCG", "product": "AWRFxNDCG"}
    if value not in names:
        raise ValueError(f"value: {value!r} is none of 'awrf', 'ndcg', 'product'")

    def one(u, g, count):
        if not (u > 0).any():
            return None
        given = population if population is not None or target is not None else np.ones(count)
        return metrics.awrf(np.arange(len(u)), u, g, target=target, population=given if target is None else None)[value]

    return _measure(names[value], _text(groups), one)
