//! `include/ppg.h` is what cbindgen generates from `ppg-ffi` today.
//!
//! Needs cbindgen (CI installs 0.29.4); a missing tool fails the test unless
//! `PPG_SKIP_FOREIGN=1`.

mod support;

use std::process::Command;
use support::{require, root, run};

#[test]
fn header_is_current() {
    if !require("header_is_current", &[("cbindgen", "--version")]) {
        return;
    }
    let root = root();
    let fresh = std::env::temp_dir().join(format!("ppg-header-{}.h", std::process::id()));
    run(
        "cbindgen",
        Command::new("cbindgen")
            .current_dir(&root)
            .args([
                "--config",
                "ppg-ffi/cbindgen.toml",
                "--crate",
                "ppg-ffi",
                "--quiet",
            ])
            .arg("--output")
            .arg(&fresh),
    );
    let generated = std::fs::read_to_string(&fresh).expect("cbindgen wrote the header");
    let _ = std::fs::remove_file(&fresh);
    let committed =
        std::fs::read_to_string(root.join("include/ppg.h")).expect("include/ppg.h exists");
    assert!(
        generated == committed,
        "include/ppg.h is stale: regenerate it with\n  cbindgen --config ppg-ffi/cbindgen.toml \
         --crate ppg-ffi --output ppg-ffi/include/ppg.h\nand commit it."
    );
}
