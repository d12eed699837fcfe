//! The merge sampler's exact probabilities, its empirical frequencies, and its extremes.

mod support;

use ppg_core::{Dims, Ppg, SamplerMode};
use support::{memory, permutations, TestRng};

const MODES: [SamplerMode; 2] = [SamplerMode::Corrected, SamplerMode::Uncorrected];

fn random_weights(ppg: &mut Ppg, rng: &mut TestRng) {
    let n = ppg.items();
    for s in 0..ppg.sessions() {
        for a in 0..n {
            for b in a + 1..n {
                if !ppg.is_constrained(a, b) {
                    ppg.set_weight(s, a, b, (0.02 + 0.96 * rng.unit()) as f32)
                        .unwrap();
                }
            }
        }
    }
}

#[test]
fn exact_probabilities_sum_to_one_for_every_list_up_to_six() {
    let mut rng = TestRng(7);
    for n in 1..=6 {
        let dims = Dims::new(n, 1, 1);
        let mut mem = memory(dims);
        let mut ppg = Ppg::new(&mut mem, dims, 1).unwrap();
        for constrained in [false, true] {
            ppg.start(n, 1, 0.5).unwrap();
            if constrained && n >= 3 {
                ppg.forbid(0, n - 1).unwrap();
                ppg.forbid(1, 2).unwrap();
            }
            random_weights(&mut ppg, &mut rng);
            for mode in MODES {
                let total: f64 = permutations(n)
                    .iter()
                    .map(|p| ppg.log_prob(mode, p).unwrap().exp())
                    .sum();
                assert!(
                    (total - 1.0).abs() < 1e-9,
                    "n={n} {mode:?} constrained={constrained}: {total}"
                );
            }
        }
    }
}

/// Chi-square statistic of `counts` against `probs` over `draws` samples.
fn chi_square(counts: &[u64], probs: &[f64], draws: u64) -> f64 {
    counts
        .iter()
        .zip(probs)
        .filter(|(_, &p)| p > 0.0)
        .map(|(&c, &p)| {
            let expected = p * draws as f64;
            (c as f64 - expected).powi(2) / expected
        })
        .sum()
}

#[test]
fn frequencies_of_200000_samples_match_the_exact_probabilities() {
    // Significance 0.001: critical chi-square values for n! - 1 degrees of freedom
    // (5 for n = 3, 23 for n = 4), from the chi-square table.
    let critical = [(3, 20.515), (4, 49.728)];
    let draws = 200_000u64;
    let mut weights = TestRng(11);
    for (n, limit) in critical {
        for mode in MODES {
            let dims = Dims::new(n, 1, 1);
            let mut mem = memory(dims);
            let mut ppg = Ppg::new(&mut mem, dims, 2024).unwrap();
            ppg.start(n, 1, 0.5).unwrap();
            random_weights(&mut ppg, &mut weights);
            let perms = permutations(n);
            let probs: Vec<f64> = perms
                .iter()
                .map(|p| ppg.log_prob(mode, p).unwrap().exp())
                .collect();
            let mut counts = vec![0u64; perms.len()];
            let mut out = vec![0u16; n];
            for _ in 0..draws {
                let log_p = ppg.sample(mode, &mut out).unwrap();
                let k = perms.iter().position(|p| *p == out).unwrap();
                // The uncorrected sampler draws in single precision (tests/properties.rs,
                // `tolerance`): its own log-probability is within 1e-6 per item of the replay.
                let tolerance = match mode {
                    SamplerMode::Corrected => 1e-9,
                    SamplerMode::Uncorrected => 1e-6 * n as f64,
                };
                assert!((log_p - probs[k].ln()).abs() < tolerance);
                counts[k] += 1;
            }
            let stat = chi_square(&counts, &probs, draws);
            println!("n={n} {mode:?}: chi-square {stat:.2} (limit {limit})");
            assert!(stat < limit, "n={n} {mode:?}: chi-square {stat} >= {limit}");
        }
    }
}

#[test]
fn weights_zero_keep_the_reference_and_weights_one_reverse_it() {
    for n in [1, 2, 3, 7, 20, 33] {
        for sessions in [1, 3] {
            let dims = Dims::new(n, sessions, 1);
            let mut mem = memory(dims);
            let mut ppg = Ppg::new(&mut mem, dims, 5).unwrap();
            let mut out = vec![0u16; n * sessions];
            let forward: Vec<u16> = (0..n as u16).collect();
            let backward: Vec<u16> = forward.iter().rev().copied().collect();
            for mode in MODES {
                ppg.start(n, sessions, 0.0).unwrap();
                let log_p = ppg.sample(mode, &mut out).unwrap();
                assert!(
                    out.chunks(n).all(|b| b == forward.as_slice()),
                    "{mode:?} n={n}"
                );
                assert_eq!(log_p, 0.0);
                ppg.start(n, sessions, 1.0).unwrap();
                ppg.sample(mode, &mut out).unwrap();
                assert!(
                    out.chunks(n).all(|b| b == backward.as_slice()),
                    "{mode:?} n={n}"
                );
            }
        }
    }
}

#[test]
fn exact_score_agrees_with_finite_differences_of_the_log_probability() {
    // Central differences with h = 1e-3 on weights in [0.2, 0.8]: the truncation error is
    // h^2/6 times a third derivative of at most a few hundred (terms like 2/w^3), i.e. below
    // 1e-4 per term, plus f32 rounding of the perturbed weight (about 6e-8 / 2e-3 relative).
    // A tolerance of 2e-3 (absolute, plus 1e-3 relative) covers both with room for sums of
    // up to ~10 terms, yet catches a missing or wrong term, which is O(1).
    let mut rng = TestRng(99);
    for n in [2, 3, 5, 8] {
        for mode in MODES {
            let sessions = 2;
            let dims = Dims::new(n, sessions, 1);
            let mut mem = memory(dims);
            let mut ppg = Ppg::new(&mut mem, dims, 3).unwrap();
            ppg.start(n, sessions, 0.5).unwrap();
            if n >= 5 {
                ppg.forbid(1, 3).unwrap();
            }
            for s in 0..sessions {
                for a in 0..n {
                    for b in a + 1..n {
                        if !ppg.is_constrained(a, b) {
                            ppg.set_weight(s, a, b, (0.2 + 0.6 * rng.unit()) as f32)
                                .unwrap();
                        }
                    }
                }
            }
            let mut ranking = vec![0u16; n * sessions];
            for _ in 0..4 {
                ppg.sample(mode, &mut ranking).unwrap();
                let pairs = n * (n - 1) / 2;
                let mut grad = vec![0f32; pairs * sessions];
                ppg.score(mode, &ranking, &mut grad).unwrap();
                for s in 0..sessions {
                    for a in 0..n {
                        for b in a + 1..n {
                            if ppg.is_constrained(a, b) {
                                continue;
                            }
                            let w = ppg.weight(s, a, b).unwrap();
                            let (up, down) = (w + 1e-3, w - 1e-3);
                            ppg.set_weight(s, a, b, up).unwrap();
                            let hi = ppg.log_prob(mode, &ranking).unwrap();
                            ppg.set_weight(s, a, b, down).unwrap();
                            let lo = ppg.log_prob(mode, &ranking).unwrap();
                            ppg.set_weight(s, a, b, w).unwrap();
                            let numeric = (hi - lo) / (up as f64 - down as f64);
                            let exact = grad[s * pairs + ppg.pair_index(a, b).unwrap()] as f64;
                            assert!(
                                (numeric - exact).abs() < 2e-3 + 1e-3 * exact.abs(),
                                "n={n} {mode:?} pair ({a},{b}) session {s}: fd {numeric} exact {exact}"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// The corrected walks' buffers share memory with the uncorrected leaf tables: after a
/// corrected draw, log-probability or score, uncorrected draws must be those of a twin that
/// never walked corrected, rankings and log-probabilities alike (the tables are rebuilt);
/// and a corrected score after uncorrected draws must be that of an engine that never
/// drew uncorrected (its difference arrays start at zero, not on a table).
#[test]
fn corrected_walks_between_uncorrected_draws_change_nothing_they_draw() {
    let (n, sessions) = (20, 3);
    let dims = Dims::new(n, sessions, 4);
    let (mut a, mut b, mut c) = (memory(dims), memory(dims), memory(dims));
    let mut mixed = Ppg::new(&mut a, dims, 12).unwrap();
    let mut plain = Ppg::new(&mut b, dims, 12).unwrap();
    let mut corrected_only = Ppg::new(&mut c, dims, 12).unwrap();
    for ppg in [&mut mixed, &mut plain, &mut corrected_only] {
        ppg.start(n, sessions, 0.5).unwrap();
        random_weights(ppg, &mut TestRng(4));
    }
    let (mut one, mut two) = (vec![0u16; n * sessions], vec![0u16; n * sessions]);
    let mut grad = vec![0.0f32; sessions * n * (n - 1) / 2];
    let mut expected = grad.clone();
    for round in 0..6 {
        let p = mixed.sample(SamplerMode::Uncorrected, &mut one).unwrap();
        let q = plain.sample(SamplerMode::Uncorrected, &mut two).unwrap();
        assert_eq!((&one, p), (&two, q), "round {round}");
        // Walks that take no uniform, so that both generators stay in step.
        match round % 3 {
            0 => drop(mixed.log_prob(SamplerMode::Corrected, &one).unwrap()),
            1 => {
                let lp = mixed
                    .score(SamplerMode::Corrected, &one, &mut grad)
                    .unwrap();
                let want = corrected_only
                    .score(SamplerMode::Corrected, &one, &mut expected)
                    .unwrap();
                assert_eq!((lp, &grad), (want, &expected), "round {round}");
            }
            _ => {
                let reversed: Vec<u16> = one.iter().rev().copied().collect();
                let lp = mixed.log_prob(SamplerMode::Corrected, &reversed).unwrap();
                assert!(lp < 0.0);
            }
        }
    }
}
