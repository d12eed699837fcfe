//! The least DTR over `S` deterministic rankings of a list of more than two groups
//! ([`DtrGroups`](super::DtrGroups)): the exact optimum where a budgeted search proves it,
//! a certified lower bound where it does not.
//!
//! It is the many-group counterpart of [`bound`], and like it uses no memory
//! of its own: fixed arrays over [`MAX_GROUPS`] and the caller's `n + 1` prefix sums. The
//! brute-force tests that check it are `ppg-core/tests/bound_groups.rs`.
//!
//! # Which group totals are achievable
//!
//! DTR depends on the rankings only through `x_G`, the exposure group `G` receives summed
//! over the sessions. Let `c[G][r]` be the number of sessions in which group `G` holds
//! position `r`: every column sums to `S`, row `G` to `S n_G`, and `x_G = sum_r c[G][r] e_r`.
//! Conversely every such integer matrix comes from `S` rankings: split row `G` among its
//! `n_G` items so that each item gets `S` placements; the item-by-position matrix then has
//! every row and column summing to `S`, and by König's theorem an `S`-regular bipartite
//! multigraph is `S` perfect matchings, one ranking each. So the optimum over `S`-tuples of
//! rankings is the optimum over these count matrices.
//!
//! # The lower bound: a polymatroid and a box
//!
//! Let `a_G` be the exposure placed so far and `m_A` the placements a set `A` of groups
//! still has to make. Every completion gives `A` at most `top(A)`, the most it can
//! collect (the slots of position `r` still open to it, then the best slots of the later
//! positions, `S` each), and at least `bottom(A)`, what is left when the other groups
//! collect their most. DTR at most `q` means, for some scale `t`, the box
//! `t U_G <= x_G <= q t U_G` (with `U_G` the group's utility); summed over `A`, a
//! completion in it has `t U(A) <= top(A) + a(A)` and `q t U(A) >= bottom(A) + a(A)`.
//! Eliminating `t`, no completion has a DTR below
//!
//! `max(1, max_A (bottom(A) + a(A)) / U(A)  /  min_A (top(A) + a(A)) / U(A))`
//!
//! over the nonempty sets of groups with utility (`2^k - 1` sets for `k` such groups);
//! where nothing is left to place it is the DTR of the totals. At the root, `top(A)` is
//! the sum of the `S m_A` largest slots, a concave function of a sum, so submodular, and
//! the inequalities describe a generalised polymatroid that holds every relaxed count
//! matrix; by Frank's intersection theorem such a polymatroid meets a box exactly when
//! those inequalities hold, so the root's value is the least DTR of the relaxation: the
//! **hull bound**, the same for every `S` (the sessions scale both sides).
//!
//! # The search, and when it is exact
//!
//! [`solve`] walks the count matrices by depth-first branch and bound, position by position
//! from the top and, within a position, group by group (the groups without utility, which
//! only fill slots, as one group, decided last). A group's count at a position ranges over
//! what keeps the rest placeable; the choices are tried from the lowest bound outwards,
//! always to the side with the lower one, so that good totals come first, and each is cut
//! on its own bound. The search stops
//!
//! - when it has walked every branch: the best total found is the optimum
//!   ([`Bound::exact`]);
//! - when the best total is within [`TOLERANCE`] of the hull bound: the optimum is known to
//!   that tolerance, and counts as exact too;
//! - where a short walk (500 sets) neither ends nor
//!   meets the hull bound: first the **pooled bound** (each group against the others
//!   pooled: DTR over the groups is at least their two-group DTR, whose optimum
//!   [`bound::solve`] gives) raises the floor, then `peel` builds a count matrix group
//!   by group with the two-group lattice, its first group at that group's two-group
//!   optimum and the others aimed at one ratio; a matrix within the tolerance of the floor
//!   makes the bound exact;
//! - where none was found and some group's pooled bound is above 1: that group's rows are
//!   walked first (`Search::rows`), only those whose two-group DTR against the others is
//!   below the incumbent, each completed by the other groups (over three groups, a row on
//!   whole positions by a two-group search, [`Shape::DtrBeside`]; otherwise by the walk
//!   with the row fixed); every row walked to its end proves the incumbent optimal, and
//!   where the budget runs out first the walk below runs to its whole budget;
//! - after `budget` sets of groups evaluated (`2^k - 1` a bound), or at once when the
//!   walk would recurse more than [`MAX_SEARCH_DEPTH`] times (one level per position and
//!   group): then the proven lower bound is the hull bound alone, and [`Bound::exact`] is
//!   false. It gives up with that flag; it never certifies what it has not proven.

use super::bound::{self, Bound, BoundError, Shape, MAX_BLOCKS, TOLERANCE};
use super::peel::{self, Matrix, LIST, ROWS};
use super::MAX_GROUPS;

/// Sets of groups evaluated (each bound evaluates `2^k - 1` of them) by the lower bound
/// [`DtrGroups`](super::DtrGroups) gives ([`crate::Objective::lower_bound`]), which a
/// certifying run computes at every stage. On the graded file of `ppg_lab::shapes` (1,000
/// queries x 20 items, 3 groups; 1, 4 and 32 sessions) 400,000 sets certify 99.6%, 87.6%
/// and 98.1% of the queries where 5,000 certified 53.1%, 76.9% and 93.4% (100,000: 89.6%,
/// 81.4%, 95.7%), for 2.9x, 1.8x and 0.8x the CPU (docs/performance.md; over 4 groups 3.6x,
/// 2.4x): a walk that ends proves an optimum above the
/// hull and pooled bounds, which only a complete walk can. (On TREC 2019 with groups by
/// position modulo 3 or 4, 5,000 to 200,000 sets certified the same queries.)
pub const CERTIFY_BUDGET: u64 = 400_000;

/// The deepest walk [`solve`] makes (a level per position and group): the walk recurses
/// once per level, each frame holding the bounds of its choices, and a deeper stack than
/// this many frames is more than a thread's stack should lend (a C caller's may be small).
/// Deeper lists (past 64 items of 3 groups and one without utility) get the hull bound
/// alone; the TREC lists (at most 32 items) stay within it, and a walk that deep would
/// spend most of the certifying budget on its first descent (each level evaluates every
/// choice's bound).
pub const MAX_SEARCH_DEPTH: usize = 256;

/// The groups the search places: the groups with utility, and one for all the others.
const SLOTS: usize = MAX_GROUPS + 1;

/// Sets of groups the first, short walk evaluates before the lattice peels a count matrix
/// towards a point of the hull bound ([`peel`]).
const FIRST_WALK: u64 = 500;

/// The choices of one group at one position whose bounds a level of the walk keeps (a
/// count of 0 to 32 sessions); more are evaluated again when the walk reaches them.
const CACHED: usize = 33;

/// The least DTR (the ratio, at least 1) over `sessions` rankings of the list whose item
/// `i` is in group `group[i]`, with `utility[G]` the utility of group `G` in one list
/// (0 for a group without: it takes no part in DTR) and `exposure[r]` at position `r`
/// (positive, non-increasing), evaluating at most `budget` sets of groups (see the module
/// docs). `prefix` (at least `n + 1` long) is the search's memory. Fewer than two
/// groups with utility: DTR is 1 whatever the ranking, exactly.
///
/// # Errors
/// - [`BoundError::Degenerate`] for no sessions or no items, a group id at or above
///   `utility.len()`, more than [`MAX_GROUPS`] utilities, or `n * sessions` beyond `usize`.
/// - [`BoundError::Exposure`] for an exposure that is not positive and finite, exposures
///   that increase, a utility that is not finite and `>= 0`, or `exposure` shorter than
///   the list.
/// - [`BoundError::Scratch`] when `prefix` is shorter than `n + 1`.
pub fn solve(
    group: &[u8],
    utility: &[f64],
    exposure: &[f64],
    sessions: usize,
    budget: u64,
    prefix: &mut [f64],
) -> Result<Bound, BoundError> {
    solve_with(group, utility, exposure, sessions, budget, prefix, None).map(|(b, _)| b)
}

/// [`solve`], with the best count matrix written to `matrix` when one was found and the
/// list fits it (at most [`LIST`] items, [`ROWS`] slots): row `j < k` for the `j`-th group
/// with utility in id order, row `k` for the items of every group without; the number of
/// rows in use, 0 when none was written.
pub(crate) fn solve_with(
    group: &[u8],
    utility: &[f64],
    exposure: &[f64],
    sessions: usize,
    budget: u64,
    prefix: &mut [f64],
    matrix: Option<&mut Matrix>,
) -> Result<(Bound, usize), BoundError> {
    let n = group.len();
    if sessions == 0 || n == 0 || utility.len() > MAX_GROUPS {
        return Err(BoundError::Degenerate);
    }
    let exposure = exposure.get(..n).ok_or(BoundError::Exposure)?;
    if exposure.iter().any(|&e| !(e.is_finite() && e > 0.0))
        || exposure.windows(2).any(|w| w[1] > w[0])
        || utility.iter().any(|&u| !(u.is_finite() && u >= 0.0))
    {
        return Err(BoundError::Exposure);
    }
    // Slot of each group: the groups with utility first, in id order, then one for the rest.
    let mut slot = [0usize; MAX_GROUPS];
    let mut share = [0.0f64; MAX_GROUPS];
    let mut k = 0;
    for (g, &u) in utility.iter().enumerate() {
        if u > 0.0 {
            slot[g] = k;
            share[k] = u;
            k += 1;
        }
    }
    let mut items = [0usize; SLOTS];
    for &g in group {
        let g = usize::from(g);
        let u = *utility.get(g).ok_or(BoundError::Degenerate)?;
        items[if u > 0.0 { slot[g] } else { k }] += 1;
    }
    let prefix = prefix.get_mut(..=n).ok_or(BoundError::Scratch)?;
    if k < 2 {
        return Ok((
            Bound {
                lower: 1.0,
                value: 1.0,
                exact: true,
            },
            0,
        ));
    }
    prefix[0] = 0.0;
    for r in 0..n {
        prefix[r + 1] = prefix[r] + exposure[r];
    }
    // Placements per slot: at most `n * sessions`, which the engine's layout bounds.
    n.checked_mul(sessions).ok_or(BoundError::Degenerate)?;
    let mut left = [0usize; SLOTS];
    for (l, &c) in left.iter_mut().zip(&items) {
        *l = c * sessions;
    }
    let slots = k + usize::from(items[k] > 0);
    let mut search = Search {
        exposure,
        prefix,
        sessions,
        groups: k,
        slots,
        utility: share,
        left,
        placed: [0.0; MAX_GROUPS],
        best: f64::INFINITY,
        evaluations: 0,
        budget,
        stopped: false,
        floor: 0.0,
        // Counts and row sums as `u32`: every placement count fits.
        record: n <= LIST
            && slots <= ROWS
            && n.checked_mul(sessions)
                .is_some_and(|m| u32::try_from(m).is_ok()),
        walk: [[0; LIST]; ROWS],
        found: [[0; LIST]; ROWS],
        fixed: None,
        open: [0; LIST + 1],
        reach: [0.0; LIST + 1],
        widest: None,
    };
    search.floor = search.lower(0, 0, sessions);
    if n.saturating_mul(slots) <= MAX_SEARCH_DEPTH {
        // A short walk first (at one session too: the pooled bound then halves the largest
        // gap of the graded 3-group file, 0.0533 against 0.121); where it neither ends nor meets
        // the hull bound, the lattice peels a count matrix towards a point of the hull
        // bound ([`peel`]), and where that fails too the walk runs to its whole budget.
        let short = search.record;
        search.budget = if short {
            budget.min(FIRST_WALK)
        } else {
            budget
        };
        search.visit(0, 0, sessions);
        if short && search.stopped && search.best - search.floor > TOLERANCE {
            let widest = search.finish();
            if search.best - search.floor > TOLERANCE && budget > FIRST_WALK {
                // Where the pooled bound lifted the floor, the optimum has that group's
                // row within the incumbent's reach of its two-group optimum: a few rows,
                // each leaving a walk over one dimension ([`Search::rows`]).
                if let Some(g) = widest {
                    // Over more groups the walk completes the rows; a tenth of the budget
                    // for them there certified none of the 11 more queries at one session
                    // of the graded 4-group file and cost more (docs/performance.md).
                    (search.evaluations, search.budget, search.stopped) = (0, budget, false);
                    search.rows(g);
                }
                if search.stopped && search.best - search.floor > TOLERANCE {
                    (search.evaluations, search.budget, search.stopped) = (0, budget, false);
                    search.visit(0, 0, sessions);
                }
            }
        }
    } else {
        search.stopped = true;
    }
    let rows = match matrix {
        Some(out) if search.record && search.best.is_finite() => {
            *out = search.found;
            slots
        }
        _ => 0,
    };
    Ok((
        Bound::of_walk(search.best, search.floor, search.stopped),
        rows,
    ))
}

/// The depth-first branch and bound over count matrices.
struct Search<'a> {
    exposure: &'a [f64],
    /// `prefix[r]`: the exposure of positions `0..r`.
    prefix: &'a [f64],
    sessions: usize,
    /// `k`: the groups with utility, slots `0..k`.
    groups: usize,
    /// `k`, plus one when some items are in groups without utility (slot `k`).
    slots: usize,
    /// Each slot's utility in one list.
    utility: [f64; MAX_GROUPS],
    /// Placements each slot still needs.
    left: [usize; SLOTS],
    /// Exposure each group with utility holds so far.
    placed: [f64; MAX_GROUPS],
    best: f64,
    evaluations: u64,
    budget: u64,
    stopped: bool,
    /// The hull bound: nothing is lower, so reaching it ends the search.
    floor: f64,
    /// Whether the walk keeps its count matrices (the list fits one).
    record: bool,
    /// The walk's count matrix, row per slot.
    walk: Matrix,
    /// The count matrix of `best`.
    found: Matrix,
    /// The slot whose whole row [`Search::rows`] fixed before the walk (its counts in
    /// `walk`), when one is.
    fixed: Option<usize>,
    /// `open[r]`: the slots of positions `0..r` the other slots share (`sessions` less the
    /// fixed row's counts), and `reach[r]` their exposure.
    open: [usize; LIST + 1],
    reach: [f64; LIST + 1],
    /// The group with the largest pooled bound and that bound, when it is above 1
    /// ([`Search::pooled`]).
    widest: Option<(usize, f64)>,
}

impl Search<'_> {
    /// The most exposure `m` placements collect at the root: the best slots, `sessions`
    /// of each position.
    fn top(&self, m: usize) -> f64 {
        let s = self.sessions;
        let (full, part) = (m / s, m % s);
        s as f64 * self.prefix[full]
            + if part > 0 {
                part as f64 * self.exposure[full]
            } else {
                0.0
            }
    }

    /// A point of the hull where DTR is the hull bound, each slot's total: the scale
    /// interval of the module docs' box, `[lo U, hi U]` per group with utility (and
    /// `[0, all]` for the slot without), met with the polymatroid of totals. That meet is
    /// the base polytope of `f'(A) = min_D f(D) + u(A - D) - l(D - A)` (Fujishige), `f`
    /// the most a set of slots collects; the point is the mean of its greedy vertices over
    /// every order of the slots, so that it keeps off the meet's faces where it can.
    fn hull_point(&self) -> [f64; ROWS] {
        let (k, slots) = (self.groups, self.slots);
        let all: usize = self.left[..slots].iter().sum();
        let whole = self.top(all);
        let (mut low, mut high) = (f64::INFINITY, 0.0f64);
        for set in 1u32..1 << k {
            let (mut m, mut u) = (0, 0.0);
            for g in (0..k).filter(|g| set >> g & 1 == 1) {
                m += self.left[g];
                u += self.utility[g];
            }
            low = low.min(self.top(m) / u);
            high = high.max((whole - self.top(all - m)) / u);
        }
        let (lo, hi) = if high >= low {
            (low, high)
        } else {
            ((low + high) / 2.0, (low + high) / 2.0)
        };
        let (mut l, mut u) = ([0.0; ROWS], [whole; ROWS]);
        for g in 0..k {
            (l[g], u[g]) = (lo * self.utility[g], hi * self.utility[g]);
        }
        let mut f = [0.0; 1 << ROWS];
        for (set, slot) in f.iter_mut().enumerate().take(1 << slots) {
            let m: usize = (0..slots)
                .filter(|j| set >> j & 1 == 1)
                .map(|j| self.left[j])
                .sum();
            *slot = self.top(m);
        }
        let mut reduced = [0.0; 1 << ROWS];
        for (a, slot) in reduced.iter_mut().enumerate().take(1 << slots) {
            *slot = (0..1usize << slots)
                .map(|d| {
                    let mut v = f[d];
                    for j in 0..slots {
                        match (a >> j & 1, d >> j & 1) {
                            (1, 0) => v += u[j],
                            (0, 1) => v -= l[j],
                            _ => {}
                        }
                    }
                    v
                })
                .fold(f64::INFINITY, f64::min);
        }
        let mut point = [0.0; ROWS];
        let orders: usize = (1..=slots).product();
        for index in 0..orders {
            // The index's permutation (Lehmer code).
            let (mut rest, mut set) = (index, 0usize);
            let mut unused = [0usize; ROWS];
            for (j, slot) in unused.iter_mut().enumerate() {
                *slot = j;
            }
            for i in 0..slots {
                let base = slots - i;
                let pick = rest % base;
                rest /= base;
                let j = unused[pick];
                unused.copy_within(pick + 1..slots - i, pick);
                let before = reduced[set];
                set |= 1 << j;
                point[j] += reduced[set] - before;
            }
        }
        for x in &mut point {
            *x /= orders as f64;
        }
        point
    }

    /// Peels a count matrix towards [`Search::hull_point`] ([`peel`]); keeps it when its
    /// DTR is within 0.9 of the tolerance of the hull bound (which makes the bound exact).
    /// Returns the group with the largest pooled bound, when that is above 1.
    fn finish(&mut self) -> Option<usize> {
        let (k, slots, n) = (self.groups, self.slots, self.exposure.len());
        let point = self.hull_point();
        let mut pooled = [[0u32; LIST]; ROWS];
        let mut order = [0usize; ROWS];
        let tried = self.pooled(&mut pooled, &mut order);
        let widest = self.widest.map(|(g, _)| g);
        let mut sums = [[0u32; MAX_BLOCKS]; ROWS];
        let mut target = [f64::NAN; ROWS];
        for j in 0..slots {
            sums[j][0] = self.left[j] as u32;
            if j < k {
                target[j] = point[j];
            }
        }
        let mut utility = [0.0; ROWS];
        utility[..k].copy_from_slice(&self.utility[..k]);
        let whole = self.top(self.left[..slots].iter().sum());
        let problem = peel::Peel {
            exposure: self.exposure,
            sessions: self.sessions,
            ends: &[n],
            rows: slots,
            sums: &sums,
            target,
            goal: peel::Goal::Dtr {
                utility,
                bound: self.floor,
                whole,
            },
            fixed: None,
        };
        let (utility, floor) = (self.utility, self.floor);
        let dtr = |totals: &[f64; ROWS]| {
            let (mut hi, mut lo) = (0.0f64, f64::INFINITY);
            for g in 0..k {
                hi = hi.max(totals[g] / utility[g]);
                lo = lo.min(totals[g] / utility[g]);
            }
            (hi / lo).max(1.0)
        };
        let mut out = [[0u32; LIST]; ROWS];
        // Each group whose pooled search was exact placed first with its optimum's counts
        // (the highest bound first, then the smallest group: the sparsest totals), then
        // none.
        let mut peeled = false;
        for attempt in 0..=tried {
            let fixed = (attempt < tried).then(|| (order[attempt], &pooled[order[attempt]][..n]));
            let problem = peel::Peel { fixed, ..problem };
            if peel::peel(&problem, &mut out, |t| dtr(t) - floor <= 0.9 * TOLERANCE) {
                peeled = true;
                break;
            }
        }
        if peeled {
            let mut totals = [0.0; ROWS];
            for (j, total) in totals.iter_mut().enumerate().take(slots) {
                *total = out[j][..n]
                    .iter()
                    .zip(self.exposure)
                    .map(|(&c, &e)| f64::from(c) * e)
                    .sum();
            }
            let value = dtr(&totals);
            if value < self.best {
                self.best = value;
                self.found = out;
            }
        }
        widest
    }

    /// The pooled bound: DTR over the groups is at least DTR over two of them, a set `A`
    /// and the others pooled (a pooled ratio is a mean of its groups' ratios, so between
    /// their least and largest), and the least DTR of two groups over `S` rankings is
    /// [`bound::solve`]'s. Where a group's totals are sparse (a group of one to three
    /// items, or one whose fair share is near an end of the hull), no matrix is within the
    /// tolerance of the hull bound, and this bound is the optimum: its two-group optimum,
    /// with the other groups sharing the rest at one ratio. Raises the floor to the
    /// largest over the sets of one group against the rest (`k` sets); returns the group
    /// with the largest and its optimum's count vector when that search was exact. Only
    /// where every item's group has utility (the two groups cover the list).
    fn pooled(&mut self, counts: &mut Matrix, order: &mut [usize; ROWS]) -> usize {
        let (k, n) = (self.groups, self.exposure.len());
        if self.slots != k || n > LIST || k > ROWS {
            return 0;
        }
        let total: f64 = self.utility[..k].iter().sum();
        let mut lower = [f64::NEG_INFINITY; ROWS];
        let mut tried = 0;
        for g in 0..k {
            let mut prefix = [0.0; LIST + 1];
            let mut walk = [0u32; LIST];
            let shape = Shape::Dtr {
                utility: [self.utility[g], total - self.utility[g]],
            };
            let Ok(b) = bound::solve(
                shape,
                self.exposure,
                self.left[g] / self.sessions,
                self.sessions,
                bound::CERTIFY_BUDGET,
                &mut prefix[..=n],
                Some(bound::Counts {
                    walk: &mut walk[..n],
                    best: &mut counts[g][..n],
                }),
            ) else {
                continue;
            };
            if b.lower > 1.0 + TOLERANCE && self.widest.is_none_or(|(_, w)| b.lower > w) {
                self.widest = Some((g, b.lower));
            }
            self.floor = self.floor.max(b.lower);
            if b.exact {
                (lower[g], order[tried]) = (b.lower, g);
                tried += 1;
            }
        }
        let left = self.left;
        order[..tried].sort_unstable_by(|&a, &b| {
            let (a_high, b_high) = (lower[a] > 1.0 + TOLERANCE, lower[b] > 1.0 + TOLERANCE);
            b_high
                .cmp(&a_high)
                .then(lower[b].total_cmp(&lower[a]).then(left[a].cmp(&left[b])))
        });
        tried
    }

    /// The most exposure a set of groups with `m` placements left, `late` of them in the
    /// slots still deciding position `r` (`j..`), can collect: the late ones first take up
    /// to the `free` slots of position `r`, the highest left, then the set takes the best
    /// slots of the later positions (`sessions` each).
    fn most(&self, r: usize, free: usize, m: usize, late: usize) -> f64 {
        let here = late.min(free);
        if self.fixed.is_some() {
            // The later positions' open slots, the best first.
            let (rest, base, n) = (m - here, self.open[r + 1], self.exposure.len());
            let whole = r + self.open[r + 1..=n].partition_point(|&o| o - base <= rest);
            let part = if whole < n {
                (rest - (self.open[whole] - base)) as f64 * self.exposure[whole]
            } else {
                0.0
            };
            return here as f64 * self.exposure[r] + (self.reach[whole] - self.reach[r + 1]) + part;
        }
        let (s, p) = (self.sessions, self.prefix);
        let (full, part) = ((m - here) / s, (m - here) % s);
        let below = s as f64 * (p[r + 1 + full] - p[r + 1])
            + if part > 0 {
                part as f64 * self.exposure[r + 1 + full]
            } else {
                0.0
            };
        here as f64 * self.exposure[r] + below
    }

    /// The least DTR of any relaxed completion of the placements so far, with slots `j..`
    /// sharing the `free` slots left at position `r` (the module docs' bound, with `top`
    /// and `bottom` the most a set can collect and what is left when its complement
    /// collects the most); at `r == n` the DTR of the totals.
    fn lower(&mut self, r: usize, j: usize, free: usize) -> f64 {
        let k = self.groups;
        let (mut most_needed, mut least_allowed) = (0.0f64, f64::INFINITY);
        if r == self.exposure.len() {
            self.evaluations += 1;
            for g in 0..k {
                let ratio = self.placed[g] / self.utility[g];
                most_needed = most_needed.max(ratio);
                least_allowed = least_allowed.min(ratio);
            }
        } else {
            self.evaluations += (1 << k) - 1;
            let (s, p, n) = (self.sessions, self.prefix, self.exposure.len());
            let all: usize = self.left[..self.slots].iter().sum();
            let all_late: usize = self.left[j..self.slots].iter().sum();
            let total = free as f64 * self.exposure[r]
                + if self.fixed.is_some() {
                    self.reach[n] - self.reach[r + 1]
                } else {
                    s as f64 * (p[n] - p[r + 1])
                };
            for set in 1u32..1 << k {
                let (mut m, mut late, mut a, mut u) = (0, 0, 0.0, 0.0);
                for g in 0..k {
                    if set >> g & 1 == 1 {
                        m += self.left[g];
                        late += if g >= j { self.left[g] } else { 0 };
                        a += self.placed[g];
                        u += self.utility[g];
                    }
                }
                let top = self.most(r, free, m, late);
                let bottom = total - self.most(r, free, all - m, all_late - late);
                most_needed = most_needed.max((bottom + a) / u);
                least_allowed = least_allowed.min((top + a) / u);
            }
        }
        // The box needs `t U <= q t U` too: `q >= 1`.
        (most_needed / least_allowed).max(1.0)
    }

    /// Places `c` of slot `j`'s placements at position `r`; returns what to restore.
    fn place(&mut self, r: usize, j: usize, c: usize) -> f64 {
        if self.record {
            self.walk[j][r] = c as u32;
        }
        self.left[j] -= c;
        let before = self.placed.get(j).copied().unwrap_or(0.0);
        if j < self.groups {
            self.placed[j] += c as f64 * self.exposure[r];
        }
        before
    }

    fn unplace(&mut self, j: usize, c: usize, before: f64) {
        self.left[j] += c;
        if j < self.groups {
            self.placed[j] = before;
        }
    }

    /// The bound after slot `j` takes `c` of the `free` slots at position `r`.
    fn child(&mut self, r: usize, j: usize, c: usize, free: usize) -> f64 {
        let before = self.place(r, j, c);
        let bound = self.lower(r, j + 1, free - c);
        self.unplace(j, c, before);
        bound
    }

    /// The slots of position `r` the walk shares out: `sessions`, less the fixed row's.
    fn room(&self, r: usize) -> usize {
        match self.fixed {
            Some(g) if r < self.exposure.len() => self.sessions - self.walk[g][r] as usize,
            _ => self.sessions,
        }
    }

    /// The walk with group `g`'s row fixed first. DTR over the groups is at least the
    /// two-group DTR of `g` against the others pooled (a pooled ratio lies between its
    /// groups' ratios), a function of `g`'s total alone; so only the rows of `g` whose
    /// two-group DTR is below the incumbent can lead below it. Where the pooled bound
    /// lifted the floor, those are a few rows near the end of `g`'s range, and each leaves
    /// the other groups a walk whose bound sees `g`'s total exactly. Every row not cut is
    /// walked to its end unless the budget runs out (then `stopped`), so a finished
    /// enumeration proves the incumbent optimal. Only where every item's group has utility.
    fn rows(&mut self, g: usize) {
        let (s, n) = (self.sessions, self.exposure.len());
        let total_u: f64 = self.utility[..self.groups].iter().sum();
        let share = self.utility[g] / total_u;
        let whole = s as f64 * self.prefix[n];
        self.row(g, 0, self.left[g], 0.0, share, whole);
    }

    /// The two-group DTR of `g`'s total `x` against the others pooled, `share` its part of
    /// the utility and `whole` the exposure of every slot.
    fn pooled_dtr(x: f64, share: f64, whole: f64) -> f64 {
        let (mine, theirs) = (x / share, (whole - x) / (1.0 - share));
        if mine >= theirs {
            mine / theirs
        } else {
            theirs / mine
        }
    }

    /// Three groups, `g`'s row whole positions (every session or none) with exposure `a`:
    /// the other two share the positions left, `S` slots each, so their best split is a
    /// two-group search ([`bound::solve`], with `g`'s ratio beside them:
    /// [`Shape::DtrBeside`]), which proves what the walk over one dimension would need
    /// many sets for (a total within the incumbent's reach of the fair point). Takes its
    /// matrix when it beats the incumbent; an unproven search stops the enumeration.
    fn pair(&mut self, g: usize, a: f64) {
        let (s, n) = (self.sessions, self.exposure.len());
        let (h, other) = match g {
            0 => (1, 2),
            1 => (0, 2),
            _ => (0, 1),
        };
        let (mut open, mut at, mut m) = ([0.0; LIST], [0usize; LIST], 0);
        for q in (0..n).filter(|&q| self.walk[g][q] == 0) {
            (open[m], at[m]) = (self.exposure[q], q);
            m += 1;
        }
        let shape = Shape::DtrBeside {
            utility: [self.utility[h], self.utility[other]],
            ratio: a / (s as f64 * self.utility[g]),
        };
        let (mut prefix, mut walk, mut best) = ([0.0; LIST + 1], [0u32; LIST], [0u32; LIST]);
        // Each search counts as the sets a row's walk may spend at most, so that many
        // rows end the enumeration.
        self.evaluations += FIRST_WALK;
        let found = bound::solve(
            shape,
            &open[..m],
            self.left[h] / s,
            s,
            bound::CERTIFY_BUDGET,
            &mut prefix[..=m],
            Some(bound::Counts {
                walk: &mut walk[..m],
                best: &mut best[..m],
            }),
        );
        let Ok(b) = found
            .map_err(|_| ())
            .and_then(|b| if b.exact { Ok(b) } else { Err(()) })
        else {
            self.stopped = true;
            return;
        };
        if b.value < self.best {
            self.best = b.value;
            self.found[g][..n].copy_from_slice(&self.walk[g][..n]);
            self.found[h][..n].fill(0);
            for (&q, &c) in at[..m].iter().zip(&best[..m]) {
                self.found[h][q] = c;
            }
            for q in 0..n {
                self.found[other][q] = s as u32 - self.found[g][q] - self.found[h][q];
            }
            if b.value - self.floor <= TOLERANCE {
                self.stopped = true;
            }
        }
    }

    /// [`Search::rows`] at position `r`, `m` of `g`'s placements left, `a` its exposure.
    fn row(&mut self, g: usize, r: usize, m: usize, a: f64, share: f64, whole: f64) {
        let (s, n, p) = (self.sessions, self.exposure.len(), self.prefix);
        if self.stopped {
            return;
        }
        self.evaluations += 1;
        if self.evaluations > self.budget {
            self.stopped = true;
            return;
        }
        if r == n {
            if Self::pooled_dtr(a, share, whole) * (1.0 - 1e-12) >= self.best {
                return;
            }
            if self.slots == 3 && self.walk[g][..n].iter().all(|&c| c == 0 || c as usize == s) {
                self.pair(g, a);
                return;
            }
            let (left, placed) = (self.left[g], self.placed[g]);
            (self.left[g], self.placed[g], self.fixed) = (0, a, Some(g));
            for q in 0..n {
                let open = s - self.walk[g][q] as usize;
                self.open[q + 1] = self.open[q] + open;
                self.reach[q + 1] = self.reach[q] + open as f64 * self.exposure[q];
            }
            let room = self.room(0);
            self.visit(0, 0, room);
            (self.left[g], self.placed[g], self.fixed) = (left, placed, None);
            return;
        }
        let (first, last) = (m.saturating_sub(s * (n - r - 1)), m.min(s));
        // `g`'s total, and the least two-group DTR of any completion, after `c` here: the
        // total ranges over [x + the last `m - c` slots, x + the next ones].
        let child = |c: usize| {
            let (x, rest) = (a + c as f64 * self.exposure[r], m - c);
            let (full, part) = (rest / s, rest % s);
            let high = x
                + s as f64 * (p[r + 1 + full] - p[r + 1])
                + if part > 0 {
                    part as f64 * self.exposure[r + 1 + full]
                } else {
                    0.0
                };
            let low = x
                + s as f64 * (p[n] - p[n - full])
                + if part > 0 {
                    part as f64 * self.exposure[n - full - 1]
                } else {
                    0.0
                };
            let fair = share * whole;
            let least = if fair < low {
                Self::pooled_dtr(low, share, whole)
            } else if fair > high {
                Self::pooled_dtr(high, share, whole)
            } else {
                1.0
            };
            (x, least)
        };
        // Both ends of the range grow with `c`, so the bound falls to a valley and rises:
        // the choices from the valley outwards, the lower side first.
        let mut start = first;
        let mut lowest = f64::INFINITY;
        for c in first..=last {
            let (_, least) = child(c);
            if least < lowest {
                (start, lowest) = (c, least);
            }
        }
        let (mut up, mut down) = (Some(start), start.checked_sub(1).filter(|&c| c >= first));
        loop {
            let c = match (up, down) {
                (Some(u), Some(d)) if child(u).1 <= child(d).1 => {
                    up = (u < last).then_some(u + 1);
                    u
                }
                (_, Some(d)) => {
                    down = d.checked_sub(1).filter(|&c| c >= first);
                    d
                }
                (Some(u), None) => {
                    up = (u < last).then_some(u + 1);
                    u
                }
                (None, None) => break,
            };
            let (x, least) = child(c);
            // A margin for the rounding of the two ratios against the walk's.
            if least * (1.0 - 1e-12) >= self.best {
                continue;
            }
            self.walk[g][r] = c as u32;
            self.row(g, r + 1, m - c, x, share, whole);
            if self.stopped {
                return;
            }
        }
    }

    /// Slot `j` and the later ones share the `free` slots left at position `r`.
    fn visit(&mut self, r: usize, j: usize, free: usize) {
        if self.stopped {
            return;
        }
        if self.evaluations > self.budget {
            self.stopped = true;
            return;
        }
        let n = self.exposure.len();
        if r == n {
            let value = self.lower(r, 0, 0);
            if value < self.best {
                self.best = value;
                if self.record {
                    self.found = self.walk;
                }
                if value - self.floor <= TOLERANCE {
                    self.stopped = true;
                }
            }
            return;
        }
        if self.fixed == Some(j) {
            self.visit(r, j + 1, free);
            return;
        }
        let last = match self.fixed {
            Some(g) if g + 1 == self.slots => g - 1,
            _ => self.slots - 1,
        };
        if free == 0 || j == last {
            // The position is full, or the last slot takes what is left (it can: the
            // earlier choices left enough for the later slots, and no more).
            if self.record {
                for (i, later) in self
                    .walk
                    .iter_mut()
                    .enumerate()
                    .take(self.slots)
                    .skip(j + 1)
                {
                    if self.fixed != Some(i) {
                        later[r] = 0;
                    }
                }
            }
            let before = self.place(r, j, free);
            let room = self.room(r + 1);
            self.visit(r + 1, 0, room);
            self.unplace(j, free, before);
            return;
        }
        let later: usize = self.left[j + 1..self.slots].iter().sum();
        let first = free.saturating_sub(later);
        let last = free.min(self.left[j]);
        if first == last {
            let before = self.place(r, j, first);
            self.visit(r, j + 1, free - first);
            self.unplace(j, first, before);
            return;
        }
        // The choices from the lowest bound outwards, always to the lower side, so that
        // good totals come first; each is cut on its own bound (nothing here assumes the
        // bounds are unimodal in the count). The scan keeps the first `CACHED` bounds for
        // the walk.
        let mut cache = [0.0f64; CACHED];
        let mut start = first;
        let mut lowest = f64::INFINITY;
        for c in first..=last {
            let bound = self.child(r, j, c, free);
            if let Some(slot) = cache.get_mut(c - first) {
                *slot = bound;
            }
            if bound < lowest {
                (start, lowest) = (c, bound);
            }
        }
        let bound_of = |search: &mut Self, c: usize| match cache.get(c - first) {
            Some(&bound) => bound,
            None => search.child(r, j, c, free),
        };
        let mut up = Some((start, lowest));
        let mut down = (start > first).then(|| (start - 1, bound_of(self, start - 1)));
        loop {
            let (take_up, (c, bound)) = match (up, down) {
                (Some(a), Some(b)) if a.1 <= b.1 => (true, a),
                (Some(_), Some(b)) => (false, b),
                (Some(a), None) => (true, a),
                (None, Some(b)) => (false, b),
                (None, None) => break,
            };
            if bound < self.best {
                let before = self.place(r, j, c);
                self.visit(r, j + 1, free - c);
                self.unplace(j, c, before);
            }
            if self.stopped {
                break;
            }
            if take_up {
                up = (c < last).then(|| (c + 1, bound_of(self, c + 1)));
            } else {
                down = (c > first).then(|| (c - 1, bound_of(self, c - 1)));
            }
        }
    }
}
