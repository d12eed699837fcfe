//! The protocol of `paper/protocol.md`: an experiment (a data set and its shared settings),
//! its cells (a method on one metric, utility and session count) and the grid of cells.
//! Commands build on it: [`crate::single`] runs one data set, [`crate::report`] both TREC
//! sets; this module uses neither, nor the printing in [`crate::table`].

use std::time::Instant;

use ppg_core::objective::RankStart;
use ppg_core::{Dims, PlConfig, PlackettLuce, Ppg, TrainConfig};

use ppg_core::recipe::cost::EeScore;
use ppg_core::seed;
use ppg_host::cost::{evaluate, Eval, Metric, Tables};
use rayon::prelude::*;

use crate::args::{DataUtility, ReproduceArgs};
use crate::data::ProtocolQuery;
use crate::methods::{self, default_methods, Engines, Kind, Method, Setup};
use ppg_core::recipe::Relevance;
use ppg_host::error::{Error, Result};
use ppg_host::progress::{self, Show};
use ppg_host::threads;

/// One cell of a table: a method on one metric, utility and session count.
#[derive(Debug, Clone)]
pub struct Cell {
    pub method: String,
    pub sampler: &'static str,
    pub gradient: &'static str,
    pub metric: Metric,
    /// The number of expected exposure the cell optimises and reports.
    pub ee: EeScore,
    pub utility: DataUtility,
    pub sessions: usize,
    /// `None` where the method has no value for the metric (FOE on EEL).
    pub fairness: Option<f64>,
    pub ndcg: Option<f64>,
    /// Valid queries evaluated.
    pub queries: usize,
    pub runs: usize,
    /// Wall-clock seconds of the cell, all runs.
    pub seconds: f64,
    /// The bound row only: valid queries where the search was cut, so that the value is
    /// a proven lower bound rather than the exact optimum (0 elsewhere).
    pub bounded: usize,
    /// The certifying rows only (`recipe`, `exact`): query runs certified against the
    /// optimisation cost's optimum, and the largest gap above it (`None` elsewhere).
    pub certified: usize,
    pub largest_gap: Option<f64>,
    /// The certifying rows only: the relevance certificate (`certify_relevance`), the mean
    /// over query runs of the bound on NDCG@10 among the rankings at least as fair, the
    /// mean gap below it of the certified query runs, and how many of them have an exact
    /// bound (`None` and 0 elsewhere).
    pub ndcg_bound: Option<f64>,
    pub ndcg_gap: Option<f64>,
    pub ndcg_exact: usize,
}

/// One task's result: the evaluation, whether a bound row's value is exact, and a
/// certifying row's certificates (certified, gap, relevance).
type Done = (Eval, bool, Option<(bool, Option<f64>, Relevance)>);

/// A data set and the settings every cell shares.
pub struct Experiment {
    pub name: String,
    pub queries: Vec<ProtocolQuery>,
    pub tables: Tables,
    pub threads: usize,
    pub seed: u64,
    /// PPG's learning rate when given; else [`reference_lr`].
    pub lr: Option<f32>,
    /// PL's learning rate when given; else [`reference_lr`].
    pub pl_lr: Option<f32>,
    pub initial_weight: f32,
    pub train: TrainConfig,
    pub pl: PlConfig,
    /// The number of expected exposure `--metric ee` optimises and reports.
    pub ee: EeScore,
}

impl Experiment {
    pub fn new(name: String, queries: Vec<ProtocolQuery>, args: &ReproduceArgs) -> Result<Self> {
        let lr_ok = |lr: f32| lr.is_finite() && lr >= 0.0;
        let w0 = args.initial_weight;
        if !(w0 > 0.0 && w0 < 1.0) {
            return Err(Error::Usage("--initial-weight must be in (0, 1)".into()));
        }
        if !(args.lr.is_none_or(lr_ok) && args.pl_lr.is_none_or(lr_ok)) {
            return Err(Error::Usage(
                "--lr and --pl-lr must be finite and non-negative".into(),
            ));
        }
        let longest = queries.iter().map(ProtocolQuery::len).max().unwrap_or(1);
        Ok(Experiment {
            name,
            tables: Tables::new(longest, RankStart::One),
            queries,
            threads: threads::count(args.threads),
            seed: args.seed,
            lr: args.lr,
            pl_lr: args.pl_lr,
            initial_weight: args.initial_weight,
            train: TrainConfig {
                epochs: args.epochs,
                ..TrainConfig::default()
            },
            pl: PlConfig {
                epochs: args.epochs,
                ..PlConfig::default()
            },
            ee: EeScore {
                measure: args.ee_measure,
                normalised: !args.ee_raw,
            },
        })
    }

    /// Valid queries for `metric` (by the true labels).
    pub fn valid(&self, metric: Metric) -> Vec<usize> {
        (0..self.queries.len())
            .filter(|&k| metric.valid(&self.queries[k].label, &self.queries[k].group))
            .collect()
    }

    /// Runs one cell.
    pub fn cell(
        &self,
        method: &Method,
        metric: Metric,
        utility: DataUtility,
        sessions: usize,
        runs: usize,
    ) -> Result<Cell> {
        let started = Instant::now();
        let valid = self.valid(metric);
        let mut cell = Cell {
            method: method.name.clone(),
            sampler: method.sampler(),
            gradient: method.gradient(),
            metric,
            ee: self.ee,
            utility,
            sessions,
            fairness: None,
            ndcg: None,
            queries: valid.len(),
            runs,
            seconds: 0.0,
            bounded: 0,
            certified: 0,
            largest_gap: None,
            ndcg_bound: None,
            ndcg_gap: None,
            ndcg_exact: 0,
        };
        if !method.supports(metric) || valid.is_empty() {
            return Ok(cell);
        }
        let runs_done = if method.deterministic() { 1 } else { runs };
        // Task t is run t / |valid| on query valid[t % |valid|]; the longest queries go first.
        let count = runs_done * valid.len();
        let mut order: Vec<usize> = (0..count).collect();
        order.sort_by_key(|&t| std::cmp::Reverse(self.queries[valid[t % valid.len()]].len()));
        let longest = valid
            .iter()
            .map(|&k| self.queries[k].len())
            .max()
            .unwrap_or(1);
        let setup = Setup {
            tables: &self.tables,
            sessions,
            utility,
            metric,
            ee: self.ee,
            train: TrainConfig {
                learning_rate: self.lr.unwrap_or(reference_lr(utility)),
                ..self.train
            },
            pl: PlConfig {
                lr: self.pl_lr.unwrap_or(reference_lr(utility)),
                ..self.pl
            },
            initial_weight: self.initial_weight,
        };
        let dims = Dims::new(
            longest,
            sessions,
            self.train.batch.max(usize::from(self.pl.batch)),
        );
        let label = format!(
            "{} {} {} {}",
            method.name,
            metric.name(),
            utility.name(),
            sessions
        );
        let pool = threads::pool(self.threads)?;
        let bar = if count >= 2000 {
            progress::new(Show::Auto, &label, Some(count as u64), "tasks")
        } else {
            indicatif::ProgressBar::hidden()
        };
        let bytes = |needed: bool, b: usize| if needed { b } else { 0 };
        let ppg_bytes = bytes(method.needs_ppg(), Ppg::bytes(dims));
        let pl_bytes = bytes(method.needs_pl(), PlackettLuce::bytes(dims));
        // One task: run t / |valid| on query valid[t % |valid|], its seed derived from
        // both, on engines laid out in this worker's memory.
        let task = |mem: &mut (Vec<u8>, Vec<u8>), t: usize| -> Result<Done> {
            let (run, k) = (t / valid.len(), valid[t % valid.len()]);
            let q = &self.queries[k];
            let fail = |msg: String| Error::Failed(format!("{} on query {k}: {msg}", method.name));
            let engine = |e: ppg_core::Error| Error::Failed(format!("engine: {e}"));
            let (ppg_mem, pl_mem) = mem;
            let mut engines = Engines {
                ppg: if method.needs_ppg() {
                    Some(Ppg::new(ppg_mem, dims, 0).map_err(engine)?)
                } else {
                    None
                },
                pl: if method.needs_pl() {
                    Some(PlackettLuce::new(pl_mem, dims, 0).map_err(engine)?)
                } else {
                    None
                },
            };
            let evaluated = |ranking: &[u16]| {
                evaluate(
                    metric,
                    self.ee,
                    &q.label,
                    &q.group,
                    ranking,
                    sessions,
                    &self.tables,
                )
                .map_err(|e| fail(e.to_string()))
            };
            let task_seed = seed::derive(self.seed, &[run as u64, k as u64]);
            let done = if method.kind == Kind::Bound {
                let (eval, _, exact) =
                    methods::bound(metric, q, sessions, &self.tables).map_err(fail)?;
                (eval, exact, None)
            } else if method.certifies() {
                let (r, relevance) =
                    methods::certified(method, &setup, q, task_seed, &mut engines).map_err(fail)?;
                let certificate = (r.certified, r.gap(), relevance);
                (evaluated(&r.rankings)?, true, Some(certificate))
            } else {
                let ranking =
                    methods::run(method, &setup, q, task_seed, &mut engines).map_err(fail)?;
                (evaluated(&ranking)?, true, None)
            };
            bar.inc(1);
            Ok(done)
        };
        let outcomes: Vec<(usize, Result<Done>)> = pool.install(|| {
            order
                .par_iter()
                .with_max_len(1)
                .map_init(
                    || (vec![0u8; ppg_bytes], vec![0u8; pl_bytes]),
                    |mem, &t| (t, task(mem, t)),
                )
                .collect()
        });
        bar.finish_and_clear();
        // Results by task index, whatever thread ran them; the first error in task order.
        let mut slots: Vec<Option<Done>> = (0..count).map(|_| None).collect();
        let mut first_error: Option<(usize, Error)> = None;
        for (t, outcome) in outcomes {
            match outcome {
                Ok(e) => slots[t] = Some(e),
                Err(e) if first_error.as_ref().is_none_or(|(j, _)| t < *j) => {
                    first_error = Some((t, e))
                }
                Err(_) => {}
            }
        }
        let evals: Result<Vec<Done>> = match first_error {
            Some((_, e)) => Err(e),
            None => Ok(slots
                .into_iter()
                .map(|s| s.expect("every task ran"))
                .collect()),
        };
        let evals = evals?;
        // Mean over queries within a run, then over runs (equal weights either way, as
        // every run covers the same queries).
        let n = count as f64;
        cell.fairness = Some(evals.iter().map(|e| e.0.fairness).sum::<f64>() / n);
        cell.ndcg = Some(evals.iter().map(|e| e.0.ndcg).sum::<f64>() / n);
        cell.bounded = evals.iter().filter(|e| !e.1).count();
        let certificates = evals.iter().filter_map(|e| e.2);
        cell.certified = certificates.clone().filter(|c| c.0).count();
        cell.largest_gap = certificates.clone().filter_map(|c| c.1).reduce(f64::max);
        let bounds: Vec<f64> = certificates.clone().map(|c| c.2.bound).collect();
        cell.ndcg_bound = (!bounds.is_empty()).then(|| bounds.iter().sum::<f64>() / n);
        let gaps: Vec<f64> = certificates
            .clone()
            .filter(|c| c.0)
            .map(|c| c.2.gap())
            .collect();
        cell.ndcg_gap = (!gaps.is_empty()).then(|| gaps.iter().sum::<f64>() / gaps.len() as f64);
        cell.ndcg_exact = certificates.filter(|c| c.0 && c.2.exact).count();
        cell.seconds = started.elapsed().as_secs_f64();
        Ok(cell)
    }
}

/// The learning rate of the paper's reference drivers: 0.4 with LTR grades, 0.01 in the
/// true-label driver (protocol.md). A driver has one rate for every optimiser it runs, so
/// PL gets it too unless `--pl-lr` says otherwise.
pub fn reference_lr(utility: DataUtility) -> f32 {
    utility.protocol().learning_rate()
}

/// Parses `--method` (or the default list).
pub fn parse_methods(names: &[String]) -> Result<Vec<Method>> {
    if names.is_empty() {
        return Ok(default_methods()
            .map(|n| Method::parse(n).expect("default methods parse"))
            .collect());
    }
    names
        .iter()
        .map(|n| Method::parse(n.trim()).map_err(Error::Usage))
        .collect()
}

/// Every cell of the grid `utilities x metrics x methods` at `sessions`.
pub fn grid(
    exp: &Experiment,
    methods: &[Method],
    utilities: &[DataUtility],
    metrics: &[Metric],
    sessions: usize,
    runs: usize,
) -> Result<Vec<Cell>> {
    let mut cells = Vec::new();
    for &utility in utilities {
        for method in methods {
            for &metric in metrics {
                cells.push(exp.cell(method, metric, utility, sessions, runs)?);
            }
        }
    }
    Ok(cells)
}
