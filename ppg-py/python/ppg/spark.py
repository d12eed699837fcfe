"""``ppg.spark.rerank``: re-ranks a Spark DataFrame, query by query, on the executors.

The rows are grouped into buckets by a hash of the query id (``groupBy`` on the bucket,
then ``applyInPandas``), so all rows of a query meet in one pandas call on one executor,
which re-ranks its queries with :func:`ppg.rerank_frame`'s code. A distributed job knows no
query's position in the input, so seeds follow the query id (``seed_by="qid"``): the
result does not depend on partitioning and equals
``ppg.rerank_frame(df.toPandas(), seed_by="qid", ...)`` on the same data.

Executors need the ``ppg`` wheel, numpy, pandas and pyarrow (see docs/python.md, "On a
Spark cluster").
"""

from __future__ import annotations

from typing import Any, Optional

import pandas as pd

from ppg import frame


def rerank(
    df: Any,
    *,
    qid: str = "qid",
    item: str = "item",
    score: str = "score",
    group: str = "group",
    utility: Optional[str] = None,
    metric: str = "eel",
    seed: int = 0,
    buckets: Optional[int] = None,
    threads: int = 1,
    **recipe: Any,
) -> Any:
    """Re-ranks every query of the Spark DataFrame ``df``; returns a Spark DataFrame
    ``qid, session, rank, item`` (types of ``qid`` and ``item`` kept).

    The column keywords, ``metric``, ``seed`` and the recipe keywords (``sessions``,
    ``intra``, ``epochs``, ...) are :func:`ppg.rerank_frame`'s. ``buckets`` is how many
    groups of queries the job makes (default: ``spark.sql.shuffle.partitions``);
    ``threads`` is how many threads each pandas call uses (one per task core).

    Groups are numbered by their sorted names, which needs one pass over ``df`` for the
    distinct group names before the job.
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StructField, StructType

    for argument, name in (("qid", qid), ("item", item), ("score", score), ("group", group)):
        if name not in df.columns:
            raise ValueError(f"{argument}: the DataFrame has no column {name!r}")
    if utility is None:
        utility = "label" if "label" in df.columns else score
    elif utility not in df.columns:
        raise ValueError(f"utility: the DataFrame has no column {utility!r}")
    spark = df.sparkSession
    if buckets is None:
        buckets = int(spark.conf.get("spark.sql.shuffle.partitions"))
    groups_known = sorted(row[0] for row in df.select(group).distinct().collect())
    fields = {f.name: f for f in df.schema.fields}
    schema = StructType(
        [
            StructField("qid", fields[qid].dataType, False),
            StructField("session", LongType(), False),
            StructField("rank", LongType(), False),
            StructField("item", fields[item].dataType, False),
        ]
    )
    options = frame.recipe(**recipe)
    columns = list(dict.fromkeys([qid, item, score, group, utility]))

    def one_bucket(pdf: pd.DataFrame) -> pd.DataFrame:
        return frame._rerank_rows(
            pdf,
            qid=qid,
            item=item,
            score=score,
            group=group,
            utility=utility,
            metric=metric,
            seed_by="qid",
            threads=threads,
            seed=seed,
            groups_known=groups_known,
            options=options,
        )

    bucket = "__ppg_bucket"
    return (
        df.select(*columns)
        .withColumn(bucket, F.pmod(F.hash(F.col(qid)), F.lit(buckets)))
        .groupBy(bucket)
        .applyInPandas(lambda pdf: one_bucket(pdf.drop(columns=bucket)), schema)
    )
