//! The README is a front door, and what it shows is true: at most 250 lines, links that
//! lead somewhere, the before-and-after figure equal to `docs/results.md`'s cells, the C
//! and C++ examples compiled (warnings are errors) and run as written, and the Go and Java
//! examples the very text of the files that `tests/bindings.rs` runs. (The Rust example is
//! a `ppg-core` doctest, Python and Spark run in `ppg-py/tests/test_readme.py`, the command
//! line in `ppg-cli/tests/readme.rs`, firmware in `tests/firmware.rs`.)
//!
//! The C and C++ examples need cc and g++; a missing one fails the test unless
//! `PPG_SKIP_FOREIGN=1`.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::{require, root, run, FOREIGN};

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// The bodies of the fenced blocks of `lang` in `text` (the fence line ```` ```lang ````).
fn blocks(text: &str, lang: &str) -> Vec<String> {
    let fence = format!("```{lang}");
    let mut found = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line == fence {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            found.push(body.join("\n") + "\n");
        }
    }
    found
}

/// The one block of `lang` in the README.
fn example(lang: &str) -> String {
    let mut found = blocks(&read("README.md"), lang);
    assert_eq!(
        found.len(),
        1,
        "the README should hold one ```{lang} example"
    );
    found.remove(0)
}

#[test]
fn the_readme_is_at_most_250_lines() {
    let lines = read("README.md").lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines, more than 250: move the detail to docs/"
    );
}

#[test]
fn relative_links_of_the_readme_and_docs_lead_to_files_and_headings() {
    let mut pages = vec![PathBuf::from("README.md")];
    for entry in std::fs::read_dir(root().join("docs")).expect("docs/ is there") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(
                path.strip_prefix(root())
                    .expect("under the root")
                    .to_path_buf(),
            );
        }
    }
    for page in pages {
        // Prose only: a lambda's `[](...)` in a code block is no link.
        let mut in_code = false;
        let text: String = read(page.to_str().expect("a UTF-8 path"))
            .lines()
            .filter(|l| {
                in_code ^= l.starts_with("```");
                !in_code && !l.starts_with("```")
            })
            .collect::<Vec<_>>()
            .join("\n");
        let dir = page.parent().unwrap_or(Path::new(""));
        for target in text
            .split("](")
            .skip(1)
            .filter_map(|rest| rest.split(')').next())
        {
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            if target.contains("://") {
                continue;
            }
            let path = if file.is_empty() {
                root().join(&page)
            } else {
                root().join(dir).join(file)
            };
            assert!(
                path.exists(),
                "{}: the link ({target}) leads to no file",
                page.display()
            );
            if !anchor.is_empty() {
                let headings = std::fs::read_to_string(&path).unwrap_or_default();
                assert!(
                    headings
                        .lines()
                        .filter_map(|l| l.strip_prefix('#'))
                        .any(|h| slug(h.trim_start_matches('#')) == anchor),
                    "{}: the link ({target}) names no heading of {}",
                    page.display(),
                    path.display()
                );
            }
        }
    }
}

/// A heading's anchor as GitHub makes it: lower case, punctuation dropped but `-` and `_`,
/// spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The cells of `method`'s row in the section of `results.md` whose title starts with
/// `title`: DTR, its NDCG@10, EEL, its NDCG@10 (the columns without the paper's figures).
fn results_row(results: &str, title: &str, method: &str) -> [String; 4] {
    let section = results
        .split("\n## ")
        .find(|s| s.starts_with(title))
        .unwrap_or_else(|| panic!("docs/results.md has no section \"{title}\""));
    let row = section
        .lines()
        .find(|l| l.starts_with(&format!("| {method} |")))
        .unwrap_or_else(|| panic!("docs/results.md, \"{title}\": no row {method}"));
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    // | method | sampler | gradient | DTR | paper | NDCG | paper | EEL | paper | NDCG | ...
    [cells[4], cells[6], cells[8], cells[10]].map(str::to_owned)
}

#[test]
fn the_figure_is_the_cells_of_docs_results() {
    let readme = read("README.md");
    let results = read("docs/results.md");
    let figure: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("| 2019 |") || l.starts_with("| 2020 |"))
        .collect();
    assert_eq!(figure.len(), 6, "the figure has two years of three rows");
    for row in figure {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (year, utility, ranking) = (cells[1], cells[2], cells[3]);
        let (section, method) = match (utility, ranking) {
            ("-", "before (LTR)") => ("true relevance labels", "ltr"),
            ("true labels", "PPG") => ("true relevance labels", "ppg-intra"),
            ("LTR grades", "PPG") => ("LTR grades", "ppg-intra"),
            other => panic!("a figure row the test does not know: {other:?}"),
        };
        let expected = results_row(&results, &format!("TREC {year}, {section}"), method);
        assert_eq!(
            cells[4..8],
            expected,
            "figure row {row:?} against docs/results.md"
        );
    }
}

/// Builds the release `libppg.a` where `c-examples/c/Makefile` keeps it, and returns it.
fn libppg() -> PathBuf {
    let dir = root().join("target/c-examples/cargo");
    run(
        "cargo build -p ppg-ffi --release",
        Command::new(env!("CARGO"))
            .current_dir(root())
            .args(["build", "-p", "ppg-ffi", "--release", "--target-dir"])
            .arg(&dir),
    );
    dir.join("release/libppg.a")
}

/// Writes `source` as `name` in a scratch folder, compiles it with `compiler` and `flags`
/// against `libppg.a`, runs it, and returns what it printed.
fn compile_and_run(compiler: &str, flags: &[&str], name: &str, source: &str) -> String {
    let dir = root()
        .join("target/c-examples")
        .join(format!("readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {dir:?}: {e}"));
    let file = dir.join(name);
    std::fs::write(&file, source).unwrap_or_else(|e| panic!("cannot write {file:?}: {e}"));
    let exe = dir.join(format!("{name}.exe"));
    run(
        &format!("{compiler} {name}"),
        Command::new(compiler)
            .args(flags)
            .args(["-Wall", "-Wextra", "-Wpedantic", "-Werror"])
            .arg(format!("-I{}", root().join("include").display()))
            .arg(format!("-I{}", root().join("c-examples/cpp").display()))
            .arg(&file)
            .arg(libppg())
            .args(["-lm", "-lpthread", "-ldl", "-o"])
            .arg(&exe),
    );
    let out = run(&format!("the README's {name}"), &mut Command::new(&exe));
    let _ = std::fs::remove_dir_all(&dir);
    out
}

#[test]
fn the_c_example_compiles_and_runs() {
    if !require("readme_c", &[("cc", "--version")]) {
        return;
    }
    let _one_at_a_time = FOREIGN.lock().unwrap_or_else(|e| e.into_inner());
    let out = compile_and_run("cc", &["-std=c99"], "readme.c", &example("c"));
    // Six items of equal utility in two groups over two sessions: exposure can be shared
    // exactly, and the sessions start with items of different groups.
    assert!(
        out.starts_with("EEL 0.0000, first item of each session: "),
        "the C example printed {out:?}"
    );
}

#[test]
fn the_cpp_example_compiles_and_runs() {
    if !require("readme_cpp", &[("g++", "--version")]) {
        return;
    }
    let _one_at_a_time = FOREIGN.lock().unwrap_or_else(|e| e.into_inner());
    let out = compile_and_run("g++", &["-std=c++17"], "readme.cpp", &example("cpp"));
    assert_eq!(
        out.trim(),
        "best cost 0, first item 14",
        "the C++ example printed otherwise"
    );
}

/// The text between the `README begin` and `README end` comment lines of `path`, each line
/// without the indentation of the first.
fn marked(path: &str) -> String {
    let text = read(path);
    let start = text.find("README begin\n").expect("a README begin marker") + 13;
    let end = text[start..]
        .find("README end")
        .expect("a README end marker")
        + start;
    let body = &text[start
        ..text[..end]
            .rfind('\n')
            .expect("a line before the end marker")];
    let indent = body.len() - body.trim_start().len();
    body.lines()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn the_go_and_java_examples_are_the_files_the_bindings_tests_run() {
    assert_eq!(example("go"), marked("go/example_test.go"));
    assert_eq!(example("java"), marked("c-examples/java/ppg/Example.java"));
}
