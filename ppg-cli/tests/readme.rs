//! The README's command-line example runs as written, from the repository root, and
//! writes what the README says: `qid session rank item` rows, every item of every query
//! once in each of its sessions.

use std::path::Path;

use assert_cmd::Command;

#[test]
fn the_readme_command_line_example_runs_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let line = readme
        .split("**Command line**")
        .nth(1)
        .and_then(|s| s.split("```sh\n").nth(1))
        .and_then(|s| s.lines().next())
        .expect("a sh block after the README's **Command line**");
    let args: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(
        args[..2],
        ["ppg", "rerank"],
        "the example runs `ppg rerank`"
    );
    let out_flag = args
        .iter()
        .position(|a| *a == "-o")
        .expect("the example writes a file");

    // Run from the root (the example names examples/small.tsv), the output in a scratch
    // folder so that the tree stays as it was.
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join(args[out_flag + 1]);
    let mut cmd = Command::cargo_bin("ppg").expect("the ppg binary");
    cmd.current_dir(&root)
        .args(&args[1..out_flag])
        .arg("-o")
        .arg(&output)
        .args(&args[out_flag + 2..])
        .assert()
        .success();

    let sessions: usize = args[args.iter().position(|a| *a == "--sessions").unwrap() + 1]
        .parse()
        .unwrap();
    let input = std::fs::read_to_string(root.join(args[2])).unwrap();
    let written = std::fs::read_to_string(&output).unwrap();
    let mut rows = written.lines();
    assert_eq!(rows.next(), Some("qid\tsession\trank\titem"));
    let mut got: Vec<(String, String)> = rows
        .map(|r| {
            let f: Vec<&str> = r.split('\t').collect();
            (f[0].to_owned(), f[3].to_owned())
        })
        .collect();
    let mut expected: Vec<(String, String)> = input
        .lines()
        .skip(1)
        .flat_map(|r| {
            let f: Vec<&str> = r.split('\t').collect();
            vec![(f[0].to_owned(), f[1].to_owned()); sessions]
        })
        .collect();
    got.sort();
    expected.sort();
    assert_eq!(got, expected, "each query's items, once per session");
}
