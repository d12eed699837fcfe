//! libFuzzer target over `ppg rerank`'s input reader, `ppg_host::rerank_input::parse`: the
//! input is a whole TSV file. Beyond "no panic", every outcome is checked against the
//! module's rules (see `check_queries` and `check_error`), parsing is deterministic, and the
//! two group limits the metrics use agree with each other. Ids round-trip byte for byte:
//! `check_round_trip` splits the input on its own (lines at `\n`, a `\r` before it left
//! out, fields at tabs) and finds every returned qid and item equal to its field's bytes,
//! and the group ids numbered by the group fields' bytes.

#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use ppg_host::rerank_input::{parse, InputError, InputQuery};

/// DTR's limit (two groups) and EEL's (`ppg_core::objective::MAX_GROUPS`).
const FEW: usize = 2;
const MANY: usize = 16;

fuzz_target!(|bytes: &[u8]| {
    let few = parse(bytes, FEW);
    assert_eq!(few, parse(bytes, FEW), "parse is not deterministic");
    let many = parse(bytes, MANY);
    match &many {
        Ok(queries) => {
            check_queries(bytes, queries, MANY);
            check_round_trip(bytes, queries);
        }
        Err(e) => check_error(bytes, e),
    }
    match &few {
        Ok(queries) => {
            check_queries(bytes, queries, FEW);
            // Fewer groups allowed can only refuse more.
            assert_eq!(
                few, many,
                "a file read under 2 groups reads otherwise under 16"
            );
        }
        Err(e) => {
            check_error(bytes, e);
            // A file that the larger limit accepts with at most two groups is accepted
            // under two, the same.
            if let Ok(queries) = &many {
                assert!(
                    groups(queries) > FEW,
                    "refused under 2 groups, with <= 2: {e}"
                );
            }
        }
    }
});

/// The number of lines of the input: a last line without a newline counts.
fn line_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count() + usize::from(!bytes.ends_with(b"\n"))
}

fn groups(queries: &[InputQuery]) -> usize {
    queries
        .iter()
        .flat_map(|q| &q.group)
        .map(|&g| usize::from(g) + 1)
        .max()
        .unwrap_or(0)
}

fn check_error(bytes: &[u8], e: &InputError) {
    // Line 0 is for I/O failures, which an in-memory input cannot have.
    assert!(
        (1..=line_count(bytes) + 1).contains(&e.line),
        "error at line {} of {} lines: {e}",
        e.line,
        line_count(bytes)
    );
    assert!(!e.message.is_empty());
}

fn check_queries(bytes: &[u8], queries: &[InputQuery], max_groups: usize) {
    let lines = line_count(bytes);
    let labelled = queries.first().is_some_and(|q| q.label.is_some());
    let mut qids = HashSet::new();
    let mut last_line = 1; // the header's line at least
    let mut next_group = 0; // group ids are numbered in order of first appearance
    for q in queries {
        let n = q.len();
        assert!(n >= 1, "query {:?} has no rows", q.qid);
        assert_eq!((q.score.len(), q.group.len(), q.lines.len()), (n, n, n));
        assert_eq!(
            q.label.is_some(),
            labelled,
            "label column in some queries only"
        );
        check_id(&q.qid);
        assert!(
            qids.insert(q.qid.as_str()),
            "query {:?} twice: a split query read",
            q.qid
        );
        let mut items = HashSet::new();
        for item in q.items.iter() {
            check_id(item);
            assert!(
                items.insert(item),
                "item {item:?} twice in {:?}",
                q.qid
            );
        }
        assert!(q.score.iter().all(|s| s.is_finite()), "{:?}", q.score);
        if let Some(labels) = &q.label {
            assert_eq!(labels.len(), n);
            assert!(labels.iter().all(|l| l.is_finite()), "{labels:?}");
        }
        for &g in &q.group {
            let g = usize::from(g);
            assert!(g <= next_group, "group {g} before group {next_group}");
            next_group = next_group.max(g + 1);
        }
        for &line in &q.lines {
            assert!(
                line > last_line && line <= lines,
                "row at line {line} after {last_line}"
            );
            last_line = line;
        }
    }
    assert!(
        next_group <= max_groups,
        "{next_group} groups, limit {max_groups}"
    );
}

/// A qid or an item: not empty nor only whitespace, one field of one line, no NUL.
fn check_id(id: &str) {
    assert!(!id.trim().is_empty(), "an empty or blank id: {id:?}");
    assert!(!id.contains(['\0', '\t', '\n']), "{id:?}");
}

/// The input's lines as the reader numbers them (from 1), each without its `\n` and the
/// `\r` of a `\r\n`.
fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .collect()
}

/// Every id the parse returned is its field's bytes in the input, and group ids follow
/// the group fields' bytes in order of first appearance: nothing trimmed, nothing merged.
fn check_round_trip(bytes: &[u8], queries: &[InputQuery]) {
    let lines = lines(bytes);
    let trim = |f: &[u8]| f.trim_ascii().to_vec();
    // The header: the first line that is not blank, its names without ASCII spaces around
    // them, and on line 1 without a byte-order mark before the first.
    let header: Vec<Vec<u8>> = lines
        .iter()
        .enumerate()
        .map(|(k, line)| {
            let mut names: Vec<Vec<u8>> = line.split(|&b| b == b'\t').map(trim).collect();
            if k == 0 {
                if let Some(rest) = names[0].strip_prefix("\u{feff}".as_bytes()) {
                    names[0] = trim(rest);
                }
            }
            names
        })
        .find(|fields| fields.iter().any(|f| !f.is_empty()))
        .expect("a parsed input has a header");
    let column = |name: &[u8]| header.iter().position(|h| h == name).expect("a column");
    let (qid, item, group) = (column(b"qid"), column(b"item"), column(b"group"));
    let mut groups: Vec<&[u8]> = Vec::new();
    for q in queries {
        for ((id, &g), &line) in q.items.iter().zip(&q.group).zip(&q.lines) {
            let fields: Vec<&[u8]> = lines[line - 1].split(|&b| b == b'\t').collect();
            assert_eq!(fields[qid], q.qid.as_bytes(), "qid at line {line}");
            assert_eq!(fields[item], id.as_bytes(), "item at line {line}");
            let name = fields[group];
            let k = groups.iter().position(|&n| n == name).unwrap_or_else(|| {
                groups.push(name);
                groups.len() - 1
            });
            assert_eq!(usize::from(g), k, "group {name:?} at line {line}");
        }
    }
}
