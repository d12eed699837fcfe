"""Benchmark (not a test): the before-and-after workflow on 2,000 queries x 20 items, two
groups (issue 30's data scientist): ``rerank_frame``, then the fairness of every query
before and after, by ``ppg.metrics.frame`` and by the hand-written loop it replaces.

    python ppg-py/bench/fairness_frame.py [--threads 1] [--fairness [--loop]]

Prints one line per figure (seconds, in-process, ``time.perf_counter``). Without
``--fairness`` it runs ``rerank_frame`` alone, the same work under any build of the
package: run it under two builds in turn to compare them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

import ppg


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


def hand_loop(df: pd.DataFrame, out: pd.DataFrame, levels: int) -> "tuple[pd.Series, pd.Series]":
    """The loop a user wrote before ``metrics.frame``: per query, positions and integer
    groups for ``ppg.metrics.eel``, before (by score) and after (the output's items)."""
    groups = pd.Series(pd.factorize(df["group"])[0], index=df.index)
    before, after = {}, {}
    ranked = dict(tuple(out.groupby("qid", sort=False)))
    for q, rows in df.groupby("qid", sort=False):
        rows = rows.iloc[::-1].sort_values("score", ascending=False, kind="stable")
        u, g = rows["label"].to_numpy(), groups[rows.index].to_numpy()
        position = {item: k for k, item in enumerate(rows["item"])}
        before[q] = ppg.metrics.eel(np.arange(len(rows)), u, g, levels=levels)
        r = ranked[q].sort_values(["session", "rank"])
        ranking = np.array([position[i] for i in r["item"]]).reshape(-1, len(rows))
        after[q] = ppg.metrics.eel(ranking, u, g, levels=levels)
    return pd.Series(before), pd.Series(after)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", type=int, default=2000)
    p.add_argument("--items", type=int, default=20)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--fairness", action="store_true", help="time metrics.frame before and after")
    p.add_argument("--loop", action="store_true", help="with --fairness: time the hand-written loop too")
    args = p.parse_args()
    df = queries(args.queries, args.items, seed=0)
    t = time.perf_counter()
    out = ppg.rerank_frame(df, metric="eel", threads=args.threads)
    print(f"rerank_frame {time.perf_counter() - t:.3f}")
    if not args.fairness:
        return
    out, costs = ppg.rerank_frame(df, metric="eel", threads=args.threads, keep=["group", "label"], costs=True)
    t = time.perf_counter()
    before = ppg.metrics.frame(df, metric="eel", levels=5)
    after = ppg.metrics.frame(out, metric="eel", levels=5)
    print(f"metrics.frame-before-and-after {time.perf_counter() - t:.3f}")
    np.testing.assert_allclose(before.to_numpy(), costs["before"].to_numpy(), rtol=1e-9)
    np.testing.assert_allclose(after.to_numpy(), costs["after"].to_numpy(), rtol=1e-9, atol=1e-12)
    if args.loop:
        t = time.perf_counter()
        loop_before, loop_after = hand_loop(df, out, 5)
        print(f"hand-loop-before-and-after {time.perf_counter() - t:.3f}")
        np.testing.assert_allclose(loop_before.to_numpy(), before.to_numpy(), rtol=1e-9)
        np.testing.assert_allclose(loop_after.to_numpy(), after.to_numpy(), rtol=1e-9, atol=1e-12)


if __name__ == "__main__":
    main()
