//! One query of `ppg rerank`: the core's recommended recipe (`ppg_core::Ppg::rerank`), or the
//! exact optimum's rankings (`--method exact`). The Python package calls the same core
//! function, so the same rows and seed give the same output whichever front end ran them.
//!
//! A query of one item is passed through ([`passed_through`]), as `ppg rerank` does; so is
//! a query the metric has no value for ([`CostSpec::defined`](crate::cost::CostSpec::defined): group-level expected
//! exposure or AWRF without an item of utility > 0), which keeps its starting ranking with
//! NaN costs ([`undefined`]), as the C API's `ppg_engine_rerank` returns it. A
//! caller that must be able to stop a run (Python's Ctrl-C) hands [`rerank`] a `stop`
//! check: every cost the trainer asks for first asks it (`ppg_core::objective::Stoppable`),
//! and a run told to stop ends as a NaN cost would, at once and with the engine as before
//! the run.

use ppg_core::objective::bound::{self, Counts, Shape};
use ppg_core::objective::{Eel, LowerBound};
use ppg_core::recipe::{Query, Workspace};
use ppg_core::{Objective, Ppg};

use crate::cost::{Cost, Metric, Tables};
use crate::optimise::{self, ranking_by};
use crate::spec::{RerankSpec, Rows};

/// One query's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Reranked {
    /// `sessions` rankings of row indices (0-based rows of the query), laid end to end.
    pub rankings: Vec<u16>,
    /// The cost of the input ranking, repeated over the sessions.
    pub before: f64,
    /// The cost of the returned rankings (never more than `before`: the recipe scores the
    /// input first).
    pub after: f64,
    /// The cost's lower bound at the query's session count, where the cost gives one.
    pub bound: Option<LowerBound>,
    /// `after` is within the certificate's tolerance of `bound`.
    pub certified: bool,
}

/// The outcome of a query of one item: its one ranking in every session, costs 0 (there is
/// nothing to order, and no engine is laid out for it).
pub fn passed_through(sessions: usize) -> Reranked {
    Reranked {
        rankings: vec![0; sessions],
        before: 0.0,
        after: 0.0,
        bound: None,
        certified: false,
    }
}

/// The outcome of a query its metric has no value for ([`CostSpec::defined`](crate::cost::CostSpec::defined)): its
/// starting ranking (by `score`, as [`rerank`] starts) in every session, and NaN costs
/// (the evaluators skip such a query: there is no number to report).
pub fn undefined(score: &[f64], sessions: usize) -> Reranked {
    let order = ranking_by(score);
    Reranked {
        rankings: (0..sessions).flat_map(|_| order.iter().copied()).collect(),
        before: f64::NAN,
        after: f64::NAN,
        bound: None,
        certified: false,
    }
}

impl Reranked {
    /// Whether the query was passed through because its metric has no value for it
    /// ([`undefined`]).
    pub fn is_undefined(&self) -> bool {
        self.before.is_nan()
    }

    /// How far `after` is above the bound (0 when rounding puts it below), if there is one.
    pub fn gap(&self) -> Option<f64> {
        self.bound.map(|b| (self.after - b.value).max(0.0))
    }
}

/// The seed of the query at `index` (0-based, in input order) under the user's `seed`
/// (`ppg_core::seed::query_seed`).
pub fn query_seed(seed: u64, index: usize) -> u64 {
    ppg_core::seed::query_seed(seed, index as u64)
}

/// Re-ranks one query's `rows` as `spec` asks, on `engine` (laid out for at least this
/// query's length and `spec.sessions`) with the query's `seed` ([`query_seed`]), through
/// the core's recipe; `tables` are at least as long as the query.
///
/// `stop` is asked before every cost (see the module docs); `&|| false` never stops.
/// A query the metric has no value for is passed through ([`undefined`]).
///
/// # Errors
/// The engine's refusal: a cost it cannot build (a negative utility for DTR, too many
/// groups), a shape beyond its layout, a non-finite cost; [`ppg_core::Error::NotFinite`]
/// too when `stop` said so.
pub fn rerank(
    engine: &mut Ppg,
    spec: &RerankSpec,
    tables: &Tables,
    rows: &Rows,
    seed: u64,
    stop: &dyn Fn() -> bool,
) -> Result<Reranked, ppg_core::Error> {
    let Rows {
        score,
        utility,
        group,
    } = *rows;
    let (sessions, recipe, spec) = (spec.sessions, &spec.recipe, &spec.cost);
    let n = score.len();
    // A malformed query goes on to the core's refusal.
    let shaped = utility.len() == n && (1..=ppg_core::MAX_ITEMS).contains(&n) && sessions > 0;
    if shaped && !spec.defined(utility) {
        return Ok(undefined(score, sessions));
    }
    let (mut order, mut utility_s, mut group_s) = (vec![0; n], vec![0.0; n], vec![0; n]);
    let mut scratch = crate::cost::scratch(spec, n);
    let mut rankings = vec![0; n * sessions];
    let query = Query {
        score,
        utility,
        group,
        sessions,
        seed,
    };
    let work = Workspace {
        order: &mut order,
        utility: &mut utility_s,
        group: &mut group_s,
        scratch: &mut scratch,
    };
    let outcome = engine.rerank_until(
        &query,
        spec,
        &tables.view(),
        recipe,
        work,
        &mut rankings,
        stop,
    )?;
    Ok(Reranked {
        rankings,
        before: outcome.before,
        after: outcome.after,
        bound: outcome.bound,
        certified: outcome.certified,
    })
}

/// Why a query has no exact rankings.
pub const EXACT_NEEDS: &str =
    "--method exact needs a fairness metric alone (dtr or eel) and exactly two groups";

/// The exact optimum's rankings of one query (`ppg_core::objective::bound`): the cost's
/// optimum over every `sessions`-tuple of rankings, and rankings that reach it, in which
/// the items of a group keep their order by utility (ties: their starting order). A query
/// with nothing to optimise keeps its input ranking. Certified when the search was exact
/// (a search cut at its node budget gives its best rankings, uncertified).
///
/// # Errors
/// [`EXACT_NEEDS`] for an NDCG mix, a grouping other than ids 0 and 1, or a list too long
/// for the search to find any ranking; the metric's refusal of the query.
pub fn exact(spec: &RerankSpec, tables: &Tables, rows: &Rows) -> Result<Reranked, String> {
    let Rows {
        score,
        utility,
        group,
    } = *rows;
    let (sessions, spec) = (spec.sessions, &spec.cost);
    let n = score.len();
    let order = ranking_by(score);
    let utility_s = optimise::permute(utility, &order);
    let group_s = optimise::permute(group, &order);
    let view = tables.view();
    let mut scratch = crate::cost::scratch(spec, n);
    let mut cost =
        Cost::new(spec, &utility_s, &group_s, &view, &mut scratch).map_err(|e| e.to_string())?;
    let input: Vec<u16> = (0..sessions).flat_map(|_| 0..n as u16).collect();
    let before = cost.cost(&input, sessions);
    if !spec.meaningful(utility, group) {
        return Ok(Reranked {
            rankings: optimise::to_items(&input, &order),
            before,
            after: before,
            bound: None,
            certified: false,
        });
    }
    let shape = match (spec.metric, spec.ndcg) {
        (Metric::Dtr, None) if group_s.iter().all(|&g| g <= 1) => {
            let mut sums = [0.0; 2];
            for (&u, &g) in utility_s.iter().zip(&group_s) {
                sums[usize::from(g != 0)] += u;
            }
            Shape::Dtr { utility: sums }
        }
        (Metric::Eel, None) => {
            let eel = Eel::new(&utility_s, &group_s, spec.levels, &tables.exposure)
                .map_err(|e| e.to_string())?;
            match *eel.targets() {
                [t0, t1] => Shape::Eel { target: [t0, t1] },
                _ => return Err(EXACT_NEEDS.into()),
            }
        }
        _ => return Err(EXACT_NEEDS.into()),
    };
    let group0 = group_s.iter().filter(|&&g| g == 0).count();
    let (mut prefix, mut walk, mut best) = (vec![0.0; n + 1], vec![0; n], vec![0; n]);
    let counts = Counts {
        walk: &mut walk,
        best: &mut best,
    };
    let b = bound::solve(
        shape,
        &tables.exposure[..n],
        group0,
        sessions,
        bound::BUDGET,
        &mut prefix,
        Some(counts),
    )
    .map_err(|e| e.to_string())?;
    if !b.value.is_finite() {
        return Err(EXACT_NEEDS.into());
    }
    let (mut scratch, mut ranking) = (vec![0; n], vec![0; n * sessions]);
    bound::witness(
        &best,
        &group_s,
        &utility_s,
        sessions,
        &mut scratch,
        &mut ranking,
    )
    .map_err(|e| e.to_string())?;
    let after = cost.cost(&ranking, sessions);
    // DTR's cost is the ratio - 1.
    let offset = if spec.metric == Metric::Dtr { 1.0 } else { 0.0 };
    Ok(Reranked {
        rankings: optimise::to_items(&ranking, &order),
        before,
        after,
        bound: Some(LowerBound {
            value: b.lower - offset,
            exact: b.exact,
        }),
        certified: b.exact,
    })
}
