//! Training with the intra-group order held first (`Ppg::hold_order_within`): the first run
//! is the constrained run, the second can only improve on it, the held pairs are free
//! afterwards, and a failure anywhere changes nothing.

mod support;

use ppg_core::{Dims, Error, Objective, Ppg, SamplerMode, TrainConfig, TrainReport};
use support::{memory, TestRng};

/// A cost that the intra-group order keeps away from 0: the rank of the last item of group
/// 1 (in input order), averaged over sessions. Held, it can rise no higher than the number
/// of group-1 items before it; free, it can reach the top.
fn last_of_group_one(group: &[u8]) -> impl FnMut(&[u16], usize) -> f64 + '_ {
    let last = group.iter().rposition(|&g| g == 1).unwrap() as u16;
    move |ranking: &[u16], sessions: usize| {
        let n = group.len();
        let ranks: usize = ranking
            .chunks_exact(n)
            .map(|block| block.iter().position(|&i| i == last).unwrap())
            .sum();
        ranks as f64 / sessions as f64
    }
}

fn group(rng: &mut TestRng, n: usize) -> Vec<u8> {
    loop {
        let group: Vec<u8> = (0..n).map(|_| u8::from(rng.unit() < 0.5)).collect();
        if group.iter().filter(|&&g| g == 1).count() >= 2 && group.contains(&0) {
            return group;
        }
    }
}

fn recipe(grow: bool) -> TrainConfig {
    TrainConfig {
        score_input: true,
        grow,
        ..TrainConfig::default()
    }
}

/// How the group order is imposed on a fresh engine.
#[derive(Clone, Copy)]
enum Order {
    Kept,
    Held,
}

// The test's whole set-up, spelled out at each call: a struct for it would only rename it.
#[allow(clippy::too_many_arguments)]
fn train(
    mem: &mut [u8],
    dims: Dims,
    seed: u64,
    group: &[u8],
    sessions: usize,
    order: Order,
    cost: &mut impl Objective,
    config: &TrainConfig,
) -> (TrainReport, Vec<u16>) {
    let mut ppg = Ppg::new(mem, dims, seed).unwrap();
    ppg.start(group.len(), sessions, 0.5).unwrap();
    match order {
        Order::Kept => ppg.keep_order_within(group).unwrap(),
        Order::Held => ppg.hold_order_within(group).unwrap(),
    }
    let report = ppg.train(cost, config).unwrap();
    (report, ppg.best().unwrap().0.to_vec())
}

/// Over random lists, 1 and 4 sessions, grown and not: the held run's first part is the
/// kept run (same seed; grown, each stage's first part is the kept run's stage), so it
/// scores every ranking the kept run scores first and its best is never worse; the free
/// part then goes below the constrained floor on most lists.
#[test]
fn held_is_the_kept_run_then_better() {
    let n = 9;
    let dims = Dims::new(n, 4, 16);
    let mut rng = TestRng(21);
    let (mut below, mut cases) = (0, 0);
    for seed in 0..12 {
        let group = group(&mut rng, n);
        let last = group.iter().rposition(|&g| g == 1).unwrap();
        let floor = group[..last].iter().filter(|&&g| g == 1).count() as f64;
        for (sessions, grow) in [(1, false), (4, false), (4, true)] {
            let config = recipe(grow);
            let mut calls = Vec::new();
            let mut results = Vec::new();
            for order in [Order::Kept, Order::Held] {
                let mut seen = Vec::new();
                let mut cost = |r: &[u16], s: usize| {
                    seen.push(r.to_vec());
                    last_of_group_one(&group)(r, s)
                };
                let mut mem = memory(dims);
                let (report, best) = train(
                    &mut mem, dims, seed, &group, sessions, order, &mut cost, &config,
                );
                assert_eq!(report.samples as usize, seen.len());
                calls.push(seen);
                results.push((report, best));
            }
            let (kept, held) = (&results[0].0, &results[1].0);
            let tag = format!("seed {seed}, {sessions} sessions, grow {grow}");
            assert!(kept.best_cost >= floor, "{tag}: {kept:?}");
            if grow {
                // Each stage's held part is the kept run's stage: at each session count the
                // kept run's training calls begin the held run's (after the copy of the
                // stage before, which each run deals out of its own answer).
                for s in [1, 2, 4].into_iter().filter(|&s| s <= sessions) {
                    let at = |run: &[Vec<u16>]| -> Vec<Vec<u16>> {
                        let stage = run.iter().filter(|r| r.len() == n * s);
                        stage.skip(usize::from(s > 1)).cloned().collect()
                    };
                    let (kept, held) = (at(&calls[0]), at(&calls[1]));
                    assert!(held.len() > kept.len(), "{tag}, stage {s}");
                    assert_eq!(held[..kept.len()], kept[..], "{tag}, stage {s}");
                }
            } else {
                let first_difference = calls[0].iter().zip(&calls[1]).position(|(a, b)| a != b);
                assert_eq!(
                    first_difference, None,
                    "{tag}: the first part is the kept run"
                );
            }
            assert!(held.samples > kept.samples, "{tag}");
            assert!(held.best_cost <= kept.best_cost, "{tag}: {kept:?} {held:?}");
            below += usize::from(held.best_cost < floor);
            cases += 1;
        }
    }
    // What the free part is for. These seeds: below the floor on 34 of 36; asserted: on at
    // least half, so that a free part that never moves (held pairs not released) fails.
    assert!(2 * below >= cases, "{below} of {cases}");
}

/// After a held run the pairs are free (not constrained), and still held for the next run;
/// a pair forbidden afterwards stays constrained through a run; `start` forgets the hold.
#[test]
fn held_pairs_are_free_between_runs_and_forgotten_by_start() {
    let n = 6;
    let dims = Dims::new(n, 2, 16);
    let group = [0u8, 1, 0, 1, 1, 0];
    let mut mem = memory(dims);
    let mut ppg = Ppg::new(&mut mem, dims, 3).unwrap();
    ppg.start(n, 2, 0.5).unwrap();
    ppg.hold_order_within(&group).unwrap();
    assert!(!ppg.is_constrained(1, 3));
    let config = recipe(false);
    ppg.train(&mut last_of_group_one(&group), &config).unwrap();
    assert!(!ppg.is_constrained(1, 3));
    ppg.forbid(0, 2).unwrap();
    ppg.train(&mut last_of_group_one(&group), &config).unwrap();
    assert!(ppg.is_constrained(0, 2) && ppg.weight(0, 0, 2).unwrap() == 0.0);
    assert!(!ppg.is_constrained(1, 3));

    // After start, a run is the plain free run of a twin that never held.
    let mut twin_mem = memory(dims);
    let mut twin = Ppg::new(&mut twin_mem, dims, 9).unwrap();
    ppg.reseed(9);
    ppg.start(n, 2, 0.5).unwrap();
    twin.start(n, 2, 0.5).unwrap();
    let a = ppg.train(&mut last_of_group_one(&group), &config).unwrap();
    let b = twin.train(&mut last_of_group_one(&group), &config).unwrap();
    assert_eq!(a, b);
    assert_eq!(ppg.best(), twin.best());
    assert_eq!(
        ppg.hold_order_within(&group[..5]),
        Err(Error::LengthMismatch {
            expected: 6,
            found: 5
        })
    );
}

/// An engine of seed 6 with the query started, the order imposed and a batch pending.
fn prepared<'m>(
    mem: &'m mut [u8],
    dims: Dims,
    group: &[u8],
    sessions: usize,
    order: Order,
) -> Ppg<'m> {
    let mut ppg = Ppg::new(mem, dims, 6).unwrap();
    ppg.start(group.len(), sessions, 0.5).unwrap();
    match order {
        Order::Kept => ppg.keep_order_within(group).unwrap(),
        Order::Held => ppg.hold_order_within(group).unwrap(),
    }
    ppg.sample_batch(3, SamplerMode::Corrected).unwrap();
    ppg
}

/// A NaN in the held part or in the free part, grown or not: the call fails and the engine
/// is as before it (held pairs not left frozen), like a twin that never trained.
#[test]
fn an_objective_failing_in_either_part_changes_nothing() {
    let (n, sessions) = (7, 4);
    let dims = Dims::new(n, sessions, 16);
    let group = group(&mut TestRng(8), n);
    for grow in [false, true] {
        // Calls of the held part (a kept run) and of the whole: fail in each part, and at
        // the very last call.
        let calls_of = |order| {
            let mut calls = 0usize;
            let mut cost = |r: &[u16], s: usize| {
                calls += 1;
                last_of_group_one(&group)(r, s)
            };
            let mut mem = memory(dims);
            let mut ppg = prepared(&mut mem, dims, &group, sessions, order);
            ppg.train(&mut cost, &recipe(grow)).unwrap();
            calls
        };
        let (first, all) = (calls_of(Order::Kept), calls_of(Order::Held));
        assert!(all > first + 2, "{first} {all}");
        for failing_call in [1, first / 2, first + 2, all] {
            let (mut a, mut b) = (memory(dims), memory(dims));
            let mut spoiled = prepared(&mut a, dims, &group, sessions, Order::Held);
            let mut clean = prepared(&mut b, dims, &group, sessions, Order::Held);
            let mut calls = 0;
            let mut cost = |r: &[u16], s: usize| {
                calls += 1;
                if calls == failing_call {
                    f64::NAN
                } else {
                    last_of_group_one(&group)(r, s)
                }
            };
            let config = recipe(grow);
            let spoilt = spoiled.train(&mut cost, &config);
            let tag = format!("grow {grow}, call {failing_call} of {all}");
            assert!(matches!(spoilt, Err(Error::NotFinite { .. })), "{tag}");
            assert_eq!(spoiled.sessions(), clean.sessions(), "{tag}");
            assert_eq!(spoiled.batch(), clean.batch(), "{tag}");
            assert_eq!(spoiled.reference(), clean.reference(), "{tag}");
            assert_eq!(spoiled.best(), clean.best(), "{tag}");
            for x in 0..n {
                for y in x + 1..n {
                    assert_eq!(spoiled.is_constrained(x, y), clean.is_constrained(x, y));
                    for s in 0..sessions {
                        assert_eq!(spoiled.weight(s, x, y), clean.weight(s, x, y), "{tag}");
                    }
                }
            }
            let a = spoiled
                .train(&mut last_of_group_one(&group), &config)
                .unwrap();
            let b = clean
                .train(&mut last_of_group_one(&group), &config)
                .unwrap();
            assert_eq!(a, b, "{tag}");
            assert_eq!(spoiled.best(), clean.best(), "{tag}");
        }
    }
}
