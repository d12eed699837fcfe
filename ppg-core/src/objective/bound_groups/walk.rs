//! The depth-first branch and bound over count matrices, position by position and, within
//! a position, slot by slot (the search of the [module docs](super)).

use super::search::Search;
use crate::objective::bound::TOLERANCE;

/// The choices of one group at one position whose bounds a level of the walk keeps (a
/// count of 0 to 32 sessions); more are evaluated again when the walk reaches them.
const CACHED: usize = 33;

impl Search<'_> {
    /// Places `c` of slot `j`'s placements at position `r`; returns what to restore.
    fn place(&mut self, r: usize, j: usize, c: usize) -> f64 {
        if self.record {
            self.walk[j][r] = c as u32;
        }
        self.left[j] -= c;
        let before = self.placed.get(j).copied().unwrap_or(0.0);
        if j < self.groups {
            self.placed[j] += c as f64 * self.exposure[r];
        }
        before
    }

    fn unplace(&mut self, j: usize, c: usize, before: f64) {
        self.left[j] += c;
        if j < self.groups {
            self.placed[j] = before;
        }
    }

    /// The bound after slot `j` takes `c` of the `free` slots at position `r`.
    fn child(&mut self, r: usize, j: usize, c: usize, free: usize) -> f64 {
        let before = self.place(r, j, c);
        let bound = self.lower(r, j + 1, free - c);
        self.unplace(j, c, before);
        bound
    }

    /// The slots of position `r` the walk shares out: `sessions`, less the fixed row's.
    pub(super) fn room(&self, r: usize) -> usize {
        match self.fixed {
            Some(g) if r < self.exposure.len() => self.sessions - self.walk[g][r] as usize,
            _ => self.sessions,
        }
    }

    /// Slot `j` and the later ones share the `free` slots left at position `r`.
    pub(super) fn visit(&mut self, r: usize, j: usize, free: usize) {
        if self.stopped {
            return;
        }
        if self.evaluations > self.budget {
            self.stopped = true;
            return;
        }
        let n = self.exposure.len();
        if r == n {
            let value = self.lower(r, 0, 0);
            if value < self.best {
                self.best = value;
                if self.record {
                    self.found = self.walk;
                }
                if value - self.floor <= TOLERANCE {
                    self.stopped = true;
                }
            }
            return;
        }
        if self.fixed == Some(j) {
            self.visit(r, j + 1, free);
            return;
        }
        let last = match self.fixed {
            Some(g) if g + 1 == self.slots => g - 1,
            _ => self.slots - 1,
        };
        if free == 0 || j == last {
            // The position is full, or the last slot takes what is left (it can: the
            // earlier choices left enough for the later slots, and no more).
            if self.record {
                for (i, later) in self
                    .walk
                    .iter_mut()
                    .enumerate()
                    .take(self.slots)
                    .skip(j + 1)
                {
                    if self.fixed != Some(i) {
                        later[r] = 0;
                    }
                }
            }
            let before = self.place(r, j, free);
            let room = self.room(r + 1);
            self.visit(r + 1, 0, room);
            self.unplace(j, free, before);
            return;
        }
        let later: usize = self.left[j + 1..self.slots].iter().sum();
        let first = free.saturating_sub(later);
        let last = free.min(self.left[j]);
        if first == last {
            let before = self.place(r, j, first);
            self.visit(r, j + 1, free - first);
            self.unplace(j, first, before);
            return;
        }
        // The choices from the lowest bound outwards, always to the lower side, so that
        // good totals come first; each is cut on its own bound (nothing here assumes the
        // bounds are unimodal in the count). The scan keeps the first `CACHED` bounds for
        // the walk.
        let mut cache = [0.0f64; CACHED];
        let mut start = first;
        let mut lowest = f64::INFINITY;
        for c in first..=last {
            let bound = self.child(r, j, c, free);
            if let Some(slot) = cache.get_mut(c - first) {
                *slot = bound;
            }
            if bound < lowest {
                (start, lowest) = (c, bound);
            }
        }
        let bound_of = |search: &mut Self, c: usize| match cache.get(c - first) {
            Some(&bound) => bound,
            None => search.child(r, j, c, free),
        };
        let mut up = Some((start, lowest));
        let mut down = (start > first).then(|| (start - 1, bound_of(self, start - 1)));
        loop {
            let (take_up, (c, bound)) = match (up, down) {
                (Some(a), Some(b)) if a.1 <= b.1 => (true, a),
                (Some(_), Some(b)) => (false, b),
                (Some(a), None) => (true, a),
                (None, Some(b)) => (false, b),
                (None, None) => break,
            };
            if bound < self.best {
                let before = self.place(r, j, c);
                self.visit(r, j + 1, free - c);
                self.unplace(j, c, before);
            }
            if self.stopped {
                break;
            }
            if take_up {
                up = (c < last).then(|| (c + 1, bound_of(self, c + 1)));
            } else {
                down = (c > first).then(|| (c - 1, bound_of(self, c - 1)));
            }
        }
    }
}
