//! The exact optimum of the protocol's DTR and EEL over `S` deterministic rankings of one
//! query: the floor that no optimiser's row can go below.
//!
//! It holds the argument below and the search it justifies; the brute-force tests that
//! check them are `ppg-core/tests/bound.rs`. It uses no memory of its own: the caller lends
//! the search its prefix sums (and, for the witness rankings, its counts), so the trainer
//! can ask for the bound in every stage of a run ([`crate::Objective::lower_bound`]).
//!
//! # Why the optimum is a one-dimensional search
//!
//! Both metrics compare two groups, and both depend on a ranking only through `x`, the
//! exposure that group 0 receives summed over the `S` sessions:
//!
//! - DTR: `ratio_0 = x / (S U_0)`, `ratio_1 = (S T - x) / (S U_1)`, with `T` the exposure
//!   of one whole list (`sum_r e_r`) and `U_g` the utility of group `g` in one list. Their
//!   quotient `ratio_0 / ratio_1` grows with `x`, and DTR is the larger of it and its
//!   inverse, so DTR falls while `x` is below the fair point `S T U_0 / (U_0 + U_1)` and
//!   rises above it.
//! - EEL: `(x / S - t_0)^2 + ((S T - x) / S - t_1)^2` with `t_g` the group targets: a
//!   parabola in `x`.
//!
//! So each is unimodal in `x` around a centre `c`, and over any interval `[lo, hi]` of
//! `x` its minimum is its value at `c` clamped into the interval.
//!
//! # Which totals `x` are achievable
//!
//! Let group 0 have `k` items of `n`, and let `c_r` be the number of sessions in which
//! group 0 holds position `r`. Then `x = sum_r c_r e_r`, with `0 <= c_r <= S` and
//! `sum_r c_r = S k`. Conversely every such vector comes from `S` rankings: list the
//! positions `r` each `c_r` times, in order, and deal the list round-robin to the sessions;
//! as `c_r <= S`, no session gets a position twice, and each gets exactly `k` positions
//! (`witness` builds the rankings this way). So the optimum over `S`-tuples of
//! permutations is the optimum over these count vectors, `(S + 1)^n` of them at most
//! instead of `(n!)^S`.
//!
//! # The search, and when it is exact
//!
//! [`solve`] walks the count vectors by depth-first branch and bound, position by position
//! from the top. With `m` items of group 0 still to place on positions `r..n`, the rest
//! adds between the `m` smallest and the `m` largest exposures (each taken at most `S`
//! times) to `x`: an interval, and the metric at the clamped centre bounds every completion
//! from below. Branches whose bound is no better than the best total found are cut; the
//! counts are tried from the one whose interval holds the centre outwards, so that good
//! totals come first. The search stops
//!
//! - when it has walked every branch: the best total is the optimum ([`Bound::exact`]);
//! - when the best total is within [`TOLERANCE`] of the metric at the unclamped centre,
//!   the **hull bound** that no ranking beats: the optimum is known to that tolerance, and
//!   counts as exact too;
//! - over two sessions or more, where the tolerance's width of totals is small against the
//!   smallest exposure step (the walk would need many nodes to meet the hull bound), after
//!   a short walk whose best vector the lattice (`lattice.rs`) takes to the hull bound:
//!   exact too when its metric is within [`TOLERANCE`] of it; otherwise the walk runs
//!   again with ten times its budget (`LONG_WALK`; these are the queries whose optimum sits
//!   a little above the hull bound, which only a complete walk proves), its last positions
//!   answered by a sorted table of their sums (`tail.rs`): one binary search for each
//!   subtree below them; and (up to 8 sessions) a subtree with at most two placements (or
//!   two holes) left is answered at once, by a binary search or one pass of two pointers over the
//!   exposures (`Search::sparse`): near the hull's ends, where these queries' fair points
//!   are, such subtrees are long chains (a placement walked down position by position):
//!   half of the long walk's nodes on production-shaped queries at 4 sessions;
//! - after `budget` nodes (ten times that in the long walk), or at once for a list
//!   longer than [`MAX_SEARCH_ITEMS`] (the walk recurses once per position): then the proven lower bound is the hull bound
//!   alone, and [`Bound::exact`] is false ([`Bound::lower`] below [`Bound::value`]). It
//!   gives up with that flag; it never certifies what it has not proven.
//!
//! The hull bound is the metric at the centre clamped into `[S L, S H]`, `L` and `H` the
//! exposure of the bottom and top `k` positions: where the fair point lies outside it, one
//! group is too small (or too rich) to be treated fairly and the optimum is the extreme
//! ranking in every session, found at the first leaf.
//!
//! Only the positions' exposures matter, so the optimum is the same with or without the
//! paper's intra-group constraint (within a group, items can take the group's positions in
//! their starting order).
//!
//! The file stays whole (about 920 lines): the walk, its answers of sparse subtrees, the
//! witness that deals its counts and the hand-over to the lattice share the count
//! vectors' layout and the walk's state; the lattice itself is `lattice.rs`, the tail's
//! table `tail.rs`.

use super::lattice;
use super::tail::Tail;

/// Where the search stops early: the best total's metric is within this of the hull
/// bound. Far below the tables' three decimals and a mean over hundreds of queries.
pub const TOLERANCE: f64 = 1e-8;

/// Search nodes per query and session count before [`solve`] settles for the hull bound.
pub const BUDGET: u64 = 2_000_000;

/// Search nodes of the lower bound an objective gives ([`crate::Objective::lower_bound`]),
/// which a certifying run computes at every stage: a search past it rarely proves more
/// than the hull bound it falls back to. On the TREC sets (true labels, DTR and EEL, 1, 4
/// and 32 sessions) the same queries were certified with 5,000, 20,000 and 2,000,000
/// nodes, and the 2,000,000-node searches took more time than TREC 2020's training at 4
/// sessions saved (DTR: 0.30 s against 0.18 s for its 200 queries). Only the long walk,
/// which runs after the lattice, gets ten times it (`LONG_WALK`): it proves the queries
/// whose optimum sits a little above the hull bound, and the TREC cells' CPU stayed equal
/// or fell with it.
pub const CERTIFY_BUDGET: u64 = 20_000;

/// Nodes of the first, short walk, before the lattice finishes its best vector
/// ([`solve`]'s module docs).
const FIRST_WALK: u64 = 50;

/// Nodes a walk is expected to take to meet a total within the tolerance of the hull bound
/// above which the lattice goes first ([`solve`]'s module docs).
const DENSE_WALK: u64 = 2_000;

/// The budget of the long walk that runs where the short walk and the lattice have not
/// met the hull bound, in multiples of the search's budget ([`solve`]'s module docs).
const LONG_WALK: u64 = 10;

/// Placements (or holes) left at most where the long walk answers the rest of the list
/// at once ([`Search::sparse`]).
const SPARSE: usize = 2;

/// The most sessions at which the long walk answers its sparse subtrees at once. Where a
/// position holds up to many placements, subtrees with two or fewer left are a small share
/// of the walk, and the test costs at every node: TREC 2019's DTR at 32 sessions took 1.8 %
/// more instructions with it (the production-shaped files at 4 sessions: 6 % and 9 % fewer).
const SPARSE_SESSIONS: usize = 8;

/// The longest list whose walk keeps its count vectors on the stack when the caller lends
/// none, so that the lattice can finish them.
const OWN_COUNTS: usize = 64;

/// The longest list [`solve`] walks: the walk recurses once per position, and a deeper
/// stack than this many frames is more than a thread's stack should lend. Longer lists get
/// the hull bound alone ([`Bound::exact`] false).
pub const MAX_SEARCH_ITEMS: usize = 1024;

/// A metric as a function of group 0's total exposure: what [`solve`] minimises.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// DTR, with the utility of groups 0 and 1 in one list (both positive).
    Dtr {
        /// `U_0`, `U_1`.
        utility: [f64; 2],
    },
    /// EEL, with the target exposure of groups 0 and 1 in one session.
    Eel {
        /// `t_0`, `t_1`.
        target: [f64; 2],
    },
    /// DTR over three groups whose third has its positions already: groups 0 and 1 share
    /// the list's positions, the third holds its exposure per utility `ratio` (per
    /// session) elsewhere, and the metric is the largest of the three ratios over the
    /// least. Unimodal around DTR's fair point of groups 0 and 1 (the larger of their
    /// ratios falls towards it, the smaller rises).
    DtrBeside {
        /// `U_0`, `U_1`.
        utility: [f64; 2],
        /// The third group's exposure in one session over its utility (positive).
        ratio: f64,
    },
}

impl Shape {
    /// The metric when group 0 receives `x` of the `sessions * total` exposure there is.
    /// Agrees with [`Dtr::ratio`](super::Dtr::ratio) and [`Eel::value`](super::Eel::value)
    /// on any ranking with that total, up to rounding.
    pub fn value(&self, x: f64, total: f64, sessions: usize) -> f64 {
        let s = sessions as f64;
        let rest = s * total - x;
        match *self {
            Shape::Dtr { utility } => {
                let (a, b) = (x / (s * utility[0]), rest / (s * utility[1]));
                if a == 0.0 || b == 0.0 {
                    1.0
                } else {
                    (a / b).max(b / a)
                }
            }
            Shape::Eel { target } => {
                let (d0, d1) = (x / s - target[0], rest / s - target[1]);
                d0 * d0 + d1 * d1
            }
            Shape::DtrBeside { utility, ratio } => {
                let (a, b) = (x / (s * utility[0]), rest / (s * utility[1]));
                if a == 0.0 || b == 0.0 {
                    1.0
                } else {
                    a.max(b).max(ratio) / a.min(b).min(ratio)
                }
            }
        }
    }

    /// The `x` where the metric is lowest: DTR's fair point, EEL's vertex.
    fn centre(&self, total: f64, sessions: usize) -> f64 {
        let s = sessions as f64;
        match *self {
            Shape::Dtr { utility } | Shape::DtrBeside { utility, .. } => {
                s * total * utility[0] / (utility[0] + utility[1])
            }
            Shape::Eel { target } => s * (target[0] + total - target[1]) / 2.0,
        }
    }
}

/// A proven lower bound of an objective's cost (in the objective's units: DTR's cost is the
/// ratio - 1), as [`crate::Objective::lower_bound`] gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LowerBound {
    /// No ranking costs less.
    pub value: f64,
    /// Some ranking costs `value` (to [`TOLERANCE`]): the bound is the optimum. False when
    /// the search gave up at its node budget and `value` is the hull bound alone.
    pub exact: bool,
}

/// The optimum of one query at one session count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// A proven lower bound of the metric over all `S`-tuples of rankings: the optimum
    /// itself when [`Bound::exact`].
    pub lower: f64,
    /// The metric of the best count vector found (an achievable value; +infinity when the
    /// search stopped before its first one).
    pub value: f64,
    /// Whether `value` is the optimum (to [`TOLERANCE`]).
    pub exact: bool,
}

/// Why [`solve`] refused its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundError {
    /// No sessions, or a group empty: there is nothing to be fair between.
    Degenerate,
    /// An exposure is not positive and finite, or the exposures are not non-increasing.
    Exposure,
    /// The lent memory is shorter than the list needs: `n + 1` prefix sums, `n` counts each.
    Scratch,
}

impl core::fmt::Display for BoundError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            BoundError::Degenerate => "the bound needs at least one session and both groups",
            BoundError::Exposure => "the bound needs positive, finite, non-increasing exposures",
            BoundError::Scratch => "the bound's lent memory is shorter than the list needs",
        })
    }
}

impl core::error::Error for BoundError {}

/// The count vectors of a search that also wants the witness: `walk` is the walk's own
/// (`n` long), `best` receives the best one found (`n` long; see [`witness`]).
pub struct Counts<'c> {
    /// The walk's current counts.
    pub walk: &'c mut [u32],
    /// The best count vector: `best[r]` sessions in which group 0 holds position `r`.
    pub best: &'c mut [u32],
}

/// The minimum of `shape` over `sessions` rankings of a list with `exposure[r]` at
/// position `r` (non-increasing) and `group0` of its items in group 0, searching at most
/// `budget` nodes (ten times that where the long walk runs; see the module docs).
/// `prefix` (at least `n + 1` long) is the search's memory; with `counts`, the best count
/// vector is written to `counts.best`.
///
/// # Errors
/// [`BoundError`] for no sessions, an empty group, exposures that are not positive, finite
/// and non-increasing, or lent memory too short.
pub fn solve(
    shape: Shape,
    exposure: &[f64],
    group0: usize,
    sessions: usize,
    budget: u64,
    prefix: &mut [f64],
    counts: Option<Counts<'_>>,
) -> Result<Bound, BoundError> {
    let n = exposure.len();
    if group0 >= n {
        return Err(BoundError::Degenerate);
    }
    let whole = [Block { end: n, group0 }];
    solve_within(shape, exposure, &whole, sessions, budget, prefix, counts)
}

/// A run of consecutive positions, up to `end` (from the previous block's end), of which
/// group 0 holds `group0` in every session ([`solve_within`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// One past the block's last position.
    pub end: usize,
    /// Group 0's positions in the block, in every session.
    pub group0: usize,
}

/// The most blocks [`solve_within`] takes: one per grade of EEL ([`super::MAX_LEVELS`]).
pub use super::lattice::MAX_BLOCKS;

/// [`solve`] over the count vectors that give group 0 `block.group0` positions of each
/// block in every session (say, each grade's run of positions, so that every position
/// keeps the grade it has in the merit order): the optimum of that restricted problem, or
/// a lower bound of it, not of every ranking. The search and its budget are [`solve`]'s.
///
/// # Errors
/// As [`solve`]; [`BoundError::Degenerate`] also when the blocks do not cut `0..n` in
/// order (at most [`MAX_BLOCKS`]), a block holds fewer positions than its `group0`, or
/// group 0 holds no position or every one.
pub fn solve_within(
    shape: Shape,
    exposure: &[f64],
    blocks: &[Block],
    sessions: usize,
    budget: u64,
    prefix: &mut [f64],
    counts: Option<Counts<'_>>,
) -> Result<Bound, BoundError> {
    let n = exposure.len();
    let mut start = 0;
    for b in blocks {
        if b.end <= start || b.group0 > b.end - start {
            return Err(BoundError::Degenerate);
        }
        start = b.end;
    }
    let group0: usize = blocks.iter().map(|b| b.group0).sum();
    if sessions == 0 || start != n || blocks.len() > MAX_BLOCKS || group0 == 0 || group0 >= n {
        return Err(BoundError::Degenerate);
    }
    if exposure.iter().any(|&e| !(e.is_finite() && e > 0.0))
        || exposure.windows(2).any(|w| w[1] > w[0])
    {
        return Err(BoundError::Exposure);
    }
    let prefix = prefix.get_mut(..=n).ok_or(BoundError::Scratch)?;
    // The lattice finishes the walk's best count vector, so a short list's walk keeps one
    // even when the caller wants no witness (on the stack: 512 bytes).
    let (mut own_walk, mut own_best) = ([0u32; OWN_COUNTS], [0u32; OWN_COUNTS]);
    let counts = match counts {
        Some(Counts { walk, best }) => Some(Counts {
            walk: walk.get_mut(..n).ok_or(BoundError::Scratch)?,
            best: best.get_mut(..n).ok_or(BoundError::Scratch)?,
        }),
        None if n <= OWN_COUNTS => Some(Counts {
            walk: &mut own_walk[..n],
            best: &mut own_best[..n],
        }),
        None => None,
    };
    prefix[0] = 0.0;
    for r in 0..n {
        prefix[r + 1] = prefix[r] + exposure[r];
    }
    let total = prefix[n];
    let mut search = Search {
        exposure,
        prefix,
        sessions,
        shape,
        total,
        centre: shape.centre(total, sessions),
        at_centre: shape.value(shape.centre(total, sessions), total, sessions),
        best: f64::INFINITY,
        counts,
        nodes: 0,
        budget,
        stopped: false,
        floor: 0.0,
        blocks,
        later: [(0.0, 0.0); MAX_BLOCKS + 1],
        best_tail: None,
    };
    // What the blocks from `b` on add, whole: `later[b]`.
    for (b, block) in blocks.iter().enumerate().rev() {
        let from = if b == 0 { 0 } else { blocks[b - 1].end };
        let (lo, hi) = search.range(from, block.end, sessions * block.group0);
        search.later[b] = (search.later[b + 1].0 + lo, search.later[b + 1].1 + hi);
    }
    let (lo, hi) = search.later[0];
    search.floor = search.lower(lo, hi);
    if n > MAX_SEARCH_ITEMS {
        search.stopped = true;
        return Ok(Bound::of_walk(search.best, search.floor, true));
    }
    // Over two sessions or more, a short walk first: where it neither ends nor meets the
    // hull bound, the totals are dense and the lattice finishes its best vector far sooner
    // than a long walk would meet one (`lattice`); where that fails too (near the hull's
    // ends, where the totals are sparse and the optimum is above the hull bound), the walk
    // runs to its whole budget.
    let short = sessions >= 2 && search.counts.is_some() && search.floor == search.at_centre && {
        // Near the centre the walk's leaves are about the smallest exposure step apart: it
        // meets one within the tolerance after about `step / width` of them, a few nodes
        // each. Where that is few (EEL's parabola is wide at its vertex), the walk is the
        // cheaper proof; where it is many (DTR's ratio is steep), the lattice.
        let step = exposure
            .windows(2)
            .map(|w| w[0] - w[1])
            .filter(|&d| d > 0.0)
            .fold(f64::INFINITY, f64::min);
        step / search.width(TOLERANCE) * n as f64 > DENSE_WALK as f64
    };
    search.budget = if short {
        budget.min(FIRST_WALK)
    } else {
        budget
    };
    search.visit::<false>(None, 0, 0, sessions * blocks[0].group0, 0.0);
    if short && search.stopped && search.best - search.floor > TOLERANCE {
        search.finish();
        if search.best - search.floor > TOLERANCE && budget > FIRST_WALK {
            search.restart(budget.saturating_mul(LONG_WALK));
            search.walk_with_tail();
        }
    }
    Ok(Bound::of_walk(search.best, search.floor, search.stopped))
}

impl Bound {
    /// What a branch and bound walk proved: the best value it met, the hull bound it started
    /// from, and whether it stopped early (its budget, or the hull bound reached). A walk
    /// that met no count vector (its metric NaN on the way) proves nothing exact.
    pub(crate) fn of_walk(best: f64, floor: f64, stopped: bool) -> Bound {
        Bound {
            lower: if stopped { floor.min(best) } else { best },
            value: best,
            exact: best.is_finite() && (!stopped || best - floor <= TOLERANCE),
        }
    }
}

/// The depth-first branch and bound over count vectors.
struct Search<'a, 'c> {
    exposure: &'a [f64],
    /// `prefix[r]`: the exposure of positions `0..r`.
    prefix: &'a mut [f64],
    sessions: usize,
    shape: Shape,
    total: f64,
    centre: f64,
    /// The metric at `centre`.
    at_centre: f64,
    best: f64,
    /// The walk's and the best count vectors, when the caller wants the witness.
    counts: Option<Counts<'c>>,
    nodes: u64,
    budget: u64,
    stopped: bool,
    /// The hull bound: nothing is lower, so reaching it ends the search.
    floor: f64,
    blocks: &'a [Block],
    /// The least and largest exposure the blocks from `b` on add, whole.
    later: [(f64, f64); MAX_BLOCKS + 1],
    /// The placements and sum of the best vector's last positions where a tail table gave
    /// them ([`Search::walk_with_tail`]): its walk counts do not hold them.
    best_tail: Option<(usize, f64)>,
}

impl Search<'_, '_> {
    /// Finishes the best count vector with the lattice ([`lattice::finish`]) towards the
    /// centre, keeping it when its metric is within the tolerance of the hull bound. Only
    /// where the centre is inside the hull (the hull bound is the metric there) and the
    /// caller lent the count vectors.
    fn finish(&mut self) {
        if self.counts.is_none() || self.floor != self.at_centre {
            return;
        }
        // The total's resolution: within a tenth of the tolerance of the hull bound.
        let scale = self.width(0.1 * TOLERANCE);
        let mut ends = [0usize; MAX_BLOCKS];
        for (slot, b) in ends.iter_mut().zip(self.blocks) {
            *slot = b.end;
        }
        let problem = lattice::Problem {
            exposure: self.exposure,
            ends: &ends[..self.blocks.len()],
            sessions: self.sessions,
            capacity: None,
        };
        let (shape, total, sessions, floor) = (self.shape, self.total, self.sessions, self.floor);
        let accept = |x: f64| shape.value(x, total, sessions) - floor <= TOLERANCE;
        let Some(counts) = &mut self.counts else {
            return;
        };
        if !self.best.is_finite() {
            // The walk met no count vector: each block's placements from its top, a valid
            // one to start from.
            let mut from = 0;
            for block in self.blocks {
                let mut left = self.sessions * block.group0;
                for slot in &mut counts.best[from..block.end] {
                    let c = left.min(self.sessions);
                    *slot = c as u32;
                    left -= c;
                }
                from = block.end;
            }
        }
        if lattice::finish(&problem, counts.best, self.centre, scale, accept) {
            let x: f64 = counts
                .best
                .iter()
                .zip(self.exposure)
                .map(|(&c, &e)| f64::from(c) * e)
                .sum();
            self.best = self.at(x);
        }
    }

    /// How far from the centre a total keeps the metric within `tolerance` of the hull
    /// bound: the whole range of totals, halved until both ends do.
    fn width(&self, tolerance: f64) -> f64 {
        let mut width = self.total * self.sessions as f64;
        for _ in 0..128 {
            let (lo, hi) = (self.centre - width, self.centre + width);
            // Only totals that some exposure split gives (DTR is no ratio outside them).
            let inside = lo > 0.0 && hi < self.total * self.sessions as f64;
            if inside
                && self.at(lo) - self.floor <= tolerance
                && self.at(hi) - self.floor <= tolerance
            {
                break;
            }
            width *= 0.5;
        }
        width
    }

    /// The walk from the top with the last positions of the last block as a sorted table
    /// (`tail.rs`), the best vector's counts completed from it. The table lives in this
    /// frame only, so the common searches, which end before, do not pay its stack.
    #[inline(never)]
    fn walk_with_tail(&mut self) {
        let earliest = self
            .blocks
            .len()
            .checked_sub(2)
            .map_or(0, |b| self.blocks[b].end);
        let tail = Tail::build(self.exposure, earliest, self.sessions);
        let m = self.sessions * self.blocks[0].group0;
        if self.sessions <= SPARSE_SESSIONS {
            self.visit::<true>(tail.as_ref(), 0, 0, m, 0.0);
        } else {
            self.visit::<false>(tail.as_ref(), 0, 0, m, 0.0);
        }
        if let (Some(tail), Some((m, y)), Some(counts)) =
            (&tail, self.best_tail.take(), &mut self.counts)
        {
            let found = tail.counts_of(self.exposure, m, y, &mut counts.best[tail.from..]);
            debug_assert!(found, "a sum of the table has its vector");
        }
    }

    /// The table's best completions of `x` with `m` placements left: the sums nearest the
    /// rest of the way to the centre on either side (the metric is unimodal).
    /// Inlined: called at every tail lookup, and a call there took 3.5 % more instructions
    /// (TREC 2019's DTR at 32 sessions).
    #[inline(always)]
    fn look_up(&mut self, tail: &Tail, m: usize, x: f64) {
        for y in tail.nearest(m, self.centre - x).into_iter().flatten() {
            self.leaf(x + y, Some((m, y)));
        }
    }

    /// Makes the search walk again from the top, with a new budget; its best is kept.
    fn restart(&mut self, budget: u64) {
        (self.nodes, self.budget, self.stopped) = (0, budget, false);
    }

    fn at(&self, x: f64) -> f64 {
        self.shape.value(x, self.total, self.sessions)
    }

    /// The least metric over totals in `[lo, hi]` (the shape is unimodal).
    fn lower(&self, lo: f64, hi: f64) -> f64 {
        // Most intervals near the search's path hold the centre: its value, computed once,
        // spares the metric's divisions (the same number: `at(centre)`).
        if lo <= self.centre && self.centre <= hi {
            self.at_centre
        } else {
            // `range`'s two sums can cross by an ulp where the exposures are equal (TREC
            // 2020, expected exposure at 4 sessions: 0.32177734375000006 against
            // 0.32177734375); `f64::clamp` would panic on them.
            self.at(self.centre.clamp(lo.min(hi), hi.max(lo)))
        }
    }

    /// The least and largest exposure `m` placements add on positions `r..end`, each
    /// position taken at most `sessions` times (`m <= sessions * (end - r)`).
    #[inline(always)]
    fn range(&self, r: usize, end: usize, m: usize) -> (f64, f64) {
        let (s, p, e) = (self.sessions, &self.prefix, self.exposure);
        let (full, part) = (m / s, (m % s) as f64);
        let sf = s as f64;
        let top = sf * (p[r + full] - p[r]) + if part > 0.0 { part * e[r + full] } else { 0.0 };
        let bottom = sf * (p[end] - p[end - full])
            + if part > 0.0 {
                part * e[end - full - 1]
            } else {
                0.0
            };
        (bottom, top)
    }

    /// The interval of totals when position `r` of block `b` takes `c` of the block's `m`
    /// remaining placements after `x`.
    #[inline(always)]
    fn child(&self, r: usize, b: usize, m: usize, c: usize, x: f64) -> (f64, f64) {
        let here = x + c as f64 * self.exposure[r];
        let end = self.blocks[b].end;
        let (lo, hi) = if r + 1 < end {
            self.range(r + 1, end, m - c)
        } else {
            (0.0, 0.0)
        };
        let (later_lo, later_hi) = self.later[b + 1];
        (here + lo + later_lo, here + hi + later_hi)
    }

    /// A complete count vector of total `x`: kept when it is the best so far, `tail` the
    /// sum and placements of a tail table's part ([`Search::look_up`]), which the walk's
    /// counts do not hold.
    fn leaf(&mut self, x: f64, tail: Option<(usize, f64)>) {
        if self.better(x) {
            self.best_tail = tail;
            if let Some(counts) = &mut self.counts {
                counts.best.copy_from_slice(counts.walk);
            }
        }
    }

    /// Whether a complete count vector of total `x` is the best so far: then its metric is
    /// the best value (the caller keeps its counts), and the search stops when that meets
    /// the hull bound.
    fn better(&mut self, x: f64) -> bool {
        let value = self.at(x);
        // A NaN metric is never kept.
        if value < self.best {
            self.best = value;
            if value - self.floor <= TOLERANCE {
                self.stopped = true;
            }
            return true;
        }
        false
    }

    /// The completions of positions `r..n` (the last block's rest) with at most
    /// [`SPARSE`] placements left, or at most [`SPARSE`] short of full. They are the long
    /// walk's long chains near the hull's ends, where the fair point is (a placement or two
    /// walked down position by position, each with its own bound), and each completion
    /// adds the sum of `k <= SPARSE` exposures (or the full sum less it): the sums nearest
    /// the rest of the way to the centre on either side are the only candidates (the
    /// metric is unimodal), found by a binary search (one) or one pass of two pointers
    /// (two), the exposures falling with the position. `table`: the tail table's first
    /// position, where there is one.
    fn sparse(&mut self, table: Option<usize>, r: usize, m: usize, x: f64) {
        let n = self.exposure.len();
        let s = self.sessions;
        let full = m > SPARSE;
        let k = if full { s * (n - r) - m } else { m };
        let whole = if full {
            s as f64 * (self.prefix[n] - self.prefix[r])
        } else {
            0.0
        };
        let e = &self.exposure[r..n];
        let want = if full {
            whole - (self.centre - x)
        } else {
            self.centre - x
        };
        // Below `want` and at or above it: a sum and its positions (relative to `r`).
        let mut below: Option<(f64, [Option<usize>; 2])> = None;
        let mut above: Option<(f64, [Option<usize>; 2])> = None;
        match k {
            0 => below = Some((0.0, [None, None])),
            1 => {
                let i = e.partition_point(|&v| v >= want);
                below = e.get(i).map(|&v| (v, [Some(i), None]));
                above = i.checked_sub(1).map(|i| (e[i], [Some(i), None]));
            }
            _ => {
                // For each first position `i`, the second `j >= i` (`> i` at one session)
                // whose pair sum is nearest `want` on either side: the boundary `j` only
                // moves up the list as `e[i]` falls.
                let mut j = e.len();
                for i in 0..e.len() {
                    let from = if s >= 2 { i } else { i + 1 };
                    if from >= e.len() {
                        break;
                    }
                    while j > from && e[i] + e[j - 1] < want {
                        j -= 1;
                    }
                    j = j.max(from);
                    if let Some(&v) = e.get(j) {
                        let y = e[i] + v;
                        if below.is_none_or(|(b, _)| y > b) {
                            below = Some((y, [Some(i), Some(j)]));
                        }
                    }
                    if j > from {
                        let y = e[i] + e[j - 1];
                        if above.is_none_or(|(a, _)| y < a) {
                            above = Some((y, [Some(i), Some(j - 1)]));
                        }
                    }
                }
            }
        }
        for (y, at) in [below, above].into_iter().flatten() {
            // The walk's own sum only where the quick one may beat the best: they differ
            // in the last bits alone.
            let quick = self.at(x + if full { whole - y } else { y });
            if quick > self.best + 1e-9 * (1.0 + self.best.abs()) {
                continue;
            }
            if self.better(self.walk_total(table, r, x, at, full)) {
                self.fill_best(r, at, full);
            }
        }
    }

    /// The total of a [`Search::sparse`] completion added as the walk adds it (position by
    /// position, then the tail table's own sum from the table's first position, `table`),
    /// so that the best value is the walk's to the bit.
    fn walk_total(
        &self,
        table: Option<usize>,
        r: usize,
        x: f64,
        at: [Option<usize>; 2],
        full: bool,
    ) -> f64 {
        let n = self.exposure.len();
        let count = |q: usize| {
            let moved = at.iter().flatten().filter(|&&p| r + p == q).count();
            if full {
                self.sessions - moved
            } else {
                moved
            }
        };
        let split = table.unwrap_or(n).max(r);
        let mut x = x;
        for q in r..split {
            x += count(q) as f64 * self.exposure[q];
        }
        let y: f64 = (split..n).map(|q| count(q) as f64 * self.exposure[q]).sum();
        if split < n {
            x + y
        } else {
            x
        }
    }

    /// The best counts: the walk's above `r`, from `r` on every position empty (or full),
    /// but positions `at` (relative to `r`), which hold one placement more (or one fewer)
    /// each.
    fn fill_best(&mut self, r: usize, at: [Option<usize>; 2], full: bool) {
        self.best_tail = None;
        let s = self.sessions as u32;
        if let Some(counts) = &mut self.counts {
            counts.best[..r].copy_from_slice(&counts.walk[..r]);
            counts.best[r..].fill(if full { s } else { 0 });
            for q in at.into_iter().flatten() {
                let slot = &mut counts.best[r + q];
                *slot = if full { *slot - 1 } else { *slot + 1 };
            }
        }
    }

    fn record(&mut self, r: usize, c: usize) {
        if let Some(counts) = &mut self.counts {
            counts.walk[r] = c as u32;
        }
    }

    /// Position `r` of block `b`, with `m` of the block's placements left after `x`; from
    /// `tail`'s first position on, its table gives the best completions at once.
    /// `LONG`: the long walk, whose subtrees with at most [`SPARSE`] placements (or holes)
    /// left in the last block are answered at once ([`Search::sparse`]); a parameter, not
    /// a field, so that the other walks do not test it at every node.
    fn visit<const LONG: bool>(
        &mut self,
        tail: Option<&Tail>,
        r: usize,
        b: usize,
        m: usize,
        x: f64,
    ) {
        if self.stopped {
            return;
        }
        self.nodes += 1;
        if self.nodes > self.budget {
            self.stopped = true;
            return;
        }
        if let Some(tail) = tail.filter(|t| t.from == r) {
            self.look_up(tail, m, x);
            return;
        }
        let end = self.blocks[b].end;
        if LONG && b + 1 == self.blocks.len() && r + 1 < end {
            let room = self.sessions * (end - r);
            if m <= SPARSE || m + SPARSE >= room {
                self.sparse(tail.map(|t| t.from), r, m, x);
                return;
            }
        }
        if r + 1 == end {
            // The block's last position takes what is left (at most `sessions`, by
            // feasibility); the next block starts with its own.
            self.record(r, m);
            let x = x + m as f64 * self.exposure[r];
            if let Some(next) = self.blocks.get(b + 1) {
                self.visit::<LONG>(tail, r + 1, b + 1, self.sessions * next.group0, x);
                return;
            }
            self.leaf(x, None);
            return;
        }
        let s = self.sessions;
        let first = m.saturating_sub(s * (end - r - 1));
        let last = s.min(m);
        // Child intervals move right as `c` grows (position r is worth at least any later
        // one), so their bounds fall and then rise: start where the centre is reached and
        // walk outwards, always to the side with the lower bound.
        // The intervals the scan computes are those of the first child on each side.
        let mut up = first;
        let mut at_up = self.child(r, b, m, up, x);
        let mut below = None;
        while up < last && at_up.1 < self.centre {
            below = Some(at_up);
            up += 1;
            at_up = self.child(r, b, m, up, x);
        }
        // Each side's next child and its bound, computed once: a visit changes neither.
        let bound_of = |search: &Self, c: usize| {
            let (lo, hi) = search.child(r, b, m, c, x);
            (c, search.lower(lo, hi))
        };
        let mut up_next = Some((up, self.lower(at_up.0, at_up.1)));
        let mut down_next = below.map(|(lo, hi)| (up - 1, self.lower(lo, hi)));
        loop {
            let (take_up, (c, bound)) = match (up_next, down_next) {
                (Some(a), Some(b)) if a.1 <= b.1 => (true, a),
                (Some(_), Some(b)) => (false, b),
                (Some(a), None) => (true, a),
                (None, Some(b)) => (false, b),
                (None, None) => break,
            };
            // Every child further on this side, and every child on the other side with a
            // higher bound, is no better: the walk ends at the first cut.
            if bound >= self.best || self.stopped {
                break;
            }
            self.record(r, c);
            self.visit::<LONG>(tail, r + 1, b, m - c, x + c as f64 * self.exposure[r]);
            if take_up {
                up_next = (c < last).then(|| bound_of(self, c + 1));
            } else {
                down_next = c
                    .checked_sub(1)
                    .filter(|&d| d >= first)
                    .map(|d| bound_of(self, d));
            }
        }
    }
}

/// Writes into `out` `sessions` rankings (blocks of item ids) that realise `counts` (from
/// [`Counts::best`]): group 0 holds position `r` in `counts[r]` sessions. Within the
/// positions of its group, items go by `key`, highest first (ties: lower id first): with
/// the utility as `key`, the best NDCG these positions allow, and with ids in a starting
/// ranking, ties keep their starting order. Group 0 is group id 0; every other id is the
/// other group. `order` (`n` long) is scratch.
///
/// # Errors
/// [`BoundError::Scratch`] when `group`, `key`, `order` or `counts` are not `n` long or `out`
/// is not `n * sessions` long; [`BoundError::Degenerate`] when `counts` is not a count
/// vector of `group` over `sessions` (a count above `sessions`, or not summing to `sessions`
/// times group 0's size). `out` is unspecified on error.
pub fn witness(
    counts: &[u32],
    group: &[u8],
    key: &[f64],
    sessions: usize,
    order: &mut [u16],
    out: &mut [u16],
) -> Result<(), BoundError> {
    witness_as(counts, group, |g| g == 0, key, sessions, order, out)
}

/// [`witness`] with the items whose group `first` accepts in the role of group 0: a caller
/// that searched the count vectors of another group ([`solve`] from that group's side).
///
/// # Errors
/// As [`witness`].
pub fn witness_as(
    counts: &[u32],
    group: &[u8],
    first: impl Fn(u8) -> bool,
    key: &[f64],
    sessions: usize,
    order: &mut [u16],
    out: &mut [u16],
) -> Result<(), BoundError> {
    let n = group.len();
    if counts.len() != n
        || key.len() != n
        || order.len() != n
        || n > usize::from(u16::MAX) + 1
        || Some(out.len()) != n.checked_mul(sessions)
    {
        return Err(BoundError::Scratch);
    }
    let k = group.iter().filter(|&&g| first(g)).count();
    let dealt: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    if sessions == 0
        || counts.iter().any(|&c| c as usize > sessions)
        || dealt != (sessions * k) as u64
    {
        return Err(BoundError::Degenerate);
    }
    for (i, slot) in order.iter_mut().enumerate() {
        *slot = i as u16;
    }
    // Group 0 first, then by key, highest first, then by id: a total order, so the
    // unstable sort is deterministic.
    order.sort_unstable_by(|&a, &b| {
        let (a, b) = (usize::from(a), usize::from(b));
        (!first(group[a]))
            .cmp(&!first(group[b]))
            .then(key[b].total_cmp(&key[a]))
            .then(a.cmp(&b))
    });
    // The positions of group 0, listed `counts[r]` times each in order, are dealt round-robin:
    // session j gets copies j, j + S, ... . Position r's copies are the indices
    // `start..start + counts[r]` of that list, fewer than S of them, so session j holds r
    // when one of them is j modulo S.
    for (j, block) in out.chunks_exact_mut(n).enumerate() {
        let (mut zero, mut other) = (0, k);
        let mut start = 0usize;
        for (r, slot) in block.iter_mut().enumerate() {
            let c = counts[r] as usize;
            let held = (j + sessions - start % sessions) % sessions < c;
            start += c;
            let next = if held { &mut zero } else { &mut other };
            if (held && *next >= k) || (!held && *next >= n) {
                return Err(BoundError::Degenerate);
            }
            *slot = order[*next];
            *next += 1;
        }
    }
    Ok(())
}
