"""ppg.metrics.expected_exposure and ppg.metrics.awrf against the second implementation
(ppg-core/tests/independent/metrics.py, the evaluators' formulas in their own terms), and
their refusals."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from conftest import REPO
from ppg import metrics

spec = importlib.util.spec_from_file_location("independent", REPO / "ppg-core/tests/independent/metrics.py")
independent = importlib.util.module_from_spec(spec)
spec.loader.exec_module(independent)


def random_lists(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(2, 30))
        u = rng.integers(0, 3, n).astype(float)
        u[rng.integers(n)] = 1.0
        g = rng.integers(0, 2, n)
        sessions = int(rng.integers(1, 4))
        rankings = np.array([rng.permutation(n) for _ in range(sessions)])
        yield u, g, rankings


def test_expected_exposure_equals_the_evaluators_formulas():
    worst = 0.0
    for u, g, rankings in random_lists(200, 7):
        qrels, groups = dict(enumerate(u)), dict(enumerate(int(x) for x in g))
        runs = [list(r) for r in rankings]
        for browse, model in (("cascade-judged", "gerr"), ("rbp", "rbp")):
            want_item = independent.ee(*independent.individual(qrels, runs, model))
            want_group = independent.ee(*independent.group(qrels, groups, runs, model))
            for level, want in (("item", want_item), ("group", want_group)):
                for normalised, suffix in ((False, ""), (True, "_n")):
                    got = metrics.expected_exposure(rankings, u, g, browse=browse, level=level, normalised=normalised)
                    for name in ("loss", "disparity", "relevance"):
                        worst = max(worst, abs(got[name] - want[name + suffix]))
    assert worst < 1e-12


def test_awrf_equals_trec_2021s_formulas():
    for u, g, rankings in random_lists(200, 8):
        want = independent.awrf(list(u), [int(x) for x in g], [list(r) for r in rankings], 2)
        got = metrics.awrf(rankings, u, g, population=[1.0, 1.0])
        for name in ("awrf", "ndcg", "product"):
            assert math.isclose(got[name], want[name], rel_tol=1e-12, abs_tol=1e-15)


def test_the_official_setting_by_hand():
    # Utilities (1, 0, 1), groups (0, 1, 1), RBP 0.5 at group level: see the Rust unit test.
    got = metrics.expected_exposure([0, 1, 2], [1.0, 0.0, 1.0], [0, 1, 1], browse="rbp", normalised=False)
    assert got == pytest.approx({"loss": 0.3125, "disparity": 1.0625, "relevance": 0.9375}, abs=1e-15)


@pytest.mark.parametrize("patience", [0, 1.5, -0.1, float("nan")])
def test_patience_out_of_range(patience):
    with pytest.raises(ValueError, match="patience"):
        metrics.expected_exposure([0, 1], [1.0, 0.0], [0, 1], patience=patience)


def test_refusals():
    with pytest.raises(ValueError, match="cascade_utility"):
        metrics.expected_exposure([0, 1], [1.0, 0.0], [0, 1], cascade_utility=1.5)
    with pytest.raises(ValueError, match="browse"):
        metrics.expected_exposure([0, 1], [1.0, 0.0], [0, 1], browse="dcg")
    with pytest.raises(ValueError, match="level"):
        metrics.expected_exposure([0, 1], [1.0, 0.0], [0, 1], level="team")
    with pytest.raises(ValueError, match="utility > 0"):
        metrics.expected_exposure([0, 1], [0.0, 0.0], [0, 1])
    with pytest.raises(ValueError, match="utility"):
        metrics.expected_exposure([0, 1], [float("nan"), 0.0], [0, 1])
    with pytest.raises(ValueError, match="target"):
        metrics.awrf([0, 1], [1.0, 0.0], [0, 1], target=[1.0, float("nan")])
    with pytest.raises(ValueError, match="target"):
        metrics.awrf([0, 1], [1.0, 0.0], [0, 1], target=[])
    with pytest.raises(ValueError, match="groups"):
        metrics.awrf([0, 1], [1.0, 0.0], [0, 2], target=[0.5, 0.5])
    with pytest.raises(ValueError, match="target"):
        metrics.awrf([0, 1], [1.0, 0.0], [0, 1], target=[0.0, 0.0])
    with pytest.raises(ValueError, match="utility > 0"):
        metrics.awrf([0, 1], [0.0, 0.0], [0, 1])


def test_awrf_depth_is_trec_2021s_top_20():
    """``depth=20`` scores ranks 1-20 as Task1Evaluation.py did (runs cut at rank 20, then
    metrics.py: the distribution over the cut list, NDCG's ideal over every relevant item),
    written out plainly here."""
    rng = np.random.default_rng(21)
    for _ in range(100):
        n = int(rng.integers(2, 40))
        u = rng.integers(0, 2, n).astype(float)
        u[rng.integers(n)] = 1.0
        g = rng.integers(0, 3, n)
        ranking = rng.permutation(n)
        cut = ranking[:20]
        disc = 1.0 / np.log2(np.maximum(np.arange(1, len(cut) + 1), 2))
        dist = np.array([disc[g[cut] == k].sum() for k in range(3)]) / disc.sum()
        rel = np.array([np.sum((u > 0) & (g == k)) for k in range(3)]) / np.sum(u > 0)
        target = (rel + np.ones(3) / 3) / 2
        m = (dist + target) / 2
        kl = lambda p: sum(p[i] * math.log(p[i] / m[i]) for i in range(3) if p[i] > 0)
        awrf = 1 - (kl(dist) + kl(target)) / 2
        ideal = (1.0 / np.log2(np.maximum(np.arange(1, int(np.sum(u > 0)) + 1), 2))).sum()
        ndcg = disc[u[cut] > 0].sum() / ideal
        got = metrics.awrf([ranking], u, g, population=[1.0, 1.0, 1.0], depth=20)
        assert got["awrf"] == pytest.approx(awrf, rel=1e-12, abs=1e-15)
        assert got["ndcg"] == pytest.approx(ndcg, rel=1e-12, abs=1e-15)
        if n <= 20:
            assert got == metrics.awrf([ranking], u, g, population=[1.0, 1.0, 1.0])
    for bad in (0, -1):
        with pytest.raises(ValueError, match="depth"):
            metrics.awrf([[0, 1]], [1.0, 0.0], [0, 1], depth=bad)


def test_the_published_cascade_by_hand():
    # Item 1 (not relevant) first: no stop after it, one after item 0 (see the Rust test).
    # The published cascade is the default and is "cascade"; d943b3e's is "cascade-judged".
    for browse in ({}, {"browse": "cascade"}):
        got = metrics.expected_exposure([1, 0, 2], [1.0, 0.0, 1.0], [0, 1, 0], level="item", normalised=False, **browse)
        assert got["disparity"] == pytest.approx(1.0 + 0.25 + 0.125 * 0.125, abs=1e-15)
    judged = metrics.expected_exposure([1, 0, 2], [1.0, 0.0, 1.0], [0, 1, 0], browse="cascade-judged", level="item", normalised=False)
    assert judged["disparity"] == pytest.approx(1.0 + 0.0625 + 0.0625 * 0.0625, abs=1e-15)


def test_rerank_scores_awrf_at_its_depth():
    """``ppg.rerank(..., awrf_depth=2)`` minimises 1 - AWRF x NDCG over the first two ranks:
    its cost is ``ppg.metrics.awrf(depth=2)``'s of the rankings it returns; a depth below 1
    is refused, naming the argument."""
    import ppg

    u = np.array([1.0, 1.0, 0.0, 1.0, 0.0, 1.0])
    g = np.array([0, 0, 0, 1, 1, 1])
    rankings, cost, _ = ppg.rerank(u, g, metric="awrf", sessions=2, awrf_depth=2)
    got = metrics.awrf(rankings, u, g, population=[1.0, 1.0], depth=2)
    assert cost == pytest.approx(1 - got["product"], abs=1e-12)
    whole = metrics.awrf(rankings, u, g, population=[1.0, 1.0])
    assert abs(whole["product"] - got["product"]) > 1e-6
    with pytest.raises(ValueError, match="awrf_depth"):
        ppg.rerank(u, g, metric="awrf", awrf_depth=0)
