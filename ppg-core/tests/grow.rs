//! Training grown over sessions (`TrainConfig::grow`): never worse than the single run nor
//! than at half the sessions, the single run's weights at the end, transactional.

mod support;

use ppg_core::{Dims, Error, Ppg, SamplerMode, TrainConfig};
use support::{memory, TestRng};

/// A cost that averages over sessions and that one ranking cannot bring to 0: the squared
/// gap between group 0's mean share of the exposure `1 / log2(rank + 2)` and `target`.
/// Several sessions reach shares between those of single rankings, which is what more
/// sessions are for.
fn exposure_gap(group: &[u8], target: f64) -> impl FnMut(&[u16], usize) -> f64 + '_ {
    move |ranking: &[u16], sessions: usize| {
        let n = group.len();
        let mut share = 0.0;
        for block in ranking.chunks_exact(n) {
            let (mut mine, mut all) = (0.0, 0.0);
            for (rank, &item) in block.iter().enumerate() {
                let e = 1.0 / ((rank + 2) as f64).log2();
                all += e;
                if group[usize::from(item)] == 0 {
                    mine += e;
                }
            }
            share += mine / all;
        }
        let gap = share / sessions as f64 - target;
        gap * gap
    }
}

/// A random list of `n` items in two groups, both present, and a target share between the
/// extremes one ranking can give group 0.
fn query(rng: &mut TestRng, n: usize) -> (Vec<u8>, f64) {
    loop {
        let group: Vec<u8> = (0..n).map(|_| u8::from(rng.unit() < 0.5)).collect();
        let zeros = group.iter().filter(|&&g| g == 0).count();
        if zeros > 0 && zeros < n {
            let target = 0.2 + 0.6 * rng.unit();
            return (group, target);
        }
    }
}

/// The paper's recipe with the input scored first, as `ppg rerank` trains.
fn recipe(grow: bool) -> TrainConfig {
    TrainConfig {
        score_input: true,
        grow,
        ..TrainConfig::default()
    }
}

/// Trains a fresh engine (`seed`) on the query and returns it with its best cost.
fn trained<'m>(
    mem: &'m mut [u8],
    dims: Dims,
    seed: u64,
    group: &[u8],
    target: f64,
    sessions: usize,
    grow: bool,
) -> (Ppg<'m>, f64) {
    let mut ppg = Ppg::new(mem, dims, seed).unwrap();
    ppg.start(group.len(), sessions, 0.5).unwrap();
    ppg.keep_order_within(group).unwrap();
    let config = recipe(grow);
    let report = ppg
        .train(&mut exposure_gap(group, target), &config)
        .unwrap();
    assert_eq!(Some(report.best_cost), ppg.best().map(|b| b.1));
    (ppg, report.best_cost)
}

#[test]
fn grown_is_never_worse_than_the_single_run_nor_than_half_the_sessions() {
    let (n, most) = (10, 8);
    let dims = Dims::new(n, most, 16);
    let mut rng = TestRng(5);
    let (mut strictly_better, mut compared) = (0, 0);
    for seed in 0..24 {
        let (group, target) = query(&mut rng, n);
        let mut half = f64::INFINITY;
        for sessions in [1, 2, 4, 8] {
            let (mut a, mut b) = (memory(dims), memory(dims));
            let (grown_ppg, grown) = trained(&mut a, dims, seed, &group, target, sessions, true);
            let (single_ppg, single) = trained(&mut b, dims, seed, &group, target, sessions, false);
            assert!(
                grown <= single,
                "seed {seed}, {sessions} sessions: {grown} > {single}"
            );
            // Copies of a p-session ranking cost what it cost, up to summation order.
            assert!(
                grown <= half + 1e-12,
                "seed {seed}, {sessions}: {grown} > {half}"
            );
            half = grown;
            // The last stage is the single run: same weights, same reference.
            assert_eq!(grown_ppg.reference(), single_ppg.reference());
            for s in 0..sessions {
                for x in 0..n {
                    for y in x + 1..n {
                        assert_eq!(grown_ppg.weight(s, x, y), single_ppg.weight(s, x, y));
                    }
                }
            }
            if sessions == most {
                compared += 1;
                strictly_better += usize::from(grown < single - 1e-9);
            }
        }
    }
    // What growing is for: at 8 sessions the single run drifts and a copy wins. With these
    // seeds on lists this small it did on 4 of 24 (the others tie); asserted: on some, so
    // that a copy that never won (growth doing nothing) fails.
    assert!(strictly_better >= 1, "{strictly_better} of {compared}");
}

#[test]
fn one_session_grown_is_the_single_run() {
    let n = 9;
    let dims = Dims::new(n, 1, 16);
    let (group, target) = query(&mut TestRng(3), n);
    let (mut a, mut b) = (memory(dims), memory(dims));
    let mut reports = Vec::new();
    for (mem, grow) in [(&mut a, true), (&mut b, false)] {
        let mut ppg = Ppg::new(mem, dims, 4).unwrap();
        ppg.start(n, 1, 0.5).unwrap();
        let config = recipe(grow);
        let report = ppg
            .train(&mut exposure_gap(&group, target), &config)
            .unwrap();
        reports.push((report, ppg.best().unwrap().0.to_vec()));
    }
    assert_eq!(reports[0], reports[1]);
}

#[test]
fn the_report_counts_every_stage() {
    let (n, sessions) = (8, 4);
    let dims = Dims::new(n, sessions, 16);
    let (group, target) = query(&mut TestRng(11), n);
    let mut calls = 0;
    let mut cost = |r: &[u16], s: usize| {
        calls += 1;
        exposure_gap(&group, target)(r, s)
    };
    let mut mem = memory(dims);
    let mut ppg = Ppg::new(&mut mem, dims, 2).unwrap();
    ppg.start(n, sessions, 0.5).unwrap();
    let report = ppg.train(&mut cost, &recipe(true)).unwrap();
    // Stages 1, 2, 4: each scores the input and its samples; 2 and 4 also score a copy.
    assert_eq!(report.samples, calls);
    assert!(report.epochs >= 3, "{report:?}");
}

/// A NaN in a later stage: the call fails and the engine is as before it, the number of
/// sessions included, exactly like a twin that never trained.
#[test]
fn an_objective_failing_in_a_later_stage_changes_nothing() {
    let (n, sessions) = (7, 4);
    let dims = Dims::new(n, sessions, 16);
    let (group, target) = query(&mut TestRng(8), n);
    for failing_call in [1, 40, 400, 700] {
        let (mut a, mut b) = (memory(dims), memory(dims));
        let mut spoiled = Ppg::new(&mut a, dims, 6).unwrap();
        let mut clean = Ppg::new(&mut b, dims, 6).unwrap();
        for ppg in [&mut spoiled, &mut clean] {
            ppg.start(n, sessions, 0.5).unwrap();
            ppg.forbid(0, 6).unwrap();
            ppg.sample_batch(3, SamplerMode::Corrected).unwrap();
        }
        let mut calls = 0;
        let mut cost = |r: &[u16], s: usize| {
            calls += 1;
            if calls == failing_call {
                f64::NAN
            } else {
                exposure_gap(&group, target)(r, s)
            }
        };
        let config = recipe(true);
        assert!(matches!(
            spoiled.train(&mut cost, &config),
            Err(Error::NotFinite { .. })
        ));
        assert_eq!(spoiled.sessions(), clean.sessions());
        assert_eq!(spoiled.batch(), clean.batch());
        assert_eq!(spoiled.reference(), clean.reference());
        assert_eq!(spoiled.best(), clean.best());
        let (mut r1, mut r2) = (vec![0u16; n * sessions], vec![0u16; n * sessions]);
        for _ in 0..5 {
            spoiled.sample(SamplerMode::Uncorrected, &mut r1).unwrap();
            clean.sample(SamplerMode::Uncorrected, &mut r2).unwrap();
            assert_eq!(r1, r2);
        }
        // And both then train to the same result.
        let a = spoiled
            .train(&mut exposure_gap(&group, target), &config)
            .unwrap();
        let b = clean
            .train(&mut exposure_gap(&group, target), &config)
            .unwrap();
        assert_eq!(a, b);
    }
}
