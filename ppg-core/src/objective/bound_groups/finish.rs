//! After the short walk: the pooled bound raises the floor, and the lattice peels a count
//! matrix towards the hull point, which makes the bound exact when its DTR meets the floor.

use super::search::Search;
use crate::objective::bound::{MAX_BLOCKS, TOLERANCE};
use crate::objective::peel::{self, LIST, ROWS};

impl Search<'_> {
    /// Peels a count matrix towards [`Search::hull_point`] ([`peel`]); keeps it when its
    /// DTR is within 0.9 of the tolerance of the hull bound (which makes the bound exact).
    /// Returns the group with the largest pooled bound, when that is above 1.
    pub(super) fn finish(&mut self) -> Option<usize> {
        let (k, slots, n) = (self.groups, self.slots, self.exposure.len());
        let point = self.hull_point();
        let mut pooled = [[0u32; LIST]; ROWS];
        let mut order = [0usize; ROWS];
        let tried = self.pooled(&mut pooled, &mut order);
        let widest = self.widest.map(|(g, _)| g);
        let mut sums = [[0u32; MAX_BLOCKS]; ROWS];
        let mut target = [f64::NAN; ROWS];
        for j in 0..slots {
            sums[j][0] = self.left[j] as u32;
            if j < k {
                target[j] = point[j];
            }
        }
        let mut utility = [0.0; ROWS];
        utility[..k].copy_from_slice(&self.utility[..k]);
        let whole = self.top(self.left[..slots].iter().sum());
        let problem = peel::Peel {
            exposure: self.exposure,
            sessions: self.sessions,
            ends: &[n],
            rows: slots,
            sums: &sums,
            target,
            goal: peel::Goal::Dtr {
                utility,
                bound: self.floor,
                whole,
            },
            fixed: None,
        };
        let (utility, floor) = (self.utility, self.floor);
        let dtr = |totals: &[f64; ROWS]| {
            let (mut hi, mut lo) = (0.0f64, f64::INFINITY);
            for g in 0..k {
                hi = hi.max(totals[g] / utility[g]);
                lo = lo.min(totals[g] / utility[g]);
            }
            (hi / lo).max(1.0)
        };
        let mut out = [[0u32; LIST]; ROWS];
        // Each group whose pooled search was exact placed first with its optimum's counts
        // (the highest bound first, then the smallest group: the sparsest totals), then
        // none.
        let mut peeled = false;
        for attempt in 0..=tried {
            let fixed = (attempt < tried).then(|| (order[attempt], &pooled[order[attempt]][..n]));
            let problem = peel::Peel { fixed, ..problem };
            if peel::peel(&problem, &mut out, |t| dtr(t) - floor <= 0.9 * TOLERANCE) {
                peeled = true;
                break;
            }
        }
        if peeled {
            let mut totals = [0.0; ROWS];
            for (j, total) in totals.iter_mut().enumerate().take(slots) {
                *total = out[j][..n]
                    .iter()
                    .zip(self.exposure)
                    .map(|(&c, &e)| f64::from(c) * e)
                    .sum();
            }
            let value = dtr(&totals);
            if value < self.best {
                self.best = value;
                self.found = out;
            }
        }
        widest
    }
}
