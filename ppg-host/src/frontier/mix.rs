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
//!   at the same level);
//! - the best of these, short of the bound, improved a session at a time: each walked
//!   anew in what the others leave of the window, until a pass changes nothing (three
//!   sessions of five items found the brute-force best this way where no mix of two
//!   patterns and one walk did).
//!
//! At one session only the walk is taken, as before: exact when it finishes. At several,
//! the best candidate is exact when it reaches the bound (within [`EXACT`] of it); else
//! both are reported and the bound may be loose (the hull mixes sessions continuously).

use ppg_core::objective::relevance::{Lists, DUAL_WORK};

/// Relative distance to the bound within which a found tuple counts as its best.
pub const EXACT: f64 = 1e-9;

/// Passes of the search that walks each session anew, at most.
const PASSES: usize = 4;

/// The memory of [`best`], sized once per query.
pub(super) struct Work {
    prefix: Vec<f64>,
    dual: Vec<f64>,
    choice: Vec<u8>,
    near: Vec<u8>,
    far: Vec<u8>,
    /// The walk's best pattern and its path.
    pattern: Vec<u8>,
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
            pattern: vec![0; 2 * n],
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
/// `budget / (sessions + 1)`: nodes of each walk. `None` when the window holds no ranking or
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
        pattern,
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
    let n = lists.gain[0].len() + lists.gain[1].len();
    let (near, far) = ((hull.near.e0, hull.near.dcg), (hull.far.e0, hull.far.dcg));
    let fits = |x: f64| (lo..=hi).contains(&x);
    // `m` sessions of `near`, the rest of `far`, out of `of`: (exposure, DCG) each.
    let mix = |m: usize, of: usize| {
        let mut t = vec![near; m];
        t.resize(of, far);
        t
    };
    let sum = |t: &[(f64, f64)]| t.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
    // The best total met (at least the floor) and the best tuple tracked.
    let mut best = floor;
    let mut tuple: Vec<(f64, f64)> = Vec::new();
    for m in 0..=sessions {
        let t = mix(m, sessions);
        let (x, dcg) = sum(&t);
        if fits(x) && dcg > best {
            best = dcg;
            tuple = t;
        }
    }
    let s = sessions as f64;
    let each = (budget / (sessions as u64 + 1)).max(1);
    // A walk's answer counts only above its floor: at it, nothing was met.
    let (one, _) = lists.single(lo / s, hi / s, best / s, each, prefix, Some(pattern))?;
    if one > best / s {
        best = one * s;
        let p = lists.measure(&pattern[..n]);
        tuple = vec![(p.e0, p.dcg); sessions];
    }
    for m in 0..sessions {
        let mut t = mix(m, sessions - 1);
        let (x, dcg) = sum(&t);
        let (last, _) = lists.single(lo - x, hi - x, best - dcg, each, prefix, Some(pattern))?;
        if last > best - dcg {
            best = dcg + last;
            let p = lists.measure(&pattern[..n]);
            t.push((p.e0, p.dcg));
            tuple = t;
        }
    }
    let bound = hull.bound;
    let proven = |best: f64| best >= bound - EXACT * bound.abs().max(1.0);
    // Short of the bound: each session in turn walked anew in what the others leave of
    // the window (the best pattern given the others, so the total never falls), until a
    // pass changes nothing. Sessions alike are walked once a pass: with the same others,
    // the same walk.
    if !tuple.is_empty() && !proven(best) {
        for _ in 0..PASSES {
            tuple.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
            let mut better = false;
            for i in 0..sessions {
                if i > 0 && tuple[i] == tuple[i - 1] {
                    continue;
                }
                let (x, _) = sum(&tuple);
                let others = x - tuple[i].0;
                let now = tuple[i].1;
                let (found, _) =
                    lists.single(lo - others, hi - others, now, each, prefix, Some(pattern))?;
                if found > now {
                    let p = lists.measure(&pattern[..n]);
                    tuple[i] = (p.e0, p.dcg);
                    better = true;
                }
            }
            if !better {
                break;
            }
        }
        best = best.max(sum(&tuple).1);
    }
    let bound = hull.bound;
    Some(Found {
        best,
        bound,
        exact: proven(best),
    })
}
