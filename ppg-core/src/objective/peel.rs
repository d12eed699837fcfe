//! How a count matrix of more than two groups is brought to target totals to the
//! tolerance: one group at a time against the slots the others leave, each by the
//! two-group lattice ([`lattice::finish`]) on a box of its own per position.
//!
//! # Why one group at a time
//!
//! With `k` groups the count matrix `c[G][r]` (columns sum to `S`, row `G` to `S n_G`)
//! moves `k - 1` totals at once, and DTR and EEL need every one of them within about
//! `1e-9` of its target. A lattice over the whole matrix has `(k - 1)(n - 1)` dimensions
//! (38 for 3 groups of a 20-item list): its reduced basis alone is some 50 KB, past what a
//! C caller's thread should lend, and LLL's cost grows with the fourth power of the
//! dimension. Peeling keeps the two-group lattice (18 KB, `n - 1` dimensions): the first
//! group is placed against all the others (every position's box is `0..=S`, the densest
//! totals there are), the next against the slots the first left, and the last takes what
//! is left, so its total is the others' remainder. Its density is that of the last pair:
//! on 20 positions at 4 sessions two groups sharing some 3 slots a position still have
//! about `10^11` count vectors over a few units of exposure, so the groups go smallest
//! first, leaving the two largest to share the most slots. A group whose target asks for
//! an end of the hull (say, every top position) is placed before the others can take
//! those slots: a second order, by how far each group's exposure per placement is from
//! the list's mean, is tried where the first fails.
//!
//! Nothing here proves anything: the caller's `accept` sees the totals and keeps the
//! matrix only when its metric is within the tolerance of the proven bound.

use super::bound::MAX_BLOCKS;
use super::lattice;

/// Rows of a count matrix: four groups with a target and one that takes what is left.
pub(crate) const ROWS: usize = 5;

/// The longest list whose count matrix [`peel`] builds (on the stack, with the lattice's
/// window of it: 1.3 KB a matrix).
pub(crate) const LIST: usize = 64;

/// `c[row][r]`: the sessions in which the row's items hold position `r`.
pub(crate) type Matrix = [[u32; LIST]; ROWS];

/// What [`peel`] is asked for.
pub(crate) struct Peel<'p> {
    /// The exposure of each position (positive, non-increasing), at most [`LIST`].
    pub exposure: &'p [f64],
    pub sessions: usize,
    /// Where each block of positions ends; each row keeps its placements in each block.
    pub ends: &'p [usize],
    /// Rows in use (at most [`ROWS`]).
    pub rows: usize,
    /// `sums[row][b]`: the row's placements in block `b` (summed over the sessions).
    pub sums: &'p [[u32; MAX_BLOCKS]; ROWS],
    /// Each row's target total; NaN for a row whose total is free (it is placed last).
    pub target: [f64; ROWS],
    /// How far from its target a row's total may end when it is placed first.
    pub first: [f64; ROWS],
    /// How far from its target a row's total may end when it is placed later.
    pub within: [f64; ROWS],
}

/// A count matrix with the rows' block sums whose totals are each within `first` (the
/// first row) or `within` (the others) of the targets (the last row's: what is left) and that `accept` takes, into `out`; false when
/// neither order found one (`out` then unspecified).
pub(crate) fn peel(p: &Peel<'_>, out: &mut Matrix, accept: impl Fn(&[f64; ROWS]) -> bool) -> bool {
    let n = p.exposure.len();
    let blocks = p.ends.len();
    if p.rows < 2 || p.rows > ROWS || n > LIST || blocks == 0 || blocks > MAX_BLOCKS {
        return false;
    }
    if p.ends.windows(2).any(|w| w[1] <= w[0]) || p.ends[blocks - 1] != n {
        return false;
    }
    let placements = |row: usize| -> u32 { p.sums[row][..blocks].iter().sum() };
    let mean = p.exposure.iter().sum::<f64>() / n as f64;
    // Free rows last in both orders; then the smallest first, or the farthest from the
    // mean exposure per placement first.
    let mut orders = [[0usize; ROWS]; 2];
    for order in &mut orders {
        for (i, slot) in order.iter_mut().enumerate() {
            *slot = i;
        }
    }
    let free = |row: usize| p.target[row].is_nan();
    let far = |row: usize| {
        let m = placements(row);
        if free(row) || m == 0 {
            f64::NEG_INFINITY
        } else {
            libm::fabs(p.target[row] / f64::from(m) - mean)
        }
    };
    orders[0][..p.rows].sort_unstable_by_key(|&row| (free(row), placements(row), row));
    orders[1][..p.rows].sort_unstable_by(|&a, &b| {
        (free(a), -far(a))
            .partial_cmp(&(free(b), -far(b)))
            .unwrap_or(core::cmp::Ordering::Equal)
            .then(a.cmp(&b))
    });
    for (i, order) in orders.iter().enumerate() {
        if i == 1 && order == &orders[0] {
            break;
        }
        if place(p, &order[..p.rows], out) {
            let mut totals = [0.0; ROWS];
            for (row, total) in totals.iter_mut().enumerate().take(p.rows) {
                *total = out[row][..n]
                    .iter()
                    .zip(p.exposure)
                    .map(|(&c, &e)| f64::from(c) * e)
                    .sum();
            }
            if accept(&totals) {
                return true;
            }
        }
    }
    false
}

/// The rows in `order`, each against the slots the earlier ones left; false when a row
/// cannot be placed or its total not brought within reach of its target.
fn place(p: &Peel<'_>, order: &[usize], out: &mut Matrix) -> bool {
    let n = p.exposure.len();
    let s = p.sessions as u32;
    let mut cap = [s; LIST];
    let (last, early) = match order.split_last() {
        Some(split) => split,
        None => return false,
    };
    for (i, &row) in early.iter().enumerate() {
        // The positions with a slot left, as a list of their own.
        let (mut exposure, mut room, mut counts) = ([0.0f64; LIST], [0u32; LIST], [0u32; LIST]);
        let (mut at, mut ends) = ([0usize; LIST], [0usize; MAX_BLOCKS]);
        let (mut len, mut used, mut start) = (0, 0, 0);
        for (b, &end) in p.ends.iter().enumerate() {
            // Fill the block from its top (a valid start; the lattice moves it).
            let mut left = p.sums[row][b];
            for r in start..end {
                if cap[r] > 0 {
                    let c = left.min(cap[r]);
                    (exposure[len], room[len], counts[len], at[len]) =
                        (p.exposure[r], cap[r], c, r);
                    left -= c;
                    len += 1;
                }
            }
            if left > 0 {
                return false;
            }
            // An empty block (no slot left in it) is no block for the lattice.
            if len > if used == 0 { 0 } else { ends[used - 1] } {
                ends[used] = len;
                used += 1;
            }
            start = end;
        }
        let target = p.target[row];
        if !target.is_nan() {
            let total = |c: &[u32]| -> f64 {
                c.iter()
                    .zip(&exposure[..len])
                    .map(|(&c, &e)| f64::from(c) * e)
                    .sum()
            };
            // The first row has the fewest count vectors (the smallest group, or one near
            // an end of the hull): it takes most of the tolerance, and the later rows,
            // whose totals are dense, the rest.
            let within = if i == 0 { p.first[row] } else { p.within[row] };
            if libm::fabs(total(&counts[..len]) - target) > within {
                let problem = lattice::Problem {
                    exposure: &exposure[..len],
                    ends: &ends[..used],
                    sessions: p.sessions,
                    capacity: Some(&room[..len]),
                };
                let accept = |x: f64| libm::fabs(x - target) <= within;
                if !lattice::finish(&problem, &mut counts[..len], target, within / 4.0, accept) {
                    return false;
                }
            }
        }
        out[row][..n].fill(0);
        for i in 0..len {
            out[row][at[i]] = counts[i];
            cap[at[i]] -= counts[i];
        }
    }
    out[*last][..n].copy_from_slice(&cap[..n]);
    true
}
