//! One query re-ranked under TREC 2022's AWRF x NDCG: the request's attribute spec
//! ([`RerankSpec::attributes`]) laid out for the query's items
//! ([`crate::attributes::QueryAttributes`]), the core's metric over them, the recipe's
//! trainer. Apart from [`crate::attributes`] so that the request (which holds the spec)
//! and the files' format depend one way.

use ppg_core::{Objective, Ppg};

use crate::attributes::{metric, QueryAttributes, Scratch};
use crate::rerank_query::{Failure, RerankSpec, Reranked};

/// Re-ranks one query under TREC 2022's AWRF x NDCG: the starting ranking by `score`,
/// the recipe's trainer on `engine` (no group constraint: the metric has no groups), the
/// best ranking found. `items` names the rows for `spec`'s attribute table.
///
/// # Errors
/// The core's refusals, as a message; a spec without attributes.
pub fn rerank(
    engine: &mut Ppg,
    spec: &RerankSpec,
    discount: &[f64],
    score: &[f64],
    utility: &[f64],
    items: &[&str],
    seed: u64,
) -> Result<Reranked, String> {
    let attributes = spec
        .attributes
        .as_deref()
        .ok_or("AWRF 2022 needs the items' attributes (RerankSpec::attributes)")?;
    let n = score.len();
    let sessions = spec.sessions;
    let order = crate::optimise::ranking_by(score);
    let utility_s = crate::optimise::permute(utility, &order);
    let items_s = crate::optimise::permute(items, &order);
    let q = QueryAttributes::build(attributes, &items_s)?;
    let mut scratch = Scratch::default();
    let mut cost = metric(&q, &utility_s, discount, &mut scratch).map_err(|e| e.to_string())?;
    let err = |e: ppg_core::Error| e.to_string();
    engine.reseed(seed);
    engine
        .start(n, sessions, spec.recipe.initial_weight)
        .map_err(err)?;
    let before = cost.cost(engine.reference(), sessions);
    engine.train(&mut cost, &spec.recipe.train).map_err(err)?;
    let best = match engine.best() {
        Some((best, c)) if c < before => best.to_vec(),
        _ => engine.reference().to_vec(),
    };
    let after = cost.cost(&best, sessions);
    Ok(Reranked {
        rankings: crate::optimise::to_items(&best, &order),
        before,
        after,
        bound: None,
        certified: false,
    })
}

/// [`rerank`] on an engine of its own, as [`crate::rerank_query::Reranker::rerank_alone`]
/// does for the other metrics: a query of one item, or without a relevant item, passed
/// through. `items` names `rows`' items in the attribute table.
///
/// # Errors
/// As `rerank_alone`; the metric's refusals come as [`Failure::Exact`]'s message (a new
/// kind of failure would change every front end's match).
pub fn rerank_alone(
    reranker: &crate::rerank_query::Reranker,
    rows: &crate::rerank_query::Rows,
    items: &[&str],
    seed: u64,
) -> Result<Reranked, Failure> {
    let n = rows.score.len();
    if !reranker.needs_engine(rows) {
        return rerank_on(None, reranker, rows, items, seed);
    }
    let bytes = reranker.engine_bytes(n);
    let mut mem = Vec::new();
    mem.try_reserve_exact(bytes)
        .map_err(|error| Failure::Allocation { bytes, error })?;
    mem.resize(bytes, 0);
    let mut engine =
        Ppg::new(&mut mem, reranker.dims(n), reranker.spec().seed).map_err(Failure::Engine)?;
    rerank_on(Some(&mut engine), reranker, rows, items, seed)
}

/// [`rerank_alone`] on a caller's `engine` (laid out for at least this query's length;
/// `None` where the query needs none: [`crate::rerank_query::Reranker::needs_engine`]),
/// as the Python package's workers re-rank many queries on one engine each.
///
/// # Errors
/// As [`rerank_alone`]; [`Failure::Exact`] for a query that needs an engine and got none.
pub fn rerank_on(
    engine: Option<&mut Ppg>,
    reranker: &crate::rerank_query::Reranker,
    rows: &crate::rerank_query::Rows,
    items: &[&str],
    seed: u64,
) -> Result<Reranked, Failure> {
    let spec = reranker.spec();
    if rows.score.len() == 1 {
        return Ok(crate::rerank_query::passed_through(spec.sessions));
    }
    if !spec.cost.defined(rows.utility) {
        return Ok(crate::rerank_query::undefined(rows.score, spec.sessions));
    }
    let engine = engine.ok_or_else(|| Failure::Exact("no engine for the query".into()))?;
    let attention = &reranker.tables().attention;
    rerank(
        engine,
        spec,
        attention,
        rows.score,
        rows.utility,
        items,
        seed,
    )
    .map_err(Failure::Exact)
}
