//! The C++, Go and Java bindings (`c-examples/`, `go/`), built against the release libppg
//! and run: the C++ example through CMake + pkg-config against the release tarball installed
//! by scripts/install (plainly, under valgrind, and under AddressSanitizer +
//! UndefinedBehaviorSanitizer), `go test` in `go/` (the Go module, linked through pkg-config
//! against this build's libppg; the README's Go example among its tests), and `javac` +
//! `java` of the JNA test and of the README's Java example. Each program checks its own
//! re-rankings and exits non-zero on a failure.
//!
//! Needs g++, cmake, make, pkg-config, valgrind and cargo-c (C++), go (Go), javac, java and JNA's jar
//! (Java); a missing one fails its test naming the Debian package to install, unless
//! `PPG_SKIP_FOREIGN=1`. `PPG_JNA_JAR` overrides the jar's path
//! (default `/usr/share/java/jna.jar`).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use support::{root, run};

/// A tool, the argument that makes it answer, and the Debian package that provides it.
type Tool = (&'static str, &'static str, &'static str);

const GXX: Tool = ("g++", "--version", "g++ (build-essential)");
const MAKE: Tool = ("make", "--version", "make (build-essential)");
const CMAKE: Tool = ("cmake", "--version", "cmake");
const CARGO_C: Tool = (
    "cargo-cinstall",
    "--version",
    "cargo-c (cargo install --locked cargo-c --version 0.10.24)",
);
const PKG_CONFIG: Tool = ("pkg-config", "--version", "pkg-config");
const VALGRIND: Tool = ("valgrind", "--version", "valgrind");
const GO: Tool = ("go", "version", "golang-go");
const JAVAC: Tool = ("javac", "-version", "default-jdk-headless");
const JAVA: Tool = ("java", "-version", "default-jdk-headless");

/// `true` when every tool is there. A missing tool fails the test naming the packages to
/// install, unless `PPG_SKIP_FOREIGN=1`, which makes the test say that it skips (and pass).
/// (`support::require` does the same for the C tools; this one names the packages.)
fn require(test: &str, tools: &[Tool]) -> bool {
    if std::env::var("PPG_SKIP_FOREIGN").is_ok_and(|v| v == "1") {
        eprintln!("{test}: skipped (PPG_SKIP_FOREIGN=1)");
        return false;
    }
    let missing: Vec<String> = tools
        .iter()
        .filter(|(tool, probe, _)| {
            !Command::new(tool)
                .arg(probe)
                .output()
                .is_ok_and(|out| out.status.success())
        })
        .map(|(tool, _, package)| format!("{tool} (install {package})"))
        .collect();
    assert!(
        missing.is_empty(),
        "{test}: required tool(s) not found: {}. CI installs them with `apt-get install \
         build-essential cmake pkg-config valgrind golang-go default-jdk-headless libjna-java`; or set \
         PPG_SKIP_FOREIGN=1 to skip the cross-language tests.",
        missing.join(", ")
    );
    true
}

/// `target/release`, holding a libppg.a and libppg.so built from the current sources:
/// what the Go test's pkg-config file and the Java test's `jna.library.path` name.
/// Built once per test process (cargo itself serialises concurrent builds).
fn release_lib_dir() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let root = root();
            // `--target-dir`: target/release, whatever CARGO_TARGET_DIR the outer cargo
            // may use, so that the folder is known.
            let target = root.join("target");
            run(
                "cargo build -p ppg-ffi --release",
                Command::new(env!("CARGO"))
                    .current_dir(&root)
                    .args(["build", "-p", "ppg-ffi", "--release", "--target-dir"])
                    .arg(&target),
            );
            let dir = target.join("release");
            for lib in ["libppg.a", "libppg.so"] {
                assert!(dir.join(lib).is_file(), "cargo built no {lib} in {dir:?}");
            }
            dir
        })
        .clone()
}

/// A scratch directory `target/c-examples/bindings-<pid>/<name>`, emptied first. Per
/// process, because several `cargo test` runs may share a checkout; each test removes its
/// directories when it passes (a failing one leaves them to look at).
fn scratch(name: &str) -> PathBuf {
    let dir = root()
        .join("target/c-examples")
        .join(format!("bindings-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {dir:?}: {e}"));
    dir
}

/// Removes the scratch directories `dirs`, and their parent once it is empty.
fn clean(dirs: &[&Path]) {
    for dir in dirs {
        let _ = std::fs::remove_dir_all(dir);
        if let Some(parent) = dir.parent() {
            // Fails while another test of this process still has its directory there.
            let _ = std::fs::remove_dir(parent);
        }
    }
}

/// Configures, builds and runs the C++ example in `build` against the install at `prefix`
/// (its pkg-config file, and its libppg.so found through `LD_LIBRARY_PATH`: the install
/// records no run path), with extra CMake `options`.
fn cmake_build_and_run(build: &Path, prefix: &Path, options: &[&str]) -> String {
    let src = root().join("c-examples/cpp");
    run(
        "cmake configure (c-examples/cpp)",
        Command::new("cmake")
            .arg("-S")
            .arg(&src)
            .arg("-B")
            .arg(build)
            .arg("-DCMAKE_BUILD_TYPE=Debug")
            .args(options)
            .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig")),
    );
    run(
        "cmake --build (c-examples/cpp, -Wall -Wextra -Wpedantic -Werror)",
        Command::new("cmake").arg("--build").arg(build),
    );
    run(
        "rerank (C++)",
        Command::new(build.join("rerank"))
            .env("LD_LIBRARY_PATH", prefix.join("lib"))
            .env("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
            .env("UBSAN_OPTIONS", "print_stacktrace=1"),
    )
}

#[test]
fn cpp_example_builds_with_cmake_and_pkg_config_and_passes() {
    if !require(
        "cpp_example",
        &[GXX, MAKE, CMAKE, PKG_CONFIG, VALGRIND, CARGO_C],
    ) {
        return;
    }
    // A user's install: the C part of scripts/dist into a scratch folder, then
    // scripts/install of that tarball under a prefix, which is what a C++ project finds with
    // pkg_check_modules(... IMPORTED_TARGET ppg).
    let dist = scratch("cpp-dist");
    let prefix = scratch("cpp-prefix");
    let version = env!("CARGO_PKG_VERSION");
    run(
        "scripts/dist.d/10-c.sh",
        Command::new("bash")
            .arg(root().join("scripts/dist.d/10-c.sh"))
            .env("PPG_VERSION", version)
            .env("PPG_DIST", &dist)
            .env("PPG_ROOT", root()),
    );
    run(
        "scripts/install",
        Command::new(root().join("scripts/install"))
            .arg("--from")
            .arg(dist.join(format!("ppg-{version}-x86_64-unknown-linux-gnu.tar.gz")))
            .arg("--prefix")
            .arg(&prefix),
    );

    let build = scratch("cpp-build");
    let out = cmake_build_and_run(&build, &prefix, &[]);
    assert!(
        out.contains("all checks passed"),
        "rerank (C++) did not finish its checks"
    );
    // Any memcheck error, or any block left allocated, fails the run.
    let out = run(
        "rerank (C++) under valgrind",
        Command::new("valgrind")
            .args([
                "--error-exitcode=1",
                "--leak-check=full",
                "--errors-for-leak-kinds=all",
                "--quiet",
            ])
            .arg(build.join("rerank"))
            .env("LD_LIBRARY_PATH", prefix.join("lib")),
    );
    assert!(
        out.contains("all checks passed"),
        "rerank (C++, valgrind) did not finish its checks"
    );

    let build_asan = scratch("cpp-build-asan");
    let out = cmake_build_and_run(&build_asan, &prefix, &["-DPPG_SANITIZE=ON"]);
    assert!(
        out.contains("all checks passed"),
        "rerank (C++, ASan+UBSan) did not finish its checks"
    );
    clean(&[&dist, &prefix, &build, &build_asan]);
}

#[test]
fn go_package_tests_pass() {
    if !require(
        "go_package",
        &[
            GO,
            PKG_CONFIG,
            ("gcc", "--version", "gcc (build-essential)"),
        ],
    ) {
        return;
    }
    // The module links libppg through `#cgo pkg-config: ppg`, as a user's build does; here
    // a pkg-config file names this build's header and library (the consumers suite builds
    // it against the installed release instead), and the test loads libppg.so from there.
    let lib_dir = release_lib_dir();
    let pc_dir = scratch("go-pkgconfig");
    let pc = format!(
        "Name: ppg\nDescription: this checkout's libppg\nVersion: {}\nCflags: -I{}\nLibs: -L{} -lppg\n",
        env!("CARGO_PKG_VERSION"),
        root().join("include").display(),
        lib_dir.display()
    );
    std::fs::write(pc_dir.join("ppg.pc"), pc)
        .unwrap_or_else(|e| panic!("cannot write ppg.pc: {e}"));
    // Offline and self-contained: no module proxy, no toolchain download, and a fresh build
    // cache each run (go does not notice that the libppg it links has changed).
    let work = scratch("go");
    let out = run(
        "go test (go/)",
        Command::new("go")
            .current_dir(root().join("go"))
            .args(["test", "-count=1", "-v", "./..."])
            .env("CGO_ENABLED", "1")
            .env("GO111MODULE", "on")
            .env("GOFLAGS", "-mod=mod")
            .env("GOPROXY", "off")
            .env("GOTOOLCHAIN", "local")
            .env("GOCACHE", work.join("cache"))
            .env("GOPATH", work.join("path"))
            .env("GOTMPDIR", &work)
            .env("PKG_CONFIG_PATH", &pc_dir)
            .env("LD_LIBRARY_PATH", &lib_dir),
    );
    assert!(out.contains("PASS"), "go test printed no PASS");
    // A fresh build cache is some hundred megabytes: leave none behind.
    clean(&[&work, &pc_dir]);
}

#[test]
fn java_jna_test_passes() {
    if !require("java_jna", &[JAVAC, JAVA]) {
        return;
    }
    let jar = std::env::var_os("PPG_JNA_JAR")
        .map_or_else(|| PathBuf::from("/usr/share/java/jna.jar"), PathBuf::from);
    assert!(
        jar.is_file(),
        "java_jna: JNA's jar not found at {}: install libjna-java (or set PPG_JNA_JAR), or \
         set PPG_SKIP_FOREIGN=1 to skip the cross-language tests.",
        jar.display()
    );
    let lib_dir = release_lib_dir();

    let src = root().join("c-examples/java/ppg");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&src)
        .unwrap_or_else(|e| panic!("cannot list {src:?}: {e}"))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "java"))
        .collect();
    sources.sort();
    let classes = scratch("java-classes");
    run(
        "javac (c-examples/java)",
        Command::new("javac")
            .args(["-Xlint:all", "-Werror", "-cp"])
            .arg(&jar)
            .arg("-d")
            .arg(&classes)
            .args(&sources),
    );

    let class_path = std::env::join_paths([&classes, &jar]).expect("a class path");
    let out = run(
        "java ppg.PpgTest",
        Command::new("java")
            .arg("-cp")
            .arg(&class_path)
            .arg(format!("-Djna.library.path={}", lib_dir.display()))
            .arg("ppg.PpgTest"),
    );
    assert!(
        out.contains("all checks passed"),
        "PpgTest did not finish its checks"
    );
    // The README's Java example (tests/readme.rs checks that it is this file's text).
    let out = run(
        "java ppg.Example",
        Command::new("java")
            .arg("-cp")
            .arg(&class_path)
            .arg(format!("-Djna.library.path={}", lib_dir.display()))
            .arg("ppg.Example"),
    );
    assert_eq!(
        out.trim(),
        "8 true",
        "the README's Java example printed otherwise"
    );
    clean(&[&classes]);
}
