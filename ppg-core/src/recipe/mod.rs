//! The recommended recipe: one query re-ranked in one call, the same in every front end.
//!
//! [`Ppg::rerank`] takes a query as the caller has it (a starting score, a utility and a
//! fairness group per item, a session count) and a [`CostSpec`], and runs what the
//! measurements recommend (docs/results.md): the starting ranking by score, the cost built
//! on it, the input scored first (the result is never worse than the input), the order
//! within groups held for a first run and then freed ([`Ppg::hold_order_within`]) unless
//! the recipe keeps it throughout (`intra`), training grown over sessions, and every run
//! stopped as soon as it is certified against the cost's exact optimum where the metric
//! gives one ([`TrainConfig::certify`]), and, where the cost can also build rankings that
//! reach that optimum (two-group DTR and EEL, [`crate::Objective::optimum`]), those scored
//! before the first epoch: when certified, no epoch is trained. The command line, the
//! Python package and the C API's `ppg_engine_rerank` call it, so the same rows and seed
//! give the same rankings whichever door they came through (the C API's items come in
//! their starting ranking, without a score: [`Ppg::rerank_ranked`]). [`Recipe::reference`] is the
//! paper's single run.
//!
//! It sits on top of the engine: it uses [`Ppg`] and the objectives, and nothing uses it.
//! It allocates nothing: the caller lends a [`Workspace`].
//!
//! - [`cost`]: the costs by name ([`CostSpec`], [`Cost`]) and the tables they read.
//! - [`relevance`]: the relevance certificate of a re-ranked query ([`certify_relevance`]).
//! - `lex`: the most relevant of the fair rankings at several sessions (issue 36 point 1);
//!   `polish`: its last step, trades between pairs of sessions.

pub mod cost;
mod lex;
mod polish;
pub mod relevance;
mod start;

pub use cost::{AnyDtr, Cost, CostSpec, Metric, Tables};
pub use relevance::{certify_relevance, certify_relevance_ranked, Relevance};
pub use start::ranking_by;
use start::starting_order;

use crate::objective::{LowerBound, Stoppable, MAX_GROUPS};
use crate::{Error, Objective, Ppg, TrainConfig, TrainReport};

/// The tolerance of [`Recipe::recommended`]'s certificate: the bound's own precision
/// ([`crate::objective::bound::TOLERANCE`]), far below the three decimals of a table.
pub const CERTIFY_TOLERANCE: f64 = crate::objective::bound::TOLERANCE;

/// The paper's initial weight of every unconstrained pair.
pub const INITIAL_WEIGHT: f32 = 0.5;

/// A PPG training recipe: the trainer's configuration, whether items of the same group
/// keep their starting order (the paper's intra-group constraint) always or only for the
/// first part of a run, and the weight every unconstrained pair starts from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recipe {
    /// The trainer's configuration.
    pub train: TrainConfig,
    /// Items of the same group keep their starting order.
    pub intra: bool,
    /// Without `intra`: items of the same group keep their order for the first part of
    /// each run, then are free ([`Ppg::hold_order_within`]).
    pub hold: bool,
    /// The weight every unconstrained pair starts from.
    pub initial_weight: f32,
}

impl Recipe {
    /// The recommended recipe: the reference run's budget and step, the input scored
    /// first, the order within groups held for a first run, grown over sessions, certified
    /// to [`CERTIFY_TOLERANCE`].
    pub fn recommended() -> Self {
        Recipe {
            train: TrainConfig {
                score_input: true,
                grow: true,
                certify: Some(CERTIFY_TOLERANCE),
                ..TrainConfig::default()
            },
            intra: false,
            hold: true,
            initial_weight: INITIAL_WEIGHT,
        }
    }

    /// The paper's single run (protocol.md): [`TrainConfig::default`], no constraint within
    /// groups (set `intra` for the paper's "PPG + intra" row).
    pub fn reference() -> Self {
        Recipe {
            train: TrainConfig::default(),
            intra: false,
            hold: false,
            initial_weight: INITIAL_WEIGHT,
        }
    }
}

impl Default for Recipe {
    /// [`Recipe::recommended`].
    fn default() -> Self {
        Recipe::recommended()
    }
}

/// One query as the caller has it: per item (row) its starting score, the utility the cost
/// uses and its fairness group; how many sessions to rank it for, and its seed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Query<'q> {
    /// The starting ranking is by score, descending; ties: the later row first (the
    /// protocol's stable ascending sort, reversed).
    pub score: &'q [f64],
    /// The utility (relevance) the cost uses.
    pub utility: &'q [f64],
    /// The fairness group.
    pub group: &'q [u8],
    /// Sessions: the output is this many rankings.
    pub sessions: usize,
    /// The query's seed (a file's query `k`: [`crate::seed::query_seed`]).
    pub seed: u64,
}

/// One query whose rows already come in their starting ranking (row `k` at position `k`),
/// as the C API's caller hands its items: no score to sort by ([`Ppg::rerank_ranked`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranked<'q> {
    /// The utility (relevance) the cost uses.
    pub utility: &'q [f64],
    /// The fairness group.
    pub group: &'q [u8],
    /// Sessions: the output is this many rankings.
    pub sessions: usize,
    /// The query's seed.
    pub seed: u64,
}

/// The memory [`Ppg::rerank`] borrows besides the engine's: the query in its starting
/// order, each slice at least as long as the query, and the cost's scratch.
pub struct Workspace<'w> {
    /// `order[k]`: the row at starting position `k`.
    pub order: &'w mut [u16],
    /// The utility in starting order.
    pub utility: &'w mut [f64],
    /// The group in starting order.
    pub group: &'w mut [u8],
    /// The cost's own values: [`cost::SCRATCH_PER_ITEM`] per item for [`Metric::Ee`],
    /// nothing (an empty slice will do) for the other metrics.
    pub scratch: &'w mut [f64],
}

/// What [`Ppg::rerank`] did to one query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// The cost of the input ranking, repeated over the sessions.
    pub before: f64,
    /// The cost of the returned rankings (never more than `before` with the input scored).
    pub after: f64,
    /// The cost's lower bound at the query's session count, when the recipe certifies and
    /// the cost gives one.
    pub bound: Option<LowerBound>,
    /// `after` is within the recipe's tolerance of `bound`.
    pub certified: bool,
    /// The training run's report; `None` when the cost has nothing to optimise for this
    /// query ([`CostSpec::meaningful`]) and the input is the answer.
    pub report: Option<TrainReport>,
}

impl Outcome {
    /// How far `after` is above the bound (0 when rounding puts it below), if there is one.
    pub fn gap(&self) -> Option<f64> {
        self.bound.map(|b| (self.after - b.value).max(0.0))
    }
}

/// Renumbers the groups present `0, 1, ...` in the order they first appear in `group`
/// (the query in its starting order), so that a query's answer does not depend on how its
/// door numbered groups: `ppg rerank` numbers them over a whole file and Python over a whole
/// frame, each in its own order of first appearance, so the same groups may come as ids 1
/// and 2 through one door and 0 and 1 through another, or in another order; and a metric
/// gives its two-group bound and optimum only on ids 0 and 1. The order matters beyond the
/// bound: a cost summed over groups rounds by their order, and a training run that compares
/// costs equal but for that rounding takes another path (a three-group EEL query of the
/// every-door test: other rankings through `ppg rerank` than through `ppg.rerank_frame` when
/// the ids were renumbered in the order of their values). Ids of [`MAX_GROUPS`] or more are
/// left for the cost to refuse.
fn number_present(group: &mut [u8]) {
    if group.iter().any(|&g| usize::from(g) >= MAX_GROUPS) {
        return;
    }
    let mut new = [u8::MAX; MAX_GROUPS];
    let mut next = 0;
    for g in group.iter_mut() {
        let slot = &mut new[usize::from(*g)];
        if *slot == u8::MAX {
            *slot = next;
            next += 1;
        }
        *g = *slot;
    }
}

impl Ppg<'_> {
    /// Re-ranks `query` under `recipe` (normally [`Recipe::recommended`]) with the cost
    /// `spec` over `tables`, seeded with the query's seed, and writes `query.sessions` rankings of its rows into
    /// `out`, session after session. The engine must be laid out for at least the query's
    /// items and sessions and the recipe's batch. Where the cost has nothing to optimise
    /// (one group only, or a group without utility for DTR) the input ranking is the answer.
    ///
    /// # Errors
    /// - [`Error::Empty`] for no items or sessions; [`Error::LengthMismatch`] when the
    ///   query's arrays differ in length, `work`'s are shorter, `out` is not
    ///   `items * sessions` long, or the tables are shorter than the query.
    /// - [`Error::Capacity`] beyond the engine's layout, [`Error::InvalidConfig`] for a bad
    ///   recipe, and the metrics' refusals of the utility or groups (see [`Cost::new`]; for
    ///   expected exposure and AWRF, a query without a relevant item, or `work.scratch`
    ///   shorter than [`cost::SCRATCH_PER_ITEM`] per item for expected exposure).
    /// - [`Error::InputNotFinite`] when the input ranking's cost is NaN or infinite.
    /// - [`Error::NotFinite`] when a sampled ranking's cost is NaN or infinite; no
    ///   certificate is given.
    ///
    /// On error `out` is unspecified. [`Error::NotFinite`] is the one error met once the
    /// engine changed: it is left as a failed [`Ppg::train`] leaves it (start another
    /// query). Every other refusal, [`Error::InputNotFinite`] included, comes before the
    /// engine (its generator included) is touched.
    pub fn rerank(
        &mut self,
        query: &Query<'_>,
        spec: &CostSpec,
        tables: &Tables<'_>,
        recipe: &Recipe,
        work: Workspace<'_>,
        out: &mut [u16],
    ) -> Result<Outcome, Error> {
        self.rerank_until(query, spec, tables, recipe, work, out, &|| false)
    }

    /// [`Ppg::rerank`] for a caller that must be able to stop it from outside (a signal):
    /// `stop` is asked before every cost of the training run ([`Stoppable`]), and once it
    /// says so the call ends with [`Error::NotFinite`] as a non-finite cost would.
    ///
    /// # Errors
    /// As [`Ppg::rerank`].
    #[allow(clippy::too_many_arguments)]
    pub fn rerank_until(
        &mut self,
        query: &Query<'_>,
        spec: &CostSpec,
        tables: &Tables<'_>,
        recipe: &Recipe,
        work: Workspace<'_>,
        out: &mut [u16],
        stop: &dyn Fn() -> bool,
    ) -> Result<Outcome, Error> {
        let rows = Ranked {
            utility: query.utility,
            group: query.group,
            sessions: query.sessions,
            seed: query.seed,
        };
        self.rerank_from(
            Some(query.score),
            &rows,
            spec,
            tables,
            recipe,
            work,
            out,
            stop,
        )
    }

    /// [`Ppg::rerank`] of a query whose rows already come in their starting ranking: the
    /// same rankings as [`Ppg::rerank`] given a score falling with the row.
    ///
    /// # Errors
    /// As [`Ppg::rerank`].
    pub fn rerank_ranked(
        &mut self,
        query: &Ranked<'_>,
        spec: &CostSpec,
        tables: &Tables<'_>,
        recipe: &Recipe,
        work: Workspace<'_>,
        out: &mut [u16],
    ) -> Result<Outcome, Error> {
        self.rerank_from(None, query, spec, tables, recipe, work, out, &|| false)
    }

    /// The recipe from the starting ranking by `score`, or the rows' own order without one.
    #[allow(clippy::too_many_arguments)]
    fn rerank_from(
        &mut self,
        score: Option<&[f64]>,
        query: &Ranked<'_>,
        spec: &CostSpec,
        tables: &Tables<'_>,
        recipe: &Recipe,
        work: Workspace<'_>,
        out: &mut [u16],
        stop: &dyn Fn() -> bool,
    ) -> Result<Outcome, Error> {
        let (n, sessions) = (
            score.map_or(query.utility.len(), <[f64]>::len),
            query.sessions,
        );
        if n == 0 || sessions == 0 {
            return Err(Error::Empty);
        }
        for len in [query.utility.len(), query.group.len()] {
            if len != n {
                return Err(Error::LengthMismatch {
                    expected: n,
                    found: len,
                });
            }
        }
        let short = [work.order.len(), work.utility.len(), work.group.len()]
            .into_iter()
            .find(|&len| len < n);
        if let Some(found) = short {
            return Err(Error::LengthMismatch { expected: n, found });
        }
        let total = n.checked_mul(sessions).ok_or(Error::Capacity {
            requested: usize::MAX,
            capacity: self.dims().total(),
        })?;
        if out.len() != total {
            return Err(Error::LengthMismatch {
                expected: total,
                found: out.len(),
            });
        }
        recipe.train.check(self.dims().batch)?;
        let order = &mut work.order[..n];
        starting_order(score, order)?;
        let (utility, group) = (&mut work.utility[..n], &mut work.group[..n]);
        for (k, &row) in order.iter().enumerate() {
            utility[k] = query.utility[usize::from(row)];
            group[k] = query.group[usize::from(row)];
        }
        number_present(group);
        let (utility, group) = (&*utility, &*group);
        let mut cost = Stoppable {
            inner: Cost::new(spec, utility, group, tables, work.scratch)?,
            stop,
        };
        // The input ranking (the starting order in every session, as `start` sets the
        // references) is costed in `out` before the engine changes, so that a refusal of
        // it leaves the engine, generator included, as it was.
        for block in out.chunks_exact_mut(n) {
            for (k, slot) in block.iter_mut().enumerate() {
                // k < n <= MAX_ITEMS = u16::MAX (`starting_order` checked it).
                *slot = k as u16;
            }
        }
        let before = cost.inner.cost(out, sessions);
        if !before.is_finite() {
            return Err(Error::InputNotFinite);
        }
        self.check_start(n, sessions, recipe.initial_weight)?;
        self.reseed(query.seed);
        self.start(n, sessions, recipe.initial_weight)?;
        let report = if spec.meaningful(utility, group) {
            if recipe.intra {
                self.keep_order_within(group)?;
            } else if recipe.hold {
                self.hold_order_within(group)?;
            }
            Some(self.train_from_optimum(&mut cost, &recipe.train)?)
        } else {
            None
        };
        // Point 1 at one session: among the rankings as fair as the found one, the most
        // relevant (`relevance::most_relevant_one`), scored before it is taken.
        if sessions == 1 && report.is_some() && !recipe.intra && self.best().is_some() {
            let after = self.best().map_or(f64::INFINITY, |b| b.1);
            let level = report.and_then(|r| relevance::level(recipe, after, r.bound));
            if let Some(level) = level {
                let (best, work, candidate) = self.spare();
                let found = relevance::most_relevant_one(
                    spec,
                    &cost.inner,
                    tables,
                    utility,
                    group,
                    level,
                    best,
                    work,
                    candidate,
                );
                if found {
                    let c = cost.inner.cost(&candidate[..n], 1);
                    if c <= level {
                        self.take_best(c);
                    }
                }
            }
        }
        // Point 1 at several sessions, and at one under `intra`: the best mix of the
        // window's hull patterns (`lex`), scored before it is taken.
        if (sessions > 1 || recipe.intra) && report.is_some() && self.best().is_some() {
            let after = self.best().map_or(f64::INFINITY, |b| b.1);
            if let Some(level) = report.and_then(|r| relevance::level(recipe, after, r.bound)) {
                let (best, work, candidate) = self.spare();
                let ask = lex::Ask {
                    spec,
                    cost: &cost.inner,
                    tables,
                    utility,
                    group,
                    level,
                    sessions,
                    intra: recipe.intra,
                };
                if lex::most_relevant_many(&ask, best, work, candidate) {
                    let c = cost.inner.cost(&candidate[..total], sessions);
                    if c <= level {
                        self.take_best(c);
                    }
                }
            }
        }
        let best = match self.best() {
            Some((best, _)) if report.is_some() => best,
            _ => self.reference(),
        };
        for (slot, &k) in out.iter_mut().zip(best) {
            *slot = order[usize::from(k)];
        }
        // The returned ranking's own cost, as the caller's cost would give it.
        let after = cost.inner.cost(best, sessions);
        // Nothing trained: the input is the answer, certified when the bound says no
        // ranking is better.
        let bound = match report {
            Some(r) => r.bound,
            None => recipe
                .train
                .certify
                .and_then(|_| self.lower_bound(&cost, sessions)),
        };
        let certified = match (bound, recipe.train.certify) {
            (Some(b), Some(tolerance)) => after <= b.value + tolerance,
            _ => false,
        };
        Ok(Outcome {
            before,
            after,
            bound,
            certified,
            report,
        })
    }
}
