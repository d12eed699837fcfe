"""``rerank_frame`` and ``rerank`` equal ``ppg rerank`` on the same rows and seed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ppg
from conftest import make_queries, run_cli

CASES = [
    # (keywords for rerank_frame, the same as flags, data options)
    (dict(metric="eel"), [], dict()),
    (dict(metric="eel", sessions=3, intra=True, seed=11), ["--metric", "eel", "--sessions", "3", "--intra", "--seed", "11"], dict(groups=("a", "b", "c", "d"))),
    (dict(metric="dtr", sessions=2, seed=5), ["--metric", "dtr", "--sessions", "2", "--seed", "5"], dict()),
    (dict(metric="dtr", intra=True, sessions=4, seed=2), ["--metric", "dtr", "--intra", "--sessions", "4", "--seed", "2"], dict(label=False)),
    (dict(metric="dtr", intra=True, sessions=8, grow=False, seed=4), ["--metric", "dtr", "--intra", "--sessions", "8", "--no-grow", "--seed", "4"], dict()),
    (dict(metric="dtr", sessions=4, hold=False, seed=6), ["--metric", "dtr", "--sessions", "4", "--no-hold", "--seed", "6"], dict()),
    (
        dict(metric="ndcg-mix", mix_fairness="dtr", mix_weight=0.5, ndcg_k=5, sessions=2, seed=9),
        ["--metric", "ndcg-mix", "--mix-fairness", "dtr", "--mix-weight", "0.5", "--ndcg-k", "5", "--sessions", "2", "--seed", "9"],
        dict(),
    ),
    (
        dict(metric="eel", sampler="corrected", gradient="exact", baseline=True, epochs=20, batch=8, lr=0.2, patience=5, seed=3, sessions=2),
        ["--sampler", "corrected", "--gradient", "exact", "--baseline", "--epochs", "20", "--batch", "8", "--lr", "0.2", "--patience", "5", "--seed", "3", "--sessions", "2"],
        dict(groups=("x", "y", "z")),
    ),
    # Expected exposure's numbers (issue 32): EE-D normalised, raw EE-R at item level, AWRF.
    (dict(metric="ee", ee_measure="disparity", sessions=2, seed=3), ["--metric", "ee", "--ee-measure", "disparity", "--sessions", "2", "--seed", "3"], dict()),
    (
        dict(metric="ee", ee_measure="relevance", ee_raw=True, ee_level="item", browse="rbp", browse_patience=0.8, sessions=2, seed=7),
        ["--metric", "ee", "--ee-measure", "relevance", "--ee-raw", "--ee-level", "item", "--browse", "rbp", "--browse-patience", "0.8", "--sessions", "2", "--seed", "7"],
        dict(),
    ),
    (dict(metric="awrf", sessions=2, seed=1), ["--metric", "awrf", "--sessions", "2", "--seed", "1"], dict()),
]


@pytest.mark.parametrize("kwargs,flags,data", CASES)
def test_rerank_frame_equals_the_cli(ppg_bin, tmp_path, kwargs, flags, data):
    df = make_queries(60, seed=len(flags), **data)
    if kwargs["metric"] != "eel" and "label" not in df:
        df["score"] = df["score"].abs()  # DTR needs non-negative utilities
    expected = run_cli(ppg_bin, df, tmp_path, *flags)
    got = ppg.rerank_frame(df, threads=2, **kwargs)
    rankings = got[["qid", "session", "rank", "item"]]
    pd.testing.assert_frame_equal(rankings.astype({"qid": str, "item": str}), expected)
    # The certificate: one value per query, a gap wherever a query is certified.
    per_query = got.groupby("qid", sort=False)[["certified", "gap"]].nunique(dropna=False)
    assert (per_query <= 1).all().all()
    assert (got.loc[got["certified"], "gap"] <= 1e-8).all()


def test_the_thread_count_does_not_change_the_output():
    df = make_queries(80, seed=4)
    one = ppg.rerank_frame(df, sessions=2, threads=1, seed=8)
    two = ppg.rerank_frame(df, sessions=2, threads=2, seed=8)
    pd.testing.assert_frame_equal(one, two)
    # The output really is re-ranked: a different seed gives other rankings somewhere.
    other = ppg.rerank_frame(df, sessions=2, threads=2, seed=9)
    assert not one.equals(other)


def test_rerank_equals_the_cli_on_a_one_query_file(ppg_bin, tmp_path):
    df = make_queries(1, seed=21, min_items=15, max_items=15, groups=("a", "b", "c"))
    expected = run_cli(ppg_bin, df, tmp_path, "--sessions", "2", "--intra", "--seed", "4")
    group_ids = pd.factorize(df["group"])[0]
    r = ppg.rerank(df["label"], group_ids, score=df["score"], sessions=2, intra=True, seed=4)
    items = df["item"].to_numpy()[r.rankings].ravel()
    assert list(items) == list(expected["item"])
    assert r.cost <= r.input_cost


@pytest.mark.parametrize("metric", ["ee", "awrf"])
def test_a_query_without_a_relevant_item_is_passed_through_as_by_the_cli(ppg_bin, tmp_path, metric):
    """The rule every door follows (the C API's ``ppg_engine_rerank`` is held to it in
    ppg-ffi's tests): the starting ranking by score, NaN costs, the other queries re-ranked
    as ever."""
    df = pd.DataFrame({
        "qid": ["q1"] * 4 + ["q2"] * 4,
        "item": ["a", "b", "c", "d", "e", "f", "g", "h"],
        "score": [0.2, 0.9, 0.5, 0.1, 0.9, 0.8, 0.5, 0.1],
        "group": ["x", "y", "x", "y", "x", "y", "x", "y"],
        "label": [0.0, 0, 0, 0, 1, 1, 0, 1],
    })
    expected = run_cli(ppg_bin, df, tmp_path, "--metric", metric, "--sessions", "2", "--seed", "5")
    got, costs = ppg.rerank_frame(df, metric=metric, sessions=2, seed=5, costs=True)
    pd.testing.assert_frame_equal(got[["qid", "session", "rank", "item"]].astype({"qid": str, "item": str}), expected)
    q1 = expected[expected["qid"] == "q1"]["item"].tolist()
    assert q1 == ["b", "c", "a", "d"] * 2
    assert np.isnan(costs.loc["q1"]).all() and not np.isnan(costs.loc["q2"]).any()
    one = df[df["qid"] == "q1"]
    r = ppg.rerank(one["label"], pd.factorize(one["group"])[0], score=one["score"], metric=metric, sessions=2, seed=5)
    assert r.rankings.tolist() == [[1, 2, 0, 3]] * 2
    assert np.isnan(r.cost) and np.isnan(r.input_cost)
