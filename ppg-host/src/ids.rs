//! The item ids of one query in one buffer: the ids end to end in a `String` and where
//! each ends, so that reading a query allocates per query rather than per row (`malloc`
//! and `free`, for an owned `String` per item the most, were a quarter of the one-group
//! pass-through's time, docs/performance.md). [`Ids::repeated`] finds an id given twice
//! by hashing, not sorting.

use std::hash::BuildHasher;
use std::ops::Index;

/// Ids in order, each borrowed as a `&str` by index (`ids[k]`) or by [`Ids::iter`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ids {
    text: String,
    /// `text[ends[k - 1]..ends[k]]` is id `k` (from 0 for the first).
    ends: Vec<usize>,
}

impl Ids {
    /// No ids, with room for `ids` ids of `bytes` bytes in all.
    pub fn with_capacity(ids: usize, bytes: usize) -> Self {
        Ids {
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(ids),
        }
    }

    /// Adds `id` at the end.
    pub fn push(&mut self, id: &str) {
        self.text.push_str(id);
        self.ends.push(self.text.len());
    }

    /// The number of ids.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The bytes of every id together.
    pub fn bytes(&self) -> usize {
        self.text.len()
    }

    /// Id `k`, `None` past the end.
    pub fn get(&self, k: usize) -> Option<&str> {
        let end = *self.ends.get(k)?;
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        Some(&self.text[start..end])
    }

    /// The ids in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|k| &self[k])
    }

    /// The first id given again, as `(again, first)`: the earliest index whose id an
    /// earlier index has, and the first index with that id. `table` is scratch kept from
    /// call to call; `hasher` hashes the ids (a keyed one: a file cannot choose ids that
    /// collide).
    pub fn repeated(
        &self,
        table: &mut Vec<u32>,
        hasher: &impl BuildHasher,
    ) -> Option<(usize, usize)> {
        const EMPTY: u32 = u32::MAX;
        let size = (2 * self.len()).next_power_of_two();
        table.clear();
        table.resize(size, EMPTY);
        // The ids as bytes, each from the end of the one before: no id looked up by
        // index but the earlier one a slot holds.
        let text = self.text.as_bytes();
        let id_at = |k: usize| &text[if k == 0 { 0 } else { self.ends[k - 1] }..self.ends[k]];
        let mut start = 0;
        for (k, &end) in self.ends.iter().enumerate() {
            let id = &text[start..end];
            start = end;
            // Open addressing: the first index of each id, in a table at most half full.
            let mut slot = hasher.hash_one(id) as usize & (size - 1);
            loop {
                let first = table[slot];
                if first == EMPTY {
                    table[slot] = u32::try_from(k).expect("a query's rows fit a u32");
                    break;
                }
                if id_at(first as usize) == id {
                    return Some((k, first as usize));
                }
                slot = (slot + 1) & (size - 1);
            }
        }
        None
    }
}

impl Index<usize> for Ids {
    type Output = str;

    /// Id `k`, which must exist (as in a slice, a panic otherwise).
    fn index(&self, k: usize) -> &str {
        self.get(k).expect("an id past the end")
    }
}

impl<const N: usize> PartialEq<[&str; N]> for Ids {
    fn eq(&self, other: &[&str; N]) -> bool {
        self.len() == N && self.iter().zip(other).all(|(a, b)| a == *b)
    }
}

impl<S: AsRef<str>> FromIterator<S> for Ids {
    fn from_iter<I: IntoIterator<Item = S>>(ids: I) -> Self {
        let mut out = Ids::default();
        for id in ids {
            out.push(id.as_ref());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foldhash::fast::RandomState;

    #[test]
    fn ids_come_back_as_pushed_empty_ones_included() {
        let ids: Ids = ["a", "", "bc", "a "].into_iter().collect();
        assert_eq!(ids, ["a", "", "bc", "a "]);
        assert_eq!((ids.len(), ids.bytes(), ids.get(4)), (4, 5, None));
        assert_eq!(&ids[2], "bc");
    }

    #[test]
    fn the_first_repeat_is_the_earliest_second_occurrence_with_its_first() {
        let hasher = RandomState::default();
        let mut table = Vec::new();
        // The ids, and the first repeat (again, first).
        let cases: [(&[&str], _); 5] = [
            (&["x", "y", "z"], None),
            (&[], None),
            (&["a", "b", "a", "b", "a"], Some((2, 0))),
            (&["a", "b", "c", "b", "a"], Some((3, 1))),
            (&["q", "q", "q"], Some((1, 0))),
        ];
        for (ids, want) in cases {
            let ids: Ids = ids.iter().collect();
            assert_eq!(ids.repeated(&mut table, &hasher), want, "{ids:?}");
        }
        // Many ids: every probe sequence is walked (a table at most half full).
        let many: Ids = (0..1000).map(|k| format!("d{}", k % 997)).collect();
        assert_eq!(many.repeated(&mut table, &hasher), Some((997, 0)));
    }
}
