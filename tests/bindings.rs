//! The C++, Go and Java bindings (`c-examples/`, `go/`), built against the release libppg
//! and run: the C++ example through CMake + pkg-config against the release tarball installed
//! by scripts/install (plainly, under valgrind, and under AddressSanitizer +
//! UndefinedBehaviorSanitizer), `go test` in `go/` (the Go module, linked through pkg-config
//! against this build's libppg; the README's Go example among its tests), and `javac` +
//! `java` of the JNA test and of the README's Java example. Each program checks its own
//! re-rankings and exits non-zero on a failure.
//! The C++ wrapper `include/ppg.hpp` has tests of its own: `c-examples/cpp/test_ppg_hpp.cpp`
//! run with and without exceptions, the warning matrix (g++ and clang++, C++17 and C++20),
//! the message below C++17, and the version check against an older library.
//!
//! Needs g++, clang++, cmake, make, pkg-config, valgrind and cargo-c (C++), go (Go), javac, java and JNA's jar
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
const CLANGXX: Tool = ("clang++", "--version", "clang");
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
/// The Java API's sources in c-examples/java/ppg (what scripts/dist.d/40-jar.sh compiles
/// into the jar's base; the tests and examples beside them are not part of it).
const JAVA_API: [&str; 7] = [
    "Ppg.java",
    "PpgConstants.java",
    "Binding.java",
    "Bindings.java",
    "Loader.java",
    "JnaBinding.java",
    "PpgLibrary.java",
];

/// A JDK 22 or later for the FFM binding: `PPG_JDK22`, else the first `/usr/lib/jvm/*`
/// whose `release` file says 22 or more (Debian 12 packages none: Temurin 25 is one).
fn jdk22() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("PPG_JDK22") {
        return Some(PathBuf::from(home));
    }
    let mut homes: Vec<PathBuf> = std::fs::read_dir("/usr/lib/jvm")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    homes.sort();
    homes.into_iter().find(|home| {
        std::fs::read_to_string(home.join("release")).is_ok_and(|r| {
            r.lines()
                .find_map(|l| l.strip_prefix("JAVA_VERSION=\""))
                .and_then(|v| v.split(['.', '"']).next()?.parse::<u32>().ok())
                .is_some_and(|feature| feature >= 22)
        }) && home.join("bin/javac").is_file()
    })
}

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
         build-essential clang cmake pkg-config valgrind golang-go default-jdk-headless libjna-java`; or set \
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

/// The flags the wrapper promises to be clean under (issue 26), plus -Werror.
const STRICT: [&str; 6] = [
    "-Wall",
    "-Wextra",
    "-pedantic",
    "-Wconversion",
    "-Wshadow",
    "-Werror",
];

/// Compiles (and with `link`, links against the release libppg.a) a C++ source of
/// `c-examples/cpp` with `compiler`, the strict warnings and `flags`, into `out`.
/// `include` directories come before the repository's `include/`.
fn cxx(compiler: &str, source: &str, flags: &[&str], include: &[&Path], out: &Path, link: bool) {
    let mut cmd = Command::new(compiler);
    cmd.args(STRICT).args(flags);
    for dir in include {
        cmd.arg("-I").arg(dir);
    }
    cmd.arg("-I")
        .arg(root().join("include"))
        .arg(root().join("c-examples/cpp").join(source))
        .arg("-o")
        .arg(out);
    if link {
        cmd.arg(release_lib_dir().join("libppg.a"))
            .args(["-lm", "-lpthread", "-ldl"]);
    } else {
        cmd.arg("-c");
    }
    run(
        &format!("{compiler} {} {source}", flags.join(" ")),
        &mut cmd,
    );
}

#[test]
fn cpp_wrapper_tests_pass_with_and_without_exceptions() {
    if !require("cpp_wrapper", &[GXX]) {
        return;
    }
    let dir = scratch("cpp-wrapper");
    // With exceptions: both forms of every call. Without: the try_ forms alone, under
    // AddressSanitizer + UndefinedBehaviorSanitizer.
    let builds: [(&str, &[&str], &str); 2] = [
        ("with", &["-std=c++17", "-O1", "-g"], "exceptions on"),
        (
            "without",
            &[
                "-std=c++17",
                "-O1",
                "-g",
                "-fno-exceptions",
                "-fsanitize=address,undefined",
                "-fno-sanitize-recover=all",
            ],
            "exceptions off",
        ),
    ];
    for (name, flags, says) in builds {
        let exe = dir.join(format!("test_ppg_hpp-{name}"));
        cxx("g++", "test_ppg_hpp.cpp", flags, &[], &exe, true);
        let out = run(
            &format!("test_ppg_hpp ({name} exceptions)"),
            Command::new(&exe).env("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1"),
        );
        assert!(out.contains(says), "test_ppg_hpp did not say {says:?}");
        assert!(
            out.contains("all checks passed"),
            "test_ppg_hpp ({name} exceptions) did not finish its checks"
        );
    }
    clean(&[&dir]);
}

#[test]
fn cpp_wrapper_is_warning_free_with_gxx_and_clangxx_cpp17_and_cpp20() {
    if !require("cpp_wrapper_warnings", &[GXX, CLANGXX]) {
        return;
    }
    // Compile only: what runs is the same code, run by the test above.
    let dir = scratch("cpp-warnings");
    let object = dir.join("out.o");
    // Each source with the exception setting it is built with elsewhere, the test both ways.
    let sources: [(&str, &[&str]); 4] = [
        ("rerank.cpp", &[]),
        ("doors.cpp", &["-fno-exceptions"]),
        ("test_ppg_hpp.cpp", &[]),
        ("test_ppg_hpp.cpp", &["-fno-exceptions"]),
    ];
    for compiler in ["g++", "clang++"] {
        for std in ["-std=c++17", "-std=c++20"] {
            for (source, extra) in sources {
                let flags: Vec<&str> = std::iter::once(std).chain(extra.iter().copied()).collect();
                cxx(compiler, source, &flags, &[], &object, false);
            }
        }
    }
    clean(&[&dir]);
}

#[test]
fn cpp_wrapper_below_cpp17_says_so_and_nothing_else() {
    if !require("cpp_wrapper_cpp14", &[GXX, CLANGXX]) {
        return;
    }
    let dir = scratch("cpp14");
    let source = dir.join("uses_ppg_hpp.cpp");
    std::fs::write(&source, "#include <ppg.hpp>\nint main() { return 0; }\n")
        .unwrap_or_else(|e| panic!("cannot write {source:?}: {e}"));
    for compiler in ["g++", "clang++"] {
        let out = Command::new(compiler)
            .args(["-std=c++14", "-fsyntax-only", "-I"])
            .arg(root().join("include"))
            .arg(&source)
            .output()
            .unwrap_or_else(|e| panic!("cannot start {compiler}: {e}"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "{compiler} -std=c++14 accepted ppg.hpp"
        );
        let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error:")).collect();
        assert!(
            errors.len() == 1 && errors[0].contains("ppg.hpp needs C++17 or later"),
            "{compiler} -std=c++14: want the one error naming C++17, got:\n{stderr}"
        );
    }
    clean(&[&dir]);
}

#[test]
fn cpp_wrapper_names_both_versions_against_an_older_library() {
    if !require("cpp_wrapper_version", &[GXX]) {
        return;
    }
    // A copy of ppg.h one patch version ahead of the library, and ppg.hpp next to it: as if
    // the program had been compiled against a newer release than the libppg it runs against.
    let dir = scratch("cpp-newer-header");
    let header = std::fs::read_to_string(root().join("include/ppg.h")).expect("include/ppg.h");
    let define = |name: &str| -> String {
        let prefix = format!("#define {name} ");
        header
            .lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("ppg.h defines no {name}"))
            .trim()
            .to_string()
    };
    let (major, minor) = (define("PPG_VERSION_MAJOR"), define("PPG_VERSION_MINOR"));
    let patch: u32 = define("PPG_VERSION_PATCH")
        .parse()
        .expect("a numeric patch");
    // PPG_VERSION_STRING is spelt from the three numbers, so it follows.
    let bumped = header.replace(
        &format!("#define PPG_VERSION_PATCH {patch}"),
        &format!("#define PPG_VERSION_PATCH {}", patch + 1),
    );
    assert_ne!(bumped, header, "the version macros were not rewritten");
    std::fs::write(dir.join("ppg.h"), bumped).expect("write the newer ppg.h");
    // ppg.hpp includes the ppg.h next to it.
    std::fs::copy(root().join("include/ppg.hpp"), dir.join("ppg.hpp")).expect("copy ppg.hpp");

    let exe = dir.join("test_ppg_hpp-newer-header");
    cxx(
        "g++",
        "test_ppg_hpp.cpp",
        &["-std=c++17", "-DPPG_TEST_EXPECT_MISMATCH"],
        &[&dir],
        &exe,
        true,
    );
    let out = run("test_ppg_hpp (newer header)", &mut Command::new(&exe));
    let want = format!(
        "(ppg.h {major}.{minor}.{}, libppg {major}.{minor}.{patch})",
        patch + 1
    );
    assert!(
        out.contains(&want),
        "the version mismatch should read {want:?}:\n{out}"
    );
    assert!(
        out.contains("all checks passed"),
        "test_ppg_hpp (newer header) failed"
    );
    clean(&[&dir]);
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
    let out = go_test("go", "go test (go/)", &["-v", "./..."], &[]);
    assert!(out.contains("PASS"), "go test printed no PASS");
}

/// `go test -count=1 ARGS` in go/ with the variables `env`, returning its output; its
/// scratch folders are named after `tag`, one per test (tests run at once). The
/// module links libppg through `#cgo pkg-config: ppg`, as a user's build does; here a
/// pkg-config file names this build's header and library (the consumers suite builds it
/// against the installed release instead), and the test loads libppg.so from there.
/// Offline and self-contained: no module proxy, no toolchain download, and a fresh build
/// cache each run (go does not notice that the libppg it links has changed), removed
/// after: it is some hundred megabytes.
fn go_test(tag: &str, what: &str, args: &[&str], env: &[(&str, &Path)]) -> String {
    let lib_dir = release_lib_dir();
    let pc_dir = scratch(&format!("{tag}-pkgconfig"));
    let pc = format!(
        "Name: ppg\nDescription: this checkout's libppg\nVersion: {}\nCflags: -I{}\nLibs: -L{} -lppg\n",
        env!("CARGO_PKG_VERSION"),
        root().join("include").display(),
        lib_dir.display()
    );
    std::fs::write(pc_dir.join("ppg.pc"), pc)
        .unwrap_or_else(|e| panic!("cannot write ppg.pc: {e}"));
    let work = scratch(tag);
    let mut go = Command::new("go");
    go.current_dir(root().join("go"))
        .args(["test", "-count=1"])
        .args(args)
        .env("CGO_ENABLED", "1")
        .env("GO111MODULE", "on")
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .env("GOTOOLCHAIN", "local")
        .env("GOCACHE", work.join("cache"))
        .env("GOPATH", work.join("path"))
        .env("GOTMPDIR", &work)
        .env("PKG_CONFIG_PATH", &pc_dir)
        .env("LD_LIBRARY_PATH", &lib_dir);
    for (key, value) in env {
        go.env(key, value);
    }
    let out = run(what, &mut go);
    clean(&[&work, &pc_dir]);
    out
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

/// The FFM binding (c-examples/java/java22, the jar's META-INF/versions/22) on a JDK 22 or
/// later with no JNA on the class path: PpgTest's checks and the README's example, as the
/// JNA test runs them; with `-Dppg.binding=jna` (JNA on the class path) the same JVM runs
/// them through JNA. Native access enabled: no warning may appear.
#[test]
fn java_ffm_test_passes() {
    if !require("java_ffm", &[JAVAC]) {
        return;
    }
    let Some(jdk) = jdk22() else {
        panic!(
            "java_ffm: no JDK 22 or later: set PPG_JDK22 to one's home (Debian 12 packages \
             none; e.g. Temurin 25), or PPG_SKIP_FOREIGN=1 to skip the cross-language tests."
        );
    };
    let jna = std::env::var_os("PPG_JNA_JAR")
        .map_or_else(|| PathBuf::from("/usr/share/java/jna.jar"), PathBuf::from);
    let lib_dir = release_lib_dir();
    let src = root().join("c-examples/java/ppg");
    let base = scratch("java-ffm-base");
    let v22 = scratch("java-ffm-22");
    run(
        "javac --release 16 (c-examples/java/ppg)",
        Command::new(jdk.join("bin/javac"))
            .args(["--release", "16", "-Xlint:all", "-Werror", "-cp"])
            .arg(&jna)
            .arg("-d")
            .arg(&base)
            .args(JAVA_API.map(|f| src.join(f)))
            .args(["PpgTest.java", "Example.java"].map(|f| src.join(f))),
    );
    let src22 = root().join("c-examples/java/java22/ppg");
    run(
        "javac --release 22 (c-examples/java/java22)",
        Command::new(jdk.join("bin/javac"))
            .args(["--release", "22", "-Xlint:all", "-Werror", "-cp"])
            .arg(&base)
            .arg("-d")
            .arg(&v22)
            .arg(src22.join("Bindings.java"))
            .arg(src22.join("FfmBinding.java")),
    );
    let java = |class: &str, binding: &str| {
        let mut parts = vec![v22.clone(), base.clone()];
        if binding == "jna" {
            parts.push(jna.clone());
        }
        let out = Command::new(jdk.join("bin/java"))
            .arg("--enable-native-access=ALL-UNNAMED")
            .arg(format!("-Dppg.binding={binding}"))
            .arg(format!("-Djna.library.path={}", lib_dir.display()))
            .arg("-cp")
            .arg(std::env::join_paths(parts).expect("a class path"))
            .arg(class)
            .output()
            .expect("run java");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            out.status.success(),
            "java {class} ({binding}) failed:\n{stdout}\n{stderr}"
        );
        assert!(
            !stderr.contains("WARNING"),
            "java {class} ({binding}) warned:\n{stderr}"
        );
        stdout
    };
    for binding in ["ffm", "jna"] {
        let out = java("ppg.PpgTest", binding);
        assert!(
            out.contains(&format!(" through {binding}\n")) && out.contains("all checks passed"),
            "PpgTest ({binding}) printed:\n{out}"
        );
        assert_eq!(java("ppg.Example", binding).trim(), "8 true");
    }
    clean(&[&base, &v22]);
}

/// The jar's own `libppg.so` (at JNA's resource path) loaded as a user of the released jar
/// loads it, with `jna.tmpdir` a scratch folder: the copy is deleted once loaded, so a JVM
/// killed with SIGKILL after loading leaves nothing; a copy a dead JVM left is removed by the
/// next load; and where the folder is mounted noexec (a tmpfs in a user and mount namespace
/// of its own, `unshare -rm`, when the system allows one) the system's `libppg.so.0.MINOR`
/// is loaded instead, or the error says what to set.
#[test]
fn java_jar_copy_loads_anywhere_and_leaves_nothing() {
    if !require(
        "java_jar_copy",
        &[JAVAC, JAVA, ("jar", "--version", "default-jdk-headless")],
    ) {
        return;
    }
    let jar = std::env::var_os("PPG_JNA_JAR")
        .map_or_else(|| PathBuf::from("/usr/share/java/jna.jar"), PathBuf::from);
    assert!(
        jar.is_file(),
        "java_jar_copy: JNA's jar not found at {}",
        jar.display()
    );
    let lib_dir = release_lib_dir();
    let classes = scratch("java-copy-classes");
    // A program that loads the library, says its version and waits when asked to.
    let hold = classes.join("Hold.java");
    std::fs::write(
        &hold,
        "public class Hold { public static void main(String[] a) throws Exception {\n\
         System.out.println(ppg.Ppg.version()); System.out.flush();\n\
         if (a.length > 0) Thread.sleep(600_000); } }\n",
    )
    .expect("write Hold.java");
    let src = root().join("c-examples/java/ppg");
    run(
        "javac (the jar's classes and Hold)",
        Command::new("javac")
            .args(["-Xlint:all", "-Werror", "-cp"])
            .arg(&jar)
            .arg("-d")
            .arg(&classes)
            .args(JAVA_API.map(|f| src.join(f)))
            .arg(&hold),
    );
    // Inside a jar, as released: JNA would use a resource in a plain folder where it lies.
    let resources = scratch("java-copy-resources");
    std::fs::create_dir_all(resources.join("linux-x86-64")).expect("resource folder");
    std::fs::copy(
        lib_dir.join("libppg.so"),
        resources.join("linux-x86-64/libppg.so"),
    )
    .expect("copy libppg.so");
    let natives = resources.join("natives.jar");
    run(
        "jar (linux-x86-64/libppg.so)",
        Command::new("jar")
            .arg("--create")
            .arg("--file")
            .arg(&natives)
            .arg("-C")
            .arg(&resources)
            .arg("linux-x86-64"),
    );
    let class_path = std::env::join_paths([&classes, &natives, &jar]).expect("a class path");
    let tmp = scratch("java-copy-tmp");
    let java = |args: &[&str]| {
        let mut cmd = Command::new("java");
        cmd.arg("-cp")
            .arg(&class_path)
            .arg(format!("-Djna.tmpdir={}", tmp.display()))
            .arg("Hold")
            .args(args)
            .env_remove("LD_LIBRARY_PATH");
        cmd
    };
    let left = || -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&tmp)
            .expect("list the temporary folder")
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    };
    let version = env!("CARGO_PKG_VERSION");

    // A copy left by a JVM that no longer runs: the pid of a process that has exited.
    let mut gone = Command::new("true").spawn().expect("run true");
    gone.wait().expect("wait for true");
    std::fs::write(tmp.join(format!("ppg-{}-1-libppg.so", gone.id())), b"stale")
        .expect("plant a stale copy");
    let out = run("java Hold (the jar's copy)", &mut java(&[]));
    assert_eq!(out.trim(), version);
    assert!(left().is_empty(), "left in jna.tmpdir: {:?}", left());

    // Killed with SIGKILL once loaded.
    let mut held = java(&["wait"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start java Hold wait");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(held.stdout.take().expect("stdout")),
        &mut line,
    )
    .expect("read the version");
    assert_eq!(line.trim(), version);
    held.kill().expect("SIGKILL");
    held.wait().expect("wait for the killed JVM");
    assert!(
        left().is_empty(),
        "a JVM killed with SIGKILL left {:?}",
        left()
    );

    // jna.tmpdir mounted noexec.
    let namespaces = Command::new("unshare")
        .args(["-rm", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if namespaces {
        let (major, minor) = {
            let mut parts = version.split('.');
            (parts.next().unwrap(), parts.next().unwrap())
        };
        let soname = if major == "0" {
            format!("libppg.so.0.{minor}")
        } else {
            format!("libppg.so.{major}")
        };
        let system = scratch("java-copy-system");
        std::fs::copy(lib_dir.join("libppg.so"), system.join(&soname))
            .expect("copy the system library");
        let noexec = |java: Command| {
            let mut cmd = Command::new("unshare");
            cmd.args([
                "-rm",
                "sh",
                "-c",
                "mount -t tmpfs -o noexec tmpfs \"$0\" && exec \"$@\"",
            ])
            .arg(&tmp)
            .arg(java.get_program())
            .args(java.get_args())
            .env_remove("LD_LIBRARY_PATH");
            cmd
        };
        let out = run(
            "java Hold, jna.tmpdir noexec, the system's library",
            noexec(java(&[])).env("LD_LIBRARY_PATH", &system),
        );
        assert_eq!(out.trim(), version);
        let out = noexec(java(&[]))
            .output()
            .expect("run java Hold, nothing loadable");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "loaded a library from a noexec folder?"
        );
        for says in [
            "not loaded",
            "noexec",
            &soname,
            "-Djna.tmpdir=",
            "-Djna.library.path=",
        ] {
            assert!(
                stderr.contains(says),
                "the error does not say {says:?}:\n{stderr}"
            );
        }
        clean(&[&system]);
    } else {
        eprintln!("java_jar_copy: no user and mount namespaces (unshare -rm): noexec part skipped");
    }
    clean(&[&classes, &resources, &tmp]);
}

/// The same answer from every door (issue 29): the rows of `tests/doors/rows.tsv` and seed 11
/// through `ppg rerank`, the C API (`c-examples/c/doors.c`), C++ (`c-examples/cpp/doors.cpp`,
/// ppg.hpp without exceptions), Go (`TestDoors`) and Java (`ppg.Doors`, through JNA and, on a
/// JDK 22 or later, through FFM), each with its
/// recommended recipe over 3 sessions, under EEL and under the official expected exposure
/// (issue 32), where query `e`, without a relevant item, has no value and every door
/// passes it through, and over 1 session under EEL, where the recipe returns the most
/// relevant optimum (issue 36; query `f` is one where it differs from the search's first
/// optimum): identical rankings. (Python's `rerank_frame` is held to
/// `ppg rerank`'s output by the Python suite.)
#[test]
fn every_door_gives_the_same_rankings() {
    if !require(
        "doors",
        &[
            ("cc", "--version", "gcc (build-essential)"),
            GXX,
            GO,
            JAVAC,
            JAVA,
        ],
    ) {
        return;
    }
    let lib_dir = release_lib_dir();
    let root = root();
    let rows = root.join("tests/doors/rows.tsv");
    let work = scratch("doors");
    run(
        "cargo build -p ppg-cli --release",
        Command::new(env!("CARGO"))
            .current_dir(&root)
            .args(["build", "-p", "ppg-cli", "--release", "--target-dir"])
            .arg(root.join("target")),
    );
    let c_exe = work.join("doors");
    run(
        "cc doors.c",
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
            .arg(root.join("c-examples/c/doors.c"))
            .arg(lib_dir.join("libppg.a"))
            .args(["-lm", "-lpthread", "-ldl", "-o"])
            .arg(&c_exe),
    );
    let cpp_exe = work.join("doors-cpp");
    cxx(
        "g++",
        "doors.cpp",
        &["-std=c++17", "-O1", "-fno-exceptions"],
        &[],
        &cpp_exe,
        true,
    );
    let jar = std::env::var_os("PPG_JNA_JAR")
        .map_or_else(|| PathBuf::from("/usr/share/java/jna.jar"), PathBuf::from);
    let classes = work.join("classes");
    let src = root.join("c-examples/java/ppg");
    run(
        "javac (doors)",
        Command::new("javac")
            .args(["-Xlint:all", "-Werror", "-cp"])
            .arg(&jar)
            .arg("-d")
            .arg(&classes)
            .args(JAVA_API.map(|f| src.join(f)))
            .arg(src.join("Doors.java")),
    );
    let class_path = std::env::join_paths([&classes, &jar]).expect("a class path");
    // The Java door through FFM too, on a JDK 22+ (java_ffm_test_passes fails without one).
    let ffm = jdk22().map(|jdk| {
        let classes22 = work.join("classes22");
        run(
            "javac --release 22 (doors, FFM)",
            Command::new(jdk.join("bin/javac"))
                .args(["--release", "22", "-Xlint:all", "-Werror", "-cp"])
                .arg(&classes)
                .arg("-d")
                .arg(&classes22)
                .arg(root.join("c-examples/java/java22/ppg/Bindings.java"))
                .arg(root.join("c-examples/java/java22/ppg/FfmBinding.java")),
        );
        let path = std::env::join_paths([&classes22, &classes]).expect("a class path");
        (jdk.join("bin/java"), path)
    });
    if ffm.is_none() {
        eprintln!("doors: no JDK 22 or later, the Java door through FFM skipped");
    }

    for (metric, sessions) in [("eel", 3), ("ee", 3), ("eel", 1)] {
        let count = sessions.to_string();
        let expected = run(
            "ppg rerank (doors)",
            Command::new(root.join("target/release/ppg"))
                .arg("rerank")
                .arg(&rows)
                .args([
                    "--metric",
                    metric,
                    "--sessions",
                    &count,
                    "--seed",
                    "11",
                    "--progress",
                    "never",
                ]),
        );
        // A header and 46 items in each session.
        assert_eq!(
            expected.lines().count(),
            1 + 46 * sessions,
            "ppg rerank printed {expected}"
        );
        if metric == "ee" {
            // Query e has no relevant item: its input ranking, in every session.
            let e: Vec<&str> = expected
                .lines()
                .filter(|l| l.starts_with("e\t"))
                .map(|l| l.rsplit('\t').next().unwrap_or(""))
                .collect();
            assert_eq!(
                e,
                ["140", "141", "142", "143"].repeat(sessions),
                "{expected}"
            );
        }

        let c = run(
            "doors (C)",
            Command::new(&c_exe).arg(&rows).args([metric, &count]),
        );
        assert_eq!(
            c, expected,
            "{metric}, {sessions} sessions: the C door differs from ppg rerank"
        );

        let cpp = run(
            "doors (C++)",
            Command::new(&cpp_exe).arg(&rows).args([metric, &count]),
        );
        assert_eq!(
            cpp, expected,
            "{metric}, {sessions} sessions: the C++ door differs from ppg rerank"
        );

        let go_out = work.join("go.tsv");
        go_test(
            "go-doors",
            "go test -run TestDoors (go/)",
            &["-run", "TestDoors", "./..."],
            &[
                ("PPG_DOORS_ROWS", &rows),
                ("PPG_DOORS_OUT", &go_out),
                ("PPG_DOORS_METRIC", Path::new(metric)),
                ("PPG_DOORS_SESSIONS", Path::new(&count)),
            ],
        );
        let go = std::fs::read_to_string(&go_out).expect("the Go door's output");
        assert_eq!(
            go, expected,
            "{metric}, {sessions} sessions: the Go door differs from ppg rerank"
        );

        let java = run(
            "java ppg.Doors",
            Command::new("java")
                .arg("-cp")
                .arg(&class_path)
                .arg(format!("-Djna.library.path={}", lib_dir.display()))
                .arg("ppg.Doors")
                .arg(&rows)
                .args([metric, &count]),
        );
        assert_eq!(
            java, expected,
            "{metric}, {sessions} sessions: the Java door differs from ppg rerank"
        );
        if let Some((java22, path)) = &ffm {
            let java = run(
                "java ppg.Doors (FFM)",
                Command::new(java22)
                    .arg("--enable-native-access=ALL-UNNAMED")
                    .arg("-cp")
                    .arg(path)
                    .arg(format!("-Djna.library.path={}", lib_dir.display()))
                    .arg("ppg.Doors")
                    .arg(&rows)
                    .args([metric, &count]),
            );
            assert_eq!(
                java, expected,
                "{metric}, {sessions} sessions: the Java door through FFM differs from ppg rerank"
            );
        }
    }
    clean(&[&work]);
}
