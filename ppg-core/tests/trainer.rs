//! Training: reaching optima, transactional errors, determinism.

mod support;

use ppg_core::objective::{exposure, Eel, RankStart};
use ppg_core::{Dims, Error, Gradient, Objective, Ppg, SamplerMode, TrainConfig};
use support::memory;

/// Number of pairs out of the target order `0..n` reversed, summed over sessions.
fn distance_to_reverse(ranking: &[u16], n: usize) -> f64 {
    ranking
        .chunks(n)
        .map(|b| {
            let mut d = 0;
            for i in 0..n {
                for j in i + 1..n {
                    if b[i] < b[j] {
                        d += 1;
                    }
                }
            }
            d as f64
        })
        .sum()
}

fn all_recipes() -> Vec<TrainConfig> {
    let mut out = Vec::new();
    for sampler in [SamplerMode::Uncorrected, SamplerMode::Corrected] {
        for gradient in [Gradient::Approximate, Gradient::Exact] {
            for baseline in [false, true] {
                out.push(TrainConfig {
                    sampler,
                    gradient,
                    baseline,
                    ..TrainConfig::default()
                });
            }
        }
    }
    out
}

#[test]
fn with_the_baseline_every_recipe_finds_the_reversed_list_of_six_in_two_sessions() {
    let (n, sessions) = (6, 2);
    // Without the baseline the costs are all positive and the estimate's variance keeps three
    // of the four recipes 1 to 3 swaps away after 300 epochs (seed 17). With it, over seeds
    // 0 to 199 the uncorrected recipes reached 0 at a median epoch of 5 to 6 and a 90th
    // percentile of 8 to 12 (max 24); seed 17 must do so before epoch 30. Only the baseline
    // recipes are asserted.
    for config in all_recipes().into_iter().filter(|c| c.baseline) {
        let dims = Dims::new(n, sessions, 16);
        let mut mem = memory(dims);
        let mut ppg = Ppg::new(&mut mem, dims, 17).unwrap();
        ppg.start(n, sessions, 0.5).unwrap();
        let config = TrainConfig {
            epochs: 300,
            patience: 0,
            ..config
        };
        let report = ppg
            .train(&mut |r: &[u16], _| distance_to_reverse(r, n), &config)
            .unwrap();
        assert_eq!(report.best_cost, 0.0, "{config:?}");
        assert!(report.best_epoch.unwrap() < 30, "{config:?}: {report:?}");
        assert_eq!(ppg.best().unwrap().0, [5, 4, 3, 2, 1, 0, 5, 4, 3, 2, 1, 0]);
    }
}

#[test]
fn patience_stops_training_and_the_report_counts_samples() {
    let dims = Dims::new(5, 1, 16);
    let mut mem = memory(dims);
    let mut ppg = Ppg::new(&mut mem, dims, 1).unwrap();
    ppg.start(5, 1, 0.5).unwrap();
    // A constant cost: the first epoch sets the best, nothing beats it afterwards.
    let config = TrainConfig {
        patience: 3,
        ..TrainConfig::default()
    };
    let report = ppg.train(&mut |_: &[u16], _| 1.0, &config).unwrap();
    assert_eq!(report.epochs, 4);
    assert_eq!(report.samples, 64);
    assert_eq!(report.best_epoch, Some(0));
}

#[test]
fn scoring_the_input_keeps_it_when_nothing_beats_it() {
    let dims = Dims::new(6, 1, 16);
    let mut mem = memory(dims);
    let mut ppg = Ppg::new(&mut mem, dims, 1).unwrap();
    ppg.start(6, 1, 0.5).unwrap();
    let input_is_best = |r: &[u16], _: usize| 15.0 - distance_to_reverse(r, 6);
    let config = TrainConfig {
        score_input: true,
        ..TrainConfig::default()
    };
    let report = ppg.train(&mut { input_is_best }, &config).unwrap();
    assert_eq!(report.best_epoch, None);
    assert_eq!(ppg.best().unwrap(), (&[0u16, 1, 2, 3, 4, 5][..], 0.0));
}

/// Two engines with the same seed; `spoiled` sees `mishap`, `clean` does not. Afterwards
/// both must sample the same sequence and hold the same state, the pending batch of either
/// sampler included (a failed training run draws it again rather than keeping a copy).
fn assert_unchanged_by(mishap: impl Fn(&mut Ppg) -> Error, expected: Error) {
    for mode in [SamplerMode::Corrected, SamplerMode::Uncorrected] {
        assert_unchanged_in(mode, &mishap, &expected);
    }
}

fn assert_unchanged_in(mode: SamplerMode, mishap: impl Fn(&mut Ppg) -> Error, expected: &Error) {
    let (n, sessions) = (7, 2);
    let dims = Dims::new(n, sessions, 16);
    let (mut a, mut b) = (memory(dims), memory(dims));
    let mut spoiled = Ppg::new(&mut a, dims, 9).unwrap();
    let mut clean = Ppg::new(&mut b, dims, 9).unwrap();
    for ppg in [&mut spoiled, &mut clean] {
        ppg.start(n, sessions, 0.5).unwrap();
        ppg.forbid(0, 6).unwrap();
        ppg.train(
            &mut |r: &[u16], _| distance_to_reverse(r, n),
            &TrainConfig {
                epochs: 5,
                ..TrainConfig::default()
            },
        )
        .unwrap();
        // Tables built, then one of them updated in place by `set_weight`: the batch drawn
        // again after a failed run comes from tables rebuilt whole.
        ppg.sample(SamplerMode::Uncorrected, &mut [0; 14]).unwrap();
        ppg.set_weight(1, 2, 5, 0.3).unwrap();
        ppg.sample_batch(3, mode).unwrap();
    }
    assert_eq!(&mishap(&mut spoiled), expected);
    assert_eq!(spoiled.batch().len(), 3 * n * sessions);
    assert_eq!(spoiled.batch(), clean.batch());
    assert_eq!(spoiled.batch_log_probs(), clean.batch_log_probs());
    assert_eq!(spoiled.reference(), clean.reference());
    assert_eq!(spoiled.best(), clean.best());
    for s in 0..sessions {
        for x in 0..n {
            for y in x + 1..n {
                assert_eq!(spoiled.weight(s, x, y), clean.weight(s, x, y));
            }
        }
    }
    let (mut r1, mut r2) = (vec![0u16; n * sessions], vec![0u16; n * sessions]);
    for _ in 0..5 {
        spoiled.sample(SamplerMode::Uncorrected, &mut r1).unwrap();
        clean.sample(SamplerMode::Uncorrected, &mut r2).unwrap();
        assert_eq!(r1, r2);
    }
}

#[test]
fn an_objective_returning_nan_late_in_training_changes_nothing() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_unchanged_by(
            |ppg| {
                let mut calls = 0;
                let mut cost = |r: &[u16], _: usize| {
                    calls += 1;
                    if calls == 100 {
                        bad
                    } else {
                        distance_to_reverse(r, 7)
                    }
                };
                ppg.train(&mut cost, &TrainConfig::default()).unwrap_err()
            },
            Error::NotFinite { index: 3 },
        );
    }
}

/// `distance_to_reverse` of lists of `n`, as an objective that adds up in single precision
/// (`Objective::single`), returning `bad` at its call number `bad_at` (none when 0).
struct Single {
    n: usize,
    calls: u32,
    bad_at: u32,
    bad: f32,
}

impl Objective for Single {
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        f64::from(self.cost_single(ranking, sessions))
    }
    fn single(&self) -> bool {
        true
    }
    fn cost_single(&mut self, ranking: &[u16], _: usize) -> f32 {
        self.calls += 1;
        if self.calls == self.bad_at {
            self.bad
        } else {
            distance_to_reverse(ranking, self.n) as f32
        }
    }
}

#[test]
fn a_single_precision_objective_returning_nan_late_in_training_changes_nothing() {
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        assert_unchanged_by(
            |ppg| {
                let mut cost = Single {
                    n: 7,
                    calls: 0,
                    bad_at: 100,
                    bad,
                };
                ppg.train(&mut cost, &TrainConfig::default()).unwrap_err()
            },
            Error::NotFinite { index: 3 },
        );
    }
}

/// A single-precision objective (EEL in `f32`) keeps the run's bookkeeping in `f32`. With
/// a batch of 16 and no baseline each share, `cost / 16`, is the same in either precision,
/// so the run equals, to the bit, the one that keeps the same costs widened to `f64` (the
/// objective behind a closure, which is not single): the golden query, four recipes.
#[test]
fn a_single_precision_objective_trains_as_its_costs_widened() {
    let utility = [4.0, 4.0, 3.0, 3.0, 2.0, 1.0, 1.0, 0.0, 0.0, 0.0];
    let group = [0u8, 0, 0, 1, 0, 0, 1, 1, 0, 1];
    let mut table = [0f64; 10];
    exposure::fill(RankStart::One, &mut table);
    let table = table.map(|e| e as f32);
    let recipes = [
        TrainConfig::default(),
        TrainConfig {
            gradient: Gradient::Exact,
            ..TrainConfig::default()
        },
        TrainConfig {
            grow: true,
            score_input: true,
            ..TrainConfig::default()
        },
        TrainConfig {
            sampler: SamplerMode::Corrected,
            epochs: 20,
            ..TrainConfig::default()
        },
    ];
    /// The EEL, counting the calls of each precision.
    struct Counted<'e> {
        eel: Eel<'e, f32>,
        double: u32,
        single: u32,
    }
    impl Objective for Counted<'_> {
        fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
            self.double += 1;
            self.eel.cost(ranking, sessions)
        }
        fn single(&self) -> bool {
            self.eel.single()
        }
        fn cost_single(&mut self, ranking: &[u16], sessions: usize) -> f32 {
            self.single += 1;
            self.eel.cost_single(ranking, sessions)
        }
    }
    let dims = Dims::new(10, 4, 16);
    for config in recipes {
        let mut eel = Counted {
            eel: Eel::<f32>::new(&utility, &group, 5, &table).unwrap(),
            double: 0,
            single: 0,
        };
        let (mut a, mut b) = (memory(dims), memory(dims));
        let mut single = Ppg::new(&mut a, dims, 42).unwrap();
        let mut double = Ppg::new(&mut b, dims, 42).unwrap();
        for ppg in [&mut single, &mut double] {
            ppg.start(10, 4, 0.5).unwrap();
            ppg.keep_order_within(&group).unwrap();
        }
        let by_single = single.train(&mut eel, &config).unwrap();
        // Every sample's cost came in single precision; a grown run's copies of the best so
        // far, costed (and counted as samples) between its stages, in `f64`.
        assert_eq!(eel.single + eel.double, by_single.samples, "{config:?}");
        assert!(config.grow || eel.double == 0, "{config:?}");
        let mut widened = |r: &[u16], s: usize| eel.eel.cost(r, s);
        let by_double = double.train(&mut widened, &config).unwrap();
        assert_eq!(by_single, by_double, "{config:?}");
        assert_eq!(single.best(), double.best(), "{config:?}");
        for s in 0..4 {
            for x in 0..10 {
                for y in x + 1..10 {
                    assert_eq!(single.weight(s, x, y), double.weight(s, x, y));
                }
            }
        }
    }
}

/// The single-precision baseline is the batch's mean: a cost that never changes then
/// gives every sample a share of 0, and no weight moves (without it, every weight does).
#[test]
fn a_single_precision_baseline_cancels_a_constant_cost() {
    struct Constant;
    impl Objective for Constant {
        fn cost(&mut self, _: &[u16], _: usize) -> f64 {
            0.75
        }
        fn single(&self) -> bool {
            true
        }
    }
    let (n, sessions) = (6, 2);
    let dims = Dims::new(n, sessions, 16);
    for baseline in [true, false] {
        let mut mem = memory(dims);
        let mut ppg = Ppg::new(&mut mem, dims, 3).unwrap();
        ppg.start(n, sessions, 0.5).unwrap();
        let config = TrainConfig {
            baseline,
            epochs: 3,
            ..TrainConfig::default()
        };
        ppg.train(&mut Constant, &config).unwrap();
        let moved = (0..n).any(|x| (x + 1..n).any(|y| ppg.weight(0, x, y).unwrap() != 0.5));
        assert_eq!(moved, !baseline, "baseline {baseline}");
    }
}

#[test]
fn bad_updates_change_nothing() {
    assert_unchanged_by(
        |ppg| {
            ppg.update(&[1.0, f64::NAN, 2.0], &TrainConfig::default())
                .unwrap_err()
        },
        Error::NotFinite { index: 1 },
    );
    assert_unchanged_by(
        |ppg| {
            ppg.update(&[1.0, 2.0], &TrainConfig::default())
                .unwrap_err()
        },
        Error::LengthMismatch {
            expected: 3,
            found: 2,
        },
    );
    assert_unchanged_by(
        |ppg| {
            ppg.update(
                &[1.0; 3],
                &TrainConfig {
                    learning_rate: f32::NAN,
                    ..TrainConfig::default()
                },
            )
            .unwrap_err()
        },
        Error::InvalidConfig("learning_rate must be finite and >= 0"),
    );
    assert_unchanged_by(
        |ppg| ppg.sample_batch(17, SamplerMode::Corrected).unwrap_err(),
        Error::Capacity {
            requested: 17,
            capacity: 16,
        },
    );
    assert_unchanged_by(
        |ppg| ppg.start(8, 2, 0.5).unwrap_err(),
        Error::Capacity {
            requested: 8,
            capacity: 7,
        },
    );
    assert_unchanged_by(|ppg| ppg.start(0, 2, 0.5).unwrap_err(), Error::Empty);
    assert_unchanged_by(|ppg| ppg.start(7, 0, 0.5).unwrap_err(), Error::Empty);
    assert_unchanged_by(
        |ppg| ppg.forbid(2, 7).unwrap_err(),
        Error::ItemOutOfRange { item: 7, items: 7 },
    );
    assert_unchanged_by(|ppg| ppg.forbid(2, 2).unwrap_err(), Error::SamePair);
    assert_unchanged_by(
        |ppg| ppg.keep_order_within(&[0u8; 6]).unwrap_err(),
        Error::LengthMismatch {
            expected: 7,
            found: 6,
        },
    );
    assert_unchanged_by(
        |ppg| {
            ppg.log_prob(
                SamplerMode::Corrected,
                &[0, 1, 2, 3, 4, 5, 5, 0, 1, 2, 3, 4, 5, 6],
            )
            .unwrap_err()
        },
        Error::NotPermutation,
    );
    assert_unchanged_by(
        |ppg| {
            ppg.log_prob(
                SamplerMode::Corrected,
                &[0, 1, 2, 3, 4, 5, 9, 0, 1, 2, 3, 4, 5, 6],
            )
            .unwrap_err()
        },
        Error::ItemOutOfRange { item: 9, items: 7 },
    );
    assert_unchanged_by(
        |ppg| {
            ppg.sample(SamplerMode::Corrected, &mut [0u16; 13])
                .unwrap_err()
        },
        Error::LengthMismatch {
            expected: 14,
            found: 13,
        },
    );
    assert_unchanged_by(
        |ppg| ppg.set_weight(0, 1, 2, f32::NAN).unwrap_err(),
        Error::NotProbability { index: 0 },
    );
}

#[test]
fn update_without_a_pending_batch_and_train_before_start_are_refused() {
    let dims = Dims::new(4, 1, 4);
    let mut mem = memory(dims);
    let mut ppg = Ppg::new(&mut mem, dims, 1).unwrap();
    assert_eq!(
        ppg.train(
            &mut |_: &[u16], _| 0.0,
            &TrainConfig {
                batch: 4,
                ..TrainConfig::default()
            }
        ),
        Err(Error::Empty)
    );
    ppg.start(4, 1, 0.5).unwrap();
    assert_eq!(
        ppg.update(&[1.0], &TrainConfig::default()),
        Err(Error::NoPendingBatch)
    );
    ppg.sample_batch(2, SamplerMode::Uncorrected).unwrap();
    ppg.update(
        &[1.0, 0.5],
        &TrainConfig {
            batch: 4,
            ..TrainConfig::default()
        },
    )
    .unwrap();
    assert_eq!(
        ppg.update(&[1.0, 0.5], &TrainConfig::default()),
        Err(Error::NoPendingBatch)
    );
}

/// A batch drawn from weights that have since changed is dropped: it could not be drawn
/// again to undo a failed run, and a step on it would follow another distribution's
/// gradient. A training run drops it too; a failed call that changes nothing keeps it.
#[test]
fn changing_the_distribution_or_training_drops_the_pending_batch() {
    let (n, sessions) = (6, 2);
    let dims = Dims::new(n, sessions, 4);
    let mut mem = memory(dims);
    let mut ppg = Ppg::new(&mut mem, dims, 3).unwrap();
    ppg.start(n, sessions, 0.5).unwrap();
    let groups = [0u8, 0, 1, 1, 0, 1];
    type Change<'g> = dyn Fn(&mut Ppg) -> Result<(), Error> + 'g;
    let changes: [&Change; 5] = [
        &|p| p.set_weight(1, 0, 3, 0.2),
        &|p| p.forbid(1, 4),
        &|p| p.keep_order_within(&groups),
        &|p| p.keep_order_between(&groups),
        &|p| {
            let config = TrainConfig {
                epochs: 2,
                batch: 4,
                ..TrainConfig::default()
            };
            p.train(&mut |r: &[u16], _| distance_to_reverse(r, n), &config)
                .map(|_| ())
        },
    ];
    for change in changes {
        ppg.sample_batch(2, SamplerMode::Uncorrected).unwrap();
        assert_eq!(
            ppg.set_weight(1, 0, 3, 2.0),
            Err(Error::NotProbability { index: 0 })
        );
        assert_eq!(ppg.batch().len(), 2 * n * sessions);
        change(&mut ppg).unwrap();
        assert!(ppg.batch().is_empty() && ppg.batch_log_probs().is_empty());
        assert_eq!(
            ppg.update(&[1.0, 0.5], &TrainConfig::default()),
            Err(Error::NoPendingBatch)
        );
    }
}

#[test]
fn memory_and_shape_errors_are_reported() {
    let dims = Dims::new(10, 2, 4);
    let mut small = vec![0u8; Ppg::bytes(dims) - 1];
    assert!(matches!(
        Ppg::new(&mut small, dims, 0),
        Err(Error::MemoryTooSmall { .. })
    ));
    let mut mem = vec![0u8; 64];
    assert_eq!(
        Ppg::new(&mut mem, Dims::new(0, 1, 1), 0).err(),
        Some(Error::Empty)
    );
    assert!(matches!(
        Ppg::new(&mut mem, Dims::new(70_000, 1, 1), 0),
        Err(Error::Capacity { .. })
    ));
    // Absurd shapes size to "too large" instead of overflowing.
    assert_eq!(
        Ppg::bytes(Dims::new(usize::MAX, usize::MAX, usize::MAX)),
        usize::MAX
    );
    assert_eq!(
        ppg_core::PlackettLuce::bytes(Dims::new(usize::MAX, usize::MAX, usize::MAX)),
        usize::MAX
    );
    assert!(matches!(
        Ppg::new(&mut mem, Dims::new(65_535, 1 << 20, 1 << 20), 0),
        Err(Error::Capacity { .. }) | Err(Error::MemoryTooSmall { .. })
    ));
    // Any start address works: the layout counts its own alignment padding.
    let mut big = vec![0u8; Ppg::bytes(dims) + 8];
    for offset in 0..8 {
        let end = offset + Ppg::bytes(dims);
        assert!(
            Ppg::new(&mut big[offset..end], dims, 0).is_ok(),
            "offset {offset}"
        );
    }
}

/// The step's scratch and the sampler's shared region hold what the last query left: an
/// engine that trained a longer query first must train the next one as a fresh engine
/// does, for every sampler, gradient and growth (the approximate step's empty-subset
/// entries once relied on zeroed memory).
#[test]
fn an_engine_that_trained_a_longer_query_trains_the_next_as_a_fresh_one() {
    let dims = Dims::new(30, 4, 16);
    let run = |ppg: &mut Ppg, n: usize, config: &TrainConfig| {
        ppg.reseed(5);
        ppg.start(n, 4, 0.5).unwrap();
        let groups: Vec<u8> = (0..n).map(|i| u8::from(i % 3 == 0)).collect();
        ppg.keep_order_within(&groups).unwrap();
        let report = ppg
            .train(&mut |r: &[u16], _| distance_to_reverse(r, n), config)
            .unwrap();
        (report, ppg.best().unwrap().0.to_vec())
    };
    for sampler in [SamplerMode::Uncorrected, SamplerMode::Corrected] {
        for gradient in [Gradient::Exact, Gradient::Approximate] {
            for grow in [false, true] {
                let config = TrainConfig {
                    sampler,
                    gradient,
                    grow,
                    ..TrainConfig::default()
                };
                let (mut a, mut b) = (memory(dims), memory(dims));
                let mut reused = Ppg::new(&mut a, dims, 1).unwrap();
                let mut fresh = Ppg::new(&mut b, dims, 1).unwrap();
                run(&mut reused, 22, &config);
                assert_eq!(
                    run(&mut reused, 14, &config),
                    run(&mut fresh, 14, &config),
                    "{sampler:?} {gradient:?} grow {grow}"
                );
            }
        }
    }
}
