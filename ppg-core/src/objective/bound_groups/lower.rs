//! The bound of a node of the walk: the least DTR of any relaxed completion of the
//! placements so far (the polymatroid and the box of the [module docs](super)).

use super::search::Search;

impl Search<'_> {
    /// The most exposure a set of groups with `m` placements left, `late` of them in the
    /// slots still deciding position `r` (`j..`), can collect: the late ones first take up
    /// to the `free` slots of position `r`, the highest left, then the set takes the best
    /// slots of the later positions (`sessions` each).
    fn most(&self, r: usize, free: usize, m: usize, late: usize) -> f64 {
        let here = late.min(free);
        if self.fixed.is_some() {
            // The later positions' open slots, the best first.
            let (rest, base, n) = (m - here, self.open[r + 1], self.exposure.len());
            let whole = r + self.open[r + 1..=n].partition_point(|&o| o - base <= rest);
            let part = if whole < n {
                (rest - (self.open[whole] - base)) as f64 * self.exposure[whole]
            } else {
                0.0
            };
            return here as f64 * self.exposure[r] + (self.reach[whole] - self.reach[r + 1]) + part;
        }
        let (s, p) = (self.sessions, self.prefix);
        let (full, part) = ((m - here) / s, (m - here) % s);
        let below = s as f64 * (p[r + 1 + full] - p[r + 1])
            + if part > 0 {
                part as f64 * self.exposure[r + 1 + full]
            } else {
                0.0
            };
        here as f64 * self.exposure[r] + below
    }

    /// The least DTR of any relaxed completion of the placements so far, with slots `j..`
    /// sharing the `free` slots left at position `r` (the bound of the [module docs](super),
    /// with `top` and `bottom` the most a set can collect and what is left when its
    /// complement collects the most); at `r == n` the DTR of the totals.
    pub(super) fn lower(&mut self, r: usize, j: usize, free: usize) -> f64 {
        let k = self.groups;
        let (mut most_needed, mut least_allowed) = (0.0f64, f64::INFINITY);
        if r == self.exposure.len() {
            self.evaluations += 1;
            for g in 0..k {
                let ratio = self.placed[g] / self.utility[g];
                most_needed = most_needed.max(ratio);
                least_allowed = least_allowed.min(ratio);
            }
        } else {
            self.evaluations += (1 << k) - 1;
            let (s, p, n) = (self.sessions, self.prefix, self.exposure.len());
            let all: usize = self.left[..self.slots].iter().sum();
            let all_late: usize = self.left[j..self.slots].iter().sum();
            let total = free as f64 * self.exposure[r]
                + if self.fixed.is_some() {
                    self.reach[n] - self.reach[r + 1]
                } else {
                    s as f64 * (p[n] - p[r + 1])
                };
            for set in 1u32..1 << k {
                let (mut m, mut late, mut a, mut u) = (0, 0, 0.0, 0.0);
                for g in 0..k {
                    if set >> g & 1 == 1 {
                        m += self.left[g];
                        late += if g >= j { self.left[g] } else { 0 };
                        a += self.placed[g];
                        u += self.utility[g];
                    }
                }
                let top = self.most(r, free, m, late);
                let bottom = total - self.most(r, free, all - m, all_late - late);
                most_needed = most_needed.max((bottom + a) / u);
                least_allowed = least_allowed.min((top + a) / u);
            }
        }
        // The box needs `t U <= q t U` too: `q >= 1`.
        (most_needed / least_allowed).max(1.0)
    }
}
