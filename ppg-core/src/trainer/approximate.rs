//! The paper's approximate gradient step (Eq. 8) as the hot loop it is: for every item pair,
//! E (the summed shares of the samples that invert it against the reference) from subset-sum
//! tables over bit masks of samples, then `w -= lr (E - w C) / (w (1 - w))` in vector lanes.
//! It reads a batch of rankings and writes one session's weights; it knows nothing of the
//! engine. [`clamp`] is the step's clamp, shared with the exact gradient.
//!
//! Uses the recipe of `config` and the constraint bits of `pairs`.

use super::config::TrainConfig;
use crate::pairs::PairBits;

/// Samples per pass of [`inverted_shares`]: a sample mask of two bytes, a table per byte.
const PASS: usize = 16;

/// A sample's place of an item, offset into a signed lane, as SSE2 compares only signed
/// lanes. Bytes when the list is short enough: a pass of an item's row is then one vector.
pub(super) trait Key: Copy + Ord + bytemuck::Pod {
    /// Places `0..PLACES` have a key.
    const PLACES: usize;
    /// Order-preserving.
    fn of(place: usize) -> Self;
}

impl Key for i8 {
    const PLACES: usize = 1 << 8;
    fn of(place: usize) -> Self {
        (place as u8).wrapping_sub(0x80) as i8
    }
}

impl Key for i16 {
    const PLACES: usize = 1 << 16;
    fn of(place: usize) -> Self {
        (place as u16).wrapping_sub(0x8000) as i16
    }
}

/// E of every item pair of one session, into `out` in packed order: the sum of the shares
/// of the samples that order the pair against the reference.
///
/// `rank[x]` is the place of item `x` in the reference and `rankings` yields the session's
/// block of each of the `shares.len()` samples; `keys`, `n * batch` long, is scratch.
pub(super) fn inverted_shares<'r, K: Key>(
    keys: &mut [K],
    rank: &[u16],
    rankings: impl Iterator<Item = &'r [u16]>,
    shares: &[f32],
    sums: &mut SubsetSums,
    out: &mut [f32],
) {
    let (n, batch) = (rank.len(), shares.len());
    debug_assert!(n <= K::PLACES);
    // A block per pass: for the samples start..start + width, keys[start * n + x * width + k]
    // is where sample start + k puts item x, so that a pass's row of an item is contiguous.
    let mut rankings = rankings;
    for start in (0..batch).step_by(PASS) {
        let width = PASS.min(batch - start);
        let block = &mut keys[start * n..(start + width) * n];
        for (k, ranking) in (&mut rankings).take(width).enumerate() {
            let column = &mut block[k..];
            let mut put =
                |place: usize, item: u16| column[usize::from(item) * width] = K::of(place);
            // Four at a time: a bounds-checked store has two exits, so LLVM does not unroll.
            let mut fours = ranking.chunks_exact(4);
            for (c, four) in (&mut fours).enumerate() {
                for (j, &item) in four.iter().enumerate() {
                    put(4 * c + j, item);
                }
            }
            let done = ranking.len() / 4 * 4;
            for (j, &item) in fours.remainder().iter().enumerate() {
                put(done + j, item);
            }
        }
    }
    out.fill(0.0);
    // Folded to constants, the bit weights differ lane by lane and LLVM compares the lanes
    // one at a time; opaque, they are one vector AND, and the byte sums become psadbw.
    let weights = core::hint::black_box(u128::from_le_bytes(BIT_WEIGHTS)).to_le_bytes();
    for start in (0..batch).step_by(PASS) {
        let width = PASS.min(batch - start);
        sums.load(start, &shares[start..start + width]);
        let block = &keys[start * n..(start + width) * n];
        if width == PASS {
            // The same call with a constant width, which makes the rows fixed vectors.
            add_pass(block, PASS, rank, sums, &weights, out);
        } else {
            add_pass(block, width, rank, sums, &weights, out);
        }
    }
}

/// `1 << k` for each sample `k` of a byte of the mask.
const BIT_WEIGHTS: [u8; PASS] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];

/// Sums of every subset of the shares of one pass's samples, a table per byte of the mask
/// that names the subset: E of a pair is then two loads and an add, where summing its
/// samples one by one costs a compare, a mask and an add for each.
pub(super) struct SubsetSums<'t> {
    /// Two tables of 256, from the engine's memory (2 KiB is much for a small stack).
    bytes: &'t mut [[f32; 256]; 2],
    /// First sample of the loaded pass; the shares do not change within a step, so the
    /// tables of a single pass are built once for all sessions.
    start: usize,
}

impl<'t> SubsetSums<'t> {
    pub(super) fn new(bytes: &'t mut [[f32; 256]; 2]) -> Self {
        SubsetSums {
            bytes,
            start: usize::MAX,
        }
    }

    /// Tables for the samples `start..start + shares.len()`, at most [`PASS`] of them.
    fn load(&mut self, start: usize, shares: &[f32]) {
        if self.start == start {
            return;
        }
        self.start = start;
        // The empty subsets: a pass of at most 8 samples reads entry 0 of the second table,
        // and the tables' memory holds the exact gradient between approximate steps.
        for table in self.bytes.iter_mut() {
            table[0] = 0.0;
        }
        // Doubling rather than one add per entry from its lowest bit: each round is a
        // straight vector loop, and entry m still sums its shares from the lowest bit up.
        for (table, shares) in self.bytes.iter_mut().zip(shares.chunks(8)) {
            for (k, &c) in shares.iter().enumerate() {
                let (done, next) = table.split_at_mut(1 << k);
                for (sum, &base) in next.iter_mut().zip(done.iter()) {
                    *sum = base + c;
                }
            }
        }
    }
}

/// Adds one pass's share of E to every pair; `block` is the pass's rows, `width` long.
#[inline(always)]
fn add_pass<K: Key>(
    block: &[K],
    width: usize,
    rank: &[u16],
    sums: &SubsetSums,
    weights: &[u8; PASS],
    out: &mut [f32],
) {
    let all = (1u32 << width) - 1;
    let all = [all & 0xff, all >> 8];
    let (mut rows, mut rank, mut out) = (block.chunks_exact(width), rank, out);
    while let (Some(px), Some((&rx, later_rank))) = (rows.next(), rank.split_first()) {
        let (row, rest) = core::mem::take(&mut out).split_at_mut(later_rank.len());
        for ((e, py), &ry) in row.iter_mut().zip(rows.clone()).zip(later_rank) {
            let (lo, hi) = pass_bytes(px, py, weights);
            // The mask has the samples that put x first: inversions when the reference
            // puts y first, the complement when it puts x first.
            let flip = 0u32.wrapping_sub(u32::from(rx < ry));
            let (lo, hi) = (lo ^ (flip & all[0]), hi ^ (flip & all[1]));
            *e += sums.bytes[0][lo as usize] + sums.bytes[1][hi as usize];
        }
        (rank, out) = (later_rank, rest);
    }
}

/// The two bytes of the mask of the samples with `earlier[k] < later[k]`, for at most
/// [`PASS`] samples, given each sample's bit weight. Each byte is a sum of distinct bits:
/// psadbw, not a shift and OR per lane.
#[inline(always)]
fn pass_bytes<K: Key>(earlier: &[K], later: &[K], weights: &[u8; PASS]) -> (u32, u32) {
    let mut bits = [0u8; PASS];
    for (((bit, a), b), w) in bits.iter_mut().zip(earlier).zip(later).zip(weights) {
        *bit = w & 0u8.wrapping_sub(u8::from(a < b));
    }
    let (lo, hi) = bits.split_at(8);
    let sum = |half: &[u8]| half.iter().fold(0u8, |s, &b| s.wrapping_add(b));
    (u32::from(sum(lo)), u32::from(sum(hi)))
}

/// One session's step `w -= lr (E - w C) / (w (1 - w))` on every free pair, eight pairs
/// (a byte of frozen flags) at a time so that the divisions and clamps are vector lanes.
pub(super) fn descend(
    weights: &mut [f32],
    inverted: &[f32],
    frozen: &PairBits,
    c_all: f32,
    config: &TrainConfig,
) {
    const LANES: usize = 8;
    let lanes = weights
        .chunks_exact_mut(LANES)
        .zip(inverted.chunks_exact(LANES));
    for (c, (w, e)) in lanes.enumerate() {
        let flags = frozen.byte(c);
        for k in 0..LANES {
            w[k] = descended(w[k], e[k], flags & 1 << k != 0, c_all, config);
        }
    }
    let tail = weights.len() / LANES * LANES;
    for (pair, (w, &e)) in weights.iter_mut().zip(inverted).enumerate().skip(tail) {
        *w = descended(*w, e, frozen.get(pair), c_all, config);
    }
}

#[inline(always)]
fn descended(w: f32, inverted: f32, frozen: bool, c_all: f32, config: &TrainConfig) -> f32 {
    let spread = w * (1.0 - w);
    // Computed even when unused, so that the lanes have no branches.
    let next = clamp(
        w - config.learning_rate * ((inverted - w * c_all) / spread),
        config,
    );
    // At exactly 0 or 1 the approximate score is 0/0: left alone.
    if !frozen && spread > 0.0 {
        next
    } else {
        w
    }
}

/// `w` held to `[clamp_min, clamp_max]`; NaN and `w <= 0` give `clamp_min`.
pub(super) fn clamp(w: f32, config: &TrainConfig) -> f32 {
    // Two selects and no branch, so that the lanes of `descend` vectorise.
    let below_max = if w < config.clamp_max {
        w
    } else {
        config.clamp_max
    };
    if w > 0.0 {
        below_max
    } else {
        config.clamp_min
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::distribution::locate;
    use crate::pairs;
    use crate::Rng;
    use std::vec;
    use std::vec::Vec;

    fn permutation(rng: &mut Rng, n: usize) -> Vec<u16> {
        let mut p: Vec<u16> = (0..n as u16).collect();
        for i in (1..n).rev() {
            p.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
        }
        p
    }

    /// E straight from its definition: over reference positions i < j, the shares of the
    /// samples that put the item at j before the item at i.
    fn plain_shares(reference: &[u16], rankings: &[Vec<u16>], shares: &[f32]) -> Vec<f64> {
        let n = reference.len();
        let mut out = vec![0.0; pairs::count(n)];
        let places: Vec<Vec<u16>> = rankings
            .iter()
            .map(|ranking| {
                let mut place = vec![0; n];
                locate(ranking, &mut place);
                place
            })
            .collect();
        for i in 0..n {
            for j in i + 1..n {
                let (x, y) = (reference[i] as usize, reference[j] as usize);
                for (place, &share) in places.iter().zip(shares) {
                    if place[y] < place[x] {
                        out[pairs::index(x, y, n)] += f64::from(share);
                    }
                }
            }
        }
        out
    }

    fn check_shares<K: Key>(n: usize, batch: usize, seed: u64) {
        let mut rng = Rng::new(seed);
        let reference = permutation(&mut rng, n);
        let rankings: Vec<Vec<u16>> = (0..batch).map(|_| permutation(&mut rng, n)).collect();
        let shares: Vec<f32> = (0..batch)
            .map(|_| (rng.unit_f64() * 2.0 - 1.0) as f32)
            .collect();
        let mut rank = vec![0; n];
        locate(&reference, &mut rank);
        let mut keys = vec![K::zeroed(); n * batch];
        let mut out = vec![f32::NAN; pairs::count(n)];
        let blocks = rankings.iter().map(Vec::as_slice);
        inverted_shares(
            &mut keys,
            &rank,
            blocks,
            &shares,
            &mut SubsetSums::new(&mut [[0.0; 256]; 2]),
            &mut out,
        );
        let scale: f64 = shares.iter().map(|&c| f64::from(c.abs())).sum();
        let plain = plain_shares(&reference, &rankings, &shares);
        for (pair, (&got, &want)) in out.iter().zip(&plain).enumerate() {
            assert!(
                (f64::from(got) - want).abs() <= 1e-5 * scale,
                "n {n}, batch {batch}, pair {pair}: {got} against {want}"
            );
        }
    }

    #[test]
    fn inverted_shares_match_the_definition() {
        for batch in [1, 3, 8, 16, 17, 33] {
            for n in [1, 2, 5, 20] {
                check_shares::<i8>(n, batch, (n * 100 + batch) as u64);
                check_shares::<i16>(n, batch, (n * 100 + batch) as u64);
            }
            check_shares::<i8>(256, batch, batch as u64);
            check_shares::<i16>(300, batch, batch as u64);
        }
    }

    fn reference_clamp(w: f32, config: &TrainConfig) -> f32 {
        if w.is_nan() || w <= 0.0 {
            config.clamp_min
        } else if w >= config.clamp_max {
            config.clamp_max
        } else {
            w
        }
    }

    #[test]
    fn descend_matches_the_scalar_rule() {
        let mut rng = Rng::new(7);
        let config = TrainConfig::default();
        for n in [2, 5, 7, 9, 20] {
            let count = pairs::count(n);
            let mut words = vec![0u32; count.div_ceil(32)];
            let frozen_pairs: Vec<usize> = (0..count).filter(|_| rng.next_u64() % 4 == 0).collect();
            let mut frozen = PairBits { words: &mut words };
            for &pair in &frozen_pairs {
                frozen.set(pair);
            }
            let weights: Vec<f32> = (0..count)
                .map(|pair| match pair % 11 {
                    0 => 0.0,
                    1 => 1.0,
                    _ => rng.unit_f64() as f32,
                })
                .collect();
            let inverted: Vec<f32> = (0..count)
                .map(|_| (rng.unit_f64() * 4.0 - 2.0) as f32)
                .collect();
            let c_all = 0.3;
            let mut got = weights.clone();
            descend(&mut got, &inverted, &frozen, c_all, &config);
            for pair in 0..count {
                let w = weights[pair];
                let spread = w * (1.0 - w);
                let want = if !frozen.get(pair) && spread > 0.0 {
                    let g = (inverted[pair] - w * c_all) / spread;
                    reference_clamp(w - config.learning_rate * g, &config)
                } else {
                    w
                };
                assert_eq!(got[pair].to_bits(), want.to_bits(), "n {n}, pair {pair}");
            }
        }
    }

    #[test]
    fn clamp_matches_the_branching_rule() {
        let config = TrainConfig::default();
        for w in [
            f32::NAN,
            -1.0,
            -0.0,
            0.0,
            0.01,
            0.05,
            0.5,
            0.95,
            0.96,
            1.0,
            2.0,
            f32::INFINITY,
        ] {
            assert_eq!(
                clamp(w, &config).to_bits(),
                reference_clamp(w, &config).to_bits()
            );
        }
    }
}
