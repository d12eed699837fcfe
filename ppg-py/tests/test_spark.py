"""``ppg.spark.rerank`` on a local Spark session equals ``rerank_frame(seed_by="qid")``."""

from __future__ import annotations

import os
import sys

import pandas as pd
import pytest

import ppg
import ppg.spark
from conftest import make_queries

pyspark = pytest.importorskip("pyspark", reason="pyspark is in the suite's needs-pip list")


@pytest.fixture(scope="module")
def spark():
    # The workers must run this interpreter: it has numpy, pandas, pyarrow and ppg.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    # A local session needs no network name: without this Spark looks up the machine's
    # host name, which a fresh container or chroot may not resolve (UnknownHostException).
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("ppg-test")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values(["qid", "session", "rank"]).reset_index(drop=True)


def test_spark_equals_rerank_frame_by_qid(spark):
    pdf = make_queries(1000, seed=13, groups=("a", "b", "c"), max_items=12)
    sdf = spark.createDataFrame(pdf).repartition(5)
    assert sdf.rdd.getNumPartitions() >= 4
    got = ppg.spark.rerank(sdf, metric="eel", sessions=2, intra=True, seed=17).toPandas()
    # The rows in another order: the qid rule does not depend on it.
    shuffled = pdf.sample(frac=1.0, random_state=1)
    expected = ppg.rerank_frame(shuffled, metric="eel", sessions=2, intra=True, seed=17, seed_by="qid")
    assert got["qid"].nunique() == 1000
    pd.testing.assert_frame_equal(_sorted(got), _sorted(expected))
    # Seeds by qid are not seeds by index: the two rules give other rankings somewhere.
    by_index = ppg.rerank_frame(pdf, metric="eel", sessions=2, intra=True, seed=17)
    assert not _sorted(by_index).equals(_sorted(expected))


def test_spark_keeps_column_types_and_refuses_a_missing_column(spark):
    pdf = make_queries(20, seed=2)
    pdf["qid"] = pdf["qid"].str[1:].astype("int64")
    sdf = spark.createDataFrame(pdf)
    got = ppg.spark.rerank(sdf, metric="dtr", seed=1).toPandas()
    expected = ppg.rerank_frame(pdf, metric="dtr", seed=1, seed_by="qid")
    assert str(got["qid"].dtype) == "int64"
    pd.testing.assert_frame_equal(_sorted(got), _sorted(expected))
    with pytest.raises(ValueError, match="group"):
        ppg.spark.rerank(sdf, group="team")


def test_the_readme_spark_example_equals_rerank_frame_by_qid(spark):
    # The README's example as written; its getOrCreate() returns this module's session.
    from test_readme import REPO, readme_example, run_example

    namespace, printed = run_example(readme_example("Spark"))
    assert "session" in printed
    got = namespace["out"].toPandas()
    df = pd.read_csv(REPO / "examples/small.tsv", sep="\t")
    expected = ppg.rerank_frame(df, metric="eel", sessions=2, intra=True, seed=0, seed_by="qid")
    pd.testing.assert_frame_equal(_sorted(got), _sorted(expected))
