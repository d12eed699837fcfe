"""Fair re-ranking by Probabilistic Permutation Graph (PPG) search.

- :func:`rerank`: one list, numpy in and out, a built-in metric or your own callable;
- :func:`rerank_frame`: every query of a pandas DataFrame, in parallel, equal to
  ``ppg rerank`` on the same rows;
- :mod:`ppg.metrics`: the protocol's EEL, DTR and NDCG of given rankings;
- :class:`Engine`: the engine, for callers that score rankings themselves;
- :mod:`ppg.spark`: :func:`ppg.spark.rerank` for a Spark DataFrame (needs pyspark).
"""

from importlib.metadata import version as _version

from ppg import metrics
from ppg._ppg import MAX_GROUPS, MAX_ITEMS
from ppg._rerank import Reranked, rerank
from ppg.engine import Engine
from ppg.frame import rerank_frame

# The installed distribution's version: the wheel's, which maturin takes from Cargo.toml.
__version__ = _version("ppg")

__all__ = [
    "Engine",
    "MAX_GROUPS",
    "MAX_ITEMS",
    "Reranked",
    "metrics",
    "rerank",
    "rerank_frame",
]
