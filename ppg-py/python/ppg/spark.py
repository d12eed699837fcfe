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

from ppg import _checks, _ppg, frame


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
    ``qid, session, rank, item, certified, gap`` (types of ``qid`` and ``item`` kept; see
    :func:`ppg.rerank_frame` for the certificate).

    The column keywords, ``metric``, ``seed`` and the recipe keywords (``sessions``,
    ``intra``, ``epochs``, ...) are :func:`ppg.rerank_frame`'s. ``buckets`` is how many
    groups of queries the job makes (default: ``spark.sql.shuffle.partitions``);
    ``threads`` is how many threads each pandas call uses (one per task core).

    Groups are numbered by their sorted names, which needs one pass over ``df`` for the
    distinct group names before the job. The arguments are checked on the driver when
    this is called (``ValueError`` or ``TypeError`` naming the argument), and so is a
    null group; bad rows (a missing qid, a negative label, ...) are found by the
    executors, with :func:`ppg.rerank_frame`'s messages inside Spark's error.
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import BooleanType, DoubleType, LongType, StructField, StructType

    # Every argument is checked here, on the driver, before the job: an executor's error
    # would surface only when the results are collected, wrapped in Spark's.
    options = frame.recipe(**recipe)
    if not isinstance(metric, str):
        raise TypeError("metric: ppg.spark.rerank takes a metric name")
    _checks.fairness_of(metric, options["mix_fairness"])
    _ppg.check_options(_checks.options(metric=metric, **options))
    _checks.seed_value(seed)
    threads = _checks.integer(threads, "threads", 1)
    if buckets is not None:
        buckets = _checks.integer(buckets, "buckets", 1, 2**31 - 1)
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
    distinct = [row[0] for row in df.select(group).distinct().collect()]
    if any(name is None for name in distinct):
        raise ValueError(f"group: column {group!r} has a missing value (null)")
    groups_known = sorted(distinct)
    fields = {f.name: f for f in df.schema.fields}
    schema = StructType(
        [
            StructField("qid", fields[qid].dataType, False),
            StructField("session", LongType(), False),
            StructField("rank", LongType(), False),
            StructField("item", fields[item].dataType, False),
            StructField("certified", BooleanType(), False),
            StructField("gap", DoubleType(), True),
        ]
    )
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
        )[0]

    bucket = "__ppg_bucket"
    return (
        df.select(*columns)
        .withColumn(bucket, F.pmod(F.hash(F.col(qid)), F.lit(buckets)))
        .groupBy(bucket)
        .applyInPandas(lambda pdf: one_bucket(pdf.drop(columns=bucket)), schema)
    )
