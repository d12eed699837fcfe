"""The README's Python example runs as written and says what it does."""

from __future__ import annotations

import contextlib
import io
import os
import re

import pandas as pd

from conftest import REPO, run_cli


def readme_example(door: str) -> str:
    """The first ``python`` block after the README's bold ``door`` label (``**Python**``)."""
    readme = (REPO / "README.md").read_text()
    section = readme.split(f"**{door}**", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def run_example(code: str) -> tuple[dict, str]:
    """Runs ``code`` from the repository root; its names and what it printed."""
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        namespace: dict = {}
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            exec(compile(code, "README.md", "exec"), namespace)
    finally:
        os.chdir(cwd)
    return namespace, printed.getvalue()


def test_the_readme_example_equals_the_command_it_names(ppg_bin, tmp_path):
    code = readme_example("Python")
    namespace, printed = run_example(code)
    assert "qid" in printed
    out = namespace["out"]
    # The README's comment: per-query certificate columns beside `ppg rerank`'s four.
    assert {"certified", "gap"} <= set(out.columns)
    command = re.search(r"# Equal to: ppg rerank (\S+) (.*)", code)
    df = pd.read_csv(REPO / command.group(1), sep="\t")
    expected = run_cli(ppg_bin, df, tmp_path, *command.group(2).split())
    rankings = out[["qid", "session", "rank", "item"]]
    pd.testing.assert_frame_equal(rankings.astype({"qid": str, "item": str}), expected)
