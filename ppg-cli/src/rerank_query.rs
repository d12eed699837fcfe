//! One query of `ppg rerank`: its starting ranking, its cost, PPG, and the rankings of its
//! rows. Every front end that re-ranks (the command line, the Python package) calls this, so
//! that the same rows and seed give the same output whichever front end ran them.
//!
//! A query of one item is passed through ([`passed_through`]), as `ppg rerank` does. A
//! caller that must be able to stop a run (Python's Ctrl-C) hands [`rerank`] a `stop`
//! check: every cost the trainer asks for first asks it, and a run told to stop ends as a
//! NaN cost would, at once and with the engine as before the run.

use ppg_core::{Objective, Ppg};

use crate::cost::{Cost, CostSpec, Tables};
use crate::optimise::{self, ranking_by, PpgRecipe};
use crate::seed;

/// One query's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Reranked {
    /// `sessions` rankings of row indices (0-based rows of the query), laid end to end.
    pub rankings: Vec<u16>,
    /// The cost of the input ranking, repeated over the sessions.
    pub before: f64,
    /// The cost of the returned rankings (never more than `before`: the trainer scores the
    /// input first when the recipe says so, as `ppg rerank`'s does).
    pub after: f64,
}

/// The outcome of a query of one item: its one ranking in every session, costs 0 (there is
/// nothing to order, and no engine is laid out for it).
pub fn passed_through(sessions: usize) -> Reranked {
    Reranked {
        rankings: vec![0; sessions],
        before: 0.0,
        after: 0.0,
    }
}

/// The seed of the query at `index` (0-based, in input order) under the user's `seed`:
/// independent of which thread runs the query and of the other queries.
pub fn query_seed(seed: u64, index: usize) -> u64 {
    seed::derive(seed, &[index as u64])
}

/// Re-ranks one query whose rows have the starting `score`, the `utility` the cost uses
/// and the fairness `group`, on `engine` (laid out for at least this query's length and
/// `sessions`) with the query's `seed` ([`query_seed`]).
///
/// `stop` is asked before every cost (see the module docs); `&|| false` never stops.
///
/// # Errors
/// The engine's refusal: a cost it cannot build (a negative utility for DTR, too many
/// groups), a shape beyond its layout, a non-finite cost; [`ppg_core::Error::NotFinite`]
/// too when `stop` said so.
#[allow(clippy::too_many_arguments)]
pub fn rerank(
    engine: &mut Ppg,
    seed: u64,
    score: &[f64],
    utility: &[f64],
    group: &[u8],
    spec: &CostSpec,
    recipe: &PpgRecipe,
    sessions: usize,
    tables: &Tables,
    stop: &dyn Fn() -> bool,
) -> Result<Reranked, ppg_core::Error> {
    if score.len() == 1 {
        return Ok(passed_through(sessions));
    }
    let order = ranking_by(score);
    let utility_s = optimise::permute(utility, &order);
    let group_s = optimise::permute(group, &order);
    let mut cost = Stoppable {
        inner: Cost::new(spec, &utility_s, &group_s, tables)?,
        stop,
    };
    let input: Vec<u16> = (0..sessions).flat_map(|_| 0..score.len() as u16).collect();
    let before = cost.inner.cost(&input, sessions);
    // A metric without meaning for this query (one group only, or a group without
    // utility for DTR) has nothing to optimise: the input ranking is the answer.
    let meaningful = spec.ndcg.is_some() || spec.metric.valid(utility, group);
    let best = if meaningful {
        optimise::ppg(engine, seed, &group_s, sessions, &mut cost, recipe)?
    } else {
        input
    };
    let after = cost.inner.cost(&best, sessions);
    Ok(Reranked {
        rankings: optimise::to_items(&best, &order),
        before,
        after,
    })
}

/// A cost that turns NaN once `stop` says so: the trainer then ends the run at once and
/// restores the engine, as it does for any non-finite cost.
pub struct Stoppable<'a, O> {
    /// The cost itself.
    pub inner: O,
    /// Asked before every cost.
    pub stop: &'a dyn Fn() -> bool,
}

impl<O: Objective> Objective for Stoppable<'_, O> {
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        if (self.stop)() {
            return f64::NAN;
        }
        self.inner.cost(ranking, sessions)
    }
}
