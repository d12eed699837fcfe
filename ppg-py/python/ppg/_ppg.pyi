"""Types of the Rust extension; the public, checked API is in the package's modules."""

from typing import Any, Callable, List, Optional, Tuple

import numpy as np

MAX_ITEMS: int
MAX_GROUPS: int
METRIC_NAMES: List[str]
BROWSE_NAMES: List[str]

def rerank_list(
    score: np.ndarray,
    utility: np.ndarray,
    group: np.ndarray,
    options: "dict[str, Any]",
    objective: Optional[Callable[[np.ndarray], float]],
    forbid: np.ndarray,
    seed: int,
) -> Tuple[np.ndarray, float, float]: ...
def rerank_many(
    score: np.ndarray,
    utility: np.ndarray,
    group: np.ndarray,
    offsets: np.ndarray,
    names: "list[str]",
    options: "dict[str, Any]",
    seed: int,
    seed_by_qid: bool,
    threads: int,
    items: Optional["list[str]"] = None,
    attributes: Optional[Tuple[str, Optional[str], Optional[str], "list[tuple[str, str]]"]] = None,
) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]: ...
def frontier(
    label: np.ndarray,
    ltr: np.ndarray,
    group: np.ndarray,
    offsets: np.ndarray,
    metric: str,
    sessions: int,
    levels: int,
    k: int,
    utility: str,
    seed: int,
    budget: int,
    threads: int,
) -> Tuple[
    int,
    List[Tuple[Optional[float], float, float, float, int]],
    Tuple[float, float],
    Tuple[float, float],
]: ...
def eel(ranking: np.ndarray, sessions: int, utility: np.ndarray, group: np.ndarray, levels: int, rank_start: str) -> float: ...
def dtr(ranking: np.ndarray, sessions: int, utility: np.ndarray, group: np.ndarray, rank_start: str) -> float: ...
def ndcg(ranking: np.ndarray, sessions: int, utility: np.ndarray, k: int) -> float: ...
def many(
    metric: str,
    rankings: np.ndarray,
    item_offsets: np.ndarray,
    sessions: np.ndarray,
    utility: np.ndarray,
    group: np.ndarray,
    names: "list[str]",
    levels: int,
    k: int,
    rank_start: str,
) -> np.ndarray: ...
def check_options(options: "dict[str, Any]") -> None: ...
def utility_refusal(fairness: str, ndcg: bool, utility: np.ndarray) -> Optional[Tuple[int, str]]: ...
def id_refusal(column: str, ids: "list[str]") -> Optional[Tuple[int, str]]: ...
def group_limit(metric: str, argument: str) -> Tuple[int, str]: ...
def score_order(score: np.ndarray, offsets: np.ndarray) -> np.ndarray: ...
def expected_exposure(
    ranking: np.ndarray,
    sessions: int,
    utility: np.ndarray,
    group: np.ndarray,
    browse: str,
    patience: float,
    cascade_utility: float,
    level: str,
    rank_start: str,
) -> List[float]: ...
def awrf(
    ranking: np.ndarray,
    sessions: int,
    utility: np.ndarray,
    group: np.ndarray,
    distribution: np.ndarray,
    trec: bool,
    depth: Optional[int] = None,
) -> List[float]: ...
def awrf2022(
    ranking: "list[int]",
    sessions: int,
    utility: "list[float]",
    items: "list[str]",
    attributes: Tuple[str, Optional[str], Optional[str], "list[tuple[str, str]]"],
) -> List[float]: ...

class Engine:
    def __init__(self, items: int, sessions: int = 1, batch: int = 16, seed: int = 0) -> None: ...
    def reseed(self, seed: int) -> None: ...
    def start(
        self,
        items: int,
        sessions: int = 1,
        initial_weight: float = 0.5,
        keep_order: Optional[np.ndarray] = None,
        hold_order: Optional[np.ndarray] = None,
        forbid: Optional[np.ndarray] = None,
    ) -> None: ...
    @property
    def shape(self) -> Tuple[int, int]: ...
    def sample_batch(self, count: int, sampler: str = "uncorrected") -> Tuple[np.ndarray, np.ndarray]: ...
    def update(self, costs: np.ndarray, lr: float = 0.4, gradient: str = "approximate", baseline: bool = False) -> bool: ...
    def best(self) -> Optional[Tuple[np.ndarray, float]]: ...
    def log_prob(self, ranking: np.ndarray, sampler: str = "uncorrected") -> float: ...
    def train(
        self,
        objective: Callable[[np.ndarray], float],
        epochs: int = 50,
        batch: int = 16,
        lr: float = 0.4,
        patience: int = 20,
        sampler: str = "uncorrected",
        gradient: str = "approximate",
        baseline: bool = False,
        grow: bool = False,
    ) -> Tuple[int, float]: ...
