//! The distribution a PPG samples from: per session block a reference permutation and an
//! inversion probability (weight) per item pair, the constrained pairs, the pairs held only
//! for the first part of a training run, and the row starts that index the packed pairs.
//!
//! This is the state the rest of the crate reads: the sampler prepares its tables from it
//! and draws over it read-only, the trainer moves its weights and reference. It uses only
//! [`crate::pairs`] (how pairs are indexed) and the memory [`crate::arena`] lends it.

use crate::arena::{region_bytes, Arena};
use crate::pairs::{self, PairBits, Weights};
use crate::{Dims, Error};

/// The reference and weights of every session, and the constraints they share.
pub(crate) struct Distribution<'a> {
    /// Items per session of the current query (0 before a query starts).
    pub n: usize,
    /// Sessions of the current query.
    pub sessions: usize,
    /// `sessions` blocks of `n` item ids.
    pub reference: &'a mut [u16],
    /// `sessions` blocks of `pairs::count(n)` packed item-pair weights.
    pub weights: &'a mut [f32],
    /// Pairs whose weight is held at 0, the same in every session.
    pub frozen: PairBits<'a>,
    /// Pairs frozen only for the first part of each training run, then released
    /// (`Ppg::hold_order_within`); never also in `frozen` outside a run.
    pub held: PairBits<'a>,
    /// Row starts of the packed triangle of `n` items (`pairs::fill_rows`).
    pub rows: &'a mut [u32],
}

impl<'a> Distribution<'a> {
    /// Bytes of the regions [`Distribution::new`] takes for shape `dims`.
    pub(crate) const fn bytes(dims: Dims) -> usize {
        let pairs = pairs::count(dims.items).saturating_mul(dims.sessions);
        region_bytes::<u16>(dims.total())
            .saturating_add(region_bytes::<f32>(pairs))
            .saturating_add(region_bytes::<u32>(PairBits::words_for(dims.items)))
            .saturating_add(region_bytes::<u32>(PairBits::words_for(dims.items)))
            .saturating_add(region_bytes::<u32>(dims.items))
    }

    /// An empty distribution (no query) in regions of `arena`.
    pub(crate) fn new(arena: &mut Arena<'a>, dims: Dims) -> Result<Self, Error> {
        let pairs = pairs::count(dims.items) * dims.sessions;
        Ok(Distribution {
            n: 0,
            sessions: 0,
            reference: arena.take(dims.total())?,
            weights: arena.take(pairs)?,
            frozen: PairBits {
                words: arena.take(PairBits::words_for(dims.items))?,
            },
            held: PairBits {
                words: arena.take(PairBits::words_for(dims.items))?,
            },
            rows: arena.take(dims.items)?,
        })
    }

    /// Starts a query (arguments already checked against the layout): every reference is
    /// `0..items`, every weight `initial_weight`, no pair constrained.
    pub(crate) fn start(&mut self, items: usize, sessions: usize, initial_weight: f32) {
        self.n = items;
        self.sessions = sessions;
        pairs::fill_rows(items, self.rows);
        for block in self.reference[..items * sessions].chunks_exact_mut(items) {
            for (k, slot) in block.iter_mut().enumerate() {
                *slot = k as u16;
            }
        }
        let count = self.pair_count();
        self.weights[..count * sessions].fill(initial_weight);
        self.frozen.clear();
        self.held.clear();
    }

    /// Pairs per session.
    pub(crate) fn pair_count(&self) -> usize {
        pairs::count(self.n)
    }

    /// The reference of session `s`.
    #[inline(always)]
    pub(crate) fn reference_of(&self, s: usize) -> &[u16] {
        &self.reference[s * self.n..(s + 1) * self.n]
    }

    /// The weights of session `s`, indexed by item pair.
    #[inline(always)]
    pub(crate) fn weights_of(&self, s: usize) -> Weights<'_> {
        let count = self.pair_count();
        Weights {
            w: &self.weights[s * count..(s + 1) * count],
            rows: &self.rows[..self.n],
        }
    }

    pub(crate) fn check_started(&self) -> Result<(), Error> {
        if self.n == 0 {
            Err(Error::Empty)
        } else {
            Ok(())
        }
    }

    pub(crate) fn check_item(&self, item: usize) -> Result<(), Error> {
        if item < self.n {
            Ok(())
        } else {
            Err(Error::ItemOutOfRange {
                item,
                items: self.n,
            })
        }
    }

    /// Index of the pair `{a, b}` within one session's weights.
    pub(crate) fn pair_index(&self, a: usize, b: usize) -> Result<usize, Error> {
        self.check_item(a)?;
        self.check_item(b)?;
        if a == b {
            return Err(Error::SamePair);
        }
        Ok(pairs::index(a, b, self.n))
    }

    /// Index of the pair `{a, b}` of `session` in [`Distribution::weights`].
    pub(crate) fn pair_of(&self, session: usize, a: usize, b: usize) -> Result<usize, Error> {
        self.check_started()?;
        if session >= self.sessions {
            return Err(Error::Capacity {
                requested: session + 1,
                capacity: self.sessions,
            });
        }
        Ok(session * self.pair_count() + self.pair_index(a, b)?)
    }

    /// Holds `pair` at weight 0 in every session (and no longer only for a first part).
    pub(crate) fn freeze(&mut self, pair: usize) {
        self.frozen.set(pair);
        self.held.unset(pair);
        self.set_all(pair, 0.0);
    }

    /// Sets the weight of `pair` in every session.
    fn set_all(&mut self, pair: usize, w: f32) {
        let count = self.pair_count();
        for s in 0..self.sessions {
            self.weights[s * count + pair] = w;
        }
    }

    /// Freezes every pair whose two labels are equal (`same`) or differ (`!same`).
    pub(crate) fn freeze_where<G: PartialEq>(
        &mut self,
        groups: &[G],
        same: bool,
    ) -> Result<(), Error> {
        self.for_pairs_where(groups, same, Self::freeze)
    }

    /// Marks every unfrozen pair whose two labels are equal (`same`) or differ (`!same`) as
    /// held for the first part of each training run.
    pub(crate) fn hold_where<G: PartialEq>(
        &mut self,
        groups: &[G],
        same: bool,
    ) -> Result<(), Error> {
        self.for_pairs_where(groups, same, |d, pair| {
            if !d.frozen.get(pair) {
                d.held.set(pair);
            }
        })
    }

    fn for_pairs_where<G: PartialEq>(
        &mut self,
        groups: &[G],
        same: bool,
        mut f: impl FnMut(&mut Self, usize),
    ) -> Result<(), Error> {
        self.check_started()?;
        if groups.len() != self.n {
            return Err(Error::LengthMismatch {
                expected: self.n,
                found: groups.len(),
            });
        }
        let mut pair = 0;
        for a in 0..self.n {
            for b in a + 1..self.n {
                if (groups[a] == groups[b]) == same {
                    f(self, pair);
                }
                pair += 1;
            }
        }
        Ok(())
    }

    /// Whether some pair is neither frozen nor held.
    pub(crate) fn free_while_held(&self) -> bool {
        (0..self.pair_count()).any(|pair| !self.frozen.get(pair) && !self.held.get(pair))
    }

    /// Freezes the held pairs for the first part of a run: weight 0, not trained.
    pub(crate) fn hold(&mut self) {
        for (f, &h) in self.frozen.words.iter_mut().zip(self.held.words.iter()) {
            *f |= h;
        }
        self.zero_frozen();
    }

    /// Weight 0 on every frozen pair in every session. A run that restarts from the weights
    /// before the call (a grown run's stage) calls it, since those weights predate [`hold`].
    ///
    /// [`hold`]: Distribution::hold
    pub(crate) fn zero_frozen(&mut self) {
        for pair in 0..self.pair_count() {
            if self.frozen.get(pair) {
                self.set_all(pair, 0.0);
            }
        }
    }

    /// Unfreezes the held pairs and gives them weight `w` in every session.
    pub(crate) fn release(&mut self, w: f32) {
        self.unhold();
        for pair in 0..self.pair_count() {
            if self.held.get(pair) {
                self.set_all(pair, w);
            }
        }
    }

    /// Unfreezes the held pairs, weights untouched (undoing a failed run restores those).
    pub(crate) fn unhold(&mut self) {
        for (f, &h) in self.frozen.words.iter_mut().zip(self.held.words.iter()) {
            *f &= !h;
        }
    }

    /// Checks that `ranking` is `sessions` permutations of `0..n`; `seen` is `n` long scratch.
    pub(crate) fn check_ranking(&self, ranking: &[u16], seen: &mut [u16]) -> Result<(), Error> {
        self.check_started()?;
        let total = self.n * self.sessions;
        if ranking.len() != total {
            return Err(Error::LengthMismatch {
                expected: total,
                found: ranking.len(),
            });
        }
        for block in ranking.chunks_exact(self.n) {
            seen.fill(UNSEEN);
            for (k, &item) in block.iter().enumerate() {
                let slot = seen.get_mut(item as usize).ok_or(Error::ItemOutOfRange {
                    item: item as usize,
                    items: self.n,
                })?;
                if *slot != UNSEEN {
                    return Err(Error::NotPermutation);
                }
                *slot = k as u16;
            }
        }
        Ok(())
    }
}

const UNSEEN: u16 = u16::MAX;

/// Writes each item's position in `block` into `pos`.
pub(crate) fn locate(block: &[u16], pos: &mut [u16]) {
    for (k, &item) in block.iter().enumerate() {
        pos[item as usize] = k as u16;
    }
}
