//! The lines of `ppg rerank`'s input, split into fields, numbered, and read no further than
//! a limit: what [`rerank_input`](crate::rerank_input) checks its rules on, and the error
//! it gives at a line.
//!
//! A line is the bytes before a `\n` (its `\r`, if any, left out of its last field), its
//! fields the bytes between tabs; quotes are ordinary text. The reader holds a buffer of
//! the input and finds newlines with `memchr` (tabs eight bytes at a time): a line is a
//! slice of the buffer, its fields offsets into it, and nothing is allocated per line. It replaced the csv
//! crate (with a reader that counted every byte against the line limit in front of it),
//! whose state machine looked at each byte and which needed two newlines chained around
//! the input to number lines and to keep a byte-order mark. Measured in
//! docs/performance.md ("Reading and writing").
//!
//! A line longer than the caller's [`Limit`] stops the reading before more of it is
//! read: the buffer holds at most the limit and a read, so a file with no newline (or
//! `/dev/zero`) is an error at its line rather than an allocation of its size.

use std::fmt;
use std::io::{ErrorKind, Read};
use std::ops::Range;

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

/// The bytes asked of the input at once; the buffer grows past it only for a longer line.
const READ: usize = 1 << 17;

/// The input's non-empty lines split at tabs, with their 1-based numbers.
pub(crate) struct Records<R: Read> {
    input: R,
    /// Input read and not yet consumed: `buf[start..end]`.
    buf: Buffer,
    start: usize,
    end: usize,
    /// `buf[start..start + scanned]` holds no newline.
    scanned: usize,
    eof: bool,
    longest: Limit,
    /// The line last read, in `buf` (its `\n` left out, a `\r` kept).
    record: Range<usize>,
    /// The range of each field of that line in it (a `\r` at its end in none).
    fields: Vec<Range<usize>>,
    /// Whether a field of that line holds a NUL byte.
    nul: bool,
    /// The number of the line last read.
    pub(crate) line: usize,
    /// The number of the line the next read starts.
    next_line: usize,
}

impl<R: Read> Records<R> {
    pub(crate) fn new(input: R, longest: Limit) -> Self {
        Records {
            input,
            buf: Buffer::from(vec![0; READ.min(longest.most.saturating_add(1)).max(1)]),
            start: 0,
            end: 0,
            scanned: 0,
            eof: false,
            longest,
            record: 0..0,
            fields: Vec::new(),
            nul: false,
            line: 0,
            next_line: 1,
        }
    }

    /// Reads the next non-empty line, `false` at the end of the input.
    pub(crate) fn read(&mut self) -> Result<bool, InputError> {
        loop {
            let Some(line) = self.next_line_range()? else {
                return Ok(false);
            };
            let number = self.next_line;
            self.next_line += 1;
            if line.is_empty() {
                continue;
            }
            // Each field's range, found once: a row asks for its fields several times.
            let bytes = &self.buf.bytes()[line.clone()];
            let end = bytes.len() - usize::from(bytes.ends_with(b"\r"));
            self.fields.clear();
            self.nul = split(&bytes[..end], &mut self.fields);
            self.record = line;
            self.line = number;
            return Ok(true);
        }
    }

    /// The range of the next line in the buffer (consumed), reading more input as it
    /// needs; `None` at the end of the input.
    fn next_line_range(&mut self) -> Result<Option<Range<usize>>, InputError> {
        loop {
            let from = self.start + self.scanned;
            if let Some(k) = memchr::memchr(b'\n', &self.buf.bytes()[from..self.end]) {
                let line = self.start..from + k;
                if line.len() > self.longest.most {
                    return Err(self.too_long());
                }
                (self.start, self.scanned) = (from + k + 1, 0);
                return Ok(Some(line));
            }
            self.scanned = self.end - self.start;
            if self.scanned > self.longest.most {
                return Err(self.too_long());
            }
            if self.eof {
                // The last line, without a newline.
                let line = self.start..self.end;
                (self.start, self.scanned) = (self.end, 0);
                return Ok((!line.is_empty()).then_some(line));
            }
            self.fill()?;
        }
    }

    /// Reads more input after the bytes not yet consumed, moved to the buffer's start; the
    /// buffer grows (to the limit and one byte) only when they fill it.
    fn fill(&mut self) -> Result<(), InputError> {
        let mut buf = self.buf.take();
        let read = self.fill_bytes(&mut buf);
        self.buf = Buffer::from(buf);
        read
    }

    fn fill_bytes(&mut self, buf: &mut Vec<u8>) -> Result<(), InputError> {
        buf.copy_within(self.start..self.end, 0);
        (self.end, self.start) = (self.end - self.start, 0);
        if self.end == buf.len() {
            let most = self.longest.most.saturating_add(1);
            buf.resize(buf.len().saturating_mul(2).min(most).max(self.end + 1), 0);
        }
        loop {
            match self.input.read(&mut buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(InputError::at(self.next_line, format!("cannot read: {e}")));
                }
            }
            return Ok(());
        }
    }

    fn too_long(&self) -> InputError {
        InputError::at(
            self.next_line,
            format!(
                "a line longer than {} bytes ({}): not a table of ranked lists, or a column \
                 too wide",
                self.longest.most, self.longest.why
            ),
        )
    }

    fn bytes(&self) -> &[u8] {
        &self.buf.bytes()[self.record.clone()]
    }

    /// Whether the line last read holds nothing but ASCII spaces, tabs and `\r` (it stops
    /// at the first other byte: the first of a data row).
    pub(crate) fn blank(&self) -> bool {
        self.bytes()
            .iter()
            .all(|&b| matches!(b, b' ' | b'\t' | b'\r'))
    }

    /// The fields of the line last read.
    pub(crate) fn fields(&self) -> Result<Fields<'_>, InputError> {
        // Tabs are ASCII: the line is UTF-8 exactly when each of its fields is. A buffer
        // checked whole holds it as text already, unless the line ends inside a character
        // that bytes past the input's end complete.
        let text = match self.buf.text(self.record.clone()) {
            Some(text) => text,
            None => std::str::from_utf8(self.bytes()).map_err(|_| self.not_utf8())?,
        };
        Ok(Fields {
            text,
            ranges: &self.fields,
            nul: self.nul,
        })
    }

    /// The error for a line that is not UTF-8, found on the line as it was in the file (no
    /// `\r\n`) so that the byte index it gives is the line's.
    fn not_utf8(&self) -> InputError {
        let bytes = self.bytes();
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let e = std::str::from_utf8(bytes)
            .expect_err("a line with a field that is not UTF-8 is not UTF-8");
        InputError::at(self.line, format!("not UTF-8 text: {e}"))
    }
}

/// Pushes the range of each tab-separated field of `line` to `fields`; whether a field
/// holds a NUL byte.
///
/// Eight bytes at a time: a word's bytes below `\n` (a tab, a NUL, or a control byte
/// neither) are marked by one subtraction, and only those are looked at. A loop over the
/// bytes cost about 12 instructions a byte, a sixth of the pass-through's reading
/// (docs/performance.md, "Fewer instructions a row").
fn split(line: &[u8], fields: &mut Vec<Range<usize>>) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
    let (mut start, mut nul) = (0, false);
    let mut look = |k: usize| match line[k] {
        b'\t' => {
            fields.push(start..k);
            start = k + 1;
        }
        b => nul |= b == 0,
    };
    let mut words = line.chunks_exact(8);
    for (w, word) in (&mut words).enumerate() {
        let x = u64::from_le_bytes(word.try_into().expect("a chunk of 8 bytes"));
        // Every byte below 10 gets its high bit set (a borrow marks some bytes above
        // one of them too; each marked byte is looked at, so those are harmless).
        let mut below = x.wrapping_sub(ONES * 10) & !x & HIGH;
        while below != 0 {
            look(8 * w + below.trailing_zeros() as usize / 8);
            below &= below - 1;
        }
    }
    let rest = line.len() - words.remainder().len();
    for (k, &b) in line.iter().enumerate().skip(rest) {
        if b <= b'\t' {
            look(k);
        }
    }
    fields.push(start..line.len());
    nul
}

/// The reader's buffer, as text when all of it is UTF-8: then it was checked once a fill
/// (a line is a slice of it) rather than once a line, which was 7 % of the
/// pass-through's reading (docs/performance.md, "Fewer instructions a row"). Otherwise
/// each line is checked as it is read.
enum Buffer {
    Text(String),
    Bytes(Vec<u8>),
}

impl From<Vec<u8>> for Buffer {
    fn from(bytes: Vec<u8>) -> Self {
        match String::from_utf8(bytes) {
            Ok(text) => Buffer::Text(text),
            Err(e) => Buffer::Bytes(e.into_bytes()),
        }
    }
}

impl Buffer {
    fn bytes(&self) -> &[u8] {
        match self {
            Buffer::Text(text) => text.as_bytes(),
            Buffer::Bytes(bytes) => bytes,
        }
    }

    /// `range` as text, if the buffer is text and the range starts and ends between
    /// characters.
    fn text(&self, range: Range<usize>) -> Option<&str> {
        match self {
            Buffer::Text(text) => text.get(range),
            Buffer::Bytes(_) => None,
        }
    }

    /// The bytes, the buffer left empty.
    fn take(&mut self) -> Vec<u8> {
        match std::mem::replace(self, Buffer::Bytes(Vec::new())) {
            Buffer::Text(text) => text.into_bytes(),
            Buffer::Bytes(bytes) => bytes,
        }
    }
}

/// The fields of one line, as the file has them between tabs (the `\r` of a `\r\n` left
/// out), borrowed from the reader's buffer.
pub(crate) struct Fields<'a> {
    /// The line, tabs and `\r` included.
    text: &'a str,
    /// The range of each field in it.
    ranges: &'a [Range<usize>],
    /// Whether a field holds a NUL byte.
    nul: bool,
}

impl<'a> Fields<'a> {
    pub(crate) fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether a field holds a NUL byte.
    pub(crate) fn has_nul(&self) -> bool {
        self.nul
    }

    pub(crate) fn get(&self, k: usize) -> Option<&'a str> {
        (k < self.len()).then(|| self.field(k))
    }

    /// Field `k`, which must exist (as in a slice, a panic otherwise).
    pub(crate) fn field(&self, k: usize) -> &'a str {
        &self.text[self.ranges[k].clone()]
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &'a str> + '_ {
        (0..self.len()).map(|k| self.field(k))
    }
}
