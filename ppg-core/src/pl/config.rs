//! Hyper-parameters of Plackett-Luce training.

use crate::{Dims, Error};

/// How [`PlackettLuce::train`](super::PlackettLuce::train) and
/// [`PlackettLuce::update`](super::PlackettLuce::update) learn: REINFORCE gradients,
/// Adam steps.
///
/// The defaults follow the protocol's reference run (50 epochs of 16 samples, stop after
/// 20 epochs without a new best) with Adam's usual constants and a learning rate of 0.1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlConfig {
    /// Adam's step size; `>= 0` and finite (0 trains nothing but still samples).
    pub lr: f32,
    /// Epochs (one batch and one Adam step each) that [`train`](super::PlackettLuce::train)
    /// runs at most.
    pub epochs: u32,
    /// Multi-session rankings per epoch in `train`; `1..=dims.batch`. `update` uses the
    /// size of the batch it was given instead.
    pub batch: u16,
    /// Epochs without a new lowest cost after which `train` stops early; 0 never stops early.
    pub patience: u32,
    /// Subtract the batch-mean cost from every cost before weighting the scores. It lowers
    /// the variance of the gradient; the mean includes each sample's own cost, so the
    /// estimate is shrunk by `(B - 1) / B`, which Adam's normalisation all but removes
    /// (and a batch of one sample has no gradient at all).
    pub baseline: bool,
    /// Adam's decay of the first moment; in `[0, 1)`.
    pub beta1: f32,
    /// Adam's decay of the second moment; in `[0, 1)`.
    pub beta2: f32,
    /// Adam's denominator guard; `> 0` and finite (0 would make a zero gradient `0 / 0`).
    pub eps: f32,
}

impl Default for PlConfig {
    fn default() -> Self {
        PlConfig {
            lr: 0.1,
            epochs: 50,
            batch: 16,
            patience: 20,
            baseline: false,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
        }
    }
}

impl PlConfig {
    /// Checks every value against its documented range for an engine of shape `dims`.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] naming the first offending field.
    pub fn check(&self, dims: Dims) -> Result<(), Error> {
        if self.batch == 0 || usize::from(self.batch) > dims.batch {
            return Err(Error::InvalidConfig("batch must be in 1..=dims.batch"));
        }
        self.check_step()
    }

    /// The checks that apply to one step of `update`, whose batch size is the batch's.
    pub(crate) fn check_step(&self) -> Result<(), Error> {
        if !(self.lr.is_finite() && self.lr >= 0.0) {
            return Err(Error::InvalidConfig("lr must be finite and >= 0"));
        }
        if !(0.0..1.0).contains(&self.beta1) {
            return Err(Error::InvalidConfig("beta1 must be in [0, 1)"));
        }
        if !(0.0..1.0).contains(&self.beta2) {
            return Err(Error::InvalidConfig("beta2 must be in [0, 1)"));
        }
        if !(self.eps.is_finite() && self.eps > 0.0) {
            return Err(Error::InvalidConfig("eps must be finite and > 0"));
        }
        Ok(())
    }
}
