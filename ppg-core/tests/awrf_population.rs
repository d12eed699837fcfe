//! AWRF's population is the attribute's groups, not the query's (issue 38, point 8): a
//! query lacking some of the input's groups is scored and optimised as TREC 2021's scorer
//! scores it, checked against a plain computation of that scorer's formula written out here
//! (`fair-trec/trec2021-fair-public`, `metrics.py`: `qtarget = (qalign + world_pop) * 0.5`
//! over every region, `qr_awrf`, `qr_ndcg`), with a uniform population over the groups.

mod support;

use ppg_core::objective::{exposure, Awrf, RankStart};
use ppg_core::recipe::{CostSpec, Metric, Outcome, Query, Tables, Workspace};
use ppg_core::{Dims, Ppg, Recipe};
use support::memory;

/// TREC 2021's score (AWRF x NDCG) of `rankings` (`sessions` blocks of row ids), the mean
/// over sessions, with the population uniform over `groups` groups: written from the
/// scorer's formula, sharing nothing with the crate.
fn trec_score(label: &[f64], group: &[u8], groups: usize, rankings: &[u16]) -> f64 {
    let n = label.len();
    let attention = |r: usize| 1.0 / ((r + 1).max(2) as f64).log2(); // r from 0
    let relevant: Vec<usize> = (0..n).filter(|&i| label[i] > 0.0).collect();
    let mut target = vec![0.0; groups];
    for &i in &relevant {
        target[usize::from(group[i])] += 1.0 / relevant.len() as f64;
    }
    for t in &mut target {
        *t = (*t + 1.0 / groups as f64) * 0.5;
    }
    let ideal: f64 = (0..relevant.len()).map(attention).sum();
    let sessions = rankings.len() / n;
    let mut total = 0.0;
    for block in rankings.chunks_exact(n) {
        let mut dist = vec![0.0; groups];
        let mut dcg = 0.0;
        for (r, &row) in block.iter().enumerate() {
            let row = usize::from(row);
            dist[usize::from(group[row])] += attention(r);
            if label[row] > 0.0 {
                dcg += attention(r);
            }
        }
        let all: f64 = dist.iter().sum();
        let kl = |p: &[f64], m: &[f64]| -> f64 {
            p.iter()
                .zip(m)
                .filter(|&(&a, _)| a > 0.0)
                .map(|(&a, &b)| a * (a / b).ln())
                .sum()
        };
        let p: Vec<f64> = dist.iter().map(|d| d / all).collect();
        let m: Vec<f64> = p.iter().zip(&target).map(|(a, b)| 0.5 * (a + b)).collect();
        let js = 0.5 * (kl(&p, &m) + kl(&target, &m));
        total += (1.0 - js) * (dcg / ideal);
    }
    total / sessions as f64
}

/// `Ppg::rerank` of one query under `--metric awrf` with the population `groups`.
fn rerank(
    score: &[f64],
    label: &[f64],
    group: &[u8],
    sessions: usize,
    groups: Option<usize>,
) -> (Outcome, Vec<u16>) {
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
    let (mut order, mut utility, mut g) = (vec![0; n], vec![0.0; n], vec![0; n]);
    let work = Workspace {
        order: &mut order,
        utility: &mut utility,
        group: &mut g,
        scratch: &mut [],
    };
    let spec = CostSpec {
        awrf_groups: groups,
        ..CostSpec::new(Metric::Awrf, 5, None)
    };
    let dims = Dims::new(n, sessions, 16);
    let mut mem = memory(dims);
    let mut engine = Ppg::new(&mut mem, dims, 0).unwrap();
    let q = Query {
        score,
        utility: label,
        group,
        sessions,
        seed: 3,
    };
    let mut out = vec![0; n * sessions];
    let outcome = engine
        .rerank(&q, &spec, &tables, &Recipe::recommended(), work, &mut out)
        .unwrap();
    (outcome, out)
}

/// The input ranking of `score` (descending, no ties here), `sessions` times.
fn input(score: &[f64], sessions: usize) -> Vec<u16> {
    let mut rows: Vec<u16> = (0..score.len() as u16).collect();
    rows.sort_by(|&a, &b| score[usize::from(b)].total_cmp(&score[usize::from(a)]));
    rows.repeat(sessions)
}

/// Queries of a three-group attribute that lack group 1, hold one group only, or hold all
/// three; the cost before and after (`1 - AWRF x NDCG`) is TREC's to 1e-12 whatever ids the
/// door gave the groups present, and optimising never lowers TREC's score.
#[test]
fn the_population_is_the_attributes_groups_as_trec_scores() {
    let score = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2];
    let label = [1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0];
    let cases: [[u8; 8]; 4] = [
        [0, 0, 2, 0, 2, 2, 0, 0], // group 1 missing
        [2, 2, 0, 2, 0, 0, 2, 2], // the same with the two ids swapped
        [1, 1, 1, 1, 1, 1, 1, 1], // one group
        [0, 1, 2, 0, 1, 2, 0, 1], // all three
    ];
    let mut apart = 0;
    for group in cases {
        for sessions in [1, 4] {
            let tag = format!("{group:?}, {sessions} sessions");
            let (outcome, out) = rerank(&score, &label, &group, sessions, Some(3));
            let before = trec_score(&label, &group, 3, &input(&score, sessions));
            let after = trec_score(&label, &group, 3, &out);
            assert!(
                (outcome.before - (1.0 - before)).abs() < 1e-12,
                "{tag}: {outcome:?}"
            );
            assert!(
                (outcome.after - (1.0 - after)).abs() < 1e-12,
                "{tag}: {outcome:?}"
            );
            assert!(
                after >= before - 1e-12,
                "{tag}: TREC's score {before} -> {after}"
            );
            // Over the groups present only (the old population), the input's cost differs
            // from TREC's wherever a group is missing.
            let (present, _) = rerank(&score, &label, &group, sessions, None);
            apart += usize::from((present.before - outcome.before).abs() > 1e-3);
        }
    }
    // The two queries lacking group 1 and the one-group query, at both session counts.
    assert_eq!(apart, 6);
}

/// A population smaller than the query's groups, or above the capacity, is refused.
#[test]
fn a_population_short_of_the_querys_groups_is_refused() {
    let score = [0.9, 0.8, 0.7];
    let label = [1.0, 0.0, 1.0];
    let group = [0u8, 1, 2];
    let n = 3;
    let a = {
        let mut a = vec![0.0; n];
        Awrf::discount(&mut a);
        a
    };
    for groups in [2, 17, 0] {
        let spec = CostSpec {
            awrf_groups: Some(groups),
            ..CostSpec::new(Metric::Awrf, 5, None)
        };
        let tables = Tables {
            exposure: &a,
            discount: &a,
            attention: &a,
        };
        let dims = Dims::new(n, 1, 16);
        let mut mem = memory(dims);
        let mut engine = Ppg::new(&mut mem, dims, 0).unwrap();
        let (mut order, mut utility, mut g) = (vec![0; n], vec![0.0; n], vec![0; n]);
        let work = Workspace {
            order: &mut order,
            utility: &mut utility,
            group: &mut g,
            scratch: &mut [],
        };
        let q = Query {
            score: &score,
            utility: &label,
            group: &group,
            sessions: 1,
            seed: 0,
        };
        let got = engine.rerank(
            &q,
            &spec,
            &tables,
            &Recipe::recommended(),
            work,
            &mut [0; 3],
        );
        assert!(got.is_err(), "{groups} groups: {got:?}");
    }
}
