//! The input of `ppg rerank`, read one query at a time: a tab-separated file with a header,
//! rows of a query contiguous, so that a query is complete when the next one starts and the
//! reader never holds more than one query.
//!
//! The rules (also in `ppg rerank --help` and docs/cli.md's "Errors and exit status"):
//! - columns `qid item score group [label]` found by header name, in any order, other
//!   columns ignored; a UTF-8 byte-order mark before the header is accepted;
//! - a line ends at `\n` or `\r\n`; a line of nothing but ASCII spaces, tabs and `\r` is
//!   blank and skipped; a header with no data rows is a valid input of no queries;
//! - ids are bytes: a `qid`, an `item` and a `group` are the field's bytes between tabs,
//!   nothing trimmed (`a`, `a ` and `a<U+00A0>` are three ids), quotes ordinary text, so
//!   the output gives back each id exactly as the input had it. Header names and numbers
//!   are matched or parsed after ASCII spaces and tabs around them are taken off;
//! - refused, with the line: a row with fewer or more fields than the header, an empty
//!   `qid` or `item` (or one of nothing but whitespace, Unicode's included), a NUL byte in
//!   any field, text that is not UTF-8, a score or label that is not a finite number, an
//!   item twice in its query, more groups than the metric takes, a query longer than the
//!   engine takes, and a split query (its rows interrupted by another query's), named with
//!   the line ranges of both parts;
//! - a line longer than the caller's limit ([`Limit`]) is refused before more of it is read
//!   ([`records`](crate::records)): the reader holds one line whole;
//! - a field quoted in a message is escaped and cut after 60 characters ([`quoted`]);
//! - a query of one item is read like any other: the caller passes it through.
//!
//! [`check_id`] is the id rule on its own, for front ends that read no file (Python).
//!
//! [`parse`] reads a whole input from bytes (the fuzz target's entry point).
//!
//! The lines and their fields come from [`records`](crate::records) (the splitting, the
//! line limit, the line numbers); the rules are here.
//!
//! The file stays whole past 400 lines: it is one reader and its rules; split, the rules
//! would sit apart from the checks that apply them. Their unit tests are `tests.rs` beside
//! it.

use std::collections::HashMap;
use std::io::Read;

use foldhash::fast::RandomState;

use crate::finished::{self, Finished, Split};
pub use crate::ids::Ids;
use crate::quote::quoted;
use crate::records::{Fields, Records};
pub use crate::records::{InputError, Limit};

/// One query as the input file gave it, its rows in file order (the core's
/// [`ppg_core::recipe::Query`] is the view of it the recipe re-ranks).
#[derive(Debug, Clone, PartialEq)]
pub struct InputQuery {
    /// The query id.
    pub qid: String,
    /// Item ids, unique within the query.
    pub items: Ids,
    /// The ranker's scores.
    pub score: Vec<f64>,
    /// Group ids (small numbers, in order of first appearance in the file).
    pub group: Vec<u8>,
    /// Labels, when the file has a `label` column.
    pub label: Option<Vec<f64>>,
    /// The 1-based line of each row.
    pub lines: Vec<usize>,
}

impl InputQuery {
    /// An empty query with room for `rows` rows of ids of `bytes` bytes in all (the query
    /// before it: queries of a file are mostly alike, and their columns then grow in one
    /// step).
    fn new(qid: String, labelled: bool, rows: usize, bytes: usize) -> Self {
        InputQuery {
            qid,
            items: Ids::with_capacity(rows, bytes),
            score: Vec::with_capacity(rows),
            group: Vec::with_capacity(rows),
            label: labelled.then(|| Vec::with_capacity(rows)),
            lines: Vec::with_capacity(rows),
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
    records: Records<R>,
    rules: Rules,
    /// The next query with its first row, read while finishing the previous one.
    pending: Option<InputQuery>,
    /// The rows of the query read last, and the bytes of its ids.
    last_len: (usize, usize),
    /// The table and the hasher that find an item twice in a query ([`Reader::finish`]).
    seen: (Vec<u32>, RandomState),
    /// The queries read, to find a split one in bounded memory.
    finished: Finished,
    done: bool,
}

/// What a query keeps of a data row but its item.
struct Row {
    line: usize,
    score: f64,
    group: u8,
    label: Option<f64>,
}

impl<R: Read> Reader<R> {
    /// Reads the header from `input`. `max_groups` is the number of groups the metric
    /// takes; `why` completes the message when a row brings one more ("DTR compares two
    /// groups"); `line` is the longest line read.
    ///
    /// # Errors
    /// An empty input, a header without a required column or with a column twice, a
    /// header longer than `line`.
    pub fn new(
        input: R,
        max_groups: usize,
        why: &'static str,
        line: Limit,
    ) -> Result<Self, InputError> {
        Self::with_window(input, max_groups, why, line, finished::WINDOW)
    }

    /// As [`Reader::new`], with `window` recent queries checked at once for a split (the
    /// rest when the input ends).
    fn with_window(
        input: R,
        max_groups: usize,
        why: &'static str,
        line: Limit,
        window: usize,
    ) -> Result<Self, InputError> {
        let mut records = Records::new(input, line);
        let header: Vec<String> = loop {
            if !records.read()? {
                return Err(InputError::at(1, "empty file: expected a header line"));
            }
            let mut fields: Vec<&str> = records.fields()?.iter().map(str::trim_ascii).collect();
            // Spreadsheet exports start with a byte-order mark.
            if records.line == 1 {
                if let Some(rest) = fields[0].strip_prefix('\u{feff}') {
                    fields[0] = rest.trim_ascii();
                }
            }
            if fields.iter().all(|f| f.is_empty()) {
                continue;
            }
            break fields.into_iter().map(str::to_owned).collect();
        };
        let columns = columns(&header)?;
        Ok(Reader {
            records,
            rules: Rules {
                header,
                columns,
                groups: Vec::new(),
                max_groups,
                why,
            },
            pending: None,
            last_len: (0, 0),
            seen: (Vec::new(), RandomState::default()),
            finished: Finished::new(window),
            done: false,
        })
    }

    /// Whether the input has a `label` column.
    pub fn has_label(&self) -> bool {
        self.rules.columns.label.is_some()
    }

    /// Group names in order of first appearance (a group's id is its index).
    pub fn groups(&self) -> &[String] {
        &self.rules.groups
    }

    /// The next query, `None` at the end of the input.
    ///
    /// # Errors
    /// The first malformed row, as the module's rules say; after an error the reader
    /// returns `None`.
    pub fn next_query(&mut self) -> Result<Option<InputQuery>, InputError> {
        if self.done {
            return Ok(None);
        }
        let outcome = self.read_query();
        if !matches!(outcome, Ok(Some(_))) {
            self.done = true;
        }
        outcome
    }

    fn read_query(&mut self) -> Result<Option<InputQuery>, InputError> {
        let labelled = self.has_label();
        let (rows, bytes) = self.last_len;
        let mut query = match self.pending.take() {
            Some(next) => next,
            None => match self.row(None)? {
                Next::Starts(qid, item, row) => started(qid, item, row, labelled, rows, bytes),
                Next::Same(..) => unreachable!("a row is in no query before the first"),
                Next::End => return self.check_every_query().map(|()| None),
            },
        };
        self.check_not_finished(&query.qid, query.lines[0])?;
        loop {
            match self.row(Some(&query.qid))? {
                // Refused at the row past the limit: the rest of a long query is never held.
                Next::Same(_, row) if query.len() == ppg_core::MAX_ITEMS => {
                    return Err(InputError::at(
                        row.line,
                        format!(
                            "query {} (from line {}) has more than the {} items the \
                             engine takes",
                            quoted(&query.qid),
                            query.lines[0],
                            ppg_core::MAX_ITEMS
                        ),
                    ));
                }
                Next::Same(item, row) => push(&mut query, item, row),
                Next::Starts(qid, item, row) => {
                    let (rows, bytes) = (query.len(), query.items.bytes());
                    let next = started(qid, item, row, labelled, rows, bytes);
                    self.pending = Some(next);
                    break;
                }
                Next::End => break,
            }
        }
        self.finish(&query)?;
        self.last_len = (query.len(), query.items.bytes());
        Ok(Some(query))
    }

    /// Checks a complete query and records its line range.
    fn finish(&mut self, query: &InputQuery) -> Result<(), InputError> {
        // The error is at the earliest row that repeats an item, naming the item's first.
        let (table, hasher) = &mut self.seen;
        if let Some((again, first)) = query.items.repeated(table, hasher) {
            let first = query.lines[first];
            return Err(InputError::at(
                query.lines[again],
                format!(
                    "item {} appears twice in query {} (first at line {first})",
                    quoted(&query.items[again]),
                    quoted(&query.qid)
                ),
            ));
        }
        let (first, last) = (
            query.lines[0],
            *query.lines.last().expect("a query has rows"),
        );
        self.finished
            .add(&query.qid, first, last)
            .map_err(|e| InputError::at(first, index_failed(&e)))
    }

    /// At the end of the input: a split query whose parts were further apart than the
    /// window, the one found first in line order.
    fn check_every_query(&mut self) -> Result<(), InputError> {
        let line = self.records.line;
        match self.finished.earliest_split() {
            Err(e) => Err(InputError::at(line, index_failed(&e))),
            Ok(None) => Ok(()),
            Ok(Some(Split { before, after })) => Err(split(
                &after.qid,
                after.first,
                (before.first, before.last),
                (after.first, after.last),
            )),
        }
    }

    /// A query that starts again after another query's rows is split: the error names the
    /// line ranges of both parts (the second read to its end, which a blank line or
    /// another query's row marks).
    fn check_not_finished(&mut self, qid: &str, line: usize) -> Result<(), InputError> {
        let Some(before) = self.finished.recent(qid) else {
            return Ok(());
        };
        let mut last = line;
        // The line reader skips empty lines: a gap in the numbers is one.
        while self.records.read()? && self.records.line == last + 1 {
            if self.records.fields()?.get(self.rules.columns.qid) != Some(qid) {
                break;
            }
            last = self.records.line;
        }
        Err(split(qid, line, before, (line, last)))
    }

    /// The next data row, checked field by field, and whether it continues the query
    /// `current`; its ids borrowed from the line.
    fn row(&mut self, current: Option<&str>) -> Result<Next<'_>, InputError> {
        while self.records.read()? {
            if self.records.blank() {
                continue;
            }
            let fields = self.records.fields()?;
            let (qid, item, row) = self.rules.row(self.records.line, &fields)?;
            return Ok(if current.is_some_and(|c| same(c, qid)) {
                Next::Same(item, row)
            } else {
                Next::Starts(qid, item, row)
            });
        }
        Ok(Next::End)
    }
}

/// The next row of the input, as [`Reader::row`] finds it, with its item.
enum Next<'a> {
    /// A row of the query being read.
    Same(&'a str, Row),
    /// The first row of a query, with its qid.
    Starts(&'a str, &'a str, Row),
    End,
}

/// The header and the groups seen so far: what a row is checked against.
struct Rules {
    header: Vec<String>,
    columns: Columns,
    groups: Vec<String>,
    max_groups: usize,
    why: &'static str,
}

impl Rules {
    /// The row at `line`, its qid and its item.
    fn row<'a>(
        &mut self,
        line: usize,
        fields: &Fields<'a>,
    ) -> Result<(&'a str, &'a str, Row), InputError> {
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
        if fields.has_nul() {
            let k = fields.iter().position(|f| f.contains('\0'));
            let k = k.expect("a NUL byte of a line is in one of its fields");
            return Err(InputError::at(
                line,
                format!("a NUL byte in {}", self.header[k]),
            ));
        }
        let c = &self.columns;
        // Each field taken once: a field is a slice of the line, checked where it starts
        // and ends.
        let (qid, item) = (fields.field(c.qid), fields.field(c.item));
        for (column, id) in [(c.qid, qid), (c.item, item)] {
            // No NUL byte in the line: only the blank rule is left.
            check_blank(&self.header[column], id).map_err(|why| InputError::at(line, why))?;
        }
        let score = self.number(fields, c.score, line)?;
        let label = match c.label {
            Some(column) => Some(self.number(fields, column, line)?),
            None => None,
        };
        let group = self.group_id(fields.field(self.columns.group), line)?;
        let row = Row {
            line,
            score,
            group,
            label,
        };
        Ok((qid, item, row))
    }

    fn number(&self, fields: &Fields, column: usize, line: usize) -> Result<f64, InputError> {
        let text = fields.field(column);
        // Most numbers of a table are plain decimals, with nothing around them to trim.
        match crate::decimal::plain(text.as_bytes()) {
            Some(x) => Ok(x),
            None => self.other_number(text, column, line),
        }
    }

    /// A number that is not a plain decimal ([`Rules::number`]), or no number.
    #[cold]
    fn other_number(&self, text: &str, column: usize, line: usize) -> Result<f64, InputError> {
        let name = &self.header[column];
        match crate::decimal::parse(text.trim_ascii()) {
            Ok(x) if x.is_finite() => Ok(x),
            Ok(_) => Err(InputError::at(
                line,
                format!("{name} {} is not a finite number", quoted(text)),
            )),
            Err(_) => Err(InputError::at(
                line,
                format!("{name} {} is not a number", quoted(text)),
            )),
        }
    }

    /// The id of group `name`, new or known, refusing more than `max_groups`.
    fn group_id(&mut self, name: &str, line: usize) -> Result<u8, InputError> {
        if let Some(k) = self.groups.iter().position(|n| same(n, name)) {
            return Ok(k as u8);
        }
        if self.groups.len() >= self.max_groups {
            let known: Vec<String> = self.groups.iter().map(|n| quoted(n).to_string()).collect();
            return Err(InputError::at(
                line,
                format!(
                    "group {} is group number {} after {}: {}",
                    quoted(name),
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

/// The rule for a `qid` or `item` id named `column`: not blank (empty, or nothing but
/// whitespace, Unicode's included) and no NUL byte; its bytes are kept otherwise. The
/// Python package applies it to its frames' ids, so that both front ends refuse the same
/// ids.
///
/// # Errors
/// What is wrong, in words ("empty item", "empty qid: \" \" is only whitespace", "a NUL
/// byte in qid").
pub fn check_id(column: &str, id: &str) -> Result<(), String> {
    if id.contains('\0') {
        return Err(format!("a NUL byte in {column}"));
    }
    check_blank(column, id)
}

/// The blank part of [`check_id`].
#[inline]
fn check_blank(column: &str, id: &str) -> Result<(), String> {
    // Most ids start with a printable ASCII byte: not blank, whatever follows.
    if id.as_bytes().first().is_some_and(u8::is_ascii_graphic) {
        return Ok(());
    }
    check_shown(column, id)
}

/// The rest of [`check_blank`], for an id that starts with another byte.
#[cold]
fn check_shown(column: &str, id: &str) -> Result<(), String> {
    // An id that shows as nothing is a blank cell, not an id (its bytes are kept
    // otherwise: trim() only looks).
    if id.trim().is_empty() {
        let what = if id.is_empty() {
            String::new()
        } else {
            format!(": {} is only whitespace", quoted(id))
        };
        return Err(format!("empty {column}{what}"));
    }
    Ok(())
}

/// Whether two ids are equal, by a loop: the ids of a table are short, and a call of
/// `memcmp` for each row's qid and group cost more than comparing their bytes.
#[inline]
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

/// A query of its first row, with room for `rows` rows of ids of `bytes` bytes
/// ([`InputQuery::new`]).
fn started(
    qid: &str,
    item: &str,
    row: Row,
    labelled: bool,
    rows: usize,
    bytes: usize,
) -> InputQuery {
    let mut query = InputQuery::new(qid.to_owned(), labelled, rows, bytes);
    push(&mut query, item, row);
    query
}

fn push(query: &mut InputQuery, item: &str, row: Row) {
    query.items.push(item);
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
                    "column {} appears twice (fields {} and {})",
                    quoted(h),
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
                    header_names(header)
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

/// The header's names for a message: the first [`NAMES_SHOWN`], each quoted.
fn header_names(header: &[String]) -> String {
    let mut names: Vec<String> = header
        .iter()
        .take(NAMES_SHOWN)
        .map(|h| quoted(h).to_string())
        .collect();
    if header.len() > NAMES_SHOWN {
        names.push(format!("... ({} names)", header.len()));
    }
    names.join(", ")
}

/// The header names a message lists before it cuts the list.
const NAMES_SHOWN: usize = 8;

/// The error of a split query, at the first row of its later part.
fn split(qid: &str, line: usize, before: (usize, usize), after: (usize, usize)) -> InputError {
    InputError::at(
        line,
        format!(
            "query {} is split: its rows are at lines {} and {}, with other queries \
             between; rows of a query must be contiguous",
            quoted(qid),
            span(before.0, before.1),
            span(after.0, after.1)
        ),
    )
}

fn index_failed(e: &std::io::Error) -> String {
    format!("cannot keep the index of the queries read (temporary files): {e}")
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
pub fn parse(bytes: &[u8], max_groups: usize) -> Result<Vec<InputQuery>, InputError> {
    // The input is in memory already: no line of it is longer than it.
    let whole = Limit {
        most: bytes.len(),
        why: "the input",
    };
    let mut reader = Reader::new(bytes, max_groups, "too many groups", whole)?;
    let mut queries = Vec::new();
    while let Some(q) = reader.next_query()? {
        queries.push(q);
    }
    Ok(queries)
}

#[cfg(test)]
mod tests;
