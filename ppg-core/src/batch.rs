//! Uncorrected draws of [`LANES`] samples at once: lanes are samples.
//!
//! The samples of a training epoch come from one distribution. Drawn one at a time, each
//! merge decision is a branch on a near coin flip, and about half of a sample's time went
//! to mispredicting them (README, "Speed"). Drawn side by side, a decision is a lane of a
//! mask: every lane takes the same path through the code, the only data-dependent branch
//! left per top item being "has any lane passed this far", taken about as often as the
//! longest pass among the lanes.
//!
//! A lane draws the distribution of `uncorrected::draw_block`: its leaves from the same
//! outcome tables, then every merge above them, top item `t` passing bottom items
//! `0, 1, ...` while `u_t < w_0 ... w_i` and never further than top item `t + 1`.
//!
//! Positions are held position-major, `seg[p * LANES + l]` for position slot `p` of lane
//! `l`, so that one slot of every lane is one vector.
//!
//! Each lane has its own xoshiro256++ stream ([`LaneRng`]), stepped together as arrays,
//! which the compiler turns into vector code where the target has it. A stream is defined
//! per lane, so every target draws the same samples for a seed.

use crate::leaves::{self, Tables};
use crate::sampler::LogProb;
use crate::uncorrected::{ByPosition, Plan};
use crate::Rng;

/// Samples drawn side by side.
pub(crate) const LANES: usize = 8;

const SCALE: f64 = 1.0 / 4_294_967_296.0;

/// [`LANES`] xoshiro256++ generators, word `k` of lane `l` at `s[k][l]`.
pub(crate) struct LaneRng {
    s: [[u64; LANES]; 4],
}

impl LaneRng {
    /// Lane `l`'s state is the engine generator's next four words, lane 0 first: the state
    /// `rand_xoshiro::Xoshiro256PlusPlus::from_seed` makes of those words as little-endian
    /// bytes. (Four zero words, probability `2^-256`, would be a stuck state: word 0 then
    /// becomes 1.)
    pub(crate) fn from_rng(rng: &mut Rng) -> Self {
        let mut s = [[0u64; LANES]; 4];
        for l in 0..LANES {
            for word in s.iter_mut() {
                word[l] = rng.next_u64();
            }
            let zero = s.iter().all(|word| word[l] == 0);
            s[0][l] |= u64::from(zero);
        }
        LaneRng { s }
    }

    /// The next output of every lane.
    #[inline(always)]
    pub(crate) fn next(&mut self) -> [u64; LANES] {
        let [s0, s1, s2, s3] = &mut self.s;
        let mut out = [0u64; LANES];
        for l in 0..LANES {
            out[l] = s0[l]
                .wrapping_add(s3[l])
                .rotate_left(23)
                .wrapping_add(s0[l]);
            let t = s1[l] << 17;
            s2[l] ^= s0[l];
            s3[l] ^= s1[l];
            s1[l] ^= s2[l];
            s0[l] ^= s3[l];
            s2[l] ^= t;
            s3[l] = s3[l].rotate_left(45);
        }
        out
    }
}

/// Buffers for one block of `n` items in every lane.
pub(crate) struct LaneBuffers<'a> {
    /// The block's positions: `n * LANES`, plus `leaves::MAX_LEAF` slots of slack.
    pub seg: &'a mut [[u16; LANES]],
    /// A merge's positions before it: `n` slots.
    pub part: &'a mut [[u16; LANES]],
    /// How many bottom items each top item of a merge passed: `n / 2` slots.
    pub counts: &'a mut [[u16; LANES]],
    /// For each bottom item of a merge, the top items placed before it: `n - n / 2` slots.
    pub before: &'a mut [[u16; LANES]],
    /// The block's uniforms: `uncorrected::uniforms_for(n)` slots.
    pub uniforms: &'a mut [[u32; LANES]],
}

impl LaneBuffers<'_> {
    /// Slots of each buffer for blocks of at most `n` items, in field order.
    pub(crate) const fn slots(n: usize) -> [usize; 5] {
        [
            n.saturating_add(leaves::MAX_LEAF),
            n,
            n / 2,
            n - n / 2,
            crate::uncorrected::uniforms_for(n),
        ]
    }
}

/// The log-probability of each lane's sample so far.
pub(crate) type LaneLog = [LogProb; LANES];

/// Samples one block in every lane into `out`: its leaves from `tables`, then the merges of
/// `plan.schedule`, over positions; the last, the whole block's, writes the items.
pub(crate) fn draw_block<const TRACK: bool>(
    plan: Plan,
    w: ByPosition,
    tables: &Tables,
    b: &mut LaneBuffers,
    rng: &mut LaneRng,
    log: &mut LaneLog,
    out: Output,
) {
    let LaneBuffers {
        seg,
        part,
        counts,
        before,
        uniforms,
    } = b;
    let uniforms = &mut uniforms[..plan.leaves.len() + plan.tops];
    let mut pairs = uniforms.chunks_exact_mut(2);
    for pair in &mut pairs {
        let both = rng.next();
        for l in 0..LANES {
            pair[0][l] = both[l] as u32;
            pair[1][l] = (both[l] >> 32) as u32;
        }
    }
    if let [last] = pairs.into_remainder() {
        let one = rng.next();
        for l in 0..LANES {
            last[l] = one[l] as u32;
        }
    }
    let (mine, u) = uniforms.split_at(plan.leaves.len());
    for (k, (&span, u)) in plan.leaves.iter().zip(mine).enumerate() {
        draw_leaf::<TRACK>(seg, span, k, u, tables, log);
    }
    let mut u = u;
    let Some((&[_, top, _], below)) = plan.schedule.split_last() else {
        // A single leaf.
        for (p, positions) in seg[..out.reference.len()].iter().enumerate() {
            for (l, &position) in positions[..out.lanes].iter().enumerate() {
                out.rankings[l * out.stride + p] = out.reference[usize::from(position)];
            }
        }
        return;
    };
    for &[lo, mid, hi] in below {
        let (lo, mid, hi) = (usize::from(lo), usize::from(mid), usize::from(hi));
        let (mine, rest) = u.split_at(mid - lo);
        u = rest;
        merge::<TRACK>(lo, mid, hi, mine, w, seg, counts, log);
        let part = &mut part[..hi - lo];
        part.copy_from_slice(&seg[lo..hi]);
        let seg = &mut seg[lo..hi];
        place(part, &counts[..mid - lo], before, LANES, |slot, l, p| {
            seg[slot][l] = p;
        });
    }
    // The whole block's merge writes each lane's ranking, as items.
    let n = out.reference.len();
    merge::<TRACK>(0, usize::from(top), n, u, w, seg, counts, log);
    let Output {
        rankings,
        stride,
        lanes,
        reference,
    } = out;
    place(
        &seg[..n],
        &counts[..usize::from(top)],
        before,
        lanes,
        |slot, l, p| {
            rankings[l * stride + slot] = reference[usize::from(p)];
        },
    );
}

/// Where a block's rankings go: lane `l`'s at `rankings[l * stride..][..n]`, as the items of
/// `reference` (`n` of them), for lanes `0..lanes`.
pub(crate) struct Output<'o> {
    pub rankings: &'o mut [u16],
    pub stride: usize,
    pub lanes: usize,
    pub reference: &'o [u16],
}

/// Orders leaf `k`, `seg[lo..hi]`, in every lane: the search of `leaves::draw`, lane by
/// lane.
#[inline(always)]
fn draw_leaf<const TRACK: bool>(
    seg: &mut [[u16; LANES]],
    [lo, hi]: [u16; 2],
    k: usize,
    u: &[u32; LANES],
    tables: &Tables,
    log: &mut LaneLog,
) {
    let m = usize::from(hi - lo);
    let mut found = [0usize; LANES];
    for (l, index) in found.iter_mut().enumerate() {
        *index = leaves::search(&tables.bounds[k], m, u[l]);
    }
    let start = usize::from(lo);
    for (l, &i) in found.iter().enumerate() {
        let order = leaves::order(m, i);
        for (slot, &position) in seg[start..start + leaves::MAX_LEAF].iter_mut().zip(order) {
            slot[l] = position + lo;
        }
        if TRACK {
            log[l].times(tables.probs[k][i]);
        }
    }
}

/// The decisions of one merge, top positions `lo..mid` into bottom positions `mid..hi`, in
/// every lane: how many bottom items each top item passes, into `counts`.
///
/// A lane's top item passes bottom item `i` while `u < w_0 ... w_i`: its free count `K`,
/// then held to the count of the top item below it (`k_t = min(K_t, k_{t + 1})`, the
/// merge sampler's bound). The running product is taken in every lane whether or not the
/// lane still passes: a lane that stopped never passes again, so its product is not read.
/// Without `TRACK` there is no select at all, which LLVM would turn back into branches;
/// with it, the product where each lane stopped is kept by arithmetic (`m a + (1 - m) b`
/// with `m` 0 or 1 is exact).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn merge<const TRACK: bool>(
    lo: usize,
    mid: usize,
    hi: usize,
    u: &[[u32; LANES]],
    w: ByPosition,
    seg: &[[u16; LANES]],
    counts: &mut [[u16; LANES]],
    log: &mut LaneLog,
) {
    let (nt, nb) = (mid - lo, hi - mid);
    let counts = &mut counts[..nt];
    let mut bound = [nb as u32; LANES];
    let mut most = nb;
    let mut t = nt;
    while t > 0 {
        t -= 1;
        if most == 0 {
            // No lane's top item can move: neither can any above it.
            counts[..=t].fill([0; LANES]);
            break;
        }
        let mut row = [0u32; LANES];
        let mut ut = [0f64; LANES];
        for l in 0..LANES {
            row[l] = w.rows[usize::from(seg[lo + t][l])];
            ut[l] = f64::from(u[t][l]) * SCALE;
        }
        let mut reach = [1.0f64; LANES];
        let mut kept = [1.0f64; LANES];
        let mut k = [0u32; LANES];
        let mut i = 0;
        while i < most {
            let bottom = &seg[mid + i];
            let mut wi = [0f64; LANES];
            for l in 0..LANES {
                wi[l] = f64::from(w.w[row[l].wrapping_add(u32::from(bottom[l])) as usize]);
            }
            let mut any = 0u32;
            for l in 0..LANES {
                reach[l] *= wi[l];
                let mut pass = u32::from(k[l] == i as u32) & u32::from(ut[l] < reach[l]);
                if TRACK {
                    pass &= u32::from((i as u32) < bound[l]);
                    let m = f64::from(pass);
                    kept[l] = m * reach[l] + (1.0 - m) * kept[l];
                }
                k[l] += pass;
                any |= pass;
            }
            i += 1;
            if any == 0 {
                break;
            }
        }
        for l in 0..LANES {
            k[l] = k[l].min(bound[l]);
            counts[t][l] = k[l] as u16;
        }
        if TRACK {
            for l in 0..LANES {
                // Stopping below the bound is a negative decision on bottom item k.
                // 1 or 0 by arithmetic: from a bool, LLVM branches.
                let stopped = (bound[l] - k[l]).min(1);
                let at = (k[l] as usize).min(nb - 1);
                let wk = w.w[row[l].wrapping_add(u32::from(seg[mid + at][l])) as usize];
                let fail = f64::from(stopped) * f64::from(wk);
                log[l].times(kept[l] * (1.0 - fail));
            }
        }
        bound = k;
        most = k.iter().copied().max().unwrap_or(0) as usize;
    }
}

/// Interleaves a merge's halves, `src` (top then bottom positions), by its counts in every
/// lane: top item `t` goes to slot `t + k_t`, bottom item `i` to slot `i + c_i`, `c_i` the
/// top items with `k_t <= i`; `put(slot, lane, position)` writes one. Lanes `lanes..` are
/// skipped.
#[inline(always)]
fn place(
    src: &[[u16; LANES]],
    counts: &[[u16; LANES]],
    before: &mut [[u16; LANES]],
    lanes: usize,
    mut put: impl FnMut(usize, usize, u16),
) {
    let (nt, nb) = (counts.len(), src.len() - counts.len());
    let before = &mut before[..nb];
    before.fill([0; LANES]);
    // c_i in every lane: a vector compare per top and bottom item for short merges, a
    // count of the top items stopping at each bottom index for long ones.
    if nt * nb <= 64 {
        for k in counts {
            for (i, c) in before.iter_mut().enumerate() {
                for l in 0..LANES {
                    c[l] += u16::from(k[l] <= i as u16);
                }
            }
        }
    } else {
        for k in counts {
            for l in 0..LANES {
                if let Some(c) = before.get_mut(usize::from(k[l])) {
                    c[l] += 1;
                }
            }
        }
        let mut c = [0u16; LANES];
        for stops in before.iter_mut() {
            for (c, stop) in c.iter_mut().zip(stops.iter_mut()) {
                *c += *stop;
                *stop = *c;
            }
        }
    }
    for (t, (k, top)) in counts.iter().zip(&src[..nt]).enumerate() {
        for l in 0..lanes {
            put(t + usize::from(k[l]), l, top[l]);
        }
    }
    for (i, (bottom, c)) in src[nt..].iter().zip(before.iter()).enumerate() {
        for l in 0..lanes {
            put(i + usize::from(c[l]), l, bottom[l]);
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::engine::sample_uncorrected_batch;
    use crate::{Dims, Ppg, SamplerMode};
    use rand_core::{Rng as _, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    use std::vec;
    use std::vec::Vec;

    /// Each lane is the xoshiro256++ stream that `rand_xoshiro` makes of its four words.
    #[test]
    fn each_lane_is_a_xoshiro256pp_stream() {
        let mut words = Rng::new(9);
        let mut lanes = LaneRng::from_rng(&mut Rng::new(9));
        let mut plain: Vec<Xoshiro256PlusPlus> = (0..LANES)
            .map(|_| {
                let mut seed = [0u8; 32];
                for chunk in seed.chunks_exact_mut(8) {
                    chunk.copy_from_slice(&words.next_u64().to_le_bytes());
                }
                Xoshiro256PlusPlus::from_seed(seed)
            })
            .collect();
        for _ in 0..100 {
            let out = lanes.next();
            for (l, rng) in plain.iter_mut().enumerate() {
                assert_eq!(out[l], rng.next_u64(), "lane {l}");
            }
        }
    }

    /// An engine of `sessions` x `n` with random weights in `[0.02, 0.98]` (long passes
    /// too) and the pairs `forbidden` constrained.
    fn engine<'m>(
        mem: &'m mut Vec<u8>,
        n: usize,
        sessions: usize,
        forbidden: &[(usize, usize)],
    ) -> Ppg<'m> {
        let dims = Dims::new(n, sessions, 16);
        mem.resize(Ppg::bytes(dims), 0);
        let mut ppg = Ppg::new(mem, dims, 7).unwrap();
        ppg.start(n, sessions, 0.5).unwrap();
        let mut rng = Rng::new(n as u64);
        for s in 0..sessions {
            for a in 0..n {
                for b in a + 1..n {
                    let w = 0.02 + 0.96 * rng.unit_f64() as f32;
                    ppg.set_weight(s, a, b, w).unwrap();
                }
            }
        }
        for &(a, b) in forbidden {
            ppg.forbid(a, b).unwrap();
        }
        ppg
    }

    /// `count` rankings drawn side by side, and their log-probabilities (0 without `TRACK`).
    fn draw<const TRACK: bool>(ppg: &mut Ppg, count: usize) -> (Vec<u16>, Vec<f64>) {
        sample_uncorrected_batch::<TRACK>(ppg, count);
        let total = ppg.items() * ppg.sessions();
        (
            ppg.state.batch[..count * total].to_vec(),
            ppg.state.batch_log_prob[..count].to_vec(),
        )
    }

    /// Every drawn block is a permutation that keeps each forbidden pair in order, and
    /// each ranking's recorded log-probability is the one `Ppg::log_prob` replays; batches
    /// of every size up to two groups, so that partly used groups are covered.
    #[test]
    fn draws_are_permutations_with_their_replayed_probability() {
        let forbidden = [(0, 3), (2, 9), (5, 6)];
        for (n, sessions) in [(2, 1), (6, 2), (13, 1), (20, 4), (37, 2), (300, 1)] {
            let mut mem = Vec::new();
            let mut ppg = engine(&mut mem, n, sessions, &forbidden[..n.min(12) / 4]);
            for count in 1..=16 {
                let (batch, logs) = draw::<true>(&mut ppg, count);
                for (ranking, &log_p) in batch.chunks_exact(n * sessions).zip(&logs) {
                    for block in ranking.chunks_exact(n) {
                        let mut at = vec![usize::MAX; n];
                        for (k, &item) in block.iter().enumerate() {
                            assert_eq!(at[usize::from(item)], usize::MAX, "n {n}");
                            at[usize::from(item)] = k;
                        }
                        for &(a, b) in &forbidden[..n.min(12) / 4] {
                            assert!(at[a] < at[b], "n {n}: forbidden ({a}, {b}) inverted");
                        }
                    }
                    let replayed = ppg.log_prob(SamplerMode::Uncorrected, ranking).unwrap();
                    assert!(log_p.is_finite(), "n {n}");
                    assert!(
                        (replayed - log_p).abs() <= 1e-9 * log_p.abs().max(1.0),
                        "n {n}, count {count}: {log_p} against {replayed}"
                    );
                }
            }
        }
    }

    /// Inversion frequency of every pair of every session over `rankings`.
    fn inversions(n: usize, sessions: usize, rankings: &[u16]) -> Vec<f64> {
        let pairs = n * n;
        let mut counts = vec![0u32; sessions * pairs];
        let mut pos = vec![0usize; n];
        let samples = rankings.len() / (n * sessions);
        for ranking in rankings.chunks_exact(n * sessions) {
            for (s, block) in ranking.chunks_exact(n).enumerate() {
                for (k, &item) in block.iter().enumerate() {
                    pos[usize::from(item)] = k;
                }
                for a in 0..n {
                    for b in a + 1..n {
                        counts[s * pairs + a * n + b] += u32::from(pos[b] < pos[a]);
                    }
                }
            }
        }
        counts
            .iter()
            .map(|&c| f64::from(c) / samples as f64)
            .collect()
    }

    /// The batched draw against the one-sample uncorrected sampler: two samples of
    /// N = 48,000 rankings each, on lists whose leaves have 2 to 5 positions and whose
    /// merges have every shape from 1 + 1 to 18 + 19, with forbidden pairs. Each pair's
    /// inversion frequencies differ by less than z = 5 standard errors: a two-sided level
    /// of 5.7e-7 per pair, under 0.001 over the 1,232 pairs tested (Bonferroni).
    #[test]
    fn draws_the_distribution_of_the_one_sample_sampler() {
        const N: usize = 48_000;
        let mut worst: f64 = 0.0;
        for (n, sessions) in [(6, 2), (13, 2), (20, 2), (37, 1)] {
            let mut mem = Vec::new();
            let mut ppg = engine(&mut mem, n, sessions, &[(0, 4), (1, 2)]);
            let total = n * sessions;
            let mut batched = Vec::with_capacity(N * total);
            while batched.len() < N * total {
                // As training draws them: without log-probabilities.
                batched.extend_from_slice(&draw::<false>(&mut ppg, 16).0);
            }
            let mut single = vec![0u16; N * total];
            for ranking in single.chunks_exact_mut(total) {
                ppg.sample(SamplerMode::Uncorrected, ranking).unwrap();
            }
            let (p, q) = (
                inversions(n, sessions, &batched),
                inversions(n, sessions, &single),
            );
            for s in 0..sessions {
                for a in 0..n {
                    for b in a + 1..n {
                        let at = s * n * n + a * n + b;
                        let (p, q) = (p[at], q[at]);
                        let pooled = (p + q) / 2.0;
                        let se = (2.0 * pooled * (1.0 - pooled) / N as f64).sqrt();
                        if se == 0.0 {
                            assert_eq!(p, q, "n {n}, session {s}, pair ({a}, {b})");
                            continue;
                        }
                        let z = (p - q).abs() / se;
                        worst = worst.max(z);
                        assert!(z < 5.0, "n {n}, pair ({a}, {b}): {p} vs {q}, z = {z}");
                    }
                }
                assert_eq!(p[s * n * n + 4], 0.0, "a forbidden pair was inverted");
            }
        }
        std::println!("largest z: {worst:.2}");
    }
}
