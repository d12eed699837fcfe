//! REINFORCE over the PPG weights (Algorithm 3), with best tracking and re-referencing.

use crate::engine::{locate, sample_into, score_into, Ppg};
use crate::sampler::SamplerMode;
use crate::{Error, Objective, TrainReport};

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
/// the uncorrected sampler, the approximate gradient, no baseline, input not scored.
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
        Ok(())
    }
}

impl Ppg<'_> {
    /// Trains the weights against `objective` and tracks the best ranking sampled
    /// (read it with [`Ppg::best`]).
    ///
    /// Transactional: on error every part of the engine, the generator included, is as it
    /// was before the call.
    ///
    /// # Errors
    /// [`Error::Empty`] before [`Ppg::start`], [`Error::InvalidConfig`] for a bad recipe,
    /// [`Error::NotFinite`] when the objective returns NaN or an infinity (`index` is the
    /// sample's index in its batch).
    pub fn train<O: Objective + ?Sized>(
        &mut self,
        objective: &mut O,
        config: &TrainConfig,
    ) -> Result<TrainReport, Error> {
        self.check_started()?;
        config.check(self.dims.batch)?;
        self.save();
        let report = self.train_epochs(objective, config);
        if report.is_err() {
            self.restore();
        }
        report
    }

    fn train_epochs<O: Objective + ?Sized>(
        &mut self,
        objective: &mut O,
        config: &TrainConfig,
    ) -> Result<TrainReport, Error> {
        let total = self.n * self.sessions;
        let mut samples = 0;
        let mut best_epoch = None;
        if config.score_input {
            let cost = objective.cost(&self.state.reference[..total], self.sessions);
            if !cost.is_finite() {
                return Err(Error::NotFinite { index: 0 });
            }
            samples += 1;
            if cost < self.state.best_cost {
                self.state.best_cost = cost;
                self.state.best[..total].copy_from_slice(&self.state.reference[..total]);
            }
        }
        let mut epochs = 0;
        let mut stale = 0;
        while epochs < config.epochs {
            self.draw_batch::<false>(config.batch, config.sampler);
            for b in 0..config.batch {
                let cost =
                    objective.cost(&self.state.batch[b * total..(b + 1) * total], self.sessions);
                if !cost.is_finite() {
                    return Err(Error::NotFinite { index: b });
                }
                self.work.costs[b] = cost;
            }
            samples += config.batch as u32;
            let improved = self.step(config);
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

    /// Draws `count` rankings into the pending batch, for callers that score rankings
    /// themselves; read them with [`Ppg::batch`], then call [`Ppg::update`]. A batch still
    /// pending is replaced.
    ///
    /// # Errors
    /// [`Error::Empty`] before [`Ppg::start`] or for `count == 0`, [`Error::Capacity`] when
    /// `count` exceeds the layout's batch.
    pub fn sample_batch(&mut self, count: usize, mode: SamplerMode) -> Result<&[u16], Error> {
        self.check_started()?;
        if count == 0 {
            return Err(Error::Empty);
        }
        if count > self.dims.batch {
            return Err(Error::Capacity {
                requested: count,
                capacity: self.dims.batch,
            });
        }
        self.draw_batch::<true>(count, mode);
        Ok(self.batch())
    }

    /// The pending batch: `count` rankings of `items * sessions` ids (empty when none).
    pub fn batch(&self) -> &[u16] {
        &self.state.batch[..self.state.pending * self.n * self.sessions]
    }

    /// The exact log-probability of each ranking of the pending batch.
    pub fn batch_log_probs(&self) -> &[f64] {
        &self.state.batch_log_prob[..self.state.pending]
    }

    /// One REINFORCE step on the pending batch with one cost per ranking, then best
    /// tracking and re-referencing. Returns whether a new best was found. The batch size and
    /// sampler are those of the pending batch; `config.batch` and `config.sampler` are unused.
    ///
    /// # Errors
    /// [`Error::NoPendingBatch`], [`Error::LengthMismatch`] unless one cost per pending
    /// ranking, [`Error::NotFinite`] for a NaN or infinite cost, [`Error::InvalidConfig`].
    /// Nothing changes on error.
    pub fn update(&mut self, costs: &[f64], config: &TrainConfig) -> Result<bool, Error> {
        let pending = self.state.pending;
        if pending == 0 {
            return Err(Error::NoPendingBatch);
        }
        let step = TrainConfig {
            batch: pending,
            sampler: self.state.pending_mode,
            ..*config
        };
        step.check(self.dims.batch)?;
        if costs.len() != pending {
            return Err(Error::LengthMismatch {
                expected: pending,
                found: costs.len(),
            });
        }
        if let Some(index) = costs.iter().position(|c| !c.is_finite()) {
            return Err(Error::NotFinite { index });
        }
        self.work.costs[..pending].copy_from_slice(costs);
        let step = TrainConfig {
            batch: pending,
            sampler: self.state.pending_mode,
            ..*config
        };
        Ok(self.step(&step))
    }

    /// Fills the batch; `TRACK` also records each ranking's log-probability (0 otherwise).
    fn draw_batch<const TRACK: bool>(&mut self, count: usize, mode: SamplerMode) {
        let total = self.n * self.sessions;
        let batch = core::mem::take(&mut self.state.batch);
        for b in 0..count {
            let log_prob = sample_into::<TRACK>(self, mode, &mut batch[b * total..(b + 1) * total]);
            self.state.batch_log_prob[b] = log_prob;
        }
        self.state.batch = batch;
        self.state.pending = count;
        self.state.pending_mode = mode;
    }

    /// Gradient step on `config.batch` pending samples whose costs are in `work.costs`.
    fn step(&mut self, config: &TrainConfig) -> bool {
        let (n, count, total) = (self.n, self.pair_count(), self.n * self.sessions);
        let batch = config.batch;
        let mut improved = None;
        for b in 0..batch {
            if self.work.costs[b] < self.state.best_cost {
                self.state.best_cost = self.work.costs[b];
                improved = Some(b);
            }
        }
        if let Some(b) = improved {
            self.state.best[..total].copy_from_slice(&self.state.batch[b * total..(b + 1) * total]);
        }
        let baseline = if config.baseline {
            self.work.costs[..batch].iter().sum::<f64>() / batch as f64
        } else {
            0.0
        };
        match config.gradient {
            Gradient::Exact => {
                let grad = core::mem::take(&mut self.grad);
                let grad_now = &mut grad[..count * self.sessions];
                grad_now.fill(0.0);
                let batch_rankings = core::mem::take(&mut self.state.batch);
                for b in 0..batch {
                    let scale = (self.work.costs[b] - baseline) / batch as f64;
                    let ranking = &batch_rankings[b * total..(b + 1) * total];
                    score_into(self, config.sampler, ranking, scale, grad_now);
                }
                self.state.batch = batch_rankings;
                for (pair, w) in self.state.weights[..count * self.sessions]
                    .iter_mut()
                    .enumerate()
                {
                    if !self.frozen.get(pair % count) {
                        *w = clamp(*w - config.learning_rate * grad_now[pair], config);
                    }
                }
                self.grad = grad;
            }
            Gradient::Approximate => {
                // sum_b c_b (e_b - w) / (w (1 - w)) = (E - w C) / (w (1 - w)), E the sum of c_b
                // over the samples that invert the pair and C the sum of all c_b. In reference
                // positions, pair (i, j), i < j, is inverted in sample b exactly when
                // q_b[j] < q_b[i], q_b the sample's positions in reference order. Laid out
                // position-major, each pair's E is a fixed-length loop over the batch: no
                // mispredicted row ends, and lanes the compiler vectorises.
                let scale = &mut self.work.scale[..batch];
                for (c, &cost) in scale.iter_mut().zip(&self.work.costs[..batch]) {
                    *c = ((cost - baseline) / batch as f64) as f32;
                }
                let c_all: f32 = scale.iter().sum();
                for s in 0..self.sessions {
                    let reference = &self.state.reference[s * n..(s + 1) * n];
                    let q = &mut self.work.positions[..n * batch];
                    for b in 0..batch {
                        let block = &self.state.batch[b * total + s * n..b * total + (s + 1) * n];
                        locate(block, &mut self.work.pos[..n]);
                        for (i, &item) in reference.iter().enumerate() {
                            q[i * batch + b] = self.work.pos[item as usize];
                        }
                    }
                    let weights = &mut self.state.weights[s * count..(s + 1) * count];
                    for i in 0..n {
                        let qi = &q[i * batch..(i + 1) * batch];
                        for j in i + 1..n {
                            let qj = &q[j * batch..(j + 1) * batch];
                            let inverted = inverted_share(scale, qi, qj);
                            let (x, y) = (reference[i] as usize, reference[j] as usize);
                            let (lo, hi) = (x.min(y), x.max(y));
                            let pair = self.rows[lo].wrapping_add(hi as u32) as usize;
                            let w = weights[pair];
                            let spread = w * (1.0 - w);
                            // At exactly 0 or 1 the approximate score is 0/0: left alone.
                            if !self.frozen.get(pair) && spread > 0.0 {
                                let g = (inverted - w * c_all) / spread;
                                weights[pair] = clamp(w - config.learning_rate * g, config);
                            }
                        }
                    }
                }
            }
        }
        if improved.is_some() {
            self.rereference();
        }
        self.by_position_stale = true;
        self.state.pending = 0;
        improved.is_some()
    }

    /// Makes the best ranking every session's reference. Flipping `w -> 1 - w` on the pairs
    /// whose order changed keeps each pair's probability of coming out in a given order.
    fn rereference(&mut self) {
        let (n, count) = (self.n, self.pair_count());
        for s in 0..self.sessions {
            locate(
                &self.state.reference[s * n..(s + 1) * n],
                &mut self.work.block[..n],
            );
            locate(
                &self.state.best[s * n..(s + 1) * n],
                &mut self.work.pos[..n],
            );
            let (old, new) = (&self.work.block[..n], &self.work.pos[..n]);
            let weights = &mut self.state.weights[s * count..(s + 1) * count];
            let mut pair = 0;
            for x in 0..n {
                for y in x + 1..n {
                    if (old[x] < old[y]) != (new[x] < new[y]) {
                        weights[pair] = 1.0 - weights[pair];
                    }
                    pair += 1;
                }
            }
            self.state.reference[s * n..(s + 1) * n]
                .copy_from_slice(&self.state.best[s * n..(s + 1) * n]);
        }
    }
}

/// Sum of the shares `c[b]` of the samples with `later[b] < earlier[b]`, in eight lanes: a
/// scalar loop here compiles to a data-dependent branch per sample (LLVM turns the mask back
/// into a conditional add), while fixed lanes become vector compares and masks.
#[inline(always)]
fn inverted_share(c: &[f32], earlier: &[u16], later: &[u16]) -> f32 {
    const LANES: usize = 8;
    let mut lanes = [0.0f32; LANES];
    let chunks = c
        .chunks_exact(LANES)
        .zip(earlier.chunks_exact(LANES))
        .zip(later.chunks_exact(LANES));
    for ((c, a), b) in chunks {
        for k in 0..LANES {
            // All ones when b < a.
            let mask = ((i32::from(b[k]) - i32::from(a[k])) >> 31) as u32;
            lanes[k] += f32::from_bits(c[k].to_bits() & mask);
        }
    }
    let tail = c.len() / LANES * LANES;
    for ((&c, &a), &b) in c[tail..].iter().zip(&earlier[tail..]).zip(&later[tail..]) {
        let mask = ((i32::from(b) - i32::from(a)) >> 31) as u32;
        lanes[0] += f32::from_bits(c.to_bits() & mask);
    }
    lanes.iter().sum()
}

fn clamp(w: f32, config: &TrainConfig) -> f32 {
    if w.is_nan() || w <= 0.0 {
        config.clamp_min
    } else if w >= config.clamp_max {
        config.clamp_max
    } else {
        w
    }
}
