//! The exact optimum (`ppg_core::objective::bound`) against brute force over every tuple of
//! permutations, its witness rankings, the cut search's bound, and the lower bounds the
//! built-in objectives give.

/// `bound::solve` with memory of its own; the best count vector returned.
fn solve(
    shape: Shape,
    exposure: &[f64],
    group0: usize,
    sessions: usize,
    budget: u64,
) -> Result<(bound::Bound, Vec<u32>), BoundError> {
    let n = exposure.len();
    let (mut prefix, mut walk, mut best) = (vec![0.0; n + 1], vec![0; n], vec![0; n]);
    let counts = Counts {
        walk: &mut walk,
        best: &mut best,
    };
    let b = bound::solve(
        shape,
        exposure,
        group0,
        sessions,
        budget,
        &mut prefix,
        Some(counts),
    )?;
    Ok((b, best))
}

/// `bound::witness` into a new vector.
fn witness_vec(counts: &[u32], group: &[u8], label: &[f64], sessions: usize) -> Vec<u16> {
    let n = group.len();
    let (mut order, mut out) = (vec![0; n], vec![0; n * sessions]);
    witness(counts, group, label, sessions, &mut order, &mut out).unwrap();
    out
}

use ppg_core::objective::bound::{self, witness, BoundError, Counts, Shape, BUDGET};
use ppg_core::objective::{exposure, Dtr, Eel, LowerBound, Objective, RankStart};
use ppg_core::Rng;

fn table(n: usize) -> Vec<f64> {
    let mut t = vec![0.0; n];
    exposure::fill(RankStart::One, &mut t);
    t
}

/// A metric of a multi-session ranking.
type Metric<'a> = dyn Fn(&[u16]) -> f64 + 'a;

/// Every permutation of `0..n`, by Heap's algorithm.
fn permutations(n: usize) -> Vec<Vec<u16>> {
    fn heap(k: usize, a: &mut Vec<u16>, out: &mut Vec<Vec<u16>>) {
        if k <= 1 {
            out.push(a.clone());
            return;
        }
        for i in 0..k {
            heap(k - 1, a, out);
            let j = if k % 2 == 0 { i } else { 0 };
            a.swap(j, k - 1);
        }
    }
    let mut out = Vec::new();
    heap(n, &mut (0..n as u16).collect(), &mut out);
    out
}

/// The least of `metric` over every `sessions`-tuple of permutations.
fn brute(n: usize, sessions: usize, metric: &dyn Fn(&[u16]) -> f64) -> f64 {
    let perms = permutations(n);
    let mut best = f64::INFINITY;
    let mut index = vec![0usize; sessions];
    loop {
        let ranking: Vec<u16> = index.iter().flat_map(|&i| perms[i].clone()).collect();
        best = best.min(metric(&ranking));
        let mut d = 0;
        while d < sessions {
            index[d] += 1;
            if index[d] < perms.len() {
                break;
            }
            index[d] = 0;
            d += 1;
        }
        if d == sessions {
            return best;
        }
    }
}

/// A random query of `n` items with both groups present: labels 0..=2, groups 0/1.
fn query(rng: &mut Rng, n: usize) -> (Vec<f64>, Vec<u8>) {
    loop {
        let label: Vec<f64> = (0..n).map(|_| (rng.next_u64() % 3) as f64).collect();
        let group: Vec<u8> = (0..n).map(|_| (rng.next_u64() % 2) as u8).collect();
        if Dtr::valid(&label, &group) {
            return (label, group);
        }
    }
}

fn shapes(label: &[f64], group: &[u8], t: &[f64]) -> [Shape; 2] {
    let mut utility = [0.0; 2];
    for (&l, &g) in label.iter().zip(group) {
        utility[usize::from(g)] += l;
    }
    let eel = Eel::new(label, group, 2, t).unwrap();
    let target = [eel.targets()[0], eel.targets()[1]];
    [Shape::Dtr { utility }, Shape::Eel { target }]
}

#[test]
fn equals_brute_force_over_all_tuples_of_permutations() {
    for seed in 0..4 {
        let mut rng = Rng::new(seed);
        for (n, sessions) in [
            (3, 1),
            (4, 1),
            (5, 1),
            (6, 1),
            (3, 2),
            (4, 2),
            (5, 2),
            (4, 3),
        ] {
            let (label, group) = query(&mut rng, n);
            let t = table(n);
            let k = group.iter().filter(|&&g| g == 0).count();
            let dtr = Dtr::new(&label, &group, &t).unwrap();
            let eel = Eel::new(&label, &group, 2, &t).unwrap();
            let brute_dtr = brute(n, sessions, &|r| dtr.ratio(r, sessions));
            let brute_eel = brute(n, sessions, &|r| eel.value(r, sessions));
            let [sd, se] = shapes(&label, &group, &t);
            let dtr_of = |r: &[u16]| dtr.ratio(r, sessions);
            let eel_of = |r: &[u16]| eel.value(r, sessions);
            let cases: [(Shape, f64, &Metric); 2] =
                [(sd, brute_dtr, &dtr_of), (se, brute_eel, &eel_of)];
            for (shape, want, value) in cases {
                let (b, counts) = solve(shape, &t, k, sessions, BUDGET).unwrap();
                assert!(b.exact, "seed {seed}, n {n}, S {sessions}");
                assert!(
                    (b.lower - want).abs() < 1e-12,
                    "seed {seed}, n {n}, S {sessions}: bound {} brute force {want}",
                    b.lower
                );
                // The witness is a real ranking with the bound's value.
                let w = witness_vec(&counts, &group, &label, sessions);
                assert!((value(&w) - b.value).abs() < 1e-12);
            }
        }
    }
}

#[test]
fn more_sessions_never_hurt_and_double_sessions_repeat() {
    let mut rng = Rng::new(7);
    for _ in 0..20 {
        let (label, group) = query(&mut rng, 9);
        let t = table(9);
        let k = group.iter().filter(|&&g| g == 0).count();
        for shape in shapes(&label, &group, &t) {
            let mut previous = f64::INFINITY;
            for sessions in [1, 2, 4, 8] {
                let (b, _) = solve(shape, &t, k, sessions, BUDGET).unwrap();
                assert!(b.exact);
                // S sessions repeated are 2S sessions with the same value.
                assert!(b.lower <= previous + 1e-12);
                previous = b.lower;
            }
        }
    }
}

#[test]
fn a_cut_search_still_bounds_from_below() {
    let mut rng = Rng::new(11);
    let (label, group) = query(&mut rng, 24);
    let t = table(24);
    let k = group.iter().filter(|&&g| g == 0).count();
    for shape in shapes(&label, &group, &t) {
        let (full, _) = solve(shape, &t, k, 3, BUDGET).unwrap();
        let (cut, _) = solve(shape, &t, k, 3, 5).unwrap();
        assert!(!cut.exact || cut.lower == full.lower);
        assert!(cut.lower <= full.lower + 1e-12);
        assert!(cut.value >= full.value - 1e-12);
    }
}

#[test]
fn refuses_degenerate_input() {
    let t = table(4);
    let shape = Shape::Dtr {
        utility: [1.0, 1.0],
    };
    assert_eq!(
        solve(shape, &t, 0, 1, 10).map(|b| b.0),
        Err(BoundError::Degenerate)
    );
    assert_eq!(
        solve(shape, &t, 4, 1, 10).map(|b| b.0),
        Err(BoundError::Degenerate)
    );
    assert_eq!(
        solve(shape, &t, 2, 0, 10).map(|b| b.0),
        Err(BoundError::Degenerate)
    );
    assert_eq!(
        solve(shape, &[0.5, 0.6], 1, 1, 10).map(|b| b.0),
        Err(BoundError::Exposure)
    );
    assert_eq!(
        solve(shape, &[0.5, 0.0], 1, 1, 10).map(|b| b.0),
        Err(BoundError::Exposure)
    );
}

#[test]
fn the_bound_without_counts_is_the_same() {
    let mut rng = Rng::new(3);
    let (label, group) = query(&mut rng, 12);
    let t = table(12);
    let k = group.iter().filter(|&&g| g == 0).count();
    for shape in shapes(&label, &group, &t) {
        let (with, _) = solve(shape, &t, k, 4, BUDGET).unwrap();
        let mut prefix = vec![0.0; 13];
        let without = bound::solve(shape, &t, k, 4, BUDGET, &mut prefix, None).unwrap();
        assert_eq!(with, without);
        // Lent memory one short is refused, never read past.
        let mut short = vec![0.0; 12];
        assert_eq!(
            bound::solve(shape, &t, k, 4, BUDGET, &mut short, None),
            Err(BoundError::Scratch)
        );
    }
}

#[test]
fn the_objectives_give_their_optimum_in_cost_units() {
    let mut rng = Rng::new(5);
    for _ in 0..10 {
        let (label, group) = query(&mut rng, 5);
        let t = table(5);
        let mut work = vec![0.0; 6];
        let dtr = Dtr::new(&label, &group, &t).unwrap();
        let eel = Eel::new(&label, &group, 2, &t).unwrap();
        for sessions in [1, 2] {
            let brute_dtr = brute(5, sessions, &|r| dtr.ratio(r, sessions));
            let brute_eel = brute(5, sessions, &|r| eel.value(r, sessions));
            let LowerBound { value, exact } = dtr.lower_bound(sessions, &mut work).unwrap();
            assert!(exact && (value - (brute_dtr - 1.0)).abs() < 1e-12);
            let LowerBound { value, exact } = eel.lower_bound(sessions, &mut work).unwrap();
            assert!(exact && (value - brute_eel).abs() < 1e-12);
        }
        // Too little memory: no bound, rather than a wrong one.
        assert_eq!(dtr.lower_bound(1, &mut work[..5]), None);
    }
    // Single precision, a black box: no bound.
    let t32 = [1.0f32, 0.6, 0.5];
    let mut work = vec![0.0; 4];
    let eel32 = Eel::new(&[1.0, 0.0, 1.0], &[0, 1, 0], 2, &t32[..]).unwrap();
    assert_eq!(eel32.lower_bound(1, &mut work), None);
    // Three groups: 0, the relaxation's least EEL, exact at two sessions (the tied
    // grade's two positions swap), not at one (`tests/bound_groups.rs` has the rest).
    let t = table(3);
    let three = Eel::new(&[1.0, 0.0, 1.0], &[0, 1, 2], 2, &t).unwrap();
    let at = |s| three.lower_bound(s, &mut [0.0; 16]).unwrap();
    assert_eq!((at(1).value, at(1).exact), (0.0, false));
    assert_eq!((at(2).value, at(2).exact), (0.0, true));
    let black_box = |_: &[u16], _: usize| 0.0;
    assert_eq!(black_box.lower_bound(1, &mut work), None);
}

#[test]
fn witness_refuses_a_vector_that_is_not_a_count_vector() {
    let (group, key) = ([0u8, 1, 0, 1], [1.0, 1.0, 0.0, 0.0]);
    let (mut order, mut out) = ([0u16; 4], [0u16; 8]);
    // Group 0 has 2 items: 2 sessions need counts summing to 4, none above 2.
    assert_eq!(
        witness(&[3, 1, 0, 0], &group, &key, 2, &mut order, &mut out),
        Err(BoundError::Degenerate)
    );
    assert_eq!(
        witness(&[2, 1, 0, 0], &group, &key, 2, &mut order, &mut out),
        Err(BoundError::Degenerate)
    );
    assert_eq!(
        witness(&[2, 2], &group, &key, 2, &mut order, &mut out),
        Err(BoundError::Scratch)
    );
    witness(&[2, 1, 1, 0], &group, &key, 2, &mut order, &mut out).unwrap();
    // Session 1: group 0 on positions 0, 1; session 2: on 0, 2. Item 0 before item 2 (key).
    assert_eq!(out, [0, 2, 1, 3, 0, 1, 2, 3]);
}

/// `solve_within` with grade blocks equals brute force over the tuples of permutations
/// that keep every position's label as in the merit order (labels descending), and its
/// witness (`witness` keyed by label) is such a tuple costing that optimum; the restricted
/// optimum is never below `solve`'s.
#[test]
fn within_blocks_equals_brute_force_over_rankings_that_keep_each_positions_grade() {
    for seed in 0..4 {
        let mut rng = Rng::new(100 + seed);
        for (n, sessions) in [(4, 1), (5, 1), (6, 1), (4, 2), (5, 2)] {
            let (label, group) = query(&mut rng, n);
            let t = table(n);
            let mut merit = label.clone();
            merit.sort_by(|a, b| b.total_cmp(a));
            let mut blocks = Vec::new();
            for (r, &l) in merit.iter().enumerate() {
                if merit.get(r + 1) != Some(&l) {
                    let group0 = (0..n).filter(|&i| label[i] == l && group[i] == 0).count();
                    blocks.push(bound::Block { end: r + 1, group0 });
                }
            }
            let group0: usize = blocks.iter().map(|b| b.group0).sum();
            if group0 == 0 || group0 == n {
                continue;
            }
            for shape in shapes(&label, &group, &t) {
                let keeps = |ranking: &[u16]| {
                    ranking.chunks_exact(n).all(|b| {
                        b.iter()
                            .zip(&merit)
                            .all(|(&i, &l)| label[usize::from(i)] == l)
                    })
                };
                let value = |ranking: &[u16]| {
                    let x: f64 = ranking
                        .chunks_exact(n)
                        .flat_map(|b| b.iter().zip(&t))
                        .filter(|(&i, _)| group[usize::from(i)] == 0)
                        .map(|(_, &e)| e)
                        .sum();
                    shape.value(x, t.iter().sum(), sessions)
                };
                let restricted = |r: &[u16]| if keeps(r) { value(r) } else { f64::INFINITY };
                let want = brute(n, sessions, &restricted);
                let (mut prefix, mut walk, mut best) = (vec![0.0; n + 1], vec![0; n], vec![0; n]);
                let counts = Counts {
                    walk: &mut walk,
                    best: &mut best,
                };
                let got = bound::solve_within(
                    shape,
                    &t,
                    &blocks,
                    sessions,
                    BUDGET,
                    &mut prefix,
                    Some(counts),
                )
                .unwrap();
                assert!(got.exact);
                assert!(
                    (got.value - want).abs() < 1e-12,
                    "{shape:?}: {} vs {want}",
                    got.value
                );
                let ranking = witness_vec(&best, &group, &label, sessions);
                assert!(keeps(&ranking), "{ranking:?}");
                assert!((value(&ranking) - want).abs() < 1e-12);
                let (whole, _) = solve(shape, &t, group0, sessions, BUDGET).unwrap();
                assert!(whole.value <= got.value + 1e-12);
            }
        }
    }
}

#[test]
fn within_blocks_refuses_blocks_that_do_not_cut_the_list() {
    let t = table(4);
    let shape = Shape::Dtr {
        utility: [1.0, 1.0],
    };
    let mut prefix = [0.0; 5];
    let block = |end, group0| bound::Block { end, group0 };
    for blocks in [
        vec![block(2, 1), block(3, 1)], // ends before the list does
        vec![block(2, 3), block(4, 0)], // more of group 0 than the block holds
        vec![block(2, 1), block(2, 0), block(4, 1)], // an empty block
        vec![block(2, 0), block(4, 0)], // no group 0 at all
    ] {
        let got = bound::solve_within(shape, &t, &blocks, 1, BUDGET, &mut prefix, None);
        assert_eq!(got, Err(BoundError::Degenerate), "{blocks:?}");
    }
}

/// The least of `shape` over every count vector (brute force over `(S + 1)^n` of them).
fn brute_counts(shape: Shape, exposure: &[f64], group0: usize, sessions: usize) -> f64 {
    let n = exposure.len();
    let total: f64 = exposure.iter().sum();
    let mut counts = vec![0usize; n];
    let mut best = f64::INFINITY;
    loop {
        if counts.iter().sum::<usize>() == sessions * group0 {
            let x: f64 = counts
                .iter()
                .zip(exposure)
                .map(|(&c, e)| c as f64 * e)
                .sum();
            best = best.min(shape.value(x, total, sessions));
        }
        let mut d = 0;
        while d < n {
            counts[d] += 1;
            if counts[d] <= sessions {
                break;
            }
            counts[d] = 0;
            d += 1;
        }
        if d == n {
            return best;
        }
    }
}

/// A walk cut after a few nodes hands its best vector to the lattice: whatever it then
/// returns is a real count vector of its value, never below the optimum, and exact only
/// when it is the optimum (to the tolerance). Lists of 7 to 10 items at 2 to 4 sessions,
/// against every count vector (these short lists are sparse: the lattice seldom reaches
/// the hull bound on them, and must then not claim it).
#[test]
fn a_cut_walk_finished_by_the_lattice_is_never_wrong() {
    let mut rng = Rng::new(19);
    for (n, sessions) in [(7, 2), (7, 3), (8, 2), (8, 3), (7, 4), (10, 4)] {
        for _ in 0..12 {
            let (label, group) = query(&mut rng, n);
            let t = table(n);
            let k = group.iter().filter(|&&g| g == 0).count();
            for shape in shapes(&label, &group, &t) {
                let want = brute_counts(shape, &t, k, sessions);
                let (b, counts) = solve(shape, &t, k, sessions, 3).unwrap();
                assert!(b.lower <= want + 1e-12, "{shape:?} n {n} S {sessions}");
                assert!(b.value >= want - 1e-12);
                if b.exact {
                    assert!(b.value - want <= bound::TOLERANCE);
                }
                if b.value.is_finite() {
                    let w = witness_vec(&counts, &group, &label, sessions);
                    let dtr = Dtr::new(&label, &group, &t).unwrap();
                    let eel = Eel::new(&label, &group, 2, &t).unwrap();
                    let value = match shape {
                        Shape::Dtr { .. } => dtr.ratio(&w, sessions),
                        Shape::Eel { .. } => eel.value(&w, sessions),
                        Shape::DtrBeside { .. } => unreachable!("not among the shapes"),
                    };
                    assert!((value - b.value).abs() < 1e-12);
                }
            }
        }
    }
}

/// Production-shaped queries (20 items, graded labels 0-4 at 26/38/23/6/8 %, groups
/// 45/55) at 4 and 32 sessions: the bound's search at the certifying budget proves the
/// optimum of almost all of them, where a walk alone proved about half at 4 sessions
/// (46 % of 1,000 such queries). Each proof comes with its count vector, whose witness
/// costs the bound's value. 200 queries a session count: the floor of 95 % at 4 sessions
/// is 4 points under the 98 % measured on 1,000, about 3 standard errors of a share of 200.
#[test]
fn production_shaped_queries_are_proven_at_four_and_thirty_two_sessions() {
    let n = 20;
    let t = table(n);
    for (sessions, floor) in [(4, 0.95), (32, 0.99)] {
        let mut rng = Rng::new(23);
        let mut proven = 0;
        let queries = 200;
        for _ in 0..queries {
            let (label, group) = loop {
                let label: Vec<f64> = (0..n)
                    .map(|_| {
                        let u = rng.unit_f64();
                        [0.26, 0.64, 0.87, 0.93].iter().filter(|&&c| u >= c).count() as f64
                    })
                    .collect();
                let group: Vec<u8> = (0..n).map(|_| u8::from(rng.unit_f64() >= 0.45)).collect();
                if Dtr::valid(&label, &group) {
                    break (label, group);
                }
            };
            let k = group.iter().filter(|&&g| g == 0).count();
            let [dtr_shape, _] = shapes(&label, &group, &t);
            let (b, counts) = solve(dtr_shape, &t, k, sessions, bound::CERTIFY_BUDGET).unwrap();
            if b.exact {
                proven += 1;
                let w = witness_vec(&counts, &group, &label, sessions);
                let dtr = Dtr::new(&label, &group, &t).unwrap();
                assert!((dtr.ratio(&w, sessions) - b.value).abs() < 1e-12);
                assert!(b.value - b.lower <= bound::TOLERANCE);
            }
        }
        let share = proven as f64 / queries as f64;
        assert!(
            share >= floor,
            "{sessions} sessions: {proven} of {queries} proven"
        );
    }
}

/// A walk cut after 30 nodes whose lattice misses the hull bound walks again with 10 times
/// the budget and its last positions answered by a sorted table of their sums (`tail.rs`):
/// on lists of 7 to 12 items at 2 to 8 sessions, its bound is never above the optimum
/// (every count vector, brute force), exact only at the optimum, and its count vector,
/// completed from the table, deals rankings that cost its value. 46 of these 100 searches
/// finish (the floor of a third keeps the test about the cut searches, not all finished).
#[test]
fn a_long_walk_with_its_last_positions_tabled_is_never_wrong() {
    let mut rng = Rng::new(37);
    let (mut exact, mut all) = (0, 0);
    for (n, sessions) in [(9, 4), (10, 4), (12, 2), (10, 3), (7, 8)] {
        for _ in 0..10 {
            let (label, group) = query(&mut rng, n);
            let t = table(n);
            let k = group.iter().filter(|&&g| g == 0).count();
            for shape in shapes(&label, &group, &t) {
                let want = brute_counts(shape, &t, k, sessions);
                let (b, counts) = solve(shape, &t, k, sessions, 30).unwrap();
                assert!(b.lower <= want + 1e-12, "{shape:?} n {n} S {sessions}");
                assert!(b.value >= want - 1e-12);
                all += 1;
                if b.exact {
                    exact += 1;
                    assert!(
                        b.value - want <= bound::TOLERANCE,
                        "{shape:?} n {n} S {sessions}"
                    );
                }
                if b.value.is_finite() {
                    let w = witness_vec(&counts, &group, &label, sessions);
                    let value = match shape {
                        Shape::Dtr { .. } => {
                            Dtr::new(&label, &group, &t).unwrap().ratio(&w, sessions)
                        }
                        Shape::Eel { .. } => {
                            Eel::new(&label, &group, 2, &t).unwrap().value(&w, sessions)
                        }
                        Shape::DtrBeside { .. } => unreachable!("not among the shapes"),
                    };
                    assert!(
                        (value - b.value).abs() < 1e-12,
                        "{shape:?} n {n} S {sessions}"
                    );
                }
            }
        }
    }
    assert!(3 * exact >= all && exact < all, "{exact} of {all} exact");
}

/// Near the hull's ends, where the long walk answers the subtrees with at most two
/// placements (or two holes) left at once (`Search::sparse`): a DTR whose fair point sits
/// at 80 % to 99 % of the way from the bottom `k` positions' exposure to the top `k`'s
/// (and the mirror, 1 % to 20 %), the first walk cut after 50 nodes (a budget of 200) so
/// that the lattice and the long walk run (in these 60 searches the long walk answers 82
/// subtrees so, 23 of them by holes). Against every count vector: never below the optimum, exact only at it, and the
/// count vector (completed by those answers) deals rankings that cost its value.
#[test]
fn near_the_hull_ends_the_long_walk_is_never_wrong() {
    let mut rng = Rng::new(41);
    let (mut exact, mut all) = (0, 0);
    for (n, sessions) in [(9, 4), (10, 3), (11, 2), (8, 5), (10, 4)] {
        let t = table(n);
        let total: f64 = t.iter().sum();
        for _ in 0..12 {
            let k = 2 + (rng.next_u64() % (n as u64 - 3)) as usize;
            let (top, bottom): (f64, f64) = (t[..k].iter().sum(), t[n - k..].iter().sum());
            let near = 0.80 + 0.19 * (rng.next_u64() % 1000) as f64 / 1000.0;
            let at = if rng.next_u64() % 2 == 0 {
                near
            } else {
                1.0 - near
            };
            // Group 0's share of the utility that puts the fair point there.
            let share = (bottom + at * (top - bottom)) / total;
            let group: Vec<u8> = (0..n).map(|i| u8::from(i >= k)).collect();
            let label: Vec<f64> = group
                .iter()
                .map(|&g| {
                    if g == 0 {
                        share / k as f64
                    } else {
                        (1.0 - share) / (n - k) as f64
                    }
                })
                .collect();
            let shape = Shape::Dtr {
                utility: [share, 1.0 - share],
            };
            let want = brute_counts(shape, &t, k, sessions);
            let (b, counts) = solve(shape, &t, k, sessions, 200).unwrap();
            let case = format!("n {n} S {sessions} k {k} at {at}");
            assert!(b.lower <= want + 1e-12, "{case}");
            assert!(b.value >= want - 1e-12, "{case}");
            all += 1;
            if b.exact {
                exact += 1;
                assert!(b.value - want <= bound::TOLERANCE, "{case}");
            }
            let w = witness_vec(&counts, &group, &label, sessions);
            let value = Dtr::new(&label, &group, &t).unwrap().ratio(&w, sessions);
            assert!((value - b.value).abs() < 1e-12, "{case}");
        }
    }
    // Short lists: every one is proven within the long walk's budget.
    assert_eq!(exact, all);
}
