//! The least DTR over `S` deterministic rankings of a list of more than two groups: the
//! exact optimum by enumeration where that is tractable, a certified lower bound where not.
//!
//! DTR depends on the rankings only through each group's total exposure. Over one session
//! the vector of group totals `x` takes finitely many values, one per sequence of group
//! labels down the list; over `S` sessions it is a sum of `S` of them.
//!
//! - Exact: every distinct one-session vector, then every multiset of `S` of them, while
//!   the count stays within a budget.
//! - Lower bound: for a set `A` of groups with `n_A` items, `x(A)` lies between `g(A)`, the
//!   sum of the `n_A` smallest position exposures, and `f(A)`, the sum of the `n_A`
//!   largest; `f` is submodular, so these inequalities describe a generalised polymatroid
//!   that holds every one-session vector and, scaled by `S`, every sum of `S`. DTR at most
//!   `r` with scale `t` is the box `t U_G <= x_G / S <= r t U_G`, and by Frank's
//!   intersection theorem a generalised polymatroid meets a box exactly when
//!   `l(A) <= f(A)` and `u(A) >= g(A)` for every `A`; eliminating `t` gives the least
//!   feasible `r`: `max_A (g(A) / U(A)) / min_A (f(A) / U(A))`, or 1 if less, over nonempty sets of
//!   groups with utility (`2^k` sets for `k` groups, independent of `S`). It is a lower
//!   bound of DTR over any `S`, exact when some rankings attain it.
//!
//! Plugging in: `methods::bound` calls `ppg_core::objective::bound::solve` for the
//! protocol's two groups; a DTR over more
//! groups would call [`solve`] here with the same exposure table, session count and a
//! budget, and report `lower` (exact when `exact`).

use std::collections::HashSet;

use ppg_core::objective::DtrGroups;

/// Group ids below this (`ppg_core::objective::MAX_GROUPS`).
const MAX_GROUPS: usize = ppg_core::objective::MAX_GROUPS;

/// What [`solve`] found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupsBound {
    /// The least DTR (exact) or a proven lower bound of it.
    pub lower: f64,
    /// Whether `lower` is the optimum.
    pub exact: bool,
}

/// The polymatroid lower bound of DTR (see the module docs) for items with `group` ids
/// and `utility`, positions with `exposure` (one list's worth, any order).
pub fn lower_bound(group: &[u8], utility: &[f64], exposure: &[f64]) -> f64 {
    let mut u = [0.0; MAX_GROUPS];
    let mut count = [0usize; MAX_GROUPS];
    for (&g, &y) in group.iter().zip(utility) {
        u[usize::from(g)] += y;
        count[usize::from(g)] += 1;
    }
    let with_utility: Vec<usize> = (0..MAX_GROUPS).filter(|&g| u[g] > 0.0).collect();
    if with_utility.len() < 2 {
        return 1.0;
    }
    let mut sorted = exposure[..group.len()].to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    // top[m], bottom[m]: the sums of the m largest and the m smallest exposures.
    let mut top = vec![0.0; sorted.len() + 1];
    let mut bottom = vec![0.0; sorted.len() + 1];
    for m in 0..sorted.len() {
        top[m + 1] = top[m] + sorted[m];
        bottom[m + 1] = bottom[m] + sorted[sorted.len() - 1 - m];
    }
    let (mut most_needed, mut least_allowed) = (0.0f64, f64::INFINITY);
    for set in 1u32..1 << with_utility.len() {
        let (mut items, mut utility) = (0, 0.0);
        for (bit, &g) in with_utility.iter().enumerate() {
            if set >> bit & 1 == 1 {
                items += count[g];
                utility += u[g];
            }
        }
        most_needed = most_needed.max(bottom[items] / utility);
        least_allowed = least_allowed.min(top[items] / utility);
    }
    // The box needs `l <= u` too: `r >= 1`.
    (most_needed / least_allowed).max(1.0)
}

/// The least DTR over `sessions` rankings: exact when the one-session label sequences and
/// the multisets of `sessions` exposure vectors each number at most `budget`, else the
/// polymatroid lower bound. Group ids must be below 16 and `exposure` at least as long as
/// the list.
pub fn solve(
    group: &[u8],
    utility: &[f64],
    exposure: &[f64],
    sessions: usize,
    budget: u64,
) -> GroupsBound {
    let bound = lower_bound(group, utility, exposure);
    let mut u = [0.0; MAX_GROUPS];
    let mut count = [0usize; MAX_GROUPS];
    for (&g, &y) in group.iter().zip(utility) {
        u[usize::from(g)] += y;
        count[usize::from(g)] += 1;
    }
    let groups = group.iter().map(|&g| usize::from(g) + 1).max().unwrap_or(0);
    let Some(vectors) = session_vectors(&count[..groups], &exposure[..group.len()], budget) else {
        return GroupsBound {
            lower: bound,
            exact: false,
        };
    };
    if multisets(vectors.len() as u64, sessions as u64).is_none_or(|m| m > budget) {
        return GroupsBound {
            lower: bound,
            exact: false,
        };
    }
    let mut best = f64::INFINITY;
    let mut sum = vec![0.0; groups];
    combine(&vectors, 0, sessions, &mut sum, &mut |totals| {
        best = best.min(DtrGroups::of_totals(totals, &u[..groups], sessions));
    });
    GroupsBound {
        lower: best,
        exact: true,
    }
}

/// The distinct vectors of group exposure totals of one session, or `None` when there are
/// more label sequences than `budget`.
fn session_vectors(count: &[usize], exposure: &[f64], budget: u64) -> Option<Vec<Vec<f64>>> {
    let n: usize = count.iter().sum();
    // Sequences of labels: n! / prod count!, computed as a product of binomials.
    let mut sequences = 1u64;
    let mut left = n as u64;
    for &c in count {
        sequences = sequences.checked_mul(binomial(left, c as u64)?)?;
        left -= c as u64;
    }
    if sequences > budget {
        return None;
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut left = count.to_vec();
    let mut totals = vec![0.0; count.len()];
    label(&mut left, &mut totals, exposure, 0, &mut |t| {
        let key: Vec<u64> = t.iter().map(|x| x.to_bits()).collect();
        if seen.insert(key) {
            out.push(t.to_vec());
        }
    });
    Some(out)
}

/// Every assignment of the remaining labels to positions `position..`.
fn label(
    left: &mut [usize],
    totals: &mut [f64],
    exposure: &[f64],
    position: usize,
    visit: &mut dyn FnMut(&[f64]),
) {
    if position == exposure.len() {
        visit(totals);
        return;
    }
    for g in 0..left.len() {
        if left[g] > 0 {
            left[g] -= 1;
            let before = totals[g];
            totals[g] += exposure[position];
            label(left, totals, exposure, position + 1, visit);
            totals[g] = before;
            left[g] += 1;
        }
    }
}

/// Every multiset of `sessions` vectors from `vectors[from..]`, summed into `sum`.
fn combine(
    vectors: &[Vec<f64>],
    from: usize,
    sessions: usize,
    sum: &mut [f64],
    visit: &mut dyn FnMut(&[f64]),
) {
    if sessions == 0 {
        visit(sum);
        return;
    }
    for k in from..vectors.len() {
        let before = sum.to_vec();
        for (s, v) in sum.iter_mut().zip(&vectors[k]) {
            *s += v;
        }
        combine(vectors, k, sessions - 1, sum, visit);
        sum.copy_from_slice(&before);
    }
}

fn binomial(n: u64, k: u64) -> Option<u64> {
    let k = k.min(n - k);
    let mut out = 1u64;
    for i in 0..k {
        out = out.checked_mul(n - i)? / (i + 1);
    }
    Some(out)
}

/// Multisets of `k` from `m` kinds: `C(m + k - 1, k)`.
fn multisets(m: u64, k: u64) -> Option<u64> {
    binomial((m + k).checked_sub(1)?, k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ppg_core::objective::{exposure, RankStart};

    fn permutations(n: usize) -> Vec<Vec<u16>> {
        let mut out = Vec::new();
        let mut p: Vec<u16> = (0..n as u16).collect();
        fn heap(k: usize, p: &mut Vec<u16>, out: &mut Vec<Vec<u16>>) {
            if k <= 1 {
                out.push(p.clone());
                return;
            }
            for i in 0..k {
                heap(k - 1, p, out);
                let j = if k % 2 == 0 { i } else { 0 };
                p.swap(j, k - 1);
            }
        }
        heap(n, &mut p, &mut out);
        out
    }

    /// The least DTR over every `sessions`-tuple of permutations, by brute force.
    fn brute(group: &[u8], utility: &[f64], e: &[f64], sessions: usize) -> f64 {
        let perms = permutations(group.len());
        let mut u = [0.0; MAX_GROUPS];
        for (&g, &y) in group.iter().zip(utility) {
            u[usize::from(g)] += y;
        }
        let mut best = f64::INFINITY;
        let mut index = vec![0usize; sessions];
        loop {
            let mut totals = [0.0; MAX_GROUPS];
            for &k in &index {
                for (pos, &item) in perms[k].iter().enumerate() {
                    totals[usize::from(group[usize::from(item)])] += e[pos];
                }
            }
            best = best.min(DtrGroups::of_totals(&totals, &u, sessions));
            let mut s = 0;
            loop {
                if s == sessions {
                    return best;
                }
                index[s] += 1;
                if index[s] < perms.len() {
                    break;
                }
                index[s] = 0;
                s += 1;
            }
        }
    }

    #[test]
    fn exact_equals_brute_force_and_the_bound_stays_below() {
        let mut e = [0.0; 8];
        exposure::fill(RankStart::One, &mut e);
        let cases: [(&[u8], &[f64], usize); 6] = [
            (&[0, 1, 2], &[1.0, 1.0, 1.0], 1),
            (&[0, 1, 2], &[1.0, 1.0, 1.0], 3),
            (&[0, 1, 2, 2, 0], &[1.0, 0.0, 2.0, 1.0, 1.0], 2),
            (&[0, 1, 2, 1, 0], &[3.0, 1.0, 1.0, 1.0, 0.0], 2),
            (&[0, 1, 2, 3, 0, 1], &[1.0, 2.0, 1.0, 1.0, 1.0, 0.0], 1),
            (&[0, 0, 1, 2], &[1.0, 1.0, 1.0, 0.0], 3),
        ];
        for (group, utility, sessions) in cases {
            let want = brute(group, utility, &e, sessions);
            let got = solve(group, utility, &e, sessions, 1 << 20);
            assert!(got.exact, "{group:?} {sessions}");
            assert!(
                (got.lower - want).abs() < 1e-12,
                "{group:?} {sessions}: {} vs {want}",
                got.lower
            );
            let bound = lower_bound(group, utility, &e);
            assert!(
                bound <= want + 1e-12,
                "{group:?}: bound {bound} above {want}"
            );
            assert!(bound >= 1.0);
        }
    }

    #[test]
    fn over_budget_gives_the_certified_bound() {
        let mut e = [0.0; 12];
        exposure::fill(RankStart::One, &mut e);
        let group = [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2];
        let utility = [1.0, 2.0, 3.0, 1.0, 1.0, 0.5, 2.0, 1.0, 1.0, 0.0, 1.0, 1.0];
        let got = solve(&group, &utility, &e, 4, 1000);
        assert!(!got.exact);
        assert_eq!(got.lower, lower_bound(&group, &utility, &e));
        // Any ranking's DTR is at least the bound.
        let mut u = [0.0; MAX_GROUPS];
        for (&g, &y) in group.iter().zip(&utility) {
            u[usize::from(g)] += y;
        }
        let mut totals = [0.0; MAX_GROUPS];
        for (pos, &g) in group.iter().enumerate() {
            totals[usize::from(g)] += e[pos];
        }
        assert!(DtrGroups::of_totals(&totals, &u, 1) >= got.lower);
    }

    /// Groups without utility or a single group with it: DTR is 1 whatever the ranking.
    #[test]
    fn degenerate_is_one() {
        let e = [1.0, 0.5, 0.25];
        assert_eq!(lower_bound(&[0, 1, 1], &[1.0, 0.0, 0.0], &e), 1.0);
        let got = solve(&[0, 1, 1], &[1.0, 0.0, 0.0], &e, 2, 100);
        assert_eq!((got.lower, got.exact), (1.0, true));
    }
}
