//! Disparity of treatment ratio (DTR): exposure per unit of utility, group against group.

use super::bound::{self, LowerBound, Shape};
use super::exposure::{check_finite, check_items, check_len, checked_prefix, shape_ok};
use super::{Objective, OPTIMUM_WORK};
use crate::Error;

/// DTR of a two-group list, as in the paper's protocol.
///
/// For each group `G`, `Exp(G)` is the exposure of the positions its items hold, summed
/// over all sessions, and `U(G)` its items' utility summed over all sessions;
/// `ratio_G = Exp(G) / U(G)`, or 0 where `U(G) = 0`. DTR is the larger ratio over the
/// smaller, so 1 is perfectly fair. When either ratio is 0 the value is degenerate and
/// taken as 1 (cost 0): with no utility on one side there is nothing to be fair about.
///
/// Group ids are 0 and 1 only; which one is called which does not change the value.
///
/// ```
/// use ppg_core::objective::{Dtr, ExposureTable, Objective, RankStart};
/// let table = ExposureTable::<2>::new(RankStart::Zero);
/// let mut dtr = Dtr::new(&[1.0, 1.0], &[0, 1], table.as_slice())?;
/// // One session: group 0 gets exposure 1, group 1 gets 1/log2(3).
/// assert!((dtr.ratio(&[0, 1], 1) - 3f64.log2()).abs() < 1e-12);
/// // Two sessions that swap the pair are fair.
/// assert!(dtr.cost(&[0, 1, 1, 0], 2).abs() < 1e-12);
/// # Ok::<(), ppg_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dtr<'a> {
    group: &'a [u8],
    /// Each item's utility: the order of a group's items in the optimum's rankings.
    item_utility: &'a [f64],
    exposure: &'a [f64],
    /// Utility of each group in one list; a multi-session ranking holds `sessions` times it.
    utility: [f64; 2],
}

impl<'a> Dtr<'a> {
    /// DTR over the list whose item `i` has utility `utility[i]` and group `group[i]`,
    /// scored with the exposure `exposure[k]` at position `k` of each session (only the
    /// first `n = utility.len()` entries are read).
    ///
    /// # Errors
    /// - [`Error::Empty`] for an empty list, [`Error::Capacity`] for more than
    ///   [`MAX_ITEMS`](crate::MAX_ITEMS) items.
    /// - [`Error::LengthMismatch`] when `group` is not `n` long or `exposure` is shorter
    ///   than `n`.
    /// - [`Error::NotFinite`] for a NaN or infinite utility (index into `utility`) or
    ///   exposure (index into `exposure`).
    /// - [`Error::InvalidConfig`] for a negative utility or exposure, or utility sums that
    ///   overflow.
    /// - [`Error::Unsupported`] for a group id other than 0 and 1.
    pub fn new(utility: &'a [f64], group: &'a [u8], exposure: &'a [f64]) -> Result<Self, Error> {
        let n = utility.len();
        check_items(n)?;
        check_len(n, group.len())?;
        check_finite(utility)?;
        if utility.iter().any(|&u| u < 0.0) {
            return Err(Error::InvalidConfig("DTR utilities must be non-negative"));
        }
        if group.iter().any(|&g| g > 1) {
            return Err(Error::Unsupported(
                "DTR supports the group ids 0 and 1 only",
            ));
        }
        let exposure = checked_prefix(exposure, n)?;
        let sums = group_sums(utility, group);
        if !sums.iter().all(|s| s.is_finite()) {
            return Err(Error::InvalidConfig("utility sums overflow"));
        }
        Ok(Dtr {
            group,
            item_utility: utility,
            exposure,
            utility: sums,
        })
    }

    /// Whether DTR is meaningful for this query in the protocol's sense: both groups are
    /// present and each has a positive utility sum.
    ///
    /// Returns `false` for input [`Dtr::new`] would refuse (empty, lengths differing,
    /// a group id above 1, a NaN, infinite or negative utility); so when this is `true`,
    /// `new` succeeds given an exposure table of at least `utility.len()` finite,
    /// non-negative entries and at most [`MAX_ITEMS`](crate::MAX_ITEMS) items.
    pub fn valid(utility: &[f64], group: &[u8]) -> bool {
        if utility.is_empty() || utility.len() != group.len() || group.iter().any(|&g| g > 1) {
            return false;
        }
        if utility.iter().any(|&u| !(u.is_finite() && u >= 0.0)) {
            return false;
        }
        let sums = group_sums(utility, group);
        sums.iter().all(|&s| s > 0.0 && s.is_finite())
    }

    /// Items per session (`n`).
    pub fn items(&self) -> usize {
        self.group.len()
    }

    /// The DTR of `ranking` (at least 1; 1 when degenerate), the value the paper reports.
    ///
    /// Returns NaN when `ranking` is not `sessions >= 1` blocks of `n` ids or names an
    /// id `>= n`; an optimiser stops on it. Blocks are not checked to be permutations: an
    /// id named twice is counted twice.
    pub fn ratio(&self, ranking: &[u16], sessions: usize) -> f64 {
        let n = self.group.len();
        if !shape_ok(ranking, sessions, n) {
            return f64::NAN;
        }
        let mut exposure = [0.0f64; 2];
        for block in ranking.chunks_exact(n) {
            for (&item, &e) in block.iter().zip(self.exposure) {
                match self.group.get(usize::from(item)) {
                    Some(0) => exposure[0] += e,
                    Some(_) => exposure[1] += e,
                    None => return f64::NAN,
                }
            }
        }
        let sessions = sessions as f64;
        let ratio = |g: usize| {
            if self.utility[g] > 0.0 {
                exposure[g] / (sessions * self.utility[g])
            } else {
                0.0
            }
        };
        let (a, b) = (ratio(0), ratio(1));
        if a == 0.0 || b == 0.0 {
            return 1.0;
        }
        if a >= b {
            a / b
        } else {
            b / a
        }
    }
}

impl Objective for Dtr<'_> {
    /// `ratio - 1`: 0 when fair (or degenerate), NaN for a malformed ranking.
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        self.ratio(ranking, sessions) - 1.0
    }

    /// The exact optimum ([`bound`]) minus 1; 0 when DTR is degenerate (a group without
    /// utility: every ranking costs 0). `None` when the exposures are not positive and
    /// non-increasing, or `work` is shorter than `n + 1`.
    fn lower_bound(&self, sessions: usize, work: &mut [f64]) -> Option<LowerBound> {
        if !self.fair_point_exists() {
            return Some(LowerBound {
                value: 0.0,
                exact: true,
            });
        }
        let b = self.solve(sessions, work, None, false)?;
        Some(LowerBound {
            value: b.lower - 1.0,
            exact: b.exact,
        })
    }

    /// The bound, and the rankings of its search ([`bound::witness`]) when it is exact;
    /// none when DTR is degenerate (every ranking is optimal, the caller's included).
    fn optimum(
        &self,
        sessions: usize,
        work: &mut [f64],
        out: &mut [u16],
    ) -> Option<(LowerBound, bool)> {
        let n = self.group.len();
        if !self.fair_point_exists() || work.len() < OPTIMUM_WORK * n + 4 {
            return self.lower_bound(sessions, work).map(|b| (b, false));
        }
        // Prefix sums (n + 1), keys (n), the two count vectors (n values' worth of u32
        // pairs) and the order (n u16, in n / 4 + 1 values).
        let (prefix, rest) = work.split_at_mut(n + 1);
        let (key, rest) = rest.split_at_mut(n);
        let (counts, rest) = rest.split_at_mut(n);
        let order = &mut bytemuck::must_cast_slice_mut::<f64, u16>(rest)[..n];
        let (walk, best) = bytemuck::must_cast_slice_mut::<f64, u32>(counts).split_at_mut(n);
        let counts = bound::Counts { walk, best };
        // The search runs from the side of item 0's group, so that the rankings do not
        // depend on which group is called 0 (each door names groups in its own order).
        let first = self.group.first().is_some_and(|&g| g != 0);
        let b = self.solve(sessions, prefix, Some(counts), first)?;
        let bound = LowerBound {
            value: b.lower - 1.0,
            exact: b.exact,
        };
        // Each group's items in its positions by utility, the most relevant order those
        // positions allow (ties: id order); a run that keeps the order within groups puts
        // them back in its reference order (`trainer::optimum`).
        key.copy_from_slice(&self.item_utility[..n]);
        let side = |g: u8| (g != 0) == first;
        let found =
            b.exact && bound::witness_as(best, self.group, side, key, sessions, order, out).is_ok();
        Some((bound, found))
    }
}

impl Dtr<'_> {
    /// Both groups have utility: otherwise DTR is degenerate and every ranking costs 0.
    fn fair_point_exists(&self) -> bool {
        self.utility[0] > 0.0 && self.utility[1] > 0.0
    }

    /// The bound's search at [`bound::CERTIFY_BUDGET`] nodes over the placements of group
    /// 0, or of group 1 with `flip`, the best count vector into `counts` when given.
    fn solve(
        &self,
        sessions: usize,
        prefix: &mut [f64],
        counts: Option<bound::Counts<'_>>,
        flip: bool,
    ) -> Option<bound::Bound> {
        let group0 = self.group.iter().filter(|&&g| (g != 0) == flip).count();
        let [u0, u1] = self.utility;
        let shape = Shape::Dtr {
            utility: if flip { [u1, u0] } else { [u0, u1] },
        };
        let n = self.group.len();
        bound::solve(
            shape,
            &self.exposure[..n],
            group0,
            sessions,
            bound::CERTIFY_BUDGET,
            prefix,
            counts,
        )
        .ok()
    }
}

/// Utility of groups 0 and 1 in one list; ids above 1 count as 1 (callers check first).
fn group_sums(utility: &[f64], group: &[u8]) -> [f64; 2] {
    let mut sums = [0.0f64; 2];
    for (&u, &g) in utility.iter().zip(group) {
        if g == 0 {
            sums[0] += u;
        } else {
            sums[1] += u;
        }
    }
    sums
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::{ExposureTable, RankStart};

    /// 1 / log2(3): exposure of the second position when ranks start at 0.
    const C: f64 = 0.630_929_753_571_457_4;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn two_items_one_and_two_sessions() {
        let t = ExposureTable::<2>::new(RankStart::Zero);
        let mut dtr = Dtr::new(&[1.0, 1.0], &[0, 1], t.as_slice()).unwrap();
        // Exp = (1, C), U = (1, 1): DTR = 1 / C = log2(3), whichever group is on top.
        assert!(close(dtr.ratio(&[0, 1], 1), 1.0 / C));
        assert!(close(dtr.ratio(&[1, 0], 1), 1.0 / C));
        // Exp = (1 + C, 1 + C), U = (2, 2): fair.
        assert!(close(dtr.ratio(&[0, 1, 1, 0], 2), 1.0));
        assert!(close(dtr.cost(&[0, 1, 1, 0], 2), 0.0));
        // Exp = (2, 2C), U = (2, 2).
        assert!(close(dtr.cost(&[0, 1, 0, 1], 2), 1.0 / C - 1.0));
    }

    #[test]
    fn unequal_utility() {
        let t = ExposureTable::<3>::new(RankStart::Zero);
        let dtr = Dtr::new(&[2.0, 1.0, 0.0], &[0, 1, 1], t.as_slice()).unwrap();
        // [0,1,2]: ratio_0 = 1/2, ratio_1 = (C + 1/2)/1 -> DTR = 2C + 1.
        assert!(close(dtr.ratio(&[0, 1, 2], 1), 2.0 * C + 1.0));
        // [2,1,0]: ratio_0 = (1/2)/2, ratio_1 = 1 + C -> DTR = 4(1 + C).
        assert!(close(dtr.ratio(&[2, 1, 0], 1), 4.0 * (1.0 + C)));
        // Sessions scale Exp and U alike: the same list twice gives the same value.
        assert!(close(dtr.ratio(&[2, 1, 0, 2, 1, 0], 2), 4.0 * (1.0 + C)));
    }

    #[test]
    fn rank_start_one_table() {
        let t = ExposureTable::<2>::new(RankStart::One);
        let dtr = Dtr::new(&[1.0, 1.0], &[0, 1], t.as_slice()).unwrap();
        // Exp = (C, 1/2): DTR = 2C.
        assert!(close(dtr.ratio(&[0, 1], 1), 2.0 * C));
    }

    #[test]
    fn group_naming_does_not_matter() {
        let t = ExposureTable::<4>::new(RankStart::One);
        let u = [0.5, 1.0, 0.0, 3.0];
        let a = Dtr::new(&u, &[0, 1, 1, 0], t.as_slice()).unwrap();
        let b = Dtr::new(&u, &[1, 0, 0, 1], t.as_slice()).unwrap();
        for r in [[0u16, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]] {
            let ra = a.ratio(&r, 1);
            assert!(ra > 1.0);
            assert!(close(ra, b.ratio(&r, 1)));
        }
    }

    #[test]
    fn degenerate_is_one() {
        let t = ExposureTable::<2>::new(RankStart::Zero);
        let mut no_utility = Dtr::new(&[1.0, 0.0], &[0, 1], t.as_slice()).unwrap();
        assert_eq!(no_utility.ratio(&[0, 1], 1), 1.0);
        assert_eq!(no_utility.cost(&[1, 0], 1), 0.0);
        let one_group = Dtr::new(&[1.0, 2.0], &[1, 1], t.as_slice()).unwrap();
        assert_eq!(one_group.ratio(&[1, 0], 1), 1.0);
        let zero_exposure = [1.0, 0.0];
        let cut = Dtr::new(&[1.0, 1.0], &[0, 1], &zero_exposure).unwrap();
        assert_eq!(cut.ratio(&[0, 1], 1), 1.0);
    }

    #[test]
    fn malformed_ranking_is_nan() {
        let t = ExposureTable::<2>::new(RankStart::Zero);
        let mut dtr = Dtr::new(&[1.0, 1.0], &[0, 1], t.as_slice()).unwrap();
        assert!(dtr.ratio(&[0, 1, 1], 2).is_nan());
        assert!(dtr.ratio(&[0, 2], 1).is_nan());
        assert!(dtr.ratio(&[], 0).is_nan());
        assert!(dtr.cost(&[0, 1], 0).is_nan());
        assert!(dtr.cost(&[u16::MAX, 0], 1).is_nan());
    }

    #[test]
    fn constructor_errors() {
        let t = ExposureTable::<3>::new(RankStart::Zero);
        let t = t.as_slice();
        assert_eq!(Dtr::new(&[], &[], t), Err(Error::Empty));
        assert_eq!(
            Dtr::new(&[1.0, 1.0], &[0], t),
            Err(Error::LengthMismatch {
                expected: 2,
                found: 1
            })
        );
        assert_eq!(
            Dtr::new(&[1.0, f64::NAN], &[0, 1], t),
            Err(Error::NotFinite { index: 1 })
        );
        assert_eq!(
            Dtr::new(&[f64::INFINITY, 1.0], &[0, 1], t),
            Err(Error::NotFinite { index: 0 })
        );
        assert!(matches!(
            Dtr::new(&[1.0, -1.0], &[0, 1], t),
            Err(Error::InvalidConfig(_))
        ));
        assert!(matches!(
            Dtr::new(&[1.0, 1.0], &[0, 2], t),
            Err(Error::Unsupported(_))
        ));
        assert_eq!(
            Dtr::new(&[1.0; 4], &[0, 1, 0, 1], t),
            Err(Error::LengthMismatch {
                expected: 4,
                found: 3
            })
        );
        assert_eq!(
            Dtr::new(&[1.0, 1.0], &[0, 1], &[1.0, f64::NAN]),
            Err(Error::NotFinite { index: 1 })
        );
        assert!(matches!(
            Dtr::new(&[f64::MAX, f64::MAX], &[0, 0], t),
            Err(Error::InvalidConfig(_))
        ));
    }

    #[test]
    fn validity() {
        assert!(Dtr::valid(&[1.0, 0.0, 2.0], &[0, 0, 1]));
        assert!(!Dtr::valid(&[1.0, 0.0, 0.0], &[0, 1, 1]));
        assert!(!Dtr::valid(&[1.0, 1.0], &[0, 0]));
        assert!(!Dtr::valid(&[1.0, 1.0], &[0, 2]));
        assert!(!Dtr::valid(&[1.0, 1.0], &[0]));
        assert!(!Dtr::valid(&[], &[]));
        assert!(!Dtr::valid(&[1.0, f64::NAN], &[0, 1]));
        assert!(!Dtr::valid(&[1.0, -1.0, 3.0], &[0, 1, 1]));
    }
}
