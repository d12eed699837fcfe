"""``ppg.trec_run``: the TREC Fair run files round-trip, are byte for byte what
``ppg rerank --run-format`` writes, and score back to the same metrics."""

from __future__ import annotations

import io
import subprocess

import numpy as np
import pandas as pd
import pytest

import ppg
from conftest import make_queries
from ppg import trec_run


def numeric(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with integer ids (the 2022 formats' evaluator reads ids as integers),
    its queries' rows together (as ``ppg rerank`` reads them)."""
    df = df.iloc[np.argsort(pd.factorize(df["qid"])[0], kind="stable")].reset_index(drop=True)
    return df.assign(qid=df["qid"].str[1:].astype(int) + 100, item=np.arange(len(df)) * 7 + 3)


def cli_text(ppg_bin, df: pd.DataFrame, tmp_path, *flags: str) -> str:
    src, out = tmp_path / "in.tsv", tmp_path / "out.txt"
    df.to_csv(src, sep="\t", index=False)
    subprocess.run([str(ppg_bin), "rerank", str(src), "-o", str(out), *flags], check=True)
    return out.read_text()


@pytest.mark.parametrize("format,sessions", [("ppg", 3), ("trec2020", 3), ("trec2022", 1), ("trec2022-seq", 4)])
def test_a_run_file_round_trips_and_equals_the_cli(ppg_bin, tmp_path, format, sessions):
    df = numeric(make_queries(25, seed=sessions, groups=("a", "b", "c")))
    rankings = ppg.rerank_frame(df, sessions=sessions, seed=6, keep=["group", "label"])
    text = trec_run.write(rankings, None, format, run_id="fair1")
    assert text == cli_text(ppg_bin, df, tmp_path, "--sessions", str(sessions), "--seed", "6",
                            "--run-format", format, "--run-id", "fair1")
    path = tmp_path / "run.txt"
    trec_run.write(rankings, path, format, run_id="fair1")
    back = trec_run.read(path, format)
    expected = rankings[["qid", "session", "rank", "item"]].astype({"qid": str, "item": str})
    pd.testing.assert_frame_equal(back, expected, check_dtype=False)
    # Scored back: the run file's rankings with the groups and labels give the metrics
    # of the rankings written.
    info = df.astype({"qid": str, "item": str})[["qid", "item", "group", "label"]]
    scored = back.merge(info, on=["qid", "item"])
    for metric, kw in (("eel", dict(levels=2)), ("dtr", {}), ("ndcg", {})):
        pd.testing.assert_series_equal(
            ppg.metrics.frame(scored, metric=metric, **kw),
            ppg.metrics.frame(rankings.astype({"qid": str}), metric=metric, **kw),
        )


def test_trec2020_is_read_in_sim_order_whatever_the_line_order():
    lines = ["5\tQ0\tb\t2\t1\tr", "5\tQ0\ta\t1\t2\tr", "5\tQ1\ta\t2\t1\tr", "5\tQ1\tb\t1\t2\tr", "6 Q0 c 1 1"]
    back = trec_run.read(io.StringIO("\n".join(lines) + "\n"), "trec2020")
    assert back.values.tolist() == [["5", 1, 1, "a"], ["5", 1, 2, "b"], ["5", 2, 1, "b"], ["5", 2, 2, "a"], ["6", 1, 1, "c"]]


def test_sessions_and_ranks_order_the_rows_written():
    # Ranks from 0 (PyTerrier's), rows shuffled: the file holds each session in rank order.
    rankings = pd.DataFrame({"qid": [1, 1, 1, 1], "session": [2, 1, 2, 1], "rank": [1, 0, 0, 1], "item": [4, 5, 5, 4]})
    assert trec_run.write(rankings, None, "trec2022-seq") == "id\tseq_no\tpage_id\n1\t1\t5\n1\t1\t4\n1\t2\t5\n1\t2\t4\n"
    assert trec_run.write(rankings.drop(columns="session").iloc[[1, 3]], None, "trec2022") == "id\tpage_id\n1\t5\n1\t4\n"


def test_ids_and_arguments_the_formats_cannot_hold_are_refused(tmp_path):
    rankings = pd.DataFrame({"qid": ["q 1", "q 1"], "rank": [1, 2], "item": ["a", "b"]})
    with pytest.raises(ValueError, match="qid: 'q 1' .* whitespace"):
        trec_run.write(rankings, None, "trec2020")
    with pytest.raises(ValueError, match="qid: 'q 1' .* not an integer"):
        trec_run.write(rankings, None, "trec2022")
    assert trec_run.write(rankings, None, "ppg").startswith("qid\tsession\trank\titem\nq 1\t1\t1\ta\n")
    two = pd.DataFrame({"qid": [1, 1], "session": [1, 2], "rank": [1, 1], "item": [3, 3]})
    with pytest.raises(ValueError, match="session: query '1' has more than one session"):
        trec_run.write(two, None, "trec2022")
    with pytest.raises(ValueError, match="run_id"):
        trec_run.write(two, None, "trec2020", run_id="my run")
    with pytest.raises(ValueError, match="format: 'trec2021'"):
        trec_run.write(two, None, "trec2021")
    with pytest.raises(ValueError, match="item: the DataFrame has no column 'docno'"):
        trec_run.write(two, None, "ppg", item="docno")
    bad = tmp_path / "bad.txt"
    bad.write_text("id\tseq_no\tpage_id\n1\t1\t5\n1\t1\n")
    with pytest.raises(ValueError, match=r"bad.txt:3: 2 fields where the trec2022-seq format has 3"):
        trec_run.read(bad, "trec2022-seq")


def test_the_cli_refuses_what_the_formats_cannot_hold(ppg_bin, tmp_path):
    df = make_queries(3, seed=1)
    src = tmp_path / "in.tsv"
    df.iloc[np.argsort(pd.factorize(df["qid"])[0], kind="stable")].to_csv(src, sep="\t", index=False)
    for flags, message in (
        (["--run-format", "trec2022"], "is not an integer"),
        (["--run-format", "trec2022-seq", "--sessions", "2"], "is not an integer"),
        (["--run-format", "trec2022", "--sessions", "2"], "holds one ranking per topic"),
        (["--run-format", "trec2020", "--run-id", "a b"], "a run id is one word"),
    ):
        out = tmp_path / "out.txt"
        done = subprocess.run([str(ppg_bin), "rerank", str(src), "-o", str(out), *flags], capture_output=True, text=True)
        assert done.returncode == 2 and message in done.stderr, (flags, done.stderr)
        assert not out.exists()
