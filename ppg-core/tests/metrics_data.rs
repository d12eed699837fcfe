//! The built-in metrics against the paper's data: the deterministic rows of
//! `paper/protocol.md` (Ideal and LTR-output rankings, 4 sessions) to the third decimal.
//!
//! Reads `trec2019.tsv` and `trec2020.tsv` from the folder in `PPG_DATA_DIR`; skips when it
//! is unset. The data is never copied into the repository.

use std::path::PathBuf;

use ppg_core::objective::{exposure, Dtr, Eel, Ndcg, RankStart};

const SESSIONS: usize = 4;
const EVAL_LEVELS: u32 = 2;
const CUTOFF: usize = 10;
/// The published figures have three decimals.
const TOLERANCE: f64 = 0.0005 + 1e-9;

struct Query {
    group: Vec<u8>,
    label: Vec<f64>,
    ltr: Vec<f64>,
}

/// One deterministic row: DTR, EEL, NDCG over the DTR queries, NDCG over the EEL queries.
#[derive(Debug)]
struct Row {
    dtr: f64,
    eel: f64,
    ndcg_dtr: f64,
    ndcg_eel: f64,
}

/// The data folder from `PPG_DATA_DIR`. A relative path is taken from the workspace root,
/// where docs/reliability.md and `.ci/run` set it (`../shared/data`): cargo runs each test in its
/// package's folder instead.
fn data_dir() -> Option<PathBuf> {
    match std::env::var_os("PPG_DATA_DIR") {
        Some(dir) => Some(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join(dir),
        ),
        None => {
            println!("skipping: PPG_DATA_DIR not set");
            None
        }
    }
}

fn load(dir: &std::path::Path, file: &str) -> Vec<Query> {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header line").split('\t').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h.trim() == name)
            .unwrap_or_else(|| panic!("no {name} column"))
    };
    let (qid, group, label, ltr) = (
        column("qid"),
        column("group"),
        column("label"),
        column("ltr_grade"),
    );

    let mut queries: Vec<Query> = Vec::new();
    let mut current: Option<String> = None;
    for (number, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
        let number = number + 2;
        let field = |i: usize| {
            *fields
                .get(i)
                .unwrap_or_else(|| panic!("line {number}: short"))
        };
        if current.as_deref() != Some(field(qid)) {
            current = Some(field(qid).to_owned());
            queries.push(Query {
                group: Vec::new(),
                label: Vec::new(),
                ltr: Vec::new(),
            });
        }
        let query = queries.last_mut().unwrap();
        query.group.push(match field(group) {
            "L" => 0,
            "H" => 1,
            other => panic!("line {number}: unknown group {other:?}"),
        });
        query.label.push(
            field(label)
                .parse()
                .unwrap_or_else(|e| panic!("line {number}: {e}")),
        );
        query.ltr.push(
            field(ltr)
                .parse()
                .unwrap_or_else(|e| panic!("line {number}: {e}")),
        );
    }
    queries
}

/// The protocol's starting ranking: a stable ascending sort by utility, reversed, so that
/// ties put the item later in the file first; repeated for every session.
fn ranking_by(utility: &[f64]) -> Vec<u16> {
    let mut order: Vec<u16> = (0..utility.len() as u16).collect();
    order.sort_by(|&a, &b| utility[usize::from(a)].total_cmp(&utility[usize::from(b)]));
    order.reverse();
    order.repeat(SESSIONS)
}

fn table(start: RankStart, len: usize) -> Vec<f64> {
    let mut t = vec![0.0; len];
    exposure::fill(start, &mut t);
    t
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// Evaluates the ranking `by` picks for every query; asserts the valid-query counts.
fn evaluate(
    queries: &[Query],
    by: impl Fn(&Query) -> &[f64],
    dtr_queries: usize,
    eel_queries: usize,
) -> Row {
    let longest = queries.iter().map(|q| q.label.len()).max().unwrap();
    let exposure = table(RankStart::One, longest);
    let discount = table(RankStart::Zero, longest);
    let (mut dtr, mut eel, mut ndcg_dtr, mut ndcg_eel) = (vec![], vec![], vec![], vec![]);
    for q in queries {
        let ranking = ranking_by(by(q));
        let ndcg = Ndcg::new(&q.label, CUTOFF, &discount)
            .unwrap()
            .value(&ranking, SESSIONS);
        // The metrics must not care which group is called 0.
        let swapped: Vec<u8> = q.group.iter().map(|g| 1 - g).collect();
        if Dtr::valid(&q.label, &q.group) {
            assert!(Dtr::valid(&q.label, &swapped));
            let value = Dtr::new(&q.label, &q.group, &exposure)
                .unwrap()
                .ratio(&ranking, SESSIONS);
            let mirror = Dtr::new(&q.label, &swapped, &exposure)
                .unwrap()
                .ratio(&ranking, SESSIONS);
            assert!((value - mirror).abs() < 1e-12, "{value} vs {mirror}");
            assert!(value >= 1.0);
            dtr.push(value);
            ndcg_dtr.push(ndcg);
        }
        if Eel::valid(&q.group) {
            let value = Eel::new(&q.label, &q.group, EVAL_LEVELS, &exposure)
                .unwrap()
                .value(&ranking, SESSIONS);
            let mirror = Eel::new(&q.label, &swapped, EVAL_LEVELS, &exposure)
                .unwrap()
                .value(&ranking, SESSIONS);
            assert!((value - mirror).abs() < 1e-12, "{value} vs {mirror}");
            eel.push(value);
            ndcg_eel.push(ndcg);
        }
    }
    assert_eq!(dtr.len(), dtr_queries, "DTR-valid queries");
    assert_eq!(eel.len(), eel_queries, "EEL-valid queries");
    Row {
        dtr: mean(&dtr),
        eel: mean(&eel),
        ndcg_dtr: mean(&ndcg_dtr),
        ndcg_eel: mean(&ndcg_eel),
    }
}

fn check(name: &str, row: &Row, published: [f64; 4]) {
    println!(
        "{name}: DTR {:.6}  EEL {:.6}  NDCG(DTR) {:.6}  NDCG(EEL) {:.6}",
        row.dtr, row.eel, row.ndcg_dtr, row.ndcg_eel
    );
    let ours = [row.dtr, row.eel, row.ndcg_dtr, row.ndcg_eel];
    for ((what, ours), published) in ["DTR", "EEL", "NDCG(DTR)", "NDCG(EEL)"]
        .iter()
        .zip(ours)
        .zip(published)
    {
        assert!(
            (ours - published).abs() < TOLERANCE,
            "{name} {what}: computed {ours:.6}, published {published:.3}"
        );
    }
}

#[test]
fn trec2019_deterministic_rows() {
    let Some(dir) = data_dir() else { return };
    let queries = load(&dir, "trec2019.tsv");
    assert_eq!(queries.len(), 635);
    let ideal = evaluate(&queries, |q| &q.label, 375, 554);
    check("TREC 2019 Ideal", &ideal, [1.668, 0.014, 1.000, 1.000]);
    let ltr = evaluate(&queries, |q| &q.ltr, 375, 554);
    check("TREC 2019 LTR output", &ltr, [1.901, 0.053, 0.817, 0.798]);
}

#[test]
fn trec2020_deterministic_rows() {
    let Some(dir) = data_dir() else { return };
    let queries = load(&dir, "trec2020.tsv");
    assert_eq!(queries.len(), 200);
    let ideal = evaluate(&queries, |q| &q.label, 108, 190);
    check("TREC 2020 Ideal", &ideal, [2.499, 0.027, 1.000, 1.000]);
    let ltr = evaluate(&queries, |q| &q.ltr, 108, 190);
    check("TREC 2020 LTR output", &ltr, [2.986, 0.180, 0.385, 0.396]);
}
