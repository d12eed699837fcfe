//! The engine: the memory layout, the composition of the parts, and the public API.
//!
//! [`Ppg`] lays out one caller buffer for a [`Distribution`], a [`Sampler`] and a
//! [`Trainer`] and passes each the others it needs: the sampler reads the distribution, the
//! trainer draws through the sampler and writes the distribution. Every public method
//! checks its arguments here and then delegates, so that an error changes nothing; training
//! is made transactional by a snapshot of all it changes. It is the only module that uses
//! all the others, and none of them uses it.
//!
//! It stays whole (over 400 lines) because it is the crate's one public type: each method is
//! a check and a call, with the documentation a C, Go or Java binding copies from.

use crate::arena::{region_bytes, sum, Arena};
use crate::distribution::Distribution;
use crate::objective::LowerBound;
use crate::pairs;
use crate::sampler::{Sampler, SamplerMode};
use crate::trainer::{grow, hold, optimum, PendingDraw, Run, Saved, TrainConfig, Trainer};
use crate::{Dims, Error, Objective, Rng, TrainReport};

/// Any objective, `dyn` ones included, behind the one vtable the trainer calls: a closure
/// would hide [`Objective::single`].
struct Forward<'o, O: ?Sized>(&'o mut O);

impl<O: Objective + ?Sized> Objective for Forward<'_, O> {
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        self.0.cost(ranking, sessions)
    }
    fn single(&self) -> bool {
        self.0.single()
    }
    fn cost_single(&mut self, ranking: &[u16], sessions: usize) -> f32 {
        self.0.cost_single(ranking, sessions)
    }
    fn lower_bound(&self, sessions: usize, work: &mut [f64]) -> Option<LowerBound> {
        self.0.lower_bound(sessions, work)
    }
    fn optimum(
        &self,
        sessions: usize,
        work: &mut [f64],
        out: &mut [u16],
    ) -> Option<(LowerBound, bool)> {
        self.0.optimum(sessions, work, out)
    }
}

/// A Probabilistic Permutation Graph over `sessions` independent blocks of the same list.
///
/// Each session block has a reference permutation and an inversion probability per item
/// pair; a block costs its own `n^2`, never `(S n)^2`. Item ids are positions in the caller's
/// initial ranking: the reference starts as `0, 1, ..., n - 1` in every session.
///
/// The engine borrows all of its memory (see [`Ppg::bytes`]) and never allocates.
///
/// ```
/// use ppg_core::{Dims, Ppg, SamplerMode};
/// let dims = Dims::new(8, 2, 16);
/// let mut mem = [0u8; Ppg::bytes(Dims::new(8, 2, 16))];
/// let mut ppg = Ppg::new(&mut mem, dims, 42)?;
/// ppg.start(8, 2, 0.5)?;
/// let mut ranking = [0u16; 16];
/// let log_p = ppg.sample(SamplerMode::Corrected, &mut ranking)?;
/// assert!((ppg.log_prob(SamplerMode::Corrected, &ranking)? - log_p).abs() < 1e-9);
/// # Ok::<(), ppg_core::Error>(())
/// ```
pub struct Ppg<'a> {
    pub(crate) dims: Dims,
    pub(crate) rng: Rng,
    /// What is sampled: references, weights, constraints.
    pub(crate) dist: Distribution<'a>,
    /// How it is sampled, with the tables it prepares from `dist`.
    pub(crate) sampler: Sampler<'a>,
    /// The batch, the best ranking and the step's scratch.
    pub(crate) trainer: Trainer<'a>,
    /// A copy of everything a training run changes, to undo a failed one.
    saved: Snapshot<'a>,
}

/// What [`Ppg::train`] restores on error.
struct Snapshot<'a> {
    reference: &'a mut [u16],
    weights: &'a mut [f32],
    train: Saved<'a>,
    rng: Rng,
}

impl<'a> Snapshot<'a> {
    const fn bytes(dims: Dims) -> usize {
        let pairs = pairs::count(dims.items).saturating_mul(dims.sessions);
        sum(&[
            region_bytes::<u16>(dims.total()),
            region_bytes::<f32>(pairs),
            Saved::bytes(dims),
        ])
    }

    fn new(arena: &mut Arena<'a>, dims: Dims, rng: Rng) -> Result<Self, Error> {
        Ok(Snapshot {
            reference: arena.take(dims.total())?,
            weights: arena.take(pairs::count(dims.items) * dims.sessions)?,
            train: Saved::new(arena, dims)?,
            rng,
        })
    }
}

impl<'a> Ppg<'a> {
    /// Bytes of memory an engine of shape `dims` needs, alignment slack included.
    ///
    /// A `const fn`, so a firmware buffer can be a static array of exactly this size.
    pub const fn bytes(dims: Dims) -> usize {
        sum(&[
            Distribution::bytes(dims),
            Sampler::bytes(dims),
            Trainer::bytes(dims),
            Snapshot::bytes(dims),
        ])
    }

    /// An engine of shape `dims` in `mem`, its generator seeded with `seed`. It holds no
    /// query until [`Ppg::start`].
    ///
    /// # Errors
    /// [`Error::Empty`] or [`Error::Capacity`] for an unusable shape,
    /// [`Error::MemoryTooSmall`] when `mem` is shorter than [`Ppg::bytes`].
    pub fn new(mem: &'a mut [u8], dims: Dims, seed: u64) -> Result<Self, Error> {
        dims.check()?;
        let needed = Self::bytes(dims);
        if mem.len() < needed {
            return Err(Error::MemoryTooSmall {
                needed,
                available: mem.len(),
            });
        }
        let mut arena = Arena::new(mem, needed);
        let rng = Rng::new(seed);
        Ok(Ppg {
            dims,
            dist: Distribution::new(&mut arena, dims)?,
            sampler: Sampler::new(&mut arena, dims)?,
            trainer: Trainer::new(&mut arena, dims)?,
            saved: Snapshot::new(&mut arena, dims, rng.clone())?,
            rng,
        })
    }

    /// The shape the engine was laid out for.
    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// Items per session of the current query (0 before [`Ppg::start`]).
    pub fn items(&self) -> usize {
        self.dist.n
    }

    /// Sessions of the current query.
    pub fn sessions(&self) -> usize {
        self.dist.sessions
    }

    /// Restarts the generator from `seed`.
    pub fn reseed(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }

    /// Starts a query of `items` items in `sessions` sessions: every reference is the input
    /// order `0..items`, every pair has weight `initial_weight`, no pair is constrained, no
    /// best ranking is known, no batch is pending.
    ///
    /// # Errors
    /// [`Error::Empty`] for zero items or sessions, [`Error::Capacity`] beyond the layout,
    /// [`Error::NotProbability`] when `initial_weight` is not in `[0, 1]`.
    pub fn start(
        &mut self,
        items: usize,
        sessions: usize,
        initial_weight: f32,
    ) -> Result<(), Error> {
        self.check_start(items, sessions, initial_weight)?;
        self.dist.start(items, sessions, initial_weight);
        self.sampler.start(items);
        self.trainer.reset();
        Ok(())
    }

    /// [`Ppg::start`]'s refusals, for a caller (the recipe) that must refuse before it
    /// changes anything (the generator included).
    pub(crate) fn check_start(
        &self,
        items: usize,
        sessions: usize,
        initial_weight: f32,
    ) -> Result<(), Error> {
        if items == 0 || sessions == 0 {
            return Err(Error::Empty);
        }
        if items > self.dims.items {
            return Err(Error::Capacity {
                requested: items,
                capacity: self.dims.items,
            });
        }
        if sessions > self.dims.sessions {
            return Err(Error::Capacity {
                requested: sessions,
                capacity: self.dims.sessions,
            });
        }
        if !(0.0..=1.0).contains(&initial_weight) {
            return Err(Error::NotProbability { index: 0 });
        }
        Ok(())
    }

    /// Forbids the inversion of items `a` and `b` in every session: their weight becomes 0
    /// and is never trained. A pending batch, drawn before the change, is dropped.
    ///
    /// # Errors
    /// [`Error::Empty`] before [`Ppg::start`], [`Error::ItemOutOfRange`], [`Error::SamePair`].
    pub fn forbid(&mut self, a: usize, b: usize) -> Result<(), Error> {
        self.dist.check_started()?;
        let pair = self.dist.pair_index(a, b)?;
        self.dist.freeze(pair);
        self.sampler.invalidate();
        self.trainer.drop_pending();
        Ok(())
    }

    /// Intra-group fixed ranking: items with equal labels keep their relative order. A
    /// pending batch, drawn before the change, is dropped.
    ///
    /// # Errors
    /// [`Error::Empty`] before [`Ppg::start`], [`Error::LengthMismatch`] unless one label per item.
    pub fn keep_order_within<G: PartialEq>(&mut self, groups: &[G]) -> Result<(), Error> {
        self.dist.freeze_where(groups, true)?;
        self.sampler.invalidate();
        self.trainer.drop_pending();
        Ok(())
    }

    /// Intra-group order first: in each training run, items with equal labels keep their
    /// relative order until the run has trained as far as it would with
    /// [`Ppg::keep_order_within`]; then they are free, starting at weight
    /// [`TrainConfig::clamp_min`], for a second run from the best ranking so far (about twice
    /// the samples). The best is never worse than the held run's, which for group-exposure
    /// costs on long lists is far better than a free run's (TREC 2020, DTR: 1.810 against
    /// 1.858, docs/results.md). Pairs already constrained stay constrained; a pair
    /// constrained later is no longer held. No pair is held after [`Ppg::start`].
    ///
    /// # Errors
    /// As [`Ppg::keep_order_within`].
    pub fn hold_order_within<G: PartialEq>(&mut self, groups: &[G]) -> Result<(), Error> {
        self.dist.hold_where(groups, true)
    }

    /// Inter-group fixed ranking: items with different labels keep their relative order. A
    /// pending batch, drawn before the change, is dropped.
    ///
    /// # Errors
    /// As [`Ppg::keep_order_within`].
    pub fn keep_order_between<G: PartialEq>(&mut self, groups: &[G]) -> Result<(), Error> {
        self.dist.freeze_where(groups, false)?;
        self.sampler.invalidate();
        self.trainer.drop_pending();
        Ok(())
    }

    /// Whether the pair `{a, b}` is constrained (false for ids out of range).
    pub fn is_constrained(&self, a: usize, b: usize) -> bool {
        let n = self.dist.n;
        a != b && a < n && b < n && self.dist.frozen.get(pairs::index(a, b, n))
    }

    /// The current reference rankings, `sessions` blocks of `items`.
    pub fn reference(&self) -> &[u16] {
        &self.dist.reference[..self.dist.n * self.dist.sessions]
    }

    /// The probability that `a` and `b` come out in the opposite order from the reference
    /// of `session`.
    ///
    /// # Errors
    /// [`Error::ItemOutOfRange`], [`Error::SamePair`], [`Error::Capacity`] for a session
    /// out of range.
    pub fn weight(&self, session: usize, a: usize, b: usize) -> Result<f32, Error> {
        let pair = self.dist.pair_of(session, a, b)?;
        Ok(self.dist.weights[pair])
    }

    /// Sets one weight; constrained pairs keep 0. A pending batch, drawn before the change,
    /// is dropped.
    ///
    /// # Errors
    /// As [`Ppg::weight`], [`Error::NotProbability`] outside `[0, 1]`,
    /// [`Error::InvalidConfig`] for a constrained pair.
    pub fn set_weight(&mut self, session: usize, a: usize, b: usize, w: f32) -> Result<(), Error> {
        let pair = self.dist.pair_of(session, a, b)?;
        if !(0.0..=1.0).contains(&w) {
            return Err(Error::NotProbability { index: 0 });
        }
        if self.dist.frozen.get(pairs::index(a, b, self.dist.n)) {
            return Err(Error::InvalidConfig("the pair is constrained"));
        }
        self.dist.weights[pair] = w;
        self.sampler.weight_changed(&self.dist, session, a, b);
        self.trainer.drop_pending();
        Ok(())
    }

    /// The recipe's most relevant optimum at one session ([`crate::recipe`]): the best,
    /// the trainer's free scratch and a region for a candidate.
    pub(crate) fn spare(&mut self) -> (&[u16], &mut [f64], &mut [u16]) {
        self.trainer.spare(self.dist.n * self.dist.sessions)
    }

    /// Makes the candidate [`Ppg::spare`] lent the best, at `cost`.
    pub(crate) fn take_best(&mut self, cost: f64) {
        self.trainer
            .take_best(self.dist.n * self.dist.sessions, cost);
    }

    /// The lowest-cost ranking seen so far and its cost, if any was scored.
    pub fn best(&self) -> Option<(&[u16], f64)> {
        self.trainer.best(self.dist.n * self.dist.sessions)
    }

    /// Draws one multi-session ranking into `out` and returns its log-probability under
    /// the sampler that drew it: exact for the corrected sampler; the uncorrected one
    /// draws in single precision, and its value is within `1e-6` per item and session of
    /// [`Ppg::log_prob`]'s double-precision one.
    ///
    /// # Errors
    /// [`Error::Empty`] before [`Ppg::start`], [`Error::LengthMismatch`] unless
    /// `out.len() == items * sessions`.
    pub fn sample(&mut self, mode: SamplerMode, out: &mut [u16]) -> Result<f64, Error> {
        self.dist.check_started()?;
        let total = self.dist.n * self.dist.sessions;
        if out.len() != total {
            return Err(Error::LengthMismatch {
                expected: total,
                found: out.len(),
            });
        }
        Ok(self
            .sampler
            .draw::<true>(&self.dist, mode, &mut self.rng, out))
    }

    /// The exact log-probability that the sampler in `mode` draws `ranking`
    /// (`-inf` for a ranking it cannot draw, such as one inverting a constrained pair).
    ///
    /// # Errors
    /// [`Error::Empty`] before [`Ppg::start`], [`Error::LengthMismatch`],
    /// [`Error::ItemOutOfRange`] or [`Error::NotPermutation`] for a malformed ranking.
    pub fn log_prob(&mut self, mode: SamplerMode, ranking: &[u16]) -> Result<f64, Error> {
        self.sampler.check_ranking(&self.dist, ranking)?;
        Ok(self.sampler.log_prob(&self.dist, mode, ranking))
    }

    /// Writes the exact gradient of [`Ppg::log_prob`] with respect to every weight into
    /// `out` (`sessions` blocks of packed pairs, see [`Ppg::pair_index`]) and returns the
    /// log-probability.
    ///
    /// # Errors
    /// As [`Ppg::log_prob`]; [`Error::LengthMismatch`] unless `out` holds one value per
    /// pair and session; [`Error::Unsupported`] when `ranking` has probability zero.
    pub fn score(
        &mut self,
        mode: SamplerMode,
        ranking: &[u16],
        out: &mut [f32],
    ) -> Result<f64, Error> {
        self.sampler.check_ranking(&self.dist, ranking)?;
        let pairs_total = self.dist.pair_count() * self.dist.sessions;
        if out.len() != pairs_total {
            return Err(Error::LengthMismatch {
                expected: pairs_total,
                found: out.len(),
            });
        }
        out.fill(0.0);
        let (log_prob, possible) = self.sampler.score(&self.dist, mode, ranking, 1.0, out);
        if possible {
            Ok(log_prob)
        } else {
            out.fill(0.0);
            Err(Error::Unsupported(
                "the ranking has probability zero under the sampler",
            ))
        }
    }

    /// Index of the pair `{a, b}` within one session's block of weights or scores.
    ///
    /// # Errors
    /// [`Error::ItemOutOfRange`] or [`Error::SamePair`].
    pub fn pair_index(&self, a: usize, b: usize) -> Result<usize, Error> {
        self.dist.pair_index(a, b)
    }

    /// Trains the weights against `objective` and tracks the best ranking sampled
    /// (read it with [`Ppg::best`]). With [`TrainConfig::grow`] and more than one session,
    /// the run is repeated over a growing number of sessions and the best is never worse
    /// than the same run without growing; the weights are that run's. With held pairs
    /// ([`Ppg::hold_order_within`]) that run is made with them frozen, and a second run with
    /// them free follows from its best ranking; the weights are the second run's.
    ///
    /// With [`TrainConfig::certify`] and an objective that gives a lower bound
    /// ([`Objective::lower_bound`]: the built-in two-group DTR and EEL), every run (every
    /// stage of a grown run, both parts of a held one) stops as soon as its best is within
    /// the tolerance of the bound at its session count, and the report says whether the
    /// result is certified ([`TrainReport::certified`]) against which bound.
    ///
    /// A batch pending from [`Ppg::sample_batch`] is dropped. Transactional: on error every
    /// part of the engine, the generator and the pending batch included, is as it was
    /// before the call.
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
        self.train_call::<O, false>(objective, config)
    }

    /// [`Ppg::train`], and with [`TrainConfig::certify`], where the objective also gives
    /// rankings that reach its bound ([`Objective::optimum`]: the built-in two-group DTR and
    /// EEL) and they keep the frozen pairs' order, those are scored after the input: at the
    /// call's session count first (certified, no epoch is trained), then in every run (each
    /// stage of a grown run, each part of a held one) at its own count. The recommended
    /// recipe's training ([`crate::recipe`]) and the C API's. `Ppg::train` does not, so that
    /// an image that only trains (the firmware) links none of it.
    ///
    /// # Errors
    /// As [`Ppg::train`].
    pub fn train_from_optimum<O: Objective + ?Sized>(
        &mut self,
        objective: &mut O,
        config: &TrainConfig,
    ) -> Result<TrainReport, Error> {
        self.train_call::<O, true>(objective, config)
    }

    /// A training call, from the objective's optimum rankings first when `FROM_OPTIMUM`: a
    /// constant, so that an image that only trains (the firmware) links none of it.
    fn train_call<O: Objective + ?Sized, const FROM_OPTIMUM: bool>(
        &mut self,
        objective: &mut O,
        config: &TrainConfig,
    ) -> Result<TrainReport, Error> {
        self.dist.check_started()?;
        config.check(self.dims.batch)?;
        self.save();
        // The trainer calls the objective through one vtable: a copy of the training loop
        // per objective type would be 1.5 KB more of a firmware image's flash per type, for
        // one indirect call per cost, beside a cost's and a sample's thousands of
        // instructions (x86_64: a training run's count moved by 0.4% with it and the leaf
        // and log-probability changes together).
        let mut forward = Forward(objective);
        let sessions = self.dist.sessions;
        let saved = &self.saved;
        self.trainer.forget_bound();
        let mut run = Run {
            trainer: &mut self.trainer,
            dist: &mut self.dist,
            sampler: &mut self.sampler,
            rng: &mut self.rng,
            objective: &mut forward,
            config,
            before: grow::Before {
                reference: saved.reference,
                weights: saved.weights,
                train: &saved.train,
                rng: &saved.rng,
            },
            // A branch on the constant, so that `Ppg::train`'s code names none of it.
            from_optimum: if FROM_OPTIMUM {
                Some(optimum::FROM_OPTIMUM)
            } else {
                None
            },
        };
        let first = if FROM_OPTIMUM {
            optimum::start(&mut run)
        } else {
            Ok(None)
        };
        let report = match first {
            Ok(Some(report)) => Ok(report),
            Ok(None) if run.dist.held.any() => hold::train(&mut run),
            Ok(None) => run.run(),
            Err(e) => Err(e),
        };
        let report = report.map(|mut report| {
            // The certificate is the run's at the query's session count (a failed run has
            // none: a NaN cost leaves it unset).
            if config.certify.is_some() {
                report.bound = run.trainer.lower_bound(run.objective, run.dist.n, sessions);
                let tolerance = config.certify.unwrap_or(0.0);
                report.certified = report
                    .bound
                    .is_some_and(|b| report.best_cost <= b.value + tolerance);
            }
            report
        });
        if report.is_err() {
            // A grown run stops at a stage with fewer sessions; a held run may stop with
            // its held pairs frozen.
            self.dist.sessions = sessions;
            self.dist.unhold();
            self.restore();
        } else {
            // A run with no epochs draws nothing; with some, the last step used the batch.
            self.trainer.drop_pending();
        }
        report
    }

    /// The lower bound `objective` gives for the current query at `sessions` sessions
    /// ([`Objective::lower_bound`]), computed in the engine's memory; `None` before
    /// [`Ppg::start`] or when the objective gives none.
    pub fn lower_bound<O: Objective>(
        &mut self,
        objective: &O,
        sessions: usize,
    ) -> Option<LowerBound> {
        if self.dist.check_started().is_err() {
            return None;
        }
        self.trainer.forget_bound();
        let bound = self.trainer.lower_bound(objective, self.dist.n, sessions);
        self.trainer.forget_bound();
        bound
    }

    /// Draws `count` rankings into the pending batch, for callers that score rankings
    /// themselves; read them with [`Ppg::batch`], then call [`Ppg::update`]. A batch still
    /// pending is replaced.
    ///
    /// # Errors
    /// [`Error::Empty`] before [`Ppg::start`] or for `count == 0`, [`Error::Capacity`] when
    /// `count` exceeds the layout's batch.
    pub fn sample_batch(&mut self, count: usize, mode: SamplerMode) -> Result<&[u16], Error> {
        self.dist.check_started()?;
        if count == 0 {
            return Err(Error::Empty);
        }
        if count > self.dims.batch {
            return Err(Error::Capacity {
                requested: count,
                capacity: self.dims.batch,
            });
        }
        self.trainer
            .draw_batch::<true>(&self.dist, &mut self.sampler, &mut self.rng, count, mode);
        Ok(self.batch())
    }

    /// How the pending batch was drawn (`None` when none is pending), for [`Ppg::redraw`].
    pub fn pending_draw(&self) -> Option<PendingDraw> {
        self.trainer.pending().cloned()
    }

    /// Draws the batch of `draw` (from [`Ppg::pending_draw`]) again into the pending batch,
    /// from the current distribution: the same rankings and log-probabilities if that is the
    /// distribution it was first drawn from. The generator does not move. For a caller that
    /// changes the weights and must be able to change them back with the batch still
    /// pending, as the C API's first training run of a query does with its initial weight.
    ///
    /// # Errors
    /// [`Error::Empty`] before [`Ppg::start`], [`Error::Capacity`] when the batch exceeds
    /// the layout's (a draw of another engine).
    pub fn redraw(&mut self, draw: &PendingDraw) -> Result<&[u16], Error> {
        self.dist.check_started()?;
        if draw.count > self.dims.batch {
            return Err(Error::Capacity {
                requested: draw.count,
                capacity: self.dims.batch,
            });
        }
        self.trainer.redraw(draw, &self.dist, &mut self.sampler);
        Ok(self.batch())
    }

    /// The pending batch: `count` rankings of `items * sessions` ids (empty when none).
    pub fn batch(&self) -> &[u16] {
        self.trainer.batch(self.dist.n * self.dist.sessions)
    }

    /// The log-probability of each ranking of the pending batch, as [`Ppg::sample`] gives it.
    pub fn batch_log_probs(&self) -> &[f64] {
        self.trainer.batch_log_probs()
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
        self.trainer.update(
            &mut self.dist,
            &mut self.sampler,
            costs,
            config,
            self.dims.batch,
        )
    }

    fn save(&mut self) {
        let saved = &mut self.saved;
        saved.reference.copy_from_slice(self.dist.reference);
        saved.weights.copy_from_slice(self.dist.weights);
        self.trainer.save(&mut saved.train);
        saved.rng = self.rng.clone();
    }

    fn restore(&mut self) {
        let saved = &self.saved;
        self.dist.reference.copy_from_slice(saved.reference);
        self.dist.weights.copy_from_slice(saved.weights);
        self.rng = saved.rng.clone();
        self.sampler.invalidate();
        self.trainer
            .restore(&saved.train, &self.dist, &mut self.sampler);
    }
}
