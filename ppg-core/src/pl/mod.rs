//! Plackett-Luce (PL) ranking trained with REINFORCE: the baseline the paper compares PPG
//! with (its Section 2, "Gradient estimators for permutations").
//!
//! The policy is one logit vector `theta` over the `n` items, and
//!
//! ```text
//! P(pi | theta) = prod_k exp(theta_{pi_k}) / sum_{j >= k} exp(theta_{pi_j})
//! ```
//!
//! which is the paper's Eq. 3 with its positive scores written `exp(theta)`: the logits are
//! then unconstrained, and Gumbel-max sampling is exact.
//!
//! **Sessions.** One policy per query, shared by its `S` sessions; each session is an
//! independent draw. The log-probability of a multi-session ranking is the sum over its
//! blocks, and so is its score (gradient of the log-probability).
//!
//! **Output.** PL is a stochastic policy, and the paper evaluates it in expectation over
//! sessions: the natural output for `S` sessions is one fresh draw from the trained policy,
//! [`PlackettLuce::sample`] (or [`PlackettLuce::policy_sample`]). [`PlackettLuce::best`]
//! is the lowest-cost ranking sampled while training (PPG's output rule, to compare the two
//! on equal terms), and [`PlackettLuce::mode`] the single most probable ranking.
//!
//! This file stays whole (over 400 lines): it is the public type [`PlackettLuce`], whose
//! methods are checks around the maths of `math` and the steps of `adam`; its tests are in
//! `tests.rs`.
//!
//! Uses the foundations and the [`Objective`] trait only: none of PPG's
//! distribution, sampler or trainer.

mod adam;
mod config;
mod math;
#[cfg(test)]
mod tests;

pub use config::PlConfig;

use crate::arena::{region_bytes, Arena};
use crate::{Dims, Error, Objective, Rng, TrainReport};

/// Costs beyond this magnitude are clipped before they weight a score (never when tracking
/// the best ranking). It keeps every gradient and its square finite in `f64`
/// (`1e100 * n * S * B` squared stays far below `f64::MAX`) and never binds for a metric.
const COST_LIMIT: f64 = 1e100;

/// A Plackett-Luce ranking policy over `sessions` independent draws of one list, trained by
/// REINFORCE with Adam, in caller memory.
///
/// Item ids are positions in the caller's initial ranking. After [`PlackettLuce::new`] the
/// query is the full shape of the layout (`dims.items` items, `dims.sessions` sessions)
/// with all logits 0, the uniform distribution; [`PlackettLuce::set_logits`] starts from
/// the caller's utilities, [`PlackettLuce::start`] from another query shape.
///
/// The engine borrows all of its memory (see [`PlackettLuce::bytes`]) and never allocates.
/// Every call that returns an error leaves it exactly as it was, generator included.
///
/// ```
/// use ppg_core::{Dims, PlConfig, PlackettLuce};
/// let dims = Dims::new(4, 2, 16);
/// let mut mem = [0u8; PlackettLuce::bytes(Dims::new(4, 2, 16))];
/// let mut pl = PlackettLuce::new(&mut mem, dims, 7)?;
/// pl.set_logits(&[3.0, 2.0, 1.0, 0.0])?;
/// // A toy cost: the position of item 3 in the first session (lower is better).
/// let mut cost = |r: &[u16], _sessions: usize| r[..4].iter().position(|&i| i == 3).unwrap_or(4) as f64;
/// let report = pl.train(&mut cost, &PlConfig::default())?;
/// assert_eq!(pl.best().map(|(_, cost)| cost), Some(report.best_cost));
/// let mut ranking = [0u16; 8];
/// let log_p = pl.sample(&mut ranking)?;
/// assert!((pl.log_prob(&ranking)? - log_p).abs() < 1e-12);
/// # Ok::<(), ppg_core::Error>(())
/// ```
pub struct PlackettLuce<'a> {
    dims: Dims,
    n: usize,
    sessions: usize,
    live: State<'a>,
    saved: State<'a>,
    /// Gumbel keys while sampling, suffix log-sums while scoring.
    lse: &'a mut [f64],
    /// `sum_b (f_b - pivot) score_b` during a step, then the gradient.
    grad: &'a mut [f64],
    /// `sum_b score_b`, to move the baseline after the costs are known.
    score_sum: &'a mut [f64],
    /// The ranking being scored by `train`.
    draw: &'a mut [u16],
    /// Rankings drawn by `sample_batch`, waiting for `update`.
    batch: &'a mut [u16],
    pending: usize,
}

/// Everything training changes; `train` copies it whole before it starts so that a failed
/// run can be undone.
struct State<'a> {
    logits: &'a mut [f32],
    m: &'a mut [f64],
    v: &'a mut [f64],
    best: &'a mut [u16],
    best_cost: f64,
    step: u64,
    rng: Rng,
}

impl<'a> State<'a> {
    const fn bytes(dims: Dims) -> usize {
        region_bytes::<f32>(dims.items)
            .saturating_add(region_bytes::<f64>(dims.items).saturating_mul(2))
            .saturating_add(region_bytes::<u16>(dims.total()))
    }

    fn take(arena: &mut Arena<'a>, dims: Dims, rng: Rng) -> Result<Self, Error> {
        Ok(State {
            logits: arena.take(dims.items)?,
            m: arena.take(dims.items)?,
            v: arena.take(dims.items)?,
            best: arena.take(dims.total())?,
            best_cost: f64::INFINITY,
            step: 0,
            rng,
        })
    }

    fn copy_from(&mut self, other: &State) {
        self.logits.copy_from_slice(other.logits);
        self.m.copy_from_slice(other.m);
        self.v.copy_from_slice(other.v);
        self.best.copy_from_slice(other.best);
        self.best_cost = other.best_cost;
        self.step = other.step;
        self.rng = other.rng.clone();
    }

    fn reset_adam(&mut self) {
        self.m.fill(0.0);
        self.v.fill(0.0);
        self.step = 0;
    }
}

/// What one REINFORCE step has gathered so far.
struct Step {
    count: usize,
    /// The first clipped cost when a baseline is used (0 otherwise): subtracting it before
    /// weighting the scores keeps a large common offset of the costs from cancelling
    /// catastrophically when the batch mean is subtracted at the end.
    pivot: f64,
    cost_sum: f64,
    improved: bool,
}

/// Writes `0, 1, ..., n - 1` into every block of `out`.
fn identity(out: &mut [u16], n: usize) {
    for block in out.chunks_exact_mut(n) {
        for (slot, id) in block.iter_mut().zip(0u16..) {
            *slot = id;
        }
    }
}

/// Fills every block of `out` with an independent Gumbel-max draw.
fn draw_blocks(theta: &[f32], keys: &mut [f64], rng: &mut Rng, out: &mut [u16]) {
    for block in out.chunks_exact_mut(theta.len()) {
        math::gumbel_block(theta, keys, block, rng);
    }
}

/// Checks that every logit is finite.
fn check_finite(logits: &[f32]) -> Result<(), Error> {
    match logits.iter().position(|t| !t.is_finite()) {
        Some(index) => Err(Error::NotFinite { index }),
        None => Ok(()),
    }
}

impl<'a> PlackettLuce<'a> {
    /// Bytes of memory an engine of shape `dims` needs, alignment slack included.
    ///
    /// A `const fn`, so a firmware buffer can be a static array of exactly this size.
    pub const fn bytes(dims: Dims) -> usize {
        let n = dims.items;
        let total = dims.total();
        State::bytes(dims)
            .saturating_mul(2)
            .saturating_add(region_bytes::<f64>(n).saturating_mul(3))
            .saturating_add(region_bytes::<u16>(total))
            .saturating_add(region_bytes::<u16>(total.saturating_mul(dims.batch)))
    }

    /// An engine of shape `dims` in `mem`, its generator seeded with `seed`, holding the
    /// uniform policy (all logits 0) over `dims.items` items in `dims.sessions` sessions.
    ///
    /// # Errors
    /// [`Error::Empty`] or [`Error::Capacity`] for an unusable shape,
    /// [`Error::MemoryTooSmall`] when `mem` is shorter than [`PlackettLuce::bytes`].
    pub fn new(mem: &'a mut [u8], dims: Dims, seed: u64) -> Result<Self, Error> {
        dims.check()?;
        let needed = Self::bytes(dims);
        // Checked up front, not only when the arena runs dry, so that whether a buffer
        // suffices never depends on where it happens to start.
        if mem.len() < needed {
            return Err(Error::MemoryTooSmall {
                needed,
                available: mem.len(),
            });
        }
        let mut arena = Arena::new(mem, needed);
        let rng = Rng::new(seed);
        let live = State::take(&mut arena, dims, rng.clone())?;
        let saved = State::take(&mut arena, dims, rng)?;
        let lse = arena.take(dims.items)?;
        let grad = arena.take(dims.items)?;
        let score_sum = arena.take(dims.items)?;
        let draw = arena.take(dims.total())?;
        let batch = arena.take(dims.total() * dims.batch)?;
        identity(live.best, dims.items);
        Ok(PlackettLuce {
            dims,
            n: dims.items,
            sessions: dims.sessions,
            live,
            saved,
            lse,
            grad,
            score_sum,
            draw,
            batch,
            pending: 0,
        })
    }

    /// The shape the engine was laid out for.
    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// Items per session of the current query.
    pub fn items(&self) -> usize {
        self.n
    }

    /// Sessions of the current query.
    pub fn sessions(&self) -> usize {
        self.sessions
    }

    /// Restarts the generator from `seed`.
    pub fn reseed(&mut self, seed: u64) {
        self.live.rng = Rng::new(seed);
    }

    /// Starts a query of `logits.len()` items in `sessions` sessions from `logits`: the
    /// Adam moments are cleared, no best ranking is known (it reads as the identity with
    /// cost `+inf`), no batch is pending. The generator runs on.
    ///
    /// # Errors
    /// [`Error::Empty`] for no items or sessions, [`Error::Capacity`] beyond the layout,
    /// [`Error::NotFinite`] for a NaN or infinite logit.
    pub fn start(&mut self, logits: &[f32], sessions: usize) -> Result<(), Error> {
        if logits.is_empty() || sessions == 0 {
            return Err(Error::Empty);
        }
        if logits.len() > self.dims.items {
            return Err(Error::Capacity {
                requested: logits.len(),
                capacity: self.dims.items,
            });
        }
        if sessions > self.dims.sessions {
            return Err(Error::Capacity {
                requested: sessions,
                capacity: self.dims.sessions,
            });
        }
        check_finite(logits)?;
        self.n = logits.len();
        self.sessions = sessions;
        self.live.logits[..self.n].copy_from_slice(logits);
        self.live.reset_adam();
        identity(&mut self.live.best[..self.n * sessions], self.n);
        self.live.best_cost = f64::INFINITY;
        self.pending = 0;
        Ok(())
    }

    /// Sets the logits of the current query, typically from the items' utilities (a larger
    /// logit ranks an item higher). A new starting point starts a new optimisation: the Adam
    /// moments are cleared, and a pending batch, drawn from the old policy, is dropped. The
    /// best ranking is kept: it is still the lowest cost seen for this query.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless one logit per item, [`Error::NotFinite`] for a NaN
    /// or infinite logit.
    pub fn set_logits(&mut self, logits: &[f32]) -> Result<(), Error> {
        if logits.len() != self.n {
            return Err(Error::LengthMismatch {
                expected: self.n,
                found: logits.len(),
            });
        }
        check_finite(logits)?;
        self.live.logits[..self.n].copy_from_slice(logits);
        self.live.reset_adam();
        self.pending = 0;
        Ok(())
    }

    /// The current logits, one per item.
    pub fn logits(&self) -> &[f32] {
        &self.live.logits[..self.n]
    }

    /// Draws one multi-session ranking into `out` (each session an independent Gumbel-max
    /// draw: one uniform per item, sessions in order) and returns its log-probability.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `out.len() == items * sessions`.
    pub fn sample(&mut self, out: &mut [u16]) -> Result<f64, Error> {
        self.policy_sample(out)?;
        let theta = &self.live.logits[..self.n];
        Ok(out
            .chunks_exact(self.n)
            .map(|block| math::block_log_prob(theta, block))
            .sum())
    }

    /// Draws one multi-session ranking from the policy into `out`: the natural output of a
    /// trained PL policy for `sessions` sessions. The same draw as [`PlackettLuce::sample`],
    /// without the log-probability.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `out.len() == items * sessions`.
    pub fn policy_sample(&mut self, out: &mut [u16]) -> Result<(), Error> {
        let total = self.n * self.sessions;
        if out.len() != total {
            return Err(Error::LengthMismatch {
                expected: total,
                found: out.len(),
            });
        }
        let n = self.n;
        draw_blocks(
            &self.live.logits[..n],
            &mut self.lse[..n],
            &mut self.live.rng,
            out,
        );
        Ok(())
    }

    /// Writes the most probable ranking, the items by logit, largest first (ties: lower id
    /// first), into every session of `out`. Deterministic; it draws nothing.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `out.len() == items * sessions`.
    pub fn mode(&self, out: &mut [u16]) -> Result<(), Error> {
        let total = self.n * self.sessions;
        if out.len() != total {
            return Err(Error::LengthMismatch {
                expected: total,
                found: out.len(),
            });
        }
        let (first, rest) = out.split_at_mut(self.n);
        identity(first, self.n);
        let theta = &self.live.logits[..self.n];
        first.sort_unstable_by(|&a, &b| {
            theta[usize::from(b)]
                .total_cmp(&theta[usize::from(a)])
                .then(a.cmp(&b))
        });
        for block in rest.chunks_exact_mut(self.n) {
            block.copy_from_slice(first);
        }
        Ok(())
    }

    /// The log-probability of `ranking` under the policy: the sum over sessions of
    /// `sum_k [theta_{pi_k} - logsumexp(theta_{pi_k}, ..., theta_{pi_n})]`.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`], [`Error::ItemOutOfRange`] or [`Error::NotPermutation`]
    /// unless `ranking` is `sessions` permutations of `0..items`.
    pub fn log_prob(&self, ranking: &[u16]) -> Result<f64, Error> {
        math::check_ranking(ranking, self.n, self.sessions)?;
        let theta = &self.live.logits[..self.n];
        Ok(ranking
            .chunks_exact(self.n)
            .map(|block| math::block_log_prob(theta, block))
            .sum())
    }

    /// Writes the score, the gradient of [`PlackettLuce::log_prob`] with respect to every
    /// logit, into `out`, and returns the log-probability. For the item at position `p` of a
    /// session, `1 - exp(theta_i) sum_{k <= p} 1 / Z_k` with `Z_k = sum_{j >= k}
    /// exp(theta_{pi_j})`, summed over sessions; `O(n)` per session.
    ///
    /// # Errors
    /// As [`PlackettLuce::log_prob`]; [`Error::LengthMismatch`] unless `out` holds one value
    /// per item.
    pub fn score(&mut self, ranking: &[u16], out: &mut [f64]) -> Result<f64, Error> {
        math::check_ranking(ranking, self.n, self.sessions)?;
        if out.len() != self.n {
            return Err(Error::LengthMismatch {
                expected: self.n,
                found: out.len(),
            });
        }
        out.fill(0.0);
        let theta = &self.live.logits[..self.n];
        let mut log_p = 0.0;
        for block in ranking.chunks_exact(self.n) {
            math::block_score(theta, block, &mut self.lse[..self.n], |i, s| out[i] += s);
            log_p += math::block_log_prob(theta, block);
        }
        Ok(log_p)
    }

    /// The lowest-cost ranking sampled so far (by [`PlackettLuce::train`] or scored through
    /// [`PlackettLuce::update`]) and its cost, if any was scored.
    pub fn best(&self) -> Option<(&[u16], f64)> {
        if self.live.best_cost.is_finite() {
            Some((
                &self.live.best[..self.n * self.sessions],
                self.live.best_cost,
            ))
        } else {
            None
        }
    }

    /// Draws `count` multi-session rankings into the engine's batch, for a caller that
    /// scores them itself and then calls [`PlackettLuce::update`]. A batch still pending is
    /// replaced. The draws are those [`PlackettLuce::train`] would make.
    ///
    /// # Errors
    /// [`Error::Empty`] for `count == 0`, [`Error::Capacity`] beyond `dims.batch`.
    pub fn sample_batch(&mut self, count: usize) -> Result<(), Error> {
        if count == 0 {
            return Err(Error::Empty);
        }
        if count > self.dims.batch {
            return Err(Error::Capacity {
                requested: count,
                capacity: self.dims.batch,
            });
        }
        let n = self.n;
        let len = count * n * self.sessions;
        draw_blocks(
            &self.live.logits[..n],
            &mut self.lse[..n],
            &mut self.live.rng,
            &mut self.batch[..len],
        );
        self.pending = count;
        Ok(())
    }

    /// The pending batch: `count` rankings of `items * sessions` ids laid end to end (empty
    /// when none is pending).
    pub fn batch(&self) -> &[u16] {
        &self.batch[..self.pending * self.n * self.sessions]
    }

    /// Rankings in the pending batch (0 when none is pending).
    pub fn pending(&self) -> usize {
        self.pending
    }

    /// One REINFORCE step on the pending batch: `costs[b]` is the cost of its ranking `b`.
    /// The gradient `mean_b (f_b - baseline) score_b` moves the logits by one Adam step
    /// towards lower cost, the best ranking is updated, and the batch is consumed.
    /// `config.epochs`, `batch` and `patience` play no part here.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] (see [`PlConfig::check`]; the batch size is not checked),
    /// [`Error::NoPendingBatch`], [`Error::LengthMismatch`] unless one cost per pending
    /// ranking, [`Error::NotFinite`] with the index of a NaN or infinite cost. All are
    /// checked before anything changes.
    pub fn update(&mut self, costs: &[f64], config: &PlConfig) -> Result<(), Error> {
        config.check_step()?;
        if self.pending == 0 {
            return Err(Error::NoPendingBatch);
        }
        if costs.len() != self.pending {
            return Err(Error::LengthMismatch {
                expected: self.pending,
                found: costs.len(),
            });
        }
        if let Some(index) = costs.iter().position(|c| !c.is_finite()) {
            return Err(Error::NotFinite { index });
        }
        let mut step = self.begin_step();
        for (slot, &cost) in costs.iter().enumerate() {
            self.observe(Some(slot), cost, config.baseline, &mut step);
        }
        self.finish_step(&step, config);
        self.pending = 0;
        Ok(())
    }

    /// Trains the policy on `objective` (REINFORCE with Adam, minimising the expected cost):
    /// each epoch draws `config.batch` multi-session rankings, scores each, and takes one
    /// Adam step along `mean_b (f_b - baseline) score_b`. The lowest cost sampled and its
    /// ranking are kept ([`PlackettLuce::best`]; the best carries over between calls).
    /// Training stops after `config.epochs` epochs, or `config.patience` epochs without a
    /// new best. On success a pending batch, drawn from the old policy, is dropped.
    ///
    /// The report's `best_epoch` is the epoch of this call that found the current best,
    /// `None` when no sample of this call beat the best held before it.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] (see [`PlConfig::check`]); [`Error::NotFinite`] when the
    /// objective returns NaN or an infinity, `index` counting the rankings scored before it
    /// in this call. Then logits, Adam moments, best ranking, generator and pending batch
    /// are all restored as they were before the call.
    pub fn train<O: Objective + ?Sized>(
        &mut self,
        objective: &mut O,
        config: &PlConfig,
    ) -> Result<TrainReport, Error> {
        config.check(self.dims)?;
        self.saved.copy_from(&self.live);
        match self.run(objective, config) {
            Ok(report) => {
                self.pending = 0;
                Ok(report)
            }
            Err(error) => {
                self.live.copy_from(&self.saved);
                Err(error)
            }
        }
    }

    fn run<O: Objective + ?Sized>(
        &mut self,
        objective: &mut O,
        config: &PlConfig,
    ) -> Result<TrainReport, Error> {
        let n = self.n;
        let total = n * self.sessions;
        let mut report = TrainReport {
            epochs: 0,
            samples: 0,
            best_cost: self.live.best_cost,
            best_epoch: None,
            bound: None,
            certified: false,
        };
        let mut stale = 0u32;
        for epoch in 0..config.epochs {
            let mut step = self.begin_step();
            for _ in 0..config.batch {
                draw_blocks(
                    &self.live.logits[..n],
                    &mut self.lse[..n],
                    &mut self.live.rng,
                    &mut self.draw[..total],
                );
                let cost = objective.cost(&self.draw[..total], self.sessions);
                if !cost.is_finite() {
                    let index = usize::try_from(report.samples).unwrap_or(usize::MAX);
                    return Err(Error::NotFinite { index });
                }
                report.samples = report.samples.saturating_add(1);
                self.observe(None, cost, config.baseline, &mut step);
            }
            self.finish_step(&step, config);
            report.epochs = epoch + 1;
            if step.improved {
                report.best_epoch = Some(epoch);
                stale = 0;
            } else {
                stale = stale.saturating_add(1);
            }
            if config.patience != 0 && stale >= config.patience {
                break;
            }
        }
        report.best_cost = self.live.best_cost;
        Ok(report)
    }

    fn begin_step(&mut self) -> Step {
        self.grad[..self.n].fill(0.0);
        self.score_sum[..self.n].fill(0.0);
        Step {
            count: 0,
            pivot: 0.0,
            cost_sum: 0.0,
            improved: false,
        }
    }

    /// Takes in the cost of one ranking: the batch's ranking `slot`, or `train`'s current
    /// draw for `None`.
    fn observe(&mut self, slot: Option<usize>, cost: f64, baseline: bool, step: &mut Step) {
        let n = self.n;
        let total = n * self.sessions;
        let ranking = match slot {
            Some(k) => &self.batch[k * total..(k + 1) * total],
            None => &self.draw[..total],
        };
        // Strictly lower: on a tie the earlier ranking stays, as in the reference.
        if cost < self.live.best_cost {
            self.live.best[..total].copy_from_slice(ranking);
            self.live.best_cost = cost;
            step.improved = true;
        }
        let cost = cost.clamp(-COST_LIMIT, COST_LIMIT);
        if baseline && step.count == 0 {
            step.pivot = cost;
        }
        step.count += 1;
        step.cost_sum += cost;
        let weight = cost - step.pivot;
        let theta = &self.live.logits[..n];
        let (grad, score_sum) = (&mut self.grad[..n], &mut self.score_sum[..n]);
        for block in ranking.chunks_exact(n) {
            math::block_score(theta, block, &mut self.lse[..n], |i, s| {
                grad[i] += weight * s;
                score_sum[i] += s;
            });
        }
    }

    /// Turns the sums into `mean_b (f_b - baseline) score_b` and takes the Adam step.
    fn finish_step(&mut self, step: &Step, config: &PlConfig) {
        let n = self.n;
        let count = step.count as f64;
        // grad holds sum_b (f_b - pivot) s_b; with baseline c = mean f, the gradient is
        // that minus (c - pivot) sum_b s_b. Without a baseline the pivot is 0 and so is
        // the shift.
        let shift = if config.baseline {
            step.cost_sum / count - step.pivot
        } else {
            0.0
        };
        for (g, &s) in self.grad[..n].iter_mut().zip(self.score_sum[..n].iter()) {
            *g = (*g - shift * s) / count;
        }
        self.live.step += 1;
        let live = &mut self.live;
        adam::step(
            &mut live.logits[..n],
            &mut live.m[..n],
            &mut live.v[..n],
            &self.grad[..n],
            live.step,
            config,
        );
    }
}
