//! `ppg rerank --metric ee|awrf`: the TREC Fair Ranking measures through the binary.

use std::collections::HashMap;
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
        &["--metric", "ee", "--ee-measure", "disparity"],
        &["--metric", "ee", "--ee-measure", "relevance", "--ee-raw"],
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
            // Every cost is non-negative (EE-R's is its distance below its bound).
            assert!(
                after <= before && after >= 0.0,
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
    let report = dir.path().join("report.tsv");
    for metric in ["ee", "awrf"] {
        let out = ppg()
            .arg("rerank")
            .arg(&input)
            .args(["--metric", metric, "--sessions", "2", "--verbose"])
            .arg("--report")
            .arg(&report)
            .assert()
            .success()
            .stderr(predicate::str::contains("1 skipped"))
            .stderr(predicate::str::contains(
                "query \"q1\": no relevant item, passed through",
            ))
            .get_output()
            .clone();
        // The metric has no value for q1: its costs and relevance certificate are left
        // empty.
        let lines = std::fs::read_to_string(&report).unwrap();
        assert!(
            lines.contains("\nq1\t\t\t\t\t0\t\t\t\t\t\n"),
            "{metric}: {lines}"
        );
        std::fs::remove_file(&report).unwrap();
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

/// DTR over any number of groups from its definition: the largest over the smallest
/// exposure-per-utility ratio among the groups with utility, exposure `1/log2(r+1)` at
/// rank `r` from 1 (`--rank-start zero`), summed over the sessions.
fn dtr(rankings: &[Vec<&str>], utility: &HashMap<&str, f64>, group: &HashMap<&str, &str>) -> f64 {
    let mut exposure: HashMap<&str, f64> = HashMap::new();
    let mut wanted: HashMap<&str, f64> = HashMap::new();
    for (item, &u) in utility {
        *wanted.entry(group[item]).or_default() += u * rankings.len() as f64;
    }
    for ranking in rankings {
        for (r, item) in ranking.iter().enumerate() {
            *exposure.entry(group[item]).or_default() += 1.0 / ((r + 2) as f64).log2();
        }
    }
    let ratios: Vec<f64> = wanted
        .iter()
        .filter(|(_, &u)| u > 0.0)
        .map(|(g, u)| exposure[g] / u)
        .collect();
    let max = ratios.iter().cloned().fold(f64::MIN, f64::max);
    let min = ratios.iter().cloned().fold(f64::MAX, f64::min);
    max / min
}

#[test]
fn dtr_over_three_groups_gets_no_worse() {
    // Three groups, their utility and exposure far apart in the input order.
    let mut input = String::from("qid\titem\tscore\tgroup\tlabel\n");
    let rows = [
        ("a1", 10.0, "A", 1.0),
        ("a2", 9.0, "A", 0.0),
        ("a3", 8.0, "A", 1.0),
        ("b1", 7.0, "B", 2.0),
        ("b2", 6.0, "B", 1.0),
        ("c1", 5.0, "C", 3.0),
        ("b3", 4.0, "B", 0.0),
        ("c2", 3.0, "C", 2.0),
        ("c3", 2.0, "C", 3.0),
    ];
    for (item, score, group, label) in rows {
        input.push_str(&format!("q\t{item}\t{score}\t{group}\t{label}\n"));
    }
    let utility: HashMap<&str, f64> = rows.iter().map(|r| (r.0, r.3)).collect();
    let group: HashMap<&str, &str> = rows.iter().map(|r| (r.0, r.2)).collect();
    let sessions = 2;
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.tsv");
    let out = ppg()
        .args(["rerank", "-", "--metric", "dtr", "--rank-start", "zero"])
        .args(["--sessions", "2", "--seed", "3", "--report"])
        .arg(&report)
        .write_stdin(input)
        .assert()
        .success()
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut rankings: Vec<Vec<&str>> = vec![Vec::new(); sessions];
    for line in stdout.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let session: usize = f[1].parse().unwrap();
        rankings[session - 1].push(f[3]);
    }
    let order: Vec<&str> = rows.iter().map(|r| r.0).collect();
    let before = dtr(&vec![order; sessions], &utility, &group);
    let after = dtr(&rankings, &utility, &group);
    assert!(rankings.iter().all(|r| r.len() == rows.len()));
    assert!(before > 2.0, "the input is unfair: {before}");
    assert!(
        after >= 1.0 && after <= before + 1e-12,
        "{before} -> {after}"
    );
    // The query has a bound (DTR over groups' exact optimum here), certifies against it,
    // and the summary line counts it.
    let report = std::fs::read_to_string(&report).unwrap();
    let row: Vec<&str> = report.lines().nth(1).unwrap().split('\t').collect();
    let (cost, bound, gap) = (row[2], row[3], row[6]);
    let (cost, bound, gap): (f64, f64, f64) = (
        cost.parse().unwrap(),
        bound.parse().unwrap(),
        gap.parse().unwrap(),
    );
    assert!((cost - (after - 1.0)).abs() < 1e-9, "{row:?}");
    assert!(bound > 0.0 && bound <= cost && row[4] == "1", "{row:?}");
    assert_eq!(row[5] == "1", gap <= 1e-8, "{row:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let summary = format!("certified {} of 1 queries (1 with a bound)", row[5]);
    assert!(stderr.contains(&summary), "{stderr}");
}

/// TREC 2021's score (AWRF x NDCG) of one ranking of `(label, group)` rows, the population
/// uniform over `groups`: the scorer's formula (`fair-trec/trec2021-fair-public`,
/// `metrics.py`: `qtarget = (qalign + world_pop) * 0.5` over every region, `qr_awrf`,
/// `qr_ndcg`) written out, sharing nothing with ppg.
fn trec_score(rows: &[(f64, usize)], groups: usize, depth: usize) -> f64 {
    let attention = |r: usize| 1.0 / ((r + 1).max(2) as f64).log2();
    let relevant = rows.iter().filter(|r| r.0 > 0.0).count();
    let mut target = vec![1.0 / groups as f64; groups];
    for &(label, g) in rows {
        if label > 0.0 {
            target[g] += 1.0 / relevant as f64;
        }
    }
    target.iter_mut().for_each(|t| *t *= 0.5);
    let mut dist = vec![0.0; groups];
    let mut dcg = 0.0;
    // TREC 2021 cut each run at its depth (20); the ideal stays the whole list's.
    for (r, &(label, g)) in rows.iter().enumerate().take(depth) {
        dist[g] += attention(r);
        if label > 0.0 {
            dcg += attention(r);
        }
    }
    let all: f64 = dist.iter().sum();
    dist.iter_mut().for_each(|d| *d /= all);
    let m: Vec<f64> = dist
        .iter()
        .zip(&target)
        .map(|(a, b)| 0.5 * (a + b))
        .collect();
    let kl = |p: &[f64]| -> f64 {
        p.iter()
            .zip(&m)
            .filter(|&(&a, _)| a > 0.0)
            .map(|(&a, &b)| a * (a / b).ln())
            .sum()
    };
    let ideal: f64 = (0..relevant).map(attention).sum();
    (1.0 - 0.5 * (kl(&dist) + kl(&target))) * dcg / ideal
}

/// `--awrf-depth 2`: `--report`'s cost before is 1 - TREC's score over the first two ranks
/// of each input ranking (NDCG's ideal over every relevant item), its bound is below
/// every cost after; a depth of 0 is refused (issue 42, point 5).
#[test]
fn awrf_depth_scores_the_first_ranks() {
    let rows: &[(&str, f64, &str, f64)] = &[
        ("a", 0.9, "x", 1.0),
        ("a", 0.8, "x", 1.0),
        ("a", 0.7, "y", 0.0),
        ("a", 0.6, "y", 1.0),
        ("a", 0.5, "x", 1.0),
        ("b", 0.9, "y", 1.0),
        ("b", 0.8, "x", 0.0),
        ("b", 0.7, "y", 1.0),
    ];
    let mut input = String::from("qid\titem\tscore\tgroup\tlabel\n");
    for (k, (q, s, g, l)) in rows.iter().enumerate() {
        input.push_str(&format!("{q}\t{k}\t{s}\t{g}\t{l}\n"));
    }
    let dir = tempfile::tempdir().unwrap();
    let (file, report) = (dir.path().join("in.tsv"), dir.path().join("r.tsv"));
    std::fs::write(&file, &input).unwrap();
    ppg()
        .arg("rerank")
        .arg(&file)
        .args(["--metric", "awrf", "--awrf-depth", "2", "--report"])
        .arg(&report)
        .arg("-o")
        .arg(dir.path().join("o.tsv"))
        .assert()
        .success();
    let text = std::fs::read_to_string(&report).unwrap();
    let mut checked = 0;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let query: Vec<(f64, usize)> = rows
            .iter()
            .filter(|r| r.0 == f[0])
            .map(|r| (r.3, usize::from(r.2 == "y")))
            .collect();
        let (before, after, bound): (f64, f64, f64) = (
            f[1].parse().unwrap(),
            f[2].parse().unwrap(),
            f[3].parse().unwrap(),
        );
        let trec = trec_score(&query, 2, 2);
        assert!((before - (1.0 - trec)).abs() < 1e-12, "{line}: TREC {trec}");
        assert!((before - (1.0 - trec_score(&query, 2, usize::MAX))).abs() > 1e-3);
        assert!(bound <= after + 1e-12, "{line}");
        checked += 1;
    }
    assert_eq!(checked, 2);
    ppg()
        .arg("rerank")
        .arg(&file)
        .args(["--metric", "awrf", "--awrf-depth", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--awrf-depth"));
}

/// A file of three groups whose queries lack one of them or hold one only: `--report`'s
/// cost before (the input ranking) is 1 - TREC's score over the file's three groups, to
/// 1e-12; optimising never lowers TREC's score; stdin needs `--awrf-groups`, and with it
/// gives the same report as the file (issue 38, point 8).
#[test]
fn awrf_takes_its_population_over_the_whole_inputs_groups() {
    // (qid, item, score, group, label); the input ranking is by score.
    let rows: &[(&str, &str, f64, &str, f64)] = &[
        ("a", "a1", 0.9, "x", 1.0),
        ("a", "a2", 0.8, "x", 1.0),
        ("a", "a3", 0.7, "z", 0.0),
        ("a", "a4", 0.6, "x", 1.0),
        ("a", "a5", 0.5, "z", 1.0),
        ("b", "b1", 0.9, "y", 1.0),
        ("b", "b2", 0.8, "y", 0.0),
        ("b", "b3", 0.7, "y", 1.0),
        ("c", "c1", 0.9, "x", 1.0),
        ("c", "c2", 0.8, "y", 0.0),
        ("c", "c3", 0.7, "z", 1.0),
        ("c", "c4", 0.6, "y", 1.0),
    ];
    let mut input = String::from("qid\titem\tscore\tgroup\tlabel\n");
    for (q, i, s, g, l) in rows {
        input.push_str(&format!("{q}\t{i}\t{s}\t{g}\t{l}\n"));
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.tsv");
    std::fs::write(&file, &input).unwrap();
    let id = |g: &str| ["x", "y", "z"].iter().position(|&h| h == g).unwrap();
    let report = |args: &[&str], stdin: Option<&str>| -> String {
        let path = dir.path().join("report.tsv");
        let mut cmd = ppg();
        cmd.arg("rerank")
            .args(args)
            .args(["--metric", "awrf", "--sessions", "2"]);
        cmd.arg("--report")
            .arg(&path)
            .args(["--force", "-o"])
            .arg(dir.path().join("o.tsv"));
        if let Some(text) = stdin {
            cmd.write_stdin(text);
        }
        cmd.assert().success();
        std::fs::read_to_string(path).unwrap()
    };
    let from_file = report(&[file.to_str().unwrap()], None);
    let mut checked = 0;
    for line in from_file.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let query: Vec<(f64, usize)> = rows
            .iter()
            .filter(|r| r.0 == fields[0])
            .map(|r| (r.4, id(r.3)))
            .collect();
        let before: f64 = fields[1].parse().unwrap();
        let after: f64 = fields[2].parse().unwrap();
        let trec = trec_score(&query, 3, usize::MAX);
        assert!((before - (1.0 - trec)).abs() < 1e-12, "{line}: TREC {trec}");
        assert!(after <= before + 1e-12, "{line}");
        checked += 1;
    }
    assert_eq!(checked, 3);
    // A stream is read once: its population must be given.
    ppg()
        .args(["rerank", "-", "--metric", "awrf"])
        .write_stdin(input.as_str())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--awrf-groups"));
    assert_eq!(
        report(&["-", "--awrf-groups", "3"], Some(&input)),
        from_file
    );
    // Fewer than the file's groups: the first row of the third group (in order of first
    // appearance: x, z, y) is refused.
    let path = dir.path().join("r2.tsv");
    ppg()
        .arg("rerank")
        .arg(&file)
        .args(["--metric", "awrf", "--awrf-groups", "2", "-o"])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "in.tsv:7: group \"y\" is group number 3 of the input, beyond --awrf-groups 2",
        ));
}

/// The default browsing model is the published cascade (issue 42, point 6): the input a
/// (not relevant), b, c (relevant) at item level, raw EE-L, by hand. Published: exposures
/// 1, 0.5 (no stop after a), 0.125; targets 0.0625 for a and 0.625 for b and c: 1.14453125.
/// `d943b3e`'s (`cascade-judged`): exposures 1, 0.25, 0.0625, the same targets: 1.3359375.
#[test]
fn the_default_cascade_is_the_published_one() {
    let input = "qid\titem\tscore\tgroup\tlabel\nq\ta\t3\tL\t0\nq\tb\t2\tH\t1\nq\tc\t1\tL\t1\n";
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.tsv");
    // The report's cost_before, every digit.
    let before = |browse: &[&str]| -> f64 {
        ppg()
            .args(["rerank", "-", "--metric", "ee", "--ee-raw"])
            .args(["--ee-level", "item"])
            .args(["--sessions", "1", "--report"])
            .arg(&report)
            .args(browse)
            .write_stdin(input)
            .assert()
            .success();
        let text = std::fs::read_to_string(&report).unwrap();
        let row = text.lines().nth(1).unwrap();
        row.split('\t').nth(1).unwrap().parse().unwrap()
    };
    assert_eq!(before(&[]), 1.14453125);
    assert_eq!(before(&["--browse", "cascade"]), 1.14453125);
    assert_eq!(before(&["--browse", "cascade-judged"]), 1.3359375);
    ppg()
        .args(["rerank", "-", "--metric", "ee"])
        .args(["--browse", "cascade-relevant"])
        .write_stdin(input)
        .assert()
        .code(2)
        .stdout("");
}
