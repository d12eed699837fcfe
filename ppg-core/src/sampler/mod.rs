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
//! It stays whole (about 400 lines): the prepared state and the three loops over it (draw,
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
    /// Every session's leaf tables for the uncorrected sampler.
    pub(crate) leaf_tables: Tables<'a>,
    /// `by_position` and `leaf_tables` are rebuilt on the first uncorrected draw after the
    /// weights or the reference change.
    stale: bool,
    /// One merge's buffers.
    scratch: Scratch<'a>,
    /// Item positions of the ranking being replayed.
    pos: &'a mut [u16],
    /// One block being sampled, padded for the leaves (see `leaves::PADDED`).
    block: &'a mut [u16],
    /// The score's difference arrays.
    diff_row: &'a mut [f64],
    diff_col: &'a mut [f64],
    /// Uniforms of one uncorrected block.
    uniforms: &'a mut [u32],
    /// `Scratch::halves` of the layout's item count: the strides of the difference arrays.
    halves: (usize, usize),
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
            region_bytes::<[u32; leaves::SEARCH]>(leaves),
            region_bytes::<[f32; leaves::OUTCOMES]>(leaves),
            region_bytes::<u16>(nt),
            region_bytes::<u16>(nt),
            region_bytes::<f64>((nt + 1).saturating_mul(nb)),
            region_bytes::<u16>(nb),
            region_bytes::<f64>(nb.saturating_add(1)),
            region_bytes::<u16>(n),
            region_bytes::<u16>(n.saturating_add(leaves::PADDED)),
            region_bytes::<f64>(nt.saturating_mul(nb.saturating_add(1))),
            region_bytes::<f64>(nb.saturating_mul(nt + 1)),
            region_bytes::<u32>(uncorrected::uniforms_for(n)),
        ])
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
            leaf_tables: Tables {
                bounds: arena.take(leaves)?,
                probs: arena.take(leaves)?,
            },
            stale: true,
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
            uniforms: arena.take(uncorrected::uniforms_for(n))?,
            halves: (nt, nb),
        })
    }

    /// Lays out the merges of a list of `items` items; the tables follow on the next draw.
    pub(crate) fn start(&mut self, items: usize) {
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
        self.stale = true;
    }

    /// The distribution's weights or reference changed: rebuild the tables before the next
    /// uncorrected draw.
    pub(crate) fn invalidate(&mut self) {
        self.stale = true;
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
                &mut self.leaf_tables.part(first..first + 1),
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
                &mut self.leaf_tables.part(s * leaves..(s + 1) * leaves),
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
        for (s, seg) in out.chunks_exact_mut(n).enumerate() {
            seg.copy_from_slice(dist.reference_of(s));
            merge::walk_block(
                seg,
                &self.schedule[..self.merges],
                dist.weights_of(s),
                mode,
                &mut self.scratch,
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
        for (s, ranking) in out.chunks_exact_mut(n).enumerate() {
            let w = ByPosition {
                w: &self.by_position[s * count..(s + 1) * count],
                rows: &dist.rows[..n],
            };
            let mut buffers = Buffers {
                uniforms: self.uniforms,
                merge: MergeBuffers {
                    moved: self.scratch.top,
                    counts: self.scratch.passed,
                },
            };
            let plan = Plan {
                leaves: &self.leaf_spans[..self.leaf_count],
                schedule: &self.schedule[self.small_merges..self.merges],
                runs: &self.runs[..self.run_count],
                tops: self.tops,
            };
            let leaves = self.leaf_count;
            let tables = self.leaf_tables.part(s * leaves..(s + 1) * leaves);
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
        for s in 0..dist.sessions {
            locate(&ranking[s * n..(s + 1) * n], &mut self.pos[..n]);
            let seg = &mut self.block[..n];
            seg.copy_from_slice(dist.reference_of(s));
            let mut replay = Replay {
                pos: &self.pos[..n],
                log_prob: LogProb::new(),
            };
            merge::walk_block(
                seg,
                &self.schedule[..self.merges],
                dist.weights_of(s),
                mode,
                &mut self.scratch,
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
        for s in 0..dist.sessions {
            locate(&ranking[s * n..(s + 1) * n], &mut self.pos[..n]);
            let seg = &mut self.block[..n];
            seg.copy_from_slice(dist.reference_of(s));
            let w = dist.weights_of(s);
            let mut walk = ScoreWalk {
                pos: &self.pos[..n],
                w,
                grad: &mut grad[s * count..(s + 1) * count],
                scale,
                corrected: mode == SamplerMode::Corrected,
                diff_row: self.diff_row,
                diff_col: self.diff_col,
                row_stride: nb + 1,
                col_stride: nt + 1,
                log_prob: LogProb::new(),
                possible: true,
            };
            merge::walk_block(
                seg,
                &self.schedule[..self.merges],
                w,
                mode,
                &mut self.scratch,
                &mut walk,
            );
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
