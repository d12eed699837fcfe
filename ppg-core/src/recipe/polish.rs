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
//! - A trial's DCG change is read from prefix sums of each session's head ([`Side`]);
//!   a trial clearly worse is refused on it, every other one (a gain or a
//!   near tie) re-scored in full as before, so each decision is the plain version's.

use super::relevance::NDCG_CUTOFF;
use crate::objective::relevance::Lists;

/// Passes over the pairs of sessions at most.
const PASSES: usize = 8;

/// Keys of examinations without a trade kept at most (later ones are examined again).
const MEMO: usize = 32;

/// The cut-off the trials are written for: lex's. Beyond it [`polish`] trades nothing.
const HEAD: usize = NDCG_CUTOFF;

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
    /// The key of two patterns with a cut-off of at most [`HEAD`] positions.
    fn of(pa: &[u8], pb: &[u8], cut: usize) -> Key {
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
        if ha <= hb {
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
        }
    }
}

/// Raises the DCG of the multi-session ranking `ranking` (`sessions` blocks of `n` ids)
/// by trades: where two sessions differ at a position `r` within the cut-off and at
/// another `q` the other way round, they trade (one gives group 0's slot at `r` for the
/// other's at `q`) when the pair's DCG rises; each session dealt anew ([`deal`]). First
/// improvement, at most [`PASSES`] passes over the pairs of sessions; none with a
/// cut-off beyond [`HEAD`] positions. `sorted`: each
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
    if cut > HEAD {
        return;
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
                if fruitless.contains(&key) {
                    continue;
                }
                if examine(lists, pa, pb, cut, tolerance) {
                    deal(pa, sorted, k0, &mut ranking[a * n..(a + 1) * n]);
                    deal(pb, sorted, k0, &mut ranking[b * n..(b + 1) * n]);
                    better = true;
                } else {
                    // Full: later keys are examined again, as without the memo.
                    let _ = fruitless.push(key);
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
    let mut sides = [Side::new(lists, pa, cut), Side::new(lists, pb, cut)];
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
            let (lo, hi) = (r.min(q), r.max(q));
            let (da, moved_a) = sides[0].change(lists, pa[lo], lo, hi, cut);
            let (db, moved_b) = sides[1].change(lists, pb[lo], lo, hi, cut);
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
                sides = [Side::new(lists, pa, cut), Side::new(lists, pb, cut)];
            } else {
                pa.swap(r, q);
                pb.swap(r, q);
            }
        }
    }
    changed
}

/// One session's head (its first [`HEAD`] positions at most) as a trial reads it. An
/// exchange of positions `lo < hi` holding different groups moves `lo`'s group down to
/// `hi`: between them, each position of that group takes its group's gain one place up
/// (its index falls by one) and each of the other group one place down. `shift[v][p]`
/// sums those changes of the DCG's terms over the positions before `p`, for the exchange
/// that moves value `v` down; `moved[v][p]` counts the terms among them whose gain
/// changes (compared exactly). So a trial costs a few reads, not a re-scoring.
struct Side {
    /// Each position's gain.
    gain: [f64; HEAD],
    /// Group 0's positions before `p`.
    ones: [u8; HEAD + 1],
    shift: [[f64; HEAD + 1]; 2],
    moved: [[u8; HEAD + 1]; 2],
}

impl Side {
    /// `pattern`'s first `cut <= HEAD` positions.
    fn new(lists: &Lists<'_>, pattern: &[u8], cut: usize) -> Side {
        let mut side = Side {
            gain: [0.0; HEAD],
            ones: [0; HEAD + 1],
            shift: [[0.0; HEAD + 1]; 2],
            moved: [[0; HEAD + 1]; 2],
        };
        let mut next = [0usize; 2];
        for (p, (&x, &d)) in pattern.iter().zip(lists.discount).take(cut).enumerate() {
            let g = usize::from(x != 1);
            let i = next[g];
            next[g] += 1;
            let here = gain(lists, g, i);
            side.gain[p] = here;
            side.ones[p + 1] = side.ones[p] + u8::from(x == 1);
            for v in 0..2u8 {
                // A position of the moved group has one of its group above it here.
                let other = if x == v {
                    i.checked_sub(1).map(|j| gain(lists, g, j))
                } else {
                    Some(gain(lists, g, i + 1))
                };
                let (term, moved) = match other {
                    Some(o) if o != here => ((o - here) * d, 1),
                    _ => (0.0, 0),
                };
                let v = usize::from(v);
                side.shift[v][p + 1] = side.shift[v][p] + term;
                side.moved[v][p + 1] = side.moved[v][p] + moved;
            }
        }
        side
    }

    /// The DCG change of exchanging positions `lo < hi` (`lo < cut`), `v` the value at
    /// `lo`, and whether any position's gain changed.
    fn change(&self, lists: &Lists<'_>, v: u8, lo: usize, hi: usize, cut: usize) -> (f64, bool) {
        let end = hi.min(cut);
        let k = usize::from(v);
        let mut delta = self.shift[k][end] - self.shift[k][lo + 1];
        let mut moved = self.moved[k][end] > self.moved[k][lo + 1];
        // `lo` takes the other group's next gain; `hi`, within the cut-off, `v`'s group's
        // gain of its last place before `hi`.
        // How many of group `g` lie before `p`.
        let before = |g: usize, p: usize| {
            let ones = usize::from(self.ones[p]);
            if g == 0 {
                ones
            } else {
                p - ones
            }
        };
        let (gv, gw) = (usize::from(v != 1), usize::from(v == 1));
        let mut end_point = |p: usize, new: f64| {
            if new != self.gain[p] {
                moved = true;
                delta += (new - self.gain[p]) * lists.discount[p];
            }
        };
        end_point(lo, gain(lists, gw, before(gw, lo)));
        if hi < cut {
            // One of `v`'s group before `hi` (the one at `lo`) has gone below it.
            end_point(hi, gain(lists, gv, before(gv, hi) - 1));
        }
        (delta, moved)
    }
}

/// Group `g`'s `i`-th gain as [`Lists::dcg`] reads it (0 past the end).
fn gain(lists: &Lists<'_>, g: usize, i: usize) -> f64 {
    lists.gain[g].get(i).copied().unwrap_or(0.0)
}

/// How far below zero [`Side::change`]'s sum may be and a full re-scoring still find a gain:
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
