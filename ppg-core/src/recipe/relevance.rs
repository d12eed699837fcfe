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

use super::{number_present, ranking_by, Cost, CostSpec, Metric, Outcome, Query, Recipe, Tables};
use crate::objective::relevance::{dtr_window, Lists, DUAL_WORK};
use crate::objective::Ndcg;
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
    let (n, sessions) = (query.score.len(), query.sessions);
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
    ranking_by(query.score, order)?;
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
    let window = window(spec, query, order, group, tables, recipe, outcome, utility);
    let dcg = match window {
        Some((lo, hi)) => {
            let dual = lists.dual(sessions, lo, hi, work);
            let walk = (sessions == 1 && !recipe.intra)
                .then(|| lists.single(lo, hi, achieved * scale, WALK_BUDGET, work))
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

/// The window of group 0's total exposure the fair set lies in, for the two-group DTR
/// and EEL without an NDCG term: the costs at most the larger of the returned one and the
/// bound plus the tolerance. `None` for other costs or without a bound. `utility`: scratch
/// of the query's length.
#[allow(clippy::too_many_arguments)]
fn window(
    spec: &CostSpec,
    query: &Query<'_>,
    order: &[u16],
    group: &[u8],
    tables: &Tables<'_>,
    recipe: &Recipe,
    outcome: &Outcome,
    utility: &mut [f64],
) -> Option<(f64, f64)> {
    let (n, sessions) = (order.len(), query.sessions);
    let bound = outcome.bound?;
    if spec.ndcg.is_some() {
        return None;
    }
    let level = outcome
        .after
        .max(bound.value + recipe.train.certify.unwrap_or(0.0));
    for (k, &row) in order.iter().enumerate() {
        utility[k] = query.utility[usize::from(row)];
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
            let mut none = [];
            let Ok(Cost::Eel(eel)) = Cost::new(spec, &*utility, group, tables, &mut none) else {
                return None;
            };
            let [t0, t1] = [*eel.targets().first()?, *eel.targets().get(1)?];
            crate::objective::relevance::eel_window([t0, t1], total, sessions, level)
        }
        _ => None,
    }
}
