//! The paper's protocol as more than one door runs it (`ppg reproduce`, `ppg frontier`,
//! the Python package's `frontier`): the exact optimum of the two-group DTR and EEL over
//! `S` rankings with its witness, and the request of the default recipe as the protocol
//! runs it (its cost, learning rate and initial weight). Here, not in the harness, so
//! that the Python extension, which does not link the harness, gets the same numbers.

use ppg_core::objective::bound::{self as optimum, Counts, Shape};
use ppg_core::objective::{Browse, RankStart};
use ppg_core::recipe::cost::EeScore;
use ppg_core::{Recipe, TrainConfig};

use crate::cost::{evaluate, CostSpec, Eval, Metric, Tables, PROTOCOL_GROUPS};
use crate::rerank_query::{self, RerankSpec};

/// EEL grade levels when optimising (the protocol's 5; it evaluates on 2).
pub const OPTIMISE_LEVELS: u32 = 5;

/// PPG's initial pair weight in the protocol (`ppg reproduce --initial-weight`'s default).
pub const INITIAL_WEIGHT: f32 = 0.5;

/// Which column of the protocol's data the optimisers see as utility.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Utility {
    /// True relevance labels (the paper's Table 2).
    Label,
    /// The model's grades (the paper's Table 1).
    Ltr,
}

impl Utility {
    /// The learning rate the paper's protocol uses for PPG and PL on this utility.
    pub fn learning_rate(self) -> f32 {
        match self {
            Utility::Ltr => 0.4,
            Utility::Label => 0.01,
        }
    }
}

/// The optimisers' cost for `metric`: the protocol's EEL has 5 levels when optimising;
/// expected exposure the number `ee` under `d943b3e`'s cascade, which the evaluation scores
/// and docs/results.md published; AWRF's population the protocol's two groups, as
/// evaluated.
pub fn cost_spec(metric: Metric, ee: EeScore) -> CostSpec {
    CostSpec {
        ee,
        browse: Browse::D943B3E,
        awrf_groups: Some(PROTOCOL_GROUPS),
        ..CostSpec::new(metric, OPTIMISE_LEVELS, None)
    }
}

/// The default recipe's request (`ppg reproduce --method recipe`): the core's recommended
/// recipe with the protocol's `train` (learning rate, steps) and `initial_weight`.
pub fn recipe_request(
    metric: Metric,
    ee: EeScore,
    sessions: usize,
    seed: u64,
    train: TrainConfig,
    initial_weight: f32,
) -> RerankSpec {
    let recommended = Recipe::recommended();
    let recipe = Recipe {
        train: TrainConfig {
            score_input: recommended.train.score_input,
            grow: recommended.train.grow,
            certify: recommended.train.certify,
            ..train
        },
        initial_weight,
        ..recommended
    };
    RerankSpec {
        cost: cost_spec(metric, ee),
        recipe,
        sessions,
        seed,
        method: rerank_query::Method::Ppg,
        // The protocol's, as its tables are laid out.
        rank_start: RankStart::One,
        attributes: None,
    }
}

/// The exact optimum of `metric` over `sessions` rankings of the list with true `label`s
/// and `group`s (two): the evaluation's value at the optimum (a proven lower bound where
/// the search was cut) with the NDCG@10 of one optimal multi-session ranking; that
/// ranking; and whether the value is exact.
///
/// # Errors
/// The metric's refusal of the list (an invalid query has no optimum either), and every
/// metric but the two-group DTR and EEL.
pub fn optimum(
    metric: Metric,
    label: &[f64],
    group: &[u8],
    sessions: usize,
    tables: &Tables,
) -> Result<(Eval, Vec<u16>, bool), String> {
    let n = label.len();
    let shape = match metric {
        Metric::Dtr => {
            let mut utility = [0.0; 2];
            for (&l, &g) in label.iter().zip(group) {
                utility[usize::from(g != 0)] += l;
            }
            Shape::Dtr { utility }
        }
        Metric::Eel => {
            let eel = ppg_core::objective::Eel::new(label, group, 2, &tables.exposure)
                .map_err(|e| e.to_string())?;
            match *eel.targets() {
                [t0, t1] => Shape::Eel { target: [t0, t1] },
                _ => return Err("the bound compares exactly two groups".into()),
            }
        }
        Metric::Ee | Metric::Awrf | Metric::Awrf2022 => {
            return Err(format!("no exact optimum of {} here", metric.name()))
        }
    };
    let group0 = group.iter().filter(|&&g| g == 0).count();
    let (mut prefix, mut walk, mut best) = (vec![0.0; n + 1], vec![0; n], vec![0; n]);
    let counts = Counts {
        walk: &mut walk,
        best: &mut best,
    };
    let b = optimum::solve(
        shape,
        &tables.exposure[..n],
        group0,
        sessions,
        optimum::BUDGET,
        &mut prefix,
        Some(counts),
    )
    .map_err(|e| e.to_string())?;
    let (mut order, mut ranking) = (vec![0; n], vec![0; n * sessions]);
    optimum::witness(&best, group, label, sessions, &mut order, &mut ranking)
        .map_err(|e| e.to_string())?;
    let witnessed = evaluate(
        metric,
        EeScore::OFFICIAL,
        label,
        group,
        &ranking,
        sessions,
        tables,
    )
    .map_err(|e| e.to_string())?;
    let eval = Eval {
        fairness: b.lower,
        ndcg: witnessed.ndcg,
    };
    Ok((eval, ranking, b.exact))
}
