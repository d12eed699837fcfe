//! One query's frontier: its optimum, its input ranking and the default recipe as
//! points, and each level's window, best and bound (the module docs of `frontier`).

use ppg_core::objective::relevance::{dtr_window, eel_window, Lists};
use ppg_core::objective::{Eel, Ndcg};
use ppg_core::recipe::cost::EeScore;
use ppg_core::{seed, Dims, Ppg, TrainConfig};

use super::mix::{self, Work};
use super::{Config, Frontier, Row};
use crate::cost::{evaluate, Metric, Tables};
use crate::error::{Error, Result};
use crate::optimise::ranking_by;
use crate::protocol;
use crate::rerank_query::{self, Rows as RecipeRows};

/// One query's columns, one value per item.
pub(super) struct Rows<'q> {
    pub label: &'q [f64],
    pub ltr: &'q [f64],
    pub group: &'q [u8],
}

/// Query `index`'s part of the sums, `None` when the metric does not score it
/// (`Metric::valid`).
pub(super) fn frontier(
    config: &Config,
    tables: &Tables,
    index: usize,
    q: &Rows<'_>,
    stop: &dyn Fn() -> bool,
) -> Result<Option<Frontier>> {
    let (metric, sessions) = (config.metric, config.sessions);
    if !metric.valid(q.label, q.group) {
        return Ok(None);
    }
    let fail = |m: String| Error::Failed(format!("query {index}: {m}"));
    let n = q.label.len();
    let eval = |ranking: &[u16], sessions: usize| {
        evaluate(
            metric,
            EeScore::OFFICIAL,
            q.label,
            q.group,
            ranking,
            sessions,
            tables,
        )
        .map_err(|e| fail(e.to_string()))
    };
    let (_, witness, _) =
        protocol::optimum(metric, q.label, q.group, sessions, tables).map_err(fail)?;
    let optimum = eval(&witness, sessions)?.fairness;
    // The input ranking in every session: its mean exposure is one session's.
    let input = eval(&ranking_by(q.ltr), 1)?;
    let recipe_rankings = recipe_point(config, tables, index, q, stop).map_err(fail)?;
    let recipe = eval(&recipe_rankings, sessions)?;

    // Each group's gains, descending (the order within groups is free).
    let ndcg = Ndcg::new(q.label, config.k, &tables.discount).map_err(|e| fail(e.to_string()))?;
    let ideal = ndcg.ideal();
    let mut gains: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for (&l, &g) in q.label.iter().zip(q.group) {
        gains[usize::from(g)].push(ndcg.gain(l));
    }
    for g in &mut gains {
        g.sort_unstable_by(|a, b| b.total_cmp(a));
    }
    let lists = Lists {
        gain: [&gains[0], &gains[1]],
        discount: &tables.discount[..config.k.min(n)],
        exposure: &tables.exposure[..n],
    };
    let total: f64 = tables.exposure[..n].iter().sum();
    let window = |level: f64| -> Option<(f64, f64)> {
        match metric {
            Metric::Dtr => {
                let mut u = [0.0; 2];
                for (&l, &g) in q.label.iter().zip(q.group) {
                    u[usize::from(g)] += l;
                }
                Some(dtr_window(u, total, sessions, level))
            }
            _ => {
                let eel = Eel::new(q.label, q.group, 2, &tables.exposure).ok()?;
                let t = eel.targets();
                // At an optimum of 0 the quadratic's discriminant is 0 up to rounding:
                // the level widened as the window is (`eel_window`).
                eel_window([t[0], t[1]], total, sessions, level + 1e-12 * (1.0 + level))
            }
        }
    };
    // The optimum's rankings are at every level: their total DCG is a floor a ranking
    // reaches, so a walk cut by its budget never reports less.
    let s = sessions as f64;
    let mut floor = ndcg.value(&witness, sessions) * ideal * s;
    // The input's and the recipe's rankings exist too: floors from their own levels on.
    let known = [
        (
            input.fairness,
            ndcg.value(&ranking_by(q.ltr), 1) * ideal * s,
        ),
        (
            recipe.fairness,
            ndcg.value(&recipe_rankings, sessions) * ideal * s,
        ),
    ];
    let mut work = Work::new(&lists);
    let mut part = Frontier::zero(config);
    part.queries = 1;
    part.input = (input.fairness, input.ndcg);
    part.recipe = (recipe.fairness, recipe.ndcg);
    for row in &mut part.rows {
        let (cap, (lo, hi)) = if let Some(t) = row.level {
            let cap = optimum + t * (input.fairness - optimum).max(0.0);
            let w = window(cap).ok_or_else(|| fail(format!("no ranking within {cap}")))?;
            (cap, w)
        } else {
            // Every exposure group 0 can get (finite: the dual multiplies its edges).
            (f64::NAN, (-1.0, s * total + 1.0))
        };
        for &(fairness, dcg) in &known {
            if row.level.is_none() || fairness <= cap {
                floor = floor.max(dcg);
            }
        }
        let found = mix::best(&lists, sessions, (lo, hi), floor, config.budget, &mut work)
            .ok_or_else(|| {
                fail(format!(
                    "{n} items: the walk takes at most {}",
                    ppg_core::objective::bound::MAX_SEARCH_ITEMS
                ))
            })?;
        // The windows nest, so what one level reached every looser one reaches.
        floor = found.best;
        // Every query scored has an ideal DCG above 0 under DTR; under EEL one without a
        // relevant item has NDCG 1 whatever the ranking (`Ndcg::value`).
        let (reached, bound) = if ideal > 0.0 {
            (
                found.best / (s * ideal),
                found.bound * (1.0 + 1e-12) / (s * ideal),
            )
        } else {
            (1.0, 1.0)
        };
        *row = Row {
            fairness: cap,
            ndcg: reached,
            bound,
            exact: usize::from(found.exact),
            ..*row
        };
    }
    Ok(Some(part))
}

/// The default recipe's rankings of query `index`, as `ppg reproduce --method recipe`
/// runs it (its seed: `seed::derive(config.seed, &[0, index])`).
fn recipe_point(
    config: &Config,
    tables: &Tables,
    index: usize,
    q: &Rows<'_>,
    stop: &dyn Fn() -> bool,
) -> std::result::Result<Vec<u16>, String> {
    let utility = match config.utility {
        protocol::Utility::Label => q.label,
        protocol::Utility::Ltr => q.ltr,
    };
    let rows = RecipeRows {
        score: utility,
        utility,
        group: q.group,
    };
    let seed = seed::derive(config.seed, &[0, index as u64]);
    let train = TrainConfig {
        learning_rate: config.utility.learning_rate(),
        ..TrainConfig::default()
    };
    let request = protocol::recipe_request(
        config.metric,
        EeScore::OFFICIAL,
        config.sessions,
        seed,
        train,
        protocol::INITIAL_WEIGHT,
    );
    let dims = Dims::new(q.label.len(), config.sessions, train.batch);
    let mut memory = vec![0u8; Ppg::bytes(dims)];
    let mut engine = Ppg::new(&mut memory, dims, 0).map_err(|e| e.to_string())?;
    let reranked = rerank_query::rerank(&mut engine, &request, tables, &rows, seed, stop)
        .map_err(|e| e.to_string())?;
    if stop() {
        return Err("stopped".into());
    }
    Ok(reranked.rankings)
}
