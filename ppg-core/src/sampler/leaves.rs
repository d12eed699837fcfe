//! Outcome tables of a block's smallest sub-blocks, for the uncorrected sampler.
//!
//! The merge sampler orders a block bottom-up, and the first merges it does are inside
//! sub-blocks of at most 5 positions (a 20-item block has 4 of them, 16 of its 19 merges).
//! Such a sub-block, a *leaf*, has at most 5! = 120 orders. While the weights stay the same,
//! each leaf's orders and their probabilities under the uncorrected sampler are listed once;
//! a draw then orders a leaf with one uniform and a branch-free search of its cumulative
//! probabilities (kept as 32-bit bounds, so that the uniform is compared as drawn), instead
//! of up to 4 merges and their coin flips. The rest of the block is merged as before, and
//! the outcome has exactly the merge sampler's distribution: a leaf's order is independent
//! of every other leaf and of what happens above it.
//!
//! A leaf's uniform has 32 bits, like the merges' uniforms. The probabilities are single
//! precision (the Cortex-M4F's FPU has no double precision, and a draw needs no more), the
//! bounds are their running sums scaled to `2^32` and rounded to a multiple of `2^9`: each
//! order's probability is realised to within `2^-23` of the leaf's total, and an order of
//! probability 0 (an empty interval) is never drawn.
//!
//! It stays whole (over 400 lines): the order numbering, the table build and the draw share
//! the same compile-time tables and must agree to the bit; a third of it is their tests.
//!
//! Uses `log_prob` and the position-indexed weights of `pairs`.

use super::log_prob::LogProb;
use crate::pairs::ByPosition;

/// Positions in a leaf at most.
pub(crate) const MAX_LEAF: usize = 5;
/// Orders of a leaf at most: `MAX_LEAF!`.
pub(crate) const OUTCOMES: usize = 120;
/// Bounds a draw searches: `OUTCOMES` rounded up to a power of two.
pub(crate) const SEARCH: usize = 128;

/// Leaves of an `n`-item block, which is also the most a block of at most `n` items has
/// (the count never falls as `n` grows: a test checks every `n` up to `MAX_ITEMS`).
pub(crate) const fn leaves_for(n: usize) -> usize {
    // The blocks at one depth have two sizes, `small` and `small + 1`: counting both keeps
    // this O(log n), also for the absurd shapes `Ppg::bytes` must size without hanging.
    let (mut small, mut smalls, mut bigs) = (n, 1usize, 0usize);
    let mut leaves = 0usize;
    loop {
        if small < MAX_LEAF {
            return leaves.saturating_add(smalls).saturating_add(bigs);
        }
        if small == MAX_LEAF {
            // The blocks of 5 are leaves; those of 6 split into two of 3.
            leaves = leaves.saturating_add(smalls);
            (small, smalls, bigs) = (3, bigs.saturating_mul(2), 0);
            continue;
        }
        (small, smalls, bigs) = if small % 2 == 0 {
            // 2q -> q + q, 2q + 1 -> q + (q + 1).
            (
                small / 2,
                smalls.saturating_mul(2).saturating_add(bigs),
                bigs,
            )
        } else {
            // 2q + 1 -> q + (q + 1), 2q + 2 -> (q + 1) + (q + 1).
            (
                small / 2,
                smalls,
                smalls.saturating_add(bigs.saturating_mul(2)),
            )
        };
    }
}

/// Fills `spans` with the `[lo, hi)` of the leaves of an `n`-item block, split as
/// `sampler::fill_schedule` splits it, left to right; returns how many.
pub(crate) fn fill_spans(n: usize, spans: &mut [[u16; 2]]) -> usize {
    fn visit(lo: usize, hi: usize, spans: &mut [[u16; 2]], k: &mut usize) {
        if hi - lo <= MAX_LEAF {
            // Positions are below 2^16 (`MAX_ITEMS`).
            spans[*k] = [lo as u16, hi as u16];
            *k += 1;
            return;
        }
        let mid = lo + (hi - lo) / 2;
        visit(lo, mid, spans, k);
        visit(mid, hi, spans, k);
    }
    let mut k = 0;
    visit(0, n, spans, &mut k);
    k
}

/// The outcome tables of one session's leaves, one entry per leaf. Order `i` of a leaf of
/// `m` positions is `order(m, i)`.
pub(crate) struct Tables<'a> {
    /// `bounds[i]` is `2^32` times the probability of orders `0..=i`, rounded and
    /// held to `u32::MAX`, which is also every entry past the last order: a draw's key is
    /// below it, so that a fixed-length search never stops there.
    pub bounds: &'a mut [[u32; SEARCH]],
    pub probs: &'a mut [[f32; OUTCOMES]],
}

impl Tables<'_> {
    /// The tables of leaves `range`.
    pub(crate) fn part(&mut self, range: core::ops::Range<usize>) -> Tables<'_> {
        Tables {
            bounds: &mut self.bounds[range.clone()],
            probs: &mut self.probs[range],
        }
    }
}

/// Orders of `m` positions.
const FACTORIAL: [usize; MAX_LEAF + 1] = [1, 1, 2, 6, 24, 120];

/// Slots a leaf's draw writes: its own, then slots that the next leaf overwrites or that
/// lie in the slack after the block. Eight `u16` are one vector: the write is one store.
pub(crate) const PADDED: usize = 8;

/// Where the orders of a leaf of `m` start in `ORDERS`: sums of the smaller factorials.
const FIRST: [usize; MAX_LEAF + 1] = {
    let mut first = [0; MAX_LEAF + 1];
    let mut m = 1;
    while m <= MAX_LEAF {
        first[m] = first[m - 1] + FACTORIAL[m - 1];
        m += 1;
    }
    first
};

/// Orders of all leaf sizes.
const ALL_ORDERS: usize = FIRST[MAX_LEAF] + FACTORIAL[MAX_LEAF];

/// `ORDERS[FIRST[m] + i][s]` is the position at slot `s` of order `i` of a leaf of `m`.
/// The orders depend only on `m`, so they are listed at compile time; `merge_probs` lists
/// their probabilities in the same sequence: for each order of the top half, each order of
/// the bottom half, each outcome of their merge.
static ORDERS: [[u16; PADDED]; ALL_ORDERS] = orders_table();

/// Order `i` of a leaf of `m` positions.
fn order(m: usize, i: usize) -> &'static [u16; PADDED] {
    &ORDERS[FIRST[m] + i]
}

const fn orders_table() -> [[u16; PADDED]; ALL_ORDERS] {
    let mut table = [[0u16; PADDED]; ALL_ORDERS];
    let mut m = 2;
    while m <= MAX_LEAF {
        let (nt, nb) = (m / 2, m - m / 2);
        let mut e = FIRST[m];
        let mut a = FIRST[nt];
        while a < FIRST[nt] + FACTORIAL[nt] {
            let mut b = FIRST[nb];
            while b < FIRST[nb] + FACTORIAL[nb] {
                // Top items pass `counts[t]` bottom items, `counts` non-decreasing in `t`
                // (at most 2 top items in a leaf), in the order `merge_probs` follows.
                let mut k1 = 0;
                while k1 <= nb {
                    let mut k0 = 0;
                    while k0 <= if nt == 2 { k1 } else { 0 } {
                        let counts = if nt == 2 { [k0, k1] } else { [k1, 0] };
                        let mut t = 0;
                        while t < nt {
                            table[e][t + counts[t]] = table[a][t];
                            t += 1;
                        }
                        let mut i = 0;
                        while i < nb {
                            let mut above = i;
                            let mut t = 0;
                            while t < nt {
                                above += (counts[t] <= i) as usize;
                                t += 1;
                            }
                            table[e][above] = nt as u16 + table[b][i];
                            i += 1;
                        }
                        e += 1;
                        k0 += 1;
                    }
                    k1 += 1;
                }
                b += 1;
            }
            a += 1;
        }
        m += 1;
    }
    table
}

/// Probabilities of the orders of the `m <= 5` positions from `lo` under the uncorrected
/// merge sampler, in `ORDERS` sequence, into `out`.
fn orders(lo: usize, m: usize, w: ByPosition, out: &mut [f32]) {
    match m {
        2 => merge_probs::<1, 1>(lo, w, out),
        3 => merge_probs::<1, 2>(lo, w, out),
        4 => merge_probs::<2, 2>(lo, w, out),
        5 => merge_probs::<2, 3>(lo, w, out),
        _ => out[0] = 1.0,
    }
}

/// [`orders`] of a leaf that splits into `NT` top and `NB` bottom positions.
#[inline(always)]
fn merge_probs<const NT: usize, const NB: usize>(lo: usize, w: ByPosition, out: &mut [f32]) {
    // A half of a leaf has at most 3 positions: 6 orders.
    let (mut top, mut bottom) = ([0.0; 6], [0.0; 6]);
    orders(lo, NT, w, &mut top);
    orders(lo + NT, NB, w, &mut bottom);
    // The weights across the halves, read once: `across[x][y]` for the top half's
    // position `lo + x` and the bottom half's `lo + NT + y`.
    let mut across = [[0.0f32; 3]; 2];
    for (x, row) in across.iter_mut().enumerate().take(NT) {
        let start = w.rows[lo + x];
        for (y, p) in row.iter_mut().enumerate().take(NB) {
            *p = w.w[start.wrapping_add((lo + NT + y) as u32) as usize];
        }
    }
    let count = const { binomial(NT + NB, NT) };
    let outcomes = const { merge_outcomes(NT, NB) };
    let mut chunks = out.chunks_exact_mut(count);
    for (a, &top_p) in top[..FACTORIAL[NT]].iter().enumerate() {
        let top_order = order(NT, a);
        for (b, &bottom_p) in bottom[..FACTORIAL[NB]].iter().enumerate() {
            let bottom_order = order(NB, b);
            // Top item t stops before bottom item i (`stop[t][i]`) after passing all
            // before it (`reach[t][i]`); `stop[t][NB]` is passing them all.
            let mut reach = [[1.0f32; 4]; 2];
            let mut stop = [[1.0f32; 4]; 2];
            for t in 0..NT {
                let weights = &across[usize::from(top_order[t])];
                for i in 0..NB {
                    let p = weights[usize::from(bottom_order[i])];
                    stop[t][i] = reach[t][i] * (1.0 - p);
                    reach[t][i + 1] = reach[t][i] * p;
                }
                stop[t][NB] = reach[t][NB];
            }
            // Factors of top item 0 (when there are 2): stopping before bottom item i is
            // `g[i]`, passing as far as top item 1 (k items) is `g[4 + k]`; `g[8]` is 1.
            let mut g = [1.0f32; 9];
            if NT == 2 {
                g[..NB].copy_from_slice(&stop[0][..NB]);
                g[4..=4 + NB].copy_from_slice(&reach[0][..=NB]);
            }
            let last = &stop[NT - 1];
            let base = top_p * bottom_p;
            let Some(chunk) = chunks.next() else {
                return;
            };
            for (slot, &[k, j]) in chunk.iter_mut().zip(&outcomes[..count]) {
                *slot = base * last[usize::from(k)] * g[usize::from(j)];
            }
        }
    }
}

const fn binomial(n: usize, k: usize) -> usize {
    FACTORIAL[n] / (FACTORIAL[k] * FACTORIAL[n - k])
}

/// The outcomes of a merge of `nt <= 2` top into `nb <= 3` bottom positions in `ORDERS`
/// sequence, each as `[k, j]`: the last top item passes `k` bottom items, the first one's
/// factor is `g[j]` (see `merge_probs`).
const fn merge_outcomes(nt: usize, nb: usize) -> [[u8; 2]; 10] {
    let mut out = [[0u8; 2]; 10];
    let mut e = 0;
    let mut k1 = 0;
    while k1 <= nb {
        if nt == 1 {
            out[e] = [k1 as u8, 8];
            e += 1;
        } else {
            let mut k0 = 0;
            while k0 <= k1 {
                let j = if k0 < k1 { k0 } else { 4 + k1 };
                out[e] = [k1 as u8, j as u8];
                e += 1;
                k0 += 1;
            }
        }
        k1 += 1;
    }
    out
}

/// Lists the orders of every leaf in `spans` under the weights `w`, into `tables`.
pub(crate) fn build(spans: &[[u16; 2]], w: ByPosition, tables: &mut Tables) {
    for (k, &[lo, hi]) in spans.iter().enumerate() {
        let count = FACTORIAL[usize::from(hi - lo)];
        let probs = &mut tables.probs[k];
        orders(usize::from(lo), usize::from(hi - lo), w, probs);
        // The sums first, then the bounds in a loop of their own, which is vector code.
        let mut sums = [0.0f32; OUTCOMES];
        let mut sum = 0.0;
        for (&p, c) in probs[..count].iter().zip(sums.iter_mut()) {
            sum += p;
            *c = sum;
        }
        let bounds = &mut tables.bounds[k];
        // A sum of single-precision values has 24 significant bits, so the bounds are
        // multiples of 2^9: `k << 9`, `k` the sum scaled to 2^23 and rounded to an integer
        // by adding 2^23 (whose ulp is 1) and reading the bits, vector code on x86 and the
        // M4F alike (a float to `u32` conversion is neither on x86). The last possible order
        // ends at 2^32, held to `u32::MAX`, whatever the rounding of the sum; so do the
        // impossible orders after it, whose sums equal its own.
        const TWO_23: f32 = 8_388_608.0;
        let scale = TWO_23 / sum;
        for (&c, b) in sums[..count].iter().zip(bounds.iter_mut()) {
            let k = ((c * scale + TWO_23).to_bits() - TWO_23.to_bits()).min((1 << 23) - 1);
            *b = if c < sum { k << 9 } else { u32::MAX };
        }
        bounds[count..].fill(u32::MAX);
    }
}

/// Orders leaf `k` of a block at `seg[lo..hi]` with the uniform `u`, overwriting
/// `seg[hi..lo + PADDED]`.
///
/// The key is `u` held below `u32::MAX`, so that it is below the last possible order's
/// bound (`u32::MAX`, standing for `2^32`); `u == u32::MAX` falls in that order's interval,
/// as it would with the exact bound.
#[inline(always)]
pub(crate) fn draw<const TRACK: bool>(
    seg: &mut [u16],
    [lo, hi]: [u16; 2],
    k: usize,
    u: u32,
    tables: &Tables,
    log: &mut LogProb,
) {
    let m = usize::from(hi - lo);
    let bounds = &tables.bounds[k];
    let key = u.min(u32::MAX - 1);
    // The key is below the last order's bound, so the search ends on an order of the leaf;
    // the bound is for safety.
    let i = search(bounds, key).min(FACTORIAL[m] - 1);
    let [a, b, c, d, e, f, g, h] = *order(m, i);
    let start = usize::from(lo);
    seg[start..start + PADDED].copy_from_slice(&[
        a + lo,
        b + lo,
        c + lo,
        d + lo,
        e + lo,
        f + lo,
        g + lo,
        h + lo,
    ]);
    if TRACK {
        log.times_single(tables.probs[k][i]);
    }
}

/// How many of `bounds` are at most `key`, a branch-free binary search.
///
/// Its seven steps and the slots above are written out: at the firmware's opt-level "s"
/// the compiler keeps loops rolled, and the loops cost 11 and 6 instructions a step
/// against 5 and 3 (QEMU: 1,150 fewer instructions in a 4 x 20 sample of 9,700).
#[inline(always)]
fn search(bounds: &[u32; SEARCH], key: u32) -> usize {
    const _: () = assert!(SEARCH == 128, "seven steps search 128 bounds");
    let mut i = usize::from(bounds[63] <= key) * 64;
    i += usize::from(bounds[i + 31] <= key) * 32;
    i += usize::from(bounds[i + 15] <= key) * 16;
    i += usize::from(bounds[i + 7] <= key) * 8;
    i += usize::from(bounds[i + 3] <= key) * 4;
    i += usize::from(bounds[i + 1] <= key) * 2;
    i + usize::from(bounds[i] <= key)
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::{Dims, Ppg, Rng, SamplerMode};
    use std::vec;

    /// `leaves_for` counts what `fill_spans` lists, and never falls as `n` grows, so that
    /// tables laid out for a capacity hold any shorter query's leaves.
    #[test]
    fn leaf_counts_grow_with_the_list() {
        let mut spans = vec![[0u16; 2]; leaves_for(crate::MAX_ITEMS)];
        let mut most = 0;
        for n in 1..=crate::MAX_ITEMS {
            let count = leaves_for(n);
            assert!(count >= most, "n {n}");
            most = count;
            if n <= 3000 || n % 997 == 0 || n == crate::MAX_ITEMS {
                assert_eq!(fill_spans(n, &mut spans), count, "n {n}");
            }
        }
        // Shapes far beyond the capacity only need an answer, and a bound.
        assert!(leaves_for(usize::MAX) <= usize::MAX / 3 + 1);
    }

    /// Every listed order of every leaf size is a permutation, and no order is listed twice.
    #[test]
    fn orders_are_distinct_permutations() {
        for m in 1..=MAX_LEAF {
            let orders: std::vec::Vec<_> = (0..FACTORIAL[m]).map(|i| order(m, i)).collect();
            for order in &orders {
                let mut seen = [false; MAX_LEAF];
                for &p in &order[..m] {
                    assert!(
                        !core::mem::replace(&mut seen[usize::from(p)], true),
                        "m {m}"
                    );
                }
            }
            for (i, a) in orders.iter().enumerate() {
                assert!(orders[i + 1..].iter().all(|b| b != a), "m {m}");
            }
        }
    }

    /// A leaf's probabilities are those the generic walk replays for the same orders.
    #[test]
    fn probabilities_are_the_replayed_ones() {
        let n = 5;
        let dims = Dims::new(n, 1, 1);
        let mut mem = vec![0u8; Ppg::bytes(dims)];
        let mut ppg = Ppg::new(&mut mem, dims, 1).unwrap();
        ppg.start(n, 1, 0.5).unwrap();
        let mut rng = Rng::new(8);
        for a in 0..n {
            for b in a + 1..n {
                ppg.set_weight(0, a, b, rng.unit_f64() as f32).unwrap();
            }
        }
        ppg.forbid(0, 4).unwrap();
        let mut out = [0u16; 5];
        ppg.sample(SamplerMode::Uncorrected, &mut out).unwrap();
        let (mut total, mut zero) = (0.0, 0);
        for i in 0..FACTORIAL[n] {
            let order = order(n, i);
            let p = f64::from(ppg.sampler.leaf_tables().probs[0][i]);
            let replayed = ppg.log_prob(SamplerMode::Uncorrected, &order[..n]).unwrap();
            // The table is single precision: a leaf's probability is a product of at most 10
            // factors, each rounded to 2^-24 relative, so its log is within 1e-5 of the
            // double-precision replay.
            assert!((libm::log(p) - replayed).abs() < 1e-5 || p == 0.0 && replayed.is_infinite());
            total += p;
            zero += usize::from(p == 0.0);
        }
        assert!((total - 1.0).abs() < 1e-5);
        // The forbidden pair: half of the orders put 4 before 0.
        assert_eq!(zero, 60);
    }

    /// Every key in an order's interval draws that order, and an impossible order is
    /// drawn by none, also when it ends the list: `u32::MAX` draws a possible order.
    #[test]
    fn keys_draw_the_order_of_their_interval() {
        let n = 5;
        let dims = Dims::new(n, 1, 1);
        let mut mem = vec![0u8; Ppg::bytes(dims)];
        let mut rng = Rng::new(4);
        let mut impossible_last = 0;
        for x in 0..n {
            for y in x + 1..n {
                let mut ppg = Ppg::new(&mut mem, dims, 1).unwrap();
                ppg.start(n, 1, 0.5).unwrap();
                for a in 0..n {
                    for b in a + 1..n {
                        let w = 0.05 + 0.9 * rng.unit_f64() as f32;
                        ppg.set_weight(0, a, b, w).unwrap();
                    }
                }
                ppg.forbid(x, y).unwrap();
                ppg.sample(SamplerMode::Uncorrected, &mut [0u16; 5])
                    .unwrap();
                let mut all = ppg.sampler.leaf_tables();
                let tables = all.part(0..1);
                let drawn = |u: u32| {
                    let mut seg = [0u16; PADDED];
                    draw::<false>(&mut seg, [0, 5], 0, u, &tables, &mut LogProb::new());
                    (0..OUTCOMES)
                        .position(|i| order(5, i)[..5] == seg[..5])
                        .unwrap()
                };
                let (probs, bounds) = (&tables.probs[0], &tables.bounds[0]);
                let mut start = 0;
                for i in 0..OUTCOMES {
                    let end = bounds[i];
                    if probs[i] == 0.0 {
                        assert_eq!(end, start, "forbidden ({x}, {y}), order {i}");
                    } else if end > start {
                        assert_eq!(drawn(start), i);
                        assert_eq!(drawn(end - 1), i);
                    }
                    start = end;
                }
                assert!(probs[drawn(u32::MAX)] > 0.0);
                impossible_last += usize::from(probs[OUTCOMES - 1] == 0.0);
            }
        }
        // Some forbidden pairs make the last listed order impossible: the edge is tested.
        assert!(impossible_last > 0);
    }

    /// `set_weight` after a draw updates the position copy and one leaf table in place;
    /// the result must equal a full rebuild, bit for bit.
    #[test]
    fn one_weight_update_equals_a_rebuild() {
        let (n, sessions) = (20, 2);
        let dims = Dims::new(n, sessions, 1);
        let mut mem = vec![0u8; Ppg::bytes(dims)];
        let mut ppg = Ppg::new(&mut mem, dims, 1).unwrap();
        ppg.start(n, sessions, 0.5).unwrap();
        let mut out = vec![0u16; n * sessions];
        let mut rng = Rng::new(5);
        for round in 0..40 {
            ppg.sample(SamplerMode::Uncorrected, &mut out).unwrap();
            let (a, b) = (rng.next_u64() as usize % n, rng.next_u64() as usize % n);
            if a == b {
                continue;
            }
            // Neighbours in the reference share a leaf more often than not.
            let b = if round % 2 == 0 { (a + 1) % n } else { b };
            ppg.set_weight(round % sessions, a, b, rng.unit_f64() as f32)
                .unwrap();
            let sampler = &mut ppg.sampler;
            let pairs = ppg.dist.pair_count() * sessions;
            let leaves = sampler.leaf_count * sessions;
            let by_position = sampler.by_position[..pairs].to_vec();
            let probs = sampler.leaf_tables().probs[..leaves].to_vec();
            let bounds = sampler.leaf_tables().bounds[..leaves].to_vec();
            sampler.invalidate();
            sampler.prepare_uncorrected(&ppg.dist);
            assert!(by_position == sampler.by_position[..pairs], "round {round}");
            assert!(
                probs == sampler.leaf_tables().probs[..leaves],
                "round {round}"
            );
            assert!(
                bounds == sampler.leaf_tables().bounds[..leaves],
                "round {round}"
            );
        }
    }
}
