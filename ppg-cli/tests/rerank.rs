//! `ppg rerank` end to end: permutations, determinism across thread counts, bad input.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/small.tsv")
}

fn ppg() -> Command {
    Command::cargo_bin("ppg").expect("the ppg binary")
}

/// Items of each query in the input, by qid.
fn input_items(path: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let qid = header.iter().position(|h| *h == "qid").unwrap();
    let item = header.iter().position(|h| *h == "item").unwrap();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        out.entry(f[qid].to_owned())
            .or_default()
            .insert(f[item].to_owned());
    }
    out
}

fn rerank(args: &[&str]) -> String {
    let out = ppg()
        .arg("rerank")
        .arg(example())
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn every_session_is_a_permutation_of_its_query() {
    let sessions = 3;
    let text = rerank(&["--metric", "dtr", "--sessions", "3", "--intra"]);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("qid\tsession\trank\titem"));
    // (qid, session) -> ranks and items seen
    let mut seen: BTreeMap<(String, usize), (Vec<usize>, BTreeSet<String>)> = BTreeMap::new();
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 4, "{line}");
        let entry = seen
            .entry((f[0].to_owned(), f[1].parse().unwrap()))
            .or_default();
        entry.0.push(f[2].parse().unwrap());
        assert!(entry.1.insert(f[3].to_owned()), "item twice: {line}");
    }
    let want = input_items(&example());
    assert_eq!(seen.len(), want.len() * sessions);
    for ((qid, session), (ranks, items)) in &seen {
        assert!((1..=sessions).contains(session));
        assert_eq!(items, &want[qid], "query {qid} session {session}");
        let expected: Vec<usize> = (1..=items.len()).collect();
        assert_eq!(ranks, &expected);
    }
}

#[test]
fn output_does_not_depend_on_the_thread_count() {
    for metric in ["eel", "dtr", "ndcg-mix"] {
        let one = rerank(&[
            "--metric",
            metric,
            "--sessions",
            "2",
            "--threads",
            "1",
            "--seed",
            "9",
        ]);
        let two = rerank(&[
            "--metric",
            metric,
            "--sessions",
            "2",
            "--threads",
            "2",
            "--seed",
            "9",
        ]);
        assert_eq!(one, two, "{metric}");
    }
}

#[test]
fn reference_run_and_options_work_and_output_file_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.tsv");
    ppg()
        .arg("rerank")
        .arg(example())
        .args(["--reference-run", "--metric", "eel", "-o"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::is_empty());
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("qid\tsession\trank\titem\n"));
    // Only the output file is left in the directory: no temporary file.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    rerank(&[
        "--sampler",
        "corrected",
        "--gradient",
        "exact",
        "--baseline",
        "--rank-start",
        "zero",
    ]);
}

#[test]
fn reference_run_conflicts_with_recipe_flags() {
    ppg()
        .arg("rerank")
        .arg(example())
        .args(["--reference-run", "--lr", "0.1"])
        .assert()
        .code(2);
}

/// Runs `rerank` on `content` with `args`, expecting exit 2, a message naming
/// `input.tsv:<line>` and containing `needle`, and no output file.
fn bad_input(content: &str, args: &[&str], line: usize, needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.tsv");
    std::fs::write(&input, content).unwrap();
    let out = dir.path().join("out.tsv");
    ppg()
        .current_dir(dir.path())
        .args(["rerank", "input.tsv", "-o", "out.tsv"])
        .args(args)
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(format!("input.tsv:{line}:")))
        .stderr(predicate::str::contains(needle));
    assert!(!out.exists(), "output file left behind");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "only the input remains: {left:?}");
}

const HEADER: &str = "qid\titem\tscore\tgroup\n";

#[test]
fn missing_column() {
    bad_input(
        "qid\titem\tgroup\nq\ta\tA\nq\tb\tB\n",
        &[],
        1,
        "missing column \"score\"",
    );
}

#[test]
fn non_numeric_score() {
    let content = format!("{HEADER}q\ta\t1\tA\nq\tb\tabc\tB\n");
    bad_input(&content, &[], 3, "score \"abc\" is not a number");
}

#[test]
fn empty_file() {
    bad_input("", &[], 1, "empty file");
}

#[test]
fn header_only() {
    bad_input(HEADER, &[], 1, "no data rows");
}

#[test]
fn query_with_one_item() {
    let content = format!("{HEADER}q\ta\t1\tA\nq\tb\t2\tB\nr\tx\t1\tA\n");
    bad_input(&content, &[], 4, "query \"r\" has only one item");
}

#[test]
fn more_than_two_groups_for_dtr() {
    let content = format!("{HEADER}q\ta\t1\tA\nq\tb\t2\tB\nq\tc\t3\tC\n");
    bad_input(&content, &["--metric", "dtr"], 4, "group \"C\"");
    // EEL takes more groups.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.tsv");
    std::fs::write(&input, &content).unwrap();
    ppg()
        .arg("rerank")
        .arg(&input)
        .args(["--metric", "eel"])
        .assert()
        .success();
}

#[test]
fn duplicate_item_in_a_query() {
    let content = format!("{HEADER}q\ta\t1\tA\nq\tb\t2\tB\nq\ta\t3\tB\n");
    bad_input(
        &content,
        &[],
        4,
        "item \"a\" appears twice in query \"q\" (first at line 2)",
    );
}

#[test]
fn short_row() {
    let content = format!("{HEADER}q\ta\t1\tA\nq\tb\t2\n");
    bad_input(&content, &[], 3, "no \"group\"");
}

#[test]
fn negative_utility_for_dtr() {
    let content = format!("{HEADER}q\ta\t-1\tA\nq\tb\t2\tB\n");
    bad_input(&content, &["--metric", "dtr"], 2, "negative");
}

#[test]
fn missing_input_file_is_exit_2() {
    ppg()
        .args(["rerank", "/nonexistent/input.tsv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read"));
}

#[test]
fn default_output_is_never_worse_than_the_input() {
    for metric in ["eel", "dtr"] {
        let out = ppg()
            .arg("rerank")
            .arg(example())
            .args(["--metric", metric, "--epochs", "3", "-v"])
            .assert()
            .success()
            .get_output()
            .stderr
            .clone();
        let text = String::from_utf8(out).unwrap();
        let mut queries = 0;
        for line in text.lines() {
            // "query q1: cost 0.039563 -> 0.039563"
            let costs: Vec<f64> = line
                .rsplit(": cost ")
                .next()
                .unwrap()
                .split(" -> ")
                .map(|c| c.parse().unwrap())
                .collect();
            assert!(costs[1] <= costs[0], "{metric}: {line}");
            queries += 1;
        }
        assert_eq!(queries, 3);
    }
}
