//! The best multi-session ranking found within one level's window, and the bound on it.
//!
//! Over `S` sessions the fair set is every tuple of per-session patterns (which positions
//! group 0 holds) whose exposures sum into the window `[lo, hi]`, and the most relevant
//! tuple maximises the sum of their DCGs: a knapsack over the sessions. Its Lagrangian
//! relaxation ([`Lists::hull`]) bounds it and names the two patterns of the convex hull
//! of (exposure, DCG) either side of the window's breakpoint; the relaxation's optimum is
//! a mix of them with a fractional weight, so the mixes with weights in multiples of
//! `1 / S` are the hull evaluated where `S` sessions can be. Candidates, each a tuple that
//! exists:
//! - `m` sessions of one hull pattern and `S - m` of the other, where the sum lands in the
//!   window;
//! - `S - 1` sessions so mixed and the last walked exactly over the patterns that fit what
//!   they leave of the window ([`Lists::single`]): the fine adjustment the whole patterns
//!   cannot make (at the optimum the window is about 1e-12 of the total wide);
//! - one pattern in every session, walked in the window's mean (the one-session frontier
//!   at the same level).
//!
//! At one session only the walk is taken, as before: exact when it finishes. At several,
//! the best candidate is exact when it reaches the bound (within [`EXACT`] of it); else
//! both are reported and the bound may be loose (the hull mixes sessions continuously).

use ppg_core::objective::relevance::{Lists, DUAL_WORK};

/// Relative distance to the bound within which a found tuple counts as its best.
pub const EXACT: f64 = 1e-9;

/// The memory of [`best`], sized once per query.
pub(super) struct Work {
    prefix: Vec<f64>,
    dual: Vec<f64>,
    choice: Vec<u8>,
    near: Vec<u8>,
    far: Vec<u8>,
}

impl Work {
    pub(super) fn new(lists: &Lists<'_>) -> Self {
        let (k0, n) = (
            lists.gain[0].len(),
            lists.gain[0].len() + lists.gain[1].len(),
        );
        Work {
            prefix: vec![0.0; n + 1],
            dual: vec![0.0; DUAL_WORK * (k0 + 1)],
            choice: vec![0; n * (k0 + 1)],
            near: vec![0; n],
            far: vec![0; n],
        }
    }
}

/// [`best`]'s answer, in total DCG over the sessions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Found {
    /// The best total DCG found (at least the floor given).
    pub best: f64,
    /// The Lagrangian bound on it.
    pub bound: f64,
    /// No tuple in the window beats `best`.
    pub exact: bool,
}

/// The best total DCG over `sessions` sessions within `(lo, hi)` of group 0's summed
/// exposure, at least `floor` (a tuple known to be in the window), with the bound;
/// `budget`: nodes of all the walks together. `None` when the window holds no ranking or
/// the walk refuses the list (`Lists::single`).
pub(super) fn best(
    lists: &Lists<'_>,
    sessions: usize,
    (lo, hi): (f64, f64),
    floor: f64,
    budget: u64,
    work: &mut Work,
) -> Option<Found> {
    let Work {
        prefix,
        dual,
        choice,
        near,
        far,
    } = work;
    if sessions == 1 {
        let (best, complete) = lists.single(lo, hi, floor, budget, prefix, None)?;
        let bound = lists.dual(1, lo, hi, dual)?;
        return Some(Found {
            best,
            bound,
            exact: complete,
        });
    }
    let hull = lists.hull(sessions, (lo, hi), dual, choice, near, far)?;
    let (near, far) = (hull.near, hull.far);
    let fits = |x: f64| (lo..=hi).contains(&x);
    // `m` sessions of `near`, the rest of `far`, out of `of`.
    let mix = |m: usize, of: usize| {
        let (a, b) = (m as f64, (of - m) as f64);
        (a * near.e0 + b * far.e0, a * near.dcg + b * far.dcg)
    };
    let mut best = floor;
    for m in 0..=sessions {
        let (x, dcg) = mix(m, sessions);
        if fits(x) && dcg > best {
            best = dcg;
        }
    }
    let s = sessions as f64;
    let each = (budget / (sessions as u64 + 1)).max(1);
    // A walk's answer counts only above its floor: at it, nothing was met.
    let (one, _) = lists.single(lo / s, hi / s, best / s, each, prefix, None)?;
    if one > best / s {
        best = one * s;
    }
    for m in 0..sessions {
        let (x, dcg) = mix(m, sessions - 1);
        let (last, _) = lists.single(lo - x, hi - x, best - dcg, each, prefix, None)?;
        if last > best - dcg {
            best = dcg + last;
        }
    }
    let bound = hull.bound;
    Some(Found {
        best,
        bound,
        exact: best >= bound - EXACT * bound.abs().max(1.0),
    })
}
