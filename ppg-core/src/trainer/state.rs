//! What a training run changes besides the distribution (the best ranking and the pending
//! batch), and the trainer's part of the engine's copy to undo a failed run. The copy keeps
//! how the pending batch was drawn, not the batch: the trainer draws it again.
//!
//! A foundation of the trainer: uses the arena, the sampler's mode and the generator.

use crate::arena::{region_bytes, sum, Arena};
use crate::sampler::SamplerMode;
use crate::{Dims, Error, Rng};

/// What a training run changes besides the distribution: the pending batch and the best
/// ranking.
pub(crate) struct TrainState<'a> {
    pub(super) best: &'a mut [u16],
    pub(super) best_cost: f64,
    /// The best cost of a run with a single-precision objective while it runs
    /// (`Objective::single`); `best_cost` takes it when the run ends.
    pub(super) best_single: f32,
    pub(super) batch: &'a mut [u16],
    pub(super) batch_log_prob: &'a mut [f64],
    pub(super) pending: Option<PendingDraw>,
}

/// How the pending batch was drawn: enough to draw it again, bit for bit, from the same
/// distribution ([`crate::Ppg::redraw`]). The engine's copy to undo a failed run keeps this
/// instead of the batch (2,696 bytes less for 20 items x 4 sessions x 16), so every call
/// that changes the distribution drops the pending batch (`Trainer::drop_pending`).
#[derive(Clone, Debug, PartialEq)]
pub struct PendingDraw {
    pub(crate) count: usize,
    pub(super) mode: SamplerMode,
    /// The generator before the draw.
    pub(super) rng: Rng,
}

impl<'a> TrainState<'a> {
    /// Bytes of the regions [`TrainState::new`] takes for shape `dims`.
    pub(crate) const fn bytes(dims: Dims) -> usize {
        sum(&[
            region_bytes::<u16>(dims.total()),
            region_bytes::<u16>(dims.total().saturating_mul(dims.batch)),
            region_bytes::<f64>(dims.batch),
        ])
    }

    /// No best, no batch, in regions of `arena`.
    pub(crate) fn new(arena: &mut Arena<'a>, dims: Dims) -> Result<Self, Error> {
        Ok(TrainState {
            best: arena.take(dims.total())?,
            batch: arena.take(dims.total() * dims.batch)?,
            batch_log_prob: arena.take(dims.batch)?,
            best_cost: f64::INFINITY,
            best_single: f32::INFINITY,
            pending: None,
        })
    }

    pub(super) fn pending_count(&self) -> usize {
        self.pending.as_ref().map_or(0, |drawn| drawn.count)
    }
}

/// The trainer's part of the state before a training call, which the engine keeps to undo
/// a failed run and a grown run restarts from: the best ranking and how the pending batch
/// was drawn.
pub(crate) struct Saved<'a> {
    pub(super) best: &'a mut [u16],
    pub(super) best_cost: f64,
    pub(super) pending: Option<PendingDraw>,
}

impl<'a> Saved<'a> {
    /// Bytes of the regions [`Saved::new`] takes for shape `dims`.
    pub(crate) const fn bytes(dims: Dims) -> usize {
        region_bytes::<u16>(dims.total())
    }

    /// Nothing saved yet, in regions of `arena`.
    pub(crate) fn new(arena: &mut Arena<'a>, dims: Dims) -> Result<Self, Error> {
        Ok(Saved {
            best: arena.take(dims.total())?,
            best_cost: f64::INFINITY,
            pending: None,
        })
    }
}
