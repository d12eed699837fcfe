"""Shared fixtures: random ranked lists in ``ppg rerank``'s format, and the ``ppg`` binary."""

from __future__ import annotations

import os
import pathlib
import subprocess

import numpy as np
import pandas as pd
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def make_queries(queries: int, seed: int, *, groups=("a", "b"), label=True, min_items=2, max_items=25) -> pd.DataFrame:
    """``queries`` queries of random length, rows shuffled across queries (a query's rows
    need not be contiguous), scores with ties, group names as text."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(queries):
        n = int(rng.integers(min_items, max_items + 1))
        for i in range(n):
            rows.append(
                {
                    "qid": f"q{q}",
                    "item": f"d{q}-{i}",
                    # Rounded so that ties occur and the tie rule is exercised.
                    "score": float(np.round(rng.normal(), 1)),
                    "group": groups[int(rng.integers(len(groups)))],
                    "label": float(rng.integers(0, 5)),
                }
            )
    df = pd.DataFrame(rows)
    df = df.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    return df if label else df.drop(columns="label")


@pytest.fixture(scope="session")
def ppg_bin() -> pathlib.Path:
    """The ``ppg`` binary: ``PPG_BIN``, or target/release/ppg (the suite builds it)."""
    path = pathlib.Path(os.environ.get("PPG_BIN", REPO / "target" / "release" / "ppg"))
    if not path.exists():
        raise RuntimeError(f"{path} is missing: cargo build --release -p ppg-cli")
    return path


def run_cli(ppg_bin: pathlib.Path, df: pd.DataFrame, tmp_path: pathlib.Path, *args: str) -> pd.DataFrame:
    """``ppg rerank`` on ``df`` written as TSV; its output as a DataFrame.

    ``ppg rerank`` streams, so it wants a query's rows together; ``rerank_frame`` does
    not. The file therefore holds the rows query by query, in the order the queries first
    appear and each query's rows in their own order, which is what ``rerank_frame`` sees
    of them too."""
    src, out = tmp_path / "in.tsv", tmp_path / "out.tsv"
    first_seen = pd.factorize(df["qid"])[0]
    df.iloc[np.argsort(first_seen, kind="stable")].to_csv(src, sep="\t", index=False)
    subprocess.run([str(ppg_bin), "rerank", str(src), "-o", str(out), *args], check=True)
    return pd.read_csv(out, sep="\t", dtype={"qid": str, "item": str})
