//! The lines of `ppg rerank`'s input, split into fields, numbered, and read no further than
//! a limit: what [`rerank_input`](crate::rerank_input) checks its rules on, and the error
//! it gives at a line.
//!
//! The csv crate splits lines into fields (`Records`): a newline ends a record and quotes
//! are ordinary text, so a record is exactly one line; the checks are the reader's. It
//! replaced a hand-written line splitter, measured faster in alternate runs in one session:
//! [`parse`](crate::rerank_input::parse) of 10,000 queries x 20 items (6.0 MB) in 126 ms
//! against 170 ms (medians of 11, 1.35x; minimum 89 against 125 ms); `ppg rerank` of
//! 300,000 one-item queries, where reading is most of the work, 1.08 s against 1.40 s wall
//! (medians of 5). With 20 items a query the optimisation dominates and both take the same
//! time (EEL, 10,000 queries, 2 threads: 5.38 s against 5.50 s).
//!
//! A line longer than the caller's [`Limit`] stops the reading
//! ([`line_limit`](crate::line_limit)), so a file with no newline is an error at its line
//! rather than an allocation of its size.

use std::fmt;
use std::io::{Chain, Read};

use csv::{ByteRecord, Terminator};

use crate::line_limit::{LineLimit, TooLong};

/// Bad input at a line of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// 1-based line: of the bad row, or the line being read when reading failed.
    pub line: usize,
    /// What is wrong, in words.
    pub message: String,
}

impl InputError {
    pub(crate) fn at(line: usize, message: impl Into<String>) -> Self {
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

/// The longest line the reader takes, and why, for the message that refuses a longer one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// Bytes before a line's newline.
    pub most: usize,
    /// Completes the message: "the longest line read is 1/64 of --memory".
    pub why: &'static str,
}

/// The input's non-empty lines split at tabs by the csv crate, with their 1-based numbers.
///
/// The reader is set so that a record is exactly one line: `\n` alone ends it (a `\r`
/// before it stays in the last field, where [`Fields`] leaves it out) and quotes are
/// ordinary text. Two newlines are chained around the input, each for a fault of csv 1.4:
/// - the position it gives a record is where it stood before skipping the empty lines in
///   front of it, so the number is counted from the newlines read instead, the record's own
///   `\n` being the last one: the newline after the input makes that true of the last line
///   too (and is skipped as an empty line when the input ends with one);
/// - it drops a byte-order mark only when its first read holds the three bytes, and takes a
///   first read of exactly those three for the end of the input: the newline before the
///   input keeps it from looking (an empty line, skipped), and the header's check takes the
///   mark off whatever the reads.
pub(crate) struct Records<R: Read> {
    csv: csv::Reader<Framed<R>>,
    record: ByteRecord,
    longest: Limit,
    /// The number of the line last read.
    pub(crate) line: usize,
}

/// The input between the two newlines [`Records`] chains around it.
type Framed<R> = Chain<Chain<&'static [u8], LineLimit<R>>, &'static [u8]>;

impl<R: Read> Records<R> {
    pub(crate) fn new(input: R, longest: Limit) -> Self {
        let csv = csv::ReaderBuilder::new()
            .delimiter(b'\t')
            .terminator(Terminator::Any(b'\n'))
            .quoting(false)
            .flexible(true)
            .has_headers(false)
            .buffer_capacity(1 << 16)
            .from_reader(
                (&b"\n"[..])
                    .chain(LineLimit::new(input, longest.most))
                    .chain(&b"\n"[..]),
            );
        Records {
            csv,
            record: ByteRecord::new(),
            longest,
            line: 0,
        }
    }

    /// Reads the next non-empty line, `false` at the end of the input.
    pub(crate) fn read(&mut self) -> Result<bool, InputError> {
        // The csv reader counts lines from 1 and the newline chained before the input is
        // one: its line is the input's line + 1. On a failed read it has counted the
        // newlines of every line before, so that is the number of the line it was reading.
        let more = self.csv.read_byte_record(&mut self.record).map_err(|e| {
            let too_long = match e.kind() {
                csv::ErrorKind::Io(io) => io.get_ref().and_then(|e| e.downcast_ref::<TooLong>()),
                _ => None,
            };
            match too_long {
                Some(t) => InputError::at(
                    t.line,
                    format!(
                        "a line longer than {} bytes ({}): not a table of ranked lists, or a \
                         column too wide",
                        t.limit, self.longest.why
                    ),
                ),
                None => InputError::at(
                    self.csv.position().line() as usize - 1,
                    format!("cannot read: {e}"),
                ),
            }
        })?;
        if more {
            self.line = self.csv.position().line() as usize - 2;
        }
        Ok(more)
    }

    /// Whether the line last read holds nothing but ASCII spaces, tabs and `\r` (it stops
    /// at the first other byte: the first of a data row).
    pub(crate) fn blank(&self) -> bool {
        self.record
            .as_slice()
            .iter()
            .all(|&b| matches!(b, b' ' | b'\t' | b'\r'))
    }

    /// The fields of the line last read.
    pub(crate) fn fields(&self) -> Result<Fields<'_>, InputError> {
        // The fields are checked in one pass over their bytes laid end to end, then each
        // end checked to fall between characters (a sequence cut by a tab is two halves
        // that join up in the concatenation).
        let text = std::str::from_utf8(self.record.as_slice()).map_err(|_| self.not_utf8())?;
        let fields = Fields {
            text,
            record: &self.record,
        };
        if !(0..fields.len()).all(|k| text.is_char_boundary(fields.range(k).end)) {
            return Err(self.not_utf8());
        }
        Ok(fields)
    }

    /// The error for a line that is not UTF-8, found again on the line as it was in the
    /// file (tabs, no `\r\n`) so that the byte index it gives is the line's.
    fn not_utf8(&self) -> InputError {
        let mut bytes = self.record.iter().collect::<Vec<_>>().join(&b'\t');
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        let e = std::str::from_utf8(&bytes)
            .expect_err("a line with a field that is not UTF-8 is not UTF-8");
        InputError::at(self.line, format!("not UTF-8 text: {e}"))
    }
}

/// The fields of one line, as the file has them between tabs (the `\r` of a `\r\n` left
/// out), borrowed from the csv record.
pub(crate) struct Fields<'a> {
    /// The record's fields laid end to end, each of them UTF-8.
    text: &'a str,
    record: &'a ByteRecord,
}

impl<'a> Fields<'a> {
    pub(crate) fn len(&self) -> usize {
        self.record.len()
    }

    fn range(&self, k: usize) -> std::ops::Range<usize> {
        let mut range = self.record.range(k).expect("a field of the record");
        // The line's end is `\r\n` or `\n`; the csv reader ends records at `\n` only.
        if k + 1 == self.len() && self.record.as_slice()[range.clone()].ends_with(b"\r") {
            range.end -= 1;
        }
        range
    }

    pub(crate) fn get(&self, k: usize) -> Option<&'a str> {
        (k < self.len()).then(|| self.field(k))
    }

    /// Field `k`, which must exist (as in a slice, a panic otherwise).
    pub(crate) fn field(&self, k: usize) -> &'a str {
        &self.text[self.range(k)]
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &'a str> + '_ {
        (0..self.len()).map(|k| self.field(k))
    }
}
