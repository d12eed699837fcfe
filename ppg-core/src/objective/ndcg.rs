//! NDCG@k, averaged over sessions: the utility side of a fairness trade-off.

use super::exposure::{check_finite, check_items, checked_prefix, shape_ok};
use super::Objective;
use crate::Error;

/// NDCG@k of a multi-session ranking, averaged over the sessions.
///
/// Per session, `DCG@k = sum_{r < min(n, k)} (2^label - 1) * discount[r]`, divided by the
/// same sum for the labels sorted descending (IDCG, computed once in [`Ndcg::new`]). The
/// protocol's discount is `1 / log2(r + 2)` with `r` from 0: a
/// [`RankStart::Zero`](super::RankStart::Zero) exposure table.
///
/// A list whose labels are all 0 has IDCG 0 and every ordering is as good as the ideal
/// one, so its NDCG is defined as 1 (cost 0): it neither rewards nor penalises anything
/// in a trade-off, and an ideal ranking scores 1 on every query. (Neither of the paper's
/// TREC sets has such a query among its valid ones, so the published figures do not
/// depend on the choice.)
///
/// ```
/// use ppg_core::objective::{ExposureTable, Ndcg, RankStart};
/// let discount = ExposureTable::<10>::new(RankStart::Zero);
/// let ndcg = Ndcg::new(&[0.0, 1.0], 10, discount.as_slice())?;
/// assert_eq!(ndcg.value(&[1, 0], 1), 1.0);
/// // Gain 1 at the second position: 1 / log2(3).
/// assert!((ndcg.value(&[0, 1], 1) - 1.0 / 3f64.log2()).abs() < 1e-12);
/// # Ok::<(), ppg_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ndcg<'a> {
    label: &'a [f64],
    /// The first `min(n, k)` discounts: the positions that count.
    discount: &'a [f64],
    /// 0 when every label is 0.
    idcg: f64,
}

impl<'a> Ndcg<'a> {
    /// NDCG@`k` of the list whose item `i` has relevance label `label[i]` (gain
    /// `2^label - 1`), with `discount[r]` at 0-based position `r` (only the first
    /// `min(n, k)` entries are read; `k` above `n` means the whole list).
    ///
    /// Computing IDCG takes `O(n * d)` time without allocating, where `d` is the number
    /// of distinct labels among the top `k` (2 for binary labels).
    ///
    /// # Errors
    /// - [`Error::Empty`] for an empty list, [`Error::Capacity`] for more than
    ///   [`MAX_ITEMS`](crate::MAX_ITEMS) items.
    /// - [`Error::InvalidConfig`] for `k = 0`, a negative label or a negative discount.
    /// - [`Error::NotFinite`] for a NaN or infinite label, a label whose gain overflows
    ///   (above 1023; index into `label`), or a NaN or infinite discount (index into
    ///   `discount`).
    /// - [`Error::LengthMismatch`] when `discount` is shorter than `min(n, k)`.
    pub fn new(label: &'a [f64], k: usize, discount: &'a [f64]) -> Result<Self, Error> {
        let n = label.len();
        check_items(n)?;
        if k == 0 {
            return Err(Error::InvalidConfig("NDCG cut-off k must be at least 1"));
        }
        check_finite(label)?;
        if label.iter().any(|&l| l < 0.0) {
            return Err(Error::InvalidConfig("NDCG labels must be non-negative"));
        }
        if let Some(index) = label.iter().position(|&l| !gain(l).is_finite()) {
            return Err(Error::NotFinite { index });
        }
        let discount = checked_prefix(discount, n.min(k))?;
        Ok(Ndcg {
            label,
            discount,
            idcg: ideal_dcg(label, discount),
        })
    }

    /// Items per session (`n`).
    pub fn items(&self) -> usize {
        self.label.len()
    }

    /// The DCG@k of the ideal ordering (0 when every label is 0).
    pub fn ideal(&self) -> f64 {
        self.idcg
    }

    /// NDCG@k of `ranking`, averaged over its sessions: in `[0, 1]`, 1 is ideal.
    ///
    /// Returns NaN when `ranking` is not `sessions >= 1` blocks of `n` ids or when one of
    /// the first `min(n, k)` ids of a block (the only ones read) is `>= n`; an optimiser
    /// stops on it.
    pub fn value(&self, ranking: &[u16], sessions: usize) -> f64 {
        let n = self.label.len();
        if !shape_ok(ranking, sessions, n) {
            return f64::NAN;
        }
        let mut dcg = 0.0;
        for block in ranking.chunks_exact(n) {
            for (&item, &d) in block.iter().zip(self.discount) {
                let Some(&l) = self.label.get(usize::from(item)) else {
                    return f64::NAN;
                };
                dcg += gain(l) * d;
            }
        }
        if self.idcg == 0.0 {
            return 1.0;
        }
        dcg / (sessions as f64 * self.idcg)
    }
}

impl Objective for Ndcg<'_> {
    /// `1 - NDCG@k`: 0 for an ideal ranking, NaN for a malformed one.
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        1.0 - self.value(ranking, sessions)
    }
}

/// `2^label - 1`. Integer labels (the usual case) take the exact shift, so scoring a
/// ranking calls no `exp2`.
fn gain(label: f64) -> f64 {
    // 0 <= label <= 52 and integral: `2^label - 1` is exact in both u64 and f64.
    let whole = label as u32;
    if (0.0..=52.0).contains(&label) && f64::from(whole) == label {
        ((1u64 << whole) - 1) as f64
    } else {
        libm::exp2(label) - 1.0
    }
}

/// DCG of the labels sorted descending over the `discount.len()` top positions, without
/// sorting: walk the distinct gains from the largest down, each filling as many positions
/// as items carry it.
fn ideal_dcg(label: &[f64], discount: &[f64]) -> f64 {
    let mut dcg = 0.0;
    let mut position = 0;
    let mut below = f64::INFINITY;
    while position < discount.len() {
        let mut top = f64::NEG_INFINITY;
        let mut count = 0usize;
        for &l in label {
            if l < below {
                if l > top {
                    top = l;
                    count = 1;
                } else if l == top {
                    count += 1;
                }
            }
        }
        if count == 0 {
            break;
        }
        let g = gain(top);
        for &d in discount.iter().skip(position).take(count) {
            dcg += g * d;
        }
        position += count;
        below = top;
    }
    dcg
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::{ExposureTable, RankStart};

    /// 1 / log2(3) and 1 / log2(5): discounts of positions 1 and 3.
    const C: f64 = 0.630_929_753_571_457_4;
    const D3: f64 = 0.430_676_558_073_393;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn gains() {
        assert_eq!(gain(0.0), 0.0);
        assert_eq!(gain(1.0), 1.0);
        assert_eq!(gain(4.0), 15.0);
        assert!(close(gain(0.5), core::f64::consts::SQRT_2 - 1.0));
        assert_eq!(gain(60.0), libm::exp2(60.0) - 1.0);
    }

    #[test]
    fn graded_labels_one_and_two_sessions() {
        let t = ExposureTable::<4>::new(RankStart::Zero);
        // Gains 0, 3, 1, 7 -> ideal order 3, 1, 2, 0: IDCG = 7 + 3C + 1/2.
        let mut ndcg = Ndcg::new(&[0.0, 2.0, 1.0, 3.0], 10, t.as_slice()).unwrap();
        let idcg = 7.0 + 3.0 * C + 0.5;
        assert!(close(ndcg.ideal(), idcg));
        assert!(close(ndcg.value(&[3, 1, 2, 0], 1), 1.0));
        assert!(close(ndcg.cost(&[3, 1, 2, 0], 1), 0.0));
        // [0,1,2,3]: 0 + 3C + 1/2 + 7 D3.
        let worst = (3.0 * C + 0.5 + 7.0 * D3) / idcg;
        assert!(close(ndcg.value(&[0, 1, 2, 3], 1), worst));
        // Two sessions average.
        assert!(close(
            ndcg.value(&[3, 1, 2, 0, 0, 1, 2, 3], 2),
            (1.0 + worst) / 2.0
        ));
        assert!(close(ndcg.cost(&[0, 1, 2, 3, 0, 1, 2, 3], 2), 1.0 - worst));
    }

    #[test]
    fn cut_off() {
        let t = ExposureTable::<2>::new(RankStart::Zero);
        // k = 2 reads two discounts only; the table may be that short.
        let ndcg = Ndcg::new(&[1.0, 0.0, 1.0, 1.0], 2, t.as_slice()).unwrap();
        assert!(close(ndcg.ideal(), 1.0 + C));
        // Top two: items 1 (gain 0) and 0 (gain 1) -> C / (1 + C).
        assert!(close(ndcg.value(&[1, 0, 2, 3], 1), C / (1.0 + C)));
        // Positions below k are not read.
        assert!(close(ndcg.value(&[2, 3, 1, 0], 1), 1.0));
        // k = 1: only the top counts.
        let top = Ndcg::new(&[1.0, 0.0, 1.0, 1.0], 1, t.as_slice()).unwrap();
        assert_eq!(top.value(&[1, 0, 2, 3], 1), 0.0);
        assert_eq!(top.value(&[3, 0, 2, 1], 1), 1.0);
    }

    #[test]
    fn ties_in_the_ideal() {
        let t = ExposureTable::<5>::new(RankStart::Zero);
        let ndcg = Ndcg::new(&[1.0, 0.0, 1.0, 2.0, 1.0], 3, t.as_slice()).unwrap();
        // Ideal top 3: gains 3, 1, 1.
        assert!(close(ndcg.ideal(), 3.0 + C + 0.5));
    }

    #[test]
    fn all_zero_labels_score_one() {
        let t = ExposureTable::<3>::new(RankStart::Zero);
        let mut ndcg = Ndcg::new(&[0.0, 0.0, 0.0], 10, t.as_slice()).unwrap();
        assert_eq!(ndcg.ideal(), 0.0);
        assert_eq!(ndcg.value(&[2, 0, 1], 1), 1.0);
        assert_eq!(ndcg.cost(&[2, 0, 1], 1), 0.0);
        assert!(ndcg.value(&[2, 0, 3], 1).is_nan());
    }

    #[test]
    fn malformed_ranking_is_nan() {
        let t = ExposureTable::<2>::new(RankStart::Zero);
        let mut ndcg = Ndcg::new(&[1.0, 0.0], 10, t.as_slice()).unwrap();
        assert!(ndcg.value(&[0, 1, 1], 1).is_nan());
        assert!(ndcg.value(&[0, 9], 1).is_nan());
        assert!(ndcg.cost(&[], 0).is_nan());
    }

    #[test]
    fn constructor_errors() {
        let t = ExposureTable::<3>::new(RankStart::Zero);
        let t = t.as_slice();
        assert_eq!(Ndcg::new(&[], 10, t), Err(Error::Empty));
        assert!(matches!(
            Ndcg::new(&[1.0], 0, t),
            Err(Error::InvalidConfig(_))
        ));
        assert_eq!(
            Ndcg::new(&[1.0, f64::NAN], 10, t),
            Err(Error::NotFinite { index: 1 })
        );
        assert!(matches!(
            Ndcg::new(&[1.0, -1.0], 10, t),
            Err(Error::InvalidConfig(_))
        ));
        assert_eq!(
            Ndcg::new(&[1.0, 2000.0], 10, t),
            Err(Error::NotFinite { index: 1 })
        );
        assert_eq!(
            Ndcg::new(&[1.0; 4], 10, t),
            Err(Error::LengthMismatch {
                expected: 4,
                found: 3
            })
        );
        assert!(Ndcg::new(&[1.0; 4], 3, t).is_ok());
        assert_eq!(
            Ndcg::new(&[1.0], 10, &[f64::INFINITY]),
            Err(Error::NotFinite { index: 0 })
        );
    }
}
