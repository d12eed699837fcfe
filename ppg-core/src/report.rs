//! What a training run reports.
//!
//! Plain data, shared by the PPG trainer and Plackett-Luce; uses only the objective's
//! lower bound type.

use crate::objective::LowerBound;

/// The outcome of one `train` call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainReport {
    /// Epochs run (fewer than configured when patience ran out), over every stage of a
    /// grown run.
    pub epochs: u32,
    /// Multi-session rankings sampled and scored, a grown run's copies included.
    pub samples: u32,
    /// The lowest cost seen; the best ranking is read from the engine.
    pub best_cost: f64,
    /// The epoch (0-based, counted over a grown run's stages) that found the best ranking;
    /// `None` when the input ranking, scored first, was never beaten.
    pub best_epoch: Option<u32>,
    /// The objective's lower bound at the query's session count, when the recipe asked to
    /// certify ([`TrainConfig::certify`](crate::TrainConfig::certify)) and the objective
    /// gives one ([`Objective::lower_bound`](crate::Objective::lower_bound)).
    pub bound: Option<LowerBound>,
    /// `best_cost` is within the recipe's tolerance of `bound`: no ranking is better by
    /// more than the tolerance. The gap is `best_cost - bound.value`.
    pub certified: bool,
}
