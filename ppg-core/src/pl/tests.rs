//! Tests of [`PlackettLuce`](super::PlackettLuce): sampling frequencies against the
//! closed form, the score against finite differences, training and its transactions. One
//! file (over 400 lines) because the tests share its fixtures and each states one property.

extern crate std;

use super::*;
use std::vec;
use std::vec::Vec;

fn memory(dims: Dims) -> Vec<u8> {
    vec![0u8; PlackettLuce::bytes(dims)]
}

/// Steps `p` to its lexicographic successor; false after the last permutation.
fn next_permutation(p: &mut [u16]) -> bool {
    let Some(i) = (1..p.len()).rev().find(|&i| p[i - 1] < p[i]) else {
        return false;
    };
    let j = (i..p.len()).rev().find(|&j| p[j] > p[i - 1]).unwrap();
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

fn all_permutations(n: usize) -> Vec<Vec<u16>> {
    let mut p: Vec<u16> = (0..n as u16).collect();
    let mut all = vec![p.clone()];
    while next_permutation(&mut p) {
        all.push(p.clone());
    }
    all
}

/// Probability that item 0 is drawn first: `exp(theta_0) / sum exp(theta)`.
fn top_probability(logits: &[f32], item: usize) -> f64 {
    let z: f64 = logits.iter().map(|&t| libm::exp(f64::from(t))).sum();
    libm::exp(f64::from(logits[item])) / z
}

/// The toy objective: position of item 0 in the first session.
fn position_of_zero(n: usize) -> impl FnMut(&[u16], usize) -> f64 {
    move |r: &[u16], _| r[..n].iter().position(|&i| i == 0).unwrap() as f64
}

#[test]
fn log_prob_sums_to_one_over_all_permutations() {
    let logits = [0.3f32, -1.2, 2.0, 0.7, -0.4];
    for n in 1..=5 {
        let dims = Dims::new(n, 1, 1);
        let mut mem = memory(dims);
        let mut pl = PlackettLuce::new(&mut mem, dims, 1).unwrap();
        pl.set_logits(&logits[..n]).unwrap();
        let total: f64 = all_permutations(n)
            .iter()
            .map(|p| libm::exp(pl.log_prob(p).unwrap()))
            .sum();
        assert!((total - 1.0).abs() < 1e-9, "n = {n}: {total}");
    }
    // Sessions are independent draws: the joint over two sessions also sums to one.
    let dims = Dims::new(3, 2, 1);
    let mut mem = memory(dims);
    let mut pl = PlackettLuce::new(&mut mem, dims, 1).unwrap();
    pl.set_logits(&logits[..3]).unwrap();
    let perms = all_permutations(3);
    let mut total = 0.0;
    for a in &perms {
        for b in &perms {
            let joint: Vec<u16> = a.iter().chain(b).copied().collect();
            total += libm::exp(pl.log_prob(&joint).unwrap());
        }
    }
    assert!((total - 1.0).abs() < 1e-9, "{total}");
}

#[test]
fn score_matches_central_differences() {
    // Logits on a 1/8 grid and a power-of-two step: theta +- h is exact in f32, so the
    // difference quotient sees exactly the perturbation it assumes.
    let logits = [0.5f32, -1.25, 1.875, 0.0, -0.625, 1.0];
    let h = 1.0 / 4096.0;
    let ranking = [2u16, 0, 5, 3, 1, 4, 4, 1, 0, 2, 3, 5];
    let dims = Dims::new(6, 2, 1);
    let mut mem = memory(dims);
    let mut pl = PlackettLuce::new(&mut mem, dims, 1).unwrap();
    pl.set_logits(&logits).unwrap();
    let mut score = [0.0; 6];
    let log_p = pl.score(&ranking, &mut score).unwrap();
    assert_eq!(log_p, pl.log_prob(&ranking).unwrap());
    for i in 0..6 {
        let mut shifted = logits;
        shifted[i] = logits[i] + h as f32;
        pl.set_logits(&shifted).unwrap();
        let up = pl.log_prob(&ranking).unwrap();
        shifted[i] = logits[i] - h as f32;
        pl.set_logits(&shifted).unwrap();
        let down = pl.log_prob(&ranking).unwrap();
        let numeric = (up - down) / (2.0 * h);
        // Truncation error h^2/6 |f'''| is about 1e-8 here (|f'''| stays below the number
        // of terms, 12); rounding adds eps * |log P| / h, about 1e-11. 1e-6 leaves room for
        // both and still catches any wrong term, each of which is O(0.01) or more.
        assert!(
            (numeric - score[i]).abs() < 1e-6,
            "item {i}: {numeric} vs {}",
            score[i]
        );
    }
    // log P is unchanged when every logit moves together, so the score sums to zero.
    assert!(score.iter().sum::<f64>().abs() < 1e-12);
}

#[test]
fn extreme_logits_stay_finite() {
    // A spread of 2000 underflows `exp(theta - max)` to 0 for a whole suffix; running
    // log-sums keep every quantity finite.
    let logits = [1000.0f32, -1000.0, 0.0, 30.0, -30.0];
    let dims = Dims::new(5, 1, 1);
    let mut mem = memory(dims);
    let mut pl = PlackettLuce::new(&mut mem, dims, 3).unwrap();
    pl.set_logits(&logits).unwrap();
    for ranking in all_permutations(5) {
        let mut score = [0.0; 5];
        let log_p = pl.score(&ranking, &mut score).unwrap();
        assert!(!log_p.is_nan() && log_p <= 1e-12, "{ranking:?}: {log_p}");
        assert!(log_p.is_finite(), "{ranking:?}: {log_p}");
        assert!(
            score.iter().all(|s| s.is_finite()),
            "{ranking:?}: {score:?}"
        );
    }
    let mut out = [0u16; 5];
    let log_p = pl.sample(&mut out).unwrap();
    assert_eq!(out, [0, 3, 2, 4, 1]);
    assert!(log_p > -1e-9, "{log_p}");
}

#[test]
fn gumbel_frequencies_match_pl_probabilities() {
    let dims = Dims::new(3, 1, 1);
    let mut mem = memory(dims);
    let mut pl = PlackettLuce::new(&mut mem, dims, 2022).unwrap();
    pl.set_logits(&[0.8, 0.0, -0.5]).unwrap();
    let perms = all_permutations(3);
    let draws = 60_000;
    let mut counts = [0u32; 6];
    let mut out = [0u16; 3];
    for _ in 0..draws {
        let log_p = pl.sample(&mut out).unwrap();
        assert_eq!(log_p, pl.log_prob(&out).unwrap());
        counts[perms.iter().position(|p| p[..] == out).unwrap()] += 1;
    }
    let chi2: f64 = perms
        .iter()
        .zip(counts)
        .map(|(p, c)| {
            let expected = draws as f64 * libm::exp(pl.log_prob(p).unwrap());
            (f64::from(c) - expected).powi(2) / expected
        })
        .sum();
    // Six cells, so 5 degrees of freedom; at significance 0.001 the critical value is
    // 20.515. The seed is fixed, so this either always passes or always fails.
    assert!(chi2 < 20.515, "chi-square {chi2}, counts {counts:?}");
}

#[test]
fn same_seed_same_samples() {
    let dims = Dims::new(6, 2, 4);
    let (mut a, mut b, mut c) = (memory(dims), memory(dims), memory(dims));
    let mut pa = PlackettLuce::new(&mut a, dims, 9).unwrap();
    let mut pb = PlackettLuce::new(&mut b, dims, 9).unwrap();
    let mut pc = PlackettLuce::new(&mut c, dims, 10).unwrap();
    let logits = [0.1f32, 0.4, -0.3, 1.0, 0.0, -2.0];
    for pl in [&mut pa, &mut pb, &mut pc] {
        pl.set_logits(&logits).unwrap();
    }
    let mut differs = false;
    for _ in 0..20 {
        let (mut x, mut y, mut z) = ([0u16; 12], [0u16; 12], [0u16; 12]);
        let lx = pa.sample(&mut x).unwrap();
        let ly = pb.sample(&mut y).unwrap();
        pc.sample(&mut z).unwrap();
        assert_eq!((x, lx.to_bits()), (y, ly.to_bits()));
        differs |= x != z;
    }
    assert!(differs, "a different seed should give different draws");
}

#[test]
fn golden_samples() {
    // Like rand_xoshiro's `reference()`: the first draws of a fixed seed, on every platform.
    let dims = Dims::new(6, 2, 1);
    let mut mem = memory(dims);
    let mut pl = PlackettLuce::new(&mut mem, dims, 42).unwrap();
    pl.set_logits(&[0.5, 0.0, -0.5, 1.0, 0.25, -1.0]).unwrap();
    let mut out = [0u16; 12];
    let mut got = Vec::new();
    for _ in 0..3 {
        pl.sample(&mut out).unwrap();
        got.push(out);
    }
    // Cross-checked with an independent Python model of the same draw (SplitMix64
    // seeding, xoshiro256++, keys theta - ln(-ln u), sorted descending).
    let golden: [[u16; 12]; 3] = [
        [2, 0, 3, 4, 1, 5, 3, 5, 4, 1, 0, 2],
        [3, 0, 4, 2, 1, 5, 3, 4, 0, 1, 5, 2],
        [3, 0, 5, 4, 2, 1, 4, 1, 3, 2, 5, 0],
    ];
    assert_eq!(got, golden);
}

#[test]
fn training_puts_item_zero_on_top() {
    for baseline in [false, true] {
        let dims = Dims::new(5, 2, 16);
        let mut mem = memory(dims);
        let mut pl = PlackettLuce::new(&mut mem, dims, 11).unwrap();
        assert!((top_probability(pl.logits(), 0) - 0.2).abs() < 1e-12);
        let config = PlConfig {
            epochs: 100,
            patience: 0,
            baseline,
            ..PlConfig::default()
        };
        let report = pl.train(&mut position_of_zero(5), &config).unwrap();
        let after = top_probability(pl.logits(), 0);
        assert_eq!(report.epochs, 100);
        assert_eq!(report.samples, 1600);
        assert_eq!(report.best_cost, 0.0);
        assert_eq!(pl.best().unwrap().1, 0.0);
        assert_eq!(pl.best().unwrap().0[0], 0);
        assert!(
            after > 0.9,
            "baseline {baseline}: P(item 0 first) = {after}"
        );
    }
}

#[test]
fn patience_stops_training() {
    let dims = Dims::new(5, 1, 8);
    let mut mem = memory(dims);
    let mut pl = PlackettLuce::new(&mut mem, dims, 4).unwrap();
    let config = PlConfig {
        epochs: 1000,
        batch: 8,
        patience: 5,
        ..PlConfig::default()
    };
    let report = pl.train(&mut position_of_zero(5), &config).unwrap();
    // Cost 0 cannot be beaten, so training stops 5 epochs after it was first drawn.
    let found = report.best_epoch.unwrap();
    assert_eq!(report.epochs, found + 1 + 5);
    assert_eq!(report.samples, report.epochs * 8);
    assert_eq!(report.best_cost, 0.0);
    // The best carries over: a second call that cannot beat it reports no best epoch.
    let again = pl.train(&mut position_of_zero(5), &config).unwrap();
    assert_eq!(
        (again.epochs, again.best_epoch, again.best_cost),
        (5, None, 0.0)
    );
}

/// Fails with NaN (or infinity) on call `fail_at` (0-based), else the toy cost.
fn failing(n: usize, fail_at: usize, bad: f64) -> impl FnMut(&[u16], usize) -> f64 {
    let mut calls = 0;
    move |r: &[u16], _| {
        calls += 1;
        if calls - 1 == fail_at {
            bad
        } else {
            r[..n].iter().position(|&i| i == 0).unwrap() as f64
        }
    }
}

#[test]
fn failed_training_restores_everything() {
    let dims = Dims::new(5, 2, 8);
    let (mut ma, mut mb) = (memory(dims), memory(dims));
    let mut a = PlackettLuce::new(&mut ma, dims, 5).unwrap();
    let mut b = PlackettLuce::new(&mut mb, dims, 5).unwrap();
    let config = PlConfig {
        epochs: 10,
        batch: 8,
        patience: 0,
        baseline: true,
        ..PlConfig::default()
    };
    // Some history first, so that moments, step count and best are all non-trivial.
    for pl in [&mut a, &mut b] {
        pl.set_logits(&[0.0, 0.5, 1.0, -0.5, 0.25]).unwrap();
        pl.train(&mut position_of_zero(5), &config).unwrap();
        pl.sample_batch(3).unwrap();
    }
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(
            a.train(&mut failing(5, 29, bad), &config),
            Err(Error::NotFinite { index: 29 })
        );
    }
    assert_eq!(a.logits(), b.logits());
    assert_eq!(a.best(), b.best());
    assert_eq!((a.pending(), a.batch()), (b.pending(), b.batch()));
    // Moments and step count: the same update gives the same logits, bit for bit.
    let costs = [3.0, 1.0, 2.0];
    a.update(&costs, &config).unwrap();
    b.update(&costs, &config).unwrap();
    assert_eq!(a.logits(), b.logits());
    // The generator: the next draws agree.
    let (mut x, mut y) = ([0u16; 10], [0u16; 10]);
    assert_eq!(
        a.sample(&mut x).unwrap().to_bits(),
        b.sample(&mut y).unwrap().to_bits()
    );
    assert_eq!(x, y);
    let ra = a.train(&mut position_of_zero(5), &config).unwrap();
    let rb = b.train(&mut position_of_zero(5), &config).unwrap();
    assert_eq!(ra, rb);
    assert_eq!(a.logits(), b.logits());
}

#[test]
fn train_equals_the_step_wise_loop() {
    for baseline in [false, true] {
        let dims = Dims::new(6, 3, 4);
        let (mut ma, mut mb) = (memory(dims), memory(dims));
        let mut a = PlackettLuce::new(&mut ma, dims, 77).unwrap();
        let mut b = PlackettLuce::new(&mut mb, dims, 77).unwrap();
        // A cost with a large common offset exercises the pivot.
        let mut cost = |r: &[u16], _: usize| {
            1e6 + r
                .iter()
                .enumerate()
                .map(|(p, &i)| (p % 6) as f64 * f64::from(i))
                .sum::<f64>()
        };
        let config = PlConfig {
            epochs: 7,
            batch: 4,
            patience: 0,
            baseline,
            ..PlConfig::default()
        };
        let report = a.train(&mut cost, &config).unwrap();
        let mut best = f64::INFINITY;
        for _ in 0..7 {
            b.sample_batch(4).unwrap();
            let mut costs = [0.0; 4];
            for (c, r) in costs.iter_mut().zip(b.batch().chunks_exact(18)) {
                *c = cost(r, 3);
                best = best.min(*c);
            }
            b.update(&costs, &config).unwrap();
        }
        assert_eq!(a.logits(), b.logits());
        assert_eq!(a.best(), b.best());
        assert_eq!(report.best_cost, best);
    }
}

#[test]
fn update_checks_everything_first() {
    let dims = Dims::new(4, 1, 4);
    let mut mem = memory(dims);
    let mut pl = PlackettLuce::new(&mut mem, dims, 8).unwrap();
    let config = PlConfig::default(); // batch 16 > dims.batch: update does not care
    assert_eq!(pl.update(&[1.0], &config), Err(Error::NoPendingBatch));
    assert_eq!(pl.sample_batch(0), Err(Error::Empty));
    assert_eq!(
        pl.sample_batch(5),
        Err(Error::Capacity {
            requested: 5,
            capacity: 4
        })
    );
    pl.sample_batch(2).unwrap();
    let batch: Vec<u16> = pl.batch().to_vec();
    assert_eq!(batch.len(), 8);
    for block in batch.chunks_exact(4) {
        assert!(pl.log_prob(block).is_ok());
    }
    assert_eq!(
        pl.update(&[1.0], &config),
        Err(Error::LengthMismatch {
            expected: 2,
            found: 1
        })
    );
    assert_eq!(
        pl.update(&[1.0, f64::NAN], &config),
        Err(Error::NotFinite { index: 1 })
    );
    let bad = PlConfig { eps: 0.0, ..config };
    assert!(matches!(
        pl.update(&[1.0, 2.0], &bad),
        Err(Error::InvalidConfig(_))
    ));
    assert_eq!(pl.logits(), &[0.0; 4]);
    assert_eq!(pl.best(), None);
    assert_eq!(pl.batch(), &batch[..]);
    pl.update(&[1.0, 2.0], &config).unwrap();
    assert_eq!(pl.pending(), 0);
    assert!(pl.batch().is_empty());
    assert_eq!(pl.best(), Some((&batch[..4], 1.0)));
    assert_ne!(pl.logits(), &[0.0; 4]);
    assert_eq!(pl.update(&[1.0, 2.0], &config), Err(Error::NoPendingBatch));
    // New logits drop a pending batch drawn from the old policy.
    pl.sample_batch(1).unwrap();
    pl.set_logits(&[0.0; 4]).unwrap();
    assert_eq!(pl.pending(), 0);
}

#[test]
fn config_check() {
    let dims = Dims::new(4, 1, 16);
    let ok = PlConfig::default();
    assert_eq!(ok.check(dims), Ok(()));
    assert!(ok.check(Dims::new(4, 1, 8)).is_err());
    let bad = [
        PlConfig { batch: 0, ..ok },
        PlConfig { batch: 17, ..ok },
        PlConfig { lr: -0.1, ..ok },
        PlConfig { lr: f32::NAN, ..ok },
        PlConfig {
            lr: f32::INFINITY,
            ..ok
        },
        PlConfig { beta1: 1.0, ..ok },
        PlConfig { beta1: -0.1, ..ok },
        PlConfig {
            beta2: f32::NAN,
            ..ok
        },
        PlConfig { eps: 0.0, ..ok },
        PlConfig {
            eps: f32::INFINITY,
            ..ok
        },
    ];
    for config in bad {
        assert!(
            matches!(config.check(dims), Err(Error::InvalidConfig(_))),
            "{config:?}"
        );
    }
    let mut mem = memory(dims);
    let mut pl = PlackettLuce::new(&mut mem, dims, 1).unwrap();
    let mut cost = |_: &[u16], _: usize| 0.0;
    assert!(matches!(
        pl.train(&mut cost, &bad[0]),
        Err(Error::InvalidConfig(_))
    ));
    // Zero epochs or a zero learning rate are legal and change no logit.
    let report = pl.train(&mut cost, &PlConfig { epochs: 0, ..ok }).unwrap();
    assert_eq!(
        (report.epochs, report.samples, report.best_epoch),
        (0, 0, None)
    );
    pl.train(
        &mut cost,
        &PlConfig {
            lr: 0.0,
            epochs: 3,
            ..ok
        },
    )
    .unwrap();
    assert_eq!(pl.logits(), &[0.0; 4]);
}

#[test]
fn rankings_and_logits_are_validated() {
    let dims = Dims::new(4, 2, 1);
    let mut mem = memory(dims);
    let mut pl = PlackettLuce::new(&mut mem, dims, 1).unwrap();
    assert_eq!(
        pl.log_prob(&[0, 1, 2, 3]),
        Err(Error::LengthMismatch {
            expected: 8,
            found: 4
        })
    );
    assert_eq!(
        pl.log_prob(&[0, 1, 2, 3, 0, 1, 2, 4]),
        Err(Error::ItemOutOfRange { item: 4, items: 4 })
    );
    assert_eq!(
        pl.log_prob(&[0, 1, 2, 3, 0, 1, 1, 3]),
        Err(Error::NotPermutation)
    );
    let mut score = [0.0; 3];
    assert_eq!(
        pl.score(&[0, 1, 2, 3, 0, 1, 2, 3], &mut score),
        Err(Error::LengthMismatch {
            expected: 4,
            found: 3
        })
    );
    assert_eq!(
        pl.set_logits(&[0.0; 3]),
        Err(Error::LengthMismatch {
            expected: 4,
            found: 3
        })
    );
    assert_eq!(
        pl.set_logits(&[0.0, 1.0, f32::NAN, 0.0]),
        Err(Error::NotFinite { index: 2 })
    );
    assert_eq!(
        pl.sample(&mut [0u16; 4]),
        Err(Error::LengthMismatch {
            expected: 8,
            found: 4
        })
    );
    assert_eq!(
        pl.mode(&mut [0u16; 9]),
        Err(Error::LengthMismatch {
            expected: 8,
            found: 9
        })
    );
    // Uniform policy: every ranking of a session has probability 1/4!.
    let log_p = pl.log_prob(&[3, 2, 1, 0, 0, 1, 2, 3]).unwrap();
    assert!((log_p - 2.0 * libm::log(1.0 / 24.0)).abs() < 1e-12);

    // Duplicates beyond the first 4096-id window of the validator.
    let n = 5000;
    let big = Dims::new(n, 1, 1);
    let mut mem = memory(big);
    let pl = PlackettLuce::new(&mut mem, big, 1).unwrap();
    let mut ranking: Vec<u16> = (0..n as u16).rev().collect();
    assert!(pl.log_prob(&ranking).is_ok());
    ranking[10] = 4500;
    assert_eq!(pl.log_prob(&ranking), Err(Error::NotPermutation));
}

#[test]
fn memory_layout() {
    let dims = Dims::new(7, 3, 5);
    let needed = PlackettLuce::bytes(dims);
    let mut mem = vec![0u8; needed + 8];
    assert!(matches!(
        PlackettLuce::new(&mut mem[..needed - 1], dims, 1),
        Err(Error::MemoryTooSmall { needed: n, available }) if n == needed && available == needed - 1
    ));
    // Any start address works with exactly `bytes` bytes.
    for offset in 0..8 {
        let mut pl = PlackettLuce::new(&mut mem[offset..offset + needed], dims, 1).unwrap();
        pl.sample_batch(5).unwrap();
        assert_eq!(pl.batch().len(), 5 * 21);
    }
    assert_eq!(
        PlackettLuce::new(&mut mem, Dims::new(0, 1, 1), 1).err(),
        Some(Error::Empty)
    );
}

#[test]
fn start_sets_a_smaller_query() {
    let dims = Dims::new(8, 4, 4);
    let mut mem = memory(dims);
    let mut pl = PlackettLuce::new(&mut mem, dims, 1).unwrap();
    assert_eq!((pl.items(), pl.sessions()), (8, 4));
    pl.train(
        &mut position_of_zero(8),
        &PlConfig {
            batch: 4,
            epochs: 3,
            ..PlConfig::default()
        },
    )
    .unwrap();
    assert_eq!(
        pl.start(&[0.0; 9], 2),
        Err(Error::Capacity {
            requested: 9,
            capacity: 8
        })
    );
    assert_eq!(
        pl.start(&[0.0; 5], 5),
        Err(Error::Capacity {
            requested: 5,
            capacity: 4
        })
    );
    assert_eq!(pl.start(&[], 2), Err(Error::Empty));
    assert_eq!(pl.start(&[0.0; 5], 0), Err(Error::Empty));
    pl.start(&[1.0, 0.5, 0.0, -0.5, -1.0], 2).unwrap();
    assert_eq!((pl.items(), pl.sessions()), (5, 2));
    assert_eq!(pl.best(), None);
    let mut out = [0u16; 10];
    pl.sample(&mut out).unwrap();
    assert!(pl.log_prob(&out).is_ok());
    let report = pl
        .train(
            &mut position_of_zero(5),
            &PlConfig {
                batch: 4,
                ..PlConfig::default()
            },
        )
        .unwrap();
    assert_eq!(report.best_cost, 0.0);
    assert_eq!(pl.best().unwrap().0.len(), 10);
}

#[test]
fn mode_is_the_most_probable_ranking() {
    let dims = Dims::new(4, 2, 1);
    let mut mem = memory(dims);
    let mut pl = PlackettLuce::new(&mut mem, dims, 1).unwrap();
    pl.set_logits(&[0.2, 1.5, 0.2, -0.3]).unwrap();
    let mut out = [0u16; 8];
    pl.mode(&mut out).unwrap();
    assert_eq!(out, [1, 0, 2, 3, 1, 0, 2, 3]);
    let best = pl.log_prob(&out).unwrap() / 2.0;
    for p in all_permutations(4) {
        let twice: Vec<u16> = p.iter().chain(&p).copied().collect();
        assert!(pl.log_prob(&twice).unwrap() / 2.0 <= best + 1e-12);
    }
}
