//! The relevance certificate of a re-ranked query: the returned rankings' mean NDCG@k,
//! an upper bound on it over every ranking at least as fair, and whether the bound is
//! reached (issue 36, point 2).
//!
//! Asked for after [`Ppg::rerank`](crate::Ppg::rerank), by the doors that report it, so
//! that a call that does not ask pays nothing. The fair set is every ranking (all
//! sessions) whose cost is at most the larger of the returned cost and the bound plus the
//! recipe's tolerance: when the run is certified, every ranking within the tolerance of
//! the optimum. For the two-group DTR and EEL that set is a window of group 0's total
//! exposure ([`relevance`](crate::objective::relevance)); the bound is the Lagrangian
//! bound over it, and at one session the walk over the window's patterns, exact when it
//! finishes. For every other cost the bound is the best NDCG without fairness (1, or less
//! under the intra-group constraint): valid, exact only where it is reached.

use super::{
    number_present, starting_order, Cost, CostSpec, Metric, Outcome, Query, Ranked, Recipe, Tables,
};
use crate::objective::relevance::{dtr_window, eel_window, Lists, DUAL_WORK};
use crate::objective::{LowerBound, Ndcg};
use crate::Error;

/// The NDCG cut-off of the certificate when the caller names none (the protocol's 10).
pub const NDCG_CUTOFF: usize = 10;

/// Nodes of the one-session walk over the window's patterns ([`Lists::single`]) before it
/// settles for the Lagrangian bound.
pub const WALK_BUDGET: u64 = 200_000;

/// Values of [`certify_relevance`]'s `scratch` per item (and [`SCRATCH_EXTRA`] more).
pub const SCRATCH_PER_ITEM: usize = 2 + DUAL_WORK;
/// Values of [`certify_relevance`]'s `scratch` beyond [`SCRATCH_PER_ITEM`] per item.
pub const SCRATCH_EXTRA: usize = 4;

/// The relevance certificate of one query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Relevance {
    /// The returned rankings' NDCG@k, averaged over the sessions.
    pub ndcg: f64,
    /// An upper bound on that mean over every ranking at least as fair (module docs).
    pub bound: f64,
    /// The bound is the best: no ranking in the fair set is more relevant than it.
    pub exact: bool,
}

impl Relevance {
    /// How far the returned rankings' NDCG is below the bound (0 when rounding puts it
    /// above).
    pub fn gap(&self) -> f64 {
        (self.bound - self.ndcg).max(0.0)
    }
}

/// The relevance certificate of `out`, the rankings [`Ppg::rerank`](crate::Ppg::rerank)
/// wrote for `query` under `spec`, `tables` and `recipe`, with its `outcome`; NDCG@`k`
/// of `label` (per row, as `query`'s arrays; the utility where the caller has no other
/// labels) with `tables.discount`. `order`, `group` and `scratch`: the caller's memory, at
/// least the query's length and [`SCRATCH_PER_ITEM`] per item and [`SCRATCH_EXTRA`] more.
///
/// # Errors
/// [`Error::LengthMismatch`] for arrays shorter than the query or `out` not `items *
/// sessions` long; NDCG's refusals of the labels or `k` ([`Ndcg::new`]).
#[allow(clippy::too_many_arguments)]
pub fn certify_relevance(
    query: &Query<'_>,
    label: &[f64],
    spec: &CostSpec,
    tables: &Tables<'_>,
    recipe: &Recipe,
    outcome: &Outcome,
    out: &[u16],
    k: usize,
    order: &mut [u16],
    group: &mut [u8],
    scratch: &mut [f64],
) -> Result<Relevance, Error> {
    let rows = Ranked {
        utility: query.utility,
        group: query.group,
        sessions: query.sessions,
        seed: query.seed,
    };
    let memory = (order, group, scratch);
    certify(
        Some(query.score),
        &rows,
        label,
        spec,
        tables,
        recipe,
        outcome,
        out,
        k,
        memory,
    )
}

/// [`certify_relevance`] of the rankings [`Ppg::rerank_ranked`](crate::Ppg::rerank_ranked)
/// wrote for `query`, whose rows come in their starting ranking.
///
/// # Errors
/// As [`certify_relevance`].
#[allow(clippy::too_many_arguments)]
pub fn certify_relevance_ranked(
    query: &Ranked<'_>,
    label: &[f64],
    spec: &CostSpec,
    tables: &Tables<'_>,
    recipe: &Recipe,
    outcome: &Outcome,
    out: &[u16],
    k: usize,
    order: &mut [u16],
    group: &mut [u8],
    scratch: &mut [f64],
) -> Result<Relevance, Error> {
    let memory = (order, group, scratch);
    certify(
        None, query, label, spec, tables, recipe, outcome, out, k, memory,
    )
}

/// Both certificates: the starting ranking by `score`, or the rows' own without one.
#[allow(clippy::too_many_arguments)]
fn certify(
    score: Option<&[f64]>,
    query: &Ranked<'_>,
    label: &[f64],
    spec: &CostSpec,
    tables: &Tables<'_>,
    recipe: &Recipe,
    outcome: &Outcome,
    out: &[u16],
    k: usize,
    (order, group, scratch): (&mut [u16], &mut [u8], &mut [f64]),
) -> Result<Relevance, Error> {
    let (n, sessions) = (
        score.map_or(query.utility.len(), <[f64]>::len),
        query.sessions,
    );
    let short = [label.len(), order.len(), group.len(), query.utility.len()]
        .into_iter()
        .find(|&len| len < n);
    if let Some(found) = short {
        return Err(Error::LengthMismatch { expected: n, found });
    }
    let need = SCRATCH_PER_ITEM * n + SCRATCH_EXTRA;
    if scratch.len() < need {
        return Err(Error::LengthMismatch {
            expected: need,
            found: scratch.len(),
        });
    }
    if out.len() != n * sessions {
        return Err(Error::LengthMismatch {
            expected: n * sessions,
            found: out.len(),
        });
    }
    let ndcg = Ndcg::new(&label[..n], k, tables.discount)?;
    let achieved = ndcg.value(out, sessions);
    let ideal = ndcg.ideal();
    let unbounded = Relevance {
        ndcg: achieved,
        bound: 1.0,
        exact: achieved >= 1.0,
    };
    if ideal == 0.0 {
        return Ok(unbounded);
    }
    // The query in its starting order, groups numbered as the recipe numbers them.
    let order = &mut order[..n];
    starting_order(score, order)?;
    let group = &mut group[..n];
    for (k, &row) in order.iter().enumerate() {
        group[k] = query.group[usize::from(row)];
    }
    number_present(group);
    if group.iter().any(|&g| g > 1) {
        return Ok(unbounded);
    }
    // Each group's gains in the order they take its positions: the starting order under
    // the intra-group constraint, descending otherwise.
    let (gains, rest) = scratch.split_at_mut(n);
    let (utility, work) = rest.split_at_mut(n);
    let mut at = 0;
    for g in 0..2u8 {
        for (p, &row) in order.iter().enumerate() {
            if group[p] == g {
                gains[at] = ndcg.gain(label[usize::from(row)]);
                at += 1;
            }
        }
    }
    let k0 = group.iter().filter(|&&x| x == 0).count();
    if !recipe.intra {
        let (a, b) = gains.split_at_mut(k0);
        a.sort_unstable_by(|x, y| y.total_cmp(x));
        b.sort_unstable_by(|x, y| y.total_cmp(x));
    }
    let (gain0, gain1) = gains.split_at(k0);
    let lists = Lists {
        gain: [gain0, gain1],
        discount: &tables.discount[..k.min(n).min(tables.discount.len())],
        exposure: &tables.exposure[..n],
    };
    let scale = sessions as f64 * ideal;
    for (k, &row) in order.iter().enumerate() {
        utility[k] = query.utility[usize::from(row)];
    }
    let window = level(recipe, outcome.after, outcome.bound)
        .and_then(|level| window(spec, None, utility, group, tables, sessions, level));
    let dcg = match window {
        Some((lo, hi)) => {
            let dual = lists.dual(sessions, lo, hi, work);
            let walk = (sessions == 1 && !recipe.intra)
                .then(|| lists.single(lo, hi, achieved * scale, WALK_BUDGET, work, None))
                .flatten()
                .filter(|&(_, complete)| complete)
                .map(|(best, _)| best);
            match (dual, walk) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        }
        // No window: the best without fairness (within the kept order), valid for any
        // cost.
        None => lists.dual(sessions, f64::NEG_INFINITY, f64::INFINITY, work),
    };
    let Some(dcg) = dcg else {
        return Ok(unbounded);
    };
    // The bound can only be looser for rounding: a relative 1e-12 above the DCG's sum.
    let bound = (dcg / scale * (1.0 + 1e-12)).min(1.0).max(achieved);
    Ok(Relevance {
        ndcg: achieved,
        bound,
        exact: achieved >= bound - 1e-9,
    })
}

/// The level of cost the fair set reaches: the larger of the returned cost and the bound
/// plus the recipe's tolerance (when certified, the tolerance's); `None` without a bound.
pub(crate) fn level(recipe: &Recipe, after: f64, bound: Option<LowerBound>) -> Option<f64> {
    Some(after.max(bound?.value + recipe.train.certify.unwrap_or(0.0)))
}

/// The window of group 0's total exposure the rankings of the two-group DTR and EEL
/// (without an NDCG term) that cost at most `level` lie in, over `sessions` sessions of
/// the query whose `utility` and `group` (ids 0 and 1) are in starting order, with the
/// cost `built` on them where the caller has it. `None` for other costs.
pub(crate) fn window(
    spec: &CostSpec,
    built: Option<&Cost<'_>>,
    utility: &[f64],
    group: &[u8],
    tables: &Tables<'_>,
    sessions: usize,
    level: f64,
) -> Option<(f64, f64)> {
    let n = utility.len();
    if spec.ndcg.is_some() || tables.exposure.len() < n {
        return None;
    }
    let total: f64 = tables.exposure[..n].iter().sum();
    match spec.metric {
        Metric::Dtr => {
            let mut u = [0.0; 2];
            for (&y, &g) in utility.iter().zip(group) {
                u[usize::from(g)] += y;
            }
            (u[0] > 0.0 && u[1] > 0.0).then(|| dtr_window(u, total, sessions, 1.0 + level))
        }
        Metric::Eel => {
            // The caller's cost where it has one (building EEL sorts by grade).
            let mut none = [];
            let own = match built {
                Some(_) => None,
                None => Cost::new(spec, utility, group, tables, &mut none).ok(),
            };
            let Some(Cost::Eel(eel)) = built.or(own.as_ref()) else {
                return None;
            };
            let [t0, t1] = [*eel.targets().first()?, *eel.targets().get(1)?];
            eel_window([t0, t1], total, sessions, level)
        }
        _ => None,
    }
}

/// Values of [`most_relevant_one`]'s `work` per item (and 4 more).
const ONE_WORK: usize = 3;

/// Point 1 at one session: the most relevant ranking among those that cost at most
/// `level` (the two-group DTR and EEL without an NDCG term, the order within groups
/// free), written into `candidate` in starting-order ids when the walk over the window's
/// patterns ([`Lists::single`]) meets one more relevant than `floor` (the DCG of the NDCG
/// of `utility`, the only relevance the recipe knows). Why: at one session the window
/// mostly holds one pattern, which the search's witness already has; where it holds more
/// (EEL's targets by grade, 102 of 600 graded queries), the witness is not chosen for
/// relevance. `cost`: the recipe's, on `utility` and `group`; `best`: the ranking it found. The caller scores the candidate with its cost before it takes it (the
/// window is the exact set widened for rounding). `work`: [`ONE_WORK`] values per item
/// and 4 more.
#[allow(clippy::too_many_arguments)]
pub(crate) fn most_relevant_one(
    spec: &CostSpec,
    cost: &Cost<'_>,
    tables: &Tables<'_>,
    utility: &[f64],
    group: &[u8],
    level: f64,
    best: &[u16],
    work: &mut [f64],
    candidate: &mut [u16],
) -> bool {
    let n = utility.len();
    if work.len() < ONE_WORK * n + 4 || candidate.len() < n || group.iter().any(|&g| g > 1) {
        return false;
    }
    let Some((lo, hi)) = window(spec, Some(cost), utility, group, tables, 1, level) else {
        return false;
    };
    let Ok(ndcg) = Ndcg::new(utility, NDCG_CUTOFF, tables.discount) else {
        return false;
    };
    // Each group's items by utility, descending (ties: starting order), into `candidate`
    // as group 0's then group 1's; their gains alike.
    let (gains, rest) = work.split_at_mut(n);
    let (prefix, rest) = rest.split_at_mut(n + 1);
    let pattern = &mut bytemuck::must_cast_slice_mut::<f64, u8>(rest)[..2 * n];
    let mut at = 0;
    for g in 0..2u8 {
        let from = at;
        for (p, &x) in group.iter().enumerate() {
            if x == g {
                candidate[at] = p as u16;
                at += 1;
            }
        }
        candidate[from..at].sort_unstable_by(|&a, &b| {
            utility[usize::from(b)]
                .total_cmp(&utility[usize::from(a)])
                .then(a.cmp(&b))
        });
    }
    for (gain, &item) in gains.iter_mut().zip(candidate.iter()) {
        *gain = ndcg.gain(utility[usize::from(item)]);
    }
    let k0 = group.iter().filter(|&&g| g == 0).count();
    let (gain0, gain1) = gains.split_at(k0);
    let lists = Lists {
        gain: [gain0, gain1],
        discount: &tables.discount[..NDCG_CUTOFF.min(n).min(tables.discount.len())],
        exposure: &tables.exposure[..n],
    };
    let floor = ndcg.value(&best[..n], 1) * ndcg.ideal();
    let Some((found, _)) = lists.single(lo, hi, floor, WALK_BUDGET, prefix, Some(pattern)) else {
        return false;
    };
    if found.partial_cmp(&floor) != Some(core::cmp::Ordering::Greater) {
        return false;
    }
    // The sorted ids aside (the gains are spent), then dealt onto the pattern.
    let sorted = &mut bytemuck::must_cast_slice_mut::<f64, u16>(gains)[..n];
    sorted.copy_from_slice(&candidate[..n]);
    let (mut a, mut b) = (0, k0);
    for (slot, &zero) in candidate.iter_mut().zip(pattern.iter()).take(n) {
        if zero == 1 {
            *slot = sorted[a];
            a += 1;
        } else {
            *slot = sorted[b];
            b += 1;
        }
    }
    true
}
