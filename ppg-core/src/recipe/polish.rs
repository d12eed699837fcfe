//! The last step of [`lex`](super::lex): trades between pairs of sessions that raise the
//! DCG without changing how many sessions hold group 0 at each position, so group 0's
//! exposure summed over the sessions, and with it the two-group DTR and EEL, stays what
//! it was. Why trades: the fair set of a certified run is a window of width about 1e-8 of
//! the total, so a mix of whole patterns rarely lands in it, while trades keep the total
//! exactly.
//!
//! Why it is written for speed (issue 37): the pairs are `S (S - 1) / 2` a pass, and at 32
//! sessions nearly every pair's examination ends without a trade (the first 250 queries of
//! `shapes scores 2 20 1000 11`: 9 trades in 1.5 million trials), while most sessions
//! repeat a few patterns. Two shortcuts, neither changing which trades are made (the
//! tests hold the result to a plain version's, bit for bit):
//! - An examination depends only on the two sessions' heads (the positions within the
//!   cut-off, the only ones the DCG reads) and on which kinds of difference their tails
//!   hold ([`Key`]); a pair whose key was already examined without a trade is skipped.
//! - A trial's DCG change is summed over the positions between the two traded ones
//!   ([`change`]); a trial clearly worse is refused on it, every other one (a gain or a
//!   near tie) re-scored in full as before, so each decision is the plain version's.

use crate::objective::relevance::Lists;

/// Passes over the pairs of sessions at most.
const PASSES: usize = 8;

/// Keys of examinations without a trade kept at most (later ones are examined again).
const MEMO: usize = 32;

/// What an examination of two sessions depends on: their heads as bit masks (bit `r`:
/// group 0 at position `r`), the smaller first, and whether below the cut-off the first
/// holds group 0 where the second does not (bit 0) and the other way round (bit 1). The
/// trials read the heads; below the cut-off every position trades alike, so only whether
/// one exists matters; and the two sessions' roles are symmetric (a trade exchanges the
/// same two positions in both, and the pair's DCG is a sum of two).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key {
    heads: [u64; 2],
    tails: u8,
}

impl Key {
    /// `None` where the cut-off is beyond a mask's 64 bits.
    fn of(pa: &[u8], pb: &[u8], cut: usize) -> Option<Key> {
        if cut > 64 {
            return None;
        }
        let mask = |p: &[u8]| {
            p[..cut]
                .iter()
                .enumerate()
                .fold(0u64, |m, (r, &z)| m | (u64::from(z) << r))
        };
        let mut tails = 0u8;
        for (&x, &y) in pa[cut..].iter().zip(&pb[cut..]) {
            if x != y {
                tails |= if x == 1 { 1 } else { 2 };
            }
        }
        let (ha, hb) = (mask(pa), mask(pb));
        Some(if ha <= hb {
            Key {
                heads: [ha, hb],
                tails,
            }
        } else {
            // Roles swapped: so are the tails' two kinds.
            Key {
                heads: [hb, ha],
                tails: (tails & 1) << 1 | tails >> 1,
            }
        })
    }
}

/// Raises the DCG of the multi-session ranking `ranking` (`sessions` blocks of `n` ids)
/// by trades: where two sessions differ at a position `r` within the cut-off and at
/// another `q` the other way round, they trade (one gives group 0's slot at `r` for the
/// other's at `q`) when the pair's DCG rises; each session dealt anew ([`deal`]). First
/// improvement, at most [`PASSES`] passes over the pairs of sessions. `sorted`: each
/// group's items in the order they take its positions, group 0's first; `pa`, `pb`: `n`
/// bytes each.
pub(super) fn polish(
    lists: &Lists<'_>,
    group: &[u8],
    sorted: &[u16],
    ranking: &mut [u16],
    sessions: usize,
    pa: &mut [u8],
    pb: &mut [u8],
) {
    let n = group.len();
    let k0 = lists.gain[0].len();
    let cut = lists.discount.len().min(n);
    let pattern = |ranking: &[u16], s: usize, out: &mut [u8]| {
        for (slot, &id) in out.iter_mut().zip(&ranking[s * n..(s + 1) * n]) {
            *slot = u8::from(group[usize::from(id)] == 0);
        }
    };
    // Each session dealt in `sorted`'s order first (rearrangement: never less DCG).
    for s in 0..sessions {
        pattern(ranking, s, pa);
        deal(pa, sorted, k0, &mut ranking[s * n..(s + 1) * n]);
    }
    let tolerance = tolerance(lists);
    let mut fruitless = heapless::Vec::<Key, MEMO>::new();
    for _ in 0..PASSES {
        let mut better = false;
        for a in 0..sessions {
            // `pa` stays `a`'s pattern through the row: only `a`'s own trades change it.
            pattern(ranking, a, pa);
            for b in a + 1..sessions {
                pattern(ranking, b, pb);
                // Sessions alike within the cut-off have nothing to trade there.
                if pa[..cut] == pb[..cut] {
                    continue;
                }
                let key = Key::of(pa, pb, cut);
                if key.is_some_and(|k| fruitless.contains(&k)) {
                    continue;
                }
                if examine(lists, pa, pb, cut, tolerance) {
                    deal(pa, sorted, k0, &mut ranking[a * n..(a + 1) * n]);
                    deal(pb, sorted, k0, &mut ranking[b * n..(b + 1) * n]);
                    better = true;
                } else if let Some(k) = key {
                    // Full: later keys are examined again, as without the memo.
                    let _ = fruitless.push(k);
                }
            }
        }
        if !better {
            break;
        }
    }
}

/// One pair's trades (first improvement, positions in order); whether any was made.
fn examine(lists: &Lists<'_>, pa: &mut [u8], pb: &mut [u8], cut: usize, tolerance: f64) -> bool {
    let n = pa.len();
    let mut now = lists.dcg(pa) + lists.dcg(pb);
    let mut changed = false;
    for r in 0..cut {
        if pa[r] == pb[r] {
            continue;
        }
        // Below the cut-off every `q` trades alike: the first is enough.
        let below = (cut..n).find(|&q| pa[q] != pb[q] && pa[q] != pa[r]);
        for q in (0..cut).chain(below) {
            // `a` holds group 0 at `r` and not at `q`, `b` the other way.
            if q == r || pa[r] == pb[r] || pa[q] == pb[q] || pa[r] == pa[q] {
                continue;
            }
            let (da, moved_a) = change(lists, pa, r, q, cut);
            let (db, moved_b) = change(lists, pb, r, q, cut);
            // Clearly worse: the full sums could not say otherwise (module docs).
            if da + db < -tolerance {
                continue;
            }
            pa.swap(r, q);
            pb.swap(r, q);
            // No position's gain moved: the full sums are `now`'s terms, to the bit.
            let next = if moved_a || moved_b {
                lists.dcg(pa) + lists.dcg(pb)
            } else {
                now
            };
            if next > now * (1.0 + 1e-12) {
                now = next;
                changed = true;
            } else {
                pa.swap(r, q);
                pb.swap(r, q);
            }
        }
    }
    changed
}

/// The DCG change of exchanging `pattern[r]` and `pattern[q]` (`r < cut`), summed over
/// the positions from the first of the two to the last within the cut-off (before them
/// nothing moves; after them each group's count is the same again), and whether any
/// position's gain changed.
fn change(lists: &Lists<'_>, pattern: &[u8], r: usize, q: usize, cut: usize) -> (f64, bool) {
    let (lo, hi) = (r.min(q), r.max(q));
    let ones = pattern[..lo].iter().filter(|&&z| z == 1).count();
    // Each group's next index, before and after the exchange.
    let (mut before, mut after) = ([ones, lo - ones], [ones, lo - ones]);
    let (mut delta, mut moved) = (0.0, false);
    for (p, &d) in lists.discount.iter().enumerate().take(cut).skip(lo) {
        if p > hi {
            break;
        }
        let old = pattern[p];
        let new = match p {
            _ if p == lo => pattern[hi],
            _ if p == hi => pattern[lo],
            _ => old,
        };
        let (g_old, g_new) = (take(lists, old, &mut before), take(lists, new, &mut after));
        if g_new != g_old {
            moved = true;
            delta += (g_new - g_old) * d;
        }
    }
    (delta, moved)
}

/// The gain the next position of `zero`'s group takes, as [`Lists::dcg`] reads it.
fn take(lists: &Lists<'_>, zero: u8, next: &mut [usize; 2]) -> f64 {
    let g = usize::from(zero != 1);
    next[g] += 1;
    lists.gain[g].get(next[g] - 1).copied().unwrap_or(0.0)
}

/// How far below zero [`change`]'s sum may be and a full re-scoring still find a gain:
/// far above both sums' rounding (a few ulps of the largest pair DCG), far below any
/// trade's real change.
fn tolerance(lists: &Lists<'_>) -> f64 {
    let top = lists.gain[0]
        .iter()
        .chain(lists.gain[1])
        .fold(0.0f64, |m, g| m.max(g.abs()));
    let discounts: f64 = lists.discount.iter().map(|d| d.abs()).sum();
    let tolerance = 1e-9 * 2.0 * top * discounts;
    // Not finite: every trial re-scored.
    if tolerance.is_finite() {
        tolerance
    } else {
        f64::INFINITY
    }
}

/// One session's ranking: group 0's items (`sorted[..k0]`) onto the positions `pattern`
/// gives it, group 1's onto the rest, each in `sorted`'s order.
pub(super) fn deal(pattern: &[u8], sorted: &[u16], k0: usize, out: &mut [u16]) {
    let (mut a, mut b) = (0, k0);
    for (slot, &zero) in out.iter_mut().zip(pattern) {
        if zero == 1 {
            *slot = sorted[a];
            a += 1;
        } else {
            *slot = sorted[b];
            b += 1;
        }
    }
}

#[cfg(test)]
#[path = "polish_tests.rs"]
mod tests;
