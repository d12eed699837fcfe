//! What the cross-language tests share: the workspace root, tool checks, and running
//! commands with their output shown on failure.
// Each test target uses its own part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The foreign builds write the same files (c-examples' build directory): one at a time.
pub static FOREIGN: Mutex<()> = Mutex::new(());

/// The workspace root (this package lives in `tests/`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// Whether `PPG_SKIP_FOREIGN=1` asks to skip the cross-language tests.
fn skipping() -> bool {
    std::env::var("PPG_SKIP_FOREIGN").is_ok_and(|v| v == "1")
}

/// Whether `tool` answers `tool <probe>`.
fn available(tool: &str, probe: &str) -> bool {
    Command::new(tool)
        .arg(probe)
        .output()
        .is_ok_and(|out| out.status.success())
}

/// `true` when every tool is there. A missing tool fails the test with what to install,
/// unless `PPG_SKIP_FOREIGN=1`, which makes the test say that it skips (and pass).
pub fn require(test: &str, tools: &[(&str, &str)]) -> bool {
    if skipping() {
        eprintln!("{test}: skipped (PPG_SKIP_FOREIGN=1)");
        return false;
    }
    let missing: Vec<&str> = tools
        .iter()
        .filter(|(tool, probe)| !available(tool, probe))
        .map(|(tool, _)| *tool)
        .collect();
    assert!(
        missing.is_empty(),
        "{test}: required tool(s) not found: {}. Install them (CI does: build-essential, \
         valgrind, pkg-config, `cargo install --locked cbindgen --version 0.29.4`, and cargo-c 0.10.24) or set \
         PPG_SKIP_FOREIGN=1 to skip the cross-language tests.",
        missing.join(", ")
    );
    true
}

/// Runs `cmd`, failing the test with its output unless it succeeds; returns its stdout.
pub fn run(what: &str, cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start {cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{what} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
    // Shown with --nocapture, and by the harness when a later assertion fails.
    println!("{stdout}");
    eprintln!("{stderr}");
    stdout
}

/// `make -C c-examples/c <targets>` with this cargo.
pub fn make(targets: &[&str]) -> String {
    let mut cmd = Command::new("make");
    cmd.arg("-C")
        .arg(root().join("c-examples/c"))
        .args(targets)
        .env("CARGO", env!("CARGO"));
    run(&format!("make {}", targets.join(" ")), &mut cmd)
}
