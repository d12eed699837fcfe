//! How the bound's search finishes a count vector to the tolerance where its walk cannot:
//! the short vectors of the lattice of count changes that keep every block's total (LLL),
//! and the nearest point of that lattice to the change the total still needs (Babai).
//!
//! # Why
//!
//! Over `S >= 2` sessions the totals group 0 can reach are dense around the fair point:
//! 20 positions at 4 sessions give some `10^12` count vectors over a range of a few units,
//! so one of them is within `1e-11` of the centre and the optimum is the hull bound to far
//! below [`super::bound::TOLERANCE`]. The walk proves it only by meeting such a vector,
//! and position by position from the top it meets one only after some `10^5` nodes
//! (production-shaped queries at 4 sessions: 46 % certified within 20,000 nodes, 96 %
//! within 200,000, at 50 ns a node). The vectors near a given one are a lattice's points,
//! though: the changes `z` with `sum z_r = 0` (per block), moving the total by
//! `sum z_r e_r`. Weighting that move by a large `W` and reducing the lattice (LLL) gives a
//! basis of changes with entries of a few units and moves of a few `1 / W`; Babai's nearest
//! plane then takes a count vector to one whose total is within a few `1 / W` of the
//! centre. What is left is the box: counts must stay in `0..=S`. So the first start is a
//! vector as far inside the box as the target allows (the fractional counts of a tilt,
//! water-filled into the box, rounded), the lattice spans only the counts the tilt did not
//! hold at a bound, the nearest point is pulled towards the fractional counts, and a
//! change that still leaves the box is repaired with the reduced basis' own short vectors
//! (which barely move the total) or replaced by Babai's point on the other side of one
//! level; the walk's best vector is the second start. On 1,000 production-shaped queries
//! (20 items, graded labels, two groups) at 4 sessions, a 50-node walk and the lattice
//! proved 97.7 % (the walk alone at 20,000 nodes: 46 %); what is left are queries whose
//! fair point is near an end of the hull, where the totals are sparse, the optimum is
//! above the hull bound, and only the walk can prove it.
//!
//! Nothing here is a proof of anything but what it returns: the search keeps the vector
//! only when its metric is within the tolerance of the hull bound, which makes the bound
//! exact by the hull bound's own argument.
//!
//! The file stays whole (about 600 lines with its tests): the starts and the reduced basis
//! share one window's layout, weights and box, and nothing else uses the basis; the split
//! that would pay is the basis into its own module once a second user (a joint lattice
//! over two groups of a count matrix, `peel`'s next step) needs it.
//!
//! Over at most [`WINDOW`] consecutive positions (the most interior ones of a longer
//! list), in memory on the stack (about 18 KB): a list longer than that is dense enough for
//! the walk.

/// The most blocks the search of `bound.rs` takes (`bound::solve_within`): one per grade of
/// EEL ([`super::MAX_LEVELS`]). Here, beside the sums it sizes, so that the lattice need not
/// import the search that imports it.
pub const MAX_BLOCKS: usize = 64;

/// Positions the lattice spans at most.
pub(crate) const WINDOW: usize = 24;
const DIM: usize = WINDOW - 1;
/// Each basis vector: the count change on the window, then its weighted move.
const COORDS: usize = WINDOW + 1;

/// LLL's Lovász constant: close to 1 for a well reduced basis, which Babai's nearest plane
/// needs; the lattice is small, so the extra swaps cost little.
const LOVASZ: f64 = 0.99;

/// The weight of a change to a count the water filling held at a bound: a change there
/// leaves the box in one direction, so the nearest point should rarely make one.
const HELD: f64 = 10.0;

/// Repair steps at most: each adds one reduced vector, whose move is a few `1 / W`.
const REPAIRS: usize = 48;

/// A count vector's positions and bounds: what [`finish`] may change.
pub(crate) struct Problem<'p> {
    /// The exposure of each position (non-increasing).
    pub exposure: &'p [f64],
    /// Where each block ends (the counts keep each block's sum).
    pub ends: &'p [usize],
    /// Counts are in `0..=sessions`.
    pub sessions: usize,
    /// Where given, count `r` is in `0..=capacity[r]` instead (each at most `sessions`):
    /// one group against the others of a count matrix, on the slots the groups placed
    /// before it left (`peel`). `None` keeps the two-group box, with the same arithmetic.
    pub capacity: Option<&'p [u32]>,
}

impl Problem<'_> {
    /// The largest count position `r` may hold.
    fn cap(&self, r: usize) -> u32 {
        match self.capacity {
            Some(c) => c.get(r).copied().unwrap_or(0),
            None => self.sessions as u32,
        }
    }
}

/// Changes `counts` (a valid count vector) towards a total as close to `target` as the
/// lattice reaches, keeping every count in `0..=sessions` and every block's sum; returns
/// whether `accept` took the new total (then `counts` holds the new vector; otherwise it
/// is unchanged). `scale` is the total's resolution wanted: the lattice's weight is its
/// inverse.
pub(crate) fn finish(
    problem: &Problem<'_>,
    counts: &mut [u32],
    target: f64,
    scale: f64,
    accept: impl Fn(f64) -> bool,
) -> bool {
    let n = problem.exposure.len();
    if problem.sessions < 2 || n < 3 || counts.len() != n || scale.is_nan() || scale <= 0.0 {
        return false;
    }
    if problem.capacity.is_some_and(|c| c.len() != n) {
        return false;
    }
    // First from the rounded water-filled vector, pulled towards its fractional counts
    // (inside the box and on the target), its held counts weighted so that they stay;
    // then from the caller's, pulled towards the box's middle.
    if n <= WINDOW {
        let mut base = [0u32; WINDOW];
        let mut pull = [0.0f64; WINDOW];
        let mut weight = [1.0f64; WINDOW];
        base[..n].copy_from_slice(counts);
        if interior(
            problem,
            target,
            &mut base[..n],
            &mut pull[..n],
            &mut weight[..n],
        ) {
            for r in 0..n {
                pull[r] -= f64::from(base[r]);
            }
            // The counts the water filling did not hold: a run, as the tilt is monotone in
            // the exposure. The lattice over them alone is smaller and as good.
            let held = |r: &usize| weight[*r] >= HELD;
            let from = (0..n).find(|r| !held(r)).unwrap_or(0);
            let to = (0..n).rev().find(|r| !held(r)).map_or(n, |r| r + 1);
            let start = Start {
                from,
                pull: &pull[from..to],
                weight: &weight[from..to],
            };
            if attempt(problem, &start, &mut base[..n], target, scale, &accept) {
                counts.copy_from_slice(&base[..n]);
                return true;
            }
        }
    }
    let (from, to) = window(problem, counts, n);
    let mut pull = [0.0f64; WINDOW];
    for (i, (slot, &c)) in pull.iter_mut().zip(&counts[from..to]).enumerate() {
        *slot = f64::from(problem.cap(from + i)) / 2.0 - f64::from(c);
    }
    let start = Start {
        from,
        pull: &pull[..to - from],
        weight: &[1.0; WINDOW][..to - from],
    };
    attempt(problem, &start, counts, target, scale, &accept)
}

/// Where [`attempt`] starts: the window's first position, and per window position the
/// change of count it pulls towards and the weight of a change there.
struct Start<'s> {
    from: usize,
    pull: &'s [f64],
    weight: &'s [f64],
}

/// One start: the lattice of the window under the start's weights, reduced; Babai's
/// change towards the start's pull and the target, repaired into the box; kept in
/// `counts` when `accept` takes its total.
fn attempt(
    problem: &Problem<'_>,
    start: &Start<'_>,
    counts: &mut [u32],
    target: f64,
    scale: f64,
    accept: &impl Fn(f64) -> bool,
) -> bool {
    let (from, to) = (start.from, start.from + start.pull.len());
    let mut lattice = Lattice::new(problem, from, to, 1.0 / scale, start.weight);
    if lattice.dim == 0 {
        return false;
    }
    lattice.reduce();
    lattice.orthogonalise();
    let x: f64 = total(problem.exposure, counts);
    // The total weighted far above the counts: a total at the target, with counts as
    // near the pull as the lattice allows.
    let mut wanted = [0.0; COORDS];
    for (i, slot) in wanted.iter_mut().enumerate().take(lattice.len) {
        *slot = start.weight[i] * start.pull[i];
    }
    wanted[WINDOW] = (target - x) / scale;
    let try_change = |change: &[i64; WINDOW], counts: &mut [u32]| -> bool {
        let mut trial = [0u32; WINDOW];
        for (i, ((slot, &c), &z)) in trial
            .iter_mut()
            .zip(&counts[from..to])
            .zip(change)
            .enumerate()
        {
            let c = i64::from(c) + z;
            if !(0..=i64::from(problem.cap(from + i))).contains(&c) {
                return false;
            }
            *slot = c as u32;
        }
        let moved: f64 = (0..to - from)
            .map(|i| change[i] as f64 * problem.exposure[from + i])
            .sum();
        if accept(x + moved) {
            counts[from..to].copy_from_slice(&trial[..to - from]);
            return true;
        }
        false
    };
    // The nearest plane's point, then the points that take the other side at one level
    // (Babai with one discrepancy): as near, and their counts may fit the box where the
    // nearest point's do not. Each repaired first. Then the same, pulled instead towards
    // the middle of each free count's room (the box's, not the start's fractional counts).
    let mut middle = wanted;
    for (i, slot) in middle.iter_mut().enumerate().take(lattice.len) {
        let room = f64::from(problem.cap(from + i)) / 2.0 - f64::from(counts[from + i]);
        *slot = start.weight[i] * if start.weight[i] == 1.0 { room } else { 0.0 };
    }
    for wanted in [wanted, middle] {
        for detour in core::iter::once(None).chain((0..lattice.dim).map(Some)) {
            let mut change = [0i64; WINDOW];
            lattice.nearest(wanted, detour, &mut change);
            lattice.repair(problem, counts, from, &mut change);
            if try_change(&change, counts) {
                return true;
            }
        }
    }
    false
}

/// A count vector (each block's sum kept) whose total is near `target` and whose counts
/// are as far inside `0..=sessions` as that allows: within each block the block's mean
/// count tilted by `a (e_r - mean e)`, one `a` for every block; counts the tilt takes out
/// of the box are held at the bound and the rest tilted again (water filling), then
/// rounded by largest remainders, which keeps the sums. `out` holds the caller's counts
/// (they give the blocks' sums) and receives the new ones, `fractional` the tilted counts
/// before rounding and `weight` [`HELD`] where a count is held, 1 elsewhere; false when no
/// tilt reaches the target.
fn interior(
    problem: &Problem<'_>,
    target: f64,
    out: &mut [u32],
    fractional: &mut [f64],
    weight: &mut [f64],
) -> bool {
    let e = problem.exposure;
    let blocks = problem.ends.len();
    if blocks > MAX_BLOCKS {
        return false;
    }
    // Per block: its sum, and its free counts' mean count and mean exposure.
    let (mut sum, mut mean, mut mean_e) = ([0.0; MAX_BLOCKS], [0.0; MAX_BLOCKS], [0.0; MAX_BLOCKS]);
    let mut start = 0;
    for (b, &end) in problem.ends.iter().enumerate() {
        sum[b] = out[start..end].iter().map(|&c| f64::from(c)).sum();
        start = end;
    }
    let block_of = |r: usize| problem.ends.iter().position(|&end| r < end).unwrap_or(0);
    // `held[r]`: the count is held at the bound `fractional[r]`.
    let mut held = [false; WINDOW];
    let n = out.len();
    for _ in 0..=n {
        let (mut flat, mut spread) = (0.0, 0.0);
        let mut start = 0;
        for (b, &end) in problem.ends.iter().enumerate() {
            let (mut free, mut left, mut sum_e) = (0.0, sum[b], 0.0);
            for r in start..end {
                if held[r] {
                    left -= fractional[r];
                    flat += fractional[r] * e[r];
                } else {
                    free += 1.0;
                    sum_e += e[r];
                }
            }
            if free == 0.0 {
                if libm::fabs(left) > 1e-9 {
                    return false;
                }
            } else {
                (mean[b], mean_e[b]) = (left / free, sum_e / free);
                for r in (start..end).filter(|&r| !held[r]) {
                    flat += mean[b] * e[r];
                    spread += (e[r] - mean_e[b]) * (e[r] - mean_e[b]);
                }
            }
            start = end;
        }
        let a = if spread > 0.0 {
            (target - flat) / spread
        } else {
            0.0
        };
        let mut clipped = false;
        for r in 0..n {
            if held[r] {
                continue;
            }
            let b = block_of(r);
            let f = mean[b] + a * (e[r] - mean_e[b]);
            let s = f64::from(problem.cap(r));
            fractional[r] = f.clamp(0.0, s);
            if !(0.0..=s).contains(&f) {
                (held[r], clipped) = (true, true);
            }
        }
        if !clipped {
            break;
        }
    }
    for r in 0..n {
        let room = fractional[r].min(f64::from(problem.cap(r)) - fractional[r]);
        weight[r] = 1.0 + (HELD - 1.0) * (1.0 - room).max(0.0);
    }
    let mut start = 0;
    for (b, &end) in problem.ends.iter().enumerate() {
        for r in start..end {
            out[r] = libm::floor(fractional[r] + 1e-9) as u32;
        }
        // Largest remainders first (ties: the higher position) until the sum is back.
        let mut left = sum[b] as i64 - out[start..end].iter().map(|&c| i64::from(c)).sum::<i64>();
        while left > 0 {
            let mut pick = None;
            let mut most = f64::NEG_INFINITY;
            for r in start..end {
                let rest = fractional[r] - f64::from(out[r]);
                if rest > most && out[r] < problem.cap(r) {
                    (pick, most) = (Some(r), rest);
                }
            }
            let Some(r) = pick else { return false };
            out[r] += 1;
            left -= 1;
        }
        if left < 0 {
            return false;
        }
        start = end;
    }
    true
}

/// `x` rounded half away from zero, for the lattice's values (far inside `i64`): a cast,
/// where `libm::round` is a software routine that took a fifth of the search's
/// instructions.
fn round(x: f64) -> f64 {
    (if x >= 0.0 { x + 0.5 } else { x - 0.5 }) as i64 as f64
}

/// The total `sum c_r e_r` of a count vector.
fn total(exposure: &[f64], counts: &[u32]) -> f64 {
    counts
        .iter()
        .zip(exposure)
        .map(|(&c, &e)| f64::from(c) * e)
        .sum()
}

/// The window `[from, to)`: every position of a list of at most [`WINDOW`], else the
/// [`WINDOW`] consecutive positions with the most counts strictly inside `0..=sessions`
/// (where a change has room both ways).
fn window(problem: &Problem<'_>, counts: &[u32], n: usize) -> (usize, usize) {
    if n <= WINDOW {
        return (0, n);
    }
    let inside = |r: usize| usize::from(counts[r] > 0 && counts[r] < problem.cap(r));
    let mut here: usize = (0..WINDOW).map(inside).sum();
    let (mut best, mut at) = (here, 0);
    for start in 1..=n - WINDOW {
        here = here + inside(start + WINDOW - 1) - inside(start - 1);
        if here > best {
            (best, at) = (here, start);
        }
    }
    (at, at + WINDOW)
}

/// A basis of the window's changes that keep each block's sum, with its Gram-Schmidt data.
struct Lattice {
    /// Basis vectors in use.
    dim: usize,
    /// Window positions.
    len: usize,
    /// The weight of a change of each window position's count: a basis vector's count
    /// coordinates are its changes times these.
    weight: [f64; WINDOW],
    basis: [[f64; COORDS]; DIM],
    /// Gram-Schmidt coefficients `mu[i][j]`, `j < i`.
    mu: [[f64; DIM]; DIM],
    /// Squared norms of the Gram-Schmidt vectors.
    norm: [f64; DIM],
    /// The Gram-Schmidt vectors (after [`Lattice::orthogonalise`]).
    star: [[f64; COORDS]; DIM],
    /// Each basis vector's count changes (after [`Lattice::orthogonalise`]), for the
    /// repair's many trials.
    steps: [[i64; WINDOW]; DIM],
}

fn dot(a: &[f64; COORDS], b: &[f64; COORDS]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl Lattice {
    /// The changes `u_r - u_{r+1}` for neighbours `r, r + 1` of one block in the window,
    /// each with its move `weight (e_r - e_{r+1})` as the last coordinate.
    fn new(problem: &Problem<'_>, from: usize, to: usize, weight: f64, counts: &[f64]) -> Self {
        let mut lattice = Lattice {
            dim: 0,
            len: to - from,
            weight: [1.0; WINDOW],
            basis: [[0.0; COORDS]; DIM],
            mu: [[0.0; DIM]; DIM],
            norm: [0.0; DIM],
            star: [[0.0; COORDS]; DIM],
            steps: [[0; WINDOW]; DIM],
        };
        lattice.weight[..to - from].copy_from_slice(counts);
        for r in (from..to - 1).rev() {
            if problem.ends.contains(&(r + 1)) {
                continue;
            }
            let v = &mut lattice.basis[lattice.dim];
            v[r - from] = counts[r - from];
            v[r + 1 - from] = -counts[r + 1 - from];
            v[WINDOW] = weight * (problem.exposure[r] - problem.exposure[r + 1]);
            lattice.dim += 1;
        }
        lattice
    }

    /// Gram-Schmidt of the basis from vector `from` on (`mu` and `norm`).
    fn gram_schmidt(&mut self, from: usize) {
        for i in from..self.dim {
            let mut v = self.basis[i];
            for j in 0..i {
                let m = dot(&self.basis[i], &self.star[j]) / self.norm[j];
                self.mu[i][j] = m;
                for (a, b) in v.iter_mut().zip(&self.star[j]) {
                    *a -= m * b;
                }
            }
            self.norm[i] = dot(&v, &v);
            self.star[i] = v;
        }
    }

    /// LLL reduction (Cohen, Algorithm 2.6.3, in floating point; the count coordinates
    /// stay exact, as every step adds integer multiples of integer vectors). The
    /// Gram-Schmidt data is updated by the swap formulas, not recomputed.
    fn reduce(&mut self) {
        self.gram_schmidt(0);
        let mut k = 1;
        // Each swap lowers a potential that is bounded below; the cap only guards
        // against floating-point cycling.
        let mut steps = 0;
        while k < self.dim && steps < 64 * DIM * DIM {
            steps += 1;
            self.size_reduce(k, k - 1);
            let m = self.mu[k][k - 1];
            if self.norm[k] >= (LOVASZ - m * m) * self.norm[k - 1] {
                for j in (0..k - 1).rev() {
                    self.size_reduce(k, j);
                }
                k += 1;
            } else {
                self.swap(k);
                k = k.max(2) - 1;
            }
        }
    }

    /// Swaps basis vectors `k - 1` and `k`, updating `mu` and `norm`.
    fn swap(&mut self, k: usize) {
        self.basis.swap(k, k - 1);
        for j in 0..k - 1 {
            let t = self.mu[k][j];
            self.mu[k][j] = self.mu[k - 1][j];
            self.mu[k - 1][j] = t;
        }
        let m = self.mu[k][k - 1];
        let b = self.norm[k] + m * m * self.norm[k - 1];
        self.mu[k][k - 1] = m * self.norm[k - 1] / b;
        self.norm[k] = self.norm[k - 1] * self.norm[k] / b;
        self.norm[k - 1] = b;
        for i in k + 1..self.dim {
            let t = self.mu[i][k];
            self.mu[i][k] = self.mu[i][k - 1] - m * t;
            self.mu[i][k - 1] = t + self.mu[k][k - 1] * self.mu[i][k];
        }
    }

    /// `b_k -= round(mu[k][l]) b_l`, with `mu` kept.
    fn size_reduce(&mut self, k: usize, l: usize) {
        let q = round(self.mu[k][l]);
        if q == 0.0 {
            return;
        }
        let bl = self.basis[l];
        for (a, b) in self.basis[k].iter_mut().zip(&bl) {
            *a -= q * b;
        }
        self.mu[k][l] -= q;
        for j in 0..l {
            self.mu[k][j] -= q * self.mu[l][j];
        }
    }

    /// Gram-Schmidt vectors of the reduced basis, for [`Lattice::nearest`].
    fn orthogonalise(&mut self) {
        self.gram_schmidt(0);
        for v in 0..self.dim {
            for i in 0..self.len {
                self.steps[v][i] = round(self.basis[v][i] / self.weight[i]) as i64;
            }
        }
    }

    /// The count change of the point with coefficients `u`.
    fn combine(&self, u: &[f64; DIM], change: &mut [i64; WINDOW]) {
        for (i, slot) in change.iter_mut().enumerate().take(self.len) {
            let p: f64 = (0..self.dim).map(|j| u[j] * self.basis[j][i]).sum();
            *slot = round(p / self.weight[i]) as i64;
        }
    }

    /// Babai's nearest plane: the lattice point nearest to `wanted` (count changes, then
    /// the weighted move), its count change into `change`; with a `detour`, the plane on
    /// the other side of the nearest at that level.
    fn nearest(&self, wanted: [f64; COORDS], detour: Option<usize>, change: &mut [i64; WINDOW]) {
        let mut t = wanted;
        let mut u = [0.0; DIM];
        for i in (0..self.dim).rev() {
            let y = dot(&t, &self.star[i]) / self.norm[i];
            let mut c = round(y);
            if detour == Some(i) {
                c += if y >= c { 1.0 } else { -1.0 };
            }
            u[i] = c;
            if c != 0.0 {
                for (a, b) in t.iter_mut().zip(&self.basis[i]) {
                    *a -= c * b;
                }
            }
        }
        self.combine(&u, change);
    }

    /// Adds reduced basis vectors (either sign) to `change` while one lowers how far
    /// `counts + change` is outside its box (`0..=`[`Problem::cap`]) on the window.
    fn repair(
        &self,
        problem: &Problem<'_>,
        counts: &[u32],
        from: usize,
        change: &mut [i64; WINDOW],
    ) {
        let mut cap = [0i64; WINDOW];
        for (i, slot) in cap.iter_mut().enumerate().take(self.len) {
            *slot = i64::from(problem.cap(from + i));
        }
        let outside = |i: usize, c: i64| (-c).max(0) + (c - cap[i]).max(0);
        let mut at = [0i64; WINDOW];
        for (i, slot) in at.iter_mut().enumerate().take(self.len) {
            *slot = i64::from(counts[from + i]) + change[i];
        }
        let mut now: i64 = (0..self.len).map(|i| outside(i, at[i])).sum();
        for _ in 0..REPAIRS {
            if now == 0 {
                return;
            }
            // The step (vector and sign) that lowers the excess most: only the positions a
            // step changes are counted again.
            let mut best = (0, 0, 0);
            for (v, step) in self.steps[..self.dim].iter().enumerate() {
                for sign in [1, -1] {
                    let gain: i64 = (0..self.len)
                        .filter(|&i| step[i] != 0)
                        .map(|i| outside(i, at[i]) - outside(i, at[i] + sign * step[i]))
                        .sum();
                    if gain > best.0 {
                        best = (gain, v, sign);
                    }
                }
            }
            let (gain, v, sign) = best;
            if gain == 0 {
                return;
            }
            for i in 0..self.len {
                change[i] += sign * self.steps[v][i];
                at[i] += sign * self.steps[v][i];
            }
            now -= gain;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rng;

    /// Over random blocks, sessions and targets: a finished vector keeps every count in the
    /// box and every block's sum, and its total is the one `accept` was shown.
    #[test]
    fn a_finished_vector_stays_in_the_box_and_keeps_the_blocks_sums() {
        let mut rng = Rng::new(3);
        let mut taken = 0;
        for round in 0..200 {
            let n = 6 + (rng.next_u64() % 30) as usize;
            let sessions = 2 + (rng.next_u64() % 6) as usize;
            let mut e = [0.0; 40];
            for (r, slot) in e.iter_mut().enumerate().take(n) {
                *slot = 1.0 / libm::log2(r as f64 + 2.0);
            }
            let e = &e[..n];
            // One block, or two cut at a random place.
            let cut = 2 + (rng.next_u64() as usize % (n - 3));
            let two = [cut, n];
            let ends: &[usize] = if round % 2 == 0 { &[n] } else { &two };
            let mut counts = [0u32; 40];
            for c in counts.iter_mut().take(n) {
                *c = (rng.next_u64() % (sessions as u64 + 1)) as u32;
            }
            let before = counts;
            let sum = |c: &[u32], from: usize, to: usize| c[from..to].iter().sum::<u32>();
            let x: f64 = total(e, &counts[..n]);
            let target = x + (rng.unit_f64() - 0.5) * 0.2;
            let problem = Problem {
                exposure: e,
                ends,
                sessions,
                capacity: None,
            };
            let seen = core::cell::Cell::new(f64::NAN);
            let took = finish(&problem, &mut counts[..n], target, 1e-9, |t| {
                seen.set(t);
                (t - target).abs() < 1e-7
            });
            if took {
                taken += 1;
                assert!(counts[..n].iter().all(|&c| c as usize <= sessions));
                let mut from = 0;
                for &end in ends {
                    assert_eq!(sum(&counts, from, end), sum(&before, from, end));
                    from = end;
                }
                assert!((total(e, &counts[..n]) - seen.get()).abs() < 1e-9);
            } else {
                assert_eq!(counts, before);
            }
        }
        // Most random targets a tenth of a unit away are met to 1e-7.
        assert!(taken > 100, "{taken} of 200");
    }

    /// One session has no lattice worth the name (counts 0 or 1): nothing is changed.
    #[test]
    fn one_session_is_left_to_the_walk() {
        let e = [1.0, 0.6, 0.5, 0.4];
        let problem = Problem {
            exposure: &e,
            ends: &[4],
            sessions: 1,
            capacity: None,
        };
        let mut counts = [1, 0, 1, 0];
        assert!(!finish(&problem, &mut counts, 1.4, 1e-9, |_| true));
        assert_eq!(counts, [1, 0, 1, 0]);
    }
}
