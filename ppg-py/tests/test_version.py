"""``ppg.__version__`` is the version of the workspace the wheel was built from."""

from __future__ import annotations

import re
import subprocess

import ppg
from conftest import REPO


def test_version_is_the_workspaces_and_the_clis(ppg_bin):
    cargo = (REPO / "Cargo.toml").read_text()
    workspace = re.search(r'^\[workspace\.package\]\n(?:.*\n)*?version = "([^"]+)"', cargo, re.M).group(1)
    assert ppg.__version__ == workspace
    cli = subprocess.run([str(ppg_bin), "--version"], capture_output=True, text=True, check=True).stdout
    assert cli.split() == ["ppg", ppg.__version__]
