//! The unit tests of `rerank_input`: its rules, each on a small input.

use super::*;

const HEADER: &str = "qid\titem\tscore\tgroup\n";
const ANY_LINE: Limit = Limit {
    most: usize::MAX,
    why: "",
};

fn read(body: &str) -> Result<Vec<InputQuery>, InputError> {
    parse(format!("{HEADER}{body}").as_bytes(), 16)
}

#[test]
fn queries_in_order_with_lines() {
    let qs = read("a\tx\t1\tg\na\ty\t2\th\n\nb\tz\t3\tg\n").unwrap();
    assert_eq!(qs.len(), 2);
    assert_eq!(qs[0].items, ["x", "y"]);
    assert_eq!(qs[0].group, [0, 1]);
    assert_eq!(qs[0].lines, [2, 3]);
    assert_eq!(qs[1].qid, "b");
    assert_eq!(qs[1].lines, [5]);
}

#[test]
fn split_query_names_both_ranges() {
    let e = read("a\tx\t1\tg\na\ty\t1\tg\nb\tz\t1\tg\nb\tw\t1\tg\na\tv\t1\tg\na\tu\t1\tg\n")
        .unwrap_err();
    assert_eq!(e.line, 6);
    assert!(e.message.contains("lines 2-3 and 6-7"), "{}", e.message);
}

/// The same file read with a window of one query: the split is past the window, so it
/// is found when the input ends, with the same message; the queries before it were
/// returned meanwhile.
#[test]
fn a_split_past_the_window_is_found_at_the_end_with_both_ranges() {
    let body =
        "a\tx\t1\tg\na\ty\t1\tg\nb\tz\t1\tg\nc\tw\t1\tg\na\tv\t1\tg\na\tu\t1\tg\nd\tt\t1\tg\n";
    let input = format!("{HEADER}{body}");
    let mut reader = Reader::with_window(input.as_bytes(), 16, "", ANY_LINE, 1).unwrap();
    let mut qids = Vec::new();
    let e = loop {
        match reader.next_query() {
            Ok(Some(q)) => qids.push(q.qid),
            Ok(None) => panic!("the split went unnoticed"),
            Err(e) => break e,
        }
    };
    assert_eq!(qids, ["a", "b", "c", "a", "d"]);
    assert_eq!(e.line, 6);
    assert!(e.message.contains("\"a\" is split"), "{}", e.message);
    assert!(e.message.contains("lines 2-3 and 6-7"), "{}", e.message);
    assert!(reader.next_query().unwrap().is_none());
    // With the default window it is found at its row, as before.
    let e = read(body).unwrap_err();
    assert_eq!((e.line, e.message.contains("lines 2-3 and 6-7")), (6, true));
}

#[test]
fn crlf_and_bom() {
    let qs = parse(b"\xef\xbb\xbfqid\titem\tscore\tgroup\r\na\tx\t1\tg\r\n", 2).unwrap();
    assert_eq!(qs[0].items, ["x"]);
    assert_eq!(qs[0].lines, [2]);
}

#[test]
fn malformed_rows_refused_with_their_line() {
    for (body, needle) in [
        ("a\tx\t1\tg\textra\n", "5 fields, the header names 4"),
        ("\tx\t1\tg\n", "empty qid"),
        ("a\t\t1\tg\n", "empty item"),
        ("a\tx\0y\t1\tg\n", "NUL byte in item"),
        ("a\tx\tnan\tg\n", "not a finite number"),
    ] {
        let e = read(body).unwrap_err();
        assert_eq!(e.line, 2, "{body:?}");
        assert!(e.message.contains(needle), "{body:?}: {}", e.message);
    }
}

/// Hands over at most `step` bytes a read, then fails if `fail` (a pipe, a broken one).
struct Trickle<'a> {
    rest: &'a [u8],
    step: usize,
    fail: bool,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.rest.is_empty() && self.fail {
            return Err(std::io::Error::other("connection reset"));
        }
        let n = self.step.min(buf.len()).min(self.rest.len());
        buf[..n].copy_from_slice(&self.rest[..n]);
        self.rest = &self.rest[n..];
        Ok(n)
    }
}

fn read_from(rest: &[u8], step: usize, fail: bool) -> Result<Vec<InputQuery>, InputError> {
    let mut reader = Reader::new(
        Trickle { rest, step, fail },
        16,
        "too many groups",
        ANY_LINE,
    )?;
    let mut queries = Vec::new();
    while let Some(q) = reader.next_query()? {
        queries.push(q);
    }
    Ok(queries)
}

#[test]
fn blank_and_whitespace_lines_keep_the_line_numbers() {
    // Lines: 1 empty, 2 spaces, 3 CRLF alone, 4 header, 5 row, 6 empty, 7 tab and
    // spaces, 8 row, 9 CR alone, 10 row without a final newline.
    let text =
        "\n  \n\r\nqid\titem\tscore\tgroup\r\na\tx\t1\tg\n\n \t \na\ty\t2\tg\n\r\nb\tz\t3\tg";
    let qs = parse(text.as_bytes(), 2).unwrap();
    assert_eq!(qs[0].lines, [5, 8]);
    assert_eq!(qs[1].lines, [10]);
    let e = parse(format!("{text}\n\n\nb\tz\tnope\tg\n").as_bytes(), 2).unwrap_err();
    assert_eq!(e.line, 13, "{}", e.message);
}

#[test]
fn a_split_query_ends_at_a_blank_line() {
    let e = read("a\tx\t1\tg\nb\ty\t1\tg\na\tz\t1\tg\na\tw\t1\tg\n\na\tv\t1\tg\n").unwrap_err();
    assert_eq!(e.line, 4);
    assert!(e.message.contains("lines 2 and 4-5"), "{}", e.message);
}

#[test]
fn quotes_are_ordinary_text() {
    let qs = read("\"a\tb\"\t1\tg\n\"a\t\"c\"\t2\tg\n").unwrap();
    assert_eq!(qs[0].qid, "\"a");
    assert_eq!(qs[0].items, ["b\"", "\"c\""]);
}

#[test]
fn a_bom_is_accepted_however_the_input_arrives() {
    // csv 1.4 took a first read of exactly the three bytes of a BOM for the end.
    let text = b"\xef\xbb\xbfqid\titem\tscore\tgroup\na\tx\t1\tg\n";
    for step in 1..=4 {
        let qs = read_from(text, step, false).unwrap();
        assert_eq!(
            (&qs[0].items, qs[0].lines.as_slice()),
            (&["x"].into_iter().collect(), &[2][..])
        );
    }
}

#[test]
fn not_utf8_is_located_in_the_line() {
    let e = parse(b"qid\titem\tscore\tgroup\na\tx\xffy\t1\tg\n", 2).unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.ends_with("from index 3"), "{}", e.message);
    // A sequence cut by a tab is refused, though its halves join without it.
    let e = parse(b"qid\titem\tscore\tgroup\na\tx\xe2\x82\t\xac1\tg\n", 2).unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("from index 3"), "{}", e.message);
}

/// The first line too long is refused at its number, after the rows before it were
/// read and checked, however the input arrives.
#[test]
fn a_line_too_long_is_named_and_read_no_further() {
    let long = format!(
        "{HEADER}a\tx\t1\tg\n\na\t{}\t1\tg\nb\ty\t1\tg\n",
        "y".repeat(99)
    );
    for step in [1, 7, 1 << 16] {
        let trickle = Trickle {
            rest: long.as_bytes(),
            step,
            fail: false,
        };
        let limit = Limit {
            most: 100,
            why: "as the test says",
        };
        let mut reader = Reader::new(trickle, 16, "", limit).unwrap();
        let e = reader.next_query().unwrap_err();
        assert_eq!(e.line, 4, "{step}");
        assert_eq!(
            e.message,
            "a line longer than 100 bytes (as the test says): not a table of ranked \
             lists, or a column too wide"
        );
    }
    // A bad row before it, in the same read, comes first.
    let bad = long.replacen("\t1\t", "\tnope\t", 1);
    let limit = Limit { most: 100, why: "" };
    let e = Reader::new(bad.as_bytes(), 16, "", limit)
        .unwrap()
        .next_query()
        .unwrap_err();
    assert_eq!((e.line, e.message.contains("not a number")), (2, true));
}

#[test]
fn a_failed_read_names_the_line_it_was_reading() {
    let e = read_from(b"qid\titem\tscore\tgroup\na\tx\t1\tg\n\n", 5, true).unwrap_err();
    assert_eq!(e.line, 4);
    assert_eq!(e.message, "cannot read: connection reset");
}
