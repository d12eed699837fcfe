//! The protocol's evaluation data (`ppg reproduce --data`, read whole; `ppg frontier`,
//! streamed); the input of `ppg rerank` is
//! `ppg_host::rerank_input`.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::tsv::{GroupIds, Tsv};
use ppg_host::error::{Error, Result};

/// One query of the protocol's data (`qid group label ltr_grade`), rows in file order.
/// Not the host's `InputQuery` (a `ppg rerank` query: item ids, one score, labels maybe,
/// lines) nor the core's `recipe::Query` (a borrowed view of one utility): the protocol's
/// rows have no item ids and carry two utilities, the labels and the ranker's grades,
/// each of which a cell of the grid re-ranks by.
#[derive(Debug, Clone, PartialEq)]
pub struct ProtocolQuery {
    pub group: Vec<u8>,
    pub label: Vec<f64>,
    pub ltr: Vec<f64>,
}

impl ProtocolQuery {
    /// Items in the list.
    pub fn len(&self) -> usize {
        self.label.len()
    }
}

/// Reads a file in the format of the protocol's data: header `qid group label ltr_grade`,
/// two groups, rows of a query contiguous, label and grade non-negative numbers.
pub fn read_protocol(path: &Path) -> Result<Vec<ProtocolQuery>> {
    let tsv = Tsv::read(path)?;
    let qid = tsv.column("qid")?;
    let group = tsv.column("group")?;
    let label = tsv.column("label")?;
    let ltr = tsv.column("ltr_grade")?;
    let mut groups = GroupIds::new(2, "the protocol's metrics compare two groups");
    let mut queries: Vec<ProtocolQuery> = Vec::new();
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
            queries.push(ProtocolQuery {
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

/// Reads the protocol file at `path` one query at a time, calling `each` on each; the
/// same checks as `ppg reproduce --data` (`crate::data`), with file and line.
pub fn stream(path: &Path, mut each: impl FnMut(ProtocolQuery) -> Result<()>) -> Result<()> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path)
        .map_err(|e| Error::input(&name, 0, format!("cannot read: {e}")))?;
    let err = |line: usize, m: String| Error::input(&name, line, m);
    let mut columns = [0usize; 4];
    let mut seen: HashSet<String> = HashSet::new();
    let mut current: Option<(String, usize, ProtocolQuery)> = None;
    let mut groups: Vec<String> = Vec::new();
    let mut number = 0;
    let finish = |q: Option<(String, usize, ProtocolQuery)>| -> Result<Option<ProtocolQuery>> {
        match q {
            Some((id, line, q)) if q.len() < 2 => Err(Error::input(
                &name,
                line,
                format!("query \"{id}\" has only one item: nothing to rank"),
            )),
            Some((_, _, q)) => Ok(Some(q)),
            None => Ok(None),
        }
    };
    let mut header = false;
    for line in BufReader::new(file).lines() {
        number += 1;
        let line = line.map_err(|e| err(number, format!("cannot read: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
        if !header {
            for (c, want) in ["qid", "group", "label", "ltr_grade"].iter().enumerate() {
                columns[c] = fields
                    .iter()
                    .position(|f| f == want)
                    .ok_or_else(|| err(number, format!("the header has no column \"{want}\"")))?;
            }
            header = true;
            continue;
        }
        let field = |c: usize| {
            fields.get(columns[c]).copied().ok_or_else(|| {
                err(
                    number,
                    format!("{} fields, fewer than the header's", fields.len()),
                )
            })
        };
        let value = |c: usize| -> Result<f64> {
            let text = field(c)?;
            match text.parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
                _ => Err(err(
                    number,
                    format!("{text:?} is not a non-negative number"),
                )),
            }
        };
        let (id, g, label, ltr) = (field(0)?, field(1)?, value(2)?, value(3)?);
        let g = match groups.iter().position(|x| x == g) {
            Some(p) => p,
            None if groups.len() < 2 => {
                groups.push(g.to_owned());
                groups.len() - 1
            }
            None => {
                return Err(err(
                    number,
                    format!("a third group \"{g}\": the protocol's metrics compare two groups"),
                ))
            }
        };
        if current.as_ref().map(|c| c.0.as_str()) != Some(id) {
            if !seen.insert(id.to_owned()) {
                return Err(err(
                    number,
                    format!("query \"{id}\" was interrupted: rows of a query must be contiguous"),
                ));
            }
            if let Some(q) = finish(current.take())? {
                each(q)?;
            }
            let empty = ProtocolQuery {
                group: Vec::new(),
                label: Vec::new(),
                ltr: Vec::new(),
            };
            current = Some((id.to_owned(), number, empty));
        }
        let q = &mut current.as_mut().expect("set above").2;
        if q.len() == ppg_core::MAX_ITEMS {
            return Err(err(
                number,
                format!("query \"{id}\" has more than {} items", ppg_core::MAX_ITEMS),
            ));
        }
        q.group.push(g as u8);
        q.label.push(label);
        q.ltr.push(ltr);
    }
    if !header {
        return Err(err(1, "empty file: expected a header line".into()));
    }
    if let Some(q) = finish(current)? {
        each(q)?;
    }
    Ok(())
}
