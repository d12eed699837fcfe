//! `ppg frontier DATA`: what fairness costs in relevance (issue 36, point 3). For a range
//! of fairness levels from each query's optimum to the input ranking's own, the best mean
//! NDCG@k any ranking at least that fair reaches, and the Lagrangian bound on it, as a
//! table (TSV or JSON) and a plot (`frontier_plot`).
//!
//! # What a level is
//!
//! Level `t` in `[0, 1]` lets query `q` cost at most `opt_q + t (input_q - opt_q)`: `t =
//! 0` is the exact optimum's witness (`ppg_core::objective::bound`), `t = 1` the input
//! ranking's (by `ltr_grade`) own fairness. Fairness and NDCG are the protocol's
//! evaluation (true labels, EEL on 2 levels, exposure from r = 1). A last row without any
//! fairness constraint closes the table.
//!
//! # Why a level is a window, and what is exact
//!
//! At one session the two-group DTR and EEL are functions of group 0's exposure `x`
//! alone, DTR monotone on each side of its optimum and EEL a convex quadratic, so the
//! rankings within a level are exactly those whose `x` lies in an interval
//! (`dtr_window`, `eel_window` of `ppg_core::objective::relevance`). The best NDCG in it
//! is the core's walk over the window's patterns (`Lists::single`), exact when it
//! finishes within its budget (`exact` counts the queries where it did; else it is the
//! best found, a ranking that exists); the bound is the Lagrangian dual over the same
//! window (`Lists::dual`), an upper bound whatever happens. Neither is new code here.
//! Other metrics and session counts are refused: at several sessions the walk does not
//! apply and the reachable side would have to be searched.
//!
//! # Memory
//!
//! Queries are read one at a time and processed in batches of [`BATCH`] on the thread
//! pool; only the sums per level and the query ids seen (to refuse an interrupted query)
//! are kept.

use rayon::prelude::*;

use crate::args::FairnessArg;
use ppg_core::objective::bound::MAX_SEARCH_ITEMS;
use ppg_core::objective::relevance::{dtr_window, eel_window, Lists, DUAL_WORK};
use ppg_core::objective::{Eel, Ndcg, RankStart};
use ppg_core::recipe::cost::EeScore;
use ppg_core::{seed, Dims, PlConfig, Ppg, TrainConfig};
use ppg_host::cost::{evaluate, Metric, Tables};
use ppg_host::error::{Error, Result};
use ppg_host::optimise::ranking_by;
use ppg_host::threads;

// The command's arguments and its reader, where the test and `ppg` reach them.
pub use crate::args::{FrontierArgs, FrontierFormat};
pub use crate::data::stream;
use crate::data::Query;
use crate::methods::{self, Engines, Method, Setup};
use crate::reproduce::reference_lr;

/// Queries processed at once: the memory bound of the stream.
pub const BATCH: usize = 64;

/// One row of the table: a level and the means over the valid queries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// `t` of the module's docs; `None` for the row without a constraint.
    pub level: Option<f64>,
    /// The mean of the queries' fairness caps.
    pub fairness: f64,
    /// The mean best NDCG@k reached within the caps.
    pub ndcg: f64,
    /// The mean Lagrangian bound on it.
    pub bound: f64,
    /// Queries whose walk finished (their best is exact).
    pub exact: usize,
}

/// A data set's frontier, with the input ranking and the default recipe as points.
#[derive(Debug, Clone, PartialEq)]
pub struct Frontier {
    /// The fairness metric.
    pub metric: Metric,
    /// The NDCG cut-off.
    pub k: usize,
    /// Valid queries (the metric's validity, as `ppg reproduce`).
    pub queries: usize,
    /// The levels from the optimum to the input's own, then the row without a constraint.
    pub rows: Vec<Row>,
    /// (mean fairness, mean NDCG@k) of the input ranking.
    pub input: (f64, f64),
    /// (mean fairness, mean NDCG@k) of the default recipe (`ppg reproduce --method recipe`).
    pub recipe: (f64, f64),
}

/// `ppg frontier`: the table on standard output, the plot where asked.
pub fn run(args: &FrontierArgs) -> Result<()> {
    let frontier = compute(args)?;
    let text = match args.format {
        FrontierFormat::Tsv => tsv(&frontier),
        FrontierFormat::Json => json(&frontier),
    };
    if let Some(prefix) = &args.plot {
        let title = args.data.file_stem().map_or_else(
            || args.data.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        crate::frontier_plot::draw(prefix, &title, &frontier)?;
    }
    print!("{text}");
    Ok(())
}

/// The frontier of `args.data`, streamed.
pub fn compute(args: &FrontierArgs) -> Result<Frontier> {
    let metric = match args.metric {
        FairnessArg::Dtr => Metric::Dtr,
        FairnessArg::Eel => Metric::Eel,
        other => {
            return Err(Error::Usage(format!(
                "--metric {}: the frontier covers the two-group dtr and eel only",
                crate::reproduce::metric_of(other).name()
            )))
        }
    };
    if args.sessions != 1 {
        return Err(Error::Usage(format!(
            "--sessions {}: the frontier covers one session only (the exact walk)",
            args.sessions
        )));
    }
    if args.levels < 2 || args.k == 0 {
        return Err(Error::Usage(
            "--levels must be at least 2 and --k at least 1".into(),
        ));
    }
    let tables = Tables::new(ppg_core::MAX_ITEMS, RankStart::One);
    let pool = threads::pool(threads::count(args.threads))?;
    let recipe = Method::parse(methods::RECIPE).map_err(Error::Usage)?;
    let mut sums = Frontier::zero(metric, args.k, args.levels);
    let mut batch: Vec<(usize, Query)> = Vec::with_capacity(BATCH);
    let mut flush = |batch: &mut Vec<(usize, Query)>| -> Result<()> {
        let parts: Vec<Result<Option<Frontier>>> = pool.install(|| {
            batch
                .par_iter()
                .with_max_len(1)
                .map(|(k, q)| query(args, metric, &tables, &recipe, *k, q))
                .collect()
        });
        for part in parts {
            if let Some(part) = part? {
                sums.add(&part);
            }
        }
        batch.clear();
        Ok(())
    };
    let mut index = 0;
    stream(&args.data, |q| {
        batch.push((index, q));
        index += 1;
        if batch.len() == BATCH {
            flush(&mut batch)?;
        }
        Ok(())
    })?;
    flush(&mut batch)?;
    Ok(sums.mean())
}

/// Query `k`'s part, `None` when the metric does not score it (`Metric::valid`).
fn query(
    args: &FrontierArgs,
    metric: Metric,
    tables: &Tables,
    recipe: &Method,
    k: usize,
    q: &Query,
) -> Result<Option<Frontier>> {
    if !metric.valid(&q.label, &q.group) {
        return Ok(None);
    }
    let fail = |m: String| Error::Failed(format!("query {k}: {m}"));
    let n = q.len();
    let eval = |ranking: &[u16]| {
        evaluate(
            metric,
            EeScore::OFFICIAL,
            &q.label,
            &q.group,
            ranking,
            1,
            tables,
        )
        .map_err(|e| fail(e.to_string()))
    };
    let (_, witness, _) = methods::bound(metric, q, 1, tables).map_err(fail)?;
    let optimum = eval(&witness)?.fairness;
    let input = eval(&ranking_by(&q.ltr))?;
    // The default recipe's point, as `ppg reproduce --method recipe` runs it.
    let setup = Setup {
        tables,
        sessions: 1,
        utility: args.utility,
        metric,
        ee: EeScore::OFFICIAL,
        train: TrainConfig {
            learning_rate: reference_lr(args.utility),
            ..TrainConfig::default()
        },
        initial_weight: 0.5,
        pl: PlConfig::default(),
    };
    let dims = Dims::new(n, 1, TrainConfig::default().batch);
    let mut memory = vec![0u8; Ppg::bytes(dims)];
    let mut engines = Engines {
        ppg: Some(Ppg::new(&mut memory, dims, 0).map_err(|e| fail(e.to_string()))?),
        pl: None,
    };
    let task_seed = seed::derive(args.seed, &[0, k as u64]);
    let (reranked, _) =
        methods::certified(recipe, &setup, q, task_seed, &mut engines).map_err(fail)?;
    let recipe_point = eval(&reranked.rankings)?;

    // Each group's gains, descending (the order within groups is free).
    let ndcg = Ndcg::new(&q.label, args.k, &tables.discount).map_err(|e| fail(e.to_string()))?;
    let ideal = ndcg.ideal();
    let mut gains: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for (&l, &g) in q.label.iter().zip(&q.group) {
        gains[usize::from(g)].push(ndcg.gain(l));
    }
    for g in &mut gains {
        g.sort_unstable_by(|a, b| b.total_cmp(a));
    }
    let lists = Lists {
        gain: [&gains[0], &gains[1]],
        discount: &tables.discount[..args.k.min(n)],
        exposure: &tables.exposure[..n],
    };
    let total: f64 = tables.exposure[..n].iter().sum();
    let window = |level: f64| -> Option<(f64, f64)> {
        match metric {
            Metric::Dtr => {
                let mut u = [0.0; 2];
                for (&l, &g) in q.label.iter().zip(&q.group) {
                    u[usize::from(g)] += l;
                }
                Some(dtr_window(u, total, 1, level))
            }
            _ => {
                let eel = Eel::new(&q.label, &q.group, 2, &tables.exposure).ok()?;
                let t = eel.targets();
                // At an optimum of 0 the quadratic's discriminant is 0 up to rounding:
                // the level widened as the window is (`eel_window`).
                eel_window([t[0], t[1]], total, 1, level + 1e-12 * (1.0 + level))
            }
        }
    };
    let floor = ndcg.value(&witness, 1) * ideal;
    let mut work = vec![0.0; DUAL_WORK * (gains[0].len() + 1) + n + 1];
    let levels = args.levels;
    let mut part = Frontier::zero(metric, args.k, levels);
    part.queries = 1;
    part.input = (input.fairness, input.ndcg);
    part.recipe = (recipe_point.fairness, recipe_point.ndcg);
    for row in &mut part.rows {
        let (cap, (lo, hi)) = if let Some(t) = row.level {
            let cap = optimum + t * (input.fairness - optimum).max(0.0);
            let w = window(cap).ok_or_else(|| fail(format!("no ranking within {cap}")))?;
            (cap, w)
        } else {
            // Every exposure group 0 can get (finite: the dual multiplies its edges).
            (f64::NAN, (-1.0, total + 1.0))
        };
        // The optimum's witness is at every level: its DCG is a floor a ranking reaches,
        // so a walk cut by its budget never reports less.
        let (best, complete) = lists
            .single(lo, hi, floor, args.budget, &mut work, None)
            .ok_or_else(|| {
                fail(format!(
                    "{n} items: the walk takes at most {MAX_SEARCH_ITEMS}"
                ))
            })?;
        let dual = lists
            .dual(1, lo, hi, &mut work)
            .ok_or_else(|| fail(format!("no ranking within {cap}")))?;
        // Every query scored has an ideal DCG above 0 under DTR; under EEL one without a
        // relevant item has NDCG 1 whatever the ranking (`Ndcg::value`).
        let (reached, bound) = if ideal > 0.0 {
            (best / ideal, dual * (1.0 + 1e-12) / ideal)
        } else {
            (1.0, 1.0)
        };
        *row = Row {
            fairness: cap,
            ndcg: reached,
            bound,
            exact: usize::from(complete),
            ..*row
        };
    }
    Ok(Some(part))
}

impl Frontier {
    /// Zero sums at `levels` levels and the unconstrained row; one query's values are its
    /// frontier too, so that the sums are [`Frontier::add`]s and the means one division.
    fn zero(metric: Metric, k: usize, levels: usize) -> Self {
        let row = |r: usize| Row {
            level: (r < levels).then(|| r as f64 / (levels - 1) as f64),
            fairness: if r < levels { 0.0 } else { f64::NAN },
            ndcg: 0.0,
            bound: 0.0,
            exact: 0,
        };
        Frontier {
            metric,
            k,
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

/// The table as tab-separated text with a header.
pub fn tsv(f: &Frontier) -> String {
    let mut out = String::from("level\tfairness\tndcg\tbound\texact\tqueries\n");
    let num = |v: f64| {
        if v.is_nan() {
            "-".to_owned()
        } else {
            format!("{v:.6}")
        }
    };
    for r in &f.rows {
        let level = r
            .level
            .map_or_else(|| "none".to_owned(), |t| format!("{t:.4}"));
        out.push_str(&format!(
            "{level}\t{}\t{}\t{}\t{}\t{}\n",
            num(r.fairness),
            num(r.ndcg),
            num(r.bound),
            r.exact,
            f.queries
        ));
    }
    out.push_str(&format!(
        "input\t{}\t{}\t-\t-\t{}\n",
        num(f.input.0),
        num(f.input.1),
        f.queries
    ));
    out.push_str(&format!(
        "recipe\t{}\t{}\t-\t-\t{}\n",
        num(f.recipe.0),
        num(f.recipe.1),
        f.queries
    ));
    out
}

/// The table as JSON: `metric`, `k`, `queries`, `rows` (`level` null for the row without a
/// constraint, `fairness` null there too), `input` and `recipe`.
pub fn json(f: &Frontier) -> String {
    let num = |v: f64| {
        if v.is_finite() {
            serde_json::json!(v)
        } else {
            serde_json::Value::Null
        }
    };
    let rows: Vec<_> = f
        .rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "level": r.level, "fairness": num(r.fairness), "ndcg": num(r.ndcg),
                "bound": num(r.bound), "exact": r.exact,
            })
        })
        .collect();
    let point = |p: (f64, f64)| serde_json::json!({"fairness": num(p.0), "ndcg": num(p.1)});
    let value = serde_json::json!({
        "metric": f.metric.name(), "k": f.k, "queries": f.queries, "rows": rows,
        "input": point(f.input), "recipe": point(f.recipe),
    });
    format!("{value:#}\n")
}
