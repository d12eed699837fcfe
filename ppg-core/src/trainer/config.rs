//! The training recipe: how many epochs and samples, the step, the clamp, the sampler and
//! the gradient. Plain data with its own check; it uses only the sampler's mode.

use crate::{Error, SamplerMode};

/// Which score function the REINFORCE estimate multiplies the cost with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gradient {
    /// The paper's Eq. 8: `(e_ij - w_ij) / (w_ij (1 - w_ij))` for every unconstrained pair,
    /// as if pairs were drawn independently.
    Approximate,
    /// The gradient of the log-probability under the sampler that drew the ranking.
    Exact,
}

/// The training recipe. [`Default`] is the reference run of the paper (protocol.md):
/// 50 epochs of 16 samples, learning rate 0.4, clamp to `[0.05, 0.95]`, patience 20,
/// the uncorrected sampler, the approximate gradient, no baseline, input not scored, no
/// growing over sessions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainConfig {
    /// Step size of `w -= lr * grad`.
    pub learning_rate: f32,
    /// Epochs at most.
    pub epochs: u32,
    /// Samples per epoch, at most the layout's batch.
    pub batch: usize,
    /// Stop after this many epochs without a new best; 0 never stops early.
    pub patience: u32,
    /// A step that takes a weight to 0 or below sets it to this.
    pub clamp_min: f32,
    /// A step that takes a weight to this or above sets it to this.
    pub clamp_max: f32,
    /// How samples are drawn.
    pub sampler: SamplerMode,
    /// Which score the estimate uses.
    pub gradient: Gradient,
    /// Subtract the batch-mean cost from each cost (variance reduction).
    pub baseline: bool,
    /// Score the reference before training, so the result is never worse than the input.
    /// The reference run starts from an infinite best, so its first sample always wins.
    pub score_input: bool,
    /// Grow over sessions: train 1 session, then each count up to the query's (halving
    /// while even: 12 sessions train 1, 3, 6, 12), each from the state before the call, and
    /// keep at each count the better of that count's best and the previous count's best
    /// dealt out again (session `j` a copy of session `j mod p`). With a cost that averages
    /// over sessions the copy costs what it cost before, so the result is never worse than
    /// at half the sessions, and never worse than the same run without growing (its last
    /// stage is that run). The paper's fixed budget, spent on all sessions at once, falls
    /// away from the optimum as sessions grow; this does not (docs/results.md). About twice
    /// the samples. The reference run does not grow.
    pub grow: bool,
    /// Certify: with `Some(tolerance)` and an objective that gives a lower bound
    /// ([`Objective::lower_bound`](crate::Objective::lower_bound)), every run (each stage of
    /// a grown run, each part of a held one) stops as soon as its best cost is within
    /// `tolerance` of the bound at its session count, and the report says whether the
    /// result is certified. `None` (the reference run) trains on until patience or epochs
    /// run out and computes no bound.
    pub certify: Option<f64>,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            learning_rate: 0.4,
            epochs: 50,
            batch: 16,
            patience: 20,
            clamp_min: 0.05,
            clamp_max: 0.95,
            sampler: SamplerMode::Uncorrected,
            gradient: Gradient::Approximate,
            baseline: false,
            score_input: false,
            grow: false,
            certify: None,
        }
    }
}

impl TrainConfig {
    /// Checks every field against the engine's layout batch.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] naming the first bad field.
    pub fn check(&self, layout_batch: usize) -> Result<(), Error> {
        if !self.learning_rate.is_finite() || self.learning_rate < 0.0 {
            return Err(Error::InvalidConfig(
                "learning_rate must be finite and >= 0",
            ));
        }
        if self.batch == 0 || self.batch > layout_batch {
            return Err(Error::InvalidConfig(
                "batch must be between 1 and the layout's batch",
            ));
        }
        let in_unit = |x: f32| (0.0..=1.0).contains(&x);
        if !in_unit(self.clamp_min) || !in_unit(self.clamp_max) || self.clamp_min > self.clamp_max {
            return Err(Error::InvalidConfig(
                "need 0 <= clamp_min <= clamp_max <= 1",
            ));
        }
        // On the bits: a double comparison is a software routine on a single-precision FPU,
        // and this check runs there too (350 bytes of flash as comparisons).
        let bad_tolerance = |t: f64| {
            let bits = t.to_bits();
            let negative = bits >> 63 == 1 && bits << 1 != 0;
            let not_finite = (bits >> 52) & 0x7ff == 0x7ff;
            negative || not_finite
        };
        if self.certify.is_some_and(bad_tolerance) {
            return Err(Error::InvalidConfig(
                "certify's tolerance must be finite and >= 0",
            ));
        }
        Ok(())
    }
}
