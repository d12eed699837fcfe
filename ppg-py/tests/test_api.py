"""What the API computes: the metrics against their definitions, the callable objective
against the built-in one, constraints, the engine's probabilities."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import ppg
from ppg import metrics


def exposure(positions, start):
    return 1.0 / np.log2(np.asarray(positions) + (2 if start == "zero" else 3))


def dtr_ref(ranking, u, g, start="one"):
    r = np.atleast_2d(ranking)
    sessions, n = r.shape
    exp = np.zeros(2)
    for row in r:
        for pos, item in enumerate(row):
            exp[g[item]] += exposure(pos, start)
    util = np.array([u[g == k].sum() for k in (0, 1)]) * sessions
    ratio = np.divide(exp, util, out=np.zeros(2), where=util > 0)
    return 1.0 if ratio.min() == 0 else ratio.max() / ratio.min()


def eel_ref(ranking, u, g, levels, start="one"):
    r = np.atleast_2d(ranking)
    sessions, n = r.shape
    low, high = max(u.min() - 1e-10, 0.0), u.max() + 1e-10
    grade = np.clip(np.floor((u - low) / ((high - low) / levels)), 0, levels - 1)
    by_grade = np.sort(grade)[::-1]
    target_pos = {gr: exposure(np.flatnonzero(by_grade == gr), start).mean() for gr in set(grade)}
    groups = g.max() + 1
    target = np.zeros(groups)
    for i in range(n):
        target[g[i]] += target_pos[grade[i]]
    expected = np.zeros(groups)
    for row in r:
        for pos, item in enumerate(row):
            expected[g[item]] += exposure(pos, start) / sessions
    return float(((expected - target) ** 2).sum())


def ndcg_ref(ranking, u, k):
    r = np.atleast_2d(ranking)
    disc = exposure(np.arange(min(k, r.shape[1])), "zero")
    ideal = ((2.0 ** np.sort(u)[::-1][: len(disc)] - 1) * disc).sum()
    return float(np.mean([((2.0 ** u[row[: len(disc)]] - 1) * disc).sum() / ideal for row in r]))


def test_metrics_match_their_definitions():
    rng = np.random.default_rng(0)
    for trial in range(40):
        n, sessions = int(rng.integers(2, 12)), int(rng.integers(1, 4))
        u = rng.integers(0, 5, n).astype(float)
        u[0] = 1.0  # some utility in both groups, so that DTR is not degenerate
        g = np.arange(n) % 2
        rng.shuffle(g)
        ranking = np.stack([rng.permutation(n) for _ in range(sessions)])
        for start in ("one", "zero"):
            assert math.isclose(metrics.dtr(ranking, u, g, rank_start=start), dtr_ref(ranking, u, g, start), rel_tol=1e-12)
            assert math.isclose(metrics.eel(ranking, u, g, levels=5, rank_start=start), eel_ref(ranking, u, g, 5, start), rel_tol=1e-9, abs_tol=1e-12)
        if u.max() > 0:
            assert math.isclose(metrics.ndcg(ranking, u, k=5), ndcg_ref(ranking, u, 5), rel_tol=1e-12)


def test_rerank_lowers_the_cost_it_reports():
    rng = np.random.default_rng(1)
    u = np.sort(rng.integers(0, 5, 20).astype(float))[::-1]
    g = (rng.random(20) < 0.3).astype(int)
    r = ppg.rerank(u, g, metric="eel", sessions=4, seed=3)
    assert r.rankings.shape == (4, 20)
    assert all(sorted(row) == list(range(20)) for row in r.rankings)
    # The cost reported is the metric of the rankings returned (EEL with 5 levels).
    assert math.isclose(r.cost, metrics.eel(r.rankings, u, g, levels=5), rel_tol=1e-12)
    assert math.isclose(r.input_cost, metrics.eel(np.tile(np.arange(20), (4, 1)), u, g, levels=5), rel_tol=1e-12)
    assert r.cost < 0.5 * r.input_cost


def test_a_callable_objective_finds_what_the_built_in_one_finds():
    rng = np.random.default_rng(2)
    u = np.sort(rng.integers(0, 5, 12).astype(float))[::-1]
    g = np.array([0, 0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1])
    built_in = ppg.rerank(u, g, metric="dtr", sessions=2, seed=6)
    calls = []

    def dtr_cost(ranking):
        calls.append(ranking.shape)
        return metrics.dtr(ranking, u, g) - 1.0

    custom = ppg.rerank(u, g, metric=dtr_cost, sessions=2, seed=6)
    # Grown (the default): the 1-session run first, then 2 sessions.
    assert set(calls) == {(1, 12), (2, 12)}
    np.testing.assert_array_equal(custom.rankings, built_in.rankings)
    assert math.isclose(custom.cost, built_in.cost, rel_tol=1e-12)


def test_grown_sessions_are_never_worse_than_one_run_nor_than_half_the_sessions():
    rng = np.random.default_rng(7)
    for _ in range(4):
        u = np.sort(rng.integers(0, 5, 16).astype(float))[::-1]
        g = (rng.random(16) < 0.4).astype(int)
        g[:2] = (0, 1)
        half = math.inf
        for sessions in (1, 2, 4, 8):
            grown = ppg.rerank(u, g, metric="dtr", sessions=sessions, intra=True, seed=5)
            single = ppg.rerank(u, g, metric="dtr", sessions=sessions, intra=True, seed=5, grow=False)
            # Certified answers are optimal to the certificate's tolerance (1e-8), not
            # below it: one count may return a vector that far above another's optimum.
            assert grown.cost <= single.cost + 1e-8
            assert grown.cost <= half + 1e-8
            half = grown.cost
            # The cost reported is that of the rankings returned (DTR - 1, as in the callable test).
            assert math.isclose(grown.cost, metrics.dtr(grown.rankings, u, g) - 1.0, rel_tol=1e-9, abs_tol=1e-12)


def test_held_order_is_the_intra_run_then_free():
    # hold (the default without intra) first runs exactly the intra run (same seed), so its
    # cost is never above intra's; the free run after it can beat every constrained
    # ranking: here the last item of group 1 must rise above its own group, which only a
    # free run can do.
    rng = np.random.default_rng(3)
    below = 0
    for seed in range(6):
        u = np.sort(rng.integers(0, 5, 18).astype(float))[::-1]
        g = (rng.random(18) < 0.4).astype(int)
        g[:2] = (0, 1)
        last = int(np.flatnonzero(g == 1)[-1])

        def rise(r, last=last):
            return float(np.mean(np.argmax(r == last, axis=1)))

        for sessions in (1, 4):
            held = ppg.rerank(u, g, metric=rise, sessions=sessions, seed=seed)
            intra = ppg.rerank(u, g, metric=rise, sessions=sessions, intra=True, seed=seed)
            free = ppg.rerank(u, g, metric=rise, sessions=sessions, hold=False, seed=seed)
            assert held.cost <= intra.cost
            floor = float(np.sum(g[:last] == 1))
            assert intra.cost >= floor
            below += held.cost < floor
            assert free.cost <= free.input_cost
    # These seeds: below the constrained floor on every one of the 12 calls; asserted on at
    # least half, so that a hold never released fails.
    assert below >= 6, below


def test_forbidden_pairs_and_intra_hold_in_every_session():
    u = np.array([4.0, 3, 3, 2, 2, 1, 1, 0, 0, 0])
    g = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    forbid = [(0, 9), (1, 8)]
    r = ppg.rerank(u, g, metric="eel", sessions=3, intra=True, forbid=forbid, seed=1)
    for row in r.rankings:
        where = {item: pos for pos, item in enumerate(row)}
        for a, b in forbid:
            assert where[a] < where[b]
        for k in (0, 1):
            members = [i for i in row if g[i] == k]
            assert members == sorted(members)
    free = ppg.rerank(u, g, metric="eel", sessions=3, seed=1)
    assert r.cost >= free.cost - 1e-12  # constraints cannot help


def test_engine_log_probabilities_sum_to_one_over_all_rankings():
    engine = ppg.Engine(4, 1, 4, seed=0)
    engine.start(4, 1, initial_weight=0.3, forbid=[(0, 3)])
    for sampler in ("uncorrected", "corrected"):
        total = sum(math.exp(engine.log_prob(np.array(p), sampler)) for p in itertools.permutations(range(4)))
        assert math.isclose(total, 1.0, rel_tol=1e-9), sampler
    assert engine.log_prob(np.array([3, 1, 2, 0])) == -math.inf
    batch, log_probs = engine.sample_batch(4)
    assert batch.shape == (4, 1, 4)
    # The uncorrected sampler draws in single precision: a sample's own log-probability is
    # within 1e-6 per item of the double-precision replay (ppg-core/tests/properties.rs).
    for ranking, lp in zip(batch, log_probs):
        assert math.isclose(engine.log_prob(ranking), lp, rel_tol=0, abs_tol=4e-6)


def test_engine_learns_from_the_callers_costs():
    engine = ppg.Engine(items=8, sessions=1, batch=16, seed=4)
    engine.start(8)
    assert engine.best() is None
    for _ in range(60):
        batch, _ = engine.sample_batch(16)
        engine.update(batch[:, 0, :].argsort(axis=1)[:, 7].astype(float))  # item 7 on top
    ranking, cost = engine.best()
    assert cost == 0.0 and ranking[0, 0] == 7
