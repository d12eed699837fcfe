//! The relevance certificate (`recipe::certify_relevance`) against brute force on small
//! lists: the bound is never below the best NDCG@k among the rankings at least as fair as
//! the returned ones, and equal to it when it says it is exact.

mod support;

use ppg_core::objective::{exposure, Ndcg, Objective, RankStart};
use ppg_core::recipe::{
    certify_relevance, ranking_by, relevance, Cost, CostSpec, Metric, Query, Tables, Workspace,
};
use ppg_core::{Dims, Ppg, Recipe};
use support::{memory, TestRng};

/// Every permutation of `0..n` (Heap's algorithm).
fn permutations(n: usize) -> Vec<Vec<u16>> {
    fn heap(k: usize, a: &mut Vec<u16>, out: &mut Vec<Vec<u16>>) {
        if k == 1 {
            out.push(a.clone());
            return;
        }
        for i in 0..k {
            heap(k - 1, a, out);
            let j = if k % 2 == 0 { i } else { 0 };
            a.swap(j, k - 1);
        }
    }
    let mut out = Vec::new();
    heap(n, &mut (0..n as u16).collect(), &mut out);
    out
}

struct Case {
    bound: f64,
    exact: bool,
    achieved: f64,
    brute: f64,
}

/// Re-ranks one query with the recipe (`intra` or not) and finds, by brute force over
/// every ranking of `sessions` sessions, the best NDCG@`k` among those that cost at most
/// the level the certificate covers.
fn case(engine: &mut Ppg, q: &Query, label: &[f64], metric: Metric, intra: bool, k: usize) -> Case {
    let n = q.score.len();
    let (mut e, mut d) = (vec![0.0; n], vec![0.0; n]);
    exposure::fill(RankStart::One, &mut e);
    exposure::fill(RankStart::Zero, &mut d);
    let tables = Tables {
        exposure: &e,
        discount: &d,
        attention: &[],
    };
    let spec = CostSpec::new(metric, 5, None);
    let recipe = Recipe {
        intra,
        ..Recipe::recommended()
    };
    let (mut order, mut utility, mut group) = (vec![0; n], vec![0.0; n], vec![0; n]);
    let mut out = vec![0; n * q.sessions];
    let outcome = engine
        .rerank(
            q,
            &spec,
            &tables,
            &recipe,
            Workspace {
                order: &mut order,
                utility: &mut utility,
                group: &mut group,
                scratch: &mut [],
            },
            &mut out,
        )
        .unwrap();
    let mut scratch = vec![0.0; relevance::SCRATCH_PER_ITEM * n + relevance::SCRATCH_EXTRA];
    let r = certify_relevance(
        q,
        label,
        &spec,
        &tables,
        &recipe,
        &outcome,
        &out,
        k,
        &mut order,
        &mut group,
        &mut scratch,
    )
    .unwrap();
    // The brute force, in starting order as the cost sees it.
    ranking_by(q.score, &mut order).unwrap();
    for (p, &row) in order.iter().enumerate() {
        utility[p] = q.utility[usize::from(row)];
        group[p] = q.group[usize::from(row)];
    }
    // The recipe numbers groups by first appearance.
    if group[0] == 1 {
        group.iter_mut().for_each(|g| *g = 1 - *g);
    }
    let start_label: Vec<f64> = order.iter().map(|&row| label[usize::from(row)]).collect();
    let mut cost = Cost::new(&spec, &utility, &group, &tables, &mut []).unwrap();
    let ndcg = Ndcg::new(&start_label, k, &d).unwrap();
    let level = outcome
        .after
        .max(outcome.bound.unwrap().value + recipe.train.certify.unwrap());
    let keeps = |p: &[u16]| {
        // Under `intra`, each group's items in their starting order.
        !intra
            || (0..n).all(|a| {
                (a + 1..n).all(|b| {
                    group[a] != group[b]
                        || p.iter().position(|&x| x == a as u16)
                            < p.iter().position(|&x| x == b as u16)
                })
            })
    };
    let perms: Vec<Vec<u16>> = permutations(n).into_iter().filter(|p| keeps(p)).collect();
    let mut brute = f64::NEG_INFINITY;
    let mut ranking = vec![0u16; n * q.sessions];
    let mut index = vec![0usize; q.sessions];
    'all: loop {
        for (s, &i) in index.iter().enumerate() {
            ranking[s * n..(s + 1) * n].copy_from_slice(&perms[i]);
        }
        if cost.cost(&ranking, q.sessions) <= level {
            brute = brute.max(ndcg.value(&ranking, q.sessions));
        }
        for slot in index.iter_mut() {
            *slot += 1;
            if *slot < perms.len() {
                continue 'all;
            }
            *slot = 0;
        }
        break;
    }
    Case {
        bound: r.bound,
        exact: r.exact,
        achieved: r.ndcg,
        brute,
    }
}

#[test]
fn the_bound_is_never_below_the_best_fair_ranking_and_exact_when_it_says_so() {
    let mut rng = TestRng(36);
    let dims = Dims::new(6, 2, 16);
    let mut mem = memory(dims);
    let mut engine = Ppg::new(&mut mem, dims, 0).unwrap();
    let (mut exact, mut cases) = (0, 0);
    for c in 0..48 {
        let n = 4 + c % 3;
        let sessions = if n <= 5 { 1 + c % 2 } else { 1 };
        let score: Vec<f64> = (0..n).map(|_| rng.unit()).collect();
        // Graded labels 0-4 and two groups both present with utility.
        let label: Vec<f64> = (0..n).map(|_| (rng.unit() * 5.0).floor()).collect();
        let mut group: Vec<u8> = (0..n).map(|_| (rng.unit() * 2.0) as u8).collect();
        group[0] = 0;
        group[n - 1] = 1;
        if label.iter().zip(&group).all(|(&l, &g)| g == 0 || l == 0.0)
            || label.iter().zip(&group).all(|(&l, &g)| g == 1 || l == 0.0)
        {
            continue;
        }
        let q = Query {
            score: &score,
            utility: &label,
            group: &group,
            sessions,
            seed: c as u64,
        };
        let metric = if c % 4 < 2 { Metric::Dtr } else { Metric::Eel };
        let intra = c % 5 == 0;
        let k = 2 + c % 4;
        let r = case(&mut engine, &q, &label, metric, intra, k);
        cases += 1;
        assert!(
            r.brute > f64::NEG_INFINITY,
            "case {c}: the returned ranking is fair"
        );
        assert!(r.achieved <= r.brute + 1e-12, "case {c}");
        assert!(
            r.bound >= r.brute - 1e-12,
            "case {c}: bound {} below {}",
            r.bound,
            r.brute
        );
        if r.exact {
            exact += 1;
            assert!(
                (r.bound - r.brute).abs() < 1e-9,
                "case {c}: {} vs {}",
                r.bound,
                r.brute
            );
        }
    }
    // Exact on most of them (one session: the walk; more: the dual where the mix is
    // reachable): 33 of 45 with this seed.
    assert!(cases >= 30, "{cases}");
    assert!(exact >= cases / 2, "{exact} of {cases}");
}

/// Issue 36's case: a query (graded labels, the input by a noisy model score) whose search
/// finds, at one session, an EEL optimum less relevant than another optimum. The recipe
/// returns the other: as fair (within the tolerance) and more relevant.
#[test]
fn the_first_optimum_found_is_not_the_most_relevant_and_the_recipe_returns_the_other() {
    // In starting order (score descending); `tests/doors/rows.tsv`'s query f.
    let score = [3.58, 3.30, 2.54, 2.52, 2.00, 1.64, 0.98, 0.91, -0.16, -0.55];
    let label = [4.0, 4.0, 1.0, 2.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let group = [1, 1, 1, 0, 1, 1, 1, 1, 1, 1];
    let n = score.len();
    let (mut e, mut d) = (vec![0.0; n], vec![0.0; n]);
    exposure::fill(RankStart::One, &mut e);
    exposure::fill(RankStart::Zero, &mut d);
    let tables = Tables {
        exposure: &e,
        discount: &d,
        attention: &[],
    };
    let spec = CostSpec::new(Metric::Eel, 5, None);
    let dims = Dims::new(n, 1, 16);
    let mut mem = memory(dims);
    let mut engine = Ppg::new(&mut mem, dims, 0).unwrap();
    let q = Query {
        score: &score,
        utility: &label,
        group: &group,
        sessions: 1,
        seed: 11,
    };
    let (mut order, mut utility, mut g) = (vec![0; n], vec![0.0; n], vec![0; n]);
    let mut out = vec![0; n];
    let outcome = engine
        .rerank(
            &q,
            &spec,
            &tables,
            &Recipe::recommended(),
            Workspace {
                order: &mut order,
                utility: &mut utility,
                group: &mut g,
                scratch: &mut [],
            },
            &mut out,
        )
        .unwrap();
    assert!(outcome.certified);
    // The search's first optimum keeps the input (the lone item of its group at position 3);
    // the recipe's puts the other group's label-2 item above its label-1 one, same pattern.
    let first: Vec<u16> = (0..n as u16).collect();
    assert_eq!(out, [0, 1, 4, 3, 2, 5, 6, 7, 8, 9]);
    let mut cost = Cost::new(&spec, &label, &group, &tables, &mut []).unwrap();
    let bound = outcome.bound.unwrap().value;
    for r in [&first, &out] {
        assert!(cost.cost(r, 1) <= bound + 1e-8, "{r:?}");
    }
    let ndcg = Ndcg::new(&label, 10, &d).unwrap();
    assert!(ndcg.value(&out, 1) > ndcg.value(&first, 1) + 1e-3);
}

/// At two and three sessions (the fair set a window of group 0's exposure summed over the
/// sessions, issue 36 point 1 at several sessions): the bound never below the best fair
/// NDCG found by brute force, equal to it where it says exact (then the recipe's answer is
/// the best fair one), and the recipe's answer fair.
#[test]
fn at_two_and_three_sessions_the_bound_holds_and_the_answer_is_fair() {
    let mut rng = TestRng(3602);
    let dims = Dims::new(5, 3, 16);
    let mut mem = memory(dims);
    let mut engine = Ppg::new(&mut mem, dims, 0).unwrap();
    let (mut exact, mut cases) = (0, 0);
    for c in 0..24 {
        let (n, sessions) = if c % 2 == 0 { (4, 3) } else { (5, 2) };
        let score: Vec<f64> = (0..n).map(|_| rng.unit()).collect();
        // Continuous utilities for half, graded labels for the rest.
        let label: Vec<f64> = (0..n)
            .map(|_| {
                let u = rng.unit();
                if c % 4 < 2 {
                    (u * 5.0).floor()
                } else {
                    u
                }
            })
            .collect();
        let mut group: Vec<u8> = (0..n).map(|_| (rng.unit() * 2.0) as u8).collect();
        group[0] = 0;
        group[n - 1] = 1;
        if label.iter().zip(&group).all(|(&l, &g)| g == 0 || l == 0.0)
            || label.iter().zip(&group).all(|(&l, &g)| g == 1 || l == 0.0)
        {
            continue;
        }
        let q = Query {
            score: &score,
            utility: &label,
            group: &group,
            sessions,
            seed: c as u64,
        };
        let metric = if c % 3 == 0 { Metric::Eel } else { Metric::Dtr };
        let intra = c % 5 == 0;
        let r = case(&mut engine, &q, &label, metric, intra, 10);
        cases += 1;
        assert!(r.brute > f64::NEG_INFINITY, "case {c}: the answer is fair");
        assert!(r.achieved <= r.brute + 1e-12, "case {c}");
        assert!(
            r.bound >= r.brute - 1e-12,
            "case {c}: {} < {}",
            r.bound,
            r.brute
        );
        if r.exact {
            exact += 1;
            assert!((r.bound - r.brute).abs() < 1e-9, "case {c}");
        }
    }
    assert!(cases >= 18, "{cases}");
    assert!(exact >= cases / 3, "{exact} of {cases}");
}

/// A query of `shapes scores 2 20 600 9` (q19), EEL at four sessions: the search's answer
/// (main at 414cc8c returned it) is certified and fair, and the recipe now returns another
/// ranking as fair (within the tolerance) and more relevant by more than 0.02 NDCG@10.
#[test]
fn at_four_sessions_the_recipe_returns_a_more_relevant_ranking_as_fair_as_the_first() {
    let score = [
        0.046235, 0.463077, 0.525609, 0.665003, 0.967068, 0.212084, 0.803762, 0.583508, 0.319384,
        0.773765, 0.706173, 0.547007, 0.064053, 0.734140, 0.775124, 0.433946, 0.707473, 0.822545,
        0.228487, 0.508872,
    ];
    let group = [0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0];
    // Rows by session, as main's `ppg rerank --metric eel --sessions 4` wrote them.
    let first: [u16; 80] = [
        4, 17, 6, 14, 9, 16, 10, 3, 13, 11, 2, 19, 15, 7, 1, 8, 5, 0, 18, 12, 6, 4, 17, 14, 9, 16,
        10, 3, 13, 11, 2, 19, 15, 7, 1, 8, 5, 0, 18, 12, 6, 4, 17, 14, 9, 16, 10, 3, 13, 11, 2, 19,
        15, 7, 1, 8, 5, 0, 18, 12, 6, 4, 17, 14, 9, 13, 16, 10, 3, 11, 2, 19, 7, 15, 1, 8, 18, 5,
        0, 12,
    ];
    let (n, sessions) = (score.len(), 4);
    let (mut e, mut d) = (vec![0.0; n], vec![0.0; n]);
    exposure::fill(RankStart::One, &mut e);
    exposure::fill(RankStart::Zero, &mut d);
    let tables = Tables {
        exposure: &e,
        discount: &d,
        attention: &[],
    };
    let spec = CostSpec::new(Metric::Eel, 5, None);
    let dims = Dims::new(n, sessions, 16);
    let mut mem = memory(dims);
    let mut engine = Ppg::new(&mut mem, dims, 0).unwrap();
    let q = Query {
        score: &score,
        utility: &score,
        group: &group,
        sessions,
        seed: 19,
    };
    let (mut order, mut utility, mut g) = (vec![0; n], vec![0.0; n], vec![0; n]);
    let mut out = vec![0; n * sessions];
    let outcome = engine
        .rerank(
            &q,
            &spec,
            &tables,
            &Recipe::recommended(),
            Workspace {
                order: &mut order,
                utility: &mut utility,
                group: &mut g,
                scratch: &mut [],
            },
            &mut out,
        )
        .unwrap();
    assert!(outcome.certified);
    // Both scored by the cost on the rows (the recipe's groups number g0 first, as here).
    let level = outcome.bound.unwrap().value + Recipe::recommended().train.certify.unwrap();
    let mut cost = Cost::new(&spec, &score, &group, &tables, &mut []).unwrap();
    assert!(
        cost.cost(&first, sessions) <= level,
        "the first answer is fair"
    );
    assert!(
        cost.cost(&out, sessions) <= level,
        "the recipe's is as fair"
    );
    let ndcg = Ndcg::new(&score, 10, &d).unwrap();
    let (was, now) = (ndcg.value(&first, sessions), ndcg.value(&out, sessions));
    assert!(now > was + 0.02, "{now} against {was}");
}
