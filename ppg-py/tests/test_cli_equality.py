"""``rerank_frame`` and ``rerank`` equal ``ppg rerank`` on the same rows and seed."""

from __future__ import annotations

import subprocess

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
    # The default EE-L under the published cascade, and d943b3e's by name (issue 42, point 6).
    (dict(metric="ee", sessions=2, seed=5), ["--metric", "ee", "--sessions", "2", "--seed", "5"], dict()),
    (
        dict(metric="ee", browse="cascade-judged", sessions=2, seed=5),
        ["--metric", "ee", "--browse", "cascade-judged", "--sessions", "2", "--seed", "5"],
        dict(),
    ),
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
    # The output really is re-ranked: without the certificate (whose optimum's rankings
    # do not depend on the seed, and answer every query here) a different seed gives other
    # rankings somewhere.
    a = ppg.rerank_frame(df, sessions=2, threads=2, seed=8, certify=False)
    b = ppg.rerank_frame(df, sessions=2, threads=2, seed=9, certify=False)
    assert not a.equals(b)


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


def _trec_awrf_score(labels, groups, population):
    """TREC 2021's AWRF x NDCG of one ranking (rows in ranked order), the population
    uniform over ``population`` groups: the scorer's formula (``fair-trec/trec2021-fair-
    public``, ``metrics.py``: ``qtarget = (qalign + world_pop) * 0.5`` over every region)
    written out with numpy alone."""
    labels, groups = np.asarray(labels, float), np.asarray(groups)
    attention = 1 / np.log2(np.maximum(np.arange(1, len(labels) + 1), 2))
    relevant = labels > 0
    target = 0.5 * (np.bincount(groups[relevant], minlength=population) / relevant.sum() + 1 / population)
    dist = np.bincount(groups, weights=attention, minlength=population) / attention.sum()
    m = 0.5 * (dist + target)

    def kl(p):
        nz = p > 0
        return float(np.sum(p[nz] * np.log(p[nz] / m[nz])))

    ndcg = attention[relevant].sum() / attention[: relevant.sum()].sum()
    return (1 - 0.5 * (kl(dist) + kl(target))) * ndcg


def test_awrf_population_is_the_whole_inputs_groups_in_every_door(ppg_bin, tmp_path):
    """Issue 38, point 8: a frame of three groups whose queries lack one or hold one only.
    ``rerank_frame`` equals ``ppg rerank`` (rankings and the report's costs), both score
    the input as TREC 2021's formula does over the three groups (to 1e-12), and
    ``ppg.rerank`` of one query with ``awrf_groups=3`` gives the frame's costs."""
    rows = [
        ("a", "a1", 0.9, "x", 1), ("a", "a2", 0.8, "x", 1), ("a", "a3", 0.7, "z", 0),
        ("a", "a4", 0.6, "x", 1), ("a", "a5", 0.5, "z", 1),
        ("b", "b1", 0.9, "y", 1), ("b", "b2", 0.8, "y", 0), ("b", "b3", 0.7, "y", 1),
        ("c", "c1", 0.9, "x", 1), ("c", "c2", 0.8, "y", 0), ("c", "c3", 0.7, "z", 1),
        ("c", "c4", 0.6, "y", 1),
    ]
    df = pd.DataFrame(rows, columns=["qid", "item", "score", "group", "label"])
    src, out, report = tmp_path / "in.tsv", tmp_path / "out.tsv", tmp_path / "report.tsv"
    df.to_csv(src, sep="\t", index=False)
    flags = ["--metric", "awrf", "--sessions", "2", "--seed", "3"]
    subprocess.run([str(ppg_bin), "rerank", str(src), "-o", str(out), "--report", str(report), *flags], check=True)
    expected = pd.read_csv(out, sep="\t", dtype={"qid": str, "item": str})
    cli = pd.read_csv(report, sep="\t", dtype={"qid": str}).set_index("qid")
    got, costs = ppg.rerank_frame(df, metric="awrf", sessions=2, seed=3, costs=True)
    rankings = got[["qid", "session", "rank", "item"]].astype({"qid": str, "item": str})
    pd.testing.assert_frame_equal(rankings, expected)
    ids = {"x": 0, "y": 1, "z": 2}
    for q, part in df.groupby("qid", sort=False):
        trec = _trec_awrf_score(part["label"], part["group"].map(ids), 3)
        assert abs(cli.loc[q, "cost_before"] - (1 - trec)) < 1e-12, q
        assert abs(costs.loc[q, "before"] - cli.loc[q, "cost_before"]) < 1e-12, q
        assert abs(costs.loc[q, "after"] - cli.loc[q, "cost_after"]) < 1e-12, q
        # One list through ppg.rerank: the same costs with the whole input's count given;
        # over the list's own ids only, another target where a group is missing.
        g = part["group"].map(ids).to_numpy()
        one = ppg.rerank(part["label"], g, score=part["score"], metric="awrf", sessions=2, awrf_groups=3)
        assert abs(one.input_cost - cli.loc[q, "cost_before"]) < 1e-12, q
        own_ids = pd.factorize(part["group"])[0]
        own = ppg.rerank(part["label"], own_ids, score=part["score"], metric="awrf", sessions=2)
        assert (abs(own.input_cost - one.input_cost) > 1e-3) == (q != "c"), q
