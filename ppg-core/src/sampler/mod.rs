//! The sampler: draws rankings from a [`Distribution`], and gives the exact log-probability
//! and score (gradient of the log-probability) of any ranking under the sampler.
//!
//! It owns everything it prepares from the distribution and never writes the distribution:
//! the merge schedule of the current list length, and for the uncorrected sampler the
//! weights re-indexed by reference position and each leaf's outcome table, rebuilt lazily
//! after the distribution changes ([`Sampler::invalidate`], [`Sampler::weight_changed`]).
//! Its scratch lives here too, so one sample goes from [`Sampler::draw`] to the returned
//! ranking inside this folder:
//!
//! - [`merge`]: the merge sampler (Algorithms 1 and 2 of the paper), its schedule, and the
//!   walk that draws (`Draw`) or replays (`Replay`) one block; the corrected draws go here.
//! - [`uncorrected`]: the same merges for uncorrected draws, without data-dependent
//!   branches, over [`leaves`]: the outcome tables of a block's smallest sub-blocks.
//! - [`score`]: the walk that replays a ranking and adds up its exact score.
//! - [`log_prob`]: the running probability every walk multiplies into.
//!
//! Inside the folder `merge`, `leaves` and `score` use `log_prob`, `uncorrected` uses
//! `leaves`, `score` uses `merge`, and this module uses them all; none of them uses this
//! one. From outside it uses the distribution it reads, `pairs` and the foundations.
//!
//! It stays whole (about 480 lines): the prepared state and the three loops over it (draw,
//! log-probability, score) are kept together so that a change of the state's shape (single
//! precision, several samples at once) is made in one file.

mod leaves;
mod log_prob;
mod merge;
mod score;
mod uncorrected;

pub use merge::SamplerMode;

use self::leaves::Tables;
use self::log_prob::LogProb;
use self::merge::{Draw, Replay, Scratch};
use self::score::ScoreWalk;
use self::uncorrected::{Buffers, MergeBuffers, Plan};
use crate::arena::{region_bytes, sum, Arena};
use crate::distribution::{locate, Distribution};
use crate::pairs::{self, ByPosition};
use crate::{Dims, Error, Rng};

/// The sampler's prepared state and scratch, in regions sized for a layout's largest query.
pub(crate) struct Sampler<'a> {
    /// The merges of a block as `(lo, mid, hi)`, shortest first (`merge::fill_schedule`).
    schedule: &'a mut [[u16; 3]],
    merges: usize,
    /// The schedule's first `small_merges` merges are inside leaves.
    small_merges: usize,
    /// A block's leaves (`leaves::fill_spans`).
    leaf_spans: &'a mut [[u16; 2]],
    leaf_count: usize,
    /// The runs of equal merge length above the leaves, for the uncorrected sampler.
    runs: [[u16; 2]; uncorrected::MAX_RUNS],
    run_count: usize,
    /// Top items over the merges above the leaves: with one per leaf, the uniforms an
    /// uncorrected block draws.
    tops: usize,
    /// The weights re-indexed by reference position for the uncorrected sampler.
    pub(crate) by_position: &'a mut [f32],
    /// Every session's leaf tables for the uncorrected sampler ([`Sampler::leaf_tables`]),
    /// or a corrected walk's products and the score's difference arrays
    /// ([`Sampler::walk_buffers`]). No call needs both, so they share one region: for 20
    /// items x 4 sessions the corrected buffers are 2,756 bytes, which a 64 KiB part cannot
    /// spare, beside 15,872 of tables. A corrected walk leaves the tables stale.
    shared: &'a mut [f64],
    /// Leaf tables the layout holds: leaves of its longest list times its sessions.
    table_leaves: usize,
    /// Tables were written into `shared` since a corrected walk last used it, so the
    /// difference arrays, which the score keeps at zero between merges, must be cleared.
    tables_written: bool,
    /// The list length the schedule, leaves and runs are laid out for (0: none yet).
    laid_for: usize,
    /// `by_position` and the leaf tables are rebuilt on the first uncorrected draw after the
    /// weights or the reference change, or after a corrected walk used their memory.
    stale: bool,
    /// The top half of a merge and how far each top item passed (see `merge::Scratch`).
    top: &'a mut [u16],
    passed: &'a mut [u16],
    /// How many of each column's products a corrected merge has filled.
    col_filled: &'a mut [u16],
    /// Item positions of the ranking being replayed.
    pos: &'a mut [u16],
    /// One block being sampled, padded for the leaves (see `leaves::PADDED`).
    block: &'a mut [u16],
    /// Uniforms of one uncorrected block.
    uniforms: &'a mut [u32],
    /// `Scratch::halves` of the layout's item count: the strides of the difference arrays.
    halves: (usize, usize),
}

/// The buffers of one block's walk, lent by [`Sampler::walk_parts`].
struct WalkParts<'s> {
    schedule: &'s [[u16; 3]],
    scratch: Scratch<'s>,
    /// The score's difference arrays (see `score`).
    diff_row: &'s mut [f64],
    diff_col: &'s mut [f64],
    /// Item positions of the ranking being replayed.
    pos: &'s mut [u16],
    /// The block being walked.
    block: &'s mut [u16],
}

impl<'a> Sampler<'a> {
    /// Bytes of the regions [`Sampler::new`] takes for shape `dims`.
    pub(crate) const fn bytes(dims: Dims) -> usize {
        let n = dims.items;
        let pairs = pairs::count(n).saturating_mul(dims.sessions);
        let (nt, nb) = Scratch::halves(n);
        let leaves = leaves::leaves_for(n).saturating_mul(dims.sessions);
        // Saturating throughout: an absurd shape must give "too large", never an overflow.
        sum(&[
            region_bytes::<[u16; 3]>(n),
            region_bytes::<[u16; 2]>(leaves::leaves_for(n)),
            region_bytes::<f32>(pairs),
            region_bytes::<f64>(Self::shared_len(leaves, nt, nb)),
            region_bytes::<u16>(nt),
            region_bytes::<u16>(nt),
            region_bytes::<u16>(nb),
            region_bytes::<u16>(n),
            region_bytes::<u16>(n.saturating_add(leaves::PADDED)),
            region_bytes::<u32>(uncorrected::uniforms_for(n)),
        ])
    }

    /// `f64` values of the shared region: the larger of `leaves` leaf tables and the
    /// corrected buffers of `nt + nb` items ([`Sampler::walk_buffers`]).
    const fn shared_len(leaves: usize, nt: usize, nb: usize) -> usize {
        // A leaf's bounds and probabilities are 128 and 120 four-byte values.
        let tables = leaves.saturating_mul((leaves::SEARCH + leaves::OUTCOMES) / 2);
        // `col` and `diff_col` are (nt + 1) x nb, `row` nb + 1, `diff_row` nt x (nb + 1).
        let corrected = (nt + 1).saturating_mul(nb.saturating_mul(3).saturating_add(1));
        if tables > corrected {
            tables
        } else {
            corrected
        }
    }

    /// A sampler with nothing prepared, in regions of `arena`.
    pub(crate) fn new(arena: &mut Arena<'a>, dims: Dims) -> Result<Self, Error> {
        let n = dims.items;
        let pairs = pairs::count(n) * dims.sessions;
        let (nt, nb) = Scratch::halves(n);
        let leaves = leaves::leaves_for(n) * dims.sessions;
        Ok(Sampler {
            schedule: arena.take(n)?,
            merges: 0,
            small_merges: 0,
            leaf_spans: arena.take(leaves::leaves_for(n))?,
            leaf_count: 0,
            runs: [[0; 2]; uncorrected::MAX_RUNS],
            run_count: 0,
            tops: 0,
            by_position: arena.take(pairs)?,
            shared: arena.take(Self::shared_len(leaves, nt, nb))?,
            table_leaves: leaves,
            tables_written: false,
            laid_for: 0,
            stale: true,
            top: arena.take(nt)?,
            passed: arena.take(nt)?,
            col_filled: arena.take(nb)?,
            pos: arena.take(n)?,
            block: arena.take(n + leaves::PADDED)?,
            uniforms: arena.take(uncorrected::uniforms_for(n))?,
            halves: (nt, nb),
        })
    }

    /// Lays out the merges of a list of `items` items; the tables follow on the next draw.
    /// The layout depends on `items` alone: an engine that starts lists of one length again
    /// and again (a host's kept engine) lays it out once.
    pub(crate) fn start(&mut self, items: usize) {
        self.stale = true;
        if self.laid_for == items {
            return;
        }
        self.laid_for = items;
        self.merges = merge::fill_schedule(items, self.schedule);
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
    }

    /// The distribution's weights or reference changed: rebuild the tables before the next
    /// uncorrected draw.
    pub(crate) fn invalidate(&mut self) {
        self.stale = true;
    }

    /// Every session's leaf tables, in the shared region.
    #[cfg(test)]
    pub(crate) fn leaf_tables(&mut self) -> Tables<'_> {
        Self::tables_in(self.shared, self.table_leaves)
    }

    /// The tables of `leaves` leaves at the start of `shared`.
    fn tables_in(shared: &mut [f64], leaves: usize) -> Tables<'_> {
        let (bounds, rest) = shared.split_at_mut(leaves * leaves::SEARCH / 2);
        let probs = &mut rest[..leaves * leaves::OUTCOMES / 2];
        // Whole tables of 8-aligned `f64`: the casts cannot fail, and dropping the error
        // (rather than `cast_slice_mut`'s panic) keeps its formatting out of firmware.
        let (Ok(bounds), Ok(probs)) = (
            bytemuck::try_cast_slice_mut(bounds),
            bytemuck::try_cast_slice_mut(probs),
        ) else {
            unreachable!("whole leaf tables");
        };
        Tables { bounds, probs }
    }

    /// What a walk of one block in `mode` works in. Corrected, its `f64` buffers take the
    /// shared region and the leaf tables go stale; uncorrected walks read none of them,
    /// which are then empty.
    fn walk_parts(&mut self, mode: SamplerMode) -> WalkParts<'_> {
        let (nt, nb) = self.halves;
        let shared: &mut [f64] = if mode == SamplerMode::Corrected {
            self.stale = true;
            if core::mem::take(&mut self.tables_written) {
                // The score's difference arrays start at zero (see `tables_written`).
                self.shared.fill(0.0);
            }
            self.shared
        } else {
            &mut []
        };
        // Bounded by what is left, so that the empty region of an uncorrected walk splits.
        let (col, rest) = shared.split_at_mut(((nt + 1) * nb).min(shared.len()));
        let (row, rest) = rest.split_at_mut((nb + 1).min(rest.len()));
        let (diff_row, diff_col) = rest.split_at_mut((nt * (nb + 1)).min(rest.len()));
        WalkParts {
            schedule: &self.schedule[..self.merges],
            scratch: Scratch {
                top: self.top,
                passed: self.passed,
                col,
                col_filled: self.col_filled,
                row,
            },
            diff_row,
            diff_col,
            pos: self.pos,
            block: self.block,
        }
    }

    /// Brings the prepared tables up to date after one weight of `dist` changed: its
    /// position-indexed entry, and the table of the leaf holding both items, if one does.
    pub(crate) fn weight_changed(
        &mut self,
        dist: &Distribution,
        session: usize,
        a: usize,
        b: usize,
    ) {
        if self.stale {
            return;
        }
        let (n, count) = (dist.n, dist.pair_count());
        let reference = dist.reference_of(session);
        let at = |item: usize| reference.iter().position(|&r| usize::from(r) == item);
        let (Some(pa), Some(pb)) = (at(a), at(b)) else {
            // A reference is a permutation: both are found.
            self.stale = true;
            return;
        };
        let (x, y) = (pa.min(pb), pa.max(pb));
        let rows = &dist.rows[..n];
        let by_position = &mut self.by_position[session * count..(session + 1) * count];
        by_position[rows[x].wrapping_add(y as u32) as usize] =
            dist.weights[session * count + pairs::index(a, b, n)];
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
                &mut Self::tables_in(self.shared, self.table_leaves).part(first..first + 1),
            );
        }
    }

    /// Re-indexes the weights by reference position and rebuilds the leaf tables if the
    /// distribution changed since they were built.
    pub(crate) fn prepare_uncorrected(&mut self, dist: &Distribution) {
        if !self.stale {
            return;
        }
        let (n, count) = (dist.n, dist.pair_count());
        let rows = &dist.rows[..n];
        self.tables_written = true;
        let mut tables = Self::tables_in(self.shared, self.table_leaves);
        for s in 0..dist.sessions {
            let reference = dist.reference_of(s);
            let w = dist.weights_of(s);
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
                &mut tables.part(s * leaves..(s + 1) * leaves),
            );
        }
        self.stale = false;
    }

    /// Draws one ranking of `dist` into `out` (`n * sessions` long) and returns its
    /// log-probability, or 0 when `TRACK` is off.
    pub(crate) fn draw<const TRACK: bool>(
        &mut self,
        dist: &Distribution,
        mode: SamplerMode,
        rng: &mut Rng,
        out: &mut [u16],
    ) -> f64 {
        if mode == SamplerMode::Uncorrected {
            return self.draw_uncorrected::<TRACK>(dist, rng, out);
        }
        let n = dist.n;
        let mut draw = Draw::<TRACK>::new(rng);
        let mut parts = self.walk_parts(mode);
        for (s, seg) in out.chunks_exact_mut(n).enumerate() {
            seg.copy_from_slice(dist.reference_of(s));
            merge::walk_block(
                seg,
                parts.schedule,
                dist.weights_of(s),
                mode,
                &mut parts.scratch,
                &mut draw,
            );
        }
        if TRACK {
            draw.log_prob.value()
        } else {
            0.0
        }
    }

    fn draw_uncorrected<const TRACK: bool>(
        &mut self,
        dist: &Distribution,
        rng: &mut Rng,
        out: &mut [u16],
    ) -> f64 {
        self.prepare_uncorrected(dist);
        let (n, count) = (dist.n, dist.pair_count());
        let mut log = LogProb::new();
        let mut all_tables = Self::tables_in(self.shared, self.table_leaves);
        for (s, ranking) in out.chunks_exact_mut(n).enumerate() {
            let w = ByPosition {
                w: &self.by_position[s * count..(s + 1) * count],
                rows: &dist.rows[..n],
            };
            let mut buffers = Buffers {
                uniforms: self.uniforms,
                merge: MergeBuffers {
                    moved: self.top,
                    counts: self.passed,
                },
            };
            let plan = Plan {
                leaves: &self.leaf_spans[..self.leaf_count],
                schedule: &self.schedule[self.small_merges..self.merges],
                runs: &self.runs[..self.run_count],
                tops: self.tops,
            };
            let leaves = self.leaf_count;
            let tables = all_tables.part(s * leaves..(s + 1) * leaves);
            // Positions are drawn in the padded block buffer (see `leaves::PADDED`).
            let seg = &mut self.block[..n + leaves::PADDED];
            uncorrected::draw_block::<TRACK>(seg, plan, w, &tables, &mut buffers, rng, &mut log);
            let reference = dist.reference_of(s);
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

    /// Checks that `ranking` is `sessions` permutations of `0..n` (the sampler's position
    /// buffer is the scratch).
    pub(crate) fn check_ranking(
        &mut self,
        dist: &Distribution,
        ranking: &[u16],
    ) -> Result<(), Error> {
        dist.check_ranking(ranking, &mut self.pos[..dist.n])
    }

    /// The log-probability that the sampler in `mode` draws a checked `ranking`.
    pub(crate) fn log_prob(
        &mut self,
        dist: &Distribution,
        mode: SamplerMode,
        ranking: &[u16],
    ) -> f64 {
        let n = dist.n;
        let mut total = 0.0;
        let parts = self.walk_parts(mode);
        let mut scratch = parts.scratch;
        for s in 0..dist.sessions {
            locate(&ranking[s * n..(s + 1) * n], &mut parts.pos[..n]);
            let seg = &mut parts.block[..n];
            seg.copy_from_slice(dist.reference_of(s));
            let mut replay = Replay {
                pos: &parts.pos[..n],
                log_prob: LogProb::new(),
            };
            merge::walk_block(
                seg,
                parts.schedule,
                dist.weights_of(s),
                mode,
                &mut scratch,
                &mut replay,
            );
            total += replay.log_prob.value();
        }
        total
    }

    /// Adds `scale` times the exact score of a checked `ranking` into `grad`; returns the
    /// log-probability and whether the ranking is possible.
    pub(crate) fn score(
        &mut self,
        dist: &Distribution,
        mode: SamplerMode,
        ranking: &[u16],
        scale: f64,
        grad: &mut [f32],
    ) -> (f64, bool) {
        let (n, count) = (dist.n, dist.pair_count());
        let (nt, nb) = self.halves;
        let mut total = 0.0;
        let mut possible = true;
        let parts = self.walk_parts(mode);
        let mut scratch = parts.scratch;
        for s in 0..dist.sessions {
            locate(&ranking[s * n..(s + 1) * n], &mut parts.pos[..n]);
            let seg = &mut parts.block[..n];
            seg.copy_from_slice(dist.reference_of(s));
            let w = dist.weights_of(s);
            let mut walk = ScoreWalk {
                pos: &parts.pos[..n],
                w,
                grad: &mut grad[s * count..(s + 1) * count],
                scale,
                corrected: mode == SamplerMode::Corrected,
                diff_row: &mut *parts.diff_row,
                diff_col: &mut *parts.diff_col,
                row_stride: nb + 1,
                col_stride: nt + 1,
                log_prob: LogProb::new(),
                possible: true,
            };
            merge::walk_block(seg, parts.schedule, w, mode, &mut scratch, &mut walk);
            total += walk.log_prob.value();
            possible &= walk.possible;
        }
        (total, possible)
    }

    /// Two buffers of `n` positions, free between the sampler's calls, lent to the trainer
    /// so that re-referencing needs no memory of its own.
    pub(crate) fn positions(&mut self, n: usize) -> (&mut [u16], &mut [u16]) {
        (&mut self.pos[..n], &mut self.block[..n])
    }
}
