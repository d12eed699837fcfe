//! The exact optimum of the protocol's DTR and EEL over `S` deterministic rankings of one
//! query: the floor that no optimiser's row can go below.
//!
//! It stays whole (over 400 lines, a third of them tests) because the argument below, the
//! search it justifies and the brute-force tests that check it are one proof: split, each
//! part would point at the others for its reason.
//!
//! # Why the optimum is a one-dimensional search
//!
//! Both metrics compare two groups, and both depend on a ranking only through `x`, the
//! exposure that group 0 receives summed over the `S` sessions:
//!
//! - DTR: `ratio_0 = x / (S U_0)`, `ratio_1 = (S T - x) / (S U_1)`, with `T` the exposure
//!   of one whole list (`sum_r e_r`) and `U_g` the utility of group `g` in one list. Their
//!   quotient `ratio_0 / ratio_1` grows with `x`, and DTR is the larger of it and its
//!   inverse, so DTR falls while `x` is below the fair point `S T U_0 / (U_0 + U_1)` and
//!   rises above it.
//! - EEL: `(x / S - t_0)^2 + ((S T - x) / S - t_1)^2` with `t_g` the group targets: a
//!   parabola in `x`.
//!
//! So each is unimodal in `x` around a centre `c`, and over any interval `[lo, hi]` of
//! `x` its minimum is its value at `c` clamped into the interval.
//!
//! # Which totals `x` are achievable
//!
//! Let group 0 have `k` items of `n`, and let `c_r` be the number of sessions in which
//! group 0 holds position `r`. Then `x = sum_r c_r e_r`, with `0 <= c_r <= S` and
//! `sum_r c_r = S k`. Conversely every such vector comes from `S` rankings: list the
//! positions `r` each `c_r` times, in order, and deal the list round-robin to the sessions;
//! as `c_r <= S`, no session gets a position twice, and each gets exactly `k` positions
//! (`witness` builds the rankings this way). So the optimum over `S`-tuples of
//! permutations is the optimum over these count vectors, `(S + 1)^n` of them at most
//! instead of `(n!)^S`.
//!
//! # The search, and when it is exact
//!
//! [`solve`] walks the count vectors by depth-first branch and bound, position by position
//! from the top. With `m` items of group 0 still to place on positions `r..n`, the rest
//! adds between the `m` smallest and the `m` largest exposures (each taken at most `S`
//! times) to `x`: an interval, and the metric at the clamped centre bounds every completion
//! from below. Branches whose bound is no better than the best total found are cut; the
//! counts are tried from the one whose interval holds the centre outwards, so that good
//! totals come first. The search stops
//!
//! - when it has walked every branch: the best total is the optimum ([`Bound::exact`]);
//! - when the best total is within [`TOLERANCE`] of the metric at the unclamped centre,
//!   the **hull bound** that no ranking beats: the optimum is known to that tolerance, and
//!   counts as exact too;
//! - after `budget` nodes: then the proven lower bound is the hull bound alone, and
//!   [`Bound::exact`] is false ([`Bound::lower`] below [`Bound::value`]).
//!
//! The hull bound is the metric at the centre clamped into `[S L, S H]`, `L` and `H` the
//! exposure of the bottom and top `k` positions: where the fair point lies outside it, one
//! group is too small (or too rich) to be treated fairly and the optimum is the extreme
//! ranking in every session, found at the first leaf.
//!
//! Only the positions' exposures matter, so the optimum is the same with or without the
//! paper's intra-group constraint (within a group, items can take the group's positions in
//! their starting order).

/// Where the search stops early: the best total's metric is within this of the hull
/// bound. Far below the tables' three decimals and a mean over hundreds of queries.
pub const TOLERANCE: f64 = 1e-8;

/// Search nodes per query and session count before [`solve`] settles for the hull bound.
pub const BUDGET: u64 = 2_000_000;

/// A metric as a function of group 0's total exposure: what [`solve`] minimises.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// DTR, with the utility of groups 0 and 1 in one list (both positive).
    Dtr {
        /// `U_0`, `U_1`.
        utility: [f64; 2],
    },
    /// EEL, with the target exposure of groups 0 and 1 in one session.
    Eel {
        /// `t_0`, `t_1`.
        target: [f64; 2],
    },
}

impl Shape {
    /// The metric when group 0 receives `x` of the `sessions * total` exposure there is.
    /// Agrees with `ppg_core`'s `Dtr::ratio` and `Eel::value` on any ranking with that
    /// total, up to rounding.
    pub fn value(&self, x: f64, total: f64, sessions: usize) -> f64 {
        let s = sessions as f64;
        let rest = s * total - x;
        match *self {
            Shape::Dtr { utility } => {
                let (a, b) = (x / (s * utility[0]), rest / (s * utility[1]));
                if a == 0.0 || b == 0.0 {
                    1.0
                } else {
                    (a / b).max(b / a)
                }
            }
            Shape::Eel { target } => {
                let (d0, d1) = (x / s - target[0], rest / s - target[1]);
                d0 * d0 + d1 * d1
            }
        }
    }

    /// The `x` where the metric is lowest: DTR's fair point, EEL's vertex.
    fn centre(&self, total: f64, sessions: usize) -> f64 {
        let s = sessions as f64;
        match *self {
            Shape::Dtr { utility } => s * total * utility[0] / (utility[0] + utility[1]),
            Shape::Eel { target } => s * (target[0] + total - target[1]) / 2.0,
        }
    }
}

/// The optimum of one query at one session count.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// A proven lower bound of the metric over all `S`-tuples of rankings: the optimum
    /// itself when [`Bound::exact`].
    pub lower: f64,
    /// The metric of the best count vector found (an achievable value).
    pub value: f64,
    /// The best count vector: `counts[r]` sessions in which group 0 holds position `r`.
    pub counts: Vec<u32>,
    /// Whether `value` is the optimum (to [`TOLERANCE`]).
    pub exact: bool,
}

/// Why [`solve`] refused its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoundError {
    /// No sessions, or a group empty: there is nothing to be fair between.
    Degenerate,
    /// An exposure is not positive and finite, or the exposures are not non-increasing.
    Exposure,
}

impl std::fmt::Display for BoundError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BoundError::Degenerate => "the bound needs at least one session and both groups",
            BoundError::Exposure => "the bound needs positive, finite, non-increasing exposures",
        })
    }
}

impl std::error::Error for BoundError {}

/// The minimum of `shape` over `sessions` rankings of a list with `exposure[r]` at
/// position `r` (non-increasing) and `group0` of its items in group 0, searching at most
/// `budget` nodes (see the module docs).
///
/// # Errors
/// [`BoundError`] for no sessions, an empty group, or exposures that are not positive,
/// finite and non-increasing.
pub fn solve(
    shape: Shape,
    exposure: &[f64],
    group0: usize,
    sessions: usize,
    budget: u64,
) -> Result<Bound, BoundError> {
    let n = exposure.len();
    if sessions == 0 || group0 == 0 || group0 >= n {
        return Err(BoundError::Degenerate);
    }
    if exposure.iter().any(|&e| !(e.is_finite() && e > 0.0))
        || exposure.windows(2).any(|w| w[1] > w[0])
    {
        return Err(BoundError::Exposure);
    }
    let mut prefix = vec![0.0; n + 1];
    for (r, &e) in exposure.iter().enumerate() {
        prefix[r + 1] = prefix[r] + e;
    }
    let total = prefix[n];
    let mut search = Search {
        exposure,
        prefix,
        sessions,
        shape,
        total,
        centre: shape.centre(total, sessions),
        best: f64::INFINITY,
        best_counts: vec![0; n],
        counts: vec![0; n],
        nodes: 0,
        budget,
        stopped: false,
        floor: 0.0,
    };
    let (lo, hi) = search.range(0, sessions * group0);
    search.floor = search.lower(lo, hi);
    search.visit(0, sessions * group0, 0.0);
    let exact = !search.stopped || search.best - search.floor <= TOLERANCE;
    Ok(Bound {
        lower: if search.stopped {
            search.floor.min(search.best)
        } else {
            search.best
        },
        value: search.best,
        counts: search.best_counts,
        exact,
    })
}

/// The depth-first branch and bound over count vectors.
struct Search<'a> {
    exposure: &'a [f64],
    /// `prefix[r]`: the exposure of positions `0..r`.
    prefix: Vec<f64>,
    sessions: usize,
    shape: Shape,
    total: f64,
    centre: f64,
    best: f64,
    best_counts: Vec<u32>,
    counts: Vec<u32>,
    nodes: u64,
    budget: u64,
    stopped: bool,
    /// The hull bound: nothing is lower, so reaching it ends the search.
    floor: f64,
}

impl Search<'_> {
    fn at(&self, x: f64) -> f64 {
        self.shape.value(x, self.total, self.sessions)
    }

    /// The least metric over totals in `[lo, hi]` (the shape is unimodal).
    fn lower(&self, lo: f64, hi: f64) -> f64 {
        self.at(self.centre.clamp(lo, hi))
    }

    /// The least and largest exposure `m` placements add on positions `r..n`, each
    /// position taken at most `sessions` times (`m <= sessions * (n - r)`).
    fn range(&self, r: usize, m: usize) -> (f64, f64) {
        let n = self.exposure.len();
        let (s, p, e) = (self.sessions, &self.prefix, self.exposure);
        let (full, part) = (m / s, (m % s) as f64);
        let sf = s as f64;
        let top = sf * (p[r + full] - p[r]) + if part > 0.0 { part * e[r + full] } else { 0.0 };
        let bottom = sf * (p[n] - p[n - full])
            + if part > 0.0 {
                part * e[n - full - 1]
            } else {
                0.0
            };
        (bottom, top)
    }

    /// The interval of totals when position `r` takes `c` of `m` placements after `x`.
    fn child(&self, r: usize, m: usize, c: usize, x: f64) -> (f64, f64) {
        let here = x + c as f64 * self.exposure[r];
        let (lo, hi) = self.range(r + 1, m - c);
        (here + lo, here + hi)
    }

    fn visit(&mut self, r: usize, m: usize, x: f64) {
        if self.stopped {
            return;
        }
        self.nodes += 1;
        if self.nodes > self.budget {
            self.stopped = true;
            return;
        }
        let n = self.exposure.len();
        if r + 1 == n {
            // The last position takes what is left (at most `sessions`, by feasibility).
            self.counts[r] = m as u32;
            let value = self.at(x + m as f64 * self.exposure[r]);
            if value < self.best {
                self.best = value;
                self.best_counts.copy_from_slice(&self.counts);
                if value - self.floor <= TOLERANCE {
                    self.stopped = true;
                }
            }
            return;
        }
        let s = self.sessions;
        let first = m.saturating_sub(s * (n - r - 1));
        let last = s.min(m);
        // Child intervals move right as `c` grows (position r is worth at least any later
        // one), so their bounds fall and then rise: start where the centre is reached and
        // walk outwards, always to the side with the lower bound.
        let mut up = first;
        while up < last && self.child(r, m, up, x).1 < self.centre {
            up += 1;
        }
        let mut down = up.checked_sub(1).filter(|&d| d >= first);
        let mut next_up = Some(up);
        loop {
            let bound_of = |c: Option<usize>| {
                c.map(|c| {
                    let (lo, hi) = self.child(r, m, c, x);
                    self.lower(lo, hi)
                })
            };
            let (bu, bd) = (bound_of(next_up), bound_of(down));
            let take_up = match (bu, bd) {
                (Some(a), Some(b)) => a <= b,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let (c, bound) = if take_up {
                (next_up.expect("checked"), bu.expect("checked"))
            } else {
                (down.expect("checked"), bd.expect("checked"))
            };
            // Every child further on this side, and every child on the other side with a
            // higher bound, is no better: the walk ends at the first cut.
            if bound >= self.best || self.stopped {
                break;
            }
            self.counts[r] = c as u32;
            self.visit(r + 1, m - c, x + c as f64 * self.exposure[r]);
            if take_up {
                next_up = (c < last).then_some(c + 1);
            } else {
                down = c.checked_sub(1).filter(|&d| d >= first);
            }
        }
    }
}

/// `sessions` rankings (blocks of item ids) that realise `counts`: group 0 holds position
/// `r` in `counts[r]` sessions. Within the positions of its group, items go by `label`,
/// highest first (ties: lower id first), the best NDCG these positions allow.
///
/// # Panics
/// If `counts` is not a count vector of `group` over `sessions` (see [`Bound::counts`]).
pub fn witness(counts: &[u32], group: &[u8], label: &[f64], sessions: usize) -> Vec<u16> {
    let n = group.len();
    assert_eq!(counts.len(), n, "one count per position");
    let mut by_label: [Vec<u16>; 2] = [Vec::new(), Vec::new()];
    for (i, &g) in group.iter().enumerate() {
        by_label[usize::from(g != 0)].push(i as u16);
    }
    for items in &mut by_label {
        items.sort_by(|&a, &b| label[usize::from(b)].total_cmp(&label[usize::from(a)]));
    }
    // Deal the positions of group 0 round-robin: session j gets copies j, j + S, ...
    let mut holds = vec![vec![false; n]; sessions];
    let mut dealt = 0;
    for (r, &c) in counts.iter().enumerate() {
        for _ in 0..c {
            let session = &mut holds[dealt % sessions];
            assert!(!session[r], "a count above the number of sessions");
            session[r] = true;
            dealt += 1;
        }
    }
    assert_eq!(dealt, sessions * by_label[0].len(), "counts sum to S k");
    let mut out = Vec::with_capacity(n * sessions);
    for session in &holds {
        let mut next = [by_label[0].iter(), by_label[1].iter()];
        for &zero in session {
            let item = next[usize::from(!zero)]
                .next()
                .expect("k positions per session");
            out.push(*item);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ppg_core::objective::{exposure, Dtr, Eel, RankStart};
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
                    let b = solve(shape, &t, k, sessions, BUDGET).unwrap();
                    assert!(b.exact, "seed {seed}, n {n}, S {sessions}");
                    assert!(
                        (b.lower - want).abs() < 1e-12,
                        "seed {seed}, n {n}, S {sessions}: bound {} brute force {want}",
                        b.lower
                    );
                    // The witness is a real ranking with the bound's value.
                    let w = witness(&b.counts, &group, &label, sessions);
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
                    let b = solve(shape, &t, k, sessions, BUDGET).unwrap();
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
            let full = solve(shape, &t, k, 3, BUDGET).unwrap();
            let cut = solve(shape, &t, k, 3, 5).unwrap();
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
        assert_eq!(solve(shape, &t, 0, 1, 10), Err(BoundError::Degenerate));
        assert_eq!(solve(shape, &t, 4, 1, 10), Err(BoundError::Degenerate));
        assert_eq!(solve(shape, &t, 2, 0, 10), Err(BoundError::Degenerate));
        assert_eq!(
            solve(shape, &[0.5, 0.6], 1, 1, 10),
            Err(BoundError::Exposure)
        );
        assert_eq!(
            solve(shape, &[0.5, 0.0], 1, 1, 10),
            Err(BoundError::Exposure)
        );
    }
}
