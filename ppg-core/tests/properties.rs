//! Properties over random weights and constraints (proptest).

mod support;

use ppg_core::{Dims, Ppg, SamplerMode, TrainConfig};
use proptest::prelude::*;
use support::memory;

#[derive(Debug, Clone)]
struct Case {
    n: usize,
    sessions: usize,
    weights: Vec<f32>,
    forbidden: Vec<(usize, usize)>,
    groups: Vec<u8>,
    intra: bool,
    inter: bool,
    corrected: bool,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..40, 1usize..4).prop_flat_map(|(n, sessions)| {
        let pairs = n * (n - 1) / 2;
        (
            Just(n),
            Just(sessions),
            prop::collection::vec(0.0f32..=1.0, pairs * sessions),
            prop::collection::vec((0..n, 0..n), 0..4),
            prop::collection::vec(0u8..3, n),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<u64>(),
        )
            .prop_map(
                |(n, sessions, weights, forbidden, groups, intra, inter, corrected, seed)| Case {
                    n,
                    sessions,
                    weights,
                    forbidden: forbidden.into_iter().filter(|(a, b)| a != b).collect(),
                    groups,
                    intra,
                    inter,
                    corrected,
                    seed,
                },
            )
    })
}

/// Builds the engine of a case and returns the pairs `(a, b)`, `a < b`, that must keep
/// their input order.
fn setup(ppg: &mut Ppg, c: &Case) -> Vec<(usize, usize)> {
    ppg.start(c.n, c.sessions, 0.5).unwrap();
    for &(a, b) in &c.forbidden {
        ppg.forbid(a, b).unwrap();
    }
    if c.intra {
        ppg.keep_order_within(&c.groups).unwrap();
    }
    if c.inter {
        ppg.keep_order_between(&c.groups).unwrap();
    }
    let mut k = 0;
    for s in 0..c.sessions {
        for a in 0..c.n {
            for b in a + 1..c.n {
                if !ppg.is_constrained(a, b) {
                    ppg.set_weight(s, a, b, c.weights[k]).unwrap();
                }
                k += 1;
            }
        }
    }
    let mut fixed = Vec::new();
    for a in 0..c.n {
        for b in a + 1..c.n {
            let listed = c
                .forbidden
                .iter()
                .any(|&(x, y)| (x, y) == (a, b) || (y, x) == (a, b));
            let same = c.groups[a] == c.groups[b];
            if listed || (c.intra && same) || (c.inter && !same) {
                assert!(ppg.is_constrained(a, b));
                fixed.push((a, b));
            }
        }
    }
    fixed
}

fn check_ranking(ranking: &[u16], c: &Case, fixed: &[(usize, usize)]) -> Result<(), TestCaseError> {
    prop_assert_eq!(ranking.len(), c.n * c.sessions);
    for block in ranking.chunks(c.n) {
        let mut pos = vec![usize::MAX; c.n];
        for (k, &item) in block.iter().enumerate() {
            prop_assert!((item as usize) < c.n);
            prop_assert_eq!(pos[item as usize], usize::MAX, "item twice");
            pos[item as usize] = k;
        }
        for &(a, b) in fixed {
            prop_assert!(pos[a] < pos[b], "constrained pair ({}, {}) inverted", a, b);
        }
    }
    Ok(())
}

fn mode(c: &Case) -> SamplerMode {
    if c.corrected {
        SamplerMode::Corrected
    } else {
        SamplerMode::Uncorrected
    }
}

/// How far a sample's own log-probability may be from the double-precision replay. The
/// corrected sampler draws in double precision. The uncorrected one draws in single
/// precision (the Cortex-M4F's FPU has no double): each decision's probability is a product
/// of at most a few single-precision factors, off by about `2^-22` relative, and a session
/// of `n` items takes fewer than `n log2 n` decisions; `1e-6` per item and session bounds it
/// and is still far below what a stale copy of the weights gives (0.01 and more).
fn tolerance(mode: SamplerMode, c: &Case) -> f64 {
    match mode {
        SamplerMode::Corrected => 1e-9,
        SamplerMode::Uncorrected => 1e-6 * (c.n * c.sessions) as f64,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn samples_are_block_permutations_that_respect_constraints(c in case()) {
        let dims = Dims::new(c.n, c.sessions, 1);
        let mut mem = memory(dims);
        let mut ppg = Ppg::new(&mut mem, dims, c.seed).unwrap();
        let fixed = setup(&mut ppg, &c);
        let mut out = vec![0u16; c.n * c.sessions];
        for _ in 0..20 {
            let log_p = ppg.sample(mode(&c), &mut out).unwrap();
            prop_assert!(log_p <= 1e-12 && log_p.is_finite());
            check_ranking(&out, &c, &fixed)?;
            let replayed = ppg.log_prob(mode(&c), &out).unwrap();
            prop_assert!((replayed - log_p).abs() < tolerance(mode(&c), &c));
        }
    }

    #[test]
    fn training_keeps_constraints_and_tracks_the_true_best(c in case()) {
        let dims = Dims::new(c.n, c.sessions, 8);
        let mut mem = memory(dims);
        let mut ppg = Ppg::new(&mut mem, dims, c.seed).unwrap();
        let fixed = setup(&mut ppg, &c);
        // A cost that wants the input reversed in every session.
        let n = c.n;
        let mut lowest = f64::INFINITY;
        let mut cost = |r: &[u16], _s: usize| {
            let v: f64 = r.chunks(n).map(|b| b.iter().enumerate().map(|(k, &i)| (k * i as usize) as f64).sum::<f64>()).sum();
            lowest = lowest.min(v);
            v
        };
        let config = TrainConfig { batch: 8, epochs: 10, sampler: mode(&c), ..TrainConfig::default() };
        let report = ppg.train(&mut cost, &config).unwrap();
        let (best, best_cost) = ppg.best().unwrap();
        prop_assert_eq!(best_cost, lowest);
        prop_assert_eq!(report.best_cost, lowest);
        check_ranking(best, &c, &fixed)?;
        check_ranking(ppg.reference(), &c, &fixed)?;
        for s in 0..c.sessions {
            for &(a, b) in &fixed {
                prop_assert_eq!(ppg.weight(s, a, b).unwrap(), 0.0);
            }
        }
        // The uncorrected sampler draws from a copy of the weights by reference position:
        // after training moved the weights and the reference, and after a failed run put
        // them back, a sample's own log-probability must still be the one replayed from
        // the weights themselves.
        let mut out = vec![0u16; n * c.sessions];
        let log_p = ppg.sample(SamplerMode::Uncorrected, &mut out).unwrap();
        let replayed = ppg.log_prob(SamplerMode::Uncorrected, &out).unwrap();
        prop_assert!((replayed - log_p).abs() < tolerance(SamplerMode::Uncorrected, &c));
        // Fails in the second epoch, after a step has moved the weights.
        let mut calls = 0;
        let mut failing = |r: &[u16], _: usize| {
            calls += 1;
            if calls > 8 { f64::NAN } else { r[0] as f64 }
        };
        prop_assert!(ppg.train(&mut failing, &config).is_err());
        let log_p = ppg.sample(SamplerMode::Uncorrected, &mut out).unwrap();
        let replayed = ppg.log_prob(SamplerMode::Uncorrected, &out).unwrap();
        prop_assert!((replayed - log_p).abs() < tolerance(SamplerMode::Uncorrected, &c));
    }
}
