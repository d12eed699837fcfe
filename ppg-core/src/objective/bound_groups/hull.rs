//! The root's polymatroid: the most a set of slots collects, and the point of the hull
//! where DTR is the hull bound, which [`Search::finish`] peels towards.

use super::search::Search;
use crate::objective::peel::ROWS;

impl Search<'_> {
    /// The most exposure `m` placements collect at the root: the best slots, `sessions`
    /// of each position.
    pub(super) fn top(&self, m: usize) -> f64 {
        let s = self.sessions;
        let (full, part) = (m / s, m % s);
        s as f64 * self.prefix[full]
            + if part > 0 {
                part as f64 * self.exposure[full]
            } else {
                0.0
            }
    }

    /// A point of the hull where DTR is the hull bound, each slot's total: the scale
    /// interval of the box of the [module docs](super), `[lo U, hi U]` per group with
    /// utility (and `[0, all]` for the slot without), met with the polymatroid of totals.
    /// That meet is the base polytope of `f'(A) = min_D f(D) + u(A - D) - l(D - A)`
    /// (Fujishige), `f` the most a set of slots collects; the point is the mean of its
    /// greedy vertices over every order of the slots, so that it keeps off the meet's faces
    /// where it can.
    pub(super) fn hull_point(&self) -> [f64; ROWS] {
        let (k, slots) = (self.groups, self.slots);
        let all: usize = self.left[..slots].iter().sum();
        let whole = self.top(all);
        let (mut low, mut high) = (f64::INFINITY, 0.0f64);
        for set in 1u32..1 << k {
            let (mut m, mut u) = (0, 0.0);
            for g in (0..k).filter(|g| set >> g & 1 == 1) {
                m += self.left[g];
                u += self.utility[g];
            }
            low = low.min(self.top(m) / u);
            high = high.max((whole - self.top(all - m)) / u);
        }
        let (lo, hi) = if high >= low {
            (low, high)
        } else {
            ((low + high) / 2.0, (low + high) / 2.0)
        };
        let (mut l, mut u) = ([0.0; ROWS], [whole; ROWS]);
        for g in 0..k {
            (l[g], u[g]) = (lo * self.utility[g], hi * self.utility[g]);
        }
        let mut f = [0.0; 1 << ROWS];
        for (set, slot) in f.iter_mut().enumerate().take(1 << slots) {
            let m: usize = (0..slots)
                .filter(|j| set >> j & 1 == 1)
                .map(|j| self.left[j])
                .sum();
            *slot = self.top(m);
        }
        let mut reduced = [0.0; 1 << ROWS];
        for (a, slot) in reduced.iter_mut().enumerate().take(1 << slots) {
            *slot = (0..1usize << slots)
                .map(|d| {
                    let mut v = f[d];
                    for j in 0..slots {
                        match (a >> j & 1, d >> j & 1) {
                            (1, 0) => v += u[j],
                            (0, 1) => v -= l[j],
                            _ => {}
                        }
                    }
                    v
                })
                .fold(f64::INFINITY, f64::min);
        }
        let mut point = [0.0; ROWS];
        let orders: usize = (1..=slots).product();
        for index in 0..orders {
            // The index's permutation (Lehmer code).
            let (mut rest, mut set) = (index, 0usize);
            let mut unused = [0usize; ROWS];
            for (j, slot) in unused.iter_mut().enumerate() {
                *slot = j;
            }
            for i in 0..slots {
                let base = slots - i;
                let pick = rest % base;
                rest /= base;
                let j = unused[pick];
                unused.copy_within(pick + 1..slots - i, pick);
                let before = reduced[set];
                set |= 1 << j;
                point[j] += reduced[set] - before;
            }
        }
        for x in &mut point {
            *x /= orders as f64;
        }
        point
    }
}
