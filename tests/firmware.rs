//! Both firmware images run on an emulated Cortex-M4F (QEMU's mps2-an386) and print what
//! the host computes, value by value: the Rust image (`ppg-firmware/`) against
//! `ppg-firmware/src/report.rs` run here, the C image (`c-examples/firmware/`) against
//! the same `demo.c` built for the host. Any differing line fails, and so does a panic:
//! the Rust image's panic handler must report and exit non-zero.
//!
//! Needs qemu-system-arm and arm-none-eabi-gcc (Debian: qemu-system-arm,
//! gcc-arm-none-eabi) and the rustup target thumbv7em-none-eabihf; without them the tests
//! fail naming what to install, unless `PPG_SKIP_FIRMWARE=1`.

mod support;

#[path = "../ppg-firmware/src/report.rs"]
mod report;

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::{root, run};

/// Generous: an image runs in about a second, but this machine may be loaded.
const QEMU_TIMEOUT: Duration = Duration::from_secs(300);

/// `true` unless `PPG_SKIP_FIRMWARE=1`; a missing tool fails the test naming its package.
fn required(test: &str) -> bool {
    if std::env::var("PPG_SKIP_FIRMWARE").is_ok_and(|v| v == "1") {
        eprintln!("{test}: skipped (PPG_SKIP_FIRMWARE=1)");
        return false;
    }
    let tools = [
        ("qemu-system-arm", "qemu-system-arm"),
        ("arm-none-eabi-gcc", "gcc-arm-none-eabi"),
    ];
    let missing: Vec<String> = tools
        .iter()
        .filter(|(tool, _)| {
            !Command::new(tool)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(|(tool, package)| format!("{tool} (Debian package {package})"))
        .collect();
    assert!(
        missing.is_empty(),
        "{test}: not found: {}. Install them (`apt-get install qemu-system-arm \
         gcc-arm-none-eabi`, and `rustup target add thumbv7em-none-eabihf`) or set \
         PPG_SKIP_FIRMWARE=1 to skip the firmware tests.",
        missing.join(", ")
    );
    true
}

/// Builds the Rust image (its own workspace and target) and returns its path.
fn rust_image() -> PathBuf {
    let target_dir = root().join("target/firmware");
    run(
        "cargo build (ppg-firmware, thumbv7em-none-eabihf)",
        Command::new(env!("CARGO"))
            // The crate's .cargo/config.toml (target, linker script) is found from here.
            .current_dir(root().join("ppg-firmware"))
            .args(["build", "--release", "--target-dir"])
            .arg(&target_dir)
            // Flags meant for the host build would replace the config's link arguments.
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("CARGO_BUILD_TARGET"),
    );
    target_dir.join("thumbv7em-none-eabihf/release/ppg-firmware")
}

/// Builds the C image and the host build of the same program.
fn c_programs() -> (PathBuf, PathBuf) {
    run(
        "make -C c-examples/firmware",
        Command::new("make")
            .arg("-C")
            .arg(root().join("c-examples/firmware"))
            .arg("all")
            .env("CARGO", env!("CARGO")),
    );
    let build = root().join("target/c-firmware");
    (build.join("demo.elf"), build.join("demo-host"))
}

/// Runs `image` under QEMU with semihosting (`args` as its command line), counting
/// instructions (`-icount shift=0`), killed after [`QEMU_TIMEOUT`].
fn qemu(image: &PathBuf, args: &[&str]) -> Output {
    let mut semihosting = String::from("enable=on,target=native,arg=image");
    for a in args {
        semihosting.push_str(",arg=");
        semihosting.push_str(a);
    }
    let mut child = Command::new("qemu-system-arm")
        .args(["-M", "mps2-an386", "-cpu", "cortex-m4", "-nographic"])
        .args(["-icount", "shift=0", "-semihosting-config", &semihosting])
        .arg("-kernel")
        .arg(image)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("qemu-system-arm starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("qemu-system-arm waits") {
            break status;
        }
        if started.elapsed() > QEMU_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{} did not exit within {QEMU_TIMEOUT:?}", image.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // The images print a few kilobytes at most: the pipes never fill.
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    Output {
        status,
        stdout,
        stderr,
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Fails on the first line that differs, naming its key and both values.
fn assert_same_lines(what: &str, target: &[&str], host: &[&str]) {
    for (i, (t, h)) in target.iter().zip(host).enumerate() {
        let key = h.split(' ').next().unwrap_or("");
        assert_eq!(t, h, "{what}, line {} (`{key}`): target vs host", i + 1);
    }
    assert_eq!(
        target.len(),
        host.len(),
        "{what}: {} lines on the target, {} on the host",
        target.len(),
        host.len()
    );
}

/// The host's golden lines, computed by the code the Rust image runs.
fn host_golden() -> String {
    let mut out = String::new();
    let (mut samples, mut train) = (report::SampleMemory::new(), report::TrainMemory::new());
    report::golden(&mut out, &mut samples, &mut train)
        .expect("the golden computation runs on the host");
    out
}

/// The value of the `measure <key> <value>` line.
fn measured(lines: &[&str], key: &str) -> u64 {
    lines
        .iter()
        .find_map(|l| {
            l.strip_prefix("measure ")?
                .strip_prefix(key)?
                .strip_prefix(' ')
        })
        .and_then(|v| v.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no `measure {key}` line in {lines:?}"))
}

#[test]
fn rust_image_prints_what_the_host_computes() {
    if !required("rust_image_prints_what_the_host_computes") {
        return;
    }
    let out = qemu(&rust_image(), &[]);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "the Rust image failed ({}):\n{stdout}\n{}",
        out.status,
        text(&out.stderr)
    );
    let (measures, values): (Vec<&str>, Vec<&str>) =
        stdout.lines().partition(|l| l.starts_with("measure "));
    let host = host_golden();
    assert_same_lines("Rust image", &values, &host.lines().collect::<Vec<_>>());

    // The counting method: a loop of 2,000,000 instructions (and a few around it),
    // measured to the 40 instructions of one SysTick tick.
    let calibration = measured(&measures, "calibration_loop_1000000");
    assert!(
        (2_000_000..=2_000_000 + 2 * 40).contains(&calibration),
        "SysTick under -icount shift=0 is not 40 instructions a tick: the 2M-instruction \
         loop measured {calibration}"
    );
    // Shown with --nocapture; docs/firmware.md's table comes from these lines.
    println!("{}", measures.join("\n"));
}

#[test]
fn rust_image_panic_exits_non_zero() {
    if !required("rust_image_panic_exits_non_zero") {
        return;
    }
    let out = qemu(&rust_image(), &["panic"]);
    let stderr = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a panicked image must exit 1; stderr:\n{stderr}"
    );
    assert!(
        stderr.contains("panicked at") && stderr.contains("deliberate panic"),
        "the panic handler reports the panic on stderr, got:\n{stderr}"
    );
    assert!(
        !text(&out.stdout).contains("cost_bits"),
        "the image stopped at the panic"
    );
}

#[test]
fn c_image_prints_what_the_host_program_prints() {
    if !required("c_image_prints_what_the_host_program_prints") {
        return;
    }
    let (image, host_program) = c_programs();
    let out = qemu(&image, &[]);
    let target = text(&out.stdout);
    assert!(
        out.status.success(),
        "the C image failed ({}):\n{target}\n{}",
        out.status,
        text(&out.stderr)
    );
    let host = run("demo-host", &mut Command::new(&host_program));
    let target: Vec<&str> = target.lines().collect();
    assert_same_lines("C image", &target, &host.lines().collect::<Vec<_>>());

    // Bad input: the statuses of ppg.h, on both, and the handle left unwritten.
    for expected in [
        "status_too_small 4",  // PPG_STATUS_MEMORY_TOO_SMALL
        "status_misaligned 5", // PPG_STATUS_MISALIGNED
        "status_null_out 1",   // PPG_STATUS_NULL_PARAMETER
        "status_no_items 2",   // PPG_STATUS_INVALID_ARGUMENT
        "status_unknown_kind 2",
        "handle_written 0",
    ] {
        assert!(target.contains(&expected), "C image: no `{expected}` line");
    }
    // The C API's samples and trained result are the Rust API's (ids are positions). The
    // C API's built-in EEL adds up in double precision: the golden run in `f64`, which the
    // Rust image leaves to it, not the image's `single_` one.
    let mut golden = host_golden();
    let mut mem = report::TrainMemory::new();
    let (ppg, trained) = report::trained::<f64>(&mut mem).expect("the golden run on the host");
    report::print_trained(&mut golden, "", &ppg, &trained).expect("printing to a string");
    let shared = |l: &&str| !l.starts_with("rng ") && !l.starts_with("single_");
    for line in golden.lines().filter(shared) {
        assert!(
            target.contains(&line),
            "C image: `{line}` of the Rust golden run is missing"
        );
    }
}
