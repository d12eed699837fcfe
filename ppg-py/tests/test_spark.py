"""``ppg.spark.rerank`` on a local Spark session equals ``rerank_frame(seed_by="qid")``."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pandas as pd
import pytest

import ppg
import ppg.spark
from conftest import REPO, make_queries

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


def test_arguments_are_checked_on_the_driver_when_called(spark):
    sdf = spark.createDataFrame(make_queries(5, seed=3))
    # No action follows: an error only at collection time would not be raised here.
    for kwargs, argument in [
        (dict(sessions=0), "sessions"),
        (dict(lr=float("nan")), "lr"),
        (dict(levels=-1), "levels"),
        (dict(metric="ndgc"), "metric"),
        (dict(threads=0), "threads"),
        (dict(seed=-1), "seed"),
        (dict(rank_start="two"), "rank_start"),
    ]:
        with pytest.raises((ValueError, TypeError), match=f"^{argument}"):
            ppg.spark.rerank(sdf, **kwargs)


def test_a_null_group_is_a_value_error_naming_the_column(spark):
    pdf = make_queries(5, seed=3)
    pdf["team"] = pdf["group"].where(pdf.index != 4, None)
    sdf = spark.createDataFrame(pdf)
    with pytest.raises(ValueError, match="^group: column 'team' has a missing value"):
        ppg.spark.rerank(sdf, group="team")


def test_a_query_of_one_item_passes_through(spark):
    pdf = make_queries(30, seed=9, min_items=1, max_items=4)
    assert (pdf.groupby("qid").size() == 1).any()
    got = ppg.spark.rerank(spark.createDataFrame(pdf), sessions=2, seed=4).toPandas()
    expected = ppg.rerank_frame(pdf, sessions=2, seed=4, seed_by="qid")
    pd.testing.assert_frame_equal(_sorted(got), _sorted(expected))


def test_the_local_recipe_in_the_docs_runs_as_written():
    text = (REPO / "docs" / "python.md").read_text().split("## Spark on your machine", 1)[1]
    shell = re.search(r"```sh\n(.*?)```", text, re.S).group(1)
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    export = re.search(r"^export (.*)$", shell, re.M).group(1)
    env = dict(os.environ)
    for name, value in re.findall(r'(\w+)=("[^"]*"|\S+)', export):
        env[name] = value.strip('"').replace("$PWD/.venv/bin/python", sys.executable)
    assert env["PYSPARK_PYTHON"] == sys.executable and env["SPARK_LOCAL_IP"] == "127.0.0.1"
    check = (
        "\nimport pandas as pd\n"
        "same = same.sort_values(['qid', 'session', 'rank'], ignore_index=True)\n"
        "pd.testing.assert_frame_equal(out, same)\n"
        "print('EQUAL', len(out))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code + check], cwd=REPO, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "EQUAL 48" in done.stdout, done.stdout
