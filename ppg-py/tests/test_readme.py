"""The README's Python example runs as written and says what it does."""

from __future__ import annotations

import contextlib
import io
import os
import re

import pandas as pd

from conftest import REPO, run_cli


def test_the_readme_example_equals_the_command_it_names(ppg_bin, tmp_path):
    readme = (REPO / "README.md").read_text()
    section = readme.split("## From Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        namespace: dict = {}
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            exec(compile(code, "README.md", "exec"), namespace)
    finally:
        os.chdir(cwd)
    assert "qid" in printed.getvalue()
    out = namespace["out"]
    command = re.search(r"# Equal to: ppg rerank (\S+) (.*)", code)
    df = pd.read_csv(REPO / command.group(1), sep="\t")
    expected = run_cli(ppg_bin, df, tmp_path, *command.group(2).split())
    rankings = out[["qid", "session", "rank", "item"]]
    pd.testing.assert_frame_equal(rankings.astype({"qid": str, "item": str}), expected)
