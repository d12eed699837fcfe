"""Fair re-ranking by Probabilistic Permutation Graph (PPG) search.

- :func:`rerank`: one list, numpy in and out, a built-in metric or your own callable;
- :func:`rerank_frame`: every query of a pandas DataFrame, in parallel, equal to
  ``ppg rerank`` on the same rows;
- :mod:`ppg.metrics`: the protocol's EEL, DTR and NDCG of given rankings, of one list
  or of every query of a frame (:func:`ppg.metrics.frame`, before and after re-ranking);
- :func:`frontier`: what each level of fairness costs in relevance over a frame's
  queries, equal to ``ppg frontier``'s table;
- :class:`Engine`: the engine, for callers that score rankings themselves;
- :mod:`ppg.spark`: :func:`ppg.spark.rerank` for a Spark DataFrame (needs pyspark);
- :mod:`ppg.pyterrier`: a PyTerrier re-ranking stage and measures for ``pt.Experiment``
  (needs the ``pyterrier`` extra);
- :mod:`ppg.trec_run`: TREC Fair Ranking run files, written and read back.
"""

from ppg import metrics, trec_run
from ppg._ppg import MAX_GROUPS, MAX_ITEMS
from ppg._frontier import frontier
from ppg._rerank import Reranked, rerank
from ppg.engine import Engine
from ppg.frame import rerank_frame



def __getattr__(name: str) -> str:
    """``ppg.__version__``: the installed distribution's version (the workspace's, which
    maturin sets from Cargo.toml), or ``"0+unknown"`` when imported without being
    installed. Read on first use: importing ``importlib.metadata`` costs about as much as
    80 million instructions, which ``import ppg`` need not pay."""
    if name != "__version__":
        raise AttributeError(f"module 'ppg' has no attribute {name!r}")
    from importlib import metadata

    try:
        return metadata.version("ppg")
    except metadata.PackageNotFoundError:
        return "0+unknown"

__all__ = [
    "Engine",
    "MAX_GROUPS",
    "MAX_ITEMS",
    "Reranked",
    "__version__",
    "frontier",
    "metrics",
    "rerank",
    "rerank_frame",
    "trec_run",
]
