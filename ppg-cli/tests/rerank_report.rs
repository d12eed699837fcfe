//! Where `--report` writes beside `-o` (issue 38, points 1, 2, 5 and 6), driven through the
//! binary: the two are never one place, however each is named; they are committed
//! together or not at all; and what is wrong with the report's name is said of
//! `--report`.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

mod files;
use files::{names, read, stderr_of};

const PPG: &str = env!("CARGO_BIN_EXE_ppg");
const OLD: &str = "the file before\n";

fn ppg(dir: &Path) -> Command {
    let mut c = Command::new(PPG);
    c.current_dir(dir).arg("rerank");
    c
}

/// A folder with `in.tsv` (3 queries of 4 items, two groups) and `x.tsv` holding [`OLD`].
fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut s = String::from("qid\titem\tscore\tgroup\n");
    for q in 0..3 {
        for i in 0..4 {
            s += &format!("q{q}\td{i}\t{}\t{}\n", (q + 3 * i) % 5, ["A", "B"][i % 2]);
        }
    }
    std::fs::write(dir.path().join("in.tsv"), s).unwrap();
    std::fs::write(dir.path().join("x.tsv"), OLD).unwrap();
    dir
}

/// Runs `ppg rerank in.tsv ARGS` in `dir`, and checks a usage error saying `says`, with
/// nothing on stdout.
fn refused(dir: &Path, args: &[&str], says: &str) {
    let out = ppg(dir).arg("in.tsv").args(args).output().unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(says), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}: something was written");
}

// ---- Point 1: the report is never written into stdout's rankings ----

#[test]
fn a_report_on_stdout_beside_the_rankings_is_refused() {
    let dir = folder();
    for args in [
        &["--report", "-"][..],
        &["--report", "/dev/stdout"],
        &["--report", "/proc/self/fd/1"],
        &["-o", "-", "--report", "/dev/fd/1"],
    ] {
        refused(dir.path(), args, "are one place (stdout)");
    }
    // stdout a file, and --report that file by name.
    let out = ppg(dir.path())
        .args(["in.tsv", "--report", "x.tsv"])
        .stdout(
            std::fs::OpenOptions::new()
                .append(true)
                .open(dir.path().join("x.tsv"))
                .unwrap(),
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("stdout (no -o) and --report x.tsv are one place (stdout)"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(read(dir.path().join("x.tsv")), OLD);
    // The report alone on stdout, the rankings in a file: allowed.
    let out = ppg(dir.path())
        .args(["in.tsv", "-o", "ranked.tsv", "--report", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("qid\tcost_before"));
    assert!(read(dir.path().join("ranked.tsv")).starts_with("qid\tsession"));
}

// ---- Point 2: -o and --report are compared by what they are, not by their names ----

#[test]
fn a_report_that_is_the_output_by_another_name_is_refused() {
    let dir = folder();
    let root = dir.path();
    std::fs::create_dir(root.join("sub")).unwrap();
    std::os::unix::fs::symlink("x.tsv", root.join("link")).unwrap();
    std::os::unix::fs::symlink(".", root.join("here")).unwrap();
    std::fs::hard_link(root.join("x.tsv"), root.join("hard")).unwrap();
    let absolute = root.join("x.tsv").display().to_string();
    let same = "are one place (the same file)";
    for args in [
        ["-o", "./x.tsv", "--report", "x.tsv"],
        ["-o", "x.tsv", "--report", &absolute],
        ["-o", "x.tsv", "--report", "sub/../x.tsv"],
        ["-o", "x.tsv", "--report", "link"],
        ["-o", "hard", "--report", "x.tsv"],
        // A name that does not exist yet: its folder and the name.
        ["-o", "new.tsv", "--report", "./new.tsv"],
        ["-o", "here/new.tsv", "--report", "new.tsv"],
    ] {
        refused(root, &args, same);
    }
    // From a subfolder, the output named through `..`.
    let out = ppg(&root.join("sub"))
        .args(["../in.tsv", "-o", "../x.tsv", "--report", &absolute])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains(same), "{}", stderr_of(&out));
    assert_eq!(read(root.join("x.tsv")), OLD);
    assert_eq!(
        names(root),
        ["hard", "here", "in.tsv", "link", "sub", "x.tsv"]
    );
}

// ---- Point 5: both committed, or neither ----

/// A report that cannot be written leaves the output as it was (exit 1): both are written
/// in full before either is renamed (the rankings were committed first, and stayed).
#[test]
fn a_report_that_fails_leaves_the_output_as_it_was() {
    let dir = folder();
    let out = ppg(dir.path())
        .args(["in.tsv", "-o", "x.tsv", "--report", "/dev/full"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("cannot write /dev/full"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(read(dir.path().join("x.tsv")), OLD);
    assert_eq!(names(dir.path()), ["in.tsv", "x.tsv"]);
}

/// Held once both files are written (`PPG_PAUSE_AT=committing`), the report's name is
/// taken by a folder: its rename fails, and the output's, done first, is taken back,
/// whether it replaced a file (which comes back) or made a new one (which goes). Without
/// the folder both are committed.
#[test]
fn a_report_that_cannot_be_renamed_takes_the_output_back() {
    for (output, before) in [("x.tsv", Some(OLD)), ("new.tsv", None)] {
        for block in [true, false] {
            let dir = folder();
            let root = dir.path();
            let fifo = root.join("pause");
            assert!(Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success());
            let mut child = ppg(root)
                .args(["in.tsv", "-o", output, "--report", "report.tsv"])
                .env("PPG_PAUSE_AT", format!("committing:{}", fifo.display()))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut stderr = BufReader::new(child.stderr.take().unwrap());
            let mut line = String::new();
            stderr.read_line(&mut line).unwrap();
            assert_eq!(line, "ppg: paused at committing\n");
            if block {
                std::fs::create_dir(root.join("report.tsv")).unwrap();
            }
            drop(std::fs::OpenOptions::new().write(true).open(&fifo).unwrap());
            let mut err = String::new();
            stderr.read_to_string(&mut err).unwrap();
            let code = child.wait().unwrap().code();
            std::fs::remove_file(&fifo).unwrap();
            let what = format!("{output} blocked {block}: {err}");
            let now = std::fs::read_to_string(root.join(output)).ok();
            if block {
                assert_eq!(code, Some(1), "{what}");
                assert!(err.contains("cannot rename onto report.tsv"), "{what}");
                assert_eq!(now.as_deref(), before, "{what}");
                assert!(names(&root.join("report.tsv")).is_empty(), "{what}");
            } else {
                assert_eq!(code, Some(0), "{what}");
                assert!(now.unwrap().starts_with("qid\tsession"), "{what}");
                assert!(read(root.join("report.tsv")).starts_with("qid\tcost_before"));
            }
            let mut want = vec!["in.tsv", "report.tsv", "x.tsv"];
            if output == "new.tsv" && !block {
                want.insert(1, "new.tsv");
            }
            assert_eq!(names(root), want, "{what}");
        }
    }
}

// ---- Point 6: the report's name is --report's ----

#[test]
fn what_is_wrong_with_the_reports_name_is_said_of_report() {
    let dir = folder();
    let root = dir.path();
    std::fs::create_dir(root.join("folder")).unwrap();
    std::os::unix::fs::symlink("nothing", root.join("dangling")).unwrap();
    let read_only = root.join("x.tsv");
    std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o444)).unwrap();
    for (report, says) in [
        ("folder", "--report folder: is a folder"),
        ("folder/", "--report folder/: names a folder"),
        ("dangling", "--report dangling: a symlink to nothing"),
        ("x.tsv", "--report x.tsv: is read-only: --force replaces it"),
        ("in.tsv", "--report in.tsv is the input in.tsv"),
    ] {
        refused(root, &["-o", "out.tsv", "--report", report], says);
    }
    assert_eq!(read(&read_only), OLD);
    // --force replaces a read-only report as it does a read-only output, keeping its mode.
    let out = ppg(root)
        .args(["in.tsv", "-o", "out.tsv", "--report", "x.tsv", "--force"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(read(&read_only).starts_with("qid\tcost_before"));
    let mode = std::fs::metadata(&read_only).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o444);
    assert_eq!(
        names(root),
        ["dangling", "folder", "in.tsv", "out.tsv", "x.tsv"]
    );
}
