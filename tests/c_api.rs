//! The C example and the C tests, built against the release `libppg.a` and run plainly,
//! under AddressSanitizer + UndefinedBehaviorSanitizer, and under valgrind; and one
//! program built against older and newer copies of the header. (The install and
//! pkg-config are the consumers suite's, scripts/suites/consumers.sh.)
//!
//! Needs cc, make and valgrind; a missing tool fails the test unless
//! `PPG_SKIP_FOREIGN=1`.

mod support;

use std::process::Command;
use support::{make, require, root, run, FOREIGN};

const CC: (&str, &str) = ("cc", "--version");
const MAKE: (&str, &str) = ("make", "--version");

#[test]
fn c_example_and_c_tests_pass() {
    if !require("c_example_and_c_tests_pass", &[CC, MAKE]) {
        return;
    }
    let _one_at_a_time = FOREIGN.lock().unwrap_or_else(|e| e.into_inner());
    let out = make(&["run", "test"]);
    assert!(
        out.contains("all checks passed"),
        "rerank did not finish its checks"
    );
    assert!(out.contains("all tests passed"), "test_ppg did not pass");
    assert!(
        out.contains("panic poisons the engine") && !out.contains("skipped (build with"),
        "the panic test did not run"
    );
}

#[test]
fn c_under_address_and_undefined_behavior_sanitizers() {
    if !require("c_under_sanitizers", &[CC, MAKE]) {
        return;
    }
    let _one_at_a_time = FOREIGN.lock().unwrap_or_else(|e| e.into_inner());
    let out = make(&["asan"]);
    assert!(out.contains("all checks passed") && out.contains("all tests passed"));
}

#[test]
fn c_under_valgrind_has_no_errors_and_no_leaks() {
    if !require("c_under_valgrind", &[CC, MAKE, ("valgrind", "--version")]) {
        return;
    }
    let _one_at_a_time = FOREIGN.lock().unwrap_or_else(|e| e.into_inner());
    // valgrind runs with --error-exitcode=1 and --errors-for-leak-kinds=all: any error or
    // any block left allocated fails `make valgrind`.
    let out = make(&["valgrind"]);
    assert!(out.contains("all checks passed") && out.contains("all tests passed"));
}

/// `c-examples/c/header_versions.c` compiled against a copy of `ppg.h` without
/// `ppg_train_config`'s newest field (`grow`), the header itself, and a copy with a field
/// appended, each linked with the current `libppg.a`. The old program's struct is
/// smaller: the library reads and writes only its bytes (the program checks the bytes
/// after it) and `grow` takes its default, so it trains exactly as the current program
/// with `grow` false, not as with `grow` true (which the byte after the old struct, set to
/// 1, would mean if read). The newer program is refused with PPG_STATUS_VERSION_MISMATCH.
#[test]
fn a_program_built_against_an_older_or_newer_header() {
    if !require("header_versions", &[CC, MAKE]) {
        return;
    }
    let _one_at_a_time = FOREIGN.lock().unwrap_or_else(|e| e.into_inner());
    make(&["libs"]);
    let root = root();
    let dir = root.join("target/c-examples/header-versions");
    let _ = std::fs::remove_dir_all(&dir);
    let header = std::fs::read_to_string(root.join("include/ppg.h")).expect("include/ppg.h");
    // ppg_train_config's newest fields (issue 29); the old copy is the layout before them.
    let newest = [
        "  bool intra;\n",
        "  bool hold;\n",
        "  bool certify;\n",
        "  double certify_tolerance;\n",
    ];
    for field in newest {
        assert_eq!(
            header.matches(field).count(),
            1,
            "ppg.h declares `{field}` once"
        );
    }
    let old = newest
        .iter()
        .fold(header.clone(), |h, field| h.replace(field, ""));
    let last = newest[newest.len() - 1];
    let copies = [
        ("old", old, "-DPPG_HEADER_OLD"),
        ("current", header.clone(), "-DPPG_HEADER_CURRENT"),
        (
            "newer",
            header.replace(last, &format!("{last}  double appended_later;\n")),
            "-DPPG_HEADER_NEWER",
        ),
    ];
    let mut programs = Vec::new();
    for (name, text, define) in copies {
        let include = dir.join(name);
        std::fs::create_dir_all(&include).expect("a folder under target/");
        std::fs::write(include.join("ppg.h"), text).expect("the header copy");
        let exe = dir.join(format!("header_versions-{name}"));
        let mut cc = Command::new("cc");
        cc.args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Wpedantic",
            "-Werror",
            "-O1",
            define,
        ])
        .arg("-I")
        .arg(&include)
        .arg(root.join("c-examples/c/header_versions.c"))
        .arg(root.join("target/c-examples/cargo/release/libppg.a"))
        .args(["-lm", "-lpthread", "-ldl", "-o"])
        .arg(&exe);
        run(
            &format!("cc header_versions.c against the {name} header"),
            &mut cc,
        );
        programs.push(exe);
    }
    let report = |exe: &std::path::Path, args: &[&str]| {
        let out = run("header_versions", Command::new(exe).args(args));
        out.split_once(": ")
            .map(|(_, r)| r.to_owned())
            .unwrap_or(out)
    };
    let old = report(&programs[0], &[]);
    let current = report(&programs[1], &[]);
    let held = report(&programs[1], &["hold"]);
    assert_eq!(
        old, current,
        "the old header's missing hold and certify are not off"
    );
    assert_ne!(
        current, held,
        "hold changes the run, so the comparison above means something"
    );
    let newer = run("header_versions (newer)", &mut Command::new(&programs[2]));
    assert!(newer.contains("newer header refused"), "{newer}");
}

/// The C report's relevance certificate (issue 36 point 2: `ndcg`, `ndcg_bound`,
/// `ndcg_exact`, `ndcg_gap` of `ppg_train_report`'s fourth layout) equals the last four
/// columns of `ppg rerank --report` on the same rows and seed: `tests/doors/rows.tsv`
/// through `c-examples/c/doors.c ... report`, under EEL at 1 and 3 sessions and under
/// expected exposure (a query it passes through: empty in both), value for value.
#[test]
fn the_relevance_certificate_in_c_is_the_clis() {
    if !require("c_relevance_certificate", &[CC]) {
        return;
    }
    let _one_at_a_time = FOREIGN.lock().unwrap_or_else(|e| e.into_inner());
    let (root, target, work, exe) = cli_and_c_program("doors", "relevance");
    let rows = root.join("tests/doors/rows.tsv");
    // The four columns of one line, numbers parsed (C prints 17 digits, Rust the shortest).
    let columns = |line: &str| -> (String, Vec<Option<f64>>) {
        let fields: Vec<&str> = line.split('\t').collect();
        let tail = &fields[fields.len() - 4..];
        let values = tail
            .iter()
            .map(|f| (!f.is_empty()).then(|| f.parse::<f64>().expect("a number")))
            .collect();
        (fields[0].to_owned(), values)
    };
    for (metric, sessions) in [("eel", "1"), ("eel", "3"), ("ee", "3")] {
        let report = work.join("report.tsv");
        run(
            "ppg rerank --report",
            Command::new(target.join("release/ppg"))
                .arg("rerank")
                .arg(&rows)
                .args(["--metric", metric, "--sessions", sessions, "--seed", "11"])
                .args(["--progress", "never", "-o"])
                .arg(work.join("out.tsv"))
                .arg("--report")
                .arg(&report),
        );
        let cli = std::fs::read_to_string(&report).expect("the report");
        let c = run(
            "doors report",
            Command::new(&exe)
                .arg(&rows)
                .args([metric, sessions, "report"]),
        );
        let cli: Vec<_> = cli.lines().skip(1).map(columns).collect();
        let c: Vec<_> = c.lines().map(columns).collect();
        assert_eq!(c, cli, "{metric}, {sessions} sessions");
        // Not all empty: the certificate is there for the queries that have one.
        let certified = c
            .iter()
            .filter(|(_, v)| v.iter().all(Option::is_some))
            .count();
        assert!(certified >= c.len() - 1, "{metric}, {sessions}: {c:?}");
    }
    std::fs::remove_dir_all(&work).ok();
}

/// The certificate through the C one-call is `ppg rerank`'s on production-shaped queries
/// (issue 37: every file meets its target through both): files of `ppg_lab::shapes` (model
/// scores over two groups, graded labels over three, input in model order) through
/// `c-examples/c/certify.c` and through `ppg rerank --report`, under DTR and EEL at 1 and 4
/// sessions: every query's bound, bound_exact, certified and gap equal, value for value.
#[test]
fn the_certificate_in_c_is_the_clis_on_production_shapes() {
    use ppg_lab::shapes::{generate, tsv, Kind};
    if !require("c_certificate_on_shapes", &[CC]) {
        return;
    }
    let _one_at_a_time = FOREIGN.lock().unwrap_or_else(|e| e.into_inner());
    let (_, target, work, exe) = cli_and_c_program("certify", "certify");
    // qid and the four columns, numbers parsed (C prints 17 digits, Rust the shortest).
    let parse = |fields: &[&str]| -> (String, Vec<Option<f64>>) {
        let values = fields[1..]
            .iter()
            .map(|f| (!f.is_empty()).then(|| f.parse::<f64>().expect("a number")))
            .collect();
        (fields[0].to_owned(), values)
    };
    for (name, kind, groups, seed) in [
        ("scores2", Kind::Scores, 2, 11),
        ("graded3", Kind::Graded, 3, 13),
    ] {
        let rows = work.join(format!("{name}.tsv"));
        std::fs::write(&rows, tsv(&generate(kind, groups, 20, 40, seed))).expect("the rows");
        for (metric, sessions) in [("dtr", "1"), ("dtr", "4"), ("eel", "1"), ("eel", "4")] {
            let report = work.join("report.tsv");
            run(
                "ppg rerank --report",
                Command::new(target.join("release/ppg"))
                    .arg("rerank")
                    .arg(&rows)
                    .args(["--metric", metric, "--sessions", sessions, "--threads", "1"])
                    .args(["--progress", "never", "-o"])
                    .arg(work.join("out.tsv"))
                    .arg("--report")
                    .arg(&report),
            );
            let cli = std::fs::read_to_string(&report).expect("the report");
            // qid, cost_before, cost_after, bound, bound_exact, certified, gap, ...
            let cli: Vec<_> = cli
                .lines()
                .skip(1)
                .map(|line| {
                    let f: Vec<&str> = line.split('\t').collect();
                    parse(&[f[0], f[3], f[4], f[5], f[6]])
                })
                .collect();
            let c = run(
                "certify",
                Command::new(&exe).arg(&rows).args([metric, sessions]),
            );
            let c: Vec<_> = c
                .lines()
                .map(|line| parse(&line.split('\t').collect::<Vec<_>>()))
                .collect();
            assert_eq!(c.len(), 40, "{name} {metric} {sessions}");
            assert_eq!(c, cli, "{name}, {metric}, {sessions} sessions");
            // Every query has a bound under both metrics (EEL over three groups included).
            assert!(
                c.iter().all(|(_, v)| v[0].is_some()),
                "{name} {metric} {sessions}"
            );
        }
    }
    std::fs::remove_dir_all(&work).ok();
}

/// TREC 2022's AWRF through the C cost callback (`c-examples/c/awrf2022.c`, the route
/// docs/c-api.md documents) scores the input ranking as `ppg rerank --metric awrf2022`
/// does (`--report`'s `cost_before`, to 1e-12) on the same list, written here as the
/// CLI's files, and training on it never ends worse than the input.
#[test]
fn awrf2022_through_the_cost_callback_is_the_clis() {
    if !require("c_awrf2022_callback", &[CC]) {
        return;
    }
    let _one_at_a_time = FOREIGN.lock().unwrap_or_else(|e| e.into_inner());
    let (_, target, work, exe) = cli_and_c_program("awrf2022", "awrf2022");
    let c = run("awrf2022", &mut Command::new(&exe));
    let field = |text: &str, key: &str| -> f64 {
        let line = text.lines().find(|l| l.starts_with(key)).expect(key);
        line[key.len()..].trim().parse().expect("a number")
    };
    let (before, after) = (field(&c, "input cost"), field(&c, "best cost"));
    // The list of the C program's header, as the CLI's files.
    let labels = [1, 0, 1, 1, 0, 1];
    let mut rows = String::from("qid\titem\tscore\tgroup\tlabel\n");
    for (i, label) in labels.iter().enumerate() {
        rows.push_str(&format!("t1\td{i}\t{}\tx\t{label}\n", 6 - i));
    }
    let table = "d0 A l0 1\nd0 B m0 1\nd1 A l0 1\nd1 B m0 1\nd1 B m1 1\n\
                 d2 A l0 1\nd2 A l1 1\nd2 B @UNKNOWN 1\nd3 A l1 1\nd3 B m1 1\n\
                 d4 A l2 1\nd4 B m1 1\nd5 A l2 1\n";
    let marginals = "A l0 1\nA l1 1\nA l2 1\nB m0 0.4\nB m1 0.4\nB @UNKNOWN 0.2\n";
    for (name, text) in [
        ("rows.tsv", rows.as_str()),
        ("attributes.txt", table),
        ("target.txt", marginals),
    ] {
        std::fs::write(work.join(name), text).expect("write a file");
    }
    let report = work.join("report.tsv");
    run(
        "ppg rerank --metric awrf2022",
        Command::new(target.join("release/ppg"))
            .arg("rerank")
            .arg(work.join("rows.tsv"))
            .args([
                "--metric",
                "awrf2022",
                "--progress",
                "never",
                "--attributes",
            ])
            .arg(work.join("attributes.txt"))
            .arg("--attribute-target")
            .arg(work.join("target.txt"))
            .arg("-o")
            .arg(work.join("out.tsv"))
            .arg("--report")
            .arg(&report),
    );
    let report = std::fs::read_to_string(&report).expect("the report");
    let line = report.lines().nth(1).expect("a query's line");
    let cli: f64 = line
        .split('\t')
        .nth(1)
        .expect("cost_before")
        .parse()
        .expect("a number");
    assert!((before - cli).abs() <= 1e-12, "C {before} vs CLI {cli}");
    assert!(before > 0.0 && after <= before, "{before} -> {after}");
    std::fs::remove_dir_all(&work).ok();
}

/// Builds `ppg` and `libppg.a` into the workspace's target and compiles
/// `c-examples/c/{name}.c` against the library into a scratch directory
/// `target/c-examples/{scratch}-PID`: (root, target, scratch, program).
fn cli_and_c_program(
    name: &str,
    scratch: &str,
) -> (
    std::path::PathBuf,
    std::path::PathBuf,
    std::path::PathBuf,
    std::path::PathBuf,
) {
    let root = root();
    let target = root.join("target");
    for package in ["ppg-ffi", "ppg-cli"] {
        run(
            &format!("cargo build -p {package} --release"),
            Command::new(env!("CARGO"))
                .current_dir(&root)
                .args(["build", "-p", package, "--release", "--target-dir"])
                .arg(&target),
        );
    }
    let work = target.join(format!("c-examples/{scratch}-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("a scratch directory");
    let exe = work.join(name);
    run(
        &format!("cc {name}.c"),
        Command::new("cc")
            .args([
                "-std=c99",
                "-Wall",
                "-Wextra",
                "-Wpedantic",
                "-Werror",
                "-O1",
                "-I",
            ])
            .arg(root.join("include"))
            .arg(root.join(format!("c-examples/c/{name}.c")))
            .arg(target.join("release/libppg.a"))
            .args(["-lm", "-lpthread", "-ldl", "-o"])
            .arg(&exe),
    );
    (root, target, work, exe)
}
