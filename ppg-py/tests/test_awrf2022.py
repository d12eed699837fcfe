"""``metric="awrf2022"`` (TREC 2022's AWRF) through Python equals ``ppg rerank --metric
awrf2022`` on a generated file, its side data given as paths or as frames and mappings;
``ppg.metrics.awrf2022`` gives the command line's costs; bad side data raise errors
naming the argument.

The files in ``data/`` are ``ppg_lab::shapes_attributes``' queries (eight soft
attributes of 3 to 33 levels, unknowns, an input unfair on purpose), written by
``cargo run --release -p ppg-lab --example shapes_attributes -- 24 6 11
ppg-py/tests/data/awrf2022``."""

from __future__ import annotations

import pathlib
import subprocess

import numpy as np
import pandas as pd
import pytest

import ppg
from conftest import run_cli

DATA = pathlib.Path(__file__).parent / "data"
ROWS, TABLE, BACKGROUND = (DATA / n for n in ("awrf2022.tsv", "awrf2022-attributes.txt", "awrf2022-background.txt"))


def frame() -> pd.DataFrame:
    return pd.read_csv(ROWS, sep="\t", dtype={"qid": str, "item": str})


def table() -> pd.DataFrame:
    return pd.read_csv(TABLE, sep=" ", comment="#", header=None, names=["item", "attribute", "level", "weight"])


def test_paths_equal_the_cli(ppg_bin, tmp_path):
    flags = ["--metric", "awrf2022", "--attributes", str(TABLE), "--attribute-background", str(BACKGROUND),
             "--sessions", "2", "--seed", "3"]
    expected = run_cli(ppg_bin, frame(), tmp_path, *flags)
    got, costs = ppg.rerank_frame(frame(), metric="awrf2022", attributes=TABLE, attribute_background=str(BACKGROUND),
                                  sessions=2, seed=3, threads=2, costs=True)
    pd.testing.assert_frame_equal(got[["qid", "session", "rank", "item"]], expected)
    # The input is unfair on purpose: optimising lowers 1 - AWRF x NDCG on every query.
    assert (costs["after"] < costs["before"]).all(), costs


def test_frames_and_mappings_equal_the_cli_with_the_same_policies(ppg_bin, tmp_path):
    flags = ["--metric", "awrf2022", "--attributes", str(TABLE), "--attribute-background", str(BACKGROUND),
             "--attribute-unknown", "a1=drop", "--attribute-unknown", "a2=uniform", "--seed", "5"]
    expected = run_cli(ppg_bin, frame(), tmp_path, *flags)
    background = {"a0": {"l0": 1.0, "l1": 2.0, "l2": 3.0}}  # normalised as the file's is
    got = ppg.rerank_frame(frame(), metric="awrf2022", attributes=table(), attribute_background=background,
                           attribute_unknown={"a1": "drop", "a2": "uniform"}, seed=5)
    pd.testing.assert_frame_equal(got[["qid", "session", "rank", "item"]], expected)


def test_the_metric_gives_the_cli_costs(ppg_bin, tmp_path):
    report = tmp_path / "report.tsv"
    flags = ["--metric", "awrf2022", "--attributes", str(TABLE), "--report", str(report), "--seed", "2"]
    out = run_cli(ppg_bin, frame(), tmp_path, *flags)
    costs = pd.read_csv(report, sep="\t", dtype={"qid": str}).set_index("qid")
    df = frame()
    for qid, rows in df.groupby("qid", sort=False):
        items = rows["item"].tolist()
        utility = rows["label"].to_numpy(float)
        ranked = out.loc[out["qid"] == qid, "item"].tolist()
        ranking = np.array([items.index(i) for i in ranked])
        got = ppg.metrics.awrf2022(ranking, utility, items, TABLE)
        assert got["product"] == pytest.approx(1 - costs.loc[qid, "cost_after"], abs=1e-12)
        assert 0 < got["ndcg"] <= 1 and got["awrf"] <= 1
        # The input ranking (score descending, ties the later row first) scores the
        # cost before.
        start = np.lexsort((-np.arange(len(items)), -rows["score"].to_numpy()))
        before = ppg.metrics.awrf2022(start, utility, items, table())["product"]
        assert before == pytest.approx(1 - costs.loc[qid, "cost_before"], abs=1e-12)


def test_bad_side_data_name_the_argument(tmp_path):
    df = frame()
    with pytest.raises(ValueError, match="^attributes: .*needs"):
        ppg.rerank_frame(df, metric="awrf2022")
    with pytest.raises(ValueError, match="^attributes: only"):
        ppg.rerank_frame(df, metric="eel", attributes=TABLE)
    bad = tmp_path / "bad.txt"
    bad.write_text("q0-d0 a0 l0 1\nq0-d0 a1 l0 -1\n")
    with pytest.raises(ValueError, match="^attributes: line 2: "):
        ppg.rerank_frame(df, metric="awrf2022", attributes=bad)
    with pytest.raises(ValueError, match="^attributes: cannot read"):
        ppg.rerank_frame(df, metric="awrf2022", attributes=tmp_path / "missing.txt")
    with pytest.raises(ValueError, match="^attribute_unknown: .*no such attribute"):
        ppg.rerank_frame(df, metric="awrf2022", attributes=TABLE, attribute_unknown={"colour": "drop"})
    with pytest.raises(ValueError, match="^attribute_unknown: .*level, drop or uniform"):
        ppg.rerank_frame(df, metric="awrf2022", attributes=TABLE, attribute_unknown={"a1": "ignore"})
    with pytest.raises(ValueError, match="^attribute_background, attribute_target"):
        ppg.rerank_frame(df, metric="awrf2022", attributes=TABLE, attribute_background=BACKGROUND,
                         attribute_target=BACKGROUND)
    with pytest.raises(ValueError, match="^attribute_background: line 1: "):
        ppg.rerank_frame(df, metric="awrf2022", attributes=TABLE, attribute_background={"colour": {"red": 1.0}})
    with pytest.raises(ValueError, match="^attributes: column 'level' at row 0"):
        ppg.rerank_frame(df, metric="awrf2022", attributes=table().assign(level="two words"))
    with pytest.raises(TypeError, match="^attributes: expected a path"):
        ppg.rerank_frame(df, metric="awrf2022", attributes=42)
    with pytest.raises(ValueError, match="^metric: \"awrf2022\" needs"):
        ppg.rerank([1.0, 0.0], [0, 0], metric="awrf2022")
    with pytest.raises(ValueError, match="^items: 1 names for 2"):
        ppg.metrics.awrf2022([0, 1], [1.0, 0.0], ["q0-d0"], TABLE)
