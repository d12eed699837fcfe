//! `ppg frontier`: the table in both formats agrees, the plot is written as SVG and PNG
//! with its labels, refusals exit 2 with the reason, and (with `PPG_DATA_DIR`) TREC 2019's
//! frontier starts at the exact optimum the recipe reaches.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn ppg() -> Command {
    Command::cargo_bin("ppg").expect("the ppg binary")
}

fn graded(dir: &Path) -> PathBuf {
    let path = dir.join("graded.tsv");
    let queries = ppg_lab::shapes::generate(ppg_lab::shapes::Kind::Graded, 2, 15, 30, 361);
    std::fs::write(&path, ppg_lab::shapes::protocol(&queries)).unwrap();
    path
}

fn stdout(args: &[&str]) -> String {
    let out = ppg().arg("frontier").args(args).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

#[test]
fn tsv_json_and_plot_agree() {
    let dir = tempfile::tempdir().unwrap();
    let data = graded(dir.path());
    let data = data.to_str().unwrap();
    let prefix = dir.path().join("plot");
    let tsv = stdout(&[data, "--metric", "eel", "--plot", prefix.to_str().unwrap()]);
    let json: Value =
        serde_json::from_str(&stdout(&[data, "--metric", "eel", "--format", "json"])).unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 21);
    assert_eq!(json["metric"], "eel");
    let lines: Vec<&str> = tsv.lines().collect();
    assert_eq!(lines[0], "level\tfairness\tndcg\tbound\texact\tqueries");
    // 21 level rows, then the input and the recipe.
    assert_eq!(lines.len(), 1 + 21 + 2);
    for (line, row) in lines[1..22].iter().zip(rows) {
        let fields: Vec<&str> = line.split('\t').collect();
        let ndcg: f64 = fields[2].parse().unwrap();
        assert!(
            (ndcg - row["ndcg"].as_f64().unwrap()).abs() < 1e-6,
            "{line} {row}"
        );
        assert_eq!(fields[4], row["exact"].to_string());
    }
    assert!(rows[20]["level"].is_null() && rows[20]["fairness"].is_null());
    assert!(lines[22].starts_with("input\t") && lines[23].starts_with("recipe\t"));
    let svg = std::fs::read_to_string(dir.path().join("plot.svg")).unwrap();
    for label in [
        "mean NDCG@10",
        "EEL allowed",
        "input ranking",
        "default recipe",
        "best reached",
    ] {
        assert!(svg.contains(label), "the SVG has no {label:?}");
    }
    let png = std::fs::read(dir.path().join("plot.png")).unwrap();
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
}

#[test]
fn refusals_exit_2_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let data = graded(dir.path());
    let data = data.to_str().unwrap();
    for (args, reason) in [
        (vec![data, "--metric", "ee"], "dtr and eel only"),
        (vec![data, "--metric", "awrf"], "dtr and eel only"),
        (
            vec![data, "--sessions", "0"],
            "--sessions must be 1 to 1024",
        ),
        // Counts that used to abort on a failed allocation: refused before any.
        (
            vec![data, "--sessions", "100000000"],
            "--sessions must be 1 to 1024",
        ),
        (vec![data, "--levels", "1"], "--levels must be 2 to 10000"),
        (
            vec![data, "--levels", "100000000000"],
            "--levels must be 2 to 10000",
        ),
        (vec!["/nonexistent/frontier.tsv"], "cannot read"),
    ] {
        ppg()
            .arg("frontier")
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(reason));
    }
}

#[test]
fn trec_2019_starts_at_the_optimum() {
    let Some(dir) = std::env::var_os("PPG_DATA_DIR") else {
        eprintln!("PPG_DATA_DIR unset: skipped");
        return;
    };
    // A relative PPG_DATA_DIR is the workspace root's (`.ci/run` sets `../shared/data`);
    // cargo runs this test in ppg-cli/.
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(dir)
        .join("trec2019.tsv");
    let json: Value =
        serde_json::from_str(&stdout(&[path.to_str().unwrap(), "--format", "json"])).unwrap();
    // DTR's valid queries of TREC 2019, every walk exact.
    assert_eq!(json["queries"], 375);
    let rows = json["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["exact"] == 375));
    // The exact optimum's mean (docs/results.md's bound row at one session, 1.3163).
    let optimum = rows[0]["fairness"].as_f64().unwrap();
    assert!((optimum - 1.3163).abs() < 5e-5, "{optimum}");
    // The recipe (true labels) is certified at it, and no ranking that fair is more
    // relevant than the frontier's first point.
    let recipe = &json["recipe"];
    assert!(
        (recipe["fairness"].as_f64().unwrap() - optimum).abs() < 1e-6,
        "{recipe}"
    );
    assert!(recipe["ndcg"].as_f64().unwrap() <= rows[0]["ndcg"].as_f64().unwrap() + 1e-9);

    // Over 4 sessions the optimum is no worse than one session's, the frontier is
    // monotone and bounded, and the recipe's point is below the bound at its level.
    let four: Value = serde_json::from_str(&stdout(&[
        path.to_str().unwrap(),
        "--format",
        "json",
        "--sessions",
        "4",
    ]))
    .unwrap();
    assert_eq!(four["sessions"], 4);
    let rows4 = four["rows"].as_array().unwrap();
    let value = |r: &Value, k: &str| r[k].as_f64().unwrap();
    assert!(value(&rows4[0], "fairness") <= optimum + 1e-9);
    for pair in rows4.windows(2) {
        assert!(value(&pair[0], "ndcg") <= value(&pair[1], "ndcg") + 1e-12);
    }
    for row in rows4 {
        assert!(value(row, "ndcg") <= value(row, "bound"), "{row}");
    }
    let recipe4 = &four["recipe"];
    let level = rows4
        .iter()
        .find(|r| value(r, "fairness") >= value(recipe4, "fairness"))
        .expect("the recipe is at most as unfair as the input");
    assert!(
        value(recipe4, "ndcg") <= value(level, "bound") + 1e-9,
        "{recipe4} {level}"
    );
}
