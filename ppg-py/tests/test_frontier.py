"""``ppg.frontier`` equals ``ppg frontier``'s TSV on the same rows (one session and
several, both metrics, both utilities), and refuses bad input naming the argument."""

from __future__ import annotations

import subprocess

import numpy as np
import pandas as pd
import pytest

import ppg


def graded(queries: int, seed: int, items=(4, 14), continuous=False) -> pd.DataFrame:
    """Queries of graded labels 0-4 and a noisy model grade (or continuous labels in
    (0, 1) and a noisy score), two groups named as text, rows of the queries interleaved
    (``ppg.frontier`` does not need them together)."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(queries):
        for _ in range(int(rng.integers(items[0], items[1] + 1))):
            if continuous:
                label = float(rng.uniform())
                score = float(max(label + 0.3 * rng.normal(), 0.0))
            else:
                label = float(rng.choice(5, p=[0.26, 0.38, 0.23, 0.06, 0.07]))
                score = float(np.clip(np.round(label + rng.normal()), 0, 4))
            rows.append({
                "qid": f"q{q}",
                "group": "ab"[int(rng.integers(2))],
                "label": label,
                "score": score,
            })
    return pd.DataFrame(rows).sample(frac=1.0, random_state=seed).reset_index(drop=True)


def cli(ppg_bin, df: pd.DataFrame, tmp_path, *args: str) -> pd.DataFrame:
    """``ppg frontier`` on ``df`` written query by query (order of first appearance)."""
    path = tmp_path / "data.tsv"
    first_seen = pd.factorize(df["qid"])[0]
    rows = df.iloc[np.argsort(first_seen, kind="stable")]
    rows.rename(columns={"score": "ltr_grade"})[["qid", "group", "label", "ltr_grade"]].to_csv(
        path, sep="\t", index=False
    )
    out = subprocess.run(
        [str(ppg_bin), "frontier", str(path), *args], check=True, capture_output=True, text=True
    ).stdout
    return pd.read_csv(pd.io.common.StringIO(out), sep="\t", na_values=["-"], keep_default_na=False)


@pytest.mark.parametrize(
    "metric, sessions, utility, continuous",
    [
        ("dtr", 1, "label", False),
        ("eel", 1, "score", False),
        ("dtr", 4, "score", False),
        ("eel", 3, "label", False),
        ("dtr", 32, "label", True),
        ("eel", 2, "score", True),
    ],
)
def test_equals_the_cli(ppg_bin, tmp_path, metric, sessions, utility, continuous):
    df = graded(40, 36 + sessions, continuous=continuous)
    got = ppg.frontier(df, metric=metric, sessions=sessions, levels=7, utility=utility, seed=5)
    want = cli(
        ppg_bin, df, tmp_path, "--metric", metric, "--sessions", str(sessions), "--levels", "7",
        "--utility", {"label": "label", "score": "ltr"}[utility], "--seed", "5",
    )
    assert len(got) == len(want) == 7 + 3
    assert got.attrs == {"metric": metric, "sessions": sessions, "k": 10}
    kinds = ["level"] * 7 + ["none", "input", "recipe"]
    assert got["row"].tolist() == kinds
    assert want["level"].tolist()[7:] == ["none", "input", "recipe"]
    levels = want["level"][:7].astype(float).to_numpy()
    np.testing.assert_allclose(got["level"][:7], levels, atol=5e-5)
    # The TSV prints 6 decimals.
    for column in ("fairness", "ndcg", "bound"):
        np.testing.assert_allclose(got[column], want[column].astype(float), atol=5e-7, err_msg=column)
    assert got["exact"][:8].tolist() == want["exact"][:8].astype(int).tolist()
    assert got["exact"][8:].isna().all()
    assert (got["queries"] == want["queries"]).all()
    # Monotone and bounded.
    frontier = got[got["row"] != "input"][:8]
    assert frontier["ndcg"].is_monotonic_increasing
    assert (frontier["ndcg"] <= frontier["bound"]).all()


def test_the_order_of_rows_within_the_frame_does_not_matter_across_queries():
    df = graded(12, 9)
    # The same queries in the same first-appearance order, each query's rows kept in
    # order, other queries' rows moved between them: the same numbers.
    first = pd.factorize(df["qid"])[0]
    together = df.iloc[np.argsort(first, kind="stable")]
    a = ppg.frontier(df, sessions=2, levels=4)
    b = ppg.frontier(together, sessions=2, levels=4)
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize(
    "change, kwargs, argument",
    [
        (None, {"metric": "ee"}, "metric"),
        (None, {"metric": 3}, "metric"),
        (None, {"sessions": 0}, "sessions"),
        (None, {"levels": 1}, "levels"),
        # Counts the frontier would allocate from: refused before (they aborted the process).
        (None, {"sessions": 10**8}, "sessions"),
        (None, {"levels": 10**11}, "levels"),
        (None, {"k": 0}, "k"),
        (None, {"utility": "ltr"}, "utility"),
        (None, {"seed": -1}, "seed"),
        (None, {"threads": 0}, "threads"),
        (None, {"label": "relevance"}, "label"),
        ("negative", {}, "label"),
        ("nan", {}, "score"),
        ("three groups", {}, "group"),
        ("missing qid", {}, "qid"),
        ("one row", {}, "qid"),
    ],
)
def test_bad_input_names_the_argument(change, kwargs, argument):
    df = graded(3, 1)
    if change == "negative":
        df.loc[2, "label"] = -1.0
    elif change == "nan":
        df.loc[1, "score"] = np.nan
    elif change == "three groups":
        df.loc[0, "group"] = "c"
    elif change == "missing qid":
        df.loc[0, "qid"] = None
    elif change == "one row":
        df.loc[0, "qid"] = "alone"
    before = df.copy()
    with pytest.raises((ValueError, TypeError), match=f"^{argument}:"):
        ppg.frontier(df, **kwargs)
    pd.testing.assert_frame_equal(df, before)


def test_not_a_frame():
    with pytest.raises(TypeError, match="^df:"):
        ppg.frontier([1, 2, 3])


def test_the_docs_example_runs_as_written():
    import contextlib
    import io
    import os
    import re

    from conftest import REPO

    text = (REPO / "docs" / "python.md").read_text().split("## What fairness costs in relevance", 1)[1]
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    namespace: dict = {}
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            exec(compile(code, "docs/python.md", "exec"), namespace)
    finally:
        os.chdir(cwd)
    f = namespace["f"]
    assert f["row"].tolist() == ["level"] * 5 + ["none", "input", "recipe"]
    assert f.attrs["sessions"] == 4 and "fairness" in printed.getvalue()
