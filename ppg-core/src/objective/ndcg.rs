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
/// Any finite label `>= 0` is accepted: NDCG is a ratio of sums of gains, so when the
/// largest label `m` is above 960 every gain is scored as `2^-s (2^label - 1)`
/// with `s = floor(m) - 960`, which leaves the ratio unchanged in exact arithmetic
/// and keeps DCG and IDCG far from overflow (a label of 1023.5 or 1e308 scores as the
/// top of the list it is). Up to 960 nothing is scaled, so the values of
/// ordinary labels are bit for bit those of the unscaled formula.
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
    /// 0 when every label is 0; in units of `2^shift`.
    idcg: f64,
    /// `s` of the gains' scale `2^-s` (0 for labels up to [`UNSCALED`]).
    shift: f64,
}

/// The largest label whose gain `2^label - 1` is used unscaled. Scaled gains are below
/// `2^(UNSCALED + 1)`, so DCG sums of up to 2^62 gains (any list and session count an
/// engine can hold) stay finite.
const UNSCALED: f64 = 960.0;

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
    /// - [`Error::NotFinite`] for a NaN or infinite label (index into `label`) or a NaN or
    ///   infinite discount (index into `discount`).
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
        let discount = checked_prefix(discount, n.min(k))?;
        let top = label.iter().fold(0.0, |m: f64, &l| m.max(l));
        let shift = if top > UNSCALED {
            libm::floor(top) - UNSCALED
        } else {
            0.0
        };
        Ok(Ndcg {
            label,
            discount,
            idcg: ideal_dcg(label, discount, shift),
            shift,
        })
    }

    /// Items per session (`n`).
    pub fn items(&self) -> usize {
        self.label.len()
    }

    /// The DCG@k of the ideal ordering (0 when every label is 0), in units of `2^s`
    /// when labels above 960 scale the gains (see the type's docs).
    pub fn ideal(&self) -> f64 {
        self.idcg
    }

    /// The gain of `label` in this list's units (`2^label - 1`, scaled as the type's docs
    /// say): the relevance certificate's ([`super::relevance`]) per item.
    pub fn gain(&self, label: f64) -> f64 {
        gain(label, self.shift)
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
                dcg += gain(l, self.shift) * d;
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

/// `2^-shift (2^label - 1)`, the gain scaled as [`Ndcg`]'s docs say; for labels above
/// `shift` this is `2^(label - shift) - 2^-shift`, which cannot overflow.
fn gain(label: f64, shift: f64) -> f64 {
    if shift == 0.0 {
        unscaled_gain(label)
    } else {
        libm::exp2(label - shift) - libm::exp2(-shift)
    }
}

/// `2^label - 1`. Integer labels (the usual case) take the exact shift, so scoring a
/// ranking calls no `exp2`.
fn unscaled_gain(label: f64) -> f64 {
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
fn ideal_dcg(label: &[f64], discount: &[f64], shift: f64) -> f64 {
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
        let g = gain(top, shift);
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
        assert_eq!(gain(0.0, 0.0), 0.0);
        assert_eq!(gain(1.0, 0.0), 1.0);
        assert_eq!(gain(4.0, 0.0), 15.0);
        assert!(close(gain(0.5, 0.0), core::f64::consts::SQRT_2 - 1.0));
        assert_eq!(gain(60.0, 0.0), libm::exp2(60.0) - 1.0);
        // Scaled: label 0 still gains nothing, and 2^-s (2^l - 1) for the others.
        assert_eq!(gain(0.0, 63.0), 0.0);
        assert_eq!(gain(1023.0, 63.0), libm::exp2(960.0) - libm::exp2(-63.0));
        assert_eq!(gain(1e308, 1e308), 1.0);
    }

    /// The examples of issue 19 (point 3): 2 sessions of the reversed ranking, NDCG@4.
    /// Before the gains were scaled, the sums overflowed: {1023.5, 1023.5, 0, 0} scored
    /// NaN (inf / inf) and {1023, 0, 0, 0} scored 0 (cost 1) where 1 / log2(5) is right.
    #[test]
    fn labels_near_the_top_of_the_double_range() {
        let t = ExposureTable::<4>::new(RankStart::Zero);
        let reversed = [3, 2, 1, 0, 3, 2, 1, 0];
        let two = Ndcg::new(&[1023.5, 1023.5, 0.0, 0.0], 4, t.as_slice()).unwrap();
        // Gains g, g, 0, 0 at positions 2 and 3: (1/2 + D3) / (1 + C).
        let want = (0.5 + D3) / (1.0 + C);
        assert!(
            close(two.value(&reversed, 2), want),
            "{}",
            two.value(&reversed, 2)
        );
        assert!(close(want, 0.570_641_718_955_320_1), "{want}");
        let one = Ndcg::new(&[1023.0, 0.0, 0.0, 0.0], 4, t.as_slice()).unwrap();
        assert!(close(one.value(&reversed, 2), D3));
        assert!(close(1.0 - D3, 0.569_323_441_926_606_9));
    }

    /// Any finite label is accepted and scores as the ratio says, on both sides of the
    /// scaling threshold: for labels x and x - 1 the gains are about 2:1, so ranking the
    /// smaller first scores (1/2 + C) / (1 + C/2).
    #[test]
    fn scaling_keeps_the_ratio_at_every_size() {
        let t = ExposureTable::<2>::new(RankStart::Zero);
        let swapped = (0.5 + C) / (1.0 + 0.5 * C);
        for x in [
            100.0, 960.0, 960.5, 961.0, 961.5, 1023.0, 1023.5, 1024.0, 2000.0, 1e5,
        ] {
            let labels = [x, x - 1.0];
            let ndcg = Ndcg::new(&labels, 10, t.as_slice()).unwrap();
            let value = ndcg.value(&[1, 0], 1);
            assert!(close(value, swapped), "labels {x}, {}: {value}", x - 1.0);
            assert_eq!(ndcg.value(&[0, 1], 1), 1.0);
            assert!(ndcg.ideal().is_finite());
        }
        // The largest doubles: the top item alone carries the list.
        for x in [1e308, f64::MAX] {
            let (labels, ties) = ([x, 0.0], [x, x]);
            let ndcg = Ndcg::new(&labels, 10, t.as_slice()).unwrap();
            assert!(close(ndcg.value(&[1, 0], 1), C));
            assert_eq!(ndcg.value(&[0, 1], 1), 1.0);
            let tie = Ndcg::new(&ties, 10, t.as_slice()).unwrap();
            assert_eq!(tie.value(&[1, 0], 1), 1.0);
        }
    }

    /// Up to the threshold nothing is scaled: the gains are the unscaled formula's, bit
    /// for bit, so ordinary labels score exactly as before.
    #[test]
    fn no_scaling_up_to_the_threshold() {
        let t = ExposureTable::<3>::new(RankStart::Zero);
        let ndcg = Ndcg::new(&[UNSCALED, 3.0, 0.5], 10, t.as_slice()).unwrap();
        let idcg = unscaled_gain(UNSCALED) + 7.0 * C + (core::f64::consts::SQRT_2 - 1.0) * 0.5;
        assert_eq!(ndcg.ideal(), idcg);
        let above = Ndcg::new(&[UNSCALED + 1.0, 3.0, 0.5], 10, t.as_slice()).unwrap();
        assert!(above.ideal() < libm::exp2(UNSCALED + 1.0));
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
            Ndcg::new(&[1.0, f64::INFINITY], 10, t),
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
