//! Costs the optimisers minimise: the black-box trait and the built-in metrics.
//!
//! The metrics use only [`Error`](crate::Error); nothing here knows an engine, so any
//! optimiser (PPG, Plackett-Luce, a caller's own) can cost rankings with them.

mod dtr;
mod eel;
pub mod exposure;
mod mix;
mod ndcg;
mod real;

pub use dtr::Dtr;
pub use eel::{Eel, MAX_LEVELS};
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
}

impl<F: FnMut(&[u16], usize) -> f64> Objective for F {
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        self(ranking, sessions)
    }
}
