//! A lower bound of raw EE-L over `S` sessions, for the positional browsing models.
//!
//! # Why the relaxation over distributions gives nothing
//!
//! Under a positional model (the log discount, RBP, and the cascade as `d943b3e` counts
//! it, `(p (1 - u))^i`) an item's exposure depends on its position alone, so the expected
//! exposure vectors of all *distributions* over rankings are the convex hull of the
//! permutations of the position vector `w` (doubly stochastic matrices times `w`). The
//! target is a point of that hull: each level's items share the mean exposure of the
//! level's block of positions, which a uniform shuffle within every block reaches. Group
//! targets are sums of item targets, so they too are reached. The projection of the target
//! onto the hull is the target itself, and the relaxation's bound is 0 at both levels.
//!
//! # What `S` sessions add
//!
//! A ranking over `S` sessions is a mean of `S` permutations, not any distribution, and
//! that discreteness is the whole gap. The bound here keeps it class by class: a class is
//! a group's relevant items (group level; irrelevant items count for nothing and are free)
//! or one item (item level). A class of `m` items receives `1/S` times a sum of `S m`
//! position exposures, each position taken at most `S` times, and every such count vector
//! is achievable ([`bound`]'s argument). Its nearest achievable value to the class's target
//! is the one-group search of [`bound::solve`] (group `m` against the rest with target
//! `T - t`, whose metric is then twice the squared distance). Summing the classes' minima
//! drops the coupling between classes (two groups cannot both take position 0), so the
//! sum is a lower bound; it is the optimum itself where there is one class in play (one
//! group with relevant items), and where two groups hold every item the coupled two-group
//! search of EEL runs instead (exact when it ends).
//!
//! # The published cascade
//!
//! The cascade as Diaz et al. publish it (the stop counts relevant items above) is not
//! positional, and the count-vector argument above fails for it (docs/metrics.md says
//! why). Its bound is the trivial one, 0, which is exact at group level with one group in
//! play ([`published`]).

use super::bound::{self, LowerBound, Shape};
use super::heapsort::sort_descending_by;
use super::level::Level;
use super::MAX_GROUPS;

/// What the bound reads of an [`ExpectedExposure`](super::ExpectedExposure).
pub(super) struct Problem<'p> {
    /// Exposure of each position, non-increasing.
    pub exposure: &'p [f64],
    /// Items' utilities and groups.
    pub utility: &'p [f64],
    pub group: &'p [u8],
    /// Item targets (item level).
    pub item_target: &'p [f64],
    /// Group targets and which groups have a relevant item (group level).
    pub group_target: &'p [f64; MAX_GROUPS],
    pub present: u32,
    pub level: Level,
}

/// The lower bound of raw EE-L over `sessions` rankings; `work` lends `n + 1` values. Where
/// the search cannot run (an exposure of 0, as RBP underflows past some thousand
/// positions; lent memory too short) the bound is 0, always valid, flagged inexact.
pub(super) fn loss(p: &Problem<'_>, sessions: usize, work: &mut [f64]) -> LowerBound {
    let n = p.exposure.len();
    let total: f64 = p.exposure.iter().sum();
    // The least `(x / S - t)^2` over the totals `x` of `m` items' positions; `None` when
    // the search refuses the exposures.
    let mut nearest = |t: f64, m: usize, work: &mut [f64]| -> Option<(f64, bool)> {
        if m >= n {
            // Every position is the class's: its exposure is the whole, always.
            let d = total - t;
            return Some((d * d, true));
        }
        let shape = Shape::Eel {
            target: [t, total - t],
        };
        let b = bound::solve(
            shape,
            p.exposure,
            m,
            sessions,
            bound::CERTIFY_BUDGET,
            work,
            None,
        )
        .ok()?;
        Some((b.lower / 2.0, b.exact))
    };
    let found = match p.level {
        Level::Group => group_level(p, sessions, work, &mut nearest),
        Level::Item => item_level(p, work, &mut nearest),
    };
    found.map_or(
        LowerBound {
            value: 0.0,
            exact: false,
        },
        |(value, exact)| LowerBound {
            value: value.max(0.0),
            exact,
        },
    )
}

/// Where the bound is exact with one group in play (at group level), rankings that reach
/// it: the optimum's count vector of the group's relevant items dealt into sessions
/// ([`bound::witness_as`]), the relevant items by utility on their positions, every other
/// item on the rest by utility. `work` lends [`OPTIMUM_WORK`](super::OPTIMUM_WORK) values
/// an item and 4 more; `false` (nothing written that counts) where it cannot.
pub(super) fn one_group_witness(
    p: &Problem<'_>,
    sessions: usize,
    work: &mut [f64],
    out: &mut [u16],
) -> bool {
    let n = p.exposure.len();
    if p.level != Level::Group || p.present.count_ones() != 1 || work.len() < 3 * n + 4 {
        return false;
    }
    let g = p.present.trailing_zeros() as u8;
    let in_class = |i: usize| p.utility[i] > 0.0 && p.group[i] == g;
    let m = (0..n).filter(|&i| in_class(i)).count();
    if m == 0 || m >= n {
        return false;
    }
    // Prefix sums (n + 1), two count vectors (n values' worth of u32 pairs), the order
    // (n u16) and the class of each item (n u8).
    let (prefix, rest) = work.split_at_mut(n + 1);
    let (counts, rest) = rest.split_at_mut(n);
    let (order, rest) = rest.split_at_mut(n.div_ceil(4));
    let order = &mut bytemuck::must_cast_slice_mut::<f64, u16>(order)[..n];
    let class = &mut bytemuck::must_cast_slice_mut::<f64, u8>(rest)[..n];
    for (i, c) in class.iter_mut().enumerate() {
        *c = u8::from(!in_class(i));
    }
    let (walk, best) = bytemuck::must_cast_slice_mut::<f64, u32>(counts).split_at_mut(n);
    let total: f64 = p.exposure.iter().sum();
    let t = p.group_target[usize::from(g)];
    let shape = Shape::Eel {
        target: [t, total - t],
    };
    let counts = Some(bound::Counts { walk, best });
    let solved = bound::solve(
        shape,
        p.exposure,
        m,
        sessions,
        bound::CERTIFY_BUDGET,
        prefix,
        counts,
    );
    matches!(solved, Ok(b) if b.exact)
        && bound::witness_as(best, class, |c| c == 0, p.utility, sessions, order, out).is_ok()
}

type Nearest<'n> = dyn FnMut(f64, usize, &mut [f64]) -> Option<(f64, bool)> + 'n;

fn group_level(
    p: &Problem<'_>,
    sessions: usize,
    work: &mut [f64],
    nearest: &mut Nearest<'_>,
) -> Option<(f64, bool)> {
    let mut relevant = [0usize; MAX_GROUPS];
    for (&y, &g) in p.utility.iter().zip(p.group) {
        if y > 0.0 {
            relevant[usize::from(g)] += 1;
        }
    }
    let in_play = || (0..MAX_GROUPS).filter(|&g| p.present >> g & 1 == 1);
    let every_item_relevant = relevant.iter().sum::<usize>() == p.exposure.len();
    if p.present.count_ones() == 2 && every_item_relevant {
        // Two groups hold every position: EEL's coupled search, exact when it ends.
        let mut two = in_play();
        let (a, b) = (two.next()?, two.next()?);
        let shape = Shape::Eel {
            target: [p.group_target[a], p.group_target[b]],
        };
        let found = bound::solve(
            shape,
            p.exposure,
            relevant[a],
            sessions,
            bound::CERTIFY_BUDGET,
            work,
            None,
        )
        .ok()?;
        return Some((found.lower, found.exact));
    }
    let (mut sum, mut exact) = (0.0, p.present.count_ones() == 1);
    for g in in_play() {
        let (value, solved) = nearest(p.group_target[g], relevant[g], work)?;
        sum += value;
        exact &= solved;
    }
    Some((sum, exact))
}

/// Each item's nearest achievable exposure to its target, level by level (items of one
/// target share it). An item alone at its level has its block's one position as target,
/// reached exactly: it adds nothing and is skipped; where every item is alone (distinct
/// utilities) the merit order reaches every target and the bound, 0, is exact.
fn item_level(p: &Problem<'_>, work: &mut [f64], nearest: &mut Nearest<'_>) -> Option<(f64, bool)> {
    let (mut sum, mut above, mut alone) = (0.0, f64::INFINITY, true);
    loop {
        let below = p.item_target.iter().copied().filter(|&t| t < above);
        let t = below.fold(f64::NEG_INFINITY, f64::max);
        if t == f64::NEG_INFINITY {
            return Some((sum, alone));
        }
        let m = p.item_target.iter().filter(|&&x| x == t).count();
        if m > 1 {
            sum += m as f64 * nearest(t, 1, work)?.0;
            alone = false;
        }
        above = t;
    }
}

/// EE-L's bound under the published cascade: 0, which every cost is at least. Exact at
/// group level with one group in play: there only that group's relevant items count, and
/// the `j`-th of them (from 0) at position `i_j >= j` gets `p^(i_j) (1 - u)^j <= (p (1 -
/// u))^j`, its share of the target (the ideal ranking's); so the group's exposure never
/// exceeds its target and meets it where the relevant items come first in every session
/// ([`published_witness`]).
pub(super) fn published(p: &Problem<'_>) -> LowerBound {
    LowerBound {
        value: 0.0,
        exact: p.level == Level::Group && p.present.count_ones() == 1,
    }
}

/// Where [`published`] is exact, rankings that reach it: in every session the relevant
/// items by utility (so that NDCG is the best too), then the others in index order.
/// `false`, nothing written, elsewhere.
pub(super) fn published_witness(p: &Problem<'_>, sessions: usize, out: &mut [u16]) -> bool {
    let n = p.utility.len();
    if !published(p).exact || sessions == 0 || out.len() < n * sessions {
        return false;
    }
    let (first, rest) = out[..n * sessions].split_at_mut(n);
    let relevant = p.utility.iter().filter(|&&y| y > 0.0).count();
    let (top, bottom) = first.split_at_mut(relevant);
    let ids = (0..n).map(|i| i as u16);
    for (slot, i) in top
        .iter_mut()
        .zip(ids.clone().filter(|&i| p.utility[usize::from(i)] > 0.0))
    {
        *slot = i;
    }
    for (slot, i) in bottom
        .iter_mut()
        .zip(ids.filter(|&i| p.utility[usize::from(i)] <= 0.0))
    {
        *slot = i;
    }
    sort_descending_by(top, |&i| p.utility[usize::from(i)]);
    for block in rest.chunks_exact_mut(n) {
        block.copy_from_slice(first);
    }
    true
}
