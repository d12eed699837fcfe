//! Costs the optimisers minimise: the black-box trait and the built-in metrics.
//!
//! The metrics use only [`Error`](crate::Error); nothing here knows an engine, so any
//! optimiser (PPG, Plackett-Luce, a caller's own) can cost rankings with them. [`bound`]
//! is the exact optimum of the two-group metrics, [`bound_groups`] that of DTR over more
//! groups (or a certified lower bound of it), which they give as their lower bound
//! ([`Objective::lower_bound`]).

mod awrf;
pub mod awrf2022;
mod awrf2022_target;
mod awrf_bound;
pub mod bound;
pub mod bound_groups;
mod browse;
mod deal;
mod dtr;
mod dtr_groups;
mod ee_bound;
mod eel;
mod expected_exposure;
pub mod exposure;
mod heapsort;
mod lattice;
mod level;
mod mix;
mod ndcg;
mod peel;
mod real;
pub mod relevance;
mod stoppable;
mod tail;

pub use awrf::{Awrf, AwrfCost, AwrfReport, AwrfTarget};
pub use awrf2022::Awrf2022;
pub use bound::LowerBound;
pub use browse::{Browse, DEFAULT_PATIENCE};
pub use dtr::Dtr;
pub use dtr_groups::DtrGroups;
pub use eel::{Eel, MAX_LEVELS};
pub use expected_exposure::{EeReport, EeValues, ExpectedExposure, Level, Measure};
pub use exposure::{ExposureTable, RankStart};
pub use mix::Mix;
pub use ndcg::Ndcg;
pub use real::Real;
pub use stoppable::Stoppable;

/// The most fairness groups a metric tells apart: group ids are `0..MAX_GROUPS`.
pub const MAX_GROUPS: usize = 16;

/// A black-box cost of a multi-session ranking; lower is better.
///
/// `ranking` is `sessions` blocks of equal length `n` laid end to end; each block is a
/// permutation of the item ids `0..n` (ids are positions in the caller's initial ranking).
/// A NaN or infinite return value makes the optimiser stop with
/// [`Error::NotFinite`](crate::Error::NotFinite) and leave its state as before the call.
pub trait Objective {
    /// The cost of `ranking`.
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64;

    /// Whether the objective adds up in single precision (`Eel<f32>`). The trainer then
    /// takes each sample's cost from [`Objective::cost_single`] and keeps its bookkeeping
    /// (the best so far, each sample's share of the step) in `f32`, so that on a
    /// single-precision FPU a training run calls no software double-precision routine. The
    /// report's cost is that `f32` value, exactly. `false` by default.
    fn single(&self) -> bool {
        false
    }

    /// The cost of `ranking` in single precision, called instead of [`Objective::cost`]
    /// when [`Objective::single`] is `true`; by default the cost rounded to `f32`.
    fn cost_single(&mut self, ranking: &[u16], sessions: usize) -> f32 {
        self.cost(ranking, sessions) as f32
    }

    /// A proven lower bound of the cost over every ranking of `sessions` sessions, if the
    /// objective knows one: the trainer then stops as soon as its best is within
    /// [`TrainConfig::certify`](crate::TrainConfig::certify) of it, and the run says whether
    /// it was certified. `work` is memory the engine lends (at least `n + 1` values).
    /// `None` by default (a black box knows no bound); the built-in two-group DTR and EEL
    /// give the exact optimum ([`bound`]), DTR over more groups the exact optimum or a
    /// lower bound flagged inexact ([`bound_groups`]), EEL over three or more groups 0 (the
    /// relaxation's least value), exact where a count matrix reaches it.
    fn lower_bound(&self, sessions: usize, work: &mut [f64]) -> Option<LowerBound> {
        let _ = (sessions, work);
        None
    }

    /// [`Objective::lower_bound`], and with it, where the bound is exact and the objective
    /// can build them, rankings that cost it written into `out` (`sessions` blocks of the
    /// `n` ids, in whatever order within a group the objective chooses: the two-group DTR
    /// and EEL by utility; a run that keeps the order within groups puts them back in its
    /// reference order; the flag says whether it did): a
    /// certifying training call scores them before its first epoch and, when they are
    /// certified, trains none. `work` is memory the engine lends (at least [`OPTIMUM_WORK`]
    /// values per item, and 4 more). By default the bound alone (a black box knows no
    /// rankings); the built-in two-group DTR and EEL build them from their bound's search
    /// ([`bound::witness`]; EEL's keep every position's grade, [`Eel`]), and over more
    /// groups from a count matrix dealt into sessions, a matching each.
    fn optimum(
        &self,
        sessions: usize,
        work: &mut [f64],
        out: &mut [u16],
    ) -> Option<(LowerBound, bool)> {
        let _ = out;
        self.lower_bound(sessions, work).map(|b| (b, false))
    }
}

/// Values of [`Objective::optimum`]'s `work` per item (and 4 more): the bound's prefix
/// sums and count vectors, and the witness's keys and order.
pub const OPTIMUM_WORK: usize = 4;

impl<F: FnMut(&[u16], usize) -> f64> Objective for F {
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        self(ranking, sessions)
    }
}
