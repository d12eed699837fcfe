"""The protocol's metrics of given rankings (the definitions ``ppg reproduce`` evaluates
with): EEL, DTR and NDCG@k; and the TREC Fair Ranking measures: expected exposure (EE-L,
EE-D, EE-R, as TREC 2020 scored them) and AWRF with its NDCG product (TREC 2021/2022).
docs/metrics.md gives the definitions.

A ranking is a 1-D array of item indices (one session) or a 2-D ``(sessions, n)`` array,
each row a permutation of ``0..n``; ``utility[i]`` and ``groups[i]`` describe item ``i``.

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

from typing import Any

import numpy as np

from ppg import _checks, _ppg

__all__ = ["eel", "dtr", "ndcg", "expected_exposure", "awrf"]


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
    return u, _checks.group_ids(groups, "groups", len(u), limit, why)


def eel(ranking: Any, utility: Any, groups: Any, *, levels: int = 2, rank_start: str = "one") -> float:
    """Expected exposure loss: sum over groups of (expected exposure - target)^2, the
    target from ``levels`` grades of ``utility`` (the protocol evaluates with 2 and
    optimises with 5). 0 is optimal."""
    u, g = _inputs(utility, groups, _ppg.MAX_GROUPS, f"EEL takes at most {_ppg.MAX_GROUPS} groups")
    r, sessions = _ranking(ranking, len(u))
    return _ppg.eel(r, sessions, u, g, levels, rank_start)


def dtr(ranking: Any, utility: Any, groups: Any, *, rank_start: str = "one") -> float:
    """Disparity of treatment ratio of two groups (0 and 1): the larger exposure-per-utility
    ratio over the smaller, over all sessions; 1 is fair (and degenerate cases)."""
    u, g = _inputs(utility, groups, 2, "DTR compares two groups")
    _checks.non_negative(u, "utility", "dtr", "dtr")
    r, sessions = _ranking(ranking, len(u))
    return _ppg.dtr(r, sessions, u, g, rank_start)


def ndcg(ranking: Any, utility: Any, *, k: int = 10) -> float:
    """NDCG@k with gains 2^utility - 1 and discount 1 / log2(r + 2), r from 0, averaged
    over sessions."""
    u = _checks.numbers(utility, "utility")
    _checks.list_length(len(u), "utility")
    _checks.non_negative(u, "utility", "ndcg-mix", "eel")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k: expected a positive integer, got {k!r}")
    r, sessions = _ranking(ranking, len(u))
    return _ppg.ndcg(r, sessions, u, int(k))


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
    """Expected exposure as diazf/expeval scores a re-ranking (TREC Fair Ranking 2020:
    ``browse="cascade"``, patience 0.5, ``level="group"``, normalised): ``{"loss": EE-L,
    "disparity": EE-D, "relevance": EE-R}``, raw or normalised per query. ``browse`` is
    "cascade" (the evaluator's gerr), "rbp" or "log" (the paper's discount, from
    ``rank_start``). At group level only items with utility > 0 count, and at least one is
    needed."""
    u, g = _inputs(utility, groups, _ppg.MAX_GROUPS, f"expected exposure takes at most {_ppg.MAX_GROUPS} groups")
    if browse not in ("cascade", "rbp", "log"):
        raise ValueError(f"browse: {browse!r} is none of 'cascade', 'rbp', 'log'")
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
) -> "dict[str, float]":
    """Attention-weighted rank fairness as TREC Fair Ranking 2021 scored a ranking:
    ``{"awrf": AWRF, "ndcg": NDCG, "product": AWRF x NDCG}``, each the mean over sessions.
    The target distribution over groups ``0..len`` is ``target`` when given, else TREC's:
    the relevant items' (utility > 0) group distribution averaged with ``population``
    (default uniform over groups ``0..=max id``). An intersection of attributes is one
    group id per cell of their product."""
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
    v = _ppg.awrf(r, sessions, u, g, d, target is None)
    return dict(zip(("awrf", "ndcg", "product"), v))
