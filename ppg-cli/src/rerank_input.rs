//! The input of `ppg rerank`, read one query at a time: a tab-separated file with a header,
//! rows of a query contiguous, so that a query is complete when the next one starts and the
//! reader never holds more than one query.
//!
//! The rules (also in `ppg rerank --help` and the README's "Errors"):
//! - columns `qid item score group [label]` found by header name, in any order, other
//!   columns ignored; a UTF-8 byte-order mark before the header is accepted;
//! - fields are trimmed; blank lines are skipped;
//! - refused, with the line: a row with fewer or more fields than the header, an empty
//!   `qid` or `item`, a NUL byte in any field, text that is not UTF-8, a score or label that
//!   is not a finite number, an item twice in its query, more groups than the metric takes,
//!   a query longer than the engine takes, and a split query (its rows interrupted by
//!   another query's), named with the line ranges of both parts;
//! - a query of one item is read like any other: the caller passes it through.
//!
//! [`parse`] reads a whole input from bytes (the fuzz target's entry point).
//!
//! The file stays whole past 400 lines: it is one reader, its rules and their unit tests
//! (about a third of it); split, the rules would sit apart from the checks that apply them.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::io::{BufRead, BufReader, Read};

/// Bad input at a line of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// 1-based line, 0 for the input as a whole (an I/O failure).
    pub line: usize,
    /// What is wrong, in words.
    pub message: String,
}

impl InputError {
    fn at(line: usize, message: impl Into<String>) -> Self {
        InputError {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for InputError {}

/// One query, its rows in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    /// The query id.
    pub qid: String,
    /// Item ids, unique within the query.
    pub items: Vec<String>,
    /// The ranker's scores.
    pub score: Vec<f64>,
    /// Group ids (small numbers, in order of first appearance in the file).
    pub group: Vec<u8>,
    /// Labels, when the file has a `label` column.
    pub label: Option<Vec<f64>>,
    /// The 1-based line of each row.
    pub lines: Vec<usize>,
}

impl Query {
    fn new(qid: &str, labelled: bool) -> Self {
        Query {
            qid: qid.to_owned(),
            items: Vec::new(),
            score: Vec::new(),
            group: Vec::new(),
            label: labelled.then(Vec::new),
            lines: Vec::new(),
        }
    }

    /// Rows in the query.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the query has no rows (never true of a query the reader returns).
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// Column positions found in the header.
struct Columns {
    qid: usize,
    item: usize,
    score: usize,
    group: usize,
    label: Option<usize>,
}

/// Reads queries one at a time from a tab-separated input.
pub struct Reader<R: Read> {
    lines: Lines<R>,
    header: Vec<String>,
    columns: Columns,
    groups: Vec<String>,
    max_groups: usize,
    why: &'static str,
    /// The first row of the next query, read while finishing the previous one.
    pending: Option<Row>,
    /// Line ranges of finished queries, by a 64-bit hash of the qid: 24 bytes per query
    /// instead of the ids themselves. Two ids with the same hash (odds about n^2 / 2^65
    /// for n queries) would be reported as a split query.
    finished: HashMap<u64, (usize, usize)>,
    rows_read: usize,
    done: bool,
}

/// One data row, fields trimmed.
struct Row {
    line: usize,
    qid: String,
    item: String,
    score: f64,
    group: u8,
    label: Option<f64>,
}

impl<R: Read> Reader<R> {
    /// Reads the header from `input`. `max_groups` is the number of groups the metric
    /// takes; `why` completes the message when a row brings one more ("DTR compares two
    /// groups").
    ///
    /// # Errors
    /// An empty input, a header without a required column or with a column twice.
    pub fn new(input: R, max_groups: usize, why: &'static str) -> Result<Self, InputError> {
        let mut lines = Lines {
            input: BufReader::with_capacity(1 << 16, input),
            buf: Vec::new(),
            line: 0,
        };
        let header = loop {
            let Some(mut fields) = lines.next()? else {
                return Err(InputError::at(1, "empty file: expected a header line"));
            };
            // Spreadsheet exports start with a byte-order mark.
            if lines.line == 1 {
                if let Some(rest) = fields[0].strip_prefix('\u{feff}') {
                    fields[0] = rest.trim().to_owned();
                }
            }
            if fields.iter().all(|f| f.is_empty()) {
                continue;
            }
            break fields;
        };
        let columns = columns(&header)?;
        Ok(Reader {
            lines,
            header,
            columns,
            groups: Vec::new(),
            max_groups,
            why,
            pending: None,
            finished: HashMap::new(),
            rows_read: 0,
            done: false,
        })
    }

    /// Whether the input has a `label` column.
    pub fn has_label(&self) -> bool {
        self.columns.label.is_some()
    }

    /// Group names in order of first appearance (a group's id is its index).
    pub fn groups(&self) -> &[String] {
        &self.groups
    }

    /// The next query, `None` at the end of the input.
    ///
    /// # Errors
    /// The first malformed row, as the module's rules say; after an error the reader
    /// returns `None`.
    pub fn next_query(&mut self) -> Result<Option<Query>, InputError> {
        if self.done {
            return Ok(None);
        }
        let outcome = self.read_query();
        if !matches!(outcome, Ok(Some(_))) {
            self.done = true;
        }
        outcome
    }

    fn read_query(&mut self) -> Result<Option<Query>, InputError> {
        let first = match self.pending.take() {
            Some(row) => row,
            None => match self.row()? {
                Some(row) => row,
                None if self.rows_read == 0 => {
                    return Err(InputError::at(1, "no data rows after the header"))
                }
                None => return Ok(None),
            },
        };
        let mut query = Query::new(&first.qid, self.has_label());
        self.check_not_finished(&first.qid, first.line)?;
        let mut row = first;
        loop {
            push(&mut query, row);
            match self.row()? {
                Some(next) if next.qid == query.qid => row = next,
                Some(next) => {
                    self.pending = Some(next);
                    break;
                }
                None => break,
            }
        }
        self.finish(&query)?;
        Ok(Some(query))
    }

    /// Checks a complete query and records its line range.
    fn finish(&mut self, query: &Query) -> Result<(), InputError> {
        if query.len() > ppg_core::MAX_ITEMS {
            return Err(InputError::at(
                query.lines[0],
                format!(
                    "query \"{}\" has {} items, more than the {} the engine takes",
                    query.qid,
                    query.len(),
                    ppg_core::MAX_ITEMS
                ),
            ));
        }
        let mut seen: HashMap<&str, usize> = HashMap::with_capacity(query.len());
        for (item, &line) in query.items.iter().zip(&query.lines) {
            if let Some(first) = seen.insert(item, line) {
                return Err(InputError::at(
                    line,
                    format!(
                        "item \"{item}\" appears twice in query \"{}\" (first at line {first})",
                        query.qid
                    ),
                ));
            }
        }
        let range = (
            query.lines[0],
            *query.lines.last().expect("a query has rows"),
        );
        self.finished.insert(hash(&query.qid), range);
        Ok(())
    }

    /// A query that starts again after another query's rows is split: the error names the
    /// line ranges of both parts (the second read to its end).
    fn check_not_finished(&mut self, qid: &str, line: usize) -> Result<(), InputError> {
        let Some(&(start, end)) = self.finished.get(&hash(qid)) else {
            return Ok(());
        };
        let mut last = line;
        while let Some(fields) = self.lines.next()? {
            if fields.get(self.columns.qid).map(String::as_str) != Some(qid) {
                break;
            }
            last = self.lines.line;
        }
        Err(InputError::at(
            line,
            format!(
                "query \"{qid}\" is split: its rows are at lines {} and {}, with other \
                 queries between; rows of a query must be contiguous",
                span(start, end),
                span(line, last)
            ),
        ))
    }

    /// The next data row, checked field by field; `None` at the end.
    fn row(&mut self) -> Result<Option<Row>, InputError> {
        loop {
            let Some(fields) = self.lines.next()? else {
                return Ok(None);
            };
            let line = self.lines.line;
            if fields.iter().all(|f| f.is_empty()) {
                continue;
            }
            self.rows_read += 1;
            return self.parse_row(line, fields).map(Some);
        }
    }

    fn parse_row(&mut self, line: usize, fields: Vec<String>) -> Result<Row, InputError> {
        if fields.len() != self.header.len() {
            let missing = match self.header.get(fields.len()) {
                Some(name) => format!(": no \"{name}\""),
                None => ": a row has no more fields than the header".to_owned(),
            };
            return Err(InputError::at(
                line,
                format!(
                    "{} fields, the header names {}{missing}",
                    fields.len(),
                    self.header.len()
                ),
            ));
        }
        if let Some(k) = fields.iter().position(|f| f.contains('\0')) {
            return Err(InputError::at(
                line,
                format!("a NUL byte in {}", self.header[k]),
            ));
        }
        let c = &self.columns;
        for column in [c.qid, c.item] {
            if fields[column].is_empty() {
                return Err(InputError::at(
                    line,
                    format!("empty {}", self.header[column]),
                ));
            }
        }
        let score = self.number(&fields, c.score, line)?;
        let label = match c.label {
            Some(column) => Some(self.number(&fields, column, line)?),
            None => None,
        };
        let group = self.group_id(&fields[c.group], line)?;
        let mut fields = fields;
        Ok(Row {
            line,
            item: std::mem::take(&mut fields[self.columns.item]),
            qid: std::mem::take(&mut fields[self.columns.qid]),
            score,
            group,
            label,
        })
    }

    fn number(&self, fields: &[String], column: usize, line: usize) -> Result<f64, InputError> {
        let text = &fields[column];
        let name = &self.header[column];
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            Ok(_) => Err(InputError::at(
                line,
                format!("{name} \"{text}\" is not a finite number"),
            )),
            Err(_) => Err(InputError::at(
                line,
                format!("{name} \"{text}\" is not a number"),
            )),
        }
    }

    /// The id of group `name`, new or known, refusing more than `max_groups`.
    fn group_id(&mut self, name: &str, line: usize) -> Result<u8, InputError> {
        if let Some(k) = self.groups.iter().position(|n| n == name) {
            return Ok(k as u8);
        }
        if self.groups.len() >= self.max_groups {
            let known: Vec<String> = self.groups.iter().map(|n| format!("\"{n}\"")).collect();
            return Err(InputError::at(
                line,
                format!(
                    "group \"{name}\" is group number {} after {}: {}",
                    self.groups.len() + 1,
                    known.join(", "),
                    self.why
                ),
            ));
        }
        self.groups.push(name.to_owned());
        Ok((self.groups.len() - 1) as u8)
    }
}

fn push(query: &mut Query, row: Row) {
    query.items.push(row.item);
    query.score.push(row.score);
    query.group.push(row.group);
    if let (Some(labels), Some(l)) = (query.label.as_mut(), row.label) {
        labels.push(l);
    }
    query.lines.push(row.line);
}

fn columns(header: &[String]) -> Result<Columns, InputError> {
    let mut seen = HashMap::new();
    for (k, h) in header.iter().enumerate() {
        if let Some(first) = seen.insert(h.as_str(), k) {
            return Err(InputError::at(
                1,
                format!(
                    "column \"{h}\" appears twice (fields {} and {})",
                    first + 1,
                    k + 1
                ),
            ));
        }
    }
    let find = |name: &str| header.iter().position(|h| h == name);
    let need = |name: &str| {
        find(name).ok_or_else(|| {
            InputError::at(
                1,
                format!(
                    "missing column \"{name}\" (the header has: {})",
                    header.join(", ")
                ),
            )
        })
    };
    Ok(Columns {
        qid: need("qid")?,
        item: need("item")?,
        score: need("score")?,
        group: need("group")?,
        label: find("label"),
    })
}

/// Lines split at tabs, fields trimmed, with their 1-based numbers. Hand-written rather
/// than the csv crate's reader: csv 1.4 numbers records wrongly after blank lines and CRLF
/// endings, and every error here must name the right line.
struct Lines<R: Read> {
    input: BufReader<R>,
    buf: Vec<u8>,
    /// The number of the line last read.
    line: usize,
}

impl<R: Read> Lines<R> {
    /// The next line's fields, `None` at the end of the input.
    fn next(&mut self) -> Result<Option<Vec<String>>, InputError> {
        self.buf.clear();
        let read = self
            .input
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| InputError::at(self.line + 1, format!("cannot read: {e}")))?;
        if read == 0 {
            return Ok(None);
        }
        self.line += 1;
        let mut bytes = &self.buf[..];
        for end in [b'\n', b'\r'] {
            if let Some(rest) = bytes.strip_suffix(&[end]) {
                bytes = rest;
            }
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|e| InputError::at(self.line, format!("not UTF-8 text: {e}")))?;
        Ok(Some(
            text.split('\t').map(|f| f.trim().to_owned()).collect(),
        ))
    }
}

fn hash(qid: &str) -> u64 {
    let mut h = DefaultHasher::new();
    qid.hash(&mut h);
    h.finish()
}

fn span(start: usize, end: usize) -> String {
    if start == end {
        start.to_string()
    } else {
        format!("{start}-{end}")
    }
}

/// Reads a whole input held in memory: the fuzz target's entry point, and the reference
/// for what the streaming [`Reader`] accepts.
///
/// # Errors
/// The first malformed row ([`Reader::next_query`]).
pub fn parse(bytes: &[u8], max_groups: usize) -> Result<Vec<Query>, InputError> {
    let mut reader = Reader::new(bytes, max_groups, "too many groups")?;
    let mut queries = Vec::new();
    while let Some(q) = reader.next_query()? {
        queries.push(q);
    }
    Ok(queries)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "qid\titem\tscore\tgroup\n";

    fn read(body: &str) -> Result<Vec<Query>, InputError> {
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
}
