//! The PPG engine: a distribution per session block, held in caller memory.

use crate::arena::{region_bytes, Arena};
use crate::leaves::{self, Tables};
use crate::pairs::{self, PairBits, Weights};
use crate::sampler::{self, Draw, LogProb, Replay, SamplerMode, Scratch};
use crate::score::ScoreWalk;
use crate::uncorrected::{self, Buffers, ByPosition, MergeBuffers, Plan};
use crate::{Dims, Error, Rng};

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
    pub(crate) n: usize,
    pub(crate) sessions: usize,
    pub(crate) rng: Rng,
    pub(crate) state: State<'a>,
    pub(crate) saved: State<'a>,
    pub(crate) saved_rng: Rng,
    pub(crate) frozen: PairBits<'a>,
    pub(crate) grad: &'a mut [f32],
    /// The weights re-indexed by reference position for the uncorrected sampler.
    pub(crate) by_position: &'a mut [f32],
    /// Every session's leaf tables for the uncorrected sampler.
    pub(crate) leaf_tables: Tables<'a>,
    /// `by_position` and `leaf_tables` are rebuilt on the first uncorrected draw after
    /// `weights` or `reference` change.
    pub(crate) prepared_stale: bool,
    pub(crate) rows: &'a mut [u32],
    pub(crate) schedule: &'a mut [[u16; 3]],
    pub(crate) merges: usize,
    /// The schedule's first `small_merges` merges are inside leaves.
    pub(crate) small_merges: usize,
    /// A block's leaves (`leaves::fill_spans`).
    pub(crate) leaf_spans: &'a mut [[u16; 2]],
    pub(crate) leaf_count: usize,
    /// The runs of equal merge length above the leaves, for the uncorrected sampler.
    pub(crate) runs: [[u16; 2]; uncorrected::MAX_RUNS],
    pub(crate) run_count: usize,
    /// Top items over the merges above the leaves: with one per leaf, the uniforms an
    /// uncorrected block draws.
    pub(crate) tops: usize,
    pub(crate) work: Work<'a>,
}

/// Everything a training run changes, so that a failed run can be undone.
pub(crate) struct State<'a> {
    pub reference: &'a mut [u16],
    pub weights: &'a mut [f32],
    pub best: &'a mut [u16],
    pub best_cost: f64,
    pub batch: &'a mut [u16],
    pub batch_log_prob: &'a mut [f64],
    pub pending: usize,
    pub pending_mode: SamplerMode,
}

impl State<'_> {
    fn copy_from(&mut self, other: &State) {
        self.reference.copy_from_slice(other.reference);
        self.weights.copy_from_slice(other.weights);
        self.best.copy_from_slice(other.best);
        self.best_cost = other.best_cost;
        self.batch.copy_from_slice(other.batch);
        self.batch_log_prob.copy_from_slice(other.batch_log_prob);
        self.pending = other.pending;
        self.pending_mode = other.pending_mode;
    }
}

/// Buffers for one block at a time.
pub(crate) struct Work<'a> {
    pub scratch: Scratch<'a>,
    pub pos: &'a mut [u16],
    pub block: &'a mut [u16],
    pub diff_row: &'a mut [f64],
    pub diff_col: &'a mut [f64],
    pub costs: &'a mut [f64],
    /// Each sample's share of the gradient, `(cost - baseline) / batch`.
    pub scale: &'a mut [f32],
    /// Scratch for the approximate step's sample keys (see `trainer::inverted_shares`):
    /// `n x batch`.
    pub positions: &'a mut [u16],
    /// Uniforms of one uncorrected block.
    pub uniforms: &'a mut [u32],
    /// The approximate step's two subset-sum tables.
    pub subsets: &'a mut [[[f32; 256]; 2]],
}

const UNSEEN: u16 = u16::MAX;

impl<'a> Ppg<'a> {
    /// Bytes of memory an engine of shape `dims` needs, alignment slack included.
    ///
    /// A `const fn`, so a firmware buffer can be a static array of exactly this size.
    pub const fn bytes(dims: Dims) -> usize {
        let n = dims.items;
        let total = dims.total();
        let pairs = pairs::count(n).saturating_mul(dims.sessions);
        let samples = total.saturating_mul(dims.batch);
        let (nt, nb) = Scratch::halves(n);
        let leaves = leaves::leaves_for(n).saturating_mul(dims.sessions);
        // Saturating throughout: an absurd shape must give "too large", never an overflow.
        let state = sum(&[
            region_bytes::<u16>(total),
            region_bytes::<u16>(total),
            region_bytes::<f32>(pairs),
            region_bytes::<u16>(samples),
            region_bytes::<f64>(dims.batch),
        ]);
        let work = sum(&[
            region_bytes::<u16>(nt),
            region_bytes::<u16>(nt),
            region_bytes::<f64>((nt + 1).saturating_mul(nb)),
            region_bytes::<u16>(nb),
            region_bytes::<f64>(nb.saturating_add(1)),
            region_bytes::<u16>(n),
            region_bytes::<u16>(n.saturating_add(leaves::PADDED)),
            region_bytes::<f64>(nt.saturating_mul(nb.saturating_add(1))),
            region_bytes::<f64>(nb.saturating_mul(nt + 1)),
            region_bytes::<f64>(dims.batch),
            region_bytes::<f32>(dims.batch),
            region_bytes::<u16>(n.saturating_mul(dims.batch)),
            region_bytes::<u32>(uncorrected::uniforms_for(n)),
            region_bytes::<[[f32; 256]; 2]>(1),
        ]);
        sum(&[
            state,
            state,
            region_bytes::<u32>(PairBits::words_for(n)),
            region_bytes::<f32>(pairs),
            region_bytes::<f32>(pairs),
            region_bytes::<u32>(n),
            region_bytes::<[u16; 3]>(n),
            region_bytes::<[u16; 2]>(leaves::leaves_for(n)),
            region_bytes::<[u32; leaves::SEARCH]>(leaves),
            region_bytes::<[f64; leaves::OUTCOMES]>(leaves),
            work,
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
        let n = dims.items;
        let total = dims.total();
        let pairs = pairs::count(n) * dims.sessions;
        let (nt, nb) = Scratch::halves(n);
        let mut state = || -> Result<State<'a>, Error> {
            Ok(State {
                reference: arena.take(total)?,
                best: arena.take(total)?,
                weights: arena.take(pairs)?,
                batch: arena.take(total * dims.batch)?,
                batch_log_prob: arena.take(dims.batch)?,
                best_cost: f64::INFINITY,
                pending: 0,
                pending_mode: SamplerMode::Uncorrected,
            })
        };
        let state_now = state()?;
        let saved = state()?;
        let frozen = PairBits {
            words: arena.take(PairBits::words_for(n))?,
        };
        let grad = arena.take(pairs)?;
        let by_position = arena.take(pairs)?;
        let rows = arena.take(n)?;
        let schedule = arena.take(n)?;
        let leaf_spans = arena.take(leaves::leaves_for(n))?;
        let leaves = leaves::leaves_for(n) * dims.sessions;
        let leaf_tables = Tables {
            bounds: arena.take(leaves)?,
            probs: arena.take(leaves)?,
        };
        let work = Work {
            scratch: Scratch {
                top: arena.take(nt)?,
                passed: arena.take(nt)?,
                col: arena.take((nt + 1) * nb)?,
                col_filled: arena.take(nb)?,
                row: arena.take(nb + 1)?,
            },
            pos: arena.take(n)?,
            block: arena.take(n + leaves::PADDED)?,
            diff_row: arena.take(nt * (nb + 1))?,
            diff_col: arena.take(nb * (nt + 1))?,
            costs: arena.take(dims.batch)?,
            scale: arena.take(dims.batch)?,
            positions: arena.take(n * dims.batch)?,
            uniforms: arena.take(uncorrected::uniforms_for(n))?,
            subsets: arena.take(1)?,
        };
        let rng = Rng::new(seed);
        Ok(Ppg {
            dims,
            n: 0,
            sessions: 0,
            saved_rng: rng.clone(),
            rng,
            state: state_now,
            saved,
            frozen,
            grad,
            by_position,
            leaf_tables,
            prepared_stale: true,
            rows,
            schedule,
            merges: 0,
            small_merges: 0,
            leaf_spans,
            leaf_count: 0,
            runs: [[0; 2]; uncorrected::MAX_RUNS],
            run_count: 0,
            tops: 0,
            work,
        })
    }

    /// The shape the engine was laid out for.
    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// Items per session of the current query (0 before [`Ppg::start`]).
    pub fn items(&self) -> usize {
        self.n
    }

    /// Sessions of the current query.
    pub fn sessions(&self) -> usize {
        self.sessions
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
        self.n = items;
        self.sessions = sessions;
        pairs::fill_rows(items, self.rows);
        self.merges = sampler::fill_schedule(items, self.schedule);
        self.leaf_count = leaves::fill_spans(items, self.leaf_spans);
        self.small_merges = self.schedule[..self.merges]
            .iter()
            .take_while(|&&[lo, _, hi]| usize::from(hi - lo) <= leaves::MAX_LEAF)
            .count();
        let above = &self.schedule[self.small_merges..self.merges];
        self.run_count = uncorrected::fill_runs(above, &mut self.runs);
        self.tops = above
            .iter()
            .map(|&[lo, mid, _]| usize::from(mid - lo))
            .sum();
        for block in self.state.reference[..items * sessions].chunks_exact_mut(items) {
            for (k, slot) in block.iter_mut().enumerate() {
                *slot = k as u16;
            }
        }
        let count = self.pair_count();
        self.state.weights[..count * sessions].fill(initial_weight);
        self.frozen.clear();
        self.prepared_stale = true;
        self.state.best_cost = f64::INFINITY;
        self.state.pending = 0;
        Ok(())
    }

    pub(crate) fn pair_count(&self) -> usize {
        pairs::count(self.n)
    }

    pub(crate) fn check_started(&self) -> Result<(), Error> {
        if self.n == 0 {
            Err(Error::Empty)
        } else {
            Ok(())
        }
    }

    fn check_item(&self, item: usize) -> Result<(), Error> {
        if item < self.n {
            Ok(())
        } else {
            Err(Error::ItemOutOfRange {
                item,
                items: self.n,
            })
        }
    }

    /// Forbids the inversion of items `a` and `b` in every session: their weight becomes 0
    /// and is never trained.
    ///
    /// # Errors
    /// [`Error::Empty`] before [`Ppg::start`], [`Error::ItemOutOfRange`], [`Error::SamePair`].
    pub fn forbid(&mut self, a: usize, b: usize) -> Result<(), Error> {
        self.check_started()?;
        self.check_item(a)?;
        self.check_item(b)?;
        if a == b {
            return Err(Error::SamePair);
        }
        self.freeze(pairs::index(a, b, self.n));
        Ok(())
    }

    fn freeze(&mut self, pair: usize) {
        self.frozen.set(pair);
        self.prepared_stale = true;
        let count = self.pair_count();
        for s in 0..self.sessions {
            self.state.weights[s * count + pair] = 0.0;
        }
    }

    fn freeze_where<G: PartialEq>(&mut self, groups: &[G], same: bool) -> Result<(), Error> {
        self.check_started()?;
        if groups.len() != self.n {
            return Err(Error::LengthMismatch {
                expected: self.n,
                found: groups.len(),
            });
        }
        let mut pair = 0;
        for a in 0..self.n {
            for b in a + 1..self.n {
                if (groups[a] == groups[b]) == same {
                    self.freeze(pair);
                }
                pair += 1;
            }
        }
        Ok(())
    }

    /// Intra-group fixed ranking: items with equal labels keep their relative order.
    ///
    /// # Errors
    /// [`Error::Empty`] before [`Ppg::start`], [`Error::LengthMismatch`] unless one label per item.
    pub fn keep_order_within<G: PartialEq>(&mut self, groups: &[G]) -> Result<(), Error> {
        self.freeze_where(groups, true)
    }

    /// Inter-group fixed ranking: items with different labels keep their relative order.
    ///
    /// # Errors
    /// As [`Ppg::keep_order_within`].
    pub fn keep_order_between<G: PartialEq>(&mut self, groups: &[G]) -> Result<(), Error> {
        self.freeze_where(groups, false)
    }

    /// Whether the pair `{a, b}` is constrained (false for ids out of range).
    pub fn is_constrained(&self, a: usize, b: usize) -> bool {
        a != b && a < self.n && b < self.n && self.frozen.get(pairs::index(a, b, self.n))
    }

    /// The current reference rankings, `sessions` blocks of `items`.
    pub fn reference(&self) -> &[u16] {
        &self.state.reference[..self.n * self.sessions]
    }

    /// The probability that `a` and `b` come out in the opposite order from the reference
    /// of `session`.
    ///
    /// # Errors
    /// [`Error::ItemOutOfRange`], [`Error::SamePair`], [`Error::Capacity`] for a session
    /// out of range.
    pub fn weight(&self, session: usize, a: usize, b: usize) -> Result<f32, Error> {
        let pair = self.pair_of(session, a, b)?;
        Ok(self.state.weights[pair])
    }

    /// Sets one weight; constrained pairs keep 0.
    ///
    /// # Errors
    /// As [`Ppg::weight`], [`Error::NotProbability`] outside `[0, 1]`,
    /// [`Error::InvalidConfig`] for a constrained pair.
    pub fn set_weight(&mut self, session: usize, a: usize, b: usize, w: f32) -> Result<(), Error> {
        let pair = self.pair_of(session, a, b)?;
        if !(0.0..=1.0).contains(&w) {
            return Err(Error::NotProbability { index: 0 });
        }
        if self.frozen.get(pairs::index(a, b, self.n)) {
            return Err(Error::InvalidConfig("the pair is constrained"));
        }
        self.state.weights[pair] = w;
        if !self.prepared_stale {
            self.prepare_weight(session, a, b, w);
        }
        Ok(())
    }

    /// Brings the uncorrected sampler's copies up to date after one weight change: its
    /// position-indexed entry, and the table of the leaf holding both items, if one does.
    fn prepare_weight(&mut self, session: usize, a: usize, b: usize, w: f32) {
        let (n, count) = (self.n, self.pair_count());
        let reference = &self.state.reference[session * n..(session + 1) * n];
        let at = |item: usize| reference.iter().position(|&r| usize::from(r) == item);
        let (Some(pa), Some(pb)) = (at(a), at(b)) else {
            // A reference is a permutation: both are found.
            self.prepared_stale = true;
            return;
        };
        let (x, y) = (pa.min(pb), pa.max(pb));
        let rows = &self.rows[..n];
        let by_position = &mut self.by_position[session * count..(session + 1) * count];
        by_position[rows[x].wrapping_add(y as u32) as usize] = w;
        let spans = &self.leaf_spans[..self.leaf_count];
        if let Some(k) = spans
            .iter()
            .position(|&[lo, hi]| usize::from(lo) <= x && y < usize::from(hi))
        {
            let first = session * self.leaf_count + k;
            leaves::build(
                &spans[k..=k],
                ByPosition {
                    w: by_position,
                    rows,
                },
                &mut self.leaf_tables.part(first..first + 1),
            );
        }
    }

    fn pair_of(&self, session: usize, a: usize, b: usize) -> Result<usize, Error> {
        self.check_started()?;
        if session >= self.sessions {
            return Err(Error::Capacity {
                requested: session + 1,
                capacity: self.sessions,
            });
        }
        self.check_item(a)?;
        self.check_item(b)?;
        if a == b {
            return Err(Error::SamePair);
        }
        Ok(session * self.pair_count() + pairs::index(a, b, self.n))
    }

    /// The lowest-cost ranking seen so far and its cost, if any was scored.
    pub fn best(&self) -> Option<(&[u16], f64)> {
        if self.state.best_cost.is_finite() {
            Some((
                &self.state.best[..self.n * self.sessions],
                self.state.best_cost,
            ))
        } else {
            None
        }
    }

    /// Draws one multi-session ranking into `out` and returns its exact log-probability
    /// under the sampler that drew it.
    ///
    /// # Errors
    /// [`Error::Empty`] before [`Ppg::start`], [`Error::LengthMismatch`] unless
    /// `out.len() == items * sessions`.
    pub fn sample(&mut self, mode: SamplerMode, out: &mut [u16]) -> Result<f64, Error> {
        self.check_started()?;
        let total = self.n * self.sessions;
        if out.len() != total {
            return Err(Error::LengthMismatch {
                expected: total,
                found: out.len(),
            });
        }
        Ok(sample_into::<true>(self, mode, out))
    }

    /// Checks that `ranking` is `sessions` permutations of `0..items`.
    pub(crate) fn check_ranking(&mut self, ranking: &[u16]) -> Result<(), Error> {
        self.check_started()?;
        let total = self.n * self.sessions;
        if ranking.len() != total {
            return Err(Error::LengthMismatch {
                expected: total,
                found: ranking.len(),
            });
        }
        for block in ranking.chunks_exact(self.n) {
            let seen = &mut self.work.pos[..self.n];
            seen.fill(UNSEEN);
            for (k, &item) in block.iter().enumerate() {
                let slot = seen.get_mut(item as usize).ok_or(Error::ItemOutOfRange {
                    item: item as usize,
                    items: self.n,
                })?;
                if *slot != UNSEEN {
                    return Err(Error::NotPermutation);
                }
                *slot = k as u16;
            }
        }
        Ok(())
    }

    /// The exact log-probability that the sampler in `mode` draws `ranking`
    /// (`-inf` for a ranking it cannot draw, such as one inverting a constrained pair).
    ///
    /// # Errors
    /// [`Error::Empty`] before [`Ppg::start`], [`Error::LengthMismatch`],
    /// [`Error::ItemOutOfRange`] or [`Error::NotPermutation`] for a malformed ranking.
    pub fn log_prob(&mut self, mode: SamplerMode, ranking: &[u16]) -> Result<f64, Error> {
        self.check_ranking(ranking)?;
        let (n, count) = (self.n, self.pair_count());
        let mut total = 0.0;
        for s in 0..self.sessions {
            let block = &ranking[s * n..(s + 1) * n];
            let Work {
                scratch,
                pos,
                block: seg,
                ..
            } = &mut self.work;
            locate(block, &mut pos[..n]);
            seg[..n].copy_from_slice(&self.state.reference[s * n..(s + 1) * n]);
            let w = Weights {
                w: &self.state.weights[s * count..(s + 1) * count],
                rows: &self.rows[..n],
            };
            let mut replay = Replay {
                pos: &pos[..n],
                log_prob: LogProb::new(),
            };
            sampler::walk_block(
                &mut seg[..n],
                &self.schedule[..self.merges],
                w,
                mode,
                scratch,
                &mut replay,
            );
            total += replay.log_prob.value();
        }
        Ok(total)
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
        self.check_ranking(ranking)?;
        let pairs_total = self.pair_count() * self.sessions;
        if out.len() != pairs_total {
            return Err(Error::LengthMismatch {
                expected: pairs_total,
                found: out.len(),
            });
        }
        out.fill(0.0);
        let (log_prob, possible) = score_into(self, mode, ranking, 1.0, out);
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
        self.check_item(a)?;
        self.check_item(b)?;
        if a == b {
            return Err(Error::SamePair);
        }
        Ok(pairs::index(a, b, self.n))
    }

    /// Re-indexes the weights by reference position if they or the reference changed.
    pub(crate) fn prepare_uncorrected(&mut self) {
        if !self.prepared_stale {
            return;
        }
        let (n, count) = (self.n, self.pair_count());
        let rows = &self.rows[..n];
        for s in 0..self.sessions {
            let reference = &self.state.reference[s * n..(s + 1) * n];
            let w = Weights {
                w: &self.state.weights[s * count..(s + 1) * count],
                rows,
            };
            let out = &mut self.by_position[s * count..(s + 1) * count];
            for (x, &a) in reference.iter().enumerate() {
                let row = rows[x];
                for (y, &b) in reference.iter().enumerate().skip(x + 1) {
                    out[row.wrapping_add(y as u32) as usize] = w.w[w.pair(a as usize, b as usize)];
                }
            }
            let leaves = self.leaf_count;
            leaves::build(
                &self.leaf_spans[..leaves],
                ByPosition { w: out, rows },
                &mut self.leaf_tables.part(s * leaves..(s + 1) * leaves),
            );
        }
        self.prepared_stale = false;
    }

    pub(crate) fn save(&mut self) {
        self.saved.copy_from(&self.state);
        self.saved_rng = self.rng.clone();
    }

    pub(crate) fn restore(&mut self) {
        self.state.copy_from(&self.saved);
        self.rng = self.saved_rng.clone();
        self.prepared_stale = true;
    }
}

const fn sum(parts: &[usize]) -> usize {
    let mut total = 0usize;
    let mut k = 0;
    while k < parts.len() {
        total = total.saturating_add(parts[k]);
        k += 1;
    }
    total
}

/// Writes each item's position in `block` into `pos`.
pub(crate) fn locate(block: &[u16], pos: &mut [u16]) {
    for (k, &item) in block.iter().enumerate() {
        pos[item as usize] = k as u16;
    }
}

/// Draws one ranking (already validated in length) and returns its log-probability, or 0
/// when `TRACK` is off.
pub(crate) fn sample_into<const TRACK: bool>(
    ppg: &mut Ppg,
    mode: SamplerMode,
    out: &mut [u16],
) -> f64 {
    if mode == SamplerMode::Uncorrected {
        return sample_uncorrected::<TRACK>(ppg, out);
    }
    let (n, count) = (ppg.n, ppg.pair_count());
    let mut draw = Draw::<TRACK>::new(&mut ppg.rng);
    for (s, seg) in out.chunks_exact_mut(n).enumerate() {
        seg.copy_from_slice(&ppg.state.reference[s * n..(s + 1) * n]);
        let w = Weights {
            w: &ppg.state.weights[s * count..(s + 1) * count],
            rows: &ppg.rows[..n],
        };
        sampler::walk_block(
            seg,
            &ppg.schedule[..ppg.merges],
            w,
            mode,
            &mut ppg.work.scratch,
            &mut draw,
        );
    }
    if TRACK {
        draw.log_prob.value()
    } else {
        0.0
    }
}

fn sample_uncorrected<const TRACK: bool>(ppg: &mut Ppg, out: &mut [u16]) -> f64 {
    ppg.prepare_uncorrected();
    let (n, count) = (ppg.n, ppg.pair_count());
    let mut log = LogProb::new();
    for (s, ranking) in out.chunks_exact_mut(n).enumerate() {
        let w = ByPosition {
            w: &ppg.by_position[s * count..(s + 1) * count],
            rows: &ppg.rows[..n],
        };
        let mut buffers = Buffers {
            uniforms: ppg.work.uniforms,
            merge: MergeBuffers {
                moved: ppg.work.scratch.top,
                counts: ppg.work.scratch.passed,
            },
        };
        let plan = Plan {
            leaves: &ppg.leaf_spans[..ppg.leaf_count],
            schedule: &ppg.schedule[ppg.small_merges..ppg.merges],
            runs: &ppg.runs[..ppg.run_count],
            tops: ppg.tops,
        };
        let leaves = ppg.leaf_count;
        let tables = ppg.leaf_tables.part(s * leaves..(s + 1) * leaves);
        // Positions are drawn in the padded block buffer (see `leaves::PADDED`).
        let seg = &mut ppg.work.block[..n + leaves::PADDED];
        uncorrected::draw_block::<TRACK>(
            seg,
            plan,
            w,
            &tables,
            &mut buffers,
            &mut ppg.rng,
            &mut log,
        );
        let reference = &ppg.state.reference[s * n..(s + 1) * n];
        for (slot, &position) in ranking.iter_mut().zip(&seg[..n]) {
            *slot = reference[usize::from(position)];
        }
    }
    if TRACK {
        log.value()
    } else {
        0.0
    }
}

/// Adds `scale` times the exact score of a validated `ranking` into `grad`; returns the
/// log-probability and whether the ranking is possible.
pub(crate) fn score_into(
    ppg: &mut Ppg,
    mode: SamplerMode,
    ranking: &[u16],
    scale: f64,
    grad: &mut [f32],
) -> (f64, bool) {
    let (n, count) = (ppg.n, ppg.pair_count());
    let (nt, nb) = Scratch::halves(ppg.dims.items);
    let mut total = 0.0;
    let mut possible = true;
    for s in 0..ppg.sessions {
        let Work {
            scratch,
            pos,
            block: seg,
            diff_row,
            diff_col,
            ..
        } = &mut ppg.work;
        locate(&ranking[s * n..(s + 1) * n], &mut pos[..n]);
        seg[..n].copy_from_slice(&ppg.state.reference[s * n..(s + 1) * n]);
        let w = Weights {
            w: &ppg.state.weights[s * count..(s + 1) * count],
            rows: &ppg.rows[..n],
        };
        let mut walk = ScoreWalk {
            pos: &pos[..n],
            w,
            grad: &mut grad[s * count..(s + 1) * count],
            scale,
            corrected: mode == SamplerMode::Corrected,
            diff_row,
            diff_col,
            row_stride: nb + 1,
            col_stride: nt + 1,
            log_prob: LogProb::new(),
            possible: true,
        };
        sampler::walk_block(
            &mut seg[..n],
            &ppg.schedule[..ppg.merges],
            w,
            mode,
            scratch,
            &mut walk,
        );
        total += walk.log_prob.value();
        possible &= walk.possible;
    }
    (total, possible)
}
