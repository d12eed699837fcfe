"""Fairness before and after without a hand-written loop (issue 30, points 8 and 9):
``ppg.metrics.frame`` scores every query of a frame, ``rerank_frame`` returns the costs it
optimised and can keep the columns that score the output; the package says its version
and the docs' signatures are the functions'."""

from __future__ import annotations

import contextlib
import importlib.metadata
import inspect
import io
import os
import re

import numpy as np
import pandas as pd
import pytest

import ppg
from conftest import REPO, make_queries


def hand_loop(df: pd.DataFrame, metric: str, levels: int) -> pd.Series:
    """What a user wrote before: one query at a time through ``ppg.metrics``."""
    values = {}
    groups = pd.Series(pd.factorize(df["group"])[0], index=df.index)
    for q, rows in df.groupby("qid", sort=False):
        if "rank" in rows:
            rows = rows.sort_values(["session", "rank"])
        else:  # the starting ranking: score descending, ties the later row first
            rows = rows.iloc[::-1].sort_values("score", ascending=False, kind="stable")
        first = rows[rows["session"] == rows["session"].min()] if "session" in rows else rows
        position = {item: k for k, item in enumerate(first["item"])}
        ranking = np.array([position[i] for i in rows["item"]]).reshape(-1, len(first))
        u, g = first["label"].to_numpy(), groups[first.index].to_numpy()
        if metric == "eel":
            values[q] = ppg.metrics.eel(ranking, u, g, levels=levels)
        else:
            values[q] = ppg.metrics.dtr(ranking, u, g)
    return pd.Series(values)


@pytest.mark.parametrize("metric,sessions", [("eel", 1), ("eel", 3), ("dtr", 2)])
def test_frame_metrics_equal_the_loop_and_the_costs_rerank_frame_optimised(metric, sessions):
    df = make_queries(50, seed=6, groups=("a", "b"))
    df["score"] = df["score"].abs() + 0.25  # distinct from -0.0, where pandas and the rule differ
    df.index = df.index * 3 + 7  # any index
    out, costs = ppg.rerank_frame(df, metric=metric, sessions=sessions, seed=2, keep=["group", "label"], costs=True)
    before = ppg.metrics.frame(df, metric=metric, levels=5)
    after = ppg.metrics.frame(out, metric=metric, levels=5)
    assert before.index.equals(costs.index) and after.index.equals(costs.index)
    shift = 1.0 if metric == "dtr" else 0.0  # DTR is optimised as the ratio - 1
    np.testing.assert_allclose(before - shift, costs["before"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(after - shift, costs["after"], rtol=1e-9, atol=1e-12)
    assert (costs["after"] <= costs["before"] + 1e-12).all()
    loop_before = hand_loop(df, metric, 5)
    loop_after = hand_loop(out, metric, 5)
    np.testing.assert_allclose(before.to_numpy(), loop_before.to_numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(after.to_numpy(), loop_after.to_numpy(), rtol=1e-9, atol=1e-12)


def test_frame_needs_the_levels_of_eel_stated_and_checks_its_rankings():
    df = make_queries(5, seed=1)
    with pytest.raises(TypeError, match="^levels: EEL needs its grade levels stated"):
        ppg.metrics.frame(df, metric="eel")
    assert ppg.metrics.frame(df, metric="eel", levels=2).name == "eel"
    ndcg = ppg.metrics.frame(df, metric="ndcg", k=5)
    assert ((ndcg >= 0) & (ndcg <= 1)).all()
    out = ppg.rerank_frame(df, sessions=2, keep=["group", "label"])
    with pytest.raises(ValueError, match="^session: a session of query"):
        ppg.metrics.frame(out.iloc[1:], metric="dtr")
    twice = out.copy()
    twice.loc[1, "item"] = twice.loc[0, "item"]
    with pytest.raises(ValueError, match="^item: "):
        ppg.metrics.frame(twice, metric="dtr")
    with pytest.raises(ValueError, match="^metric: "):
        ppg.metrics.frame(df, metric="ndcg-mix")


def test_frame_refuses_a_shared_rank_and_an_item_that_changes_between_sessions():
    df = make_queries(5, seed=1, groups=("a", "b"))
    out = ppg.rerank_frame(df, sessions=2, keep=["group", "label"])
    tied = out.copy()
    tied.loc[1, "rank"] = tied.loc[0, "rank"]  # rows 0 and 1: one query, one session
    assert tied.loc[0, ["qid", "session"]].equals(tied.loc[1, ["qid", "session"]])
    with pytest.raises(ValueError, match=r"^rank: column 'rank': two rows of a session of query .* have rank"):
        ppg.metrics.frame(tied, metric="dtr")
    # An item of the second session with another group, or another label, than in the first.
    second = out.index[(out["session"] == 1) & (out["qid"] == out.loc[0, "qid"])][0]
    moved = out.copy()
    moved.loc[second, "group"] = "b" if moved.loc[second, "group"] == "a" else "a"
    with pytest.raises(ValueError, match=r"^group: column 'group': item .* in the query's first session"):
        ppg.metrics.frame(moved, metric="dtr")
    relabelled = out.copy()
    relabelled.loc[second, "label"] = relabelled.loc[second, "label"] + 1
    with pytest.raises(ValueError, match=r"^utility: column 'label': item .* in the query's first session"):
        ppg.metrics.frame(relabelled, metric="eel", levels=2)
    with pytest.raises(ValueError, match=r"^levels: must be in 1..=64, got 65"):
        ppg.metrics.frame(out, metric="eel", levels=65)
    with pytest.raises(ValueError, match=r"^levels: must be in 1..=64, got 65"):
        ppg.metrics.eel([0, 1], np.array([1.0, 0.0]), np.array([0, 1]), levels=65)
    ppg.metrics.frame(out, metric="eel", levels=64)


def test_the_output_keeps_the_columns_asked_for():
    df = make_queries(20, seed=3)
    out = ppg.rerank_frame(df, sessions=2, keep=["score", "group", "label"])
    assert list(out.columns) == [
        "qid", "session", "rank", "item", "certified", "gap", "score", "group", "label"
    ]
    merged = out.merge(df, on=["qid", "item"], suffixes=("", "_in"))
    assert len(merged) == len(out)
    for c in ("score", "group", "label"):
        assert (merged[c] == merged[c + "_in"]).all()
    plain = ppg.rerank_frame(df, sessions=2)
    pd.testing.assert_frame_equal(out[list(plain.columns)], plain)
    with pytest.raises(ValueError, match="^keep: 'rank' is a column of the output"):
        ppg.rerank_frame(df, keep=["rank"])
    with pytest.raises(ValueError, match="^keep: the DataFrame has no column 'grade'"):
        ppg.rerank_frame(df, keep=["grade"])
    with pytest.raises(TypeError, match="^keep: "):
        ppg.rerank_frame(df, keep="label")


def test_the_version_is_the_workspaces():
    # tomllib is Python 3.11's; the package runs from 3.9.
    section = (REPO / "Cargo.toml").read_text().split("[workspace.package]", 1)[1].split("\n[", 1)[0]
    assert ppg.__version__ == re.search(r'^version = "([^"]+)"', section, re.M).group(1)
    assert ppg.__version__ == importlib.metadata.version("ppg")


def test_the_spark_extra_holds_pandas_below_3():
    # pyspark warns (FutureWarning) under pandas 3: the extra keeps pip on pandas 2.
    requires = importlib.metadata.requires("ppg") or []
    spark = [r for r in requires if re.search(r"extra == .spark.", r) and r.startswith("pandas")]
    assert spark and "<3" in spark[0], requires


def test_the_documented_metric_signatures_are_the_functions():
    # Rows like `ppg.metrics.eel / dtr / ndcg(ranking, utility, groups)` in the docs.
    texts = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    found = 0
    for path in texts:
        for names, args in re.findall(r"`ppg\.metrics\.([\w /]+)\(([^)`]*)\)", path.read_text()):
            listed = [a.split("=")[0].strip() for a in args.split(",") if a.strip() and a.strip() != "..."]
            for name in (n.strip() for n in names.split("/")):
                parameters = inspect.signature(getattr(ppg.metrics, name)).parameters
                for a in listed:
                    assert a in parameters, f"{path.name}: ppg.metrics.{name} has no {a!r}"
                found += 1
    assert found >= 3


def test_the_docs_before_and_after_example_runs_as_written():
    text = (REPO / "docs" / "python.md").read_text().split("## Fairness before and after", 1)[1]
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    namespace: dict = {}
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            exec(compile(code, "docs/python.md", "exec"), namespace)
    finally:
        os.chdir(cwd)
    before, after = namespace["before"], namespace["after"]
    assert before.index.tolist() == ["q1", "q2", "q3"] and "before" in printed.getvalue()
    assert (after <= before + 1e-12).all() and (after < before).any()
