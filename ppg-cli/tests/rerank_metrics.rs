//! `ppg rerank --metric ee|awrf`: the TREC Fair Ranking measures through the binary.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/small.tsv")
}

fn ppg() -> Command {
    Command::cargo_bin("ppg").expect("the ppg binary")
}

/// (before, after) of every query from --verbose's "query Q: cost A -> B" lines.
fn costs(stderr: &str) -> Vec<(f64, f64)> {
    stderr
        .lines()
        .filter_map(|l| l.split_once(": cost "))
        .map(|(_, c)| {
            let (a, b) = c.split_once(" -> ").unwrap();
            (a.parse().unwrap(), b.parse().unwrap())
        })
        .collect()
}

#[test]
fn every_model_and_level_optimises_without_getting_worse() {
    for args in [
        &["--metric", "ee"][..],
        &["--metric", "ee", "--ee-level", "item"],
        &[
            "--metric",
            "ee",
            "--browse",
            "rbp",
            "--browse-patience",
            "0.8",
        ],
        &["--metric", "ee", "--browse", "log"],
        &["--metric", "awrf"],
    ] {
        let out = ppg()
            .arg("rerank")
            .arg(example())
            .args(["--sessions", "2", "--verbose"])
            .args(args)
            .assert()
            .success()
            .get_output()
            .clone();
        let costs = costs(&String::from_utf8(out.stderr).unwrap());
        assert!(!costs.is_empty(), "{args:?}");
        for (before, after) in costs {
            assert!(
                after <= before && after >= -1.0,
                "{args:?}: {before} -> {after}"
            );
        }
    }
}

#[test]
fn patience_out_of_range_is_refused() {
    for p in ["0", "1.5", "-0.1", "NaN"] {
        ppg()
            .arg("rerank")
            .arg(example())
            .args(["--metric", "ee", &format!("--browse-patience={p}")])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("patience must be in (0, 1]"))
            .stdout("");
    }
    ppg()
        .arg("rerank")
        .arg(example())
        .args(["--metric", "ee", "--cascade-utility", "2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "cascade utility must be in [0, 1]",
        ));
}

#[test]
fn a_query_without_a_relevant_item_is_passed_through() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.tsv");
    std::fs::write(
        &input,
        "qid\titem\tgroup\tscore\tlabel\n\
         q1\ta\tL\t0.9\t0\nq1\tb\tH\t0.8\t0\nq1\tc\tH\t0.5\t0\n\
         q2\ta\tL\t0.9\t1\nq2\tb\tH\t0.8\t1\nq2\tc\tH\t0.5\t0\n",
    )
    .unwrap();
    for metric in ["ee", "awrf"] {
        let out = ppg()
            .arg("rerank")
            .arg(&input)
            .args(["--metric", metric, "--sessions", "2"])
            .assert()
            .success()
            .stderr(predicate::str::contains("1 skipped"))
            .get_output()
            .clone();
        let text = String::from_utf8(out.stdout).unwrap();
        let q1: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("q1\t"))
            .map(|l| l.rsplit('\t').next().unwrap())
            .collect();
        assert_eq!(q1, ["a", "b", "c", "a", "b", "c"], "{metric}");
    }
    // Item level is defined without a relevant item: nothing is skipped.
    ppg()
        .arg("rerank")
        .arg(&input)
        .args(["--metric", "ee", "--ee-level", "item"])
        .assert()
        .success()
        .stderr(predicate::str::contains("0 skipped"));
}
