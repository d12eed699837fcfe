//! The protocol's evaluation data (`ppg reproduce --data`); the input of `ppg rerank` is
//! `ppg_host::rerank_input`.

use std::collections::HashMap;
use std::path::Path;

use crate::tsv::{GroupIds, Tsv};
use ppg_host::error::{Error, Result};

/// One query of the protocol's data (`qid group label ltr_grade`), rows in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    pub group: Vec<u8>,
    pub label: Vec<f64>,
    pub ltr: Vec<f64>,
}

impl Query {
    /// Items in the list.
    pub fn len(&self) -> usize {
        self.label.len()
    }
}

/// Reads a file in the format of the protocol's data: header `qid group label ltr_grade`,
/// two groups, rows of a query contiguous, label and grade non-negative numbers.
pub fn read_protocol(path: &Path) -> Result<Vec<Query>> {
    let tsv = Tsv::read(path)?;
    let qid = tsv.column("qid")?;
    let group = tsv.column("group")?;
    let label = tsv.column("label")?;
    let ltr = tsv.column("ltr_grade")?;
    let mut groups = GroupIds::new(2, "the protocol's metrics compare two groups");
    let mut queries: Vec<Query> = Vec::new();
    let mut ids: Vec<(String, Vec<usize>)> = Vec::new();
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for row in &tsv.rows {
        let q = tsv.field(row, qid)?;
        let g = groups.id(tsv.field(row, group)?, &tsv.path, row.line)?;
        let l = tsv.number(row, label)?;
        let t = tsv.number(row, ltr)?;
        for (value, column) in [(l, label), (t, ltr)] {
            if value < 0.0 {
                return Err(Error::input(
                    &tsv.path,
                    row.line,
                    format!("{} {value} is negative", tsv.header[column]),
                ));
            }
        }
        if ids.last().map(|(id, _)| id.as_str()) != Some(q) {
            if let Some(first) = first_line.insert(q.to_owned(), row.line) {
                return Err(Error::input(
                    &tsv.path,
                    row.line,
                    format!(
                        "query \"{q}\" started at line {first} and was interrupted: \
                         rows of a query must be contiguous"
                    ),
                ));
            }
            ids.push((q.to_owned(), Vec::new()));
            queries.push(Query {
                group: Vec::new(),
                label: Vec::new(),
                ltr: Vec::new(),
            });
        }
        let query = queries.last_mut().expect("pushed above");
        query.group.push(g);
        query.label.push(l);
        query.ltr.push(t);
        ids.last_mut().expect("pushed above").1.push(row.line);
    }
    check_lengths(&tsv.path, ids.iter().map(|(q, lines)| (q, lines)))?;
    Ok(queries)
}

/// Every query needs two items at least: one item has nothing to re-rank.
fn check_lengths<'a>(
    path: &str,
    queries: impl Iterator<Item = (&'a String, &'a Vec<usize>)>,
) -> Result<()> {
    for (qid, lines) in queries {
        if lines.len() < 2 {
            return Err(Error::input(
                path,
                lines[0],
                format!("query \"{qid}\" has only one item: nothing to rank"),
            ));
        }
        if lines.len() > ppg_core::MAX_ITEMS {
            return Err(Error::input(
                path,
                lines[0],
                format!(
                    "query \"{qid}\" has {} items, more than the {} the engine takes",
                    lines.len(),
                    ppg_core::MAX_ITEMS
                ),
            ));
        }
    }
    Ok(())
}
