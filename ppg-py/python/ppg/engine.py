"""``ppg.Engine``: the PPG engine for callers that score rankings themselves."""

from __future__ import annotations

from typing import Any, Callable, Optional, Tuple

import numpy as np

from ppg import _checks, _ppg


class Engine:
    """A PPG engine laid out for lists of up to ``items`` items, ``sessions`` sessions and
    batches of ``batch`` samples. Item ids are positions in the starting ranking.

    A call that fails raises and changes nothing. Not thread-safe: one thread at a time.
    An engine larger than the memory budget (a quarter of the memory the process can have,
    as ``ppg rerank`` allows) raises ``MemoryError`` naming the argument that made it so.

    >>> import numpy as np, ppg
    >>> engine = ppg.Engine(items=6, sessions=2, batch=8, seed=3)
    >>> engine.start(6, sessions=2)
    >>> for _ in range(20):
    ...     batch, log_probs = engine.sample_batch(8)      # (8, 2, 6) rankings
    ...     costs = batch[:, :, 0].sum(axis=1).astype(float)  # want item 0 on top
    ...     _ = engine.update(costs)
    >>> ranking, cost = engine.best()
    >>> ranking.shape, cost
    ((2, 6), 0.0)
    >>> bool(np.isfinite(engine.log_prob(ranking)))
    True
    """

    def __init__(self, items: int, sessions: int = 1, batch: int = 16, seed: int = 0) -> None:
        items = _checks.integer(items, "items", 1)
        sessions = _checks.integer(sessions, "sessions", 1)
        batch = _checks.integer(batch, "batch", 1)
        self._engine = _ppg.Engine(items, sessions, batch, _checks.seed_value(seed))
        self._shape: Tuple[int, int] = (0, 0)

    def reseed(self, seed: int) -> None:
        """Restarts the random generator from ``seed``."""
        self._engine.reseed(_checks.seed_value(seed))

    def start(
        self,
        items: int,
        sessions: int = 1,
        initial_weight: float = 0.5,
        *,
        keep_order: Any = None,
        hold_order: Any = None,
        forbid: Any = None,
    ) -> None:
        """Starts a query of ``items`` items in ``sessions`` sessions, every pair at
        ``initial_weight``. ``keep_order`` (a group id per item) keeps the starting order
        within each group; ``hold_order`` (likewise) keeps it for a first run of each
        :meth:`train`, then frees it for a second run from the best ranking found;
        ``forbid`` lists pairs ``(a, b)`` that never swap."""
        items = _checks.integer(items, "items", 1)
        sessions = _checks.integer(sessions, "sessions", 1)
        initial_weight = _checks.real(initial_weight, "initial_weight")
        keep = _group_ids(keep_order, "keep_order")
        hold = _group_ids(hold_order, "hold_order")
        pairs = None
        if forbid is not None:
            pairs = np.asarray(forbid)
            if pairs.size and (pairs.dtype.kind not in "iu" or pairs.ndim != 2 or pairs.shape[1] != 2):
                raise ValueError("forbid: expected integer pairs, shape (k, 2)")
            pairs = np.ascontiguousarray(pairs, dtype=np.int64).ravel()
        self._engine.start(items, sessions, initial_weight, keep, hold, pairs)
        self._shape = (sessions, items)

    def sample_batch(self, count: int, sampler: str = "uncorrected") -> Tuple[np.ndarray, np.ndarray]:
        """Draws ``count`` rankings: a ``(count, sessions, items)`` array and each one's
        log-probability (within 1e-6 per item and session of :meth:`log_prob` for the
        uncorrected sampler, which draws in single precision). They wait for :meth:`update`."""
        count = _checks.integer(count, "count", 1)
        ids, log_probs = self._engine.sample_batch(count, sampler)
        return ids.reshape(count, *self._shape), log_probs

    def update(
        self, costs: Any, *, lr: float = 0.4, gradient: str = "approximate", baseline: bool = False
    ) -> bool:
        """One REINFORCE step with one cost per ranking of the pending batch (lower is
        better); returns whether a new best ranking was found."""
        c = _checks.numbers(costs, "costs")
        return self._engine.update(c, _checks.real(lr, "lr"), gradient, bool(baseline))

    def best(self) -> Optional[Tuple[np.ndarray, float]]:
        """The lowest-cost ranking seen, ``(sessions, items)``, and its cost; ``None``
        before any was scored."""
        found = self._engine.best()
        if found is None:
            return None
        ids, cost = found
        return ids.reshape(self._shape), cost

    def log_prob(self, ranking: Any, sampler: str = "uncorrected") -> float:
        """The exact log-probability that ``sampler`` draws ``ranking`` (``-inf`` when it
        cannot, such as a ranking that swaps a forbidden pair)."""
        a = np.asarray(ranking)
        if a.dtype.kind not in "iu":
            raise TypeError(f"ranking: expected integer item ids, got dtype {a.dtype}")
        return self._engine.log_prob(np.ascontiguousarray(a, dtype=np.int64).ravel(), sampler)

    def train(
        self,
        objective: Callable[[np.ndarray], float],
        *,
        epochs: int = 50,
        batch: int = 16,
        lr: float = 0.4,
        patience: int = 20,
        sampler: str = "uncorrected",
        gradient: str = "approximate",
        baseline: bool = False,
        grow: bool = False,
    ) -> Tuple[int, float]:
        """Trains against ``objective`` (a ``(sessions, items)`` ranking to a float cost);
        returns the epochs run and the best cost. ``grow`` trains more than one session
        grown from one (as :func:`ppg.rerank` does by default): the best is then never worse
        than without it. If ``objective`` raises or returns NaN,
        the exception (``ValueError`` for NaN, ``TypeError`` naming ``objective`` for a
        return value that is not a number) reaches the caller and the engine, random
        generator included, is as before the call; so it is after Ctrl-C, which is checked
        before every call of ``objective``."""
        if not callable(objective):
            raise TypeError("objective: expected a callable")
        return self._engine.train(
            objective,
            _checks.integer(epochs, "epochs", 0, _checks.U32),
            _checks.integer(batch, "batch", 1),
            _checks.real(lr, "lr"),
            _checks.integer(patience, "patience", 0, _checks.U32),
            sampler,
            gradient,
            bool(baseline),
            bool(grow),
        )


def _group_ids(groups: Any, name: str) -> Optional[np.ndarray]:
    """``groups`` as the contiguous int64 array the extension reads (None stays None)."""
    if groups is None:
        return None
    ids = np.asarray(groups)
    if ids.dtype.kind not in "iub" or ids.ndim != 1:
        raise TypeError(f"{name}: expected a 1-D array of integer group ids")
    return np.ascontiguousarray(ids, dtype=np.int64)
