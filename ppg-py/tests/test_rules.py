"""Python applies the command line's rules (issue 30, points 4 to 7): the same rows are
refused or passed through by both, and every message names the argument."""

from __future__ import annotations

import subprocess

import numpy as np
import pandas as pd
import pytest

import ppg
from conftest import make_queries, run_cli

U = np.array([3.0, 2.0, 2.0, 1.0, 0.0, 0.0])
G = np.array([0, 0, 1, 1, 0, 1])


def test_a_query_of_one_item_passes_through_as_in_the_cli(ppg_bin, tmp_path):
    df = make_queries(40, seed=8, min_items=1, max_items=6)
    assert (df.groupby("qid").size() == 1).sum() >= 3
    expected = run_cli(ppg_bin, df, tmp_path, "--sessions", "2", "--seed", "3")
    got = ppg.rerank_frame(df, sessions=2, seed=3)
    got = got[list(expected.columns)]  # the certificate's columns are --report's
    pd.testing.assert_frame_equal(got.astype({"qid": str, "item": str}), expected)
    r = ppg.rerank(np.array([2.0]), np.array([0]), sessions=3)
    assert r.rankings.tolist() == [[0], [0], [0]] and r.cost == r.input_cost == 0.0


# Rows that `ppg rerank` refuses, as (change to the frame, keywords, the argument named).
REFUSED = [
    (lambda df: df.assign(label=np.where(df.index == 3, -1.0, df["label"])), dict(metric="eel"), "utility"),
    (lambda df: df.assign(label=np.where(df.index == 3, 1024.0, df["label"])), dict(metric="ndcg-mix"), "utility"),
    (lambda df: df.assign(item=np.where(df.index == 4, "", df["item"])), {}, "item"),
    (lambda df: df.assign(item=np.where(df.index == 4, "  ", df["item"])), {}, "item"),
    (lambda df: df.assign(item=np.where(df.index == 4, "a\0b", df["item"])), {}, "item"),
    (lambda df: df.assign(qid=np.where(df.index == 4, "", df["qid"])), {}, "qid"),
]


@pytest.mark.parametrize("change,kwargs,argument", REFUSED)
def test_python_refuses_the_rows_the_cli_refuses(ppg_bin, tmp_path, change, kwargs, argument):
    df = change(make_queries(6, seed=5))
    flags = [] if not kwargs else ["--metric", kwargs["metric"]]
    src = tmp_path / "in.tsv"
    df.sort_values("qid", kind="stable").to_csv(src, sep="\t", index=False)
    cli = subprocess.run([str(ppg_bin), "rerank", str(src), *flags], capture_output=True)
    assert cli.returncode != 0, "the CLI took the rows"
    with pytest.raises(ValueError, match=f"^{argument}"):
        ppg.rerank_frame(df, **kwargs)


def test_a_missing_item_is_refused_with_its_index_label():
    df = make_queries(4, seed=2)
    df.index = [f"r{i}" for i in range(len(df))]
    df.loc["r5", "item"] = None
    with pytest.raises(ValueError, match="^item: .*missing value at index label 'r5'"):
        ppg.rerank_frame(df)


def test_rerank_refuses_what_the_cli_refuses():
    with pytest.raises(ValueError, match="^utility: value -1.0 at index 2 is negative"):
        ppg.rerank(np.array([1.0, 0.0, -1.0]), np.array([0, 1, 0]), metric="eel")
    with pytest.raises(ValueError, match="^utility: value 2000.0 at index 0 is too large for NDCG"):
        ppg.rerank(np.array([2000.0, 0.0]), np.array([0, 1]), metric="ndcg-mix")


@pytest.mark.parametrize("returned,kind", [("cheap", "str"), (None, "NoneType"), (np.array([1.0, 2.0]), "ndarray")])
def test_an_objective_returning_no_number_is_named(returned, kind):
    with pytest.raises(TypeError, match=f"^metric: the objective returned {kind}"):
        ppg.rerank(U, G, metric=lambda r: returned)
    e = ppg.Engine(6)
    e.start(6)
    with pytest.raises(TypeError, match=f"^objective: the objective returned {kind}"):
        e.train(lambda r: returned)


@pytest.mark.parametrize("value", [-1, 2**40, 10**30])
@pytest.mark.parametrize(
    "call,argument",
    [
        (lambda v: ppg.rerank(U, G, levels=v), "levels"),
        (lambda v: ppg.rerank(U, G, epochs=v), "epochs"),
        (lambda v: ppg.rerank(U, G, patience=v), "patience"),
        (lambda v: ppg.rerank_frame(make_queries(2, seed=1), epochs=v), "epochs"),
        (lambda v: ppg.metrics.eel(np.arange(6), U, G, levels=v), "levels"),
        (lambda v: ppg.Engine(v), "items"),
        (lambda v: ppg.Engine(6).train(lambda r: 0.0, epochs=v), "epochs"),
    ],
)
def test_a_negative_or_huge_integer_is_a_value_error_naming_the_argument(call, argument, value):
    with pytest.raises(ValueError, match=f"^{argument}: "):
        call(value)


def test_count_is_named():
    e = ppg.Engine(6)
    e.start(6)
    for value in (-1, 10**30):
        with pytest.raises(ValueError, match="^count: "):
            e.sample_batch(value)


def test_lr_nan_in_update_is_blamed_on_lr():
    e = ppg.Engine(6, batch=4)
    e.start(6)
    e.sample_batch(4)
    with pytest.raises(ValueError, match="^lr: "):
        e.update(np.zeros(4), lr=float("nan"))
    with pytest.raises(ValueError, match="^lr: "):
        e.train(lambda r: 0.0, lr=float("inf"))
    assert e.update(np.zeros(4)) in (True, False)  # the batch is still pending


def test_frame_errors_give_the_index_label():
    df = make_queries(4, seed=2)
    df.index = [f"r{i}" for i in range(len(df))]
    df.loc["r7", "score"] = np.nan
    with pytest.raises(ValueError, match="^score: value nan at index label 'r7'"):
        ppg.rerank_frame(df)
    df = make_queries(4, seed=2)
    df.index = df.index + 100
    df.loc[105, "label"] = -2.0
    with pytest.raises(ValueError, match="^utility .*at index label 105 is negative"):
        ppg.rerank_frame(df)


def test_a_polars_frame_goes_through_arrow():
    pl = pytest.importorskip("polars")
    df = make_queries(30, seed=4)
    expected, costs = ppg.rerank_frame(df, sessions=2, seed=1, costs=True)
    got, got_costs = ppg.rerank_frame(pl.from_pandas(df), sessions=2, seed=1, costs=True)
    assert isinstance(got, pl.DataFrame) and isinstance(got_costs, pl.DataFrame)
    pd.testing.assert_frame_equal(got.to_pandas(), expected)
    np.testing.assert_array_equal(got_costs["after"].to_numpy(), costs["after"].to_numpy())
    before = ppg.metrics.frame(pl.from_pandas(df), metric="eel", levels=5)
    np.testing.assert_allclose(before.to_numpy(), costs["before"].to_numpy(), rtol=1e-12)
    with pytest.raises(TypeError, match="^df: expected a pandas or polars DataFrame, got numpy.ndarray"):
        ppg.rerank_frame(df.to_numpy())
