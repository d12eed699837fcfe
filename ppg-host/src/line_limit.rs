//! A reader that refuses a line longer than a limit before passing on more of it.
//!
//! The csv crate holds a record whole and grows its buffer until the record ends: a file
//! with no newline (or `/dev/zero`) would take all the memory there is, and abort the
//! process when an allocation fails. [`LineLimit`] sits between the input and the csv
//! reader, counts the bytes of the line being read, and fails the read once a line is
//! longer than the limit: the reader then holds at most the limit and one buffer of it.

use std::fmt;
use std::io::{self, Read};

/// The error a [`LineLimit`] read fails with, inside an [`io::Error`] (`get_ref`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLong {
    /// The 1-based number of the line.
    pub line: usize,
    /// The limit, in bytes before the line's newline (a `\r` before it counted).
    pub limit: usize,
}

impl fmt::Display for TooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} is longer than {} bytes", self.line, self.limit)
    }
}

impl std::error::Error for TooLong {}

/// `inner`'s bytes, until a line is longer than `limit`.
pub struct LineLimit<R> {
    inner: R,
    limit: usize,
    /// The number of the line being read, from 1.
    line: usize,
    /// Its bytes passed on so far.
    len: usize,
    /// The line found too long in a read that passed on the lines before it: the next
    /// read fails with it.
    failed: Option<TooLong>,
}

impl<R: Read> LineLimit<R> {
    /// Lines of at most `limit` bytes from `inner`.
    pub fn new(inner: R, limit: usize) -> Self {
        LineLimit {
            inner,
            limit,
            line: 1,
            len: 0,
            failed: None,
        }
    }
}

impl<R: Read> Read for LineLimit<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(e) = self.failed {
            return Err(io::Error::other(e));
        }
        let n = self.inner.read(buf)?;
        // The start of the line being counted, within `buf`.
        let mut start = 0;
        for (k, &b) in buf[..n].iter().enumerate() {
            if b == b'\n' {
                if self.len + (k - start) > self.limit {
                    return self.too_long(start);
                }
                (self.line, self.len, start) = (self.line + 1, 0, k + 1);
            }
        }
        if self.len + (n - start) > self.limit {
            return self.too_long(start);
        }
        self.len += n - start;
        Ok(n)
    }
}

impl<R> LineLimit<R> {
    /// Fails on the current line: at once when it starts this read's bytes, else after
    /// passing on the `start` bytes of the lines before it, which may hold an error of
    /// their own that comes first in the file.
    fn too_long(&mut self, start: usize) -> io::Result<usize> {
        let e = TooLong {
            line: self.line,
            limit: self.limit,
        };
        if start == 0 {
            return Err(io::Error::other(e));
        }
        self.failed = Some(e);
        Ok(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads all of `text` through a limit of `limit` bytes, `step` bytes a read.
    fn through(text: &[u8], limit: usize, step: usize) -> Result<Vec<u8>, TooLong> {
        struct Steps<'a>(&'a [u8], usize);
        impl Read for Steps<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.1.min(buf.len()).min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut out = Vec::new();
        LineLimit::new(Steps(text, step), limit)
            .read_to_end(&mut out)
            .map_err(|e| *e.get_ref().unwrap().downcast_ref::<TooLong>().unwrap())?;
        assert_eq!(out, text);
        Ok(out)
    }

    #[test]
    fn lines_up_to_the_limit_pass_whatever_the_reads() {
        for step in [1, 2, 3, 5, 64] {
            assert!(
                through(b"abcd\nef\r\nabc\r\n\nabcd", 4, step).is_ok(),
                "{step}"
            );
        }
    }

    #[test]
    fn the_first_line_too_long_is_named_whatever_the_reads() {
        for step in [1, 2, 3, 5, 64] {
            let e = through(b"ab\nabcd\nabcde\nabcdefgh", 4, step).unwrap_err();
            assert_eq!(e, TooLong { line: 3, limit: 4 }, "{step}");
            let e = through(b"abc\r\nabcd\r\n", 4, step).unwrap_err();
            assert_eq!(e.line, 2, "{step}: a \\r counts");
        }
    }

    #[test]
    fn no_newline_at_all_stops_at_the_limit() {
        let mut limited = LineLimit::new(io::repeat(0), 1000);
        let mut buf = [0u8; 64];
        let mut passed = 0;
        let e = loop {
            match limited.read(&mut buf) {
                Ok(n) => passed += n,
                Err(e) => break e,
            }
        };
        assert!(passed <= 1000, "{passed}");
        assert_eq!(e.to_string(), "line 1 is longer than 1000 bytes");
    }
}
