//! More sessions are never worse than fewer, on every metric (issue 36, point 0): the
//! recommended recipe (held order within groups first, grown over sessions, certified where
//! a bound exists) at 1, 2, 4, 8, 16 and 32 sessions on generated graded queries, the cost
//! at `2S` never above the cost at `S`.
//!
//! Why it holds: a grown run keeps at each count the better of its own answer and the
//! answer of half the sessions dealt out twice, and every cost here averages over sessions,
//! so the copy costs what the smaller answer cost. It failed before the held run's free part
//! was grown with it (TREC 2020, `--metric ee`: mean EE-L 0.049 at one session, 0.226 at
//! 32).
//!
//! Tolerance: the copy's cost is the same number summed in another order, so `cost(2S) <=
//! cost(S) (1 + 1e-12) + 1e-14`: 1e-12 relative, and 1e-14 absolute (45 units in the last
//! place of 1) for the costs of the form `1 - x` or `x - 1` near 0 (AWRF's `1 - AWRF x
//! NDCG`, DTR's ratio - 1), whose rounding is that of `x`, a number near 1 summed over up
//! to 32 sessions (1.1e-16 seen on AWRF, 1.3e-15 on DTR, TREC 2020). Where certified, the
//! certificate's tolerance (see [`assert_never_worse`]).

mod support;

use ppg_core::objective::{exposure, Awrf, RankStart};
use ppg_core::recipe::CERTIFY_TOLERANCE;
use ppg_core::recipe::{cost, ranking_by, CostSpec, Metric, Query, Tables, Workspace};
use ppg_core::{Dims, Objective, Ppg, Recipe};
use support::{graded_query, memory, TestRng};

const SESSIONS: [usize; 6] = [1, 2, 4, 8, 16, 32];
const MOST_ITEMS: usize = 16;

fn no_worse(after: f64, before: f64) -> bool {
    after <= before * (1.0 + 1e-12) + 1e-14
}

/// A cost and whether the recipe certified it.
type Cost = (f64, bool);

/// The query's generated lists: 6 queries of 6 to 16 items, seed `seed`.
fn queries(seed: u64) -> Vec<(Vec<f64>, Vec<f64>, Vec<u8>)> {
    let mut rng = TestRng(seed);
    (0..6).map(|k| graded_query(&mut rng, 6 + 2 * k)).collect()
}

/// The recipe's cost of the query at each session count, through `Ppg::rerank`, and
/// whether it was certified.
fn costs_over_sessions(
    engine: &mut Ppg,
    spec: &CostSpec,
    query: &(Vec<f64>, Vec<f64>, Vec<u8>),
) -> Vec<Cost> {
    let (score, label, group) = query;
    let n = score.len();
    let (mut e, mut d, mut a) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    exposure::fill(RankStart::One, &mut e);
    exposure::fill(RankStart::Zero, &mut d);
    Awrf::discount(&mut a);
    let tables = Tables {
        exposure: &e,
        discount: &d,
        attention: &a,
    };
    SESSIONS
        .iter()
        .map(|&sessions| {
            let (mut order, mut utility, mut groups) = (vec![0; n], vec![0.0; n], vec![0; n]);
            let mut scratch = vec![0.0; cost::SCRATCH_PER_ITEM * n];
            let work = Workspace {
                order: &mut order,
                utility: &mut utility,
                group: &mut groups,
                scratch: &mut scratch,
            };
            let q = Query {
                score,
                utility: label,
                group,
                sessions,
                seed: 7,
            };
            let mut out = vec![0; n * sessions];
            let outcome = engine
                .rerank(&q, spec, &tables, &Recipe::recommended(), work, &mut out)
                .unwrap();
            (outcome.after, outcome.certified)
        })
        .collect()
}

/// Asserts the costs never rise from one session count to the next; the number of
/// queries whose cost at 32 sessions is below the one at 1.
///
/// A certified cost is within the certificate's tolerance ([`CERTIFY_TOLERANCE`], 1e-8
/// absolute) of the optimum, and the optimum never rises with sessions: certified at `2S`,
/// the cost may lie above the one at `S` by that tolerance (the two-group DTR and EEL answer
/// from their optimum's rankings at the call's own count, which are within it: 4.5e-9
/// at 32 sessions against 1.3e-9 at 16 was seen).
fn assert_never_worse(tag: &str, all: &[Vec<Cost>]) -> usize {
    for (q, costs) in all.iter().enumerate() {
        for (k, pair) in costs.windows(2).enumerate() {
            let ((before, _), (after, certified)) = (pair[0], pair[1]);
            let within = certified && after <= before + CERTIFY_TOLERANCE;
            assert!(
                no_worse(after, before) || within,
                "{tag}, query {q}: {} sessions cost {after} (certified: {certified}) > {before} \
                 at {}",
                SESSIONS[k + 1],
                SESSIONS[k]
            );
        }
    }
    all.iter()
        .filter(|c| c[5].0 < c[0].0 * (1.0 - 1e-9))
        .count()
}

fn metric_case(spec: CostSpec, tag: &str, seed: u64) -> usize {
    let dims = Dims::new(MOST_ITEMS, 32, 16);
    let mut mem = memory(dims);
    let mut engine = Ppg::new(&mut mem, dims, 0).unwrap();
    let all: Vec<Vec<Cost>> = queries(seed)
        .iter()
        .map(|q| costs_over_sessions(&mut engine, &spec, q))
        .collect();
    let lower = assert_never_worse(tag, &all);
    eprintln!(
        "{tag}: lower at 32 sessions than at 1 on {lower} of {}",
        all.len()
    );
    lower
}

#[test]
fn eel_is_never_worse_with_more_sessions() {
    metric_case(CostSpec::new(Metric::Eel, 5, None), "EEL", 1);
}

#[test]
fn dtr_is_never_worse_with_more_sessions() {
    metric_case(CostSpec::new(Metric::Dtr, 5, None), "DTR", 2);
}

/// Expected exposure in TREC 2020's settings (group level, the published cascade 0.5, the
/// default; normalised EE-L):
/// the metric the held run's ungrown free part lost on. Several sessions are what it is
/// for (a stochastic ranking), so the cost also falls from 1 to 32 sessions on most lists.
#[test]
fn expected_exposure_is_never_worse_with_more_sessions() {
    let lower = metric_case(CostSpec::new(Metric::Ee, 5, None), "EE-L", 3);
    // These seeds: lower on 5 of 6; asserted on half, so that growth doing nothing fails.
    assert!(lower >= 3, "{lower} of 6");
}

#[test]
fn awrf_is_never_worse_with_more_sessions() {
    metric_case(CostSpec::new(Metric::Awrf, 5, None), "AWRF", 4);
}

#[test]
fn mixes_are_never_worse_with_more_sessions() {
    metric_case(
        CostSpec::new(Metric::Ee, 5, Some((1.0, 10))),
        "EE-L + NDCG",
        5,
    );
    metric_case(
        CostSpec::new(Metric::Dtr, 5, Some((0.5, 10))),
        "DTR + NDCG",
        6,
    );
}

/// A cost the engine knows nothing of (no bound, no optimum), written out here: item-level
/// expected exposure loss under the log discount, `sum_i (e_i - t_i)^2`, `e_i` item `i`'s
/// exposure `1 / log2(rank + 2)` averaged over sessions and `t_i` the mean exposure of the
/// positions its label's level holds when the list is sorted by label. Items of one label
/// share their target, which only several sessions can give them.
fn black_box(label: &[f64]) -> impl FnMut(&[u16], usize) -> f64 + '_ {
    let n = label.len();
    let exposure = |r: usize| 1.0 / ((r + 2) as f64).log2();
    let target: Vec<f64> = label
        .iter()
        .map(|&y| {
            let above = label.iter().filter(|&&z| z > y).count();
            let level = label.iter().filter(|&&z| z == y).count();
            (above..above + level).map(exposure).sum::<f64>() / level as f64
        })
        .collect();
    let mut mean = vec![0.0; n];
    move |ranking: &[u16], sessions: usize| {
        mean.fill(0.0);
        for block in ranking.chunks_exact(n) {
            for (r, &item) in block.iter().enumerate() {
                mean[usize::from(item)] += exposure(r);
            }
        }
        let s = sessions as f64;
        mean.iter()
            .zip(&target)
            .map(|(e, t)| (e / s - t).powi(2))
            .sum()
    }
}

/// The recipe's training (`Ppg::rerank`'s steps: starting order by score, the order within
/// groups held first, grown, certified where a bound exists) on a black-box cost.
#[test]
fn a_black_box_cost_is_never_worse_with_more_sessions() {
    let dims = Dims::new(MOST_ITEMS, 32, 16);
    let mut mem = memory(dims);
    let mut engine = Ppg::new(&mut mem, dims, 0).unwrap();
    let recipe = Recipe::recommended();
    let mut all = Vec::new();
    for (score, label, group) in queries(8) {
        let n = score.len();
        let mut order = vec![0; n];
        ranking_by(&score, &mut order).unwrap();
        let label: Vec<f64> = order.iter().map(|&r| label[usize::from(r)]).collect();
        let group: Vec<u8> = order.iter().map(|&r| group[usize::from(r)]).collect();
        let costs: Vec<Cost> = SESSIONS
            .iter()
            .map(|&sessions| {
                let mut cost = black_box(&label);
                engine.reseed(7);
                engine.start(n, sessions, recipe.initial_weight).unwrap();
                engine.hold_order_within(&group).unwrap();
                let report = engine.train_from_optimum(&mut cost, &recipe.train).unwrap();
                let (best, best_cost) = engine.best().unwrap();
                assert_eq!(report.best_cost, best_cost);
                (cost.cost(best, sessions), false)
            })
            .collect();
        all.push(costs);
    }
    let lower = assert_never_worse("black box", &all);
    eprintln!(
        "black box: lower at 32 sessions than at 1 on {lower} of {}",
        all.len()
    );
    // These seeds: lower on 3 of 6; asserted on 2, so that growth doing nothing fails.
    assert!(lower >= 2, "{lower} of 6");
}
