//! The reference code's sampler (uncorrected draws) without data-dependent branches.
//!
//! At moderate weights every decision of the merge sampler is close to a coin flip, so the
//! generic walk in `sampler` spends most of its time on mispredicted branches: one where a
//! moving item stops, one where a merge ends. This module draws the same distribution with
//! straight-line code.
//!
//! The sub-blocks of at most 5 positions are ordered from their outcome tables (`leaves`).
//! In a merge above them, top item `t` passes bottom items `0, 1, ...` while
//! `u_t < w_0 w_1 ... w_i` (one uniform per item, as in `sampler::Draw`) and never further
//! than top item `t + 1`. The schedule lists merges shortest first, so each shape is one
//! loop: merges of at most 4 bottom items run without a data-dependent branch, longer ones
//! stop at the first top item that does not move.
//!
//! The block is sampled over reference *positions*, with the weights re-indexed by position
//! (top positions are always below bottom positions, so a pair is `rows[x] + y` without a
//! comparison), and mapped to items at the end.
//!
//! Uniforms have 32 bits, two per generator call, drawn for the whole block before its
//! merges: each decision's probability is realised to within `2^-32`.
//!
//! Uses `leaves`, `log_prob`, the position-indexed weights of `pairs` and the generator.

use super::leaves::{self, Tables};
use super::log_prob::LogProb;
use crate::pairs::ByPosition;
use crate::Rng;

const SCALE: f32 = 1.0 / 4_294_967_296.0;

/// Uniforms one block of `n` items can need: one per leaf (at most `n / 2 + 1`), and its
/// merges have at most `n / 2` top items per level.
pub(crate) const fn uniforms_for(n: usize) -> usize {
    (n / 2 + 1).saturating_mul((usize::BITS - n.leading_zeros()) as usize)
}

/// Buffers for one block of `n` items.
pub(crate) struct Buffers<'a> {
    /// The block's uniforms as 32-bit integers: [`uniforms_for`] entries.
    pub uniforms: &'a mut [u32],
    pub merge: MergeBuffers<'a>,
}

/// Buffers of one merge of the general shape.
pub(crate) struct MergeBuffers<'a> {
    /// The top items the counting reached, by top index, saved for the placement that
    /// overwrites their slots: `n / 2` entries.
    pub moved: &'a mut [u16],
    /// Counts of the top items: `n / 2` entries.
    pub counts: &'a mut [u16],
}

/// Merge lengths in a schedule: at most two per level, and a block has at most 16 levels.
pub(crate) const MAX_RUNS: usize = 34;

/// Groups a schedule from `sampler::fill_schedule` into `(length, merges)` runs; returns
/// how many.
pub(crate) fn fill_runs(schedule: &[[u16; 3]], runs: &mut [[u16; 2]; MAX_RUNS]) -> usize {
    let mut count = 0;
    for &[lo, _, hi] in schedule {
        let len = hi - lo;
        if count > 0 && runs[count - 1][0] == len {
            runs[count - 1][1] += 1;
        } else {
            runs[count] = [len, 1];
            count += 1;
        }
    }
    count
}

/// How a block is drawn: its `leaves` (from `leaves::fill_spans`), then the merges above
/// them, `schedule` (the end of one from `sampler::fill_schedule`) grouped into `runs` by
/// [`fill_runs`], with `tops` top items in all.
#[derive(Clone, Copy)]
pub(crate) struct Plan<'a> {
    pub leaves: &'a [[u16; 2]],
    pub schedule: &'a [[u16; 3]],
    pub runs: &'a [[u16; 2]],
    pub tops: usize,
}

/// Samples one block in place, its leaves ordered from `tables`. `seg` holds the block and
/// `leaves::PADDED` slots of slack after it, which a leaf's draw may overwrite; it need not
/// be initialised.
pub(crate) fn draw_block<const TRACK: bool>(
    seg: &mut [u16],
    plan: Plan,
    w: ByPosition,
    tables: &Tables,
    b: &mut Buffers,
    rng: &mut Rng,
    log: &mut LogProb,
) {
    // One uniform per leaf and per top item, drawn up front so that the generator stays
    // in registers.
    let uniforms = &mut b.uniforms[..plan.leaves.len() + plan.tops];
    let mut pairs = uniforms.chunks_exact_mut(2);
    for pair in &mut pairs {
        let both = rng.next_u64();
        pair[0] = both as u32;
        pair[1] = (both >> 32) as u32;
    }
    if let [last] = pairs.into_remainder() {
        *last = rng.next_u64() as u32;
    }
    let (mine, mut u) = uniforms.split_at(plan.leaves.len());
    for (k, (&span, &u)) in plan.leaves.iter().zip(mine).enumerate() {
        leaves::draw::<TRACK>(seg, span, k, u, tables, log);
    }
    let mut rest = plan.schedule;
    for &[len, same] in plan.runs {
        let (group, tail) = rest.split_at(usize::from(same));
        rest = tail;
        let nt = usize::from(len / 2);
        let (mine, others) = u.split_at(nt * usize::from(same));
        u = others;
        match len {
            6 => run_small::<TRACK, 3, 3>(seg, group, mine, w, log),
            7 => run_small::<TRACK, 3, 4>(seg, group, mine, w, log),
            8 => run_small::<TRACK, 4, 4>(seg, group, mine, w, log),
            _ => {
                for (&[lo, mid, hi], u) in group.iter().zip(mine.chunks_exact(nt)) {
                    let part = &mut seg[usize::from(lo)..usize::from(hi)];
                    merge_any::<TRACK>(part, usize::from(mid - lo), u, w, &mut b.merge, log);
                }
            }
        }
    }
}

/// The merges of one small shape, `NT` top into `NB` bottom items.
#[inline(always)]
fn run_small<const TRACK: bool, const NT: usize, const NB: usize>(
    seg: &mut [u16],
    group: &[[u16; 3]],
    u: &[u32],
    w: ByPosition,
    log: &mut LogProb,
) {
    for (&[lo, _, hi], u) in group.iter().zip(u.chunks_exact(NT)) {
        merge_small::<TRACK, NT, NB>(&mut seg[usize::from(lo)..usize::from(hi)], u, w, log);
    }
}

/// A merge of `NT` top into `NB <= 4` bottom items without a data-dependent branch: every
/// top item is compared with every bottom item, the count of top item `t` is
/// `k_t = min(K_t, k_{t + 1})` with `K_t` its free count, and the items are placed by
/// arithmetic. Bottom `i` goes after `c_i = #{t : k_t <= i}` top items: with one byte per
/// bottom item, adding `1 << 8 k_t` for each top item and multiplying by `0x0101...01`
/// gives every `c_i` as a byte prefix sum.
#[inline(always)]
fn merge_small<const TRACK: bool, const NT: usize, const NB: usize>(
    part: &mut [u16],
    u: &[u32],
    w: ByPosition,
    log: &mut LogProb,
) {
    const { assert!(NB <= 4) };
    let mut top = [0u16; NT];
    let mut bottom = [0u16; NB];
    top.copy_from_slice(&part[..NT]);
    bottom.copy_from_slice(&part[NT..NT + NB]);
    let mut counts = [0usize; NT];
    let mut bound = NB;
    for t in (0..NT).rev() {
        let row = w.rows[usize::from(top[t])];
        let u = u[t] as f32 * SCALE;
        let mut weight = [0.0f32; NB];
        let mut reach = [1.0f32; 5];
        let mut free = 0;
        for i in 0..NB {
            weight[i] = w.w[row.wrapping_add(u32::from(bottom[i])) as usize];
            reach[i + 1] = reach[i] * weight[i];
            free += usize::from(u < reach[i + 1]);
        }
        let k = free.min(bound);
        if TRACK {
            // Stopping below the bound is a negative decision on bottom item k.
            let stopped = f32::from(u8::from(k < bound));
            log.times_single(reach[k] * (1.0 - stopped * weight[k.min(NB - 1)]));
        }
        counts[t] = k;
        bound = k;
    }
    let mut stopped_at = 0u32;
    for t in 0..NT {
        let k = counts[t];
        // k == NB precedes no bottom item.
        stopped_at += u32::from(k < NB) << (8 * (k % 4));
        part[t + k] = top[t];
    }
    let before = stopped_at.wrapping_mul(0x0101_0101);
    for (i, &item) in bottom.iter().enumerate() {
        part[i + (before >> (8 * i) & 0xff) as usize] = item;
    }
}

/// A merge of any shape: top items move last to first while the previous one moved, each
/// scanning only as far as it passes, and only the moved items are rewritten.
fn merge_any<const TRACK: bool>(
    part: &mut [u16],
    nt: usize,
    u: &[u32],
    w: ByPosition,
    b: &mut MergeBuffers,
    log: &mut LogProb,
) {
    let counts = &mut b.counts[..nt];
    let moved = &mut b.moved[..nt];
    let mut bound = part.len() - nt;
    let mut t = nt;
    while bound > 0 && t > 0 {
        t -= 1;
        // Saved here, in the loop that reads it anyway: a separate copy of the moved items
        // has a variable length and becomes a call to memcpy.
        moved[t] = part[t];
        let row = w.rows[usize::from(moved[t])];
        let ut = u[t] as f32 * SCALE;
        let mut reach = 1.0;
        let mut fail = 1.0;
        let mut k = 0;
        while k < bound {
            let wk = w.w[row.wrapping_add(u32::from(part[nt + k])) as usize];
            if ut < reach * wk {
                reach *= wk;
                k += 1;
            } else {
                fail = 1.0 - wk;
                break;
            }
        }
        if TRACK {
            log.times_single(reach * fail);
        }
        counts[t] = k as u16;
        bound = k;
    }
    // Top items below `first` passed nothing and stay; so do the bottom items none passed.
    let first = t + usize::from(counts[t] == 0);
    if first == nt {
        return;
    }
    // Front to back, a bottom item is read before its old slot can be overwritten.
    let mut out = first;
    let mut i = 0;
    for (&item, &until) in moved[first..].iter().zip(&counts[first..]) {
        while i < usize::from(until) {
            part[out] = part[nt + i];
            out += 1;
            i += 1;
        }
        part[out] = item;
        out += 1;
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::{merge_any, merge_small, ByPosition, LogProb, MergeBuffers};
    use crate::sampler::merge::{self, Draw, SamplerMode};
    use crate::{Dims, Ppg, Rng};
    use std::vec;

    /// Inversion frequency of every pair over `samples` rankings from `draw`.
    fn inversions(
        n: usize,
        samples: usize,
        mut draw: impl FnMut(&mut [u16]),
    ) -> std::vec::Vec<f64> {
        let mut counts = vec![0u32; n * n];
        let (mut out, mut pos) = (vec![0u16; n], vec![0usize; n]);
        for _ in 0..samples {
            draw(&mut out);
            for (k, &item) in out.iter().enumerate() {
                pos[usize::from(item)] = k;
            }
            for a in 0..n {
                for b in a + 1..n {
                    counts[a * n + b] += u32::from(pos[b] < pos[a]);
                }
            }
        }
        counts
            .iter()
            .map(|&c| f64::from(c) / samples as f64)
            .collect()
    }

    /// The branch-free merges against the general one, for every shape the sampler sends
    /// them: the same uniforms give the same order and the same log-probability to the bit,
    /// over 2,000 merges a shape with weights that include 0 (a forbidden pair) and 1.
    #[test]
    fn small_merges_equal_the_general_merge() {
        fn check<const NT: usize, const NB: usize>(rng: &mut Rng) {
            let n = NT + NB;
            // Positions index a full square: `w[x * n + y]` for every x, y.
            let rows: std::vec::Vec<u32> = (0..n as u32).map(|x| x * n as u32).collect();
            for _ in 0..2_000 {
                let weights: std::vec::Vec<f32> = (0..n * n)
                    .map(|_| match rng.next_u64() % 8 {
                        0 => 0.0,
                        1 => 1.0,
                        _ => rng.unit_f64() as f32,
                    })
                    .collect();
                let w = ByPosition {
                    w: &weights,
                    rows: &rows,
                };
                // Each half in a random order of its own positions, as its merges left it.
                let mut part: std::vec::Vec<u16> = (0..n as u16).collect();
                for half in [0..NT, NT..n] {
                    let half = &mut part[half];
                    for i in (1..half.len()).rev() {
                        half.swap(i, rng.next_u64() as usize % (i + 1));
                    }
                }
                let u: std::vec::Vec<u32> = (0..NT).map(|_| rng.next_u64() as u32).collect();
                let (mut small, mut any) = (part.clone(), part);
                let (mut log_small, mut log_any) = (LogProb::new(), LogProb::new());
                merge_small::<true, NT, NB>(&mut small, &u, w, &mut log_small);
                let (mut moved, mut counts) = ([0u16; NT], [0u16; NT]);
                let mut b = MergeBuffers {
                    moved: &mut moved,
                    counts: &mut counts,
                };
                merge_any::<true>(&mut any, NT, &u, w, &mut b, &mut log_any);
                assert_eq!(small, any, "{NT} + {NB}, uniforms {u:?}");
                assert_eq!(
                    log_small.value().to_bits(),
                    log_any.value().to_bits(),
                    "{NT} + {NB}"
                );
            }
        }
        let mut rng = Rng::new(9);
        check::<3, 3>(&mut rng);
        check::<3, 4>(&mut rng);
        check::<4, 4>(&mut rng);
    }

    /// Long lists (merges of every shape, ten levels): permutations, and each sample's own
    /// log-probability is the one the generic walk replays.
    #[test]
    fn long_lists_give_permutations_with_their_replayed_probability() {
        for n in [17, 100, 1000] {
            let dims = Dims::new(n, 2, 1);
            let mut mem = vec![0u8; Ppg::bytes(dims)];
            let mut ppg = Ppg::new(&mut mem, dims, 5).unwrap();
            ppg.start(n, 2, 0.5).unwrap();
            let mut rng = Rng::new(n as u64);
            for _ in 0..n {
                let (a, b) = (rng.next_u64() as usize % n, rng.next_u64() as usize % n);
                if a != b {
                    let w = rng.unit_f64() as f32;
                    ppg.set_weight((a + b) % 2, a, b, w).unwrap();
                }
            }
            let mut out = vec![0u16; 2 * n];
            for _ in 0..3 {
                let log_p = ppg.sample(SamplerMode::Uncorrected, &mut out).unwrap();
                for block in out.chunks(n) {
                    let mut seen = vec![false; n];
                    for &item in block {
                        assert!(!core::mem::replace(&mut seen[usize::from(item)], true));
                    }
                }
                let replayed = ppg.log_prob(SamplerMode::Uncorrected, &out).unwrap();
                assert!(
                    (replayed - log_p).abs() <= 1e-9 * log_p.abs().max(1.0),
                    "n {n}"
                );
            }
        }
    }

    /// The branch-free sampler against the generic walk in uncorrected mode, on 20 items
    /// (four leaves of 5 from their tables, merges of 5 + 5 and 10 + 10 on the general path)
    /// with weights up to 0.98 (long passes) and a forbidden pair inside a leaf.
    /// Two samples of N = 100,000: each pair's inversion frequencies differ by less than
    /// z = 4.6 standard errors, a two-sided level of 0.001 over the 190 pairs (Bonferroni).
    #[test]
    fn draws_the_distribution_of_the_generic_walk() {
        const N: usize = 100_000;
        let n = 20;
        let dims = Dims::new(n, 1, 1);
        let mut mem = vec![0u8; Ppg::bytes(dims)];
        let mut ppg = Ppg::new(&mut mem, dims, 7).unwrap();
        ppg.start(n, 1, 0.5).unwrap();
        let mut rng = Rng::new(3);
        for a in 0..n {
            for b in a + 1..n {
                let w = 0.02 + 0.96 * rng.unit_f64() as f32;
                ppg.set_weight(0, a, b, w).unwrap();
            }
        }
        ppg.forbid(3, 15).unwrap();
        ppg.forbid(6, 9).unwrap();
        let fast = inversions(n, N, |out| {
            ppg.sample(SamplerMode::Uncorrected, out).unwrap();
        });
        let mut walk_rng = Rng::new(11);
        let generic = inversions(n, N, |out| {
            for (k, slot) in out.iter_mut().enumerate() {
                *slot = k as u16;
            }
            let mut parts = ppg.sampler.walk_parts(SamplerMode::Uncorrected);
            let mut draw = Draw::<false>::new(&mut walk_rng);
            merge::walk_block(
                out,
                parts.schedule,
                ppg.dist.weights_of(0),
                SamplerMode::Uncorrected,
                &mut parts.scratch,
                &mut draw,
            );
        });
        let mut worst: f64 = 0.0;
        for a in 0..n {
            for b in a + 1..n {
                let (p, q) = (fast[a * n + b], generic[a * n + b]);
                let pooled = (p + q) / 2.0;
                let se = (2.0 * pooled * (1.0 - pooled) / N as f64).sqrt();
                if se == 0.0 {
                    assert_eq!(p, q, "pair ({a}, {b})");
                    continue;
                }
                let z = (p - q).abs() / se;
                worst = worst.max(z);
                assert!(z < 4.6, "pair ({a}, {b}): {p} vs {q}, z = {z}");
            }
        }
        assert_eq!(fast[3 * n + 15], 0.0, "a forbidden pair was inverted");
        std::println!("largest z over 190 pairs: {worst:.2}");
    }
}
