//! One re-ranking request and each query of it. [`RerankSpec`] is what the user asked of
//! every query (metric and its parameters, sessions, recipe, seed, method): `ppg rerank`
//! and the Python package build it from their arguments once, and every query then goes
//! through the one [`Reranker`] with the spec and the query alone. The rules about a query
//! (its utility, DTR's sums, AWRF's population, its engine's size) live here, once
//! ([`Reranker::check`]); a front end only says them in its own words (a file's line, an
//! exception).
//!
//! A new cost parameter is a field of the core's `CostSpec`, set by each front end in one
//! line; a new rule about a query is a [`Refusal`] here.
//!
//! The mechanics of one query: the core's recommended recipe (`ppg_core::Ppg::rerank`), or the
//! exact optimum's rankings (`--method exact`). The Python package calls the same core
//! function, so the same rows and seed give the same output whichever front end ran them.
//!
//! A query of one item is passed through ([`passed_through`]), as `ppg rerank` does; so is
//! a query the metric has no value for ([`CostSpec::defined`]: group-level expected
//! exposure or AWRF without an item of utility > 0), which keeps its starting ranking with
//! NaN costs ([`undefined`]), as the C API's `ppg_engine_rerank` returns it. A
//! caller that must be able to stop a run (Python's Ctrl-C) hands [`rerank`] a `stop`
//! check: every cost the trainer asks for first asks it (`ppg_core::objective::Stoppable`),
//! and a run told to stop ends as a NaN cost would, at once and with the engine as before
//! the run.
//!
//! The file stays whole past 400 lines: the request, the reranker that serves it and the
//! mechanics of one query are read together (a third of it is unit tests).

use ppg_core::objective::bound::{self, Counts, Shape};
use ppg_core::objective::{Eel, LowerBound, RankStart, MAX_GROUPS};
use ppg_core::recipe::relevance::{self, Relevance};
use ppg_core::recipe::{Outcome, Query};
use ppg_core::{Dims, Objective, Ppg, Recipe};

use std::sync::Arc;

use crate::attributes::AttributeSpec;
use crate::cost::{check_utility, BadUtility, Cost, CostSpec, Metric, Tables};
use crate::optimise::{self, ranking_by};

/// How a query is re-ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The core's recipe: PPG search (`ppg_core::Ppg::rerank`).
    Ppg,
    /// The exact optimum's rankings ([`exact`]; DTR or EEL alone, two
    /// groups).
    Exact,
}

/// What the user asked of every query of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RerankSpec {
    /// The cost to minimise: the metric and its parameters.
    pub cost: CostSpec,
    /// The training recipe (constraints within groups, the trainer's configuration).
    pub recipe: Recipe,
    /// Rankings per query.
    pub sessions: usize,
    /// The run's seed: each query's own comes from it and its place ([`Reranker::seed`]).
    pub seed: u64,
    /// PPG search or the exact optimum.
    pub method: Method,
    /// Where the exposure's rank count starts.
    pub rank_start: RankStart,
    /// TREC 2022's AWRF's side data (`Metric::Awrf2022`): the items' attributes, the
    /// unknown policies and the target, shared by every query (re-ranked by
    /// [`crate::rerank_attributes`]); `None` for the other metrics.
    pub attributes: Option<Arc<AttributeSpec>>,
}

/// What the exact optimum ([`Method::Exact`]) cannot honour in a spec, known before any
/// query is read: it finds the optimum of DTR or EEL alone, over rankings free within each
/// group ([`RerankSpec::check_method`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExactRefusal {
    /// Another cost (its name: "ndcg-mix" for a mix): it would fail at the first query.
    Metric(&'static str),
    /// The order within groups kept (`intra`), which the exact rankings would ignore.
    Intra,
}

impl RerankSpec {
    /// The method's rule: [`Method::Exact`] takes DTR or EEL alone and no `intra`; PPG
    /// takes every spec.
    ///
    /// # Errors
    /// [`ExactRefusal`]: the metric first, then `intra`.
    pub fn check_method(&self) -> Result<(), ExactRefusal> {
        if self.method != Method::Exact {
            return Ok(());
        }
        match (self.cost.metric, self.cost.ndcg) {
            (_, Some(_)) => Err(ExactRefusal::Metric("ndcg-mix")),
            (Metric::Dtr | Metric::Eel, None) if self.recipe.intra => Err(ExactRefusal::Intra),
            (Metric::Dtr | Metric::Eel, None) => Ok(()),
            (other, None) => Err(ExactRefusal::Metric(other.name())),
        }
    }
}

/// One query's rows, in input order.
#[derive(Debug, Clone, Copy)]
pub struct Rows<'a> {
    /// The ranker's scores: the starting ranking.
    pub score: &'a [f64],
    /// The utility the cost reads.
    pub utility: &'a [f64],
    /// Group ids, numbered from 0 in order of first appearance.
    pub group: &'a [u8],
}

/// Why a query's rows cannot be re-ranked as the spec asks: each names the row (0-based
/// within the query) at fault, for the front end to place.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Refusal {
    /// A utility the cost cannot take.
    Utility {
        /// The row.
        row: usize,
        /// Why.
        why: BadUtility,
    },
    /// DTR's sum of a group's utility over the sessions overflows a double at this row.
    DtrSum {
        /// The row.
        row: usize,
        /// The group whose sum overflows.
        group: u8,
    },
    /// A group beyond AWRF's population (`CostSpec::awrf_groups`).
    BeyondPopulation {
        /// The row.
        row: usize,
        /// The group id.
        group: u8,
        /// The population.
        population: usize,
    },
}

/// Why a query was not re-ranked.
#[derive(Debug)]
pub enum Failure {
    /// The exact optimum has no rankings for it ([`EXACT_NEEDS`]).
    Exact(String),
    /// Its engine's memory could not be had.
    Allocation {
        /// The engine's bytes.
        bytes: usize,
        /// The allocator's refusal.
        error: std::collections::TryReserveError,
    },
    /// The core refused to lay out its engine.
    Engine(ppg_core::Error),
    /// The core refused the query.
    Core(ppg_core::Error),
}

impl From<crate::kept::NoEngine> for Failure {
    fn from(e: crate::kept::NoEngine) -> Self {
        match e {
            crate::kept::NoEngine::Allocation { bytes, error } => {
                Failure::Allocation { bytes, error }
            }
            crate::kept::NoEngine::Engine(e) => Failure::Engine(e),
        }
    }
}

/// Re-ranks the queries of one request: the spec and the tables its costs read.
#[derive(Debug)]
pub struct Reranker {
    spec: RerankSpec,
    tables: Tables,
}

impl Reranker {
    /// A reranker for `spec`, for queries of at most `longest` items.
    pub fn new(spec: RerankSpec, longest: usize) -> Self {
        let tables = Tables::new(longest.max(1), spec.rank_start);
        Reranker { spec, tables }
    }

    /// The request.
    pub fn spec(&self) -> &RerankSpec {
        &self.spec
    }

    /// The tables the costs read.
    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    /// The seed of the query at `index` (0-based, in input order).
    pub fn seed(&self, index: usize) -> u64 {
        query_seed(self.spec.seed, index)
    }

    /// The engine's shape for a query of `n` items.
    pub fn dims(&self, n: usize) -> Dims {
        Dims::new(n, self.spec.sessions, self.spec.recipe.train.batch)
    }

    /// The bytes of the engine for a query of `n` items.
    pub fn engine_bytes(&self, n: usize) -> usize {
        Ppg::bytes(self.dims(n))
    }

    /// Checks a query's rows against the spec: its utility against the cost, DTR's group
    /// sums over the sessions, AWRF's population.
    ///
    /// # Errors
    /// The first rule the rows break, at its row.
    pub fn check(&self, rows: &Rows) -> Result<(), Refusal> {
        let cost = &self.spec.cost;
        check_utility(cost, rows.utility).map_err(|(row, why)| Refusal::Utility { row, why })?;
        if cost.metric == Metric::Dtr {
            // DTR divides each group's exposure by the group's utility summed over the
            // sessions: a sum beyond the largest double is bad input.
            let mut sums = [0.0f64; MAX_GROUPS];
            for (row, (&u, &g)) in rows.utility.iter().zip(rows.group).enumerate() {
                let sum = &mut sums[usize::from(g)];
                *sum += u;
                if !(*sum * self.spec.sessions as f64).is_finite() {
                    return Err(Refusal::DtrSum { row, group: g });
                }
            }
        }
        if let Some(population) = cost.awrf_groups {
            if let Some(row) = rows
                .group
                .iter()
                .position(|&g| usize::from(g) >= population)
            {
                return Err(Refusal::BeyondPopulation {
                    row,
                    group: rows.group[row],
                    population,
                });
            }
        }
        Ok(())
    }

    /// Re-ranks one query on `engine` through the core's recipe, with the query's `seed`;
    /// `stop` is asked before every cost (`&|| false` never stops). A query the metric has
    /// no value for is passed through ([`undefined`]).
    ///
    /// # Errors
    /// The engine's refusal ([`rerank`]).
    pub fn rerank(
        &self,
        engine: &mut Ppg,
        rows: &Rows,
        seed: u64,
        stop: &dyn Fn() -> bool,
    ) -> Result<Reranked, ppg_core::Error> {
        rerank(engine, &self.spec, &self.tables, rows, seed, stop)
    }

    /// The relevance certificate of `reranked`, this reranker's answer to `rows`: NDCG@`k`
    /// of `label` ([`relevance()`]).
    ///
    /// # Errors
    /// The core's refusals ([`relevance()`]).
    pub fn relevance(
        &self,
        rows: &Rows,
        label: &[f64],
        reranked: &Reranked,
        k: usize,
    ) -> Result<Relevance, ppg_core::Error> {
        relevance(&self.spec, &self.tables, rows, label, reranked, k)
    }

    /// Whether [`Reranker::rerank_alone`] lays out an engine for these rows (a query of
    /// one item, one its metric has no value for and the exact optimum need none).
    pub fn needs_engine(&self, rows: &Rows) -> bool {
        rows.score.len() > 1
            && self.spec.cost.defined(rows.utility)
            && self.spec.method == Method::Ppg
    }

    /// Re-ranks one query as the spec's method says, on an engine of its own: a query of
    /// one item, or one its metric has no value for, is passed through without one.
    ///
    /// # Errors
    /// [`Failure`]: the exact optimum's refusal, an allocation refused, the core's refusal.
    pub fn rerank_alone(&self, rows: &Rows, seed: u64) -> Result<Reranked, Failure> {
        self.rerank_kept(rows, seed, 0)
    }

    /// [`Reranker::rerank_alone`] on this thread's kept engine (the module `kept`):
    /// the same rankings, and the engine kept for the next query when its bytes are at
    /// most `keep`.
    ///
    /// # Errors
    /// As [`Reranker::rerank_alone`].
    pub fn rerank_kept(&self, rows: &Rows, seed: u64, keep: usize) -> Result<Reranked, Failure> {
        let n = rows.score.len();
        if n == 1 {
            return Ok(passed_through(self.spec.sessions));
        }
        if !self.spec.cost.defined(rows.utility) {
            return Ok(undefined(rows.score, self.spec.sessions));
        }
        if self.spec.method == Method::Exact {
            return exact(&self.spec, &self.tables, rows).map_err(Failure::Exact);
        }
        crate::kept::with_engine(self.dims(n), self.spec.seed, keep, |engine| {
            self.rerank(engine, rows, seed, &|| false)
        })?
        .map_err(Failure::Core)
    }
}

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
    let mut rankings = vec![0; n * sessions];
    let query = Query {
        score,
        utility,
        group,
        sessions,
        seed,
    };
    let scratch = crate::cost::scratch_len(spec, n);
    let outcome = crate::kept_work::with_workspace(n, scratch, |work| {
        engine.rerank_until(
            &query,
            spec,
            &tables.view(),
            recipe,
            work,
            &mut rankings,
            stop,
        )
    })?;
    Ok(Reranked {
        rankings,
        before: outcome.before,
        after: outcome.after,
        bound: outcome.bound,
        certified: outcome.certified,
    })
}

/// The relevance certificate of `reranked`, the recipe's answer to `rows` under `spec`:
/// its mean NDCG@`k` of `label` (per row; the utility where there are no other labels) and
/// the bound on it over every ranking at least as fair
/// ([`ppg_core::recipe::certify_relevance`]).
///
/// # Errors
/// The core's refusals (labels NDCG refuses, arrays of other lengths).
pub fn relevance(
    spec: &RerankSpec,
    tables: &Tables,
    rows: &Rows,
    label: &[f64],
    reranked: &Reranked,
    k: usize,
) -> Result<Relevance, ppg_core::Error> {
    let n = rows.score.len();
    let query = Query {
        score: rows.score,
        utility: rows.utility,
        group: rows.group,
        sessions: reranked.rankings.len() / n.max(1),
        seed: 0,
    };
    let outcome = Outcome {
        before: reranked.before,
        after: reranked.after,
        bound: reranked.bound,
        certified: reranked.certified,
        report: None,
    };
    let (mut order, mut group_s) = (vec![0; n], vec![0; n]);
    let mut scratch = vec![0.0; relevance::SCRATCH_PER_ITEM * n + relevance::SCRATCH_EXTRA];
    ppg_core::recipe::certify_relevance(
        &query,
        label,
        &spec.cost,
        &tables.view(),
        &spec.recipe,
        &outcome,
        &reranked.rankings,
        k,
        &mut order,
        &mut group_s,
        &mut scratch,
    )
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
/// Its own search rather than `Dtr`/`Eel::optimum` (the recipe's certificate), on purpose:
/// those search at `bound::CERTIFY_BUDGET` nodes rather than `bound::BUDGET`, from the side
/// of item 0's group, and EEL's over its grade blocks, so where a search is cut they give
/// other rankings than `--method exact` has given (ppg-lab's `methods::bound` is the same
/// search for the protocol's tables). One shared function waits for a release that may
/// change `--method exact`'s output where it is cut.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn reranker(metric: Metric, method: Method, sessions: usize) -> Reranker {
        let spec = RerankSpec {
            cost: CostSpec::new(metric, 2, None),
            recipe: Recipe::recommended(),
            sessions,
            seed: 7,
            method,
            rank_start: RankStart::One,
            attributes: None,
        };
        Reranker::new(spec, 16)
    }

    const SCORE: [f64; 6] = [6.0, 5.0, 4.0, 3.0, 2.0, 1.0];
    const GROUP: [u8; 6] = [0, 0, 0, 1, 1, 1];

    fn rows<'a>(utility: &'a [f64], group: &'a [u8]) -> Rows<'a> {
        Rows {
            score: &SCORE[..utility.len()],
            utility,
            group,
        }
    }

    /// The exact method's rule: DTR and EEL alone pass, another metric or a mix is named,
    /// `intra` refused after the metric; PPG takes them all.
    #[test]
    fn the_exact_method_takes_dtr_or_eel_alone_without_intra() {
        let spec = |metric, ndcg, intra, method| RerankSpec {
            cost: CostSpec::new(metric, 2, ndcg),
            recipe: Recipe {
                intra,
                ..Recipe::recommended()
            },
            sessions: 1,
            seed: 0,
            method,
            rank_start: RankStart::One,
            attributes: None,
        };
        let exact = |metric, ndcg, intra| spec(metric, ndcg, intra, Method::Exact).check_method();
        assert_eq!(exact(Metric::Dtr, None, false), Ok(()));
        assert_eq!(exact(Metric::Eel, None, false), Ok(()));
        assert_eq!(
            exact(Metric::Ee, None, false),
            Err(ExactRefusal::Metric("ee"))
        );
        assert_eq!(
            exact(Metric::Awrf, None, true),
            Err(ExactRefusal::Metric("awrf"))
        );
        let mix = Some((0.5, 10));
        assert_eq!(
            exact(Metric::Dtr, mix, true),
            Err(ExactRefusal::Metric("ndcg-mix"))
        );
        assert_eq!(exact(Metric::Eel, None, true), Err(ExactRefusal::Intra));
        for metric in [Metric::Dtr, Metric::Eel, Metric::Ee, Metric::Awrf] {
            assert_eq!(spec(metric, mix, true, Method::Ppg).check_method(), Ok(()));
        }
    }

    #[test]
    fn check_names_the_row_of_each_rule() {
        let r = reranker(Metric::Eel, Method::Ppg, 3);
        let u = [1.0, 0.0, -1.0, 1.0, 0.0, 1.0];
        assert_eq!(
            r.check(&rows(&u, &GROUP)),
            Err(Refusal::Utility {
                row: 2,
                why: BadUtility::Negative
            })
        );
        // Each value is finite; group 1's sum over 3 sessions is not, from its second row.
        let r = reranker(Metric::Dtr, Method::Ppg, 3);
        let big = f64::MAX / 4.0;
        let u = [1.0, 1.0, 1.0, big, big, 1.0];
        assert_eq!(
            r.check(&rows(&u, &GROUP)),
            Err(Refusal::DtrSum { row: 4, group: 1 })
        );
        // The same rows pass under EEL, which sums nothing.
        assert_eq!(
            reranker(Metric::Eel, Method::Ppg, 3).check(&rows(&u, &GROUP)),
            Ok(())
        );
        let mut r = reranker(Metric::Awrf, Method::Ppg, 1);
        r.spec.cost.awrf_groups = Some(2);
        let g = [0, 1, 2, 1, 0, 2];
        assert_eq!(
            r.check(&rows(&[1.0; 6], &g)),
            Err(Refusal::BeyondPopulation {
                row: 2,
                group: 2,
                population: 2
            })
        );
    }

    #[test]
    fn rerank_alone_passes_through_what_needs_no_engine() {
        let r = reranker(Metric::Eel, Method::Ppg, 2);
        let one = rows(&[1.0], &[0]);
        assert!(!r.needs_engine(&one));
        let out = r.rerank_alone(&one, r.seed(0)).unwrap();
        assert_eq!(
            (out.rankings, out.before, out.after),
            (vec![0, 0], 0.0, 0.0)
        );
        // Expected exposure at group level without a relevant item has no value.
        let r = reranker(Metric::Ee, Method::Ppg, 2);
        let none = rows(&[0.0; 6], &GROUP);
        assert!(!r.needs_engine(&none));
        assert!(r.rerank_alone(&none, r.seed(0)).unwrap().is_undefined());
    }

    #[test]
    fn the_exact_method_reaches_its_certified_bound_and_ppg_does_not_beat_it() {
        let u = [1.0, 1.0, 1.0, 0.0, 1.0, 0.0];
        let exact = reranker(Metric::Eel, Method::Exact, 2);
        let x = exact
            .rerank_alone(&rows(&u, &GROUP), exact.seed(0))
            .unwrap();
        assert!(x.certified);
        assert!(x.after <= x.before);
        let bound = x.bound.expect("a bound").value;
        assert!((x.after - bound).abs() < 1e-12);
        let ppg = reranker(Metric::Eel, Method::Ppg, 2);
        assert!(ppg.needs_engine(&rows(&u, &GROUP)));
        let p = ppg.rerank_alone(&rows(&u, &GROUP), ppg.seed(0)).unwrap();
        assert!(p.after >= bound - 1e-12 && p.after <= p.before);
        // Same seed, same rankings.
        let again = ppg.rerank_alone(&rows(&u, &GROUP), ppg.seed(0)).unwrap();
        assert_eq!(p.rankings, again.rankings);
    }
}
