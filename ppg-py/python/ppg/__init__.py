"""Fair re-ranking by Probabilistic Permutation Graph (PPG) search.

- :func:`rerank`: one list, numpy in and out, a built-in metric or your own callable;
- :func:`rerank_frame`: every query of a pandas DataFrame, in parallel, equal to
  ``ppg rerank`` on the same rows;
- :mod:`ppg.metrics`: the protocol's EEL, DTR and NDCG of given rankings, of one list
  or of every query of a frame (:func:`ppg.metrics.frame`, before and after re-ranking);
- :class:`Engine`: the engine, for callers that score rankings themselves;
- :mod:`ppg.spark`: :func:`ppg.spark.rerank` for a Spark DataFrame (needs pyspark).
"""

from importlib import metadata as _metadata

from ppg import metrics
from ppg._ppg import MAX_GROUPS, MAX_ITEMS
from ppg._rerank import Reranked, rerank
from ppg.engine import Engine
from ppg.frame import rerank_frame

try:
    #: The installed distribution's version (the workspace's, set by maturin from Cargo.toml).
    __version__ = _metadata.version("ppg")
except _metadata.PackageNotFoundError:  # imported from a source tree, not installed
    __version__ = "0+unknown"

__all__ = [
    "Engine",
    "MAX_GROUPS",
    "MAX_ITEMS",
    "Reranked",
    "__version__",
    "metrics",
    "rerank",
    "rerank_frame",
]
