//! Expected exposure and AWRF on TREC 2019 rankings against a second implementation:
//! `tests/independent/metrics.py`, written from the evaluators' definitions in their own
//! terms (dicts, closed forms, the evaluator's EE-L decomposition). Every query, two
//! sessions (the LTR order and the file order reversed), item and group level, cascade and
//! RBP, raw and normalised, and AWRF / NDCG / their product with TREC 2021's target.
//!
//! Reads `trec2019.tsv` from `PPG_DATA_DIR` and needs `python3`; skips without either.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use ppg_core::objective::{Awrf, AwrfCost, AwrfTarget, Browse, ExpectedExposure, Level, Measure};

struct Query {
    utility: Vec<f64>,
    group: Vec<u8>,
    ranking: Vec<u16>,
}

fn load(path: &Path) -> Vec<Query> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name| header.iter().position(|&h| h == name).unwrap();
    let (qid, group, label, ltr) = (col("qid"), col("group"), col("label"), col("ltr_grade"));
    let mut rows: Vec<(String, u8, f64, f64)> = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let g = u8::from(f[group] == "H");
        rows.push((
            f[qid].into(),
            g,
            f[label].parse().unwrap(),
            f[ltr].parse().unwrap(),
        ));
    }
    let mut queries = Vec::new();
    for chunk in rows.chunk_by(|a, b| a.0 == b.0) {
        let n = chunk.len();
        let mut by_ltr: Vec<u16> = (0..n as u16).collect();
        by_ltr.sort_by(|&a, &b| chunk[usize::from(a)].3.total_cmp(&chunk[usize::from(b)].3));
        by_ltr.reverse();
        let reversed = (0..n as u16).rev();
        queries.push(Query {
            utility: chunk.iter().map(|r| r.2).collect(),
            group: chunk.iter().map(|r| r.1).collect(),
            ranking: by_ltr.into_iter().chain(reversed).collect(),
        });
    }
    queries
}

/// This crate's numbers, named as the script names them.
fn ours(q: &Query) -> Vec<(String, f64)> {
    let n = q.utility.len();
    let mut out = Vec::new();
    let models = [
        ("gerr", Browse::D943B3E),
        ("rbp", Browse::Rbp { patience: 0.5 }),
    ];
    for (level_name, level) in [("item", Level::Item), ("group", Level::Group)] {
        if !ExpectedExposure::valid(&q.utility, level) {
            continue;
        }
        for (model_name, model) in models {
            let mut scratch = vec![0.0; ExpectedExposure::SCRATCH_PER_ITEM * n];
            let mut ee = ExpectedExposure::new(
                &q.utility,
                &q.group,
                model,
                level,
                Measure::Loss,
                true,
                &mut scratch,
            )
            .unwrap();
            let r = ee.report(&q.ranking, 2).unwrap();
            let key = |name: &str| format!("{level_name}_{model_name}_{name}");
            out.push((key("loss"), r.raw.loss));
            out.push((key("disparity"), r.raw.disparity));
            out.push((key("relevance"), r.raw.relevance));
            out.push((key("loss_n"), r.normalised.loss));
            out.push((key("disparity_n"), r.normalised.disparity));
            out.push((key("relevance_n"), r.normalised.relevance));
        }
    }
    let mut discount = vec![0.0; n];
    Awrf::discount(&mut discount);
    let target = AwrfTarget::Trec {
        population: &[1.0, 1.0],
    };
    if let Ok(awrf) = Awrf::new(&q.utility, &q.group, target, &discount, AwrfCost::Product) {
        let r = awrf.report(&q.ranking, 2).unwrap();
        out.push(("awrf_awrf".into(), r.awrf));
        out.push(("awrf_ndcg".into(), r.ndcg));
        out.push(("awrf_product".into(), r.product));
    }
    out
}

#[test]
fn trec2019_against_the_second_implementation() {
    let Some(dir) = std::env::var_os("PPG_DATA_DIR") else {
        println!("skipping: PPG_DATA_DIR not set");
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/independent/metrics.py");
    let Ok(mut child) = Command::new("python3")
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    else {
        println!("skipping: no python3");
        return;
    };
    let queries = load(&dir.join("trec2019.tsv"));
    let join = |v: &mut dyn Iterator<Item = String>| v.collect::<Vec<_>>().join(",");
    let mut input = String::new();
    for (qid, q) in queries.iter().enumerate() {
        let n = q.utility.len();
        let sessions: Vec<String> = q
            .ranking
            .chunks(n)
            .map(|s| join(&mut s.iter().map(u16::to_string)))
            .collect();
        input += &format!(
            "{qid}\t{}\t{}\t{}\n",
            join(&mut q.utility.iter().map(f64::to_string)),
            join(&mut q.group.iter().map(u8::to_string)),
            sessions.join(";")
        );
    }
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "the script failed");
    let mut theirs: HashMap<(usize, String), f64> = HashMap::new();
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let f: Vec<&str> = line.split('\t').collect();
        theirs.insert((f[0].parse().unwrap(), f[1].into()), f[2].parse().unwrap());
    }
    let (mut compared, mut worst, mut worst_at) = (0, 0.0f64, String::new());
    for (qid, q) in queries.iter().enumerate() {
        for (name, value) in ours(q) {
            let other = theirs
                .remove(&(qid, name.clone()))
                .unwrap_or_else(|| panic!("query {qid}: the script has no {name}"));
            let diff = (value - other).abs();
            if diff > worst {
                (worst, worst_at) = (diff, format!("query {qid} {name}: {value} vs {other}"));
            }
            compared += 1;
        }
    }
    assert!(
        theirs.is_empty(),
        "numbers only the script computed: {:?}",
        theirs.keys().take(5).collect::<Vec<_>>()
    );
    println!(
        "{compared} numbers over {} queries; largest difference {worst:e} ({worst_at})",
        queries.len()
    );
    assert!(worst < 1e-12, "{worst_at}");
    assert!(compared > 10_000);
}
