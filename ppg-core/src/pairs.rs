//! Indexing of unordered item pairs in a packed upper triangle.
//!
//! Weights and constraints are kept per *item* pair, not per reference position: moving the
//! reference then only flips `w -> 1 - w` on pairs whose order changed, and a constraint
//! never has to be re-indexed.
//!
//! A foundation: uses nothing else in the crate.

/// Number of unordered pairs among `n` items; `usize::MAX` when that overflows (a 32-bit
/// target past 46,341 items), so that a layout reports "too large" instead of too little.
pub(crate) const fn count(n: usize) -> usize {
    match n.checked_mul(n.saturating_sub(1)) {
        Some(twice) => twice / 2,
        None => usize::MAX,
    }
}

/// Index of the pair `{a, b}` (`a != b`, both below `n`) in a packed triangle.
#[inline(always)]
pub(crate) fn index(a: usize, b: usize, n: usize) -> usize {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    lo * (2 * n - lo - 1) / 2 + (hi - lo - 1)
}

/// Row starts of the packed triangle: `rows[k] + j` is the index of `{k, j}` for `k < j`
/// (wrapping, as the start of row 0 is -1), so the hot loops find a pair with one add.
pub(crate) fn fill_rows(n: usize, rows: &mut [u32]) {
    for (k, row) in rows.iter_mut().enumerate().take(n) {
        *row = (k * (2 * n - k - 1) / 2) as u32;
        *row = row.wrapping_sub(k as u32 + 1);
    }
}

/// One session's packed weights with their row starts.
#[derive(Clone, Copy)]
pub(crate) struct Weights<'a> {
    pub w: &'a [f32],
    pub rows: &'a [u32],
}

impl Weights<'_> {
    #[inline(always)]
    pub(crate) fn pair(&self, a: usize, b: usize) -> usize {
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        self.rows[lo].wrapping_add(hi as u32) as usize
    }

    #[inline(always)]
    pub(crate) fn get(&self, a: usize, b: usize) -> f64 {
        self.w[self.pair(a, b)] as f64
    }
}

/// One session's weights re-indexed by reference *position*: `w[rows[x] + y]` for positions
/// `x < y` (the uncorrected sampler's prepared copy, see `sampler`).
#[derive(Clone, Copy)]
pub(crate) struct ByPosition<'a> {
    pub w: &'a [f32],
    pub rows: &'a [u32],
}

/// A fixed set of pairs stored as bits over the packed triangle.
pub(crate) struct PairBits<'a> {
    pub(crate) words: &'a mut [u32],
}

impl PairBits<'_> {
    pub(crate) const fn words_for(n: usize) -> usize {
        count(n).div_ceil(32)
    }

    #[inline(always)]
    pub(crate) fn get(&self, index: usize) -> bool {
        self.words[index / 32] >> (index % 32) & 1 == 1
    }

    /// The bits of pairs `8 k .. 8 k + 8`, lowest first.
    #[inline(always)]
    pub(crate) fn byte(&self, k: usize) -> u32 {
        self.words[k / 4] >> (k % 4 * 8) & 0xff
    }

    #[inline(always)]
    pub(crate) fn set(&mut self, index: usize) {
        self.words[index / 32] |= 1 << (index % 32);
    }

    #[inline(always)]
    pub(crate) fn unset(&mut self, index: usize) {
        self.words[index / 32] &= !(1 << (index % 32));
    }

    pub(crate) fn clear(&mut self) {
        self.words.fill(0);
    }

    pub(crate) fn any(&self) -> bool {
        self.words.iter().any(|&w| w != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_enumerates_the_triangle_in_order() {
        for n in 2..12 {
            let mut next = 0;
            for a in 0..n {
                for b in a + 1..n {
                    assert_eq!(index(a, b, n), next);
                    assert_eq!(index(b, a, n), next);
                    next += 1;
                }
            }
            assert_eq!(next, count(n));
            let mut rows = [0u32; 12];
            fill_rows(n, &mut rows);
            let view = Weights {
                w: &[],
                rows: &rows,
            };
            for a in 0..n {
                for b in a + 1..n {
                    assert_eq!(view.pair(a, b), index(a, b, n));
                    assert_eq!(view.pair(b, a), index(a, b, n));
                }
            }
        }
    }
}
