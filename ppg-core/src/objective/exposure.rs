//! Position exposure (the DCG discount): tables that the metrics borrow.
//!
//! A cost is evaluated about a million times per second during training, so no metric
//! calls `log2` while scoring: each borrows a table filled once here.

use super::Real;
use crate::Error;

/// Where the rank count starts in `1 / log2(r + 2)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankStart {
    /// `r = 1, 2, ...`: the top position gets `1 / log2(3) ≈ 0.631`. The reference code
    /// of the paper uses this vector; use it to compare with the published numbers.
    One,
    /// `r = 0, 1, ...`: the top position gets 1, the usual DCG discount (and the one the
    /// NDCG of the protocol uses).
    Zero,
}

impl RankStart {
    const fn offset(self) -> f64 {
        match self {
            RankStart::One => 3.0,
            RankStart::Zero => 2.0,
        }
    }
}

/// The exposure of 0-based list position `position`: `1 / log2(position + 2 + s)` with
/// `s = 1` for [`RankStart::One`] and `s = 0` for [`RankStart::Zero`].
///
/// ```
/// use ppg_core::objective::{exposure, RankStart};
/// assert_eq!(exposure::at(RankStart::Zero, 0), 1.0);
/// assert!((exposure::at(RankStart::One, 0) - 0.6309).abs() < 1e-4);
/// ```
pub fn at(start: RankStart, position: usize) -> f64 {
    // Positions are list indices (< 2^16 in practice), exact in an f64.
    1.0 / libm::log2(position as f64 + start.offset())
}

/// Fills `out[k]` with the exposure of position `k` (see [`at`]).
pub fn fill(start: RankStart, out: &mut [f64]) {
    for (position, slot) in out.iter_mut().enumerate() {
        *slot = at(start, position);
    }
}

/// An exposure table of `N` positions owned by value, for callers without a buffer.
///
/// `N` positions take `8 * N` bytes wherever the table lives (on the stack for a local).
#[derive(Debug, Clone, PartialEq)]
pub struct ExposureTable<const N: usize> {
    table: [f64; N],
}

impl<const N: usize> ExposureTable<N> {
    /// The exposure of positions `0..N`.
    pub fn new(start: RankStart) -> Self {
        let mut table = [0.0; N];
        fill(start, &mut table);
        ExposureTable { table }
    }

    /// The table, for the metric constructors.
    pub fn as_slice(&self) -> &[f64] {
        &self.table
    }
}

impl<const N: usize> AsRef<[f64]> for ExposureTable<N> {
    fn as_ref(&self) -> &[f64] {
        &self.table
    }
}

/// The first `needed` entries of a caller's table, checked once so that scoring can trust
/// them: a NaN here would poison every cost, a negative exposure makes no sense.
pub(crate) fn checked_prefix<F: Real>(table: &[F], needed: usize) -> Result<&[F], Error> {
    let prefix = table.get(..needed).ok_or(Error::LengthMismatch {
        expected: needed,
        found: table.len(),
    })?;
    for (index, value) in prefix.iter().map(|v| v.to_f64()).enumerate() {
        if !value.is_finite() {
            return Err(Error::NotFinite { index });
        }
        if value < 0.0 {
            return Err(Error::InvalidConfig(
                "exposure and discount values must be non-negative",
            ));
        }
    }
    Ok(prefix)
}

/// Refuses an empty list or one longer than `u16` ids can name.
pub(crate) fn check_items(items: usize) -> Result<(), Error> {
    if items == 0 {
        return Err(Error::Empty);
    }
    if items > crate::MAX_ITEMS {
        return Err(Error::Capacity {
            requested: items,
            capacity: crate::MAX_ITEMS,
        });
    }
    Ok(())
}

/// Refuses a slice whose length is not the item count.
pub(crate) fn check_len(items: usize, found: usize) -> Result<(), Error> {
    if found != items {
        return Err(Error::LengthMismatch {
            expected: items,
            found,
        });
    }
    Ok(())
}

/// Refuses NaN and infinities; the error names the first offending index.
pub(crate) fn check_finite(values: &[f64]) -> Result<(), Error> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(Error::NotFinite { index }),
        None => Ok(()),
    }
}

/// Whether `ranking` is `sessions >= 1` blocks of `items` ids (the ids themselves are
/// checked where they are read).
pub(crate) fn shape_ok(ranking: &[u16], sessions: usize, items: usize) -> bool {
    sessions != 0 && items.checked_mul(sessions) == Some(ranking.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_start_one_matches_reference_vector() {
        let mut out = [0.0; 3];
        fill(RankStart::One, &mut out);
        // 1/log2(3), 1/log2(4) = 0.5, 1/log2(5)
        assert!((out[0] - 0.630_929_753_571_457_4).abs() < 1e-15);
        assert_eq!(out[1], 0.5);
        assert!((out[2] - 0.430_676_558_073_393).abs() < 1e-15);
    }

    #[test]
    fn rank_start_zero_is_dcg_discount() {
        let table = ExposureTable::<4>::new(RankStart::Zero);
        let t = table.as_slice();
        assert_eq!(t[0], 1.0);
        assert!((t[1] - 0.630_929_753_571_457_4).abs() < 1e-15);
        assert_eq!(t[2], 0.5);
        assert_eq!(t.len(), 4);
        assert_eq!(table.as_ref(), t);
    }

    #[test]
    fn exposure_decreases() {
        let table = ExposureTable::<64>::new(RankStart::One);
        assert!(table.as_slice().windows(2).all(|w| w[0] > w[1]));
    }

    #[test]
    fn prefix_checks() {
        let t = [1.0, 0.5, f64::NAN];
        assert_eq!(checked_prefix(&t, 2).unwrap().len(), 2);
        assert_eq!(checked_prefix(&t, 3), Err(Error::NotFinite { index: 2 }));
        assert_eq!(
            checked_prefix(&t, 4),
            Err(Error::LengthMismatch {
                expected: 4,
                found: 3
            })
        );
        assert!(matches!(
            checked_prefix(&[1.0, -0.1], 2),
            Err(Error::InvalidConfig(_))
        ));
    }

    #[test]
    fn block_shape() {
        assert!(shape_ok(&[0, 1, 1, 0], 2, 2));
        assert!(!shape_ok(&[0, 1, 1], 2, 2));
        assert!(!shape_ok(&[], 0, 2));
        assert_eq!(check_items(0), Err(Error::Empty));
        assert!(matches!(check_items(70_000), Err(Error::Capacity { .. })));
    }
}
