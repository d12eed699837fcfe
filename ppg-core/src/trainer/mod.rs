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
//! - [`hold`]: a run with some pairs held in their order first, then released (at every
//!   stage of a grown run).
//! - [`optimum`]: a certifying call that starts from the objective's optimum rankings.
//!
//! A training call lends the trainer the engine's parts, the objective, the recipe and the
//! state before the call as one [`Run`]; the plain, grown and held runs each take it whole.
//! With [`TrainConfig::certify`], each of them (each stage of a grown run, each part of a
//! held one) stops as soon as its best is within the tolerance of the objective's lower
//! bound at its session count ([`Objective::lower_bound`]).
//! - [`state`]: what a run changes besides the distribution, and the copy to undo it.
//! - [`scratch`]: the step's scratch, the exact gradient's or the approximate step's.

mod approximate;
mod config;
pub(crate) mod grow;
pub(crate) mod hold;
pub(crate) mod optimum;
mod scratch;
mod state;

pub use config::{Gradient, TrainConfig};
pub use state::PendingDraw;
pub(crate) use state::{Saved, TrainState};

use self::approximate::{clamp, descend, inverted_shares, Key, SubsetSums};
use self::scratch::StepScratch;
use crate::arena::{region_bytes, sum, Arena};
use crate::distribution::{locate, Distribution};
use crate::objective::{LowerBound, OPTIMUM_WORK};
use crate::sampler::{Sampler, SamplerMode};
use crate::{Dims, Error, Objective, Rng, TrainReport};

/// The trainer: its state and the scratch of a step.
pub(crate) struct Trainer<'a> {
    pub(crate) state: TrainState<'a>,
    /// The step's scratch ([`StepScratch`]): the exact gradient, or the approximate step's
    /// buffers, which no step needs at once.
    work: &'a mut [f32],
    /// The cost of each pending sample.
    costs: &'a mut [f64],
    /// A grown run's kept ranking ([`grow`]): `items * sessions` ids.
    kept: &'a mut [u16],
    /// The objective's lower bound at `bound_sessions` sessions, computed once a training
    /// call (`bound_sessions == 0`: none computed yet).
    bound: Option<LowerBound>,
    bound_sessions: usize,
    /// The bound at the call's own session count ([`Trainer::optimum`]), kept through a
    /// grown run's smaller stages (`0`: none).
    call_bound: Option<LowerBound>,
    call_sessions: usize,
    /// The search at the call's own count built rankings ([`Trainer::refill_optimum`]).
    call_found: bool,
    /// The session count whose optimum rankings the batch holds ([`Trainer::optimum`];
    /// `0`: none): a draw overwrites them.
    optimum_in_batch: usize,
}

impl<'a> Trainer<'a> {
    /// Bytes of the regions [`Trainer::new`] takes for shape `dims`.
    pub(crate) const fn bytes(dims: Dims) -> usize {
        sum(&[
            TrainState::bytes(dims),
            // `f64`-aligned: the lower bound's search borrows it before a run's first step.
            region_bytes::<f64>(StepScratch::len(dims).div_ceil(2)),
            region_bytes::<f64>(dims.batch),
            region_bytes::<u16>(dims.total()),
        ])
    }

    /// A trainer with no best and no batch, in regions of `arena`.
    pub(crate) fn new(arena: &mut Arena<'a>, dims: Dims) -> Result<Self, Error> {
        Ok(Trainer {
            state: TrainState::new(arena, dims)?,
            // A `f64` region is a whole number of `f32`s, aligned for both: the cast cannot
            // fail, and the fallible form keeps a panic's formatting out of a firmware image.
            work: bytemuck::try_cast_slice_mut(
                arena.take::<f64>(StepScratch::len(dims).div_ceil(2))?,
            )
            .map_err(|_| Error::MemoryTooSmall {
                needed: Self::bytes(dims),
                available: 0,
            })?,
            costs: arena.take(dims.batch)?,
            kept: arena.take(dims.total())?,
            bound: None,
            bound_sessions: 0,
            call_bound: None,
            call_sessions: 0,
            call_found: false,
            optimum_in_batch: 0,
        })
    }

    /// Forgets the lower bound of the last training call: the next may have another
    /// objective.
    pub(crate) fn forget_bound(&mut self) {
        self.bound_sessions = 0;
        self.bound = None;
        self.call_sessions = 0;
        self.call_bound = None;
        self.call_found = false;
        self.optimum_in_batch = 0;
    }

    /// The objective's lower bound at `sessions` sessions of `n` items (computed once a
    /// training call and session count), `None` when it gives none.
    pub(crate) fn lower_bound(
        &mut self,
        objective: &dyn Objective,
        n: usize,
        sessions: usize,
    ) -> Option<LowerBound> {
        if sessions == self.call_sessions {
            return self.call_bound;
        }
        if self.bound_sessions != sessions {
            // The step's scratch is free between steps, and `StepScratch::len` is above
            // `2 (n + 1)` for every `n`: `n (n - 1) / 2 + 512 > 2 n + 2`.
            let work = bytemuck::try_cast_slice_mut::<f32, f64>(&mut self.work[..2 * (n + 1)]);
            self.bound = work
                .ok()
                .and_then(|w| objective.lower_bound(sessions, w))
                .filter(finite);
            self.bound_sessions = sessions;
        }
        self.bound
    }

    /// [`Trainer::lower_bound`], computed where not known yet with the rankings that reach
    /// it written into the batch when the objective gives them ([`Objective::optimum`];
    /// [`Trainer::optimum_in_batch`] then says so). The batch must be free: before a run's
    /// first draw. `for_call`: the bound at the call's own session count, kept through a
    /// grown run's smaller stages.
    pub(crate) fn optimum(
        &mut self,
        objective: &dyn Objective,
        n: usize,
        sessions: usize,
        for_call: bool,
    ) -> Option<LowerBound> {
        if sessions == self.call_sessions {
            return self.call_bound;
        }
        if sessions == self.bound_sessions {
            return self.bound;
        }
        let bound = self.search_optimum(objective, n, sessions);
        if for_call {
            (self.call_bound, self.call_sessions) = (bound, sessions);
            self.call_found = self.optimum_in_batch(sessions);
        } else {
            (self.bound, self.bound_sessions) = (bound, sessions);
        }
        bound
    }

    /// The objective's optimum at `sessions` sessions with its rankings written into the
    /// batch when it gives them ([`Trainer::optimum_in_batch`] then says so); the bound is
    /// not cached.
    fn search_optimum(
        &mut self,
        objective: &dyn Objective,
        n: usize,
        sessions: usize,
    ) -> Option<LowerBound> {
        let values = (OPTIMUM_WORK * n + 4).min(self.work.len() / 2);
        let work = bytemuck::try_cast_slice_mut::<f32, f64>(&mut self.work[..2 * values]);
        let out = &mut self.state.batch[..n * sessions];
        let (bound, found) = match work.ok().and_then(|w| objective.optimum(sessions, w, out)) {
            Some((bound, found)) if finite(&bound) => (Some(bound), found),
            _ => (None, false),
        };
        self.optimum_in_batch = if found { sessions } else { 0 };
        bound
    }

    /// Whether the batch holds the optimum's rankings at `sessions` sessions: at a count
    /// searched last ([`Trainer::optimum`]) as that search left it, at the call's own count
    /// written again by the objective's search where a draw overwrote them and the first
    /// search built them (the bound stays as cached). No search runs again for an
    /// objective that builds no rankings. The batch must be free.
    pub(crate) fn refill_optimum(
        &mut self,
        objective: &dyn Objective,
        n: usize,
        sessions: usize,
    ) -> bool {
        if !self.optimum_in_batch(sessions) && sessions == self.call_sessions && self.call_found {
            self.search_optimum(objective, n, sessions);
        }
        self.optimum_in_batch(sessions)
    }

    /// Whether the batch holds the optimum's rankings at `sessions` sessions
    /// ([`Trainer::optimum`]).
    pub(crate) fn optimum_in_batch(&self, sessions: usize) -> bool {
        self.optimum_in_batch == sessions
    }

    /// Forgets the best ranking and the pending batch (a new query).
    pub(crate) fn reset(&mut self) {
        self.state.best_cost = f64::INFINITY;
        self.state.pending = None;
    }

    /// Forgets the pending batch: the distribution it was drawn from changed, so it could
    /// not be drawn again to undo a failed run, and a step on it would follow the gradient
    /// of another distribution.
    pub(crate) fn drop_pending(&mut self) {
        self.state.pending = None;
    }

    /// Copies the best ranking and how the pending batch was drawn into `to`.
    pub(crate) fn save(&self, to: &mut Saved) {
        to.best.copy_from_slice(self.state.best);
        to.best_cost = self.state.best_cost;
        to.pending = self.state.pending.clone();
    }

    /// The best ranking of `from`, with no batch pending: where a grown run's last stage
    /// starts.
    fn restart_from(&mut self, from: &Saved) {
        self.state.best.copy_from_slice(from.best);
        self.state.best_cost = from.best_cost;
        self.state.pending = None;
    }

    /// Back to `from`, the pending batch drawn again from `dist`, which must be the
    /// distribution it was first drawn from (the engine restores it first).
    pub(crate) fn restore(&mut self, from: &Saved, dist: &Distribution, sampler: &mut Sampler) {
        self.restart_from(from);
        if let Some(drawn) = &from.pending {
            self.redraw(drawn, dist, sampler);
        }
    }

    /// How the pending batch was drawn, if one is pending.
    pub(crate) fn pending(&self) -> Option<&PendingDraw> {
        self.state.pending.as_ref()
    }

    /// Draws `drawn`'s batch again from `dist` into the pending batch; `rng` does not move.
    /// Batches pending outside a training call come from `Ppg::sample_batch`, with
    /// log-probabilities.
    pub(crate) fn redraw(
        &mut self,
        drawn: &PendingDraw,
        dist: &Distribution,
        sampler: &mut Sampler,
    ) {
        let mut rng = drawn.rng.clone();
        self.draw_batch::<true>(dist, sampler, &mut rng, drawn.count, drawn.mode);
    }

    /// The lowest-cost ranking seen so far and its cost, if any was scored.
    pub(crate) fn best(&self, total: usize) -> Option<(&[u16], f64)> {
        let state = &self.state;
        state
            .best_cost
            .is_finite()
            .then(|| (&state.best[..total], state.best_cost))
    }

    /// After a call: the best ranking of `total` ids, the step's scratch as `f64`s and the
    /// kept region (both free between calls), for a caller that offers a better best
    /// ([`Trainer::take_best`]): the recipe's most relevant optimum at one session.
    pub(crate) fn spare(&mut self, total: usize) -> (&[u16], &mut [f64], &mut [u16]) {
        let work = bytemuck::try_cast_slice_mut::<f32, f64>(&mut self.work[..]).unwrap_or_default();
        (&self.state.best[..total], work, &mut self.kept[..])
    }

    /// Makes the first `total` ids of the kept region the best, at `cost`.
    pub(crate) fn take_best(&mut self, total: usize, cost: f64) {
        self.state.best[..total].copy_from_slice(&self.kept[..total]);
        self.state.best_cost = cost;
    }

    /// The pending batch of rankings of `total` ids each.
    pub(crate) fn batch(&self, total: usize) -> &[u16] {
        &self.state.batch[..self.state.pending_count() * total]
    }

    /// The log-probability of each pending ranking.
    pub(crate) fn batch_log_probs(&self) -> &[f64] {
        &self.state.batch_log_prob[..self.state.pending_count()]
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
        self.optimum_in_batch = 0;
        self.state.pending = Some(PendingDraw {
            count,
            mode,
            rng: rng.clone(),
        });
        let rankings = self.state.batch.chunks_exact_mut(total).take(count);
        for (ranking, log_prob) in rankings.zip(self.state.batch_log_prob.iter_mut()) {
            *log_prob = sampler.draw::<TRACK>(dist, mode, rng, ranking);
        }
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
        let Some(PendingDraw {
            count: pending,
            mode,
            ..
        }) = self.state.pending
        else {
            return Err(Error::NoPendingBatch);
        };
        let step = TrainConfig {
            batch: pending,
            sampler: mode,
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
        Ok(self.step(dist, sampler, &step, false))
    }

    /// Gradient step on `config.batch` pending samples whose costs are in `costs`: `f64`,
    /// or `f32` from a single-precision objective when `single`, the best so far then in
    /// `best_single`.
    fn step(
        &mut self,
        dist: &mut Distribution,
        sampler: &mut Sampler,
        config: &TrainConfig,
        single: bool,
    ) -> bool {
        let (n, count, sessions) = (dist.n, dist.pair_count(), dist.sessions);
        let total = n * sessions;
        let batch = config.batch;
        let costs = &self.costs[..batch];
        let costs_single = &bytemuck::must_cast_slice::<f64, f32>(self.costs)[..batch];
        let improved = if single {
            lowest(costs_single, &mut self.state.best_single)
        } else {
            lowest(costs, &mut self.state.best_cost)
        };
        if let Some(b) = improved {
            self.state.best[..total].copy_from_slice(&self.state.batch[b * total..(b + 1) * total]);
        }
        // Each sample's share of the step, `(cost - baseline) / batch`, in the precision of
        // its cost; the baseline, when asked, is the batch's mean.
        let baseline = if config.baseline && !single {
            costs.iter().sum::<f64>() / batch as f64
        } else {
            0.0
        };
        let baseline_single = if config.baseline && single {
            costs_single.iter().sum::<f32>() / batch as f32
        } else {
            0.0
        };
        let share = |b: usize| (costs[b] - baseline) / batch as f64;
        let share_single = |b: usize| (costs_single[b] - baseline_single) / batch as f32;
        match config.gradient {
            Gradient::Exact => {
                let grad = &mut self.work[..count * sessions];
                grad.fill(0.0);
                for b in 0..batch {
                    let scale = if single {
                        f64::from(share_single(b))
                    } else {
                        share(b)
                    };
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
                let StepScratch {
                    inverted,
                    subsets,
                    scale,
                    keys,
                } = StepScratch::split(self.work, count, batch);
                for (b, c) in scale.iter_mut().enumerate() {
                    *c = if single {
                        share_single(b)
                    } else {
                        share(b) as f32
                    };
                }
                let c_all: f32 = scale.iter().sum();
                let mut sums = SubsetSums::new(subsets);
                for s in 0..sessions {
                    let (rank, _) = sampler.positions(n);
                    locate(dist.reference_of(s), rank);
                    let rankings = self.state.batch.chunks_exact(total).take(batch);
                    let rankings = rankings.map(|ranking| &ranking[s * n..(s + 1) * n]);
                    if n <= i8::PLACES {
                        let keys = &mut bytemuck::must_cast_slice_mut::<f32, i8>(keys)[..n * batch];
                        inverted_shares(keys, rank, rankings, scale, &mut sums, inverted);
                    } else {
                        let keys =
                            &mut bytemuck::must_cast_slice_mut::<f32, i16>(keys)[..n * batch];
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
        self.state.pending = None;
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

/// What a training call lends the trainer: the engine's parts, the objective, the recipe
/// and the state before the call. The plain ([`Run::train`]), grown ([`grow`]) and held
/// ([`hold`]) runs take it whole.
pub(crate) struct Run<'r, 'a> {
    pub(crate) trainer: &'r mut Trainer<'a>,
    pub(crate) dist: &'r mut Distribution<'a>,
    pub(crate) sampler: &'r mut Sampler<'a>,
    pub(crate) rng: &'r mut Rng,
    pub(crate) objective: &'r mut dyn Objective,
    pub(crate) config: &'r TrainConfig,
    /// The state before the call: a grown run's every stage starts from it.
    pub(crate) before: grow::Before<'r>,
    /// The call starts from the objective's optimum rankings ([`optimum`]): every run (each
    /// stage of a grown one, each part of a held one) scores them after the input.
    pub(crate) from_optimum: Option<optimum::FromOptimum>,
}

impl Run<'_, '_> {
    /// One training call: grown over sessions when the recipe says so and there is more
    /// than one session ([`grow`]), else [`Run::train`] with the recipe.
    ///
    /// # Errors
    /// As [`Run::train`]; the caller undoes the partial run.
    pub(crate) fn run(&mut self) -> Result<TrainReport, Error> {
        if self.config.grow && self.dist.sessions > 1 {
            grow::train(self, |run, _| {
                let config = *run.config;
                run.train(&config)
            })
        } else {
            let config = *self.config;
            self.train(&config)
        }
    }

    /// The cost at or below which a run at the current session count is certified: the
    /// objective's lower bound plus [`TrainConfig::certify`]'s tolerance; -infinity when
    /// not asked or the objective gives no bound.
    pub(crate) fn target(&mut self) -> f64 {
        let Some(tolerance) = self.config.certify else {
            return f64::NEG_INFINITY;
        };
        let (n, sessions) = (self.dist.n, self.dist.sessions);
        let bound = match self.from_optimum {
            Some(from) => (from.bound)(self.trainer, &*self.objective, n, sessions),
            None => self.trainer.lower_bound(&*self.objective, n, sessions),
        };
        match bound {
            Some(bound) => bound.value + tolerance,
            None => f64::NEG_INFINITY,
        }
    }

    /// Runs a checked `config` to the end, to its patience, or until certified (the best
    /// at or below [`Run::target`]).
    ///
    /// # Errors
    /// [`Error::NotFinite`] when the objective returns NaN or an infinity; the caller undoes
    /// the partial run.
    pub(crate) fn train(&mut self, config: &TrainConfig) -> Result<TrainReport, Error> {
        let target = self.target();
        let Run {
            trainer,
            dist,
            sampler,
            rng,
            objective,
            from_optimum,
            ..
        } = self;
        // Plain `&mut`s, not the `&mut &mut` the pattern binds: through the double
        // references the compiled loop took 1.2% more instructions on the M4F (the golden
        // run under QEMU, 11.56M against 11.43M).
        let (trainer, dist, sampler, rng) =
            (&mut **trainer, &mut **dist, &mut **sampler, &mut **rng);
        let (sessions, total) = (dist.sessions, dist.n * dist.sessions);
        // An objective that adds up in single precision: costs, the best so far and the
        // shares stay `f32` until the run ends (`Objective::single`).
        let single = objective.single();
        if single {
            trainer.state.best_single = trainer.state.best_cost as f32;
        }
        let best_now = |t: &Trainer| {
            if single {
                f64::from(t.state.best_single)
            } else {
                t.state.best_cost
            }
        };
        let mut samples = 0;
        let mut best_epoch = None;
        let mut input_won = false;
        if config.score_input {
            let input = &dist.reference[..total];
            let not_finite = Err(Error::NotFinite { index: 0 });
            input_won = if single {
                let cost = objective.cost_single(input, sessions);
                if !cost.is_finite() {
                    return not_finite;
                }
                lowest(&[cost], &mut trainer.state.best_single).is_some()
            } else {
                let cost = objective.cost(input, sessions);
                if !cost.is_finite() {
                    return not_finite;
                }
                lowest(&[cost], &mut trainer.state.best_cost).is_some()
            };
            samples += 1;
            if input_won {
                trainer.state.best[..total].copy_from_slice(input);
            }
        }
        if let Some(from) = from_optimum.filter(|_| trainer.optimum_in_batch(sessions)) {
            samples += u32::from((from.offer)(trainer, dist, sampler, &mut **objective)?);
        }
        let mut epochs = 0;
        let mut stale = 0;
        // A best carried in (a held run's free part, a grown run's last stage) or the input
        // may already be certified: then no epoch can improve on it.
        let mut certified = best_now(trainer) <= target;
        while epochs < config.epochs && !certified {
            trainer.draw_batch::<false>(dist, sampler, rng, config.batch, config.sampler);
            for b in 0..config.batch {
                let ranking = &trainer.state.batch[b * total..(b + 1) * total];
                // Single-precision costs take the first half of the `f64` region.
                let finite = if single {
                    let cost = objective.cost_single(ranking, sessions);
                    bytemuck::must_cast_slice_mut::<f64, f32>(trainer.costs)[b] = cost;
                    cost.is_finite()
                } else {
                    let cost = objective.cost(ranking, sessions);
                    trainer.costs[b] = cost;
                    cost.is_finite()
                };
                if !finite {
                    return Err(Error::NotFinite { index: b });
                }
            }
            samples += config.batch as u32;
            let improved = trainer.step(dist, sampler, config, single);
            epochs += 1;
            if improved {
                best_epoch = Some(epochs - 1);
                stale = 0;
                certified = best_now(trainer) <= target;
            } else {
                stale += 1;
                if config.patience > 0 && stale >= config.patience {
                    break;
                }
            }
        }
        if single && (input_won || best_epoch.is_some()) {
            // Exactly the objective's value: once a run, outside its loop.
            trainer.state.best_cost = f64::from(trainer.state.best_single);
        }
        Ok(TrainReport {
            epochs,
            samples,
            best_cost: trainer.state.best_cost,
            best_epoch,
            bound: None,
            certified: false,
        })
    }
}

/// A bound to certify against: a value that is not finite (a search that met no count
/// vector, its metric NaN on the way) would certify anything (the C fuzz harness found a
/// bound of +infinity, and a grown run took a ranking never written for certified).
fn finite(bound: &LowerBound) -> bool {
    bound.value.is_finite()
}

/// The index of the lowest of `costs` if it is below `best`, which it then becomes (the
/// first of equal lowest ones).
fn lowest<C: PartialOrd + Copy>(costs: &[C], best: &mut C) -> Option<usize> {
    let mut lowest = None;
    for (b, &cost) in costs.iter().enumerate() {
        if cost < *best {
            *best = cost;
            lowest = Some(b);
        }
    }
    lowest
}
