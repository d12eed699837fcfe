//! The C example and the C tests, built against the release `libppg.a` and run plainly,
//! under AddressSanitizer + UndefinedBehaviorSanitizer, and under valgrind; plus the
//! pkg-config install that the C++ bindings use.
//!
//! Needs cc, make, valgrind and pkg-config; a missing tool fails the test unless
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

#[test]
fn pkg_config_install_compiles_the_example() {
    if !require(
        "pkg_config_install",
        &[CC, MAKE, ("pkg-config", "--version")],
    ) {
        return;
    }
    let _one_at_a_time = FOREIGN.lock().unwrap_or_else(|e| e.into_inner());
    let prefix = root().join("target/c-examples/pkgconfig-test");
    let _ = std::fs::remove_dir_all(&prefix);
    make(&["install", &format!("PREFIX={}", prefix.display())]);
    let pc_path = prefix.join("lib/pkgconfig");
    let flags = run(
        "pkg-config --cflags --libs ppg",
        Command::new("pkg-config")
            .args(["--cflags", "--libs", "ppg"])
            .env("PKG_CONFIG_PATH", &pc_path),
    );
    assert!(flags.contains("-lppg"), "pkg-config gave {flags}");
    // Against the installed shared library, found through the recorded run path.
    let exe = prefix.join("rerank-shared");
    let mut cc = Command::new("cc");
    cc.args(["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror"])
        .arg(root().join("c-examples/c/rerank.c"))
        .arg("-o")
        .arg(&exe)
        .args(flags.split_whitespace());
    run("cc rerank.c $(pkg-config --cflags --libs ppg)", &mut cc);
    let out = run("rerank linked with libppg.so", &mut Command::new(&exe));
    assert!(out.contains("all checks passed"));
}
