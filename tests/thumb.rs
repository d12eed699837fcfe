//! The static library builds for a Cortex-M4F (`thumbv7em-none-eabihf`) without std and
//! links into a bare image with nothing else: no allocator, no libc. Prints the archive
//! size and the code size of an image that keeps every `ppg_` function.
//!
//! Needs the rustup target (`rustup target add thumbv7em-none-eabihf`); its absence fails
//! the test unless `PPG_SKIP_FOREIGN=1`.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::{root, run};

const TARGET: &str = "thumbv7em-none-eabihf";

fn rustc_output(args: &[&str]) -> String {
    let out = Command::new("rustc")
        .args(args)
        .output()
        .expect("rustc runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The linker that ships with the Rust toolchain.
fn rust_lld() -> PathBuf {
    let sysroot = rustc_output(&["--print", "sysroot"]);
    let host = rustc_output(&["-vV"])
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .expect("rustc -vV names the host");
    Path::new(sysroot.trim())
        .join("lib/rustlib")
        .join(host)
        .join("bin/rust-lld")
}

/// Bytes of the allocated sections (code and data) of a 32-bit little-endian ELF file.
fn elf32_alloc_bytes(elf: &[u8]) -> u64 {
    let u16_at = |o: usize| u64::from(u16::from_le_bytes([elf[o], elf[o + 1]]));
    let u32_at = |o: usize| u64::from(u32::from_le_bytes(elf[o..o + 4].try_into().unwrap()));
    assert_eq!(&elf[..5], b"\x7fELF\x01", "a 32-bit ELF file");
    let (shoff, shentsize, shnum) = (u32_at(0x20), u16_at(0x2E), u16_at(0x30));
    (0..shnum)
        .map(|i| (shoff + i * shentsize) as usize)
        .filter(|&sh| u32_at(sh + 8) & 0x2 != 0) // SHF_ALLOC
        .filter(|&sh| u32_at(sh + 4) != 8) // not SHT_NOBITS (.bss)
        .map(|sh| u32_at(sh + 20))
        .sum()
}

#[test]
fn static_library_builds_and_links_bare_metal() {
    if std::env::var("PPG_SKIP_FOREIGN").is_ok_and(|v| v == "1") {
        eprintln!("static_library_builds_and_links_bare_metal: skipped (PPG_SKIP_FOREIGN=1)");
        return;
    }
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains(TARGET))
        .unwrap_or(false);
    assert!(
        installed,
        "the {TARGET} target is not installed: `rustup target add {TARGET}`, or set \
         PPG_SKIP_FOREIGN=1 to skip"
    );
    let root = root();
    let target_dir = root.join("target/thumb");
    run(
        "cargo rustc (thumbv7em staticlib, no std)",
        Command::new(env!("CARGO"))
            .current_dir(&root)
            .args([
                "rustc",
                "-p",
                "ppg-ffi",
                "--release",
                "--no-default-features",
            ])
            .args(["--target", TARGET, "--crate-type", "staticlib"])
            .arg("--target-dir")
            .arg(&target_dir),
    );
    let archive = target_dir.join(TARGET).join("release/libppg.a");
    let archive_bytes = std::fs::metadata(&archive).expect("libppg.a built").len();

    // Keep every exported function and link with nothing else: an undefined symbol (an
    // allocator, libc, std) would fail the link.
    let header = std::fs::read_to_string(root.join("include/ppg.h")).expect("ppg.h");
    let functions: Vec<&str> = header
        .lines()
        .filter(|l| !l.starts_with("//") && !l.starts_with("typedef") && !l.starts_with('#'))
        .filter_map(|l| l.split_once(" ppg_").or_else(|| l.split_once("*ppg_")))
        .filter_map(|(_, rest)| rest.split_once('('))
        .map(|(name, _)| name)
        .filter(|name| !matches!(*name, "engine_new" | "engine_free" | "debug_panic"))
        .collect();
    assert!(
        functions.len() >= 15,
        "found the API in ppg.h: {functions:?}"
    );
    let image = target_dir.join("ppg-bare.elf");
    let mut lld = Command::new(rust_lld());
    lld.args(["-flavor", "gnu", "--gc-sections", "-e", "ppg_engine_init"]);
    for f in &functions {
        lld.arg("-u").arg(format!("ppg_{f}"));
    }
    lld.arg(&archive).arg("-o").arg(&image);
    run("rust-lld: a bare image of libppg.a", &mut lld);
    let image_bytes = elf32_alloc_bytes(&std::fs::read(&image).expect("image linked"));
    println!(
        "thumbv7em-none-eabihf libppg.a: {archive_bytes} bytes (unstripped: core's debug info; dist strips it); \
         a bare image keeping all {} functions: {image_bytes} bytes of code and data \
         (release profile)",
        functions.len()
    );
    eprintln!(
        "thumbv7em libppg.a {archive_bytes} B; linked image of {} functions {image_bytes} B",
        functions.len()
    );
}
