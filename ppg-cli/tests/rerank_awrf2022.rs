//! `ppg rerank --metric awrf2022`: TREC 2022's AWRF through the binary, on the example
//! files; its side data's errors name the file, the line and the flag.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name)
}

fn ppg() -> Command {
    Command::cargo_bin("ppg").expect("the ppg binary")
}

fn base() -> Command {
    let mut c = ppg();
    c.arg("rerank")
        .arg(example("awrf2022.tsv"))
        .args([
            "--metric",
            "awrf2022",
            "--utility",
            "label",
            "-o",
            "-",
            "-v",
        ])
        .arg("--attributes")
        .arg(example("awrf2022-attributes.txt"));
    c
}

#[test]
fn the_example_is_reranked_to_a_lower_cost_and_every_policy_runs() {
    for extra in [
        vec![
            "--attribute-background".to_owned(),
            example("awrf2022-background.txt").display().to_string(),
        ],
        vec![
            "--attribute-unknown".into(),
            "gender=drop".into(),
            "--attribute-unknown".into(),
            "geography=uniform".into(),
        ],
        vec![],
    ] {
        let out = base().args(&extra).assert().success().get_output().clone();
        let stderr = String::from_utf8(out.stderr).unwrap();
        let line = stderr.lines().find(|l| l.contains(": cost ")).unwrap();
        let (a, b) = line
            .split_once(": cost ")
            .unwrap()
            .1
            .split_once(" -> ")
            .unwrap();
        let (before, after): (f64, f64) = (a.parse().unwrap(), b.parse().unwrap());
        assert!(
            after < before && after >= 0.0,
            "{extra:?}: {before} -> {after}"
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        let mut items: Vec<&str> = stdout
            .lines()
            .skip(1)
            .map(|l| l.rsplit('\t').next().unwrap())
            .collect();
        items.sort_unstable();
        assert_eq!(items, ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"]);
    }
}

#[test]
fn bad_side_data_names_the_file_line_and_flag() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "p1 geography Europe 1\np2 geography Europe -1\n").unwrap();
    ppg()
        .arg("rerank")
        .arg(example("awrf2022.tsv"))
        .args(["--metric", "awrf2022", "-o", "-", "--attributes"])
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "bad.txt:2: --attributes: weight \"-1\"",
        ));
    std::fs::write(&bad, "geography Mars @x\n").unwrap();
    base()
        .arg("--attribute-background")
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "bad.txt:1: --attribute-background:",
        ));
    base()
        .args(["--attribute-unknown", "colour=drop"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no such attribute"));
    // The side data belong to awrf2022 alone, and it needs them.
    ppg()
        .arg("rerank")
        .arg(example("awrf2022.tsv"))
        .args(["--metric", "awrf", "-o", "-", "--attributes"])
        .arg(example("awrf2022-attributes.txt"))
        .assert()
        .code(2);
    ppg()
        .arg("rerank")
        .arg(example("awrf2022.tsv"))
        .args(["--metric", "awrf2022", "-o", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("needs --attributes"));
}
