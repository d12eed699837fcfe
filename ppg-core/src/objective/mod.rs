//! Costs the optimisers minimise: the black-box trait and the built-in metrics.
//!
//! The metrics use only [`Error`](crate::Error); nothing here knows an engine, so any
//! optimiser (PPG, Plackett-Luce, a caller's own) can cost rankings with them.

mod awrf;
mod browse;
mod dtr;
mod dtr_groups;
mod eel;
mod expected_exposure;
pub mod exposure;
mod mix;
mod ndcg;
mod real;

pub use awrf::{Awrf, AwrfCost, AwrfReport, AwrfTarget};
pub use browse::{Browse, DEFAULT_PATIENCE};
pub use dtr::Dtr;
pub use dtr_groups::DtrGroups;
pub use eel::{Eel, MAX_LEVELS};
pub use expected_exposure::{EeReport, EeValues, ExpectedExposure, Level, Measure};
pub use exposure::{ExposureTable, RankStart};
pub use mix::Mix;
pub use ndcg::Ndcg;
pub use real::Real;

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
}

impl<F: FnMut(&[u16], usize) -> f64> Objective for F {
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        self(ranking, sessions)
    }
}
