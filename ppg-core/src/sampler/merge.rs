//! The merge sampler (Algorithms 1 and 2 of the paper) and its replay.
//!
//! One session block is sampled by splitting the reference at `len / 2`, sampling both halves,
//! then merging: the top half's items, last to first, move down past bottom items one
//! Bernoulli decision at a time, stopping at the first negative decision or where the
//! previous top item stopped. Every inversion is an explicit positive decision, so a pair of
//! weight 0 is never inverted.
//!
//! With the paper's correction (Eq. 9) a decision on pair `(t, i)` uses `w / (1 - q)`. Writing
//! `pi` for the product of `(1 - w_x)` over the pairs whose positive draw the negative
//! outcome would make impossible (the rest of `t`'s reachable row, `A`, and the top items above
//! `t` in column `i`, `B`), `q = (1 - w)(1 - pi)` and the corrected probability is
//! `w / (w + (1 - w) pi)`. Row products are suffix products built once per top item and
//! column products are prefix products built once per column, so a corrected sample costs
//! `O(n^2)` in the worst case rather than the paper's `O(n^3)`.
//!
//! The decisions a sample took are a function of the sample alone (each merge's inputs are
//! the restrictions of the final order to the two halves), so [`Walk`]s other than the
//! random one *replay* a known ranking through the same code: that gives the exact
//! probability of any ranking under the sampler, and its exact gradient.
//!
//! Uses `log_prob`, the pair-indexed weights of `pairs` and the generator; nothing else.

use super::log_prob::LogProb;
use crate::pairs::Weights;
use crate::Rng;

/// How the merge sampler draws each inversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SamplerMode {
    /// The paper's corrected draws `w / (1 - q)` (Eq. 9).
    Corrected,
    /// The reference code's draws `w` (its correction is commented out, `q = 0`).
    Uncorrected,
}

/// One Bernoulli decision of a merge: may the top item pass the bottom item?
#[derive(Debug, Clone, Copy)]
pub(crate) struct Decision {
    /// Index of the moving item in the top half's sampled order.
    pub t: usize,
    /// Index of the item it may pass in the bottom half's sampled order.
    pub i: usize,
    /// Bottom indices `0..bound` are reachable for this top item.
    pub bound: usize,
    /// Weight of the pair.
    pub w: f64,
    /// Product of `1 - w_x` over the pairs the correction accounts for (1 when uncorrected).
    pub pi: f64,
    /// Probability of passing.
    pub p: f64,
    /// Packed index of the pair in the session's weights.
    pub pair: usize,
    /// The moving (top) item.
    pub x: u16,
    /// The item it may pass.
    pub y: u16,
}

/// What drives the decisions of a merge.
pub(crate) trait Walk {
    /// Whether the top item passes the bottom item.
    fn decide(&mut self, d: &Decision) -> bool;
    /// Called after the decisions of a merge, before the halves are interleaved.
    fn merged(&mut self, _top: &[u16], _bottom: &[u16]) {}
}

/// Buffers one merge needs, sized for the largest list the engine holds.
pub(crate) struct Scratch<'a> {
    /// The top half, saved while the merged order is written in place.
    pub top: &'a mut [u16],
    /// How many bottom items each top item passed.
    pub passed: &'a mut [u16],
    /// Per column, prefix products of `1 - w` down the top half; stride `top.len() + 1`.
    pub col: &'a mut [f64],
    /// Per column, how many prefix products are filled (0: none yet).
    pub col_filled: &'a mut [u16],
    /// Suffix products along the moving item's row.
    pub row: &'a mut [f64],
}

impl Scratch<'_> {
    /// `(top, bottom)` capacities of the largest merge for lists of `n` items.
    pub(crate) const fn halves(n: usize) -> (usize, usize) {
        (n / 2, n - n / 2)
    }
}

/// The merges of a block of `n` items (split at `len / 2`, merge the sampled halves) as
/// `(lo, mid, hi)` triples, shortest first and left to right within a length: a merge comes
/// after those of its halves, and merges of one shape are consecutive, so a sampler can
/// handle each shape in one loop. Computed once per query so that sampling runs a flat
/// loop instead of recursing.
///
/// The merges are listed in that order rather than sorted into it: a block has at most 34
/// merge lengths, one pass of the split tree each, and a sort routine would be 7.5 KB of a
/// firmware image's flash.
pub(crate) fn fill_schedule(n: usize, out: &mut [[u16; 3]]) -> usize {
    /// The shortest sub-block of `lo..hi` (itself included) longer than `len`.
    fn shortest_above(lo: usize, hi: usize, len: usize) -> Option<usize> {
        if hi - lo <= len {
            return None;
        }
        let mid = lo + (hi - lo) / 2;
        // A half is shorter than the block, so the block counts only when neither does.
        let halves = [shortest_above(lo, mid, len), shortest_above(mid, hi, len)];
        Some(halves.into_iter().flatten().min().unwrap_or(hi - lo))
    }
    /// Lists the merges of length `len` in `lo..hi`, left to right.
    fn visit(lo: usize, hi: usize, len: usize, out: &mut [[u16; 3]], k: &mut usize) {
        if hi - lo < len {
            return;
        }
        let mid = lo + (hi - lo) / 2;
        if hi - lo == len {
            // Depth is log2(n) <= 16: ids are u16.
            out[*k] = [lo as u16, mid as u16, hi as u16];
            *k += 1;
            return;
        }
        visit(lo, mid, len, out, k);
        visit(mid, hi, len, out, k);
    }
    let (mut k, mut len) = (0, 1);
    while let Some(next) = shortest_above(0, n, len) {
        len = next;
        visit(0, n, len, out, &mut k);
    }
    k
}

/// Samples (or replays) one block in place: `seg` holds the block's items in reference order
/// on entry and the sampled order on exit; `schedule` comes from [`fill_schedule`].
pub(crate) fn walk_block<W: Walk>(
    seg: &mut [u16],
    schedule: &[[u16; 3]],
    w: Weights,
    mode: SamplerMode,
    s: &mut Scratch,
    walk: &mut W,
) {
    for &[lo, mid, hi] in schedule {
        let (lo, mid, hi) = (lo as usize, mid as usize, hi as usize);
        if hi - lo == 2 {
            // One item into one: a single decision, never corrected (A and B are empty).
            let (x, y) = (seg[lo], seg[mid]);
            let pair = w.pair(x as usize, y as usize);
            let p = w.w[pair] as f64;
            let d = Decision {
                t: 0,
                i: 0,
                bound: 1,
                w: p,
                pi: 1.0,
                p,
                pair,
                x,
                y,
            };
            if walk.decide(&d) {
                seg.swap(lo, mid);
            }
        } else {
            merge(&mut seg[lo..hi], mid - lo, w, mode, s, walk);
        }
    }
}

fn merge<W: Walk>(
    seg: &mut [u16],
    mid: usize,
    w: Weights,
    mode: SamplerMode,
    s: &mut Scratch,
    walk: &mut W,
) {
    let nt = mid;
    let nb = seg.len() - mid;
    let (top, bottom) = seg.split_at(mid);
    let corrected = mode == SamplerMode::Corrected;
    let stride = s.top.len() + 1;
    if corrected {
        s.col_filled[..nb].fill(0);
    }
    let mut bound = nb;
    for t in (0..nt).rev() {
        let x = top[t] as usize;
        if corrected && bound > 0 {
            // row[i] = prod over j in (i, bound) of (1 - w(x, bottom[j])).
            s.row[bound - 1] = 1.0;
            for i in (0..bound - 1).rev() {
                s.row[i] = s.row[i + 1] * (1.0 - w.get(x, bottom[i + 1] as usize));
            }
        }
        let mut i = 0;
        while i < bound {
            let y = bottom[i] as usize;
            let pair = w.pair(x, y);
            let wi = w.w[pair] as f64;
            let (pi, p) = if !corrected {
                (1.0, wi)
            } else if wi <= 0.0 {
                (1.0, 0.0)
            } else {
                let pi = s.row[i] * column_prefix(s, stride, top, y, i, t, w);
                (pi, wi / (wi + (1.0 - wi) * pi))
            };
            let d = Decision {
                t,
                i,
                bound,
                w: wi,
                pi,
                p,
                pair,
                x: x as u16,
                y: y as u16,
            };
            if !walk.decide(&d) {
                break;
            }
            i += 1;
        }
        s.passed[t] = i as u16;
        bound = i;
    }
    walk.merged(top, bottom);

    // Top items that passed nothing are already in place, and so is every bottom item after
    // the last one passed. Between those, interleave front to back: a bottom item only moves
    // towards the front, so it is read before its old slot is overwritten.
    let Some(first) = s.passed[..nt].iter().position(|&k| k > 0) else {
        return;
    };
    for (saved, &item) in s.top[first..nt].iter_mut().zip(&seg[first..mid]) {
        *saved = item;
    }
    let mut out = first;
    let mut j = 0;
    for t in first..nt {
        let until = s.passed[t] as usize;
        while j < until {
            seg[out] = seg[mid + j];
            out += 1;
            j += 1;
        }
        seg[out] = s.top[t];
        out += 1;
    }
}

/// Product of `1 - w(top[r], y)` for `r < t`, filling column `i`'s prefix products on first use.
/// Columns are first used at their largest `t` (top items are merged last to first), so one
/// fill serves every later query.
#[inline]
fn column_prefix(
    s: &mut Scratch,
    stride: usize,
    top: &[u16],
    y: usize,
    i: usize,
    t: usize,
    w: Weights,
) -> f64 {
    let col = &mut s.col[i * stride..(i + 1) * stride];
    let filled = s.col_filled[i] as usize;
    if filled <= t {
        if filled == 0 {
            col[0] = 1.0;
        }
        for r in filled.max(1)..=t {
            col[r] = col[r - 1] * (1.0 - w.get(top[r - 1] as usize, y));
        }
        s.col_filled[i] = (t + 1) as u16;
    }
    col[t]
}

/// Draws the decisions from the generator and records the probability of the outcome.
///
/// A moving item passes bottom item `i` when every decision up to `i` is positive, which has
/// probability `p_0 ... p_i`. One uniform `u` per moving item, passing while
/// `u < p_0 ... p_i`, gives exactly those probabilities with one generator call per item
/// instead of one per decision. `TRACK` records the log-probability; training, which never
/// reads it, turns it off.
pub(crate) struct Draw<'r, const TRACK: bool> {
    pub rng: &'r mut Rng,
    pub log_prob: LogProb,
    u: f64,
    reach: f64,
}

impl<'r, const TRACK: bool> Draw<'r, TRACK> {
    pub(crate) fn new(rng: &'r mut Rng) -> Self {
        Draw {
            rng,
            log_prob: LogProb::new(),
            u: 0.0,
            reach: 1.0,
        }
    }
}

impl<const TRACK: bool> Walk for Draw<'_, TRACK> {
    #[inline(always)]
    fn decide(&mut self, d: &Decision) -> bool {
        if d.i == 0 {
            self.u = self.rng.unit_f64();
            self.reach = 1.0;
        }
        self.reach *= d.p;
        let pass = self.u < self.reach;
        if TRACK {
            self.log_prob.times(if pass { d.p } else { 1.0 - d.p });
        }
        pass
    }
}

/// Replays a known block: an item passes another exactly when it comes after it.
pub(crate) struct Replay<'p> {
    /// Position of each item in the replayed block.
    pub pos: &'p [u16],
    pub log_prob: LogProb,
}

impl Walk for Replay<'_> {
    #[inline(always)]
    fn decide(&mut self, d: &Decision) -> bool {
        let pass = self.pos[d.x as usize] > self.pos[d.y as usize];
        self.log_prob.times(if pass { d.p } else { 1.0 - d.p });
        pass
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::fill_schedule;
    use std::vec::Vec;

    /// The schedule is every merge of the split tree, sorted by length and then start (the
    /// order the uncorrected sampler hands out its uniforms in), listed without a sort.
    #[test]
    fn schedule_lists_the_merges_sorted_by_length_then_start() {
        fn all(lo: usize, hi: usize, out: &mut Vec<[u16; 3]>) {
            if hi - lo >= 2 {
                let mid = lo + (hi - lo) / 2;
                all(lo, mid, out);
                all(mid, hi, out);
                out.push([lo as u16, mid as u16, hi as u16]);
            }
        }
        for n in (0..=700).chain([4_095, 4_096, 4_097, 65_535]) {
            let mut want = Vec::new();
            all(0, n, &mut want);
            want.sort_by_key(|&[lo, _, hi]| (hi - lo, lo));
            let mut got = std::vec![[0u16; 3]; n];
            let k = fill_schedule(n, &mut got);
            assert_eq!(&got[..k], &want[..], "n = {n}");
        }
    }
}
