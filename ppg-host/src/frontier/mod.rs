//! What fairness costs in relevance (issue 36, point 3): for a range of fairness levels
//! from each query's optimum to the input ranking's own, the best mean NDCG@k over `S`
//! sessions any multi-session ranking at least that fair reaches, and an upper bound on
//! it, summed over a data set's queries. `ppg frontier` prints and draws it (the harness,
//! `ppg_lab::frontier`); the Python package's `ppg.frontier` returns it as a frame. Both
//! call [`Run`], so that they give the same numbers.
//!
//! # What a level is
//!
//! Level `t` in `[0, 1]` lets query `q` cost at most `opt_q + t (input_q - opt_q)`: `t =
//! 0` is the exact optimum over `S` rankings (`crate::protocol::optimum`), `t = 1` the
//! input ranking's (by `ltr_grade`, the same in every session) own fairness. Fairness
//! and NDCG are the protocol's evaluation (true labels, EEL on 2 levels, exposure from r
//! = 1). A last row without any fairness constraint closes the table.
//!
//! # Why a level is a window, and what is exact
//!
//! The two-group DTR and EEL of `S` rankings are functions of group 0's exposure summed
//! over the sessions alone, DTR monotone on each side of its optimum and EEL a convex
//! quadratic, so the rankings within a level are exactly those whose sum lies in an
//! interval (`dtr_window`, `eel_window` of `ppg_core::objective::relevance`). The bound
//! is the Lagrangian dual over that window (`Lists::dual`), an upper bound whatever
//! happens. At one session the best is the core's walk over the window's patterns
//! (`Lists::single`), exact when it finishes within its budget. At several it is the
//! best of the mixes of `mix`, each a multi-session ranking that exists; it is exact
//! where it reaches the bound. `exact` counts the queries where the best is proven.
//!
//! # Memory
//!
//! [`Run::push`] takes the queries one at a time and processes them in batches of
//! [`BATCH`] on a pool; only the sums per level are kept.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::cost::{Metric, Tables};
use crate::error::{Error, Result};
use crate::protocol::Utility;
use ppg_core::objective::RankStart;

mod mix;
mod query;

/// Queries processed at once: the memory bound of the stream.
pub const BATCH: usize = 64;

/// What a frontier is asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// The fairness metric: the two-group DTR or EEL.
    pub metric: Metric,
    /// Rankings per query; fairness is scored on their mean exposure.
    pub sessions: usize,
    /// Fairness levels from the optimum (first) to the input's own (last), at least 2.
    pub levels: usize,
    /// The NDCG cut-off.
    pub k: usize,
    /// The utility the default recipe's marker optimises.
    pub utility: Utility,
    /// Seed of the recipe's marker (query `i`'s: `seed::derive(seed, &[0, i])`).
    pub seed: u64,
    /// Nodes of the walks per query and level before they settle for the best found.
    pub budget: u64,
    /// Worker threads (0: one per core).
    pub threads: usize,
}

/// The most sessions a frontier takes: its rankings and mixes are laid out per query in
/// `items x sessions`, so a caller's count is bounded before anything is allocated from it
/// (an unbounded `--sessions` or `sessions=` aborted on a failed allocation).
pub const MAX_SESSIONS: usize = 1_024;

/// The most fairness levels a frontier takes (its table has a row per level, allocated from
/// the count; 10,000 points are far more than a plot shows).
pub const MAX_LEVELS: usize = 10_000;

impl Config {
    /// The first argument out of range: its name (as the Python keyword; `ppg frontier`
    /// prefixes `--`) and why.
    ///
    /// # Errors
    /// The argument and the reason.
    pub fn check(&self) -> std::result::Result<(), (&'static str, String)> {
        if !matches!(self.metric, Metric::Dtr | Metric::Eel) {
            return Err((
                "metric",
                format!(
                    "{}: the frontier covers the two-group dtr and eel only",
                    self.metric.name()
                ),
            ));
        }
        if !(1..=MAX_SESSIONS).contains(&self.sessions) {
            return Err(("sessions", format!("must be 1 to {MAX_SESSIONS}")));
        }
        if !(2..=MAX_LEVELS).contains(&self.levels) {
            return Err(("levels", format!("must be 2 to {MAX_LEVELS}")));
        }
        if self.k == 0 {
            return Err(("k", "must be at least 1".into()));
        }
        Ok(())
    }
}

/// One row of the table: a level and the means over the valid queries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// `t` of the module's docs; `None` for the row without a constraint.
    pub level: Option<f64>,
    /// The mean of the queries' fairness caps.
    pub fairness: f64,
    /// The mean best NDCG@k reached within the caps (a ranking that exists).
    pub ndcg: f64,
    /// The mean upper bound on it.
    pub bound: f64,
    /// Queries whose best is proven the best (module docs).
    pub exact: usize,
}

/// A data set's frontier, with the input ranking and the default recipe as points.
#[derive(Debug, Clone, PartialEq)]
pub struct Frontier {
    /// The fairness metric.
    pub metric: Metric,
    /// The NDCG cut-off.
    pub k: usize,
    /// Rankings per query.
    pub sessions: usize,
    /// Valid queries (the metric's validity, as `ppg reproduce`).
    pub queries: usize,
    /// The levels from the optimum to the input's own, then the row without a constraint.
    pub rows: Vec<Row>,
    /// (mean fairness, mean NDCG@k) of the input ranking.
    pub input: (f64, f64),
    /// (mean fairness, mean NDCG@k) of the default recipe (`ppg reproduce --method recipe`).
    pub recipe: (f64, f64),
}

/// A query [`Run::push`] holds: its index in the data set, labels, grades and groups.
type Pushed = (usize, Vec<f64>, Vec<f64>, Vec<u8>);

/// A data set's queries on their way into a [`Frontier`]: [`Run::push`] each query, then
/// [`Run::finish`].
pub struct Run<'s> {
    config: Config,
    tables: Tables,
    pool: rayon::ThreadPool,
    sums: Frontier,
    /// The queries not yet processed.
    batch: Vec<Pushed>,
    index: usize,
    stop: &'s AtomicBool,
}

impl<'s> Run<'s> {
    /// A run of `config`; `stop`, once set, ends it with [`Error::Failed`] at the next
    /// query or recipe step.
    ///
    /// # Errors
    /// [`Error::Usage`] for a `config` out of range ([`Config::check`], the argument named
    /// with `--`); the pool's refusal.
    pub fn new(config: Config, stop: &'s AtomicBool) -> Result<Self> {
        config
            .check()
            .map_err(|(arg, why)| Error::Usage(format!("--{arg} {why}")))?;
        Ok(Run {
            config,
            tables: Tables::new(ppg_core::MAX_ITEMS, RankStart::One),
            pool: crate::threads::pool(crate::threads::count(config.threads))?,
            sums: Frontier::zero(&config),
            batch: Vec::with_capacity(BATCH),
            index: 0,
            stop,
        })
    }

    /// The next query of the data set: true labels, the model's grades (the input
    /// ranking's order, and the recipe's utility under [`Utility::Ltr`]) and groups (0 or
    /// 1), one per item.
    ///
    /// # Errors
    /// A query of this batch the search or the recipe refused ("query I: why", `I` its
    /// index from 0); [`Error::Failed`] once `stop` is set.
    pub fn push(&mut self, label: &[f64], ltr: &[f64], group: &[u8]) -> Result<()> {
        self.batch
            .push((self.index, label.to_vec(), ltr.to_vec(), group.to_vec()));
        self.index += 1;
        if self.batch.len() == BATCH {
            self.flush()?;
        }
        Ok(())
    }

    /// The means over the valid queries pushed.
    ///
    /// # Errors
    /// As [`Run::push`], for the last batch.
    pub fn finish(mut self) -> Result<Frontier> {
        self.flush()?;
        Ok(self.sums.mean())
    }

    fn flush(&mut self) -> Result<()> {
        let (config, tables, stop) = (&self.config, &self.tables, self.stop);
        let stopped = || stop.load(Ordering::Relaxed);
        let parts: Vec<Result<Option<Frontier>>> = self.pool.install(|| {
            self.batch
                .par_iter()
                .with_max_len(1)
                .map(|(i, label, ltr, group)| {
                    if stopped() {
                        return Err(Error::Failed("stopped".into()));
                    }
                    let q = query::Rows { label, ltr, group };
                    query::frontier(config, tables, *i, &q, &stopped)
                })
                .collect()
        });
        // Summed in input order: the same sums whatever the threads.
        for part in parts {
            if let Some(part) = part? {
                self.sums.add(&part);
            }
        }
        self.batch.clear();
        Ok(())
    }
}

impl Frontier {
    /// Zero sums at `config.levels` levels and the unconstrained row; one query's values
    /// are its frontier too, so that the sums are [`Frontier::add`]s and the means one
    /// division.
    fn zero(config: &Config) -> Self {
        let levels = config.levels;
        let row = |r: usize| Row {
            level: (r < levels).then(|| r as f64 / (levels - 1) as f64),
            fairness: if r < levels { 0.0 } else { f64::NAN },
            ndcg: 0.0,
            bound: 0.0,
            exact: 0,
        };
        Frontier {
            metric: config.metric,
            k: config.k,
            sessions: config.sessions,
            queries: 0,
            rows: (0..=levels).map(row).collect(),
            input: (0.0, 0.0),
            recipe: (0.0, 0.0),
        }
    }

    fn add(&mut self, part: &Frontier) {
        self.queries += part.queries;
        for (row, p) in self.rows.iter_mut().zip(&part.rows) {
            row.fairness += p.fairness;
            row.ndcg += p.ndcg;
            row.bound += p.bound;
            row.exact += p.exact;
        }
        let sum = |a: (f64, f64), b: (f64, f64)| (a.0 + b.0, a.1 + b.1);
        self.input = sum(self.input, part.input);
        self.recipe = sum(self.recipe, part.recipe);
    }

    /// The sums as means over the queries (`exact` stays a count).
    fn mean(mut self) -> Self {
        let q = self.queries.max(1) as f64;
        for row in &mut self.rows {
            row.fairness /= q;
            row.ndcg /= q;
            row.bound /= q;
        }
        self.input = (self.input.0 / q, self.input.1 / q);
        self.recipe = (self.recipe.0 / q, self.recipe.1 / q);
        self
    }
}
