//! The least DTR over `S` deterministic rankings of a list of more than two groups
//! ([`DtrGroups`](super::DtrGroups)): the exact optimum where a budgeted search proves it,
//! a certified lower bound where it does not.
//!
//! It is the many-group counterpart of [`bound`], and like it uses no memory
//! of its own: fixed arrays over [`MAX_GROUPS`] and the caller's `n + 1` prefix sums. The
//! brute-force tests that check it are `ppg-core/tests/bound_groups.rs`.
//!
//! # Which group totals are achievable
//!
//! DTR depends on the rankings only through `x_G`, the exposure group `G` receives summed
//! over the sessions. Let `c[G][r]` be the number of sessions in which group `G` holds
//! position `r`: every column sums to `S`, row `G` to `S n_G`, and `x_G = sum_r c[G][r] e_r`.
//! Conversely every such integer matrix comes from `S` rankings: split row `G` among its
//! `n_G` items so that each item gets `S` placements; the item-by-position matrix then has
//! every row and column summing to `S`, and by König's theorem an `S`-regular bipartite
//! multigraph is `S` perfect matchings, one ranking each. So the optimum over `S`-tuples of
//! rankings is the optimum over these count matrices.
//!
//! # The lower bound: a polymatroid and a box
//!
//! Let `a_G` be the exposure placed so far and `m_A` the placements a set `A` of groups
//! still has to make. Every completion gives `A` at most `top(A)`, the most it can
//! collect (the slots of position `r` still open to it, then the best slots of the later
//! positions, `S` each), and at least `bottom(A)`, what is left when the other groups
//! collect their most. DTR at most `q` means, for some scale `t`, the box
//! `t U_G <= x_G <= q t U_G` (with `U_G` the group's utility); summed over `A`, a
//! completion in it has `t U(A) <= top(A) + a(A)` and `q t U(A) >= bottom(A) + a(A)`.
//! Eliminating `t`, no completion has a DTR below
//!
//! `max(1, max_A (bottom(A) + a(A)) / U(A)  /  min_A (top(A) + a(A)) / U(A))`
//!
//! over the nonempty sets of groups with utility (`2^k - 1` sets for `k` such groups);
//! where nothing is left to place it is the DTR of the totals. At the root, `top(A)` is
//! the sum of the `S m_A` largest slots, a concave function of a sum, so submodular, and
//! the inequalities describe a generalised polymatroid that holds every relaxed count
//! matrix; by Frank's intersection theorem such a polymatroid meets a box exactly when
//! those inequalities hold, so the root's value is the least DTR of the relaxation: the
//! **hull bound**, the same for every `S` (the sessions scale both sides).
//!
//! # The search, and when it is exact
//!
//! [`solve`] walks the count matrices by depth-first branch and bound, position by position
//! from the top and, within a position, group by group (the groups without utility, which
//! only fill slots, as one group, decided last). A group's count at a position ranges over
//! what keeps the rest placeable; the choices are tried from the lowest bound outwards,
//! always to the side with the lower one, so that good totals come first, and each is cut
//! on its own bound. The search stops
//!
//! - when it has walked every branch: the best total found is the optimum
//!   ([`Bound::exact`]);
//! - when the best total is within [`TOLERANCE`] of the hull bound: the optimum is known to
//!   that tolerance, and counts as exact too;
//! - where a short walk (500 sets) neither ends nor
//!   meets the hull bound: first the **pooled bound** (each group against the others
//!   pooled: DTR over the groups is at least their two-group DTR, whose optimum
//!   [`bound::solve`] gives) raises the floor, then `peel` builds a count matrix group
//!   by group with the two-group lattice, its first group at that group's two-group
//!   optimum and the others aimed at one ratio; a matrix within the tolerance of the floor
//!   makes the bound exact;
//! - where none was found and some group's pooled bound is above 1: that group's rows are
//!   walked first (`Search::rows`), only those whose two-group DTR against the others is
//!   below the incumbent, each completed by the other groups (over three groups, a row on
//!   whole positions by a two-group search, [`Shape::DtrBeside`]; otherwise by the walk
//!   with the row fixed); every row walked to its end proves the incumbent optimal, and
//!   where the budget runs out first the walk below runs to its whole budget;
//! - after `budget` sets of groups evaluated (`2^k - 1` a bound), or at once when the
//!   walk would recurse more than [`MAX_SEARCH_DEPTH`] times (one level per position and
//!   group): then the proven lower bound is the hull bound alone, and [`Bound::exact`] is
//!   false. It gives up with that flag; it never certifies what it has not proven.
//!
//! # Where each part is
//!
//! This module checks the input and runs the stages above; the search's state is in
//! `search`, and each idea is a file that adds its methods to it:
//!
//! - `lower`: the bound of a node of the walk (the polymatroid and the box);
//! - `walk`: the depth-first branch and bound over count matrices;
//! - `hull`: the most a set collects at the root, and the point of the hull where DTR is
//!   the hull bound;
//! - `pooled`: the pooled bound, each group against the others pooled;
//! - `finish`: after the short walk, a count matrix peeled towards the hull point;
//! - `rows`: the unfair group's rows first, each completed by the walk or, over three
//!   groups, by a two-group search.
//!
//! Every file imports only `search` of this folder; the calls between them run one way:
//! `walk` uses `lower`, `rows` uses `walk`, `finish` uses `hull` and `pooled`, and this
//! module uses `lower`, `walk`, `finish` and `rows`.
//!
//! [`bound`]: super::bound
//! [`bound::solve`]: super::bound::solve
//! [`Shape::DtrBeside`]: super::bound::Shape::DtrBeside

mod finish;
mod hull;
mod lower;
mod pooled;
mod rows;
mod search;
mod walk;

use self::search::{Search, FIRST_WALK, SLOTS};
use super::bound::{Bound, BoundError, TOLERANCE};
use super::peel::{Matrix, LIST, ROWS};
use super::MAX_GROUPS;
/// Sets of groups evaluated (each bound evaluates `2^k - 1` of them) by the lower bound
/// [`DtrGroups`](super::DtrGroups) gives ([`crate::Objective::lower_bound`]), which a
/// certifying run computes at every stage. On the graded file of `ppg_lab::shapes` (1,000
/// queries x 20 items, 3 groups; 1, 4 and 32 sessions) 400,000 sets certify 99.6%, 87.6%
/// and 98.1% of the queries where 5,000 certified 53.1%, 76.9% and 93.4% (100,000: 89.6%,
/// 81.4%, 95.7%), for 2.9x, 1.8x and 0.8x the CPU (docs/performance.md; over 4 groups 3.6x,
/// 2.4x): a walk that ends proves an optimum above the
/// hull and pooled bounds, which only a complete walk can. (On TREC 2019 with groups by
/// position modulo 3 or 4, 5,000 to 200,000 sets certified the same queries.)
pub const CERTIFY_BUDGET: u64 = 400_000;

/// The deepest walk [`solve`] makes (a level per position and group): the walk recurses
/// once per level, each frame holding the bounds of its choices, and a deeper stack than
/// this many frames is more than a thread's stack should lend (a C caller's may be small).
/// Deeper lists (past 64 items of 3 groups and one without utility) get the hull bound
/// alone; the TREC lists (at most 32 items) stay within it, and a walk that deep would
/// spend most of the certifying budget on its first descent (each level evaluates every
/// choice's bound).
pub const MAX_SEARCH_DEPTH: usize = 256;

/// The least DTR (the ratio, at least 1) over `sessions` rankings of the list whose item
/// `i` is in group `group[i]`, with `utility[G]` the utility of group `G` in one list
/// (0 for a group without: it takes no part in DTR) and `exposure[r]` at position `r`
/// (positive, non-increasing), evaluating at most `budget` sets of groups (see the module
/// docs). `prefix` (at least `n + 1` long) is the search's memory. Fewer than two
/// groups with utility: DTR is 1 whatever the ranking, exactly.
///
/// # Errors
/// - [`BoundError::Degenerate`] for no sessions or no items, a group id at or above
///   `utility.len()`, more than [`MAX_GROUPS`] utilities, or `n * sessions` beyond `usize`.
/// - [`BoundError::Exposure`] for an exposure that is not positive and finite, exposures
///   that increase, a utility that is not finite and `>= 0`, or `exposure` shorter than
///   the list.
/// - [`BoundError::Scratch`] when `prefix` is shorter than `n + 1`.
pub fn solve(
    group: &[u8],
    utility: &[f64],
    exposure: &[f64],
    sessions: usize,
    budget: u64,
    prefix: &mut [f64],
) -> Result<Bound, BoundError> {
    solve_with(group, utility, exposure, sessions, budget, prefix, None).map(|(b, _)| b)
}

/// [`solve`], with the best count matrix written to `matrix` when one was found and the
/// list fits it (at most [`LIST`] items, [`ROWS`] slots): row `j < k` for the `j`-th group
/// with utility in id order, row `k` for the items of every group without; the number of
/// rows in use, 0 when none was written.
pub(crate) fn solve_with(
    group: &[u8],
    utility: &[f64],
    exposure: &[f64],
    sessions: usize,
    budget: u64,
    prefix: &mut [f64],
    matrix: Option<&mut Matrix>,
) -> Result<(Bound, usize), BoundError> {
    let n = group.len();
    if sessions == 0 || n == 0 || utility.len() > MAX_GROUPS {
        return Err(BoundError::Degenerate);
    }
    let exposure = exposure.get(..n).ok_or(BoundError::Exposure)?;
    if exposure.iter().any(|&e| !(e.is_finite() && e > 0.0))
        || exposure.windows(2).any(|w| w[1] > w[0])
        || utility.iter().any(|&u| !(u.is_finite() && u >= 0.0))
    {
        return Err(BoundError::Exposure);
    }
    // Slot of each group: the groups with utility first, in id order, then one for the rest.
    let mut slot = [0usize; MAX_GROUPS];
    let mut share = [0.0f64; MAX_GROUPS];
    let mut k = 0;
    for (g, &u) in utility.iter().enumerate() {
        if u > 0.0 {
            slot[g] = k;
            share[k] = u;
            k += 1;
        }
    }
    let mut items = [0usize; SLOTS];
    for &g in group {
        let g = usize::from(g);
        let u = *utility.get(g).ok_or(BoundError::Degenerate)?;
        items[if u > 0.0 { slot[g] } else { k }] += 1;
    }
    let prefix = prefix.get_mut(..=n).ok_or(BoundError::Scratch)?;
    if k < 2 {
        return Ok((
            Bound {
                lower: 1.0,
                value: 1.0,
                exact: true,
            },
            0,
        ));
    }
    prefix[0] = 0.0;
    for r in 0..n {
        prefix[r + 1] = prefix[r] + exposure[r];
    }
    // Placements per slot: at most `n * sessions`, which the engine's layout bounds.
    n.checked_mul(sessions).ok_or(BoundError::Degenerate)?;
    let mut left = [0usize; SLOTS];
    for (l, &c) in left.iter_mut().zip(&items) {
        *l = c * sessions;
    }
    let slots = k + usize::from(items[k] > 0);
    let mut search = Search {
        exposure,
        prefix,
        sessions,
        groups: k,
        slots,
        utility: share,
        left,
        placed: [0.0; MAX_GROUPS],
        best: f64::INFINITY,
        evaluations: 0,
        budget,
        stopped: false,
        floor: 0.0,
        // Counts and row sums as `u32`: every placement count fits.
        record: n <= LIST
            && slots <= ROWS
            && n.checked_mul(sessions)
                .is_some_and(|m| u32::try_from(m).is_ok()),
        walk: [[0; LIST]; ROWS],
        found: [[0; LIST]; ROWS],
        fixed: None,
        open: [0; LIST + 1],
        reach: [0.0; LIST + 1],
        widest: None,
    };
    search.floor = search.lower(0, 0, sessions);
    if n.saturating_mul(slots) <= MAX_SEARCH_DEPTH {
        // A short walk first (at one session too: the pooled bound then halves the largest
        // gap of the graded 3-group file, 0.0533 against 0.121); where it neither ends nor meets
        // the hull bound, the lattice peels a count matrix towards a point of the hull
        // bound ([`peel`]), and where that fails too the walk runs to its whole budget.
        let short = search.record;
        search.budget = if short {
            budget.min(FIRST_WALK)
        } else {
            budget
        };
        search.visit(0, 0, sessions);
        if short && search.stopped && search.best - search.floor > TOLERANCE {
            let widest = search.finish();
            if search.best - search.floor > TOLERANCE && budget > FIRST_WALK {
                // Where the pooled bound lifted the floor, the optimum has that group's
                // row within the incumbent's reach of its two-group optimum: a few rows,
                // each leaving a walk over one dimension ([`Search::rows`]).
                if let Some(g) = widest {
                    // Over more groups the walk completes the rows; a tenth of the budget
                    // for them there certified none of the 11 more queries at one session
                    // of the graded 4-group file and cost more (docs/performance.md).
                    (search.evaluations, search.budget, search.stopped) = (0, budget, false);
                    search.rows(g);
                }
                if search.stopped && search.best - search.floor > TOLERANCE {
                    (search.evaluations, search.budget, search.stopped) = (0, budget, false);
                    search.visit(0, 0, sessions);
                }
            }
        }
    } else {
        search.stopped = true;
    }
    let rows = match matrix {
        Some(out) if search.record && search.best.is_finite() => {
            *out = search.found;
            slots
        }
        _ => 0,
    };
    Ok((
        Bound::of_walk(search.best, search.floor, search.stopped),
        rows,
    ))
}
