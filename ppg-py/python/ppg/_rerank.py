"""``ppg.rerank``: one list, numpy in and out."""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

import numpy as np

from ppg import _checks
from ppg._checks import Metric
from ppg._ppg import rerank_list


class Reranked(NamedTuple):
    """What :func:`rerank` returns."""

    #: ``(sessions, n)`` indices into the input: row ``s`` is session ``s``'s ranking.
    rankings: np.ndarray
    #: The cost of ``rankings`` (never more than ``input_cost``).
    cost: float
    #: The cost of the input ranking, repeated over the sessions.
    input_cost: float


def rerank(
    utility: Any,
    groups: Any = None,
    *,
    metric: Metric = "eel",
    score: Any = None,
    sessions: int = 1,
    intra: bool = False,
    forbid: Any = None,
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
) -> Reranked:
    """Re-ranks one list by PPG search and returns the best rankings found.

    ``utility[i]`` and ``groups[i]`` describe item ``i``. The starting ranking is the input
    order, or the items by ``score`` descending when ``score`` is given (ties: the later
    item first), exactly as ``ppg rerank`` orders a query's rows; with the same arguments
    the result equals ``ppg rerank`` on a one-query file (``--seed seed``).

    ``metric`` is ``"eel"``, ``"dtr"``, ``"ee"``, ``"awrf"``, ``"ndcg-mix"``
    (``mix_fairness`` plus ``mix_weight * (1 - NDCG@ndcg_k)``) or a callable: it receives a ``(sessions, n)``
    int64 array of item indices and returns a float cost, lower being better. An exception
    it raises reaches the caller; a NaN cost raises ``ValueError``.

    ``"ee"`` is expected exposure as TREC Fair Ranking 2020 scored it (``ppg rerank
    --metric ee``): the number ``ee_measure`` (``"loss"``, EE-L, the default;
    ``"disparity"``, EE-D; ``"relevance"``, EE-R, minimised as its distance below its
    upper bound), normalised per query unless ``ee_raw``, under the browsing model
    ``browse`` (``"cascade"``, ``"rbp"``, ``"log"``, ``"cascade-judged"``; ``browse_patience``,
    ``cascade_utility``) at ``ee_level`` (``"group"`` or ``"item"``). ``"awrf"`` is
    ``1 - AWRF x NDCG`` as TREC 2021 scored a ranking, its population uniform over
    ``awrf_groups`` groups (default: the ids ``0..=max(groups)``, as
    :func:`ppg.metrics.awrf` takes it; give the whole data set's count for a list that
    lacks some of its groups, as ``ppg rerank`` counts a file's); ``awrf_depth`` scores
    only the first ranks of each session (TREC 2021: 20; default the whole list).

    A list of one item is returned as it is, as ``ppg rerank`` passes such a query through
    (costs 0). A list ``"awrf"`` or group-level ``"ee"`` has no value for (no utility >
    0) keeps its starting ranking with NaN costs, as ``ppg rerank`` and the C API pass it
    through. Utilities follow ``ppg rerank``'s rule for its label: non-negative, and below
    1024 with ``ndcg-mix``. A long call stops on Ctrl-C (``KeyboardInterrupt``) within
    a fraction of a second; an engine larger than the memory budget (a quarter of the
    memory the process can have, as ``ppg rerank`` allows) raises ``MemoryError`` naming
    the argument that made it too large.

    ``forbid`` lists pairs ``(a, b)`` of items that never swap; ``intra`` keeps the
    starting order within each group. The other keywords are the training recipe
    (defaults: the paper's; the input ranking is scored first, so the result is never
    worse than it). ``grow`` (default) trains more than one session grown from one, as
    ``ppg rerank`` does: never worse than one run over all sessions, nor than at half the
    sessions, for about twice the training; ``grow=False`` is the paper's single run.
    Without ``intra``, ``hold`` (default, with ``groups``) keeps the order within each
    group for a first run and frees it for a second run from the best ranking found, as
    ``ppg rerank`` does: far fairer on long lists than a free run alone (TREC 2020, DTR:
    1.810 against 1.858), for about twice the training; ``hold=False`` is the free run.
    ``certify`` (default) stops training once the cost is within 1e-8 of the metric's
    exact optimum (two-group DTR or EEL), as ``ppg rerank`` does.

    >>> import numpy as np, ppg
    >>> r = ppg.rerank(np.array([3.0, 2, 2, 1, 0, 0]), np.array([0, 0, 0, 1, 1, 1]),
    ...                metric="eel", sessions=2, seed=1)
    >>> r.rankings.shape
    (2, 6)
    >>> bool(r.cost <= r.input_cost)
    True
    """
    named = isinstance(metric, str)
    if not named and not callable(metric):
        raise TypeError("metric: expected a metric name or a callable")
    if metric == "awrf2022":
        raise ValueError('metric: "awrf2022" needs the items\' attributes: ppg.rerank_frame(..., attributes=...) takes them')
    u = _checks.numbers(utility, "utility")
    n = len(u)
    _checks.list_length(n, "utility")
    if named:
        fairness = _checks.fairness_of(metric, mix_fairness)
        limit, why = _checks.group_limit(fairness)
        if groups is None:
            raise ValueError(f"groups: metric {metric!r} needs a group per item")
        g = _checks.group_ids(groups, "groups", n, limit, why)
        _checks.utility(u, "utility", fairness, metric == "ndcg-mix")
    elif groups is None:
        if intra:
            raise ValueError("groups: intra=True keeps the order within groups: give groups")
        g = np.zeros(n, dtype=np.uint8)
    else:
        g = _checks.group_ids(groups, "groups", n, 256, "group ids are bytes")
    s = np.arange(n, 0, -1, dtype=np.float64) if score is None else _checks.numbers(score, "score", n)
    f = _forbid_pairs(forbid, n)
    opts = _checks.options(
        metric=metric if named else "callable",
        mix_fairness=mix_fairness,
        mix_weight=mix_weight,
        ndcg_k=ndcg_k,
        levels=levels,
        rank_start=rank_start,
        browse=browse,
        browse_patience=browse_patience,
        cascade_utility=cascade_utility,
        ee_level=ee_level,
        ee_measure=ee_measure,
        ee_raw=bool(ee_raw),
        awrf_groups=awrf_groups if awrf_groups is not None or n == 0 else int(np.max(g)) + 1,
        awrf_depth=awrf_depth,
        sessions=sessions,
        intra=bool(intra),
        initial_weight=initial_weight,
        epochs=epochs,
        batch=batch,
        lr=lr,
        patience=patience,
        sampler=sampler,
        gradient=gradient,
        baseline=bool(baseline),
        grow=bool(grow),
        hold=bool(hold) and groups is not None,
        certify=bool(certify),
    )
    ranking, before, after = rerank_list(
        s, u, g, opts, None if named else metric, f, _checks.seed_value(seed)
    )
    return Reranked(ranking.reshape(opts["sessions"], n), after, before)


def _forbid_pairs(forbid: Any, n: int) -> np.ndarray:
    """``forbid`` as flat int64 pairs of distinct items in ``0..n``."""
    if forbid is None:
        return np.zeros(0, dtype=np.int64)
    a = np.asarray(forbid)
    if a.size == 0:
        return np.zeros(0, dtype=np.int64)
    if a.dtype.kind not in "iu":
        raise TypeError(f"forbid: expected integer item pairs, got dtype {a.dtype}")
    if a.ndim != 2 or a.shape[1] != 2:
        raise ValueError(f"forbid: expected pairs, shape (k, 2), got shape {a.shape}")
    if a.min() < 0 or a.max() >= n:
        raise ValueError(f"forbid: item ids are in 0..{n - 1}")
    if (a[:, 0] == a[:, 1]).any():
        raise ValueError("forbid: a pair names the same item twice")
    return np.ascontiguousarray(a, dtype=np.int64).ravel()
