"""``ppg.pyterrier``: the re-ranking stage equals ``ppg rerank``, checks its input, composes
with ``% k``, and its measures in ``pt.Experiment`` equal ``ppg.metrics``."""

from __future__ import annotations

import re

import ir_measures
import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
from ir_measures import nDCG

import ppg
from conftest import REPO, make_queries, run_cli
from ppg.pyterrier import AWRF, DTR, EEL, ExpectedExposure, PPGReRanker


def result_frame(queries: int, seed: int, **data) -> pd.DataFrame:
    """A PyTerrier result frame of generated queries (contiguous, as a retriever gives
    them): qid, docno, score, rank, group, label."""
    df = make_queries(queries, seed, **data)
    df = df.iloc[np.argsort(pd.factorize(df["qid"])[0], kind="stable")].reset_index(drop=True)
    df = df.rename(columns={"item": "docno"})
    df["score"] = df["score"].abs()
    return pt.model.add_ranks(df)


def as_cli(frame: pd.DataFrame) -> pd.DataFrame:
    """The stage's output as ``ppg rerank``'s columns."""
    got = frame.rename(columns={"docno": "item"})
    if "session" not in got:
        got["session"] = 1
    got["rank"] = got["rank"] + 1
    return got[["qid", "session", "rank", "item"]].astype({"qid": str, "item": str}).reset_index(drop=True)


@pytest.mark.parametrize(
    "kwargs,flags,data",
    [
        (dict(metric="eel", utility="label", sessions=3, seed=5), ["--sessions", "3", "--seed", "5"], dict(groups=("a", "b", "c"))),
        (dict(metric="dtr", utility="label", sessions=2, seed=9, intra=True), ["--metric", "dtr", "--sessions", "2", "--seed", "9", "--intra"], dict()),
        (dict(metric="ee", utility="label", sessions=4, seed=2), ["--metric", "ee", "--sessions", "4", "--seed", "2"], dict(groups=("x", "y", "z", "w"))),
    ],
)
def test_the_stage_equals_the_cli(ppg_bin, tmp_path, kwargs, flags, data):
    run = result_frame(25, seed=len(flags), **data)
    run["text"] = "t-" + run["docno"]  # another column, which the stage keeps
    cli = run_cli(ppg_bin, run.rename(columns={"docno": "item"})[["qid", "item", "score", "group", "label"]], tmp_path, *flags)
    got = PPGReRanker(all_sessions=True, **kwargs)(run)
    pd.testing.assert_frame_equal(as_cli(got), cli)
    # Every input column kept, row by row with its document.
    assert (got["text"] == "t-" + got["docno"]).all()
    merged = got.merge(run, on=["qid", "docno"], suffixes=("", "_in"))
    assert len(merged) == len(got)
    assert (merged["group"] == merged["group_in"]).all() and (merged["label"] == merged["label_in"]).all()
    # rank 0..n-1 in each session and the score falling with it.
    for _, ranking in got.groupby(["qid", "session"]):
        assert ranking["rank"].tolist() == list(range(len(ranking)))
        assert (np.diff(ranking["score"].to_numpy()) < 0).all()
    # The default returns the first session alone.
    first = PPGReRanker(**kwargs)(run)
    assert "session" not in first
    pd.testing.assert_frame_equal(as_cli(first), cli[cli["session"] == 1].reset_index(drop=True))


def test_groups_and_utility_from_a_mapping_and_the_qrels(ppg_bin, tmp_path):
    run = result_frame(20, seed=3)
    groups = dict(zip(run["docno"], run["group"]))
    # Qrels for half the documents: the other half are unjudged, utility 0.
    judged = run.iloc[::2]
    qrels = pd.DataFrame({"qid": judged["qid"], "docno": judged["docno"], "label": judged["label"]})
    # A negative judgement counts as 0 (TREC's -2 for spam), as for an unjudged document.
    qrels.loc[judged["label"].to_numpy() == 0, "label"] = -2.0
    expected_label = np.where(np.arange(len(run)) % 2 == 0, run["label"], 0.0)
    cli_input = run.rename(columns={"docno": "item"})[["qid", "item", "score", "group"]].assign(label=expected_label)
    cli = run_cli(ppg_bin, cli_input, tmp_path, "--metric", "dtr", "--seed", "4")
    got = PPGReRanker(metric="dtr", groups=groups, qrels=qrels, seed=4)(run.drop(columns=["group", "label"]))
    pd.testing.assert_frame_equal(as_cli(got), cli)


def test_the_default_utility_is_the_score(ppg_bin, tmp_path):
    run = result_frame(15, seed=8).drop(columns="label")
    cli = run_cli(ppg_bin, run.rename(columns={"docno": "item"})[["qid", "item", "score", "group"]], tmp_path, "--seed", "1")
    pd.testing.assert_frame_equal(as_cli(PPGReRanker(seed=1)(run)), cli)


def test_a_cutoff_composes():
    run = result_frame(12, seed=6, min_items=8)
    stage = PPGReRanker(utility="label", sessions=2, all_sessions=True, seed=3)
    full = stage(run)
    cut = (stage % 5)(run)
    pd.testing.assert_frame_equal(cut, full[full["rank"] < 5].reset_index(drop=True))
    assert (cut.groupby(["qid", "session"]).size() == 5).all()


def test_bad_input_names_the_column():
    run = result_frame(3, seed=1)
    with pytest.raises(pt.validate.InputValidationError, match="group"):
        PPGReRanker()(run.drop(columns="group"))
    with pytest.raises(pt.validate.InputValidationError, match="score"):
        PPGReRanker()(run.drop(columns="score"))
    with pytest.raises(pt.validate.InputValidationError, match="relevance"):
        PPGReRanker(utility="relevance")(run)
    with pytest.raises(ValueError, match="groups: no group for docno"):
        PPGReRanker(groups={run["docno"].iat[0]: "a"})(run)
    negative = run.assign(score=run["score"] - 10)
    with pytest.raises(ValueError, match="utility"):
        PPGReRanker()(negative)
    with pytest.raises(ValueError, match="all_sessions"):
        PPGReRanker(all_sessions=True)(run.assign(session=1))
    with pytest.raises(TypeError, match="nonsense"):
        PPGReRanker(nonsense=1)
    with pytest.raises(ValueError, match="utility, qrels"):
        PPGReRanker(utility="label", qrels=run[["qid", "docno", "label"]])
    with pytest.raises(ValueError, match="qrels: the frame has no column 'label'"):
        PPGReRanker(qrels=run[["qid", "docno"]])
    # An empty frame is passed through with the output's columns.
    empty = PPGReRanker()(run.iloc[:0])
    assert len(empty) == 0 and "rank" in empty


def per_query(frame: pd.DataFrame, qrels: pd.DataFrame, groups: dict, value) -> float:
    """The mean over queries of ``value(utility, group ids)`` of each query's documents in
    score order, computed here from ``ppg.metrics`` without ir_measures."""
    labels = dict(zip(zip(qrels["qid"], qrels["docno"]), qrels["label"]))
    names = {g: i for i, g in enumerate(dict.fromkeys(groups.values()))}
    values = []
    for qid, rows in frame.groupby("qid", sort=False):
        rows = rows.sort_values("score", ascending=False)
        u = np.array([labels.get((qid, d), 0.0) for d in rows["docno"]])
        g = np.array([names[groups[d]] for d in rows["docno"]])
        v = value(u, g)
        if v is not None:
            values.append(v)
    return float(np.mean(values))


def test_the_measures_in_an_experiment_equal_ppg_metrics():
    run = result_frame(30, seed=12, groups=("a", "b"))
    run["label"] = run["label"].where(run["label"] < 3, 0.0)
    # Scores without ties: ir_measures orders a run by score alone.
    run["score"] = np.arange(len(run), 0, -1, dtype=float)
    topics = pd.DataFrame({"qid": run["qid"].unique(), "query": "q"})
    qrels = pd.DataFrame({"qid": run["qid"], "docno": run["docno"], "label": run["label"].astype(int)})
    groups = dict(zip(run["docno"], run["group"]))
    stored = pt.Transformer.from_df(run[["qid", "docno", "score", "rank", "group"]])
    fair = stored >> PPGReRanker(metric="eel", qrels=qrels, seed=2)
    measures = [nDCG @ 10, EEL(groups), DTR(groups), ExpectedExposure(groups), AWRF(groups, value="product")]
    table = pt.Experiment([stored, fair], topics, qrels, eval_metrics=measures, names=["bm25", "ppg"])
    assert sorted(table.columns) == sorted(["name", "nDCG@10", "EEL(levels=2)", "DTR", "EE-L", "AWRFxNDCG"])
    fair_run = fair(topics)
    for name, frame in (("bm25", run), ("ppg", fair_run)):
        row = table.set_index("name").loc[name]
        at = lambda u: np.arange(len(u))  # noqa: E731 - the score order
        expected = {
            "EEL(levels=2)": per_query(frame, qrels, groups, lambda u, g: ppg.metrics.eel(at(u), u, g, levels=2)),
            "DTR": per_query(frame, qrels, groups, lambda u, g: ppg.metrics.dtr(at(u), u, g)),
            "EE-L": per_query(
                frame, qrels, groups,
                lambda u, g: ppg.metrics.expected_exposure(at(u), u, g)["loss"] if (u > 0).any() else None,
            ),
            "AWRFxNDCG": per_query(
                frame, qrels, groups,
                lambda u, g: ppg.metrics.awrf(at(u), u, g, population=np.ones(2))["product"] if (u > 0).any() else None,
            ),
        }
        for column, value in expected.items():
            assert row[column] == pytest.approx(value, rel=1e-12, abs=1e-15), (name, column)
    # ir_measures' own nDCG on the same run: the measures sit beside it, not instead.
    assert table.set_index("name").loc["ppg", "nDCG@10"] == pytest.approx(
        ir_measures.calc_aggregate([nDCG @ 10], qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"}),
                                   fair_run.rename(columns={"qid": "query_id", "docno": "doc_id"}))[nDCG @ 10]
    )
    # The stage minimised EEL with 5 grades of the qrels' labels, query by query, never
    # above the input's: so is the mean, and here strictly below.
    five = pt.Experiment([stored, fair], topics, qrels, eval_metrics=[EEL(groups, levels=5)], names=["bm25", "ppg"])
    assert five.set_index("name").loc["ppg", "EEL(levels=5)"] < five.set_index("name").loc["bm25", "EEL(levels=5)"]


def test_a_measure_refuses_a_document_without_a_group():
    run = result_frame(2, seed=4)
    qrels = pd.DataFrame({"qid": run["qid"], "docno": run["docno"], "label": run["label"].astype(int)})
    groups = dict(zip(run["docno"].iloc[1:], run["group"].iloc[1:]))
    with pytest.raises(ValueError, match="groups: no group for doc_id"):
        pt.Experiment([pt.Transformer.from_df(run)], pd.DataFrame({"qid": run["qid"].unique(), "query": "q"}), qrels, eval_metrics=[EEL(groups)])


def test_the_docs_example_runs_and_lowers_eel():
    """docs/python.md's PyTerrier example, run as written."""
    from test_readme import run_example

    docs = (REPO / "docs" / "python.md").read_text()
    code = re.search(r"```python\n(.*?)```", docs.split("## PyTerrier", 1)[1], re.S).group(1)
    namespace, printed = run_example(code)
    table = namespace["table"].set_index("name")
    assert "EEL(levels=2)" in printed and "nDCG@10" in printed
    assert table.loc["ppg", "EEL(levels=2)"] < table.loc["stored", "EEL(levels=2)"]
