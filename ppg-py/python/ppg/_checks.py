"""Argument checks shared by the public functions: every error names the argument.

The input rules that ``ppg rerank`` applies to its rows (ids, utilities, group counts) are
not restated here: they are called from ppg-host, the library both front ends share,
through the extension (``_ppg.id_refusal``, ``_ppg.utility_refusal``,
``_ppg.group_limit``), so that both front ends refuse the same rows.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from ppg import _ppg
from ppg._ppg import MAX_ITEMS

#: The metrics a name may give: the core's (``_ppg.METRIC_NAMES``).
METRICS = tuple(_ppg.METRIC_NAMES)

#: The largest value of an argument the extension holds in 32 bits (levels, epochs, ...).
U32 = 2**32 - 1
#: The largest count worth passing on (sessions, batch, ...): far beyond any engine.
COUNT = 2**63 - 1

Metric = Union[str, Callable[[np.ndarray], float]]


def where(position: int, labels: Optional[Sequence[Any]]) -> str:
    """Where a value is: ``index 3`` for an array, ``index label 'r7'`` for a frame's row."""
    if labels is None:
        return f"index {position}"
    return f"index label {labels[position]!r}"


def integer(value: Any, name: str, low: int = 0, high: int = COUNT) -> int:
    """``value`` as a Python int in ``low..=high``: ``TypeError`` for a non-integer and
    ``ValueError`` for one out of range, both naming the argument."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: expected an integer, got {value!r}")
    if not low <= int(value) <= high:
        bound = f"at least {low}" if int(value) < low else f"at most {high:,}"
        raise ValueError(f"{name}: {value} is out of range (must be {bound})")
    return int(value)


def real(value: Any, name: str) -> float:
    """``value`` as a float: ``TypeError`` naming the argument for anything but a number
    (its range is the extension's to check, with the same name)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}: expected a number, got {value!r}")
    return float(value)


def numbers(values: Any, name: str, length: Optional[int] = None, labels: Optional[Sequence[Any]] = None) -> np.ndarray:
    """``values`` as a contiguous 1-D float64 array of finite numbers; ``labels`` (a
    frame's index) say where a bad value is."""
    a = np.asarray(values)
    if a.dtype.kind not in "fiub":
        raise TypeError(f"{name}: expected numbers, got an array of dtype {a.dtype}")
    if a.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {a.shape}")
    if length is not None and len(a) != length:
        raise ValueError(f"{name}: {len(a)} values where the list has {length} items")
    a = np.ascontiguousarray(a, dtype=np.float64)
    if not np.isfinite(a).all():
        bad = int(np.flatnonzero(~np.isfinite(a))[0])
        raise ValueError(f"{name}: value {a[bad]} at {where(bad, labels)} is not a finite number")
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
    group_limit(fairness, "mix_fairness" if metric == "ndcg-mix" else "metric")
    return fairness


def group_limit(fairness: str, argument: str = "metric") -> "tuple[int, str]":
    """How many groups ``fairness`` takes, and why (``ppg rerank``'s rule)."""
    return _ppg.group_limit(fairness, argument)


def utility(values: np.ndarray, name: str, fairness: str, ndcg: bool, labels: Optional[Sequence[Any]] = None) -> None:
    """``ppg rerank``'s rule for a utility: non-negative for every metric, and below 1024
    when the cost has an NDCG term."""
    refused = _ppg.utility_refusal(fairness, ndcg, values)
    if refused is not None:
        at, why = refused
        raise ValueError(f"{name}: value {values[at]} at {where(at, labels)} {why}")


def options(**kw: Any) -> "dict[str, Any]":
    """The options dict the extension reads, with the scalar types it expects."""
    for key in ("sessions", "batch", "ndcg_k"):
        kw[key] = integer(kw[key], key, 1)
    for key in ("epochs", "patience"):
        kw[key] = integer(kw[key], key, 0, U32)
    kw["levels"] = integer(kw["levels"], "levels", 1, U32)
    for key in ("lr", "mix_weight", "initial_weight", "browse_patience", "cascade_utility"):
        kw[key] = real(kw[key], key)
    for key in ("intra", "baseline", "grow", "hold", "certify", "ee_raw"):
        kw[key] = bool(kw[key])
    if kw.get("awrf_groups") is not None:
        kw["awrf_groups"] = integer(kw["awrf_groups"], "awrf_groups", 1, _ppg.MAX_GROUPS)
    else:
        kw["awrf_groups"] = None
    if kw.get("awrf_depth") is not None:
        kw["awrf_depth"] = integer(kw["awrf_depth"], "awrf_depth", 1, 65_535)
    else:
        kw["awrf_depth"] = None
    for key in ("sampler", "gradient", "mix_fairness", "rank_start", "browse", "ee_level", "ee_measure"):
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
