//! One query through an optimiser: PPG (the engine's trainer) or Plackett-Luce.
//!
//! Item ids here are positions in the query's starting ranking (what the engines expect);
//! [`to_items`] maps a result back to the caller's item ids.

use ppg_core::{Error, Objective, PlConfig, PlackettLuce, Ppg, TrainConfig};

/// A PPG training recipe: the trainer's configuration, whether items of the same group
/// keep their starting order (the paper's intra-group constraint), and the weight every
/// unconstrained pair starts from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PpgRecipe {
    /// The trainer's configuration.
    pub train: TrainConfig,
    /// Items of the same group keep their starting order.
    pub intra: bool,
    /// The weight every unconstrained pair starts from.
    pub initial_weight: f32,
}

/// The paper's initial weight of every unconstrained pair.
pub const INITIAL_WEIGHT: f32 = 0.5;

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
    recipe: &PpgRecipe,
) -> Result<Vec<u16>, Error> {
    engine.reseed(seed);
    engine.start(group.len(), sessions, recipe.initial_weight)?;
    if recipe.intra {
        engine.keep_order_within(group)?;
    }
    engine.train(cost, &recipe.train)?;
    Ok(match engine.best() {
        Some((best, _)) => best.to_vec(),
        None => engine.reference().to_vec(),
    })
}

/// The session counts [`ppg_grown`] trains, ending at `sessions`: halving while even,
/// from 1 (`12` gives 1, 3, 6, 12; `8` gives 1, 2, 4, 8).
pub fn growth(sessions: usize) -> Vec<usize> {
    let mut chain = vec![sessions.max(1)];
    while let Some(&s) = chain.last() {
        match s {
            1 => break,
            _ if s % 2 == 0 => chain.push(s / 2),
            _ => chain.push(1),
        }
    }
    chain.reverse();
    chain
}

/// PPG grown over sessions: trains 1 session, then each count of [`growth`] in turn, and
/// at each count keeps the better (by `cost`) of the fresh training's best and the
/// previous count's best dealt out again (session `j` a copy of session `j mod p`).
///
/// Why: a copy of a `p`-session solution is a feasible `S`-session one, and for costs
/// that average over sessions (the protocol's DTR and EEL, most exposure metrics) it costs
/// the same. A fresh search over `S` sessions draws every block at once and, with the
/// paper's fixed budget, falls behind that copy as `S` grows. The candidate is only scored
/// through `cost`: the objective stays a black box. About twice the training of `S`
/// sessions alone (the counts halve).
///
/// # Errors
/// As [`ppg`], or a non-finite cost.
pub fn ppg_grown(
    engine: &mut Ppg,
    seed: u64,
    group: &[u8],
    sessions: usize,
    cost: &mut impl Objective,
    recipe: &PpgRecipe,
) -> Result<Vec<u16>, Error> {
    let n = group.len();
    let mut kept: Option<(Vec<u16>, f64)> = None;
    for s in growth(sessions) {
        let fresh = ppg(engine, seed, group, s, cost, recipe)?;
        let fresh_cost = cost.cost(&fresh, s);
        let copy = kept.map(|(previous, _)| {
            let p = previous.len() / n;
            let dealt: Vec<u16> = (0..s)
                .flat_map(|j| previous[(j % p) * n..(j % p + 1) * n].iter().copied())
                .collect();
            let c = cost.cost(&dealt, s);
            (dealt, c)
        });
        kept = Some(match copy {
            Some((dealt, c)) if c < fresh_cost => (dealt, c),
            _ => (fresh, fresh_cost),
        });
        if !kept.as_ref().is_some_and(|k| k.1.is_finite()) {
            return Err(Error::NotFinite { index: 0 });
        }
    }
    Ok(kept.map(|k| k.0).unwrap_or_default())
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
/// (a stable ascending sort, reversed). `order[k]` is the row at position `k`.
pub fn ranking_by(utility: &[f64]) -> Vec<u16> {
    let mut order: Vec<u16> = (0..utility.len() as u16).collect();
    order.sort_by(|&a, &b| utility[usize::from(a)].total_cmp(&utility[usize::from(b)]));
    order.reverse();
    order
}
