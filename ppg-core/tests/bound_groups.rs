//! The least DTR over more than two groups (`ppg_core::objective::bound_groups`) against
//! brute force over every tuple of rankings; its bound when the search is cut; the lower
//! bound `DtrGroups` gives against random rankings (proptest).

mod support;

use std::collections::BTreeSet;

use ppg_core::objective::bound::{Bound, BoundError};
use ppg_core::objective::bound_groups::{self, solve, CERTIFY_BUDGET};
use ppg_core::objective::{exposure, DtrGroups, Eel, LowerBound, Objective, RankStart, MAX_GROUPS};
use proptest::prelude::*;
use support::{permutations, TestRng};

fn table(n: usize) -> Vec<f64> {
    let mut t = vec![0.0; n];
    exposure::fill(RankStart::One, &mut t);
    t
}

/// Each group's utility in one list.
fn sums(group: &[u8], utility: &[f64]) -> [f64; MAX_GROUPS] {
    let mut u = [0.0; MAX_GROUPS];
    for (&g, &y) in group.iter().zip(utility) {
        u[usize::from(g)] += y;
    }
    u
}

/// `bound_groups::solve` with memory of its own.
fn bound(group: &[u8], utility: &[f64], e: &[f64], sessions: usize, budget: u64) -> Bound {
    let mut prefix = vec![0.0; group.len() + 1];
    solve(
        group,
        &sums(group, utility),
        e,
        sessions,
        budget,
        &mut prefix,
    )
    .unwrap()
}

/// The least DTR over every `sessions`-tuple of rankings. Rankings that put the same group
/// on every position have the same group totals, and the sessions' order does not change
/// their sum, so one ranking per sequence of groups down the list and every multiset of
/// `sessions` of them cover every tuple; each is scored as a ranking by `DtrGroups::ratio`.
fn brute(group: &[u8], utility: &[f64], e: &[f64], sessions: usize) -> f64 {
    let dtr = DtrGroups::new(utility, group, e).unwrap();
    let mut seen = BTreeSet::new();
    let distinct: Vec<Vec<u16>> = permutations(group.len())
        .into_iter()
        .filter(|p| seen.insert(p.iter().map(|&i| group[usize::from(i)]).collect::<Vec<_>>()))
        .collect();
    let mut best = f64::INFINITY;
    let mut index = vec![0usize; sessions];
    loop {
        let ranking: Vec<u16> = index.iter().flat_map(|&i| distinct[i].clone()).collect();
        best = best.min(dtr.ratio(&ranking, sessions));
        // The next non-decreasing index tuple.
        let Some(d) = (0..sessions).rev().find(|&d| index[d] + 1 < distinct.len()) else {
            return best;
        };
        index[d] += 1;
        for later in d + 1..sessions {
            index[later] = index[d];
        }
    }
}

/// The multiset walk of `brute` equals the literal walk over every tuple of permutations.
#[test]
fn brute_force_covers_every_tuple_of_permutations() {
    let (group, utility) = ([0u8, 1, 2, 1, 0], [1.0, 2.0, 1.0, 0.0, 1.0]);
    let e = table(5);
    let dtr = DtrGroups::new(&utility, &group, &e).unwrap();
    let perms = permutations(5);
    let mut literal = f64::INFINITY;
    for a in &perms {
        for b in &perms {
            literal = literal.min(dtr.ratio(&[a.as_slice(), b].concat(), 2));
        }
    }
    assert_eq!(literal, brute(&group, &utility, &e, 2));
}

/// Random lists of `n` items in `groups` groups, utilities 0..=2, at least two groups with
/// utility.
fn random_list(rng: &mut TestRng, n: usize, groups: u8) -> (Vec<u8>, Vec<f64>) {
    loop {
        let group: Vec<u8> = (0..n)
            .map(|_| (rng.unit() * f64::from(groups)) as u8)
            .collect();
        let utility: Vec<f64> = (0..n).map(|_| (rng.unit() * 3.0).floor()).collect();
        let present: BTreeSet<u8> = group.iter().copied().collect();
        if present.len() == usize::from(groups) && DtrGroups::valid(&utility, &group) {
            return (group, utility);
        }
    }
}

#[test]
fn exact_equals_brute_force_and_a_cut_search_stays_below() {
    let mut rng = TestRng(7);
    let mut cases = 0;
    for (groups, n, sessions) in [
        (3, 3, 1),
        (3, 3, 3),
        (3, 5, 1),
        (3, 5, 2),
        (3, 5, 3),
        (3, 6, 2),
        (3, 7, 1),
        (3, 7, 2),
        (4, 4, 1),
        (4, 4, 3),
        (4, 5, 2),
        (4, 6, 1),
        (4, 6, 2),
        (4, 7, 1),
    ] {
        for _ in 0..3 {
            let (group, utility) = random_list(&mut rng, n, groups);
            let e = table(n);
            let want = brute(&group, &utility, &e, sessions);
            let got = bound(&group, &utility, &e, sessions, u64::MAX);
            let case = format!("{group:?} {utility:?} S={sessions}");
            assert!(got.exact, "{case}");
            assert!(
                (got.lower - want).abs() < 1e-12,
                "{case}: {got:?} vs {want}"
            );
            assert!(
                (got.value - want).abs() < 1e-12,
                "{case}: {got:?} vs {want}"
            );
            // Cut at every budget up to the walk's end: never above the optimum, and
            // exact only at it.
            for budget in [0, 1, 10, 30, 100] {
                let cut = bound(&group, &utility, &e, sessions, budget);
                assert!(
                    cut.lower <= want + 1e-12,
                    "{case}, budget {budget}: {cut:?}"
                );
                assert!(
                    cut.value >= want - 1e-12,
                    "{case}, budget {budget}: {cut:?}"
                );
                if cut.exact {
                    assert!(cut.value - cut.lower <= 1e-8, "{case}: {cut:?}");
                }
            }
            // The objective's bound, in cost units (ratio - 1).
            let dtr = DtrGroups::new(&utility, &group, &e).unwrap();
            let mut work = vec![0.0; n + 1];
            let LowerBound { value, exact } = dtr.lower_bound(sessions, &mut work).unwrap();
            assert!(exact && (value - (want - 1.0)).abs() < 1e-12, "{case}");
            cases += 1;
        }
    }
    assert_eq!(cases, 42);
}

/// The lists `ppg-lab`'s first version of this bound was tested on.
#[test]
fn the_first_cases() {
    let e = table(8);
    let cases: [(&[u8], &[f64], usize); 6] = [
        (&[0, 1, 2], &[1.0, 1.0, 1.0], 1),
        (&[0, 1, 2], &[1.0, 1.0, 1.0], 3),
        (&[0, 1, 2, 2, 0], &[1.0, 0.0, 2.0, 1.0, 1.0], 2),
        (&[0, 1, 2, 1, 0], &[3.0, 1.0, 1.0, 1.0, 0.0], 2),
        (&[0, 1, 2, 3, 0, 1], &[1.0, 2.0, 1.0, 1.0, 1.0, 0.0], 1),
        (&[0, 0, 1, 2], &[1.0, 1.0, 1.0, 0.0], 3),
    ];
    for (group, utility, sessions) in cases {
        let e = &e[..group.len()];
        let want = brute(group, utility, e, sessions);
        let got = bound(group, utility, e, sessions, CERTIFY_BUDGET);
        assert!(got.exact && (got.lower - want).abs() < 1e-12, "{group:?}");
        let hull = bound(group, utility, e, sessions, 0);
        assert!(!hull.exact || hull.lower == want, "{group:?}");
        assert!(hull.lower >= 1.0 && hull.lower <= want + 1e-12, "{group:?}");
    }
}

/// Past its budget the search gives the hull bound, flagged, and it holds for any ranking.
#[test]
fn over_budget_gives_the_hull_bound_flagged() {
    let e = table(12);
    let group = [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2];
    let utility = [1.0, 2.0, 3.0, 1.0, 1.0, 0.5, 2.0, 1.0, 1.0, 0.0, 1.0, 1.0];
    let hull = bound(&group, &utility, &e, 4, 0);
    let cut = bound(&group, &utility, &e, 4, 1000);
    assert!(!cut.exact && cut.lower == hull.lower && cut.value > cut.lower + 1e-8);
    let full = bound(&group, &utility, &e, 4, u64::MAX);
    assert!(full.exact && full.lower >= cut.lower && full.value <= cut.value);
    let dtr = DtrGroups::new(&utility, &group, &e).unwrap();
    let mut rng = TestRng(3);
    for _ in 0..200 {
        let mut ranking: Vec<u16> = Vec::new();
        for _ in 0..4 {
            let mut block: Vec<u16> = (0..12).collect();
            for k in (1..12).rev() {
                block.swap(k, (rng.unit() * (k + 1) as f64) as usize);
            }
            ranking.extend(block);
        }
        assert!(dtr.ratio(&ranking, 4) >= full.lower - 1e-12);
    }
}

/// A list deeper than the walk may go gets the hull bound at once, flagged.
#[test]
fn a_long_list_gets_the_hull_bound() {
    let n = 400;
    let e = table(n);
    let group: Vec<u8> = (0..n).map(|i| (i % 3) as u8).collect();
    let utility: Vec<f64> = (0..n).map(|i| (i % 2) as f64).collect();
    assert!(n * 3 > bound_groups::MAX_SEARCH_DEPTH);
    let got = bound(&group, &utility, &e, 2, u64::MAX);
    assert_eq!(got.value, f64::INFINITY);
    assert!(!got.exact && got.lower == bound(&group, &utility, &e, 2, 0).lower);
}

/// Groups without utility, or a single group with it: DTR is 1 whatever the ranking.
#[test]
fn degenerate_is_one_and_bad_input_is_refused() {
    let e = [1.0, 0.5, 0.25];
    let one = bound(&[0, 1, 1], &[1.0, 0.0, 0.0], &e, 2, 100);
    assert_eq!((one.lower, one.value, one.exact), (1.0, 1.0, true));
    let dtr = DtrGroups::new(&[1.0, 0.0, 0.0], &[0, 1, 2], &e).unwrap();
    let b = dtr.lower_bound(3, &mut [0.0; 4]).unwrap();
    assert_eq!((b.value, b.exact), (0.0, true));

    let u = sums(&[0, 1, 2], &[1.0; 3]);
    let mut prefix = [0.0; 4];
    let refused = |group: &[u8], utility: &[f64], e: &[f64], s, prefix: &mut [f64]| {
        solve(group, utility, e, s, 100, prefix).unwrap_err()
    };
    use BoundError::*;
    assert_eq!(refused(&[0, 1, 2], &u, &e, 0, &mut prefix), Degenerate);
    assert_eq!(refused(&[], &u, &e, 1, &mut prefix), Degenerate);
    assert_eq!(refused(&[0, 1, 3], &u[..3], &e, 1, &mut prefix), Degenerate);
    assert_eq!(
        refused(&[0, 1, 2], &u, &[1.0, 0.5], 1, &mut prefix),
        Exposure
    );
    assert_eq!(
        refused(&[0, 1, 2], &u, &[0.5, 1.0, 0.2], 1, &mut prefix),
        Exposure
    );
    assert_eq!(
        refused(&[0, 1, 2], &u, &[1.0, 0.5, 0.0], 1, &mut prefix),
        Exposure
    );
    assert_eq!(
        refused(&[0, 1, 2], &[1.0, f64::NAN, 1.0], &e, 1, &mut prefix),
        Exposure
    );
    assert_eq!(refused(&[0, 1, 2], &u, &e, 1, &mut prefix[..3]), Scratch);
    // The objective gives no bound rather than a wrong one.
    let dtr = DtrGroups::new(&[1.0; 3], &[0, 1, 2], &e).unwrap();
    assert_eq!(dtr.lower_bound(1, &mut [0.0; 3]), None);
    let flat = DtrGroups::new(&[1.0; 3], &[0, 1, 2], &[1.0, 0.0, 0.0]).unwrap();
    assert_eq!(flat.lower_bound(1, &mut [0.0; 4]), None);
}

prop_compose! {
    /// A list of up to 30 items in up to 6 groups, utilities 0..=3 (half of them 0), and
    /// a ranking of it over 1 to 8 sessions.
    fn ranked()(n in 2usize..30, groups in 2u8..7, sessions in 1usize..9)
        (group in prop::collection::vec(0..groups, n),
         utility in prop::collection::vec(prop_oneof![Just(0.0), 0.0..3.0f64], n),
         blocks in prop::collection::vec(Just((0..n as u16).collect::<Vec<_>>()).prop_shuffle(), sessions),
         sessions in Just(sessions))
        -> (Vec<u8>, Vec<f64>, Vec<u16>, usize) {
        (group, utility, blocks.concat(), sessions)
    }
}

proptest! {
    /// No ranking costs less than the bound, exact or not; the search's best is achievable
    /// so never below it.
    #[test]
    fn no_ranking_is_below_the_bound((group, utility, ranking, sessions) in ranked()) {
        let e = table(group.len());
        let mut dtr = DtrGroups::new(&utility, &group, &e).unwrap();
        let mut work = vec![0.0; group.len() + 1];
        let b = dtr.lower_bound(sessions, &mut work).unwrap();
        let cost = dtr.cost(&ranking, sessions);
        prop_assert!(b.value <= cost + 1e-12, "{b:?} above {cost}");
        let full = bound(&group, &utility, &e, sessions, CERTIFY_BUDGET);
        prop_assert!(full.lower <= full.value);
        prop_assert!(full.value >= 1.0 && full.lower >= 1.0);
    }
}

/// The least of `metric` over every count matrix of `group` over `sessions` (columns sum
/// to `sessions`, row `G` to `sessions` times its items), given each group's total
/// exposure: by König's theorem, exactly the least over the `sessions`-tuples of rankings.
fn over_matrices(group: &[u8], e: &[f64], sessions: usize, metric: &dyn Fn(&[f64]) -> f64) -> f64 {
    let groups = usize::from(*group.iter().max().unwrap()) + 1;
    assert!(groups <= 4);
    let mut left = [0usize; 4];
    for &g in group {
        left[usize::from(g)] += sessions;
    }
    let mut best = f64::INFINITY;
    // The totals go by value (each a sum along its own path): adding and taking away in
    // place drifts by some 1e-12 over millions of matrices.
    #[allow(clippy::too_many_arguments)]
    fn walk(
        r: usize,
        g: usize,
        free: usize,
        e: &[f64],
        sessions: usize,
        groups: usize,
        left: [usize; 4],
        totals: [f64; 4],
        best: &mut f64,
        metric: &dyn Fn(&[f64]) -> f64,
    ) {
        if r == e.len() {
            *best = best.min(metric(&totals[..groups]));
            return;
        }
        let last = g + 1 == groups;
        let lo = if last { free } else { 0 };
        for c in lo..=free.min(left[g]) {
            let (mut l, mut t) = (left, totals);
            l[g] -= c;
            t[g] += c as f64 * e[r];
            if last {
                walk(r + 1, 0, sessions, e, sessions, groups, l, t, best, metric);
            } else {
                walk(r, g + 1, free - c, e, sessions, groups, l, t, best, metric);
            }
        }
    }
    walk(
        0, 0, sessions, e, sessions, groups, left, [0.0; 4], &mut best, metric,
    );
    best
}

/// Over 3 groups, 5 to 8 items, 1 to 4 sessions: DTR's and EEL's bounds are never above
/// the optimum over count matrices, exact only at it, and the rankings `optimum` deals
/// cost the bound.
#[test]
fn bounds_against_every_count_matrix() {
    let mut rng = TestRng(11);
    let (mut cases, mut exact_dtr, mut exact_eel) = (0, 0, 0);
    for (n, sessions) in [
        (5, 1),
        (5, 2),
        (5, 3),
        (5, 4),
        (6, 1),
        (6, 2),
        (6, 3),
        (6, 4),
        (7, 1),
        (7, 2),
        (7, 3),
        (8, 1),
        (8, 2),
    ] {
        for _ in 0..4 {
            let (group, utility) = random_list(&mut rng, n, 3);
            let e = table(n);
            let case = format!("{group:?} {utility:?} S={sessions}");
            // DTR, in cost units.
            let mut dtr = DtrGroups::new(&utility, &group, &e).unwrap();
            let u = sums(&group, &utility);
            let ratio = |x: &[f64]| DtrGroups::of_totals(x, &u, 1);
            let want = over_matrices(&group, &e, sessions, &ratio) - 1.0;
            let mut work = vec![0.0; 4 * n + 4];
            let mut out = vec![0u16; n * sessions];
            let (b, found) = dtr.optimum(sessions, &mut work, &mut out).unwrap();
            assert!(b.value <= want + 1e-12, "{case}: {b:?} above {want}");
            if b.exact {
                exact_dtr += 1;
                assert!(want - b.value <= 1e-8, "{case}: {b:?} exact below {want}");
            }
            if found {
                let cost = dtr.cost(&out, sessions);
                assert!(
                    (cost - b.value).abs() <= 1e-8,
                    "{case}: rankings cost {cost}, {b:?}"
                );
            }
            // EEL.
            let mut eel = Eel::new(&utility, &group, 5, &e).unwrap();
            let t = eel.targets().to_vec();
            let loss = |x: &[f64]| -> f64 {
                x.iter()
                    .zip(&t)
                    .map(|(&x, &t)| (x / sessions as f64 - t).powi(2))
                    .sum()
            };
            let want = over_matrices(&group, &e, sessions, &loss);
            let (b, found) = eel.optimum(sessions, &mut work, &mut out).unwrap();
            assert!(b.value <= want + 1e-12, "{case}: EEL {b:?} above {want}");
            if b.exact {
                exact_eel += 1;
                assert!(
                    want - b.value <= 1e-8,
                    "{case}: EEL {b:?} exact below {want}"
                );
            }
            if found {
                let cost = eel.cost(&out, sessions);
                assert!(
                    (cost - b.value).abs() <= 1e-8,
                    "{case}: EEL rankings cost {cost}, {b:?}"
                );
            }
            cases += 1;
        }
    }
    assert_eq!(cases, 52);
    // The bounds are exact on some (not a target: a check that the exact path is walked).
    assert!(
        exact_dtr > 10 && exact_eel > 0,
        "DTR {exact_dtr}, EEL {exact_eel}"
    );
}

/// DTR's and EEL's optimum over 4 groups of 20 items at 4 sessions run on a thread of
/// `PPG_STACK_KB` KB (64 by default), the stack they take being bounded: fixed arrays,
/// the walk's depth capped. Measured with this test (x86-64, release, thread set-up
/// included): DTR runs in 64 KB and not in 56 KB (main before the lattice over groups: 48,
/// not 40), EEL in 56 KB and not in 48; past the ~32 KB a C caller's thread should
/// need, as the walk alone already was.
#[test]
fn optimum_over_groups_fits_a_small_stack() {
    let kb: usize = std::env::var("PPG_STACK_KB").map_or(64, |s| s.parse().unwrap());
    let run = || {
        let mut rng = TestRng(5);
        let e = table(20);
        for _ in 0..20 {
            let (group, utility) = random_list(&mut rng, 20, 4);
            let mut work = vec![0.0; 4 * 20 + 4];
            let mut out = vec![0u16; 20 * 4];
            let dtr = DtrGroups::new(&utility, &group, &e).unwrap();
            dtr.optimum(4, &mut work, &mut out).unwrap();
            let eel = Eel::new(&utility, &group, 5, &e).unwrap();
            eel.optimum(4, &mut work, &mut out).unwrap();
        }
    };
    std::thread::Builder::new()
        .stack_size(kb * 1024)
        .spawn(run)
        .unwrap()
        .join()
        .unwrap();
}

/// Lists where one group cannot be treated fairly (two items of three groups' utility
/// carry most of it, or a large group almost none), so that the pooled bound is above 1
/// and the search walks that group's rows first, each leaving the other two a two-group
/// search (`Shape::DtrBeside`) or a walk: the bound equals the least DTR over every count
/// matrix where it says exact, is never above it, and is exact on most.
#[test]
fn skewed_lists_against_every_count_matrix() {
    let mut rng = TestRng(23);
    let (mut cases, mut exact) = (0, 0);
    for (n, sessions) in [(8, 2), (8, 3), (9, 2), (10, 2)] {
        for round in 0..6 {
            let (mut group, mut utility) = random_list(&mut rng, n, 3);
            // Group 0 gets the first two items and most of the utility (or, every other
            // round, most of the items and little utility).
            for (i, (g, u)) in group.iter_mut().zip(utility.iter_mut()).enumerate() {
                let rich = if round % 2 == 0 { i < 2 } else { i >= 3 };
                if rich {
                    *g = 0;
                    *u = if round % 2 == 0 {
                        8.0 + (i as f64)
                    } else {
                        0.1
                    };
                } else if *g == 0 {
                    *g = 1 + (i % 2) as u8;
                }
            }
            if !DtrGroups::valid(&utility, &group) {
                continue;
            }
            let e = table(n);
            let u = sums(&group, &utility);
            let want = over_matrices(&group, &e, sessions, &|x: &[f64]| {
                DtrGroups::of_totals(x, &u, 1)
            });
            let got = bound(&group, &utility, &e, sessions, CERTIFY_BUDGET);
            let case = format!("{group:?} {utility:?} S={sessions}");
            assert!(got.lower <= want + 1e-12, "{case}: {got:?} above {want}");
            assert!(got.value >= want - 1e-12, "{case}: {got:?} below {want}");
            if got.exact {
                exact += 1;
                assert!(
                    got.value - want <= 1e-8,
                    "{case}: {got:?} exact above {want}"
                );
            }
            cases += 1;
        }
    }
    assert!(cases >= 20 && exact * 10 >= cases * 9, "{exact} of {cases}");
}
