"""Hostile inputs, each in a fresh interpreter, so that a crash (an abort on a failed
allocation) or a hang (a million threads) fails one test rather than the whole suite; and
Ctrl-C, sent as SIGINT, honoured within a second by every long call."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import pytest

PRELUDE = """
import numpy as np, pandas as pd, ppg
U, G = np.arange(20.0), np.arange(20) % 2
DF = pd.DataFrame({"qid": [1] * 6, "item": list("abcdef"), "score": [6.0, 5, 4, 3, 2, 1],
                   "group": list("xyxyxy")})
"""


def run(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``code`` after the prelude in a fresh interpreter; its exit status and output."""
    return subprocess.run(
        [sys.executable, "-c", PRELUDE + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize(
    "call,argument",
    [
        ("ppg.rerank(np.zeros(60000), np.arange(60000) % 2, epochs=0)", "utility"),
        ("ppg.rerank(U, G, sessions=10**9)", "sessions"),
        ("ppg.rerank(U, G, batch=10**9)", "batch"),
        ("ppg.rerank(U, G, metric=lambda r: 0.0, sessions=10**9)", "sessions"),
        ("ppg.Engine(60000)", "items"),
        ("ppg.Engine(20, sessions=10**9)", "sessions"),
        ("ppg.Engine(20, batch=10**9)", "batch"),
        # The frame blamed "sessions" whatever the cause.
        ("ppg.rerank_frame(DF, batch=10**9)", "batch"),
        ("ppg.rerank_frame(DF, sessions=10**9)", "sessions"),
    ],
)
def test_an_engine_too_large_is_a_memory_error_naming_its_cause(call, argument):
    done = run(
        f"""
        try:
            {call}
        except MemoryError as e:
            print("MemoryError:", e)
        """
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(f"MemoryError: {argument}: "), done.stdout
    assert " items x " in done.stdout and "sessions x batch" in done.stdout


def test_a_million_threads_are_capped_at_the_cores():
    done = run(
        """
        one = ppg.rerank_frame(DF, threads=1)
        many = ppg.rerank_frame(DF, threads=10**6)
        assert one.equals(many)
        print("ok")
        """,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr[-2000:]


LONG = {
    # Built-in metric: on main it ran to its end before the interrupt was seen. Uncertified
    # (certify=False): a certified run may reach the optimum and end within the second.
    "rerank": "ppg.rerank(np.arange(120.0) % 5, np.arange(120) % 2, sessions=4, epochs=10**6, patience=10**6, certify=False)",
    "rerank, forbidden pairs": "ppg.rerank(np.arange(120.0) % 5, np.arange(120) % 2, sessions=4, epochs=10**6, patience=10**6, forbid=[(0, 1)], certify=False)",
    "rerank, callable": "ppg.rerank(np.arange(60.0), np.arange(60) % 2, metric=lambda r: float(r[0, 0]), epochs=10**6, patience=10**6)",
    "rerank_frame": "ppg.rerank_frame(pd.DataFrame({'qid': np.arange(4000) // 40, 'item': np.arange(4000), 'score': np.arange(4000.0) % 7, 'group': np.arange(4000) % 2}), sessions=2, epochs=10**6, patience=10**6, threads=2, certify=False)",
    "Engine.train": "e = ppg.Engine(60); e.start(60); e.train(lambda r: float(r[0, 0]), epochs=10**7, patience=10**7)",
}


@pytest.mark.parametrize("name", sorted(LONG))
def test_ctrl_c_stops_a_long_call_within_a_second(name):
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            PRELUDE
            + textwrap.dedent(
                f"""
                import signal, sys, time
                # A test run started in the background by a non-interactive shell hands
                # its children SIGINT ignored, and Python then installs no handler: put
                # Python's own back, as a terminal's Ctrl-C would find it.
                signal.signal(signal.SIGINT, signal.default_int_handler)
                print("ready", flush=True)
                try:
                    {LONG[name]}
                    print("finished", flush=True)
                except KeyboardInterrupt:
                    print("interrupted", time.monotonic(), flush=True)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline() == "ready\n"
        time.sleep(1.5)  # well inside the call, which runs for minutes
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        child.kill()
    assert out.startswith("interrupted"), (out, err[-2000:])
    late = float(out.split()[1]) - sent
    assert late < 1.0, f"{name}: KeyboardInterrupt {late:.2f} s after SIGINT"
