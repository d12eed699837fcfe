//! A lower bound of AWRF's divergence over every ranking.
//!
//! A ranking gives group `g` the attention of the positions its items hold, so any set
//! `T` of groups, holding `m_T` items, receives between the `m_T` least and the `m_T`
//! greatest attentions of the scored positions (a ranking reaches both ends). The
//! Jensen-Shannon divergence is an f-divergence, so merging groups never raises it (the
//! data-processing inequality): the divergence of the ranking's distribution from the
//! target is at least that of the two-cell split `T` / the rest, and that, convex in the
//! share of `T`, is least at the target's share of `T` clamped into the reachable interval.
//! The largest such two-cell divergence over the sets tried is the bound.
//!
//! It is 0 whenever every set can have its target share (the usual case: the target
//! lies in the hull of the achievable distributions), and positive where a group is too
//! small or too large for its target share, such as a group of the population with no
//! item in the list (TREC 2021's world population over regions a query's pages lack), or
//! one of too few items for its share of the top ranks. Over up to 10 groups every set is
//! tried; over more, each group alone and the groups without items.

use super::MAX_GROUPS;

/// Groups up to which every subset is tried (1,024 two-cell divergences).
const ALL_SUBSETS: usize = 10;

/// The bound of the divergence for groups of `size[g]` items against `target`, with
/// `attention` the scored positions' (non-increasing; `None` otherwise).
pub(super) fn divergence(attention: &[f64], size: &[usize], target: &[f64]) -> Option<f64> {
    if attention.windows(2).any(|w| w[1] > w[0]) {
        return None;
    }
    let n: usize = size.iter().sum();
    let total: f64 = attention.iter().sum();
    let top = |m: usize| -> f64 { attention[..m.min(attention.len())].iter().sum() };
    // The split's least divergence: `T` holds `m` items and the target gives it `share`.
    let split = |m: usize, share: f64| -> f64 {
        let (lo, hi) = ((total - top(n - m)) / total, top(m) / total);
        let p = share.clamp(lo, hi);
        jensen_shannon(&[p, 1.0 - p], &[share, 1.0 - share])
    };
    let groups = size.len().min(MAX_GROUPS);
    let mut best = 0.0f64;
    if groups <= ALL_SUBSETS {
        for set in 1u32..(1 << groups) - 1 {
            let in_set = |g: &usize| set >> g & 1 == 1;
            let m = (0..groups).filter(in_set).map(|g| size[g]).sum();
            let share = (0..groups).filter(in_set).map(|g| target[g]).sum();
            best = best.max(split(m, share));
        }
    } else {
        for g in 0..groups {
            best = best.max(split(size[g], target[g]));
        }
        let empty = (0..groups).filter(|&g| size[g] == 0);
        best = best.max(split(0, empty.map(|g| target[g]).sum()));
    }
    Some(best)
}

/// Jensen-Shannon divergence of two distributions, natural logarithms; a zero entry
/// contributes nothing (`0 ln 0 = 0`).
// Here rather than in `awrf.rs`, which scores with it too, so that the bound need not
// import the metric that imports it.
pub(super) fn jensen_shannon(p: &[f64], q: &[f64]) -> f64 {
    let part = |a: f64, m: f64| if a > 0.0 { a * libm::log(a / m) } else { 0.0 };
    let mut sum = 0.0;
    for (&a, &b) in p.iter().zip(q) {
        let m = 0.5 * (a + b);
        sum += part(a, m) + part(b, m);
    }
    0.5 * sum
}
