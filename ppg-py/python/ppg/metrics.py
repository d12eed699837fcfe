"""The protocol's metrics of given rankings (the definitions ``ppg reproduce`` evaluates
with): EEL, DTR and NDCG@k.

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
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ppg import _checks, _ppg

__all__ = ["eel", "dtr", "ndcg"]


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
