//! The state of the search over count matrices: the walk's counts and totals, the best
//! matrix found, and the row [`Search::rows`] fixes (each idea's methods are in a file of
//! their own, see the [module docs](super)).

use crate::objective::peel::{Matrix, LIST};
use crate::objective::MAX_GROUPS;

/// The groups the search places: the groups with utility, and one for all the others.
pub(super) const SLOTS: usize = MAX_GROUPS + 1;

/// Sets of groups the first, short walk evaluates before the lattice peels a count matrix
/// towards a point of the hull bound ([`peel`](crate::objective::peel)).
pub(super) const FIRST_WALK: u64 = 500;

/// The depth-first branch and bound over count matrices.
pub(super) struct Search<'a> {
    pub(super) exposure: &'a [f64],
    /// `prefix[r]`: the exposure of positions `0..r`.
    pub(super) prefix: &'a [f64],
    pub(super) sessions: usize,
    /// `k`: the groups with utility, slots `0..k`.
    pub(super) groups: usize,
    /// `k`, plus one when some items are in groups without utility (slot `k`).
    pub(super) slots: usize,
    /// Each slot's utility in one list.
    pub(super) utility: [f64; MAX_GROUPS],
    /// Placements each slot still needs.
    pub(super) left: [usize; SLOTS],
    /// Exposure each group with utility holds so far.
    pub(super) placed: [f64; MAX_GROUPS],
    pub(super) best: f64,
    pub(super) evaluations: u64,
    pub(super) budget: u64,
    pub(super) stopped: bool,
    /// The hull bound: nothing is lower, so reaching it ends the search.
    pub(super) floor: f64,
    /// Whether the walk keeps its count matrices (the list fits one).
    pub(super) record: bool,
    /// The walk's count matrix, row per slot.
    pub(super) walk: Matrix,
    /// The count matrix of `best`.
    pub(super) found: Matrix,
    /// The slot whose whole row [`Search::rows`] fixed before the walk (its counts in
    /// `walk`), when one is.
    pub(super) fixed: Option<usize>,
    /// `open[r]`: the slots of positions `0..r` the other slots share (`sessions` less the
    /// fixed row's counts), and `reach[r]` their exposure.
    pub(super) open: [usize; LIST + 1],
    pub(super) reach: [f64; LIST + 1],
    /// The group with the largest pooled bound and that bound, when it is above 1
    /// ([`Search::pooled`]).
    pub(super) widest: Option<(usize, f64)>,
}
