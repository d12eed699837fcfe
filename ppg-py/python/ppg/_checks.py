"""Argument checks shared by the public functions: every error names the argument."""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import numpy as np

from ppg._ppg import MAX_GROUPS, MAX_ITEMS

#: Metric names, and how many groups each fairness metric tells apart.
GROUP_LIMITS = {"dtr": 2, "eel": MAX_GROUPS}
METRICS = ("eel", "dtr", "ndcg-mix")

Metric = Union[str, Callable[[np.ndarray], float]]


def numbers(values: Any, name: str, length: Optional[int] = None) -> np.ndarray:
    """``values`` as a contiguous 1-D float64 array of finite numbers."""
    a = np.asarray(values)
    if a.dtype.kind not in "fiub":
        raise TypeError(f"{name}: expected numbers, got an array of dtype {a.dtype}")
    if a.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {a.shape}")
    if length is not None and len(a) != length:
        raise ValueError(f"{name}: {len(a)} values where the list has {length} items")
    a = np.ascontiguousarray(a, dtype=np.float64)
    if not np.isfinite(a).all():
        bad = np.flatnonzero(~np.isfinite(a))
        raise ValueError(f"{name}: value {a[bad[0]]} at index {bad[0]} is not a finite number")
    return a


def list_length(n: int, name: str) -> None:
    """A list the engine takes: 1 to ``MAX_ITEMS`` items."""
    if n == 0:
        raise ValueError(f"{name}: the list is empty")
    if n > MAX_ITEMS:
        raise ValueError(f"{name}: {n} items, more than the {MAX_ITEMS:,} the engine takes")


def group_ids(values: Any, name: str, length: int, limit: int, why: str) -> np.ndarray:
    """``values`` as uint8 group ids in ``0..limit``."""
    a = np.asarray(values)
    if a.dtype.kind not in "iub":
        raise TypeError(f"{name}: expected integer group ids, got an array of dtype {a.dtype}")
    if a.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {a.shape}")
    if len(a) != length:
        raise ValueError(f"{name}: {len(a)} values where the list has {length} items")
    low, high = (a.min(), a.max()) if len(a) else (0, 0)
    if low < 0 or high >= limit:
        bad = low if low < 0 else high
        raise ValueError(f"{name}: group id {bad} is outside 0..{limit - 1} ({why})")
    return np.ascontiguousarray(a, dtype=np.uint8)


def fairness_of(metric: str, mix_fairness: str) -> str:
    """The fairness metric a named metric uses; ``ValueError`` for an unknown name."""
    if metric not in METRICS:
        raise ValueError(
            f"metric: unknown metric {metric!r} (expected one of {', '.join(METRICS)} "
            "or a callable)"
        )
    fairness = mix_fairness if metric == "ndcg-mix" else metric
    if fairness not in GROUP_LIMITS:
        raise ValueError(f"mix_fairness: unknown metric {fairness!r} (expected eel or dtr)")
    return fairness


def group_limit(fairness: str) -> "tuple[int, str]":
    """How many groups ``fairness`` takes, and why."""
    if fairness == "dtr":
        return 2, "DTR compares two groups"
    return MAX_GROUPS, f"EEL takes at most {MAX_GROUPS} groups"


def non_negative(utility: np.ndarray, name: str, metric: str, fairness: str) -> None:
    """DTR and NDCG need utilities >= 0, as ``ppg rerank`` requires."""
    if fairness == "dtr" or metric == "ndcg-mix":
        bad = np.flatnonzero(utility < 0)
        if len(bad):
            raise ValueError(
                f"{name}: value {utility[bad[0]]} at index {bad[0]} is negative: DTR and "
                "NDCG need non-negative utilities"
            )


def options(**kw: Any) -> "dict[str, Any]":
    """The options dict the extension reads, with the scalar types it expects."""
    for key in ("sessions", "batch", "epochs", "patience", "ndcg_k", "levels"):
        value = kw[key]
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{key}: expected a non-negative integer, got {value!r}")
    if kw["sessions"] < 1:
        raise ValueError("sessions: must be at least 1")
    for key in ("lr", "mix_weight", "initial_weight"):
        if isinstance(kw[key], bool) or not isinstance(kw[key], (int, float, np.integer, np.floating)):
            raise TypeError(f"{key}: expected a number, got {kw[key]!r}")
        kw[key] = float(kw[key])
    for key in ("intra", "baseline", "grow", "hold", "certify"):
        kw[key] = bool(kw[key])
    for key in ("sampler", "gradient", "mix_fairness", "rank_start"):
        if not isinstance(kw[key], str):
            raise TypeError(f"{key}: expected a name, got {kw[key]!r}")
    return kw


def seed_value(seed: Any) -> int:
    """A seed in ``0..2**64``."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed: expected an integer, got {type(seed).__name__}")
    if not 0 <= int(seed) < 2**64:
        raise ValueError(f"seed: {seed} is outside 0..2**64")
    return int(seed)
