//! The queries a streaming reader has finished, kept to find a split query (a query whose
//! rows start again after another query's) in memory that does not grow with the input.
//!
//! Two places hold them:
//! - a sliding window of the most recent ones (a ring of their qids and lines, and a map
//!   from a qid's hash to its slot; the oldest is forgotten when a new one arrives), so
//!   that the usual split (rows of two queries interleaved) is an error at the row that
//!   starts again, however many queries came before;
//! - every one in an external sort (the extsort crate: sorted segments of a fixed number of
//!   queries in temporary files, merged at the end), checked once the input has been read.
//!   A split whose parts are further apart than the window is found there, before
//!   `ppg rerank` commits its output.
//!
//! Both compare the ids themselves, byte for byte: a hash only says where to look. The
//! window compares the qid in the slot its hash names, and the external sort orders by
//! hash, then qid, so that two ids with the same hash are told apart when the merge meets
//! them. Of two ids with one hash in the window, the later holds the slot: a split of the
//! earlier is then found when the input ends (odds of a collision about n^2 / 2^65).
//!
//! Memory is the window and one segment, whatever the number of queries; the temporary
//! files take about 30 bytes and the qid per query. It uses nothing of the crate.

use std::cmp::Ordering;
use std::collections::hash_map::DefaultHasher;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io::{self, Read, Write};

use extsort::{ExternalSorter, PushExternalSorter, Sortable};

/// Queries in the window: 65,536 line ranges and qids, about 5 MB with qids of 16 bytes.
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

type ByQidThenLine = fn(&Part, &Part) -> Ordering;

/// A query's parts together, in line order. The hash orders first, so that the qids
/// themselves are compared only when two hashes are equal (a query's own parts, or a
/// collision).
fn by_qid_then_line(a: &Part, b: &Part) -> Ordering {
    (a.hash, &a.qid, a.first).cmp(&(b.hash, &b.qid, b.first))
}

/// A query of the window.
struct Recent {
    hash: u64,
    qid: String,
    first: usize,
    last: usize,
}

/// The finished queries of one input.
pub struct Finished {
    /// The window: query number `k` (from 0) in slot `k % window`, which it takes from
    /// the query `window` before it, reusing its qid's buffer (once the window is full,
    /// a query allocates nothing here).
    ring: Vec<Recent>,
    /// The slot of each hash in the window.
    slots: HashMap<u64, usize>,
    /// Queries added.
    added: usize,
    window: usize,
    /// The hash the external sort orders by ([`hash`]; a test gives one that collides).
    hash: fn(&str) -> u64,
    /// Every finished query; `None` once [`Finished::earliest_split`] has merged them.
    all: Option<PushExternalSorter<Part, ByQidThenLine>>,
}

impl Finished {
    /// No query yet; `window` queries are kept in memory (the reader uses [`WINDOW`]).
    pub fn new(window: usize) -> Self {
        Self::with_hash(window, hash)
    }

    fn with_hash(window: usize, hash: fn(&str) -> u64) -> Self {
        let window = window.max(1);
        Finished {
            ring: Vec::new(),
            slots: HashMap::new(),
            added: 0,
            window,
            hash,
            all: Some(
                ExternalSorter::new()
                    .with_segment_size(SEGMENT)
                    .pushed_by(by_qid_then_line as ByQidThenLine),
            ),
        }
    }

    /// The lines of `qid`'s rows if it is one of the last `window` queries finished.
    pub fn recent(&self, qid: &str) -> Option<(usize, usize)> {
        let slot = &self.ring[*self.slots.get(&(self.hash)(qid))?];
        (slot.qid == qid).then_some((slot.first, slot.last))
    }

    /// Records a finished query (one not in the window: the reader checks first).
    ///
    /// # Errors
    /// Writing a sorted segment to the temporary directory failed.
    pub fn add(&mut self, qid: &str, first: usize, last: usize) -> io::Result<()> {
        let Some(all) = self.all.as_mut() else {
            return Err(io::Error::other("a query added after the index was merged"));
        };
        let hash = (self.hash)(qid);
        all.push(Part {
            hash,
            qid: qid.to_owned(),
            first,
            last,
        })
        .map_err(io::Error::other)?;
        let k = self.added % self.window;
        self.added += 1;
        match self.ring.get_mut(k) {
            Some(oldest) => {
                // Its hash may name a later slot already (a collision): that one stays.
                if let Entry::Occupied(slot) = self.slots.entry(oldest.hash) {
                    if *slot.get() == k {
                        slot.remove();
                    }
                }
                oldest.qid.clear();
                oldest.qid.push_str(qid);
                (oldest.hash, oldest.first, oldest.last) = (hash, first, last);
            }
            None => self.ring.push(Recent {
                hash,
                qid: qid.to_owned(),
                first,
                last,
            }),
        }
        self.slots.insert(hash, k);
        Ok(())
    }

    /// The split query found first in line order (the one whose later part starts first),
    /// if any. The merge brings a qid's parts together in line order, so a split is two
    /// neighbours with the same qid: equal hashes of different ids are not one.
    ///
    /// # Errors
    /// Reading the temporary segments failed.
    pub fn earliest_split(&mut self) -> io::Result<Option<Split>> {
        let Some(all) = self.all.take() else {
            return Ok(None);
        };
        let mut earliest: Option<Split> = None;
        let mut previous: Option<Part> = None;
        let merge = all.done().map_err(io::Error::other)?;
        crate::pause::at("merging");
        for part in merge {
            let part = part.map_err(io::Error::other)?;
            if let Some(before) = previous.take() {
                // The first two parts of a qid: a third starts later than the second.
                let sooner = earliest.as_ref().is_none_or(|s| part.first < s.after.first);
                if before.qid == part.qid && sooner {
                    earliest = Some(Split {
                        before,
                        after: part.clone(),
                    });
                }
            }
            previous = Some(part);
        }
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
    fn the_window_slides_forgetting_only_the_oldest() {
        let mut f = Finished::new(2);
        f.add("a", 2, 3).unwrap();
        f.add("b", 4, 4).unwrap();
        assert_eq!(f.recent("a"), Some((2, 3)));
        f.add("c", 5, 6).unwrap(); // the window was full: "a" goes, "b" stays
        assert_eq!(
            (f.recent("a"), f.recent("b"), f.recent("c")),
            (None, Some((4, 4)), Some((5, 6)))
        );
        f.add("d", 7, 7).unwrap();
        assert_eq!((f.recent("b"), f.recent("c")), (None, Some((5, 6))));
    }

    /// Every qid has the same hash: the window tells them apart by their bytes, and the
    /// merge finds the one split among them and no other.
    #[test]
    fn ids_with_the_same_hash_are_told_apart() {
        let mut f = Finished::with_hash(2, |_| 7);
        for (k, qid) in ["a", "b", "c", "d", "b", "e"].iter().enumerate() {
            if *qid != "b" || k < 4 {
                assert_eq!(f.recent(qid), None, "{qid} taken for another id");
            }
            f.add(qid, 10 * k + 2, 10 * k + 5).unwrap();
        }
        let split = f.earliest_split().unwrap().unwrap();
        assert_eq!((split.before.qid.as_str(), split.before.first), ("b", 12));
        assert_eq!((split.after.qid.as_str(), split.after.first), ("b", 42));
        // Distinct ids alone: no split, over more than one segment (the temporary files).
        let mut f = Finished::with_hash(16, |_| 7);
        for k in 0..SEGMENT + 1_000 {
            f.add(&format!("q{k}"), k + 2, k + 2).unwrap();
        }
        assert_eq!(f.earliest_split().unwrap(), None);
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

    /// Two qids whose hashes collide for real (see `COLLIDING` in
    /// tests/rerank_input_rules.rs for how they were found): two queries, in the window and
    /// in the merge of the external sort. The later holds the window's slot.
    #[test]
    fn a_real_hash_collision_is_two_queries() {
        let (a, b) = ("q63d02dd4262dd099", "qda68eaba11a22668");
        assert_eq!(
            hash(a),
            hash(b),
            "no longer a collision of this Rust's DefaultHasher"
        );
        let mut f = Finished::new(WINDOW);
        f.add(a, 2, 3).unwrap();
        assert_eq!(f.recent(b), None);
        f.add(b, 4, 5).unwrap();
        assert_eq!((f.recent(a), f.recent(b)), (None, Some((4, 5))));
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
