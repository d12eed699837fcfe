//! The unfair group's rows first ([`Search::rows`]), each completed by the walk with the
//! row fixed or, over three groups on whole positions, by a two-group search
//! ([`Shape::DtrBeside`]).

use super::search::{Search, FIRST_WALK};
use crate::objective::bound::{self, Shape, TOLERANCE};
use crate::objective::peel::LIST;

impl Search<'_> {
    /// The walk with group `g`'s row fixed first. DTR over the groups is at least the
    /// two-group DTR of `g` against the others pooled (a pooled ratio lies between its
    /// groups' ratios), a function of `g`'s total alone; so only the rows of `g` whose
    /// two-group DTR is below the incumbent can lead below it. Where the pooled bound
    /// lifted the floor, those are a few rows near the end of `g`'s range, and each leaves
    /// the other groups a walk whose bound sees `g`'s total exactly. Every row not cut is
    /// walked to its end unless the budget runs out (then `stopped`), so a finished
    /// enumeration proves the incumbent optimal. Only where every item's group has utility.
    pub(super) fn rows(&mut self, g: usize) {
        let (s, n) = (self.sessions, self.exposure.len());
        let total_u: f64 = self.utility[..self.groups].iter().sum();
        let share = self.utility[g] / total_u;
        let whole = s as f64 * self.prefix[n];
        self.row(g, 0, self.left[g], 0.0, share, whole);
    }

    /// The two-group DTR of `g`'s total `x` against the others pooled, `share` its part of
    /// the utility and `whole` the exposure of every slot.
    fn pooled_dtr(x: f64, share: f64, whole: f64) -> f64 {
        let (mine, theirs) = (x / share, (whole - x) / (1.0 - share));
        if mine >= theirs {
            mine / theirs
        } else {
            theirs / mine
        }
    }

    /// Three groups, `g`'s row whole positions (every session or none) with exposure `a`:
    /// the other two share the positions left, `S` slots each, so their best split is a
    /// two-group search ([`bound::solve`], with `g`'s ratio beside them:
    /// [`Shape::DtrBeside`]), which proves what the walk over one dimension would need
    /// many sets for (a total within the incumbent's reach of the fair point). Takes its
    /// matrix when it beats the incumbent; an unproven search stops the enumeration.
    fn pair(&mut self, g: usize, a: f64) {
        let (s, n) = (self.sessions, self.exposure.len());
        let (h, other) = match g {
            0 => (1, 2),
            1 => (0, 2),
            _ => (0, 1),
        };
        let (mut open, mut at, mut m) = ([0.0; LIST], [0usize; LIST], 0);
        for q in (0..n).filter(|&q| self.walk[g][q] == 0) {
            (open[m], at[m]) = (self.exposure[q], q);
            m += 1;
        }
        let shape = Shape::DtrBeside {
            utility: [self.utility[h], self.utility[other]],
            ratio: a / (s as f64 * self.utility[g]),
        };
        let (mut prefix, mut walk, mut best) = ([0.0; LIST + 1], [0u32; LIST], [0u32; LIST]);
        // Each search counts as the sets a row's walk may spend at most, so that many
        // rows end the enumeration.
        self.evaluations += FIRST_WALK;
        let found = bound::solve(
            shape,
            &open[..m],
            self.left[h] / s,
            s,
            bound::CERTIFY_BUDGET,
            &mut prefix[..=m],
            Some(bound::Counts {
                walk: &mut walk[..m],
                best: &mut best[..m],
            }),
        );
        let Ok(b) = found
            .map_err(|_| ())
            .and_then(|b| if b.exact { Ok(b) } else { Err(()) })
        else {
            self.stopped = true;
            return;
        };
        if b.value < self.best {
            self.best = b.value;
            self.found[g][..n].copy_from_slice(&self.walk[g][..n]);
            self.found[h][..n].fill(0);
            for (&q, &c) in at[..m].iter().zip(&best[..m]) {
                self.found[h][q] = c;
            }
            for q in 0..n {
                self.found[other][q] = s as u32 - self.found[g][q] - self.found[h][q];
            }
            if b.value - self.floor <= TOLERANCE {
                self.stopped = true;
            }
        }
    }

    /// [`Search::rows`] at position `r`, `m` of `g`'s placements left, `a` its exposure.
    fn row(&mut self, g: usize, r: usize, m: usize, a: f64, share: f64, whole: f64) {
        let (s, n, p) = (self.sessions, self.exposure.len(), self.prefix);
        if self.stopped {
            return;
        }
        self.evaluations += 1;
        if self.evaluations > self.budget {
            self.stopped = true;
            return;
        }
        if r == n {
            if Self::pooled_dtr(a, share, whole) * (1.0 - 1e-12) >= self.best {
                return;
            }
            if self.slots == 3 && self.walk[g][..n].iter().all(|&c| c == 0 || c as usize == s) {
                self.pair(g, a);
                return;
            }
            let (left, placed) = (self.left[g], self.placed[g]);
            (self.left[g], self.placed[g], self.fixed) = (0, a, Some(g));
            for q in 0..n {
                let open = s - self.walk[g][q] as usize;
                self.open[q + 1] = self.open[q] + open;
                self.reach[q + 1] = self.reach[q] + open as f64 * self.exposure[q];
            }
            let room = self.room(0);
            self.visit(0, 0, room);
            (self.left[g], self.placed[g], self.fixed) = (left, placed, None);
            return;
        }
        let (first, last) = (m.saturating_sub(s * (n - r - 1)), m.min(s));
        // `g`'s total, and the least two-group DTR of any completion, after `c` here: the
        // total ranges over [x + the last `m - c` slots, x + the next ones].
        let child = |c: usize| {
            let (x, rest) = (a + c as f64 * self.exposure[r], m - c);
            let (full, part) = (rest / s, rest % s);
            let high = x
                + s as f64 * (p[r + 1 + full] - p[r + 1])
                + if part > 0 {
                    part as f64 * self.exposure[r + 1 + full]
                } else {
                    0.0
                };
            let low = x
                + s as f64 * (p[n] - p[n - full])
                + if part > 0 {
                    part as f64 * self.exposure[n - full - 1]
                } else {
                    0.0
                };
            let fair = share * whole;
            let least = if fair < low {
                Self::pooled_dtr(low, share, whole)
            } else if fair > high {
                Self::pooled_dtr(high, share, whole)
            } else {
                1.0
            };
            (x, least)
        };
        // Both ends of the range grow with `c`, so the bound falls to a valley and rises:
        // the choices from the valley outwards, the lower side first.
        let mut start = first;
        let mut lowest = f64::INFINITY;
        for c in first..=last {
            let (_, least) = child(c);
            if least < lowest {
                (start, lowest) = (c, least);
            }
        }
        let (mut up, mut down) = (Some(start), start.checked_sub(1).filter(|&c| c >= first));
        loop {
            let c = match (up, down) {
                (Some(u), Some(d)) if child(u).1 <= child(d).1 => {
                    up = (u < last).then_some(u + 1);
                    u
                }
                (_, Some(d)) => {
                    down = d.checked_sub(1).filter(|&c| c >= first);
                    d
                }
                (Some(u), None) => {
                    up = (u < last).then_some(u + 1);
                    u
                }
                (None, None) => break,
            };
            let (x, least) = child(c);
            // A margin for the rounding of the two ratios against the walk's.
            if least * (1.0 - 1e-12) >= self.best {
                continue;
            }
            self.walk[g][r] = c as u32;
            self.row(g, r + 1, m - c, x, share, whole);
            if self.stopped {
                return;
            }
        }
    }
}
