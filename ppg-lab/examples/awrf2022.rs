//! TREC 2022's AWRF on generated queries (`ppg_lab::shapes_attributes`): the cost of one
//! evaluation against TREC 2021's AWRF on the same lists, per list length, and whether
//! optimising it lowers 1 - NDCG x AWRF-2022 against the input ranking on every query.
//!
//! `cargo run --release -p ppg-lab --example awrf2022 -- [QUERIES] [SEED] [eval] [SIZE...]`
//!
//! Each metric scores the same [`RANKINGS`] random permutations of each list (the optimiser
//! scores a new sample each time, not one ranking over and over), in `evaluate_2022` and
//! `evaluate_2021`, kept out of line so that `valgrind --tool=callgrind` counts each
//! one's instructions apart (inclusive cost of the two functions). `eval` skips the
//! re-ranking; the sizes default to 20, 50 and 100.

use std::io::Cursor;
use std::sync::Arc;
use std::time::Instant;

use ppg_core::objective::RankStart;
use ppg_core::{Objective, Recipe, Rng};
use ppg_host::attributes::{AttributeSpec, AttributeTable, TargetSpec, Unknown};
use ppg_host::cost::{CostSpec, Metric};
use ppg_host::rerank_attributes::{self as attributes, QueryAttributes, Scratch};
use ppg_host::rerank_query::{Method, RerankSpec, Reranker, Rows};
use ppg_lab::shapes_attributes::{generate, LEVELS};

/// The random permutations each metric scores per list.
const RANKINGS: usize = 500;

#[inline(never)]
fn evaluate_2022(m: &mut impl Objective, rankings: &[Vec<u16>]) -> f64 {
    rankings.iter().map(|r| m.cost(r, 1)).sum()
}

#[inline(never)]
fn evaluate_2021(m: &mut impl Objective, rankings: &[Vec<u16>]) -> f64 {
    rankings.iter().map(|r| m.cost(r, 1)).sum()
}

/// `count` random permutations of `0..n` (Fisher-Yates on the core's generator).
fn permutations(n: usize, count: usize, seed: u64) -> Vec<Vec<u16>> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let mut r: Vec<u16> = (0..n as u16).collect();
            for i in (1..n).rev() {
                let j = ((rng.unit_f64() * (i + 1) as f64) as usize).min(i);
                r.swap(i, j);
            }
            r
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let queries: usize = args.get(1).map_or(20, |a| a.parse().expect("QUERIES"));
    let seed: u64 = args.get(2).map_or(7, |a| a.parse().expect("SEED"));
    let eval_only = args.get(3).is_some_and(|a| a == "eval");
    let sizes: Vec<usize> = args
        .iter()
        .skip(4)
        .map(|a| a.parse().expect("SIZE"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![20, 50, 100]
    } else {
        sizes
    };
    let spec = RerankSpec {
        cost: CostSpec::new(Metric::Awrf2022, 5, None),
        recipe: Recipe::recommended(),
        sessions: 1,
        seed,
        method: Method::Ppg,
        rank_start: RankStart::One,
        attributes: None,
    };
    let old_spec = RerankSpec {
        cost: CostSpec::new(Metric::Awrf, 5, None),
        ..spec.clone()
    };
    let reranker = Reranker::new(spec.clone(), 100);
    let old_reranker = Reranker::new(old_spec, 100);
    let (mut r2022, mut r2021) = (0.0, 0.0);
    let attention = reranker.tables().attention.clone();
    let (mut lowered, mut total) = (0, 0);
    for &n in &sizes {
        let (mut t2022, mut t2021, mut evals) = (0.0, 0.0, 0usize);
        for (qi, q) in generate(n, queries, seed ^ n as u64).iter().enumerate() {
            let table = AttributeTable::read(Cursor::new(q.table.join("\n"))).expect("table");
            // Backgrounds on the first three attributes, uniform over their levels.
            let bg: Vec<Vec<f64>> = (0..table.names.len())
                .map(|a| {
                    if a < 3 {
                        vec![1.0; table.levels[a].len()]
                    } else {
                        Vec::new()
                    }
                })
                .collect();
            let policy = vec![Unknown::Level; table.names.len()];
            let spec =
                Arc::new(AttributeSpec::new(table, policy, TargetSpec::Trec(bg)).expect("spec"));
            let items: Vec<&str> = q.items.iter().map(String::as_str).collect();
            // The cost of one evaluation, against TREC 2021's on the same list (groups: the
            // first attribute's levels, as hard groups).
            let qa = QueryAttributes::build(&spec, &items).expect("rows");
            let mut scratch = Scratch::default();
            let mut m =
                attributes::metric(&qa, &q.utility, &attention, &mut scratch).expect("metric");
            let group: Vec<u8> = (0..n).map(|i| (i % LEVELS[0]) as u8).collect();
            let mut old =
                ppg_core::recipe::cost::awrf(&q.utility, &group, &attention, None).expect("awrf");
            let rankings = permutations(n, RANKINGS, seed ^ qi as u64);
            let start = Instant::now();
            let sink = evaluate_2022(&mut m, &rankings);
            t2022 += start.elapsed().as_secs_f64();
            let start = Instant::now();
            let sink = sink + evaluate_2021(&mut old, &rankings);
            t2021 += start.elapsed().as_secs_f64();
            evals += RANKINGS;
            assert!(sink.is_finite());
            if eval_only {
                continue;
            }
            let rows = Rows {
                score: &q.score,
                utility: &q.utility,
                group: &group,
            };
            // The query's own attributes ride in the request, as `--attributes` does.
            let own = Reranker::new(
                RerankSpec {
                    attributes: Some(spec),
                    ..reranker.spec().clone()
                },
                n,
            );
            let start = Instant::now();
            let r =
                ppg_host::rerank_attributes::rerank_alone(&own, &rows, &items, reranker.seed(qi))
                    .expect("rerank");
            r2022 += start.elapsed().as_secs_f64();
            let start = Instant::now();
            old_reranker
                .rerank_alone(&rows, reranker.seed(qi))
                .expect("rerank 2021");
            r2021 += start.elapsed().as_secs_f64();
            total += 1;
            lowered += usize::from(r.after < r.before);
            if r.after >= r.before {
                println!(
                    "n {n} query {qi}: not lowered, {:.6} -> {:.6}",
                    r.before, r.after
                );
            }
        }
        println!(
            "{n} items, per evaluation: AWRF-2022 {:.2} us, AWRF-2021 {:.2} us, ratio {:.2} ({evals} evaluations each, {} attributes of {:?} levels)",
            t2022 / evals as f64 * 1e6,
            t2021 / evals as f64 * 1e6,
            t2022 / t2021,
            LEVELS.len(),
            LEVELS
        );
    }
    if eval_only {
        return;
    }
    println!(
        "per query re-ranked (the recommended recipe, 1 session): AWRF-2022 {:.2} ms, AWRF-2021 {:.2} ms, ratio {:.2}",
        r2022 / total as f64 * 1e3,
        r2021 / total as f64 * 1e3,
        r2022 / r2021
    );
    println!("optimising lowered 1 - NDCG x AWRF-2022 on {lowered} of {total} queries");
}
