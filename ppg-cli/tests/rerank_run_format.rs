//! `ppg rerank --run-format` (issue 40, point 3): each TREC Fair format holds the rankings
//! of ppg's own output, read back as its evaluator reads it (trec2020 by `sim`, the 2022
//! formats by line order), and ids or flags the format cannot hold are refused before
//! any output is left.

use std::path::Path;
use std::process::Command;

const PPG: &str = env!("CARGO_BIN_EXE_ppg");

/// `queries` queries of 3 to 12 items with integer ids, three groups, graded labels.
fn input(queries: usize) -> String {
    let mut s = String::from("qid\titem\tscore\tgroup\tlabel\n");
    for q in 0..queries {
        for i in 0..3 + (q * 5) % 10 {
            let score = (q * 7 + i * 13) % 17;
            s += &format!(
                "{}\t{}\t{score}\t{}\t{}\n",
                300 + q,
                1000 * q + i,
                ["A", "B", "C"][(q + 2 * i) % 3],
                (q + i) % 4
            );
        }
    }
    s
}

fn rerank(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(PPG)
        .current_dir(dir)
        .arg("rerank")
        .arg("in.tsv")
        .args(args)
        .output()
        .unwrap()
}

fn stdout(dir: &Path, args: &[&str]) -> String {
    let out = rerank(dir, args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// (qid, session, rank, item) rows, from ppg's output or from a run file read as its
/// evaluator reads it.
fn rows(text: &str, format: &str) -> Vec<(String, usize, usize, String)> {
    let mut out: Vec<(String, usize, f64, String)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let f: Vec<&str> = if format == "trec2020" {
            line.split_whitespace().collect()
        } else {
            line.split('\t').collect()
        };
        match format {
            "ppg" if n > 0 => out.push((
                f[0].into(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].into(),
            )),
            "trec2020" => {
                assert_eq!(f.len(), 6, "{line}");
                assert_eq!(f[5], "fair1");
                let session = f[1].strip_prefix('Q').unwrap().parse::<usize>().unwrap() + 1;
                // expeval orders a sample by sim, descending.
                out.push((
                    f[0].into(),
                    session,
                    -f[4].parse::<f64>().unwrap(),
                    f[2].into(),
                ));
            }
            "trec2022" if n > 0 => out.push((f[0].into(), 1, n as f64, f[1].into())),
            "trec2022-seq" if n > 0 => {
                out.push((f[0].into(), f[1].parse().unwrap(), n as f64, f[2].into()))
            }
            _ => {}
        }
    }
    // Sorted within each (query, session) by the key; queries keep their file order.
    let mut blocks: Vec<Vec<(String, usize, f64, String)>> = Vec::new();
    for r in out {
        match blocks.last_mut() {
            Some(b) if b[0].0 == r.0 && b[0].1 == r.1 => b.push(r),
            _ => blocks.push(vec![r]),
        }
    }
    blocks
        .into_iter()
        .flat_map(|mut b| {
            b.sort_by(|x, y| x.2.total_cmp(&y.2));
            b.into_iter()
                .enumerate()
                .map(|(k, (q, s, _, i))| (q, s, k + 1, i))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn each_format_holds_the_rankings_of_ppgs_output() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.tsv"), input(12)).unwrap();
    for (format, sessions) in [("trec2020", "4"), ("trec2022", "1"), ("trec2022-seq", "3")] {
        let base = ["--sessions", sessions, "--seed", "3"];
        let own = rows(&stdout(dir.path(), &base), "ppg");
        let text = stdout(
            dir.path(),
            &[&base[..], &["--run-format", format, "--run-id", "fair1"]].concat(),
        );
        assert_eq!(rows(&text, format), own, "{format}");
        let header = text.lines().next().unwrap();
        match format {
            "trec2022" => assert_eq!(header, "id\tpage_id"),
            "trec2022-seq" => assert_eq!(header, "id\tseq_no\tpage_id"),
            _ => assert!(header.starts_with("300\tQ0\t")),
        }
    }
}

#[test]
fn what_a_format_cannot_hold_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = "qid\titem\tscore\tgroup\n7\t1\t2\tA\n7\tx 2\t1\tB\n8\tp3\t1\tA\n8\t4\t2\tB\n";
    std::fs::write(dir.path().join("in.tsv"), text).unwrap();
    for (args, message) in [
        (
            &["--run-format", "trec2020"][..],
            "in.tsv:3: item \"x 2\" holds whitespace",
        ),
        (
            &["--run-format", "trec2022-seq"][..],
            "in.tsv:3: item \"x 2\" is not an integer",
        ),
        (
            &["--run-format", "trec2022", "--sessions", "2"][..],
            "holds one ranking per topic, not 2 sessions",
        ),
        (
            &["--run-format", "trec2020", "--run-id", ""][..],
            "a run id is one word",
        ),
    ] {
        let out = rerank(dir.path(), &[args, &["-o", "out.txt"]].concat());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(!dir.path().join("out.txt").exists());
    }
}
