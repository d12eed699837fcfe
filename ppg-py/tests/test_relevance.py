"""The relevance certificate (issue 36) in ``rerank_frame``'s costs equals ``ppg rerank
--report``'s columns, and holds its own invariants: NDCG@10 at most its bound, the gap
their difference; the rankings (at one session the most relevant optimum's) are the
CLI's."""

from __future__ import annotations

import subprocess

import numpy as np
import pandas as pd
import pytest

import ppg
from conftest import make_queries


@pytest.mark.parametrize("metric,sessions", [("dtr", 1), ("eel", 1), ("dtr", 4), ("awrf", 2)])
def test_the_relevance_certificate_equals_the_clis(ppg_bin, tmp_path, metric, sessions):
    # A query's rows contiguous, as the CLI reads them; in the same order for both.
    df = make_queries(40, seed=36 + sessions).sort_values("qid", kind="stable", key=lambda q: q.str[1:].astype(int))
    src, out, report = tmp_path / "in.tsv", tmp_path / "out.tsv", tmp_path / "report.tsv"
    df.to_csv(src, sep="\t", index=False)
    flags = ["--metric", metric, "--sessions", str(sessions), "--seed", "5"]
    subprocess.run([str(ppg_bin), "rerank", str(src), "-o", str(out), "--report", str(report), *flags], check=True)
    cli = pd.read_csv(report, sep="\t", dtype={"qid": str}).set_index("qid")
    got, costs = ppg.rerank_frame(df, metric=metric, sessions=sessions, seed=5, costs=True)
    # The same rankings (at one session, the most relevant optimum's) through both doors.
    expected = pd.read_csv(out, sep="\t", dtype={"qid": str, "item": str})
    rankings = got[["qid", "session", "rank", "item"]].astype({"qid": str, "item": str})
    pd.testing.assert_frame_equal(rankings, expected)
    costs.index = costs.index.astype(str)
    for column in ("ndcg", "ndcg_bound", "ndcg_gap"):
        np.testing.assert_allclose(costs[column], cli.loc[costs.index, column], rtol=0, atol=1e-12, err_msg=column)
    known = costs.dropna(subset=["ndcg"])
    assert len(known) >= 30
    assert (known["ndcg"] <= known["ndcg_bound"] + 1e-12).all()
    assert (known["ndcg_bound"] <= 1 + 1e-12).all()
    np.testing.assert_allclose(known["ndcg_gap"], (known["ndcg_bound"] - known["ndcg"]).clip(lower=0), atol=1e-12)
    if sessions == 1 and metric != "awrf":
        # One session, two groups: the walk proves the recipe's ranking the most relevant
        # of those as fair on nearly every query.
        assert (known["ndcg_gap"] <= 1e-9).mean() >= 0.9
