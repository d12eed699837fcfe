//! Queries shaped like production rather than like the paper's TREC files: the model's
//! continuous score, or graded labels 0-4 with the input in a noisy model order, over two
//! to four groups. The TREC files have binary labels and inputs ranked by label, where
//! many rankings tie; these shapes are where the recipe's search and its relevance were
//! found wanting (issues 36 and 37), so the tests and `scripts/bench-certify` run on them.
//!
//! The same seed gives the same rows on every platform: the draws are the core's [`Rng`]
//! and the normal deviates go through `libm`, not the platform's mathematics library.

use ppg_core::Rng;

/// What a query's rows carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The model's score only (its utility), in `(0, 1)`; the input is in score order.
    Scores,
    /// A graded label 0-4 (26/38/23/6/8 %, as in MSLR-WEB) and a model score
    /// `label + N(0, 1)`: the input is in a noisy model order, the label is the utility.
    Graded,
}

/// One generated query: per item, in row order, its score, label (graded only) and group.
#[derive(Debug, Clone, PartialEq)]
pub struct Shaped {
    /// The model's score; the input ranking is by score, descending.
    pub score: Vec<f64>,
    /// The graded label ([`Kind::Graded`]); empty for [`Kind::Scores`].
    pub label: Vec<f64>,
    /// The group, `0..groups`.
    pub group: Vec<u8>,
}

/// The share of each group, for two to four groups: 40/60 with scores and 45/55 with
/// graded labels (the shapes the issues were measured on), and falling shares beyond two.
fn shares(kind: Kind, groups: usize) -> &'static [f64] {
    match (kind, groups) {
        (Kind::Scores, 2) => &[0.4, 0.6],
        (Kind::Graded, 2) => &[0.45, 0.55],
        (_, 3) => &[0.5, 0.3, 0.2],
        _ => &[0.4, 0.3, 0.2, 0.1],
    }
}

/// Cumulative shares of the grades 0-4 (26/38/23/6/8 %).
const GRADES: [f64; 4] = [0.26, 0.64, 0.87, 0.93];

/// A standard normal deviate (Box-Muller, one of the pair).
fn normal(rng: &mut Rng) -> f64 {
    let (u, v) = (rng.open_unit_f64(), rng.unit_f64());
    libm::sqrt(-2.0 * libm::log(u)) * libm::cos(2.0 * core::f64::consts::PI * v)
}

/// `count` queries of `items` items each over `groups` groups (2 to 4), from `seed`.
/// Every group is present in every query (the last items are reassigned when a draw
/// left one out), so that every query has something to be fair between.
///
/// # Panics
/// When `groups` is not 2, 3 or 4, or `items` is below `groups`.
pub fn generate(kind: Kind, groups: usize, items: usize, count: usize, seed: u64) -> Vec<Shaped> {
    assert!((2..=4).contains(&groups) && items >= groups);
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| query(&mut rng, kind, groups, items))
        .collect()
}

fn query(rng: &mut Rng, kind: Kind, groups: usize, items: usize) -> Shaped {
    let shares = shares(kind, groups);
    let mut group: Vec<u8> = (0..items)
        .map(|_| {
            let u = rng.unit_f64();
            let mut acc = 0.0;
            shares
                .iter()
                .position(|&s| {
                    acc += s;
                    u < acc
                })
                .unwrap_or(groups - 1) as u8
        })
        .collect();
    for g in 0..groups as u8 {
        if !group.contains(&g) {
            // The last item of the largest group moves to the missing one.
            let largest = (0..groups as u8)
                .max_by_key(|&h| group.iter().filter(|&&x| x == h).count())
                .unwrap_or(0);
            let at = group.iter().rposition(|&x| x == largest).unwrap_or(0);
            group[at] = g;
        }
    }
    let (mut score, mut label) = (Vec::with_capacity(items), Vec::new());
    for _ in 0..items {
        match kind {
            Kind::Scores => score.push(1.0 / (1.0 + libm::exp(-1.5 * normal(rng)))),
            Kind::Graded => {
                let u = rng.unit_f64();
                let grade = GRADES.iter().filter(|&&c| u >= c).count() as f64;
                label.push(grade);
                score.push(grade + normal(rng));
            }
        }
    }
    Shaped {
        score,
        label,
        group,
    }
}

/// The queries as `ppg rerank` reads them: a header `qid item score group` (and `label`
/// for graded queries), groups named `g0`, `g1`, ..., scores with 6 decimals.
pub fn tsv(queries: &[Shaped]) -> String {
    let graded = queries.first().is_some_and(|q| !q.label.is_empty());
    let mut out = String::from(if graded {
        "qid\titem\tscore\tgroup\tlabel\n"
    } else {
        "qid\titem\tscore\tgroup\n"
    });
    for (q, query) in queries.iter().enumerate() {
        for i in 0..query.score.len() {
            out.push_str(&format!(
                "q{q}\td{i}\t{:.6}\tg{}",
                query.score[i], query.group[i]
            ));
            if graded {
                out.push_str(&format!("\t{}", query.label[i]));
            }
            out.push('\n');
        }
    }
    out
}

/// Graded queries as `ppg reproduce --data` reads them: `qid group label ltr_grade`, the
/// grade the model's score rounded and clipped to 0-4 (the input ranking is by grade).
///
/// # Panics
/// When a query has no labels ([`Kind::Scores`]).
pub fn protocol(queries: &[Shaped]) -> String {
    let mut out = String::from("qid\tgroup\tlabel\tltr_grade\n");
    for (q, query) in queries.iter().enumerate() {
        assert_eq!(query.label.len(), query.score.len(), "graded queries only");
        for i in 0..query.score.len() {
            // `+ 0.0` turns the -0 that rounding a small negative score gives into 0.
            let grade = libm::round(query.score[i]).clamp(0.0, 4.0) + 0.0;
            out.push_str(&format!(
                "{q}\tg{}\t{}\t{grade}\n",
                query.group[i], query.label[i]
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_rows_and_shares_as_stated() {
        let a = generate(Kind::Graded, 3, 20, 500, 7);
        assert_eq!(a, generate(Kind::Graded, 3, 20, 500, 7));
        assert_ne!(a, generate(Kind::Graded, 3, 20, 500, 8));
        // 10,000 labels: a share's standard error is at most 0.005, so 0.02 is four of them.
        let labels: Vec<f64> = a.iter().flat_map(|q| q.label.iter().copied()).collect();
        for (grade, share) in [0.26, 0.38, 0.23, 0.06, 0.08].into_iter().enumerate() {
            let seen =
                labels.iter().filter(|&&l| l == grade as f64).count() as f64 / labels.len() as f64;
            assert!((seen - share).abs() < 0.02, "grade {grade}: {seen}");
        }
        assert!(a.iter().all(|q| (0..3).all(|g| q.group.contains(&g))));
    }

    #[test]
    fn scores_are_in_the_unit_interval() {
        let q = generate(Kind::Scores, 2, 20, 100, 1);
        assert!(q.iter().flat_map(|q| &q.score).all(|&s| s > 0.0 && s < 1.0));
        assert!(tsv(&q).starts_with("qid\titem\tscore\tgroup\nq0\td0\t"));
        let g = generate(Kind::Graded, 2, 5, 1, 1);
        let rows: Vec<Vec<String>> = protocol(&g)
            .lines()
            .skip(1)
            .map(|l| l.split('\t').map(String::from).collect())
            .collect();
        for (row, (&s, &l)) in rows.iter().zip(g[0].score.iter().zip(&g[0].label)) {
            assert_eq!(row[2].parse::<f64>().unwrap(), l);
            let grade: f64 = row[3].parse().unwrap();
            assert!((0.0..=4.0).contains(&grade) && (grade - s.clamp(0.0, 4.0)).abs() <= 0.5);
        }
    }
}
