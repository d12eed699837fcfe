//! Tab-separated files with a header line: the part both readers share.

use std::collections::HashMap;
use std::path::Path;

use ppg_host::error::{Error, Result};

/// One data line: its 1-based line number and its fields, trimmed.
pub struct Row {
    pub line: usize,
    pub fields: Vec<String>,
}

/// A whole file: header names and data rows (blank lines skipped).
pub struct Tsv {
    pub path: String,
    pub header: Vec<String>,
    pub rows: Vec<Row>,
}

impl Tsv {
    /// Reads `path`. An unreadable or empty file, or one with a header and no rows, is an
    /// error naming the file.
    pub fn read(path: &Path) -> Result<Tsv> {
        let name = path.display().to_string();
        let bytes =
            std::fs::read(path).map_err(|e| Error::input(&name, 0, format!("cannot read: {e}")))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| Error::input(&name, 0, format!("not UTF-8 text: {e}")))?;
        let mut lines = text.lines().enumerate().map(|(k, l)| (k + 1, l));
        let header = loop {
            match lines.next() {
                Some((_, l)) if l.trim().is_empty() => continue,
                Some((_, l)) => break split(l),
                None => return Err(Error::input(&name, 1, "empty file: expected a header line")),
            }
        };
        let rows: Vec<Row> = lines
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(line, l)| Row {
                line,
                fields: split(l),
            })
            .collect();
        if rows.is_empty() {
            return Err(Error::input(&name, 1, "no data rows after the header"));
        }
        let mut seen = HashMap::new();
        for (k, h) in header.iter().enumerate() {
            if let Some(first) = seen.insert(h.as_str(), k) {
                return Err(Error::input(
                    &name,
                    1,
                    format!(
                        "column \"{h}\" appears twice (fields {} and {})",
                        first + 1,
                        k + 1
                    ),
                ));
            }
        }
        Ok(Tsv {
            path: name,
            header,
            rows,
        })
    }

    /// Index of the column `name`, or an error naming the header line.
    pub fn column(&self, name: &str) -> Result<usize> {
        self.optional_column(name).ok_or_else(|| {
            Error::input(
                &self.path,
                1,
                format!(
                    "missing column \"{name}\" (the header has: {})",
                    self.header.join(", ")
                ),
            )
        })
    }

    /// Index of the column `name`, if present.
    pub fn optional_column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// Field `column` of `row`, or an error naming the line when the row is too short.
    pub fn field<'r>(&self, row: &'r Row, column: usize) -> Result<&'r str> {
        row.fields.get(column).map(String::as_str).ok_or_else(|| {
            Error::input(
                &self.path,
                row.line,
                format!(
                    "{} fields, the header names {}: no \"{}\"",
                    row.fields.len(),
                    self.header.len(),
                    self.header[column]
                ),
            )
        })
    }

    /// Field `column` of `row` as a finite number.
    pub fn number(&self, row: &Row, column: usize) -> Result<f64> {
        let text = self.field(row, column)?;
        let name = &self.header[column];
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            Ok(_) => Err(Error::input(
                &self.path,
                row.line,
                format!("{name} \"{text}\" is not a finite number"),
            )),
            Err(_) => Err(Error::input(
                &self.path,
                row.line,
                format!("{name} \"{text}\" is not a number"),
            )),
        }
    }
}

fn split(line: &str) -> Vec<String> {
    line.split('\t').map(|f| f.trim().to_owned()).collect()
}

/// Assigns small ids to group names in order of first appearance, refusing more than
/// `limit` of them.
pub struct GroupIds {
    pub names: Vec<String>,
    limit: usize,
    why: &'static str,
}

impl GroupIds {
    /// At most `limit` groups; `why` completes the error message ("DTR compares two groups").
    pub fn new(limit: usize, why: &'static str) -> Self {
        GroupIds {
            names: Vec::new(),
            limit,
            why,
        }
    }

    /// The id of `name`, new or known; an error at `path:line` beyond the limit.
    pub fn id(&mut self, name: &str, path: &str, line: usize) -> Result<u8> {
        if let Some(k) = self.names.iter().position(|n| n == name) {
            return Ok(k as u8);
        }
        if self.names.len() >= self.limit {
            let known: Vec<String> = self.names.iter().map(|n| format!("\"{n}\"")).collect();
            return Err(Error::input(
                path,
                line,
                format!(
                    "group \"{name}\" is group number {} after {}: {}",
                    self.names.len() + 1,
                    known.join(", "),
                    self.why
                ),
            ));
        }
        self.names.push(name.to_owned());
        Ok((self.names.len() - 1) as u8)
    }
}
