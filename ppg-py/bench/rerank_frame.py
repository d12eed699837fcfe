"""Benchmark (not a test): ``rerank_frame`` against ``ppg rerank`` on the same rows, one
thread each, run alternately; and the per-call overhead of ``ppg.rerank`` on 20 items.

    cargo build --release -p ppg-cli && maturin develop --release -m ppg-py/Cargo.toml
    python ppg-py/bench/rerank_frame.py --queries 100000 --rounds 3

The CLI is timed as a whole process (read the TSV, re-rank, write the TSV); rerank_frame
as one call (a DataFrame in memory in, a DataFrame out), and once more with the TSV read
and written by pandas, the like-for-like figure.
"""

from __future__ import annotations

import argparse
import pathlib
import subprocess
import tempfile
import time

import numpy as np
import pandas as pd

import ppg

REPO = pathlib.Path(__file__).resolve().parents[2]


def queries(count: int, items: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = count * items
    return pd.DataFrame(
        {
            "qid": np.repeat(np.arange(count), items),
            "item": np.tile(np.arange(items), count),
            "score": rng.normal(size=n).round(3),
            "group": np.where(rng.random(n) < 0.3, "b", "a"),
            "label": rng.integers(0, 5, n).astype(float),
        }
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", type=int, default=100_000)
    p.add_argument("--items", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--ppg", default=str(REPO / "target" / "release" / "ppg"))
    args = p.parse_args()

    df = queries(args.queries, args.items, seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        src, out, out_py = (pathlib.Path(tmp) / f for f in ("in.tsv", "cli.tsv", "py.tsv"))
        df.to_csv(src, sep="\t", index=False)
        times: "dict[str, list[float]]" = {"cli": [], "frame": [], "frame+tsv": []}
        for _ in range(args.rounds):
            t = time.perf_counter()
            subprocess.run([args.ppg, "rerank", str(src), "-o", str(out), "--threads", "1"], check=True)
            times["cli"].append(time.perf_counter() - t)
            t = time.perf_counter()
            got = ppg.rerank_frame(df, threads=1)
            times["frame"].append(time.perf_counter() - t)
            t = time.perf_counter()
            rows = pd.read_csv(src, sep="\t")
            ppg.rerank_frame(rows, threads=1).to_csv(out_py, sep="\t", index=False)
            times["frame+tsv"].append(time.perf_counter() - t)
        cli = pd.read_csv(out, sep="\t")
        assert (cli.to_numpy() == got.to_numpy()).all(), "rerank_frame differs from ppg rerank"
    print(f"{args.queries} queries x {args.items} items, one thread, {args.rounds} alternate rounds (s):")
    for name, ts in times.items():
        print(f"  {name:10} min {min(ts):7.2f}  median {np.median(ts):7.2f}  max {max(ts):7.2f}")
    for name in ("frame", "frame+tsv"):
        print(f"  {name} / cli (medians): {np.median(times[name]) / np.median(times['cli']):.3f}")

    u = df["label"].to_numpy()[: args.items]
    g = (df["group"].to_numpy()[: args.items] == "b").astype(np.int64)
    s = df["score"].to_numpy()[: args.items]
    for label, kwargs in (("no training (epochs=0)", dict(epochs=0)), ("default recipe", {})):
        calls = 2000
        best = float("inf")
        for _ in range(5):
            t = time.perf_counter()
            for _ in range(calls):
                ppg.rerank(u, g, score=s, **kwargs)
            best = min(best, (time.perf_counter() - t) / calls)
        print(f"ppg.rerank, {args.items} items, {label}: {best * 1e6:.1f} us per call (best of 5 x {calls})")


if __name__ == "__main__":
    main()
