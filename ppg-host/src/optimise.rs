//! One query through an optimiser: PPG (the engine's trainer) or Plackett-Luce.
//!
//! Item ids here are positions in the query's starting ranking (what the engines expect);
//! [`to_items`] maps a result back to the caller's item ids.

use ppg_core::{Error, Objective, PlConfig, PlackettLuce, Ppg, Recipe};

/// Trains a fresh PPG over `sessions` sessions of the list whose item at starting
/// position `k` is in group `group[k]`, and returns the best ranking found (the starting
/// ranking when training sampled nothing).
///
/// # Errors
/// The engine's refusal (a shape beyond its layout, a non-finite cost).
pub fn ppg(
    engine: &mut Ppg,
    seed: u64,
    group: &[u8],
    sessions: usize,
    cost: &mut impl Objective,
    recipe: &Recipe,
) -> Result<Vec<u16>, Error> {
    engine.reseed(seed);
    engine.start(group.len(), sessions, recipe.initial_weight)?;
    if recipe.intra {
        engine.keep_order_within(group)?;
    } else if recipe.hold {
        engine.hold_order_within(group)?;
    }
    engine.train(cost, &recipe.train)?;
    Ok(match engine.best() {
        Some((best, _)) => best.to_vec(),
        None => engine.reference().to_vec(),
    })
}

/// Trains a Plackett-Luce policy from `logits` (one per starting position) and returns
/// one draw of `sessions` rankings from the trained policy: the paper evaluates PL in
/// expectation over sessions, and a fresh draw per session is how it would be deployed.
///
/// # Errors
/// The engine's refusal.
pub fn pl(
    engine: &mut PlackettLuce,
    seed: u64,
    logits: &[f32],
    sessions: usize,
    cost: &mut impl Objective,
    config: &PlConfig,
) -> Result<Vec<u16>, Error> {
    engine.reseed(seed);
    engine.start(logits, sessions)?;
    engine.train(cost, config)?;
    let mut out = vec![0u16; logits.len() * sessions];
    engine.policy_sample(&mut out)?;
    Ok(out)
}

/// Maps rankings of starting positions to rankings of item ids: position `k` holds item
/// `order[k]`.
pub fn to_items(ranking: &[u16], order: &[u16]) -> Vec<u16> {
    ranking.iter().map(|&k| order[usize::from(k)]).collect()
}

/// `values` in the order of the starting ranking.
pub fn permute<T: Copy>(values: &[T], order: &[u16]) -> Vec<T> {
    order.iter().map(|&i| values[usize::from(i)]).collect()
}

/// The protocol's starting ranking: by `utility`, descending; ties: the later row first
/// (a stable ascending sort, reversed). `order[k]` is the row at position `k`
/// (`ppg_core::recipe::ranking_by`).
pub fn ranking_by(utility: &[f64]) -> Vec<u16> {
    let mut order = vec![0u16; utility.len()];
    ppg_core::recipe::ranking_by(utility, &mut order).expect("a list the engine takes");
    order
}
