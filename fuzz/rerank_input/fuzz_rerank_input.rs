//! libFuzzer target over `ppg rerank`'s input reader, `ppg_cli::rerank_input::parse`: the
//! input is a whole TSV file. Beyond "no panic", every outcome is checked against the
//! module's rules (see `check_queries` and `check_error`), parsing is deterministic, and the
//! two group limits the metrics use agree with each other.

#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use ppg_cli::rerank_input::{parse, InputError, Query};

/// DTR's limit (two groups) and EEL's (`ppg_core::objective::MAX_GROUPS`).
const FEW: usize = 2;
const MANY: usize = 16;

fuzz_target!(|bytes: &[u8]| {
    let few = parse(bytes, FEW);
    assert_eq!(few, parse(bytes, FEW), "parse is not deterministic");
    let many = parse(bytes, MANY);
    match &many {
        Ok(queries) => check_queries(bytes, queries, MANY),
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

fn groups(queries: &[Query]) -> usize {
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

fn check_queries(bytes: &[u8], queries: &[Query], max_groups: usize) {
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
        for item in &q.items {
            check_id(item);
            assert!(
                items.insert(item.as_str()),
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

/// A qid or an item: not empty, trimmed, one field of one line, no NUL.
fn check_id(id: &str) {
    assert!(!id.is_empty(), "an empty id");
    assert_eq!(id, id.trim(), "an id not trimmed");
    assert!(!id.contains(['\0', '\t', '\n']), "{id:?}");
}
