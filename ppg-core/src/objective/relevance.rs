//! The relevance certificate: an upper bound on the mean NDCG@k of every two-group
//! ranking whose group 0 receives a total exposure within a window, the fairness-optimal
//! set of the two-group metrics.
//!
//! # Why a window of one total
//!
//! The two-group DTR and EEL depend on a multi-session ranking only through `x`, the
//! exposure group 0 receives summed over the sessions ([`super::bound`]), so the rankings
//! within a tolerance of the optimum are those whose `x` lies in an interval `[lo, hi]`
//! (DTR: [`dtr_window`]).
//!
//! # Why a session's best DCG is a walk over (position, items of group 0 placed)
//!
//! Within one session, once it is fixed which positions group 0 holds (its pattern), the
//! most relevant ranking puts each group's items on its positions in order of gain (the
//! discounts do not increase: rearrangement), or in the order the caller must keep (the
//! intra-group constraint: [`Lists::gain`] in that order). So a session's value is a
//! function of its pattern alone, `D(p)`, and so is its exposure `E0(p)`.
//!
//! # The bound
//!
//! The best total DCG over `S` sessions with `lo <= sum_s E0(p_s) <= hi` is at most, for
//! every multiplier `v`, `S max_p (D(p) - v E0(p)) + v hi` (`v >= 0`) or `+ v lo` (`v <
//! 0`): weak duality. The inner maximum is a dynamic programme over positions and the
//! number of group-0 items placed, `O(n k_0)` (`Lists::session`); [`Lists::dual`]
//! minimises over `v` by bisection on its subgradient, and every `v` it tries is a valid
//! bound, so rounding in the search can only make the bound looser, never wrong. It is the
//! bound of the convex hull of the patterns, so it is tight when sessions can mix patterns
//! finely (many sessions); at one session, where the tolerance's window usually holds one
//! pattern, [`Lists::single`] walks the patterns inside the window instead and is exact
//! when it finishes.
//!
//! [`Lists::hull`] traces the two patterns either side of the bound's breakpoint (the
//! recipe mixes them over the sessions, `recipe/lex.rs`).
//!
//! Over 400 lines: the bound, its dynamic programme traced back to patterns, and the
//! one-session walk are one algorithm over one view of the query ([`Lists`]).
//!
//! Caller's constraints beyond the order within groups (pairs it forbids to swap) only
//! shrink the set, so the bound stays an upper bound; it is then exact only when a
//! returned ranking reaches it.

/// One query's two groups as the relevance bound sees them.
#[derive(Debug, Clone, Copy)]
pub struct Lists<'a> {
    /// Each group's gains in the order its items take the group's positions: descending
    /// where the order within groups is free, the kept order otherwise.
    pub gain: [&'a [f64]; 2],
    /// NDCG's discount of the first `min(n, k)` positions; 0 below them.
    pub discount: &'a [f64],
    /// The fairness metric's exposure of each of the `n` positions, non-increasing.
    pub exposure: &'a [f64],
}

/// Where a session's best pattern at one multiplier lands: its Lagrangian value and
/// group 0's exposure (the subgradient's part).
#[derive(Debug, Clone, Copy)]
struct Best {
    value: f64,
    e0: f64,
}

/// [`Lists::bracket`]'s answer.
#[derive(Debug, Clone, Copy)]
struct Bracket {
    bound: f64,
    near: f64,
    far: f64,
}

/// One session's pattern as the sum over sessions sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pattern {
    /// Its DCG, each group's gains dealt onto its positions in their order.
    pub dcg: f64,
    /// Group 0's exposure.
    pub e0: f64,
}

/// [`Lists::hull`]'s answer: the bound and the patterns either side of the breakpoint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hull {
    /// The Lagrangian bound on the total DCG over the sessions ([`Lists::dual`]).
    pub bound: f64,
    /// The pattern on the side the unconstrained best lies (misses the window alone).
    pub near: Pattern,
    /// The pattern past the breakpoint.
    pub far: Pattern,
}

/// Values of [`Lists::dual`]'s `work` per item of group 0, and as many more.
pub const DUAL_WORK: usize = 2;

/// Bisection steps of [`Lists::dual`]: the multiplier's bracket halves each time, far
/// below a DCG's rounding after 200.
const STEPS: u32 = 200;

impl Lists<'_> {
    fn items(&self) -> usize {
        self.gain[0].len() + self.gain[1].len()
    }

    fn discount(&self, r: usize) -> f64 {
        self.discount.get(r).copied().unwrap_or(0.0)
    }

    /// `max_p D(p) - v E0(p)` over one session's patterns, with the exposure of a pattern
    /// that reaches it. `work`: 2 values per item of group 0, and 2 more. With `choice`
    /// (`n (k_0 + 1)` bytes), which group took each position on the way to each state, for
    /// [`Lists::trace`].
    fn session(&self, v: f64, work: &mut [f64], mut choice: Option<&mut [u8]>) -> Best {
        let (k0, k1) = (self.gain[0].len(), self.gain[1].len());
        let (value, rest) = work.split_at_mut(k0 + 1);
        let e0 = &mut rest[..k0 + 1];
        value.fill(f64::NEG_INFINITY);
        value[0] = 0.0;
        e0[0] = 0.0;
        for r in 0..self.items() {
            let (d, e) = (self.discount(r), self.exposure[r]);
            // Descending `j`, so that `j - 1` is still the value after `r` positions.
            let top = k0.min(r + 1);
            let bottom = (r + 1).saturating_sub(k1);
            for j in (bottom..=top).rev() {
                let mut best = f64::NEG_INFINITY;
                let mut be = 0.0;
                let mut zero = false;
                // Position r to group 1, its item r - j.
                if j <= r && r - j < k1 && value[j] > f64::NEG_INFINITY {
                    let g = self.gain[1][r - j] * d;
                    best = value[j] + g;
                    be = e0[j];
                }
                // Position r to group 0, its item j - 1.
                if j >= 1 && value[j - 1] > f64::NEG_INFINITY {
                    let g = self.gain[0][j - 1] * d;
                    let candidate = value[j - 1] + g - v * e;
                    if candidate > best {
                        best = candidate;
                        be = e0[j - 1] + e;
                        zero = true;
                    }
                }
                value[j] = best;
                if let Some(choice) = choice.as_deref_mut() {
                    choice[r * (k0 + 1) + j] = u8::from(zero);
                }
                e0[j] = be;
            }
            if bottom > 0 {
                value[bottom - 1] = f64::NEG_INFINITY;
            }
        }
        Best {
            value: value[k0],
            e0: e0[k0],
        }
    }

    /// An upper bound on the total DCG over `sessions` sessions of the rankings whose
    /// group 0 receives between `lo` and `hi` exposure in all; `None` when `work` is
    /// shorter than [`DUAL_WORK`] values per item of group 0 and as many more, or no ranking can
    /// be in the window. Weak duality, see the module's docs.
    pub fn dual(&self, sessions: usize, lo: f64, hi: f64, work: &mut [f64]) -> Option<f64> {
        self.bracket(sessions, lo, hi, work).map(|b| b.bound)
    }

    /// [`Lists::dual`]'s search, with the multipliers either side of the breakpoint:
    /// `near` (its pattern misses the window on the side the search started from) and
    /// `far` (its pattern does not), both signed; equal (0) when the unconstrained best
    /// is in the window.
    fn bracket(&self, sessions: usize, lo: f64, hi: f64, work: &mut [f64]) -> Option<Bracket> {
        if work.len() < DUAL_WORK * (self.gain[0].len() + 1)
            || lo.partial_cmp(&hi).is_none_or(|o| o.is_gt())
        {
            return None;
        }
        let s = sessions as f64;
        let phi = |this: &Self, v: f64, work: &mut [f64]| {
            let b = this.session(v, work, None);
            let edge = if v >= 0.0 { hi } else { lo };
            (s * b.value + v * edge, s * b.e0)
        };
        let (mut best, x) = phi(self, 0.0, work);
        if (lo..=hi).contains(&x) {
            return Some(Bracket {
                bound: best,
                near: 0.0,
                far: 0.0,
            });
        }
        // The side the multiplier lies on: positive when group 0 has too much exposure.
        let sign = if x > hi { 1.0 } else { -1.0 };
        let past = |x: f64| if sign > 0.0 { x <= hi } else { x >= lo };
        // A multiplier past the breakpoint: doubling from the scale of a gain per exposure.
        let top = self.gain[0]
            .iter()
            .chain(self.gain[1])
            .fold(0.0f64, |m, &g| m.max(g));
        let mut far = (top * self.discount(0)).max(1.0) / self.exposure[0].max(f64::MIN_POSITIVE);
        let mut near = 0.0;
        let mut found = false;
        for _ in 0..200 {
            let (value, x) = phi(self, sign * far, work);
            best = best.min(value);
            if past(x) {
                found = true;
                break;
            }
            near = far;
            far *= 2.0;
        }
        if !found {
            // Even the extreme pattern misses the window: no ranking is in it.
            return None;
        }
        for _ in 0..STEPS {
            let mid = 0.5 * (near + far);
            if mid <= near || mid >= far {
                break;
            }
            let (value, x) = phi(self, sign * mid, work);
            best = best.min(value);
            if past(x) {
                far = mid;
            } else {
                near = mid;
            }
        }
        Some(Bracket {
            bound: best,
            near: sign * near,
            far: sign * far,
        })
    }

    /// The two patterns of the convex hull either side of the window's breakpoint over
    /// `sessions` sessions ([`Lists::dual`]'s), written into `near` and `far` (1: group 0
    /// holds the position), with the Lagrangian bound. A mix of them over the sessions
    /// reaches the bound up to one session's share (module docs). `choice`: `n (k_0 + 1)`
    /// bytes; `near` and `far`: `n` each. `None` as [`Lists::dual`], or for short memory.
    pub fn hull(
        &self,
        sessions: usize,
        (lo, hi): (f64, f64),
        work: &mut [f64],
        choice: &mut [u8],
        near: &mut [u8],
        far: &mut [u8],
    ) -> Option<Hull> {
        let n = self.items();
        let k0 = self.gain[0].len();
        if choice.len() < n * (k0 + 1) || near.len() < n || far.len() < n {
            return None;
        }
        let b = self.bracket(sessions, lo, hi, work)?;
        let mut side = [Pattern { dcg: 0.0, e0: 0.0 }; 2];
        for (slot, (v, out)) in side.iter_mut().zip([(b.near, near), (b.far, far)]) {
            self.session(v, work, Some(choice));
            *slot = self.trace(choice, out);
        }
        Some(Hull {
            bound: b.bound,
            near: side[0],
            far: side[1],
        })
    }

    /// The pattern [`Lists::session`] chose, from its `choice`, into `out`, with its DCG
    /// and exposure.
    fn trace(&self, choice: &[u8], out: &mut [u8]) -> Pattern {
        let (n, k0) = (self.items(), self.gain[0].len());
        let mut j = k0;
        for r in (0..n).rev() {
            let zero = choice[r * (k0 + 1) + j];
            out[r] = zero;
            j -= usize::from(zero);
        }
        self.measure(&out[..n])
    }

    /// A pattern's DCG alone: [`Lists::measure`] down to the cut-off.
    pub fn dcg(&self, pattern: &[u8]) -> f64 {
        let (mut a, mut b, mut dcg) = (0, 0, 0.0);
        for (&zero, &d) in pattern.iter().zip(self.discount) {
            let g = if zero == 1 {
                a += 1;
                self.gain[0].get(a - 1)
            } else {
                b += 1;
                self.gain[1].get(b - 1)
            };
            dcg += g.copied().unwrap_or(0.0) * d;
        }
        dcg
    }

    /// A pattern's DCG (each group's gains dealt onto its positions) and group 0's
    /// exposure.
    pub fn measure(&self, pattern: &[u8]) -> Pattern {
        let (mut a, mut b) = (0, 0);
        let mut p = Pattern { dcg: 0.0, e0: 0.0 };
        for (r, &zero) in pattern.iter().enumerate() {
            let g = if zero == 1 {
                a += 1;
                p.e0 += self.exposure[r];
                self.gain[0][a - 1]
            } else {
                b += 1;
                self.gain[1][b - 1]
            };
            p.dcg += g * self.discount(r);
        }
        p
    }

    /// The best DCG of one session whose group 0 receives between `lo` and `hi`, if above
    /// `floor`, by a walk over the patterns in the window with the best completion as its
    /// cut. `Some((best, complete))`: `best` is `floor` when no pattern above it was met;
    /// `complete` when every pattern was walked within `budget` nodes (then nothing in the
    /// window beats `best`). With `pattern` (at least `2 n` bytes), its first `n` say
    /// which positions group 0 holds in the best pattern met above `floor` (1) or not (0),
    /// when one was. `None` when `prefix` is shorter than `n + 1`, the exposures
    /// increase somewhere, a group's gains are not in descending order (the walk's cut
    /// merges them), or the list is longer than [`super::bound::MAX_SEARCH_ITEMS`].
    pub fn single(
        &self,
        lo: f64,
        hi: f64,
        floor: f64,
        budget: u64,
        prefix: &mut [f64],
        pattern: Option<&mut [u8]>,
    ) -> Option<(f64, bool)> {
        let n = self.items();
        if prefix.len() < n + 1
            || pattern.as_ref().is_some_and(|p| p.len() < 2 * n)
            || n > super::bound::MAX_SEARCH_ITEMS
            || self.exposure[..n].windows(2).any(|w| w[1] > w[0])
            || self.gain.iter().any(|g| g.windows(2).any(|w| w[1] > w[0]))
        {
            return None;
        }
        prefix[0] = 0.0;
        for r in 0..n {
            prefix[r + 1] = prefix[r] + self.exposure[r];
        }
        let mut walk = Walk {
            lists: self,
            prefix: &prefix[..n + 1],
            lo,
            hi,
            best: floor,
            nodes: 0,
            budget,
            pattern: pattern.map(|p| p.split_at_mut(n)),
        };
        walk.visit(0, 0, 0.0, 0.0);
        Some((walk.best, walk.nodes <= walk.budget))
    }
}

/// [`Lists::single`]'s depth-first walk.
struct Walk<'w, 'a> {
    lists: &'w Lists<'a>,
    prefix: &'w [f64],
    lo: f64,
    hi: f64,
    best: f64,
    nodes: u64,
    budget: u64,
    /// The best pattern met and the one walked (1: group 0 holds the position).
    pattern: Option<(&'w mut [u8], &'w mut [u8])>,
}

impl Walk<'_, '_> {
    /// Position `r` onwards, `j` items of group 0 placed, exposure `x` and DCG `dcg` so
    /// far.
    fn visit(&mut self, r: usize, j: usize, x: f64, dcg: f64) {
        self.nodes += 1;
        if self.nodes > self.budget {
            return;
        }
        let lists = self.lists;
        let (k0, n) = (lists.gain[0].len(), lists.items());
        let m = k0 - j;
        // The totals the rest can add: the m lowest and the m highest exposures left.
        let least = self.prefix[n] - self.prefix[n - m];
        let most = self.prefix[r + m] - self.prefix[r];
        if x + most < self.lo || x + least > self.hi {
            return;
        }
        if r == n {
            if dcg > self.best {
                self.best = dcg;
                if let Some((best, path)) = &mut self.pattern {
                    best.copy_from_slice(&path[..n]);
                }
            }
            return;
        }
        if dcg + self.rest(r, j) <= self.best {
            return;
        }
        let i = r - j;
        let d = lists.discount(r);
        let zero = (j < k0).then(|| lists.gain[0][j]);
        let one = (i < lists.gain[1].len()).then(|| lists.gain[1][i]);
        // The more relevant item first: good totals come early and cut more.
        let zero_first = match (zero, one) {
            (Some(a), Some(b)) => a >= b,
            (a, _) => a.is_some(),
        };
        for take_zero in [zero_first, !zero_first] {
            if let Some((_, path)) = &mut self.pattern {
                path[r] = u8::from(take_zero);
            }
            match (take_zero, zero, one) {
                (true, Some(g), _) => self.visit(r + 1, j + 1, x + lists.exposure[r], dcg + g * d),
                (false, _, Some(g)) => self.visit(r + 1, j, x, dcg + g * d),
                _ => {}
            }
        }
    }

    /// The most DCG positions `r..` can add with `j` items of group 0 placed: both
    /// groups' remaining gains (each descending) merged in descending order, the
    /// rearrangement bound of every pattern's.
    fn rest(&self, r: usize, j: usize) -> f64 {
        let lists = self.lists;
        let (mut a, mut b) = (j, r - j);
        let [g0, g1] = lists.gain;
        let mut sum = 0.0;
        for p in r..lists.discount.len().min(lists.items()) {
            let take_a = match (g0.get(a), g1.get(b)) {
                (Some(x), Some(y)) => x >= y,
                (x, _) => x.is_some(),
            };
            let g = if take_a {
                a += 1;
                g0[a - 1]
            } else {
                b += 1;
                g1[b - 1]
            };
            sum += g * lists.discount[p];
        }
        sum
    }
}

/// The window of group 0's total exposure over `sessions` sessions in which the two-group
/// DTR (exposure per unit of utility, the larger ratio over the smaller) is at most
/// `ratio`, given each group's utility in one list and one list's total exposure; widened
/// by a relative `1e-12` so that no ranking DTR scores within it falls outside by rounding.
pub fn dtr_window(utility: [f64; 2], total: f64, sessions: usize, ratio: f64) -> (f64, f64) {
    let all = sessions as f64 * total;
    let [u0, u1] = utility;
    // ratio_0 / ratio_1 = x u1 / ((all - x) u0) between 1 / ratio and ratio.
    let lo = all * u0 / (ratio * u1 + u0);
    let hi = all * ratio * u0 / (u1 + ratio * u0);
    let slack = 1e-12 * all;
    (lo - slack, hi + slack)
}

/// The window of group 0's total exposure over `sessions` sessions in which the two-group
/// EEL (`sum_g (exposure_g / S - target_g)^2`) is at most `level`, given the groups'
/// targets in one session and one list's total exposure; widened as [`dtr_window`].
/// `None` when no total reaches `level`.
pub fn eel_window(target: [f64; 2], total: f64, sessions: usize, level: f64) -> Option<(f64, f64)> {
    let s = sessions as f64;
    let [t0, t1] = target;
    // With y = x / S: 2 y^2 - 2 b y + c <= 0.
    let b = t0 + total - t1;
    let c = t0 * t0 + (total - t1) * (total - t1) - level;
    let disc = b * b - 2.0 * c;
    if disc.is_nan() || disc < 0.0 {
        return None;
    }
    let root = libm::sqrt(disc);
    let slack = 1e-12 * s * total + 1e-12;
    Some((s * (b - root) / 2.0 - slack, s * (b + root) / 2.0 + slack))
}
