"""Bad input raises an exception that names the argument; nothing is returned half-done."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ppg
from conftest import make_queries

U = np.array([3.0, 2.0, 2.0, 1.0, 0.0, 0.0])
G = np.array([0, 0, 1, 1, 0, 1])


@pytest.mark.parametrize(
    "kwargs,error,argument",
    [
        (dict(utility=np.array(["a", "b"]), groups=np.array([0, 1])), TypeError, "utility"),
        (dict(utility=U.reshape(2, 3), groups=G), ValueError, "utility"),
        (dict(utility=np.array([1.0, np.nan, 0, 0, 0, 0]), groups=G), ValueError, "utility"),
        (dict(utility=U, groups=G[:5]), ValueError, "groups"),
        (dict(utility=U, groups=G.astype(float)), TypeError, "groups"),
        (dict(utility=U, groups=None), ValueError, "groups"),
        (dict(utility=U, groups=G, score=U[:4]), ValueError, "score"),
        (dict(utility=np.zeros(0), groups=np.zeros(0, dtype=int)), ValueError, "utility"),
        (dict(utility=np.ones(65_536), groups=np.arange(65_536) % 2), ValueError, "utility"),
        (dict(utility=U, groups=G + 15, metric="dtr"), ValueError, "groups"),
        (dict(utility=U, groups=np.array([0, 1, 2, 3, 4, 16])), ValueError, "groups"),
        (dict(utility=-U, groups=G, metric="dtr"), ValueError, "utility"),
        (dict(utility=U, groups=G, metric="ndcg"), ValueError, "metric"),
        (dict(utility=U, groups=G, metric="ndcg-mix", mix_fairness="foe"), ValueError, "mix_fairness"),
        (dict(utility=U, groups=G, metric=42), TypeError, "metric"),
        (dict(utility=U, groups=G, sessions=0), ValueError, "sessions"),
        (dict(utility=U, groups=G, batch=0), ValueError, "batch"),
        (dict(utility=U, groups=G, lr=float("nan")), ValueError, "lr"),
        (dict(utility=U, groups=G, sampler="fast"), ValueError, "sampler"),
        (dict(utility=U, groups=G, gradient="fast"), ValueError, "gradient"),
        (dict(utility=U, groups=G, levels=0), ValueError, "levels"),
        (dict(utility=U, groups=G, initial_weight=1.0), ValueError, "initial_weight"),
        (dict(utility=U, groups=G, rank_start="two"), ValueError, "rank_start"),
        (dict(utility=U, groups=G, seed=-1), ValueError, "seed"),
        (dict(utility=U, groups=G, forbid=[[0, 6]]), ValueError, "forbid"),
        (dict(utility=U, groups=G, forbid=[[1, 1]]), ValueError, "forbid"),
        (dict(utility=U, groups=G, forbid=[0, 1]), ValueError, "forbid"),
        (dict(utility=U, groups=G, metric="ee", ee_measure="bogus"), ValueError, "ee_measure"),
        (dict(utility=U, groups=G, metric="ee", ee_measure=2), TypeError, "ee_measure"),
        (dict(utility=U, groups=G, metric="ee", ee_level="page"), ValueError, "ee_level"),
        (dict(utility=U, groups=G, metric="ee", browse="dcg"), ValueError, "browse"),
        (dict(utility=U, groups=G, metric="ee", browse_patience=0.0), ValueError, "browse_patience"),
        (dict(utility=U, groups=G, metric="ee", browse="rbp", browse_patience=float("nan")), ValueError, "browse_patience"),
        (dict(utility=U, groups=G, metric="ee", cascade_utility=2.0), ValueError, "cascade_utility"),
    ],
)
def test_rerank_refuses_bad_input_naming_the_argument(kwargs, error, argument):
    with pytest.raises(error, match=f"^{argument}"):
        ppg.rerank(**kwargs)


class Boom(Exception):
    pass


def test_a_raising_objective_reaches_the_caller():
    calls = []

    def objective(ranking):
        calls.append(ranking.copy())
        if len(calls) == 30:
            raise Boom("objective failed")
        return float(ranking[0, 0])

    with pytest.raises(Boom, match="objective failed"):
        ppg.rerank(U, G, metric=objective)
    assert len(calls) == 30  # training stopped at the failure


def test_an_objective_returning_nan_is_a_value_error():
    with pytest.raises(ValueError, match="NaN"):
        ppg.rerank(U, G, metric=lambda r: float("nan") if r[0, 0] == 5 else 1.0)
    with pytest.raises(TypeError):
        ppg.rerank(U, G, metric=lambda r: "cheap")


def test_hold_order_is_checked_like_keep_order():
    e = ppg.Engine(6, 2, 8, seed=5)
    with pytest.raises(ValueError, match="hold_order"):
        e.start(6, 2, hold_order=G[:5])
    with pytest.raises(TypeError, match="hold_order"):
        e.start(6, 2, hold_order=np.array([0.5] * 6))
    e.start(6, 2, hold_order=G)
    assert e.train(lambda r: float(r[0, 0]), epochs=3, batch=8)[0] > 3


def _twins():
    a, b = ppg.Engine(6, 2, 8, seed=5), ppg.Engine(6, 2, 8, seed=5)
    for e in (a, b):
        e.start(6, 2, keep_order=G)
        e.train(lambda r: float(r[0, 0]), epochs=3, batch=8)
    return a, b


@pytest.mark.parametrize("failure", ["raise", "nan"])
def test_a_failed_training_leaves_the_engine_as_before(failure):
    a, b = _twins()
    calls = []

    def bad(ranking):
        calls.append(1)
        if len(calls) == 20:
            if failure == "raise":
                raise Boom("stop")
            return float("nan")
        return float(ranking[1, 0])

    with pytest.raises(Boom if failure == "raise" else ValueError):
        a.train(bad, epochs=10, batch=8)
    assert len(calls) == 20
    # The twin saw no failure: same best, same next draws (generator restored too).
    best_a, best_b = a.best(), b.best()
    np.testing.assert_array_equal(best_a[0], best_b[0])
    assert best_a[1] == best_b[1]
    draws_a, lp_a = a.sample_batch(8)
    draws_b, lp_b = b.sample_batch(8)
    np.testing.assert_array_equal(draws_a, draws_b)
    np.testing.assert_array_equal(lp_a, lp_b)


def test_engine_calls_refuse_bad_input():
    e = ppg.Engine(6, 2, 8)
    with pytest.raises(ValueError, match="^costs"):
        e.update(np.zeros(8))  # nothing sampled yet
    e.start(6, 2)
    e.sample_batch(8)
    with pytest.raises(ValueError, match="^costs"):
        e.update(np.zeros(7))
    with pytest.raises(ValueError, match="^costs"):
        e.update(np.array([0.0] * 7 + [np.nan]))
    assert e.update(np.zeros(8)) in (True, False)  # the batch was still pending
    with pytest.raises(ValueError, match="^ranking"):
        e.log_prob(np.zeros((2, 6), dtype=int))
    with pytest.raises(ValueError, match="^start"):
        e.start(7, 2)
    with pytest.raises(ValueError, match="^items"):
        ppg.Engine(0)
    with pytest.raises(ValueError, match="^sampler"):
        e.sample_batch(2, sampler="fast")


def test_metrics_refuse_bad_input():
    with pytest.raises(ValueError, match="^ranking"):
        ppg.metrics.eel([0, 0, 1, 2, 3, 4], U, G)
    with pytest.raises(ValueError, match="^ranking"):
        ppg.metrics.ndcg([0, 1, 2], U)
    with pytest.raises(TypeError, match="^ranking"):
        ppg.metrics.ndcg(np.arange(6.0), U)
    with pytest.raises(ValueError, match="^groups"):
        ppg.metrics.dtr(np.arange(6), U, G + 15)
    with pytest.raises(ValueError, match="^k"):
        ppg.metrics.ndcg(np.arange(6), U, k=0)


@pytest.mark.parametrize(
    "change,kwargs,error,argument",
    [
        (lambda df: df.drop(columns="group"), {}, ValueError, "group"),
        (lambda df: df, dict(score="grade"), ValueError, "score"),
        (lambda df: df.assign(score=df["score"].where(df.index != 7)), {}, ValueError, "score"),
        (lambda df: df.assign(label="high"), {}, TypeError, "utility"),
        (lambda df: df.assign(group=df.index % 17), dict(metric="dtr"), ValueError, "group"),
        (lambda df: df.assign(group=df.index % 17), {}, ValueError, "group"),
        (lambda df: df.assign(item="same"), {}, ValueError, "item"),
        (lambda df: df.assign(label=-df["label"]), dict(metric="dtr"), ValueError, "utility"),
        (lambda df: df, dict(metric="ndgc"), ValueError, "metric"),
        (lambda df: df, dict(seed_by="row"), ValueError, "seed_by"),
        (lambda df: df, dict(threads=0), ValueError, "threads"),
        (lambda df: df, dict(sessions=0), ValueError, "sessions"),
        (lambda df: df.to_numpy(), {}, TypeError, "df"),
    ],
)
def test_rerank_frame_refuses_bad_input_naming_the_argument(change, kwargs, error, argument):
    df = make_queries(5, seed=3)
    with pytest.raises(error, match=f"^{argument}"):
        ppg.rerank_frame(change(df), **kwargs)


def test_rerank_frame_refuses_a_query_longer_than_the_engine_takes():
    n = 65_536
    df = pd.DataFrame({"qid": 1, "item": np.arange(n), "score": np.arange(n, dtype=float), "group": np.arange(n) % 2})
    with pytest.raises(ValueError, match="^qid: .*65535"):
        ppg.rerank_frame(df)
