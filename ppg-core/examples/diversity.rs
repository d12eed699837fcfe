//! A permutation problem that is not fairness: search-result diversification.
//!
//! Each query has 20 documents and 6 subtopics. A document covers a subtopic or not (the
//! judgements, `J`); a system sees only a noisy estimate `p` of each coverage (a subtopic
//! classifier). The input ranking is by estimated relevance alone (the number of
//! subtopics a document is likely to cover), which stacks near-duplicates of the popular
//! subtopic at the top. Two re-rankers see the same `p`:
//!
//! - greedy (xQuAD-style, Santos et al. 2010, with uniform subtopic weights): at each rank
//!   the document with the largest expected alpha-DCG gain given the ones above;
//! - PPG search, with the expected alpha-NDCG@10 under `p` as a black-box cost (the engine
//!   knows nothing of it): the reference recipe with 200 epochs, no early stop, the input
//!   scored first.
//!
//! A fourth row starts PPG from the greedy ranking instead of the input (a black-box
//! refinement of the heuristic; with the input scored first it is never worse than greedy
//! on the cost). All are scored on the judgements with alpha-NDCG@10 (Clarke et al. 2008, alpha 0.5,
//! the ideal ranking built greedily, as the usual evaluation tools do). Fixed seeds: the
//! output is the same on every run. docs/diversity.md shows it and what it means.
//!
//! `cargo run --release -p ppg-core --example diversity`
//!
//! `ppg-core/tests/diversity.rs` runs [`run`] and holds docs/diversity.md's figures to its
//! output, so the page cannot drift from the program.

use ppg_core::{Dims, Ppg, Rng, TrainConfig};

const QUERIES: usize = 100;
const ITEMS: usize = 20;
const TOPICS: usize = 6;
const CUTOFF: usize = 10;
const ALPHA: f64 = 0.5;

struct Query {
    /// `judged[d][t]`: document `d` covers subtopic `t`.
    judged: Vec<[bool; TOPICS]>,
    /// `p[d][t]`: the system's estimate of that coverage.
    p: Vec<[f64; TOPICS]>,
}

fn generate(rng: &mut Rng) -> Query {
    // Popularity of the subtopics: the first few dominate.
    let weight: [f64; TOPICS] = core::array::from_fn(|t| 0.5f64.powi(t as i32));
    let total: f64 = weight.iter().sum();
    let mut judged = Vec::new();
    let mut p = Vec::new();
    for _ in 0..ITEMS {
        let mut covers = [false; TOPICS];
        let mut u = rng.unit_f64() * total;
        let main = weight.iter().position(|&w| {
            u -= w;
            u < 0.0
        });
        covers[main.unwrap_or(TOPICS - 1)] = true;
        for c in covers.iter_mut() {
            if rng.unit_f64() < 0.12 {
                *c = true;
            }
        }
        // The estimate: the truth blurred by noise of spread 0.25, clamped into
        // [0.02, 0.98].
        let estimate = core::array::from_fn(|t| {
            let noise = (rng.unit_f64() + rng.unit_f64() - 1.0) * 0.25;
            (if covers[t] { 0.85 } else { 0.1 } + noise).clamp(0.02, 0.98)
        });
        judged.push(covers);
        p.push(estimate);
    }
    Query { judged, p }
}

/// `1 / log2(k + 2)` for 0-based rank `k`.
fn discount(k: usize) -> f64 {
    1.0 / ((k + 2) as f64).log2()
}

/// Expected alpha-DCG@10 of `ranking` when document `d` covers `t` with probability
/// `cover(d, t)`, independently: the gain of rank `k` is
/// `sum_t cover(d_k, t) prod_{j<k} (1 - alpha cover(d_j, t))`. With 0/1 coverage it is
/// alpha-DCG itself.
fn alpha_dcg(ranking: &[u16], cover: &dyn Fn(usize, usize) -> f64) -> f64 {
    let mut novelty = [1.0f64; TOPICS];
    let mut dcg = 0.0;
    for (k, &d) in ranking.iter().take(CUTOFF).enumerate() {
        let d = usize::from(d);
        let mut gain = 0.0;
        for (t, n) in novelty.iter_mut().enumerate() {
            gain += cover(d, t) * *n;
            *n *= 1.0 - ALPHA * cover(d, t);
        }
        dcg += gain * discount(k);
    }
    dcg
}

/// The greedy ranking: at each rank the document of largest expected gain (ties: the
/// earlier input position), then the rest in input order.
fn greedy(input: &[u16], cover: &dyn Fn(usize, usize) -> f64) -> Vec<u16> {
    let mut left: Vec<u16> = input.to_vec();
    let mut out = Vec::new();
    let mut novelty = [1.0f64; TOPICS];
    while !left.is_empty() && out.len() < CUTOFF {
        let gain = |d: u16| -> f64 {
            (0..TOPICS)
                .map(|t| cover(usize::from(d), t) * novelty[t])
                .sum()
        };
        let mut best = 0;
        for k in 1..left.len() {
            if gain(left[k]) > gain(left[best]) {
                best = k;
            }
        }
        let d = left.remove(best);
        for (t, n) in novelty.iter_mut().enumerate() {
            *n *= 1.0 - ALPHA * cover(usize::from(d), t);
        }
        out.push(d);
    }
    out.extend(left);
    out
}

/// What [`run`] measured: per ranking (input, greedy, PPG from the input, PPG from greedy)
/// the mean alpha-NDCG@10 on the judgements and the mean expected alpha-NDCG@10 under the
/// estimates; PPG from the input and from greedy against greedy on the judgements (queries
/// better, worse); rankings PPG scored, both searches of every query.
pub struct Summary {
    pub judged: [f64; 4],
    pub expected: [f64; 4],
    pub against: [[usize; 2]; 2],
    pub samples: u64,
}

/// The experiment: 100 generated queries, each ranked four ways.
pub fn run() -> Summary {
    let mut data = Rng::new(2024);
    let dims = Dims::new(ITEMS, 1, 16);
    let mut mem = vec![0u8; Ppg::bytes(dims)];
    let mut ppg = Ppg::new(&mut mem, dims, 7).expect("engine");
    // The reference recipe, four times the epochs and no early stop (a list of 20 has 20!
    // orders): 3,200 samples a search; the input scored first, so that the output is
    // never worse than it on the cost.
    let config = TrainConfig {
        score_input: true,
        epochs: 200,
        patience: 0,
        ..TrainConfig::default()
    };
    let (mut judged_sum, mut expected_sum) = ([0.0f64; 4], [0.0f64; 4]);
    let mut against = [[0usize; 2]; 2];
    let mut samples = 0u64;
    for _ in 0..QUERIES {
        let q = generate(&mut data);
        let truth = |d: usize, t: usize| f64::from(u8::from(q.judged[d][t]));
        let estimate = |d: usize, t: usize| q.p[d][t];
        // The input: by estimated relevance, the expected number of subtopics covered.
        let mut input: Vec<u16> = (0..ITEMS as u16).collect();
        let relevance = |d: u16| q.p[usize::from(d)].iter().sum::<f64>();
        input.sort_by(|&a, &b| relevance(b).total_cmp(&relevance(a)));
        let ideal_truth = alpha_dcg(&greedy(&input, &truth), &truth);
        let ideal_estimate = alpha_dcg(&greedy(&input, &estimate), &estimate);

        // PPG from a starting list: item k of the engine is start[k].
        let mut search = |start: &[u16]| -> Vec<u16> {
            let as_docs = |ranking: &[u16]| -> Vec<u16> {
                ranking.iter().map(|&k| start[usize::from(k)]).collect()
            };
            let mut cost = |ranking: &[u16], _: usize| {
                1.0 - alpha_dcg(&as_docs(ranking), &estimate) / ideal_estimate
            };
            ppg.start(ITEMS, 1, 0.5).expect("start");
            samples += u64::from(ppg.train(&mut cost, &config).expect("train").samples);
            as_docs(ppg.best().expect("scored").0)
        };
        let by_greedy = greedy(&input, &estimate);
        let rankings = [
            input.clone(),
            by_greedy.clone(),
            search(&input),
            search(&by_greedy),
        ];
        let mut on_truth = [0.0; 4];
        for (k, r) in rankings.iter().enumerate() {
            on_truth[k] = alpha_dcg(r, &truth) / ideal_truth;
            judged_sum[k] += on_truth[k];
            expected_sum[k] += alpha_dcg(r, &estimate) / ideal_estimate;
        }
        for (row, k) in against.iter_mut().zip([2, 3]) {
            if on_truth[k] > on_truth[1] + 1e-12 {
                row[0] += 1;
            } else if on_truth[k] < on_truth[1] - 1e-12 {
                row[1] += 1;
            }
        }
    }
    let n = QUERIES as f64;
    Summary {
        judged: judged_sum.map(|x| x / n),
        expected: expected_sum.map(|x| x / n),
        against,
        samples,
    }
}

impl std::fmt::Display for Summary {
    /// The table docs/diversity.md quotes.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{QUERIES} queries of {ITEMS} documents, {TOPICS} subtopics, alpha {ALPHA}, cutoff {CUTOFF}"
        )?;
        writeln!(
            f,
            "ranking       alpha-NDCG@10 (judgements)   expected alpha-NDCG@10 (estimates)"
        )?;
        for (k, name) in ["input", "greedy", "ppg", "greedy + ppg"]
            .iter()
            .enumerate()
        {
            writeln!(
                f,
                "{name:<13} {:>26.4}   {:>34.4}",
                self.judged[k], self.expected[k]
            )?;
        }
        writeln!(
            f,
            "ppg scored {:.0} rankings a search on average",
            self.samples as f64 / (2.0 * QUERIES as f64)
        )?;
        for (row, name) in self.against.iter().zip(["ppg", "greedy + ppg"]) {
            writeln!(
                f,
                "{name} against greedy on the judgements: better on {} queries, worse on {}, equal on {}",
                row[0],
                row[1],
                QUERIES - row[0] - row[1]
            )?;
        }
        Ok(())
    }
}

fn main() {
    print!("{}", run());
}
