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
        for browse, model in (("cascade", "gerr"), ("rbp", "rbp")):
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
