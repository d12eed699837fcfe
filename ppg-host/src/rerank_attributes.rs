//! One query under TREC 2022's AWRF x NDCG: the request's attribute spec
//! ([`RerankSpec::attributes`]) laid out for the query's items ([`QueryAttributes`]),
//! the core's metric over them ([`metric`], [`score`]), re-ranked with the recipe's
//! trainer ([`rerank`]). Apart from [`crate::attributes`] so that the request (which holds
//! the spec) and the files' format depend one way.

use ppg_core::objective::awrf2022::{unknown_row, Attributes, Awrf2022, Target2022, Work2022};
use ppg_core::objective::AwrfCost;
use ppg_core::{Objective, Ppg};

use crate::attributes::{AttributeSpec, TargetSpec, Unknown, RAW_UNKNOWN};
use crate::rerank_query::{Failure, RerankSpec, Reranked};

/// One query's rows (in the order of the items given), and the target's ranges, owned.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryAttributes {
    levels: Vec<u16>,
    unknown: Vec<bool>,
    start: Vec<u32>,
    level: Vec<u16>,
    weight: Vec<f64>,
    tstart: Vec<u32>,
    tvalue: Vec<f64>,
    marginal: bool,
}

impl QueryAttributes {
    /// The rows of `items` under `spec`'s policies.
    ///
    /// # Errors
    /// The core's refusal of a row (a row of no mass).
    pub fn build(spec: &AttributeSpec, items: &[&str]) -> Result<Self, String> {
        let t = &spec.table;
        let k = t.names.len();
        let known: Vec<u16> = t.levels.iter().map(|l| l.len() as u16).collect();
        let mut q = QueryAttributes {
            levels: known
                .iter()
                .zip(&spec.policy)
                .map(|(&l, &p)| l + u16::from(p == Unknown::Level))
                .collect(),
            unknown: spec.policy.iter().map(|&p| p == Unknown::Level).collect(),
            start: vec![0],
            level: Vec::new(),
            weight: Vec::new(),
            tstart: vec![0],
            tvalue: Vec::new(),
            marginal: matches!(spec.target, TargetSpec::Marginals(_)),
        };
        let (mut out_l, mut out_w) = (Vec::new(), Vec::new());
        for &item in items {
            let entries = t.items.get(item);
            #[allow(clippy::needless_range_loop)]
            for a in 0..k {
                if let Some(entries) = entries {
                    let mine = entries.iter().filter(|e| usize::from(e.0) == a);
                    let lv: Vec<u16> = mine
                        .clone()
                        .map(|e| if e.1 == RAW_UNKNOWN { known[a] } else { e.1 })
                        .collect();
                    let wt: Vec<f64> = mine.map(|e| e.2).collect();
                    out_l.resize(usize::from(known[a]) + 1, 0);
                    out_w.resize(usize::from(known[a]) + 1, 0.0);
                    let n = unknown_row(spec.policy[a], known[a], &lv, &wt, &mut out_l, &mut out_w)
                        .map_err(|e| format!("item {item:?}, attribute {:?}: {e}", t.names[a]))?;
                    q.level.extend_from_slice(&out_l[..n]);
                    q.weight.extend_from_slice(&out_w[..n]);
                }
                q.start.push(q.level.len() as u32);
            }
        }
        let (TargetSpec::Trec(values) | TargetSpec::Marginals(values)) = &spec.target;
        for v in values {
            q.tvalue.extend_from_slice(v);
            q.tstart.push(q.tvalue.len() as u32);
        }
        Ok(q)
    }

    /// The rows as the core borrows them.
    pub fn attributes(&self) -> Attributes<'_> {
        Attributes {
            levels: &self.levels,
            unknown: &self.unknown,
            start: &self.start,
            level: &self.level,
            weight: &self.weight,
        }
    }

    /// The target as the core borrows it.
    pub fn target(&self) -> Target2022<'_> {
        if self.marginal {
            Target2022::Marginals {
                start: &self.tstart,
                value: &self.tvalue,
            }
        } else {
            Target2022::Trec {
                start: &self.tstart,
                background: &self.tvalue,
            }
        }
    }
}

/// The scratch of one query's metric, owned.
#[derive(Debug, Default)]
pub struct Scratch {
    key: Vec<u16>,
    cell: Vec<u32>,
    value: Vec<f64>,
    item: Vec<u32>,
    cells: Vec<f64>,
    memo: Vec<f64>,
}

/// The metric of `q`'s list with `utility`, `discount` the attention table, in `scratch`.
///
/// # Errors
/// The core's refusals ([`Awrf2022::new`]).
pub fn metric<'a>(
    q: &QueryAttributes,
    utility: &'a [f64],
    discount: &'a [f64],
    scratch: &'a mut Scratch,
) -> Result<Awrf2022<'a>, ppg_core::Error> {
    let n = utility.len();
    let c = Awrf2022::contributions(&q.attributes(), n)?;
    let k = q.levels.len();
    let [key, cell, value, item, cells, memo] = Work2022::lengths(c, n, k);
    scratch.key.resize(key, 0);
    scratch.cell.resize(cell, 0);
    scratch.value.resize(value, 0.0);
    scratch.item.resize(item, 0);
    scratch.cells.resize(cells, 0.0);
    scratch.memo.resize(memo, 0.0);
    let work = Work2022 {
        key: &mut scratch.key,
        cell: &mut scratch.cell,
        value: &mut scratch.value,
        item: &mut scratch.item,
        cells: &mut scratch.cells,
        memo: &mut scratch.memo,
    };
    Awrf2022::new(
        utility,
        &q.attributes(),
        q.target(),
        discount,
        work,
        AwrfCost::Product,
    )
}

/// TREC 2022's AWRF, NDCG and their product of `ranking` (`sessions` blocks of the ids
/// `0..n`) over the list of `items` (named in `spec`'s table) with `utility`, at TREC's
/// attention `1 / log2(max(r, 2))`: what `ppg.metrics.awrf2022` returns.
///
/// # Errors
/// Why: the rows' or the core's refusal, a malformed ranking.
pub fn score(
    spec: &AttributeSpec,
    items: &[&str],
    utility: &[f64],
    ranking: &[u16],
    sessions: usize,
) -> Result<ppg_core::objective::AwrfReport, String> {
    if items.len() != utility.len() {
        return Err(format!(
            "{} items for {} utilities",
            items.len(),
            utility.len()
        ));
    }
    let q = QueryAttributes::build(spec, items)?;
    let mut discount = vec![0.0; utility.len()];
    ppg_core::objective::Awrf::discount(&mut discount);
    let mut scratch = Scratch::default();
    let mut m = metric(&q, utility, &discount, &mut scratch).map_err(|e| e.to_string())?;
    m.report(ranking, sessions).ok_or_else(|| {
        format!(
            "expected {sessions} rankings of the ids 0..{}",
            utility.len()
        )
    })
}

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
