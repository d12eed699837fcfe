//! The lower bounds of expected exposure's EE-L and of AWRF against brute force: every
//! tuple of permutations of small lists. A bound is never above the optimum over `S`
//! sessions, and equals it where it says it is exact.

use ppg_core::objective::{
    Awrf, AwrfCost, AwrfTarget, Browse, ExpectedExposure, Level, LowerBound, Measure, Objective,
    RankStart,
};
use ppg_core::Rng;

mod support;
use support::permutations;

/// The least cost over every `sessions`-tuple of permutations (multisets suffice: every
/// metric here is a mean over sessions).
fn optimum(n: usize, sessions: usize, cost: &mut dyn FnMut(&[u16]) -> f64) -> f64 {
    let perms = permutations(n);
    let mut best = f64::INFINITY;
    let mut pick = vec![0usize; sessions];
    loop {
        let ranking: Vec<u16> = pick.iter().flat_map(|&p| perms[p].clone()).collect();
        best = best.min(cost(&ranking));
        // Next non-decreasing index tuple.
        let mut i = sessions;
        loop {
            if i == 0 {
                return best;
            }
            i -= 1;
            if pick[i] + 1 < perms.len() {
                pick[i] += 1;
                let v = pick[i];
                pick[i + 1..].iter_mut().for_each(|p| *p = v);
                break;
            }
        }
    }
}

/// Utilities of one of three shapes: binary, graded 0-3 with ties, continuous.
fn utilities(rng: &mut Rng, n: usize, shape: usize) -> Vec<f64> {
    (0..n)
        .map(|_| match shape {
            0 => f64::from(rng.unit_f64() < 0.5),
            1 => (rng.unit_f64() * 4.0).floor(),
            _ => rng.unit_f64(),
        })
        .collect()
}

const MODELS: [Browse; 4] = [
    Browse::Rbp { patience: 0.5 },
    Browse::Rbp { patience: 0.8 },
    Browse::Log(RankStart::One),
    Browse::D943B3E,
];

#[test]
fn expected_exposure_loss_bound_against_brute_force() {
    let mut rng = Rng::new(2020);
    let (mut checked, mut positive, mut exact, mut witnessed) = (0, 0, 0, 0);
    for case in 0..240 {
        let n = 2 + case % 4; // 2..=5 items
        let sessions = match n {
            5 => 1 + case % 2,
            4 => 1 + case % 3,
            _ => 1 + case % 4,
        };
        let utility = {
            let mut u = utilities(&mut rng, n, case % 3);
            u[0] = u[0].max(0.5); // group level needs a relevant item
            u
        };
        let groups = 1 + (case / 4) % 3;
        let group: Vec<u8> = (0..n)
            .map(|_| (rng.unit_f64() * groups as f64) as u8)
            .collect();
        let browse = MODELS[case % 4];
        for level in [Level::Group, Level::Item] {
            for normalised in [false, true] {
                let mut scratch = vec![0.0; 3 * n];
                let mut ee = ExpectedExposure::new(
                    &utility,
                    &group,
                    browse,
                    level,
                    Measure::Loss,
                    normalised,
                    &mut scratch,
                )
                .unwrap();
                let LowerBound { value, exact: says } =
                    ee.lower_bound(sessions, &mut vec![0.0; n + 1]).unwrap();
                let mut work = vec![0.0; 4 * n + 4];
                let mut out = vec![0u16; n * sessions];
                let (again, found) = ee.optimum(sessions, &mut work, &mut out).unwrap();
                assert_eq!(again.value, value);
                if found {
                    // The optimum's rankings cost the bound.
                    let cost = ee.cost(&out, sessions);
                    assert!((cost - value).abs() <= 1e-12, "{cost} against {value}");
                    witnessed += 1;
                }
                let best = optimum(n, sessions, &mut |r| ee.cost(r, sessions));
                let what = format!("{utility:?} {group:?} {browse:?} {level:?} S={sessions}");
                assert!(value <= best + 1e-12, "bound {value} above {best}: {what}");
                if says {
                    assert!(
                        (value - best).abs() <= 1e-9,
                        "exact {value} != {best}: {what}"
                    );
                    exact += 1;
                }
                positive += usize::from(value > 1e-9);
                checked += 1;
            }
        }
    }
    // The bound says something: above 0 on a share of the cases, exact on others.
    eprintln!("EE-L: {checked} cases, {positive} bounds above 0, {exact} exact, {witnessed} with rankings");
    assert!(witnessed > 50, "{witnessed} optimum rankings");
    assert_eq!(checked, 960);
    assert!(positive > 100, "{positive} positive bounds");
    assert!(exact > 100, "{exact} exact bounds");
}

/// EE-D and EE-R, and a mix, give no bound; a normalised EE-L whose evaluator bound is 0
/// has the bound 0, exact.
#[test]
fn no_bound_outside_ee_loss() {
    let (utility, group) = ([1.0, 0.0, 1.0], [0u8, 1, 1]);
    for measure in [Measure::Disparity, Measure::Relevance] {
        let mut scratch = [0.0; 9];
        let ee = ExpectedExposure::new(
            &utility,
            &group,
            Browse::DEFAULT,
            Level::Group,
            measure,
            true,
            &mut scratch,
        )
        .unwrap();
        assert_eq!(ee.lower_bound(2, &mut [0.0; 4]), None);
    }
}

/// Item level by hand: tied items' shared target is a block mean that no single position
/// has, so one session cannot reach it, and the merit order meets the bound.
#[test]
fn item_level_ties_by_hand() {
    let utility = [1.0, 1.0, 0.0, 2.0];
    let group = [0u8, 0, 0, 0];
    let mut scratch = [0.0; 12];
    let mut ee = ExpectedExposure::new(
        &utility,
        &group,
        Browse::Rbp { patience: 0.5 },
        Level::Item,
        Measure::Loss,
        false,
        &mut scratch,
    )
    .unwrap();
    // Items 0 and 1 share positions 1 and 2 (0.5, 0.25): target 0.375 each; at one
    // session each is 0.125 away at best: 2 * 0.125^2.
    let b = ee.lower_bound(1, &mut [0.0; 5]).unwrap();
    assert!((b.value - 2.0 * 0.125 * 0.125).abs() < 1e-15, "{b:?}");
    assert!((ee.cost(&[3, 0, 1, 2], 1) - b.value).abs() < 1e-15);
}

/// The TREC attention, `depth` deep.
fn attention(n: usize) -> Vec<f64> {
    let mut t = vec![0.0; n];
    Awrf::discount(&mut t);
    t
}

#[test]
fn awrf_bound_against_brute_force() {
    let mut rng = Rng::new(2021);
    let (mut checked, mut positive) = (0, 0);
    for case in 0..300 {
        let n = 2 + case % 5; // 2..=6 items: one session suffices (a mean of sessions)
        let utility = {
            let mut u = utilities(&mut rng, n, case % 3);
            u[0] = u[0].max(0.5);
            u
        };
        let groups = 2 + (case / 5) % 3;
        let group: Vec<u8> = (0..n)
            .map(|_| (rng.unit_f64() * groups as f64) as u8)
            .collect();
        let population: Vec<f64> = (0..groups).map(|_| 0.1 + rng.unit_f64()).collect();
        let table = attention(n);
        let depth = if case % 4 == 3 { 1 + case % n } else { n };
        for cost in [AwrfCost::Fairness, AwrfCost::Product] {
            for target in [
                AwrfTarget::Trec {
                    population: &population,
                },
                AwrfTarget::Given(&population),
            ] {
                let mut awrf = Awrf::new(&utility, &group, target, &table, cost)
                    .unwrap()
                    .with_depth(depth)
                    .unwrap();
                let sessions = 1 + case % 2;
                let b = awrf.lower_bound(sessions, &mut vec![0.0; n + 1]).unwrap();
                let best = optimum(n, 1, &mut |r| awrf.cost(r, 1));
                let what = format!("{utility:?} {group:?} {population:?} depth {depth} {cost:?}");
                assert!(
                    b.value <= best + 1e-12,
                    "bound {} above {best}: {what}",
                    b.value
                );
                if b.exact {
                    assert!((b.value - best).abs() <= 1e-9, "{what}");
                }
                positive += usize::from(b.value > 1e-9);
                checked += 1;
            }
        }
    }
    eprintln!("AWRF: {checked} cases, {positive} bounds above 0");
    assert_eq!(checked, 1200);
    assert!(positive > 200, "{positive} positive bounds");
}
