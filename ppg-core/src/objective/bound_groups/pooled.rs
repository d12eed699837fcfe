//! The pooled bound: each group against the others pooled, by the two-group search.

use super::search::Search;
use crate::objective::bound::{self, Shape, TOLERANCE};
use crate::objective::peel::{Matrix, LIST, ROWS};

impl Search<'_> {
    /// The pooled bound: DTR over the groups is at least DTR over two of them, a set `A`
    /// and the others pooled (a pooled ratio is a mean of its groups' ratios, so between
    /// their least and largest), and the least DTR of two groups over `S` rankings is
    /// [`bound::solve`]'s. Where a group's totals are sparse (a group of one to three
    /// items, or one whose fair share is near an end of the hull), no matrix is within the
    /// tolerance of the hull bound, and this bound is the optimum: its two-group optimum,
    /// with the other groups sharing the rest at one ratio. Raises the floor to the
    /// largest over the sets of one group against the rest (`k` sets); returns the group
    /// with the largest and its optimum's count vector when that search was exact. Only
    /// where every item's group has utility (the two groups cover the list).
    pub(super) fn pooled(&mut self, counts: &mut Matrix, order: &mut [usize; ROWS]) -> usize {
        let (k, n) = (self.groups, self.exposure.len());
        if self.slots != k || n > LIST || k > ROWS {
            return 0;
        }
        let total: f64 = self.utility[..k].iter().sum();
        let mut lower = [f64::NEG_INFINITY; ROWS];
        let mut tried = 0;
        for g in 0..k {
            let mut prefix = [0.0; LIST + 1];
            let mut walk = [0u32; LIST];
            let shape = Shape::Dtr {
                utility: [self.utility[g], total - self.utility[g]],
            };
            let Ok(b) = bound::solve(
                shape,
                self.exposure,
                self.left[g] / self.sessions,
                self.sessions,
                bound::CERTIFY_BUDGET,
                &mut prefix[..=n],
                Some(bound::Counts {
                    walk: &mut walk[..n],
                    best: &mut counts[g][..n],
                }),
            ) else {
                continue;
            };
            if b.lower > 1.0 + TOLERANCE && self.widest.is_none_or(|(_, w)| b.lower > w) {
                self.widest = Some((g, b.lower));
            }
            self.floor = self.floor.max(b.lower);
            if b.exact {
                (lower[g], order[tried]) = (b.lower, g);
                tried += 1;
            }
        }
        let left = self.left;
        order[..tried].sort_unstable_by(|&a, &b| {
            let (a_high, b_high) = (lower[a] > 1.0 + TOLERANCE, lower[b] > 1.0 + TOLERANCE);
            b_high
                .cmp(&a_high)
                .then(lower[b].total_cmp(&lower[a]).then(left[a].cmp(&left[b])))
        });
        tried
    }
}
