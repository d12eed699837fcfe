//! The queries a streaming reader has finished, kept to find a split query (a query whose
//! rows start again after another query's) in memory that does not grow with the input.
//!
//! Two places hold them:
//! - a window of the most recent ones in a hash map, so that the usual split (rows of two
//!   queries interleaved) is an error at the row that starts again;
//! - every one in an external sort (the extsort crate: sorted segments of a fixed number of
//!   queries in temporary files, merged at the end), checked once the input has been read.
//!   A split whose parts are further apart than the window is found there, before
//!   `ppg rerank` commits its output.
//!
//! Memory is the window and one segment, whatever the number of queries; the temporary
//! files take about 30 bytes and the qid per query. It uses nothing of the crate.

use std::cmp::Ordering;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io::{self, Read, Write};

use extsort::{ExternalSorter, PushExternalSorter, Sortable};

/// Queries in the window: 65,536 line ranges, about 2 MB of hash map.
pub const WINDOW: usize = 1 << 16;
/// Queries in one sorted segment, in memory until it is written: about 16 MB at most, and
/// one open file per segment at the end (10^8 queries: 382).
const SEGMENT: usize = 1 << 18;

/// A query's rows: its qid and the lines of its first and last row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    hash: u64,
    /// The query id.
    pub qid: String,
    /// Line of the first row.
    pub first: usize,
    /// Line of the last row.
    pub last: usize,
}

/// A split query: two of its parts, in line order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// The earlier part.
    pub before: Part,
    /// The later part: the split is found at its first row.
    pub after: Part,
}

type ByHashThenLine = fn(&Part, &Part) -> Ordering;

fn by_hash_then_line(a: &Part, b: &Part) -> Ordering {
    (a.hash, a.first).cmp(&(b.hash, b.first))
}

/// The finished queries of one input.
pub struct Finished {
    /// Line ranges of recent queries, by a 64-bit hash of the qid (a window; an id with the
    /// same hash as another, odds about n^2 / 2^65, would be taken for it).
    recent: HashMap<u64, (usize, usize)>,
    window: usize,
    /// Every finished query; `None` once [`Finished::earliest_split`] has merged them.
    all: Option<PushExternalSorter<Part, ByHashThenLine>>,
}

impl Finished {
    /// No query yet; `window` queries are kept in memory (the reader uses [`WINDOW`]).
    pub fn new(window: usize) -> Self {
        Finished {
            recent: HashMap::new(),
            window: window.max(1),
            all: Some(
                ExternalSorter::new()
                    .with_segment_size(SEGMENT)
                    .pushed_by(by_hash_then_line as ByHashThenLine),
            ),
        }
    }

    /// The lines of `qid`'s rows if it finished within the window.
    pub fn recent(&self, qid: &str) -> Option<(usize, usize)> {
        self.recent.get(&hash(qid)).copied()
    }

    /// Records a finished query.
    ///
    /// # Errors
    /// Writing a sorted segment to the temporary directory failed.
    pub fn add(&mut self, qid: &str, first: usize, last: usize) -> io::Result<()> {
        let hash = hash(qid);
        if self.recent.len() >= self.window {
            self.recent.clear();
        }
        self.recent.insert(hash, (first, last));
        let Some(all) = self.all.as_mut() else {
            return Err(io::Error::other("a query added after the index was merged"));
        };
        all.push(Part {
            hash,
            qid: qid.to_owned(),
            first,
            last,
        })
        .map_err(io::Error::other)
    }

    /// The split query found first in line order (the one whose later part starts first),
    /// if any: the qids are compared, so equal hashes of different ids are not a split.
    ///
    /// # Errors
    /// Reading the temporary segments failed.
    pub fn earliest_split(&mut self) -> io::Result<Option<Split>> {
        let Some(all) = self.all.take() else {
            return Ok(None);
        };
        let mut earliest: Option<Split> = None;
        let mut group: Vec<Part> = Vec::new();
        let consider = |group: &[Part], earliest: &mut Option<Split>| {
            for (k, after) in group.iter().enumerate() {
                let Some(before) = group[..k].iter().find(|p| p.qid == after.qid) else {
                    continue;
                };
                if earliest
                    .as_ref()
                    .is_none_or(|s| after.first < s.after.first)
                {
                    *earliest = Some(Split {
                        before: before.clone(),
                        after: after.clone(),
                    });
                }
            }
        };
        let merge = all.done().map_err(io::Error::other)?;
        crate::pause::at("merging");
        for part in merge {
            let part = part.map_err(io::Error::other)?;
            if group.last().is_some_and(|p| p.hash != part.hash) {
                consider(&group, &mut earliest);
                group.clear();
            }
            group.push(part);
        }
        consider(&group, &mut earliest);
        Ok(earliest)
    }
}

fn hash(qid: &str) -> u64 {
    let mut h = DefaultHasher::new();
    qid.hash(&mut h);
    h.finish()
}

impl Sortable for Part {
    fn encode<W: Write>(&self, writer: &mut W) -> io::Result<()> {
        writer.write_all(&self.hash.to_le_bytes())?;
        writer.write_all(&(self.first as u64).to_le_bytes())?;
        writer.write_all(&(self.last as u64).to_le_bytes())?;
        writer.write_all(&(self.qid.len() as u64).to_le_bytes())?;
        writer.write_all(self.qid.as_bytes())
    }

    fn decode<R: Read>(reader: &mut R) -> io::Result<Self> {
        let mut word = || -> io::Result<u64> {
            let mut bytes = [0u8; 8];
            reader.read_exact(&mut bytes)?;
            Ok(u64::from_le_bytes(bytes))
        };
        let (hash, first, last, len) = (word()?, word()?, word()?, word()?);
        let to_usize = |x: u64| usize::try_from(x).map_err(io::Error::other);
        let mut qid = vec![0u8; to_usize(len)?];
        reader.read_exact(&mut qid)?;
        Ok(Part {
            hash,
            qid: String::from_utf8(qid).map_err(io::Error::other)?,
            first: to_usize(first)?,
            last: to_usize(last)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_finds_recent_queries_and_forgets_older_ones() {
        let mut f = Finished::new(2);
        f.add("a", 2, 3).unwrap();
        f.add("b", 4, 4).unwrap();
        assert_eq!(f.recent("a"), Some((2, 3)));
        f.add("c", 5, 6).unwrap(); // the window was full: it starts again
        assert_eq!((f.recent("a"), f.recent("c")), (None, Some((5, 6))));
    }

    #[test]
    fn the_merge_finds_the_split_found_first_in_line_order() {
        let mut f = Finished::new(1);
        for (k, qid) in ["a", "b", "c", "b", "d", "a", "b"].iter().enumerate() {
            f.add(qid, 10 * k + 2, 10 * k + 5).unwrap();
        }
        let split = f.earliest_split().unwrap().unwrap();
        assert_eq!((split.before.qid.as_str(), split.before.first), ("b", 12));
        assert_eq!((split.after.first, split.after.last), (32, 35));
        // Merged once: the index is spent, and says so rather than miss a split.
        assert_eq!(f.earliest_split().unwrap(), None);
        assert!(f.add("e", 99, 99).is_err());
    }

    #[test]
    fn distinct_queries_are_no_split_across_segments() {
        let mut f = Finished::new(16);
        // More than one segment, so the merge reads temporary files.
        for k in 0..SEGMENT + 1_000 {
            f.add(&format!("q{k}"), k + 2, k + 2).unwrap();
        }
        assert_eq!(f.earliest_split().unwrap(), None);
    }

    #[test]
    fn a_part_round_trips_through_its_encoding() {
        let part = Part {
            hash: hash("q\u{e9}"),
            qid: "q\u{e9}".into(),
            first: 7,
            last: 1 << 40,
        };
        let mut bytes = Vec::new();
        part.encode(&mut bytes).unwrap();
        assert_eq!(Part::decode(&mut bytes.as_slice()).unwrap(), part);
    }
}
