"""DTR over more than two groups (issue 32, point 2): ``rerank_frame`` and ``rerank`` take
three groups, as ``ppg rerank --metric dtr`` does, with the same rankings and a certificate
against the bound over groups."""

from __future__ import annotations

import numpy as np
import pandas as pd

import ppg
from conftest import make_queries, run_cli


def test_rerank_frame_takes_three_groups_as_the_cli(ppg_bin, tmp_path):
    df = make_queries(12, seed=5, groups=("a", "b", "c"), min_items=4, max_items=12)
    assert df.groupby("qid")["group"].nunique().max() == 3
    expected = run_cli(ppg_bin, df, tmp_path, "--metric", "dtr", "--sessions", "2", "--seed", "4")
    got, costs = ppg.rerank_frame(df, metric="dtr", sessions=2, seed=4, costs=True)
    pd.testing.assert_frame_equal(got[list(expected.columns)].astype({"qid": str, "item": str}), expected)
    assert (costs["after"] <= costs["before"]).all()
    assert (costs["before"] > 0).any()
    # Over three groups too, every query has a bound (its gap a number) and is certified
    # exactly when within 1e-8 of it.
    three = df.groupby("qid")["group"].nunique() == 3
    rows = got[got["qid"].astype(str).isin(three[three].index.astype(str))]
    assert len(rows) > 0 and rows["gap"].notna().all() and (rows["gap"] >= 0).all()
    assert (rows["certified"] == (rows["gap"] <= 1e-8)).all()
    assert rows["certified"].any()


def test_rerank_takes_three_groups():
    utility = np.array([3.0, 2.0, 2.0, 1.0, 1.0, 0.0])
    r = ppg.rerank(utility, np.array([0, 0, 0, 1, 2, 2]), metric="dtr", sessions=2, seed=1)
    assert r.cost <= r.input_cost and r.input_cost > 0
    assert sorted(r.rankings[0].tolist()) == list(range(6))


def test_metrics_dtr_over_three_groups_is_the_definition():
    utility = np.array([3.0, 2.0, 2.0, 1.0, 1.0, 0.0])
    groups = np.array([0, 0, 1, 1, 2, 2])
    rankings = np.array([[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0]])
    # Exposure 1 / log2(r + 2), r from 1 (rank_start "one"), summed over both sessions.
    exposure = np.zeros(3)
    for ranking in rankings:
        for r, item in enumerate(ranking):
            exposure[groups[item]] += 1.0 / np.log2(r + 3)
    ratio = exposure / (len(rankings) * np.bincount(groups, weights=utility))
    expected = ratio.max() / ratio.min()
    assert abs(ppg.metrics.dtr(rankings, utility, groups) - expected) < 1e-12
    assert expected > 1.1
