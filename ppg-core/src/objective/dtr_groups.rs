//! Disparity of treatment ratio over any number of groups.
//!
//! Singh and Joachims ("Fairness of exposure in rankings", KDD 2018) state disparate
//! treatment pairwise: each group's exposure should be proportional to its utility. Over
//! more than two groups the literature reports the largest exposure-per-utility ratio over
//! the smallest (as the paper's DTR does for two); this module computes that.

use super::bound::LowerBound;
use super::bound_groups;
use super::deal;
use super::exposure::{check_finite, check_items, check_len, checked_prefix, shape_ok};
use super::peel::{Matrix, LIST, ROWS};
use super::{Objective, MAX_GROUPS};
use crate::Error;

/// DTR of a list of up to [`MAX_GROUPS`] groups: `max_G ratio_G / min_G ratio_G` over the
/// groups with a positive utility sum, `ratio_G = Exp(G) / U(G)` with both summed over the
/// sessions. 1 is fair. Degenerate cases are 1, as in the paper's two-group [`Dtr`]:
/// fewer than two groups with utility, or a group with utility and no exposure. On two
/// groups with utility it equals [`Dtr`].
///
/// [`Dtr`]: super::Dtr
///
/// ```
/// use ppg_core::objective::{DtrGroups, ExposureTable, RankStart};
/// let table = ExposureTable::<3>::new(RankStart::Zero);
/// let dtr = DtrGroups::new(&[1.0, 1.0, 1.0], &[0, 1, 2], table.as_slice())?;
/// // Exposures 1, 1/log2(3), 1/2: the largest over the smallest is 2.
/// assert!((dtr.ratio(&[0, 1, 2], 1) - 2.0).abs() < 1e-12);
/// # Ok::<(), ppg_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DtrGroups<'a> {
    group: &'a [u8],
    exposure: &'a [f64],
    /// Utility of each group in one list.
    utility: [f64; MAX_GROUPS],
    /// Each item's utility: the order of a group's items in the optimum's rankings.
    item: &'a [f64],
}

impl<'a> DtrGroups<'a> {
    /// DTR of group exposure totals (summed over `sessions`) against one list's group
    /// utilities: the largest over the smallest exposure-per-utility ratio among the groups
    /// with utility; 1 when degenerate (fewer than two such groups, or one without
    /// exposure).
    pub fn of_totals(exposure: &[f64], utility: &[f64], sessions: usize) -> f64 {
        let (mut lo, mut hi, mut groups) = (f64::INFINITY, 0.0f64, 0);
        for (&e, &u) in exposure.iter().zip(utility) {
            if u > 0.0 {
                let ratio = e / (sessions as f64 * u);
                lo = lo.min(ratio);
                hi = hi.max(ratio);
                groups += 1;
            }
        }
        if groups < 2 || lo == 0.0 {
            1.0
        } else {
            hi / lo
        }
    }

    /// DTR over the list whose item `i` has utility `utility[i]` and group `group[i]`,
    /// with the exposure `exposure[k]` at position `k` of each session.
    ///
    /// # Errors
    /// - [`Error::Empty`] for an empty list, [`Error::Capacity`] for too many items or a
    ///   group id of [`MAX_GROUPS`] or more.
    /// - [`Error::LengthMismatch`] when `group` is not `n` long or `exposure` is shorter.
    /// - [`Error::NotFinite`] for a NaN or infinite utility or exposure.
    /// - [`Error::InvalidConfig`] for a negative utility or exposure, or utility sums that
    ///   overflow.
    pub fn new(utility: &'a [f64], group: &'a [u8], exposure: &'a [f64]) -> Result<Self, Error> {
        let n = utility.len();
        check_items(n)?;
        check_len(n, group.len())?;
        check_finite(utility)?;
        if utility.iter().any(|&u| u < 0.0) {
            return Err(Error::InvalidConfig("DTR utilities must be non-negative"));
        }
        if let Some(&g) = group.iter().find(|&&g| usize::from(g) >= MAX_GROUPS) {
            return Err(Error::Capacity {
                requested: usize::from(g) + 1,
                capacity: MAX_GROUPS,
            });
        }
        let exposure = checked_prefix(exposure, n)?;
        let mut sums = [0.0; MAX_GROUPS];
        for (&u, &g) in utility.iter().zip(group) {
            sums[usize::from(g)] += u;
        }
        if !sums.iter().all(|s| s.is_finite()) {
            return Err(Error::InvalidConfig("utility sums overflow"));
        }
        Ok(DtrGroups {
            group,
            exposure,
            utility: sums,
            item: utility,
        })
    }

    /// Whether DTR means anything for the list (the protocol's valid-query filter, as
    /// [`Dtr::valid`](super::Dtr::valid) on two groups): utilities finite and `>= 0`,
    /// group ids below [`MAX_GROUPS`], and at least two groups with a positive, finite
    /// utility sum.
    pub fn valid(utility: &[f64], group: &[u8]) -> bool {
        if utility.is_empty()
            || utility.len() != group.len()
            || group.iter().any(|&g| usize::from(g) >= MAX_GROUPS)
            || utility.iter().any(|&u| !(u.is_finite() && u >= 0.0))
        {
            return false;
        }
        let mut sums = [0.0f64; MAX_GROUPS];
        for (&u, &g) in utility.iter().zip(group) {
            sums[usize::from(g)] += u;
        }
        sums.iter().all(|s| s.is_finite()) && sums.iter().filter(|&&s| s > 0.0).count() >= 2
    }

    /// The utility of each group in one list (0 for an absent group).
    pub fn utilities(&self) -> &[f64; MAX_GROUPS] {
        &self.utility
    }

    /// The DTR of `ranking` (at least 1; 1 when degenerate); NaN when `ranking` is not
    /// `sessions >= 1` blocks of `n` ids below `n`.
    pub fn ratio(&self, ranking: &[u16], sessions: usize) -> f64 {
        let n = self.group.len();
        if !shape_ok(ranking, sessions, n) {
            return f64::NAN;
        }
        let mut exposure = [0.0f64; MAX_GROUPS];
        for block in ranking.chunks_exact(n) {
            for (&item, &e) in block.iter().zip(self.exposure) {
                match self.group.get(usize::from(item)) {
                    Some(&g) => exposure[usize::from(g)] += e,
                    None => return f64::NAN,
                }
            }
        }
        Self::of_totals(&exposure, &self.utility, sessions)
    }
}

impl Objective for DtrGroups<'_> {
    /// `ratio - 1`: 0 when fair (or degenerate), NaN for a malformed ranking.
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        self.ratio(ranking, sessions) - 1.0
    }

    /// The least DTR ([`bound_groups`]) minus 1: the optimum when the search finished
    /// within [`bound_groups::CERTIFY_BUDGET`], else the hull bound with `exact` false;
    /// 0 when DTR is degenerate (fewer than two groups with utility). `None` when the
    /// exposures are not positive and non-increasing, or `work` is shorter than `n + 1`.
    fn lower_bound(&self, sessions: usize, work: &mut [f64]) -> Option<LowerBound> {
        let b = bound_groups::solve(
            self.group,
            &self.utility,
            self.exposure,
            sessions,
            bound_groups::CERTIFY_BUDGET,
            work,
        )
        .ok()?;
        Some(LowerBound {
            value: b.lower - 1.0,
            exact: b.exact,
        })
    }

    /// The bound, and where it is exact and the list fits a count matrix (at most 64
    /// items, four groups with utility and one row for the rest), rankings that reach it:
    /// the search's best count matrix dealt into sessions (a matching each), each group's items
    /// by utility, highest first (ties by id).
    fn optimum(
        &self,
        sessions: usize,
        work: &mut [f64],
        out: &mut [u16],
    ) -> Option<(LowerBound, bool)> {
        let n = self.group.len();
        let mut matrix: Matrix = [[0; LIST]; ROWS];
        let (b, rows) = bound_groups::solve_with(
            self.group,
            &self.utility,
            self.exposure,
            sessions,
            bound_groups::CERTIFY_BUDGET,
            work,
            Some(&mut matrix),
        )
        .ok()?;
        let bound = LowerBound {
            value: b.lower - 1.0,
            exact: b.exact,
        };
        if !b.exact || rows == 0 || n > LIST {
            return Some((bound, false));
        }
        // The search's rows: the groups with utility in id order, then the rest.
        let mut slot = [u8::MAX; super::MAX_GROUPS];
        let mut k = 0u8;
        for (g, &u) in self.utility.iter().enumerate() {
            if u > 0.0 {
                slot[g] = k;
                k += 1;
            }
        }
        let mut row = [0u8; LIST];
        for (r, &g) in row.iter_mut().zip(self.group) {
            *r = match slot[usize::from(g)] {
                u8::MAX => k,
                s => s,
            };
        }
        // Each group's items on its positions by utility (highest first, ties by id): the
        // most relevant of the rankings with these counts.
        let found = deal::deal(&matrix, rows, &row[..n], self.item, sessions, out);
        Some((bound, found))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::{exposure, Dtr, RankStart};

    #[test]
    fn valid_needs_two_groups_with_utility() {
        assert!(DtrGroups::valid(&[1.0, 0.0, 2.0], &[0, 1, 2]));
        assert!(!DtrGroups::valid(&[1.0, 0.0, 0.0], &[0, 1, 2]));
        assert!(!DtrGroups::valid(&[1.0, 1.0], &[0, 16]));
        assert!(!DtrGroups::valid(&[1.0, -1.0, 3.0], &[0, 1, 2]));
        assert!(!DtrGroups::valid(&[1.0, f64::NAN, 3.0], &[0, 1, 2]));
        assert!(!DtrGroups::valid(&[], &[]));
        for (u, g) in [([1.0, 0.0, 2.0], [0, 0, 1]), ([1.0, 0.0, 0.0], [0, 1, 1])] {
            assert_eq!(DtrGroups::valid(&u, &g), Dtr::valid(&u, &g));
        }
    }

    #[test]
    fn equals_the_two_group_dtr() {
        let mut table = [0.0; 6];
        exposure::fill(RankStart::One, &mut table);
        let utility = [3.0, 1.0, 0.0, 2.0, 1.0, 1.0];
        let group = [0, 1, 1, 0, 1, 0];
        let two = Dtr::new(&utility, &group, &table).unwrap();
        let many = DtrGroups::new(&utility, &group, &table).unwrap();
        for ranking in [
            [0u16, 1, 2, 3, 4, 5],
            [5, 4, 3, 2, 1, 0],
            [1, 2, 4, 0, 3, 5],
        ] {
            assert_eq!(two.ratio(&ranking, 1), many.ratio(&ranking, 1));
        }
        let both: [u16; 12] = [0, 1, 2, 3, 4, 5, 5, 4, 3, 2, 1, 0];
        assert_eq!(two.ratio(&both, 2), many.ratio(&both, 2));
    }

    /// Three groups by hand, position exposures 1, 1/2, 1/4, 1/8.
    #[test]
    fn three_groups_by_hand() {
        let table = [1.0, 0.5, 0.25, 0.125];
        // Items: group 0 utility 2 (item 0), group 1 utility 1 (item 1), group 2 utility
        // 0.5 + 0.5 (items 2, 3).
        let dtr = DtrGroups::new(&[2.0, 1.0, 0.5, 0.5], &[0, 1, 2, 2], &table).unwrap();
        // Ranking 0, 1, 2, 3: Exp = (1, 0.5, 0.375); ratios (0.5, 0.5, 0.375): 0.5 / 0.375.
        assert!((dtr.ratio(&[0, 1, 2, 3], 1) - 0.5 / 0.375).abs() < 1e-15);
        // A group without utility takes no part; one group with utility is degenerate.
        let one = DtrGroups::new(&[1.0, 0.0, 0.0], &[0, 1, 2], &table[..3]).unwrap();
        assert_eq!(one.ratio(&[2, 1, 0], 1), 1.0);
        assert!(dtr.ratio(&[0, 1, 2], 1).is_nan());
        assert!(dtr.ratio(&[0, 1, 2, 9], 1).is_nan());
    }

    /// The optimum's rankings hold each group's items by utility, highest first, and cost
    /// the bound.
    #[test]
    fn optimum_puts_each_group_by_utility() {
        let mut table = [0.0; 7];
        exposure::fill(RankStart::One, &mut table);
        // Within each group the ids run against the utility.
        let utility = [0.5, 1.0, 3.0, 0.0, 2.0, 4.0, 1.0];
        let group = [0, 0, 0, 1, 1, 1, 2];
        let mut dtr = DtrGroups::new(&utility, &group, &table).unwrap();
        for sessions in [1, 2, 3] {
            let mut work = [0.0; 8];
            let mut out = [0u16; 21];
            let out = &mut out[..7 * sessions];
            let (bound, found) = dtr.optimum(sessions, &mut work, out).unwrap();
            assert!(bound.exact && found, "{sessions} sessions");
            assert!((dtr.cost(out, sessions) - bound.value).abs() < 1e-8);
            for block in out.chunks_exact(7) {
                for (p, &a) in block.iter().enumerate() {
                    for &b in &block[p + 1..] {
                        let (a, b) = (usize::from(a), usize::from(b));
                        if group[a] == group[b] {
                            assert!(utility[a] >= utility[b], "{block:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn errors() {
        let table = [1.0; 3];
        assert_eq!(DtrGroups::new(&[], &[], &table), Err(Error::Empty));
        assert!(matches!(
            DtrGroups::new(&[1.0, -1.0], &[0, 1], &table),
            Err(Error::InvalidConfig(_))
        ));
        assert_eq!(
            DtrGroups::new(&[1.0, f64::NAN], &[0, 1], &table),
            Err(Error::NotFinite { index: 1 })
        );
        assert!(matches!(
            DtrGroups::new(&[1.0, 1.0], &[0, 16], &table),
            Err(Error::Capacity { requested: 17, .. })
        ));
    }
}
