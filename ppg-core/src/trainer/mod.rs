//! REINFORCE over the PPG weights (Algorithm 3), with best tracking and re-referencing.
//!
//! One epoch is the data flow of the whole crate: the [`Sampler`] draws a batch from the
//! [`Distribution`], the objective costs each ranking, the gradient (the exact score from
//! the sampler, or the approximate step of [`approximate`]) moves the weights, and the best
//! ranking so far becomes every session's reference. The trainer owns the batch, the best
//! ranking and its scratch; it writes the distribution and tells the sampler when it did.
//!
//! - [`config`]: the recipe ([`TrainConfig`], [`Gradient`]) and its check.
//! - [`approximate`]: the paper's Eq. 8 step as vector loops.
//! - [`grow`]: the same loop over a growing number of sessions ([`TrainConfig::grow`]).
//! - [`hold`]: a run with some pairs held in their order first, then released.

mod approximate;
mod config;
pub(crate) mod grow;
pub(crate) mod hold;

pub use config::{Gradient, TrainConfig};

use self::approximate::{clamp, descend, inverted_shares, Key, SubsetSums};
use crate::arena::{region_bytes, sum, Arena};
use crate::distribution::{locate, Distribution};
use crate::pairs;
use crate::sampler::{Sampler, SamplerMode};
use crate::{Dims, Error, Objective, Rng, TrainReport};

/// What a training run changes besides the distribution: the pending batch and the best
/// ranking. The engine keeps a second copy of it to undo a failed run.
pub(crate) struct TrainState<'a> {
    best: &'a mut [u16],
    best_cost: f64,
    batch: &'a mut [u16],
    batch_log_prob: &'a mut [f64],
    pending: usize,
    pending_mode: SamplerMode,
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
            pending: 0,
            pending_mode: SamplerMode::Uncorrected,
        })
    }

    pub(crate) fn copy_from(&mut self, other: &TrainState) {
        self.best.copy_from_slice(other.best);
        self.best_cost = other.best_cost;
        self.batch.copy_from_slice(other.batch);
        self.batch_log_prob.copy_from_slice(other.batch_log_prob);
        self.pending = other.pending;
        self.pending_mode = other.pending_mode;
    }
}

/// The trainer: its state and the scratch of a step.
pub(crate) struct Trainer<'a> {
    pub(crate) state: TrainState<'a>,
    /// The exact gradient, one value per pair and session; the approximate step keeps E in it.
    grad: &'a mut [f32],
    /// The cost of each pending sample.
    costs: &'a mut [f64],
    /// Each sample's share of the gradient, `(cost - baseline) / batch`.
    scale: &'a mut [f32],
    /// Scratch for the approximate step's sample keys (see `inverted_shares`): `n x batch`.
    positions: &'a mut [u16],
    /// The approximate step's two subset-sum tables.
    subsets: &'a mut [[[f32; 256]; 2]],
    /// A grown run's kept ranking ([`grow`]): `items * sessions` ids.
    kept: &'a mut [u16],
}

impl<'a> Trainer<'a> {
    /// Bytes of the regions [`Trainer::new`] takes for shape `dims`.
    pub(crate) const fn bytes(dims: Dims) -> usize {
        let pairs = pairs::count(dims.items).saturating_mul(dims.sessions);
        sum(&[
            TrainState::bytes(dims),
            region_bytes::<f32>(pairs),
            region_bytes::<f64>(dims.batch),
            region_bytes::<f32>(dims.batch),
            region_bytes::<u16>(dims.items.saturating_mul(dims.batch)),
            region_bytes::<[[f32; 256]; 2]>(1),
            region_bytes::<u16>(dims.total()),
        ])
    }

    /// A trainer with no best and no batch, in regions of `arena`.
    pub(crate) fn new(arena: &mut Arena<'a>, dims: Dims) -> Result<Self, Error> {
        Ok(Trainer {
            state: TrainState::new(arena, dims)?,
            grad: arena.take(pairs::count(dims.items) * dims.sessions)?,
            costs: arena.take(dims.batch)?,
            scale: arena.take(dims.batch)?,
            positions: arena.take(dims.items * dims.batch)?,
            subsets: arena.take(1)?,
            kept: arena.take(dims.total())?,
        })
    }

    /// Forgets the best ranking and the pending batch (a new query).
    pub(crate) fn reset(&mut self) {
        self.state.best_cost = f64::INFINITY;
        self.state.pending = 0;
    }

    /// The lowest-cost ranking seen so far and its cost, if any was scored.
    pub(crate) fn best(&self, total: usize) -> Option<(&[u16], f64)> {
        let state = &self.state;
        state
            .best_cost
            .is_finite()
            .then(|| (&state.best[..total], state.best_cost))
    }

    /// The pending batch of rankings of `total` ids each.
    pub(crate) fn batch(&self, total: usize) -> &[u16] {
        &self.state.batch[..self.state.pending * total]
    }

    /// The log-probability of each pending ranking.
    pub(crate) fn batch_log_probs(&self) -> &[f64] {
        &self.state.batch_log_prob[..self.state.pending]
    }

    /// One training call: grown over sessions when `config` says so and there is more than
    /// one session ([`grow`]), else [`Trainer::train`]. `before` is the state before the call.
    ///
    /// # Errors
    /// As [`Trainer::train`]; the caller undoes the partial run.
    pub(crate) fn run(
        &mut self,
        dist: &mut Distribution,
        sampler: &mut Sampler,
        rng: &mut Rng,
        objective: &mut dyn Objective,
        config: &TrainConfig,
        before: grow::Before<'_>,
    ) -> Result<TrainReport, Error> {
        if config.grow && dist.sessions > 1 {
            grow::train(self, dist, sampler, rng, objective, config, before)
        } else {
            self.train(dist, sampler, rng, objective, config)
        }
    }

    /// Runs a checked `config` to the end or to its patience.
    ///
    /// # Errors
    /// [`Error::NotFinite`] when the objective returns NaN or an infinity; the caller undoes
    /// the partial run.
    pub(crate) fn train(
        &mut self,
        dist: &mut Distribution,
        sampler: &mut Sampler,
        rng: &mut Rng,
        objective: &mut dyn Objective,
        config: &TrainConfig,
    ) -> Result<TrainReport, Error> {
        let (sessions, total) = (dist.sessions, dist.n * dist.sessions);
        let mut samples = 0;
        let mut best_epoch = None;
        if config.score_input {
            let cost = objective.cost(&dist.reference[..total], sessions);
            if !cost.is_finite() {
                return Err(Error::NotFinite { index: 0 });
            }
            samples += 1;
            if cost < self.state.best_cost {
                self.state.best_cost = cost;
                self.state.best[..total].copy_from_slice(&dist.reference[..total]);
            }
        }
        let mut epochs = 0;
        let mut stale = 0;
        while epochs < config.epochs {
            self.draw_batch::<false>(dist, sampler, rng, config.batch, config.sampler);
            for b in 0..config.batch {
                let cost = objective.cost(&self.state.batch[b * total..(b + 1) * total], sessions);
                if !cost.is_finite() {
                    return Err(Error::NotFinite { index: b });
                }
                self.costs[b] = cost;
            }
            samples += config.batch as u32;
            let improved = self.step(dist, sampler, config);
            epochs += 1;
            if improved {
                best_epoch = Some(epochs - 1);
                stale = 0;
            } else {
                stale += 1;
                if config.patience > 0 && stale >= config.patience {
                    break;
                }
            }
        }
        Ok(TrainReport {
            epochs,
            samples,
            best_cost: self.state.best_cost,
            best_epoch,
        })
    }

    /// Fills the batch with `count` draws; `TRACK` also records each ranking's
    /// log-probability (0 otherwise).
    pub(crate) fn draw_batch<const TRACK: bool>(
        &mut self,
        dist: &Distribution,
        sampler: &mut Sampler,
        rng: &mut Rng,
        count: usize,
        mode: SamplerMode,
    ) {
        let total = dist.n * dist.sessions;
        let rankings = self.state.batch.chunks_exact_mut(total).take(count);
        for (ranking, log_prob) in rankings.zip(self.state.batch_log_prob.iter_mut()) {
            *log_prob = sampler.draw::<TRACK>(dist, mode, rng, ranking);
        }
        self.state.pending = count;
        self.state.pending_mode = mode;
    }

    /// One step on the pending batch with the caller's `costs`, under `config` with the
    /// pending batch's size and sampler.
    ///
    /// # Errors
    /// [`Error::NoPendingBatch`], [`Error::LengthMismatch`] unless one cost per pending
    /// ranking, [`Error::NotFinite`], [`Error::InvalidConfig`]; nothing changes on error.
    pub(crate) fn update(
        &mut self,
        dist: &mut Distribution,
        sampler: &mut Sampler,
        costs: &[f64],
        config: &TrainConfig,
        layout_batch: usize,
    ) -> Result<bool, Error> {
        let pending = self.state.pending;
        if pending == 0 {
            return Err(Error::NoPendingBatch);
        }
        let step = TrainConfig {
            batch: pending,
            sampler: self.state.pending_mode,
            ..*config
        };
        step.check(layout_batch)?;
        if costs.len() != pending {
            return Err(Error::LengthMismatch {
                expected: pending,
                found: costs.len(),
            });
        }
        if let Some(index) = costs.iter().position(|c| !c.is_finite()) {
            return Err(Error::NotFinite { index });
        }
        self.costs[..pending].copy_from_slice(costs);
        Ok(self.step(dist, sampler, &step))
    }

    /// Gradient step on `config.batch` pending samples whose costs are in `costs`.
    fn step(
        &mut self,
        dist: &mut Distribution,
        sampler: &mut Sampler,
        config: &TrainConfig,
    ) -> bool {
        let (n, count, sessions) = (dist.n, dist.pair_count(), dist.sessions);
        let total = n * sessions;
        let batch = config.batch;
        let mut improved = None;
        for b in 0..batch {
            if self.costs[b] < self.state.best_cost {
                self.state.best_cost = self.costs[b];
                improved = Some(b);
            }
        }
        if let Some(b) = improved {
            self.state.best[..total].copy_from_slice(&self.state.batch[b * total..(b + 1) * total]);
        }
        let baseline = if config.baseline {
            self.costs[..batch].iter().sum::<f64>() / batch as f64
        } else {
            0.0
        };
        match config.gradient {
            Gradient::Exact => {
                let grad = &mut self.grad[..count * sessions];
                grad.fill(0.0);
                for b in 0..batch {
                    let scale = (self.costs[b] - baseline) / batch as f64;
                    let ranking = &self.state.batch[b * total..(b + 1) * total];
                    sampler.score(dist, config.sampler, ranking, scale, grad);
                }
                for (pair, w) in dist.weights[..count * sessions].iter_mut().enumerate() {
                    if !dist.frozen.get(pair % count) {
                        *w = clamp(*w - config.learning_rate * grad[pair], config);
                    }
                }
            }
            Gradient::Approximate => {
                // sum_b c_b (e_b - w) / (w (1 - w)) = (E - w C) / (w (1 - w)), E the sum of c_b
                // over the samples that invert the pair and C the sum of all c_b.
                let scale = &mut self.scale[..batch];
                for (c, &cost) in scale.iter_mut().zip(&self.costs[..batch]) {
                    *c = ((cost - baseline) / batch as f64) as f32;
                }
                let c_all: f32 = scale.iter().sum();
                let mut sums = SubsetSums::new(&mut self.subsets[0]);
                for s in 0..sessions {
                    let (rank, _) = sampler.positions(n);
                    locate(dist.reference_of(s), rank);
                    let rankings = self.state.batch.chunks_exact(total).take(batch);
                    let rankings = rankings.map(|ranking| &ranking[s * n..(s + 1) * n]);
                    let keys = &mut self.positions[..n * batch];
                    // The exact branch's gradient buffer, free here, holds E.
                    let inverted = &mut self.grad[..count];
                    if n <= i8::PLACES {
                        let keys = bytemuck::cast_slice_mut::<u16, i8>(keys);
                        inverted_shares(keys, rank, rankings, scale, &mut sums, inverted);
                    } else {
                        let keys = bytemuck::cast_slice_mut::<u16, i16>(keys);
                        inverted_shares(keys, rank, rankings, scale, &mut sums, inverted);
                    }
                    descend(
                        &mut dist.weights[s * count..(s + 1) * count],
                        inverted,
                        &dist.frozen,
                        c_all,
                        config,
                    );
                }
            }
        }
        if improved.is_some() {
            self.rereference(dist, sampler);
        }
        sampler.invalidate();
        self.state.pending = 0;
        improved.is_some()
    }

    /// Makes the best ranking every session's reference. Flipping `w -> 1 - w` on the pairs
    /// whose order changed keeps each pair's probability of coming out in a given order.
    fn rereference(&mut self, dist: &mut Distribution, sampler: &mut Sampler) {
        let (n, count) = (dist.n, dist.pair_count());
        for s in 0..dist.sessions {
            let best = &self.state.best[s * n..(s + 1) * n];
            let (new, old) = sampler.positions(n);
            locate(dist.reference_of(s), old);
            locate(best, new);
            let weights = &mut dist.weights[s * count..(s + 1) * count];
            let mut pair = 0;
            for x in 0..n {
                for y in x + 1..n {
                    if (old[x] < old[y]) != (new[x] < new[y]) {
                        weights[pair] = 1.0 - weights[pair];
                    }
                    pair += 1;
                }
            }
            dist.reference[s * n..(s + 1) * n].copy_from_slice(best);
        }
    }
}
