//! The last few positions of the bound's walk (`bound.rs`) as a sorted table: meet in the
//! middle, on the stack.
//!
//! # Why
//!
//! Where the two-group optimum sits a little above the hull bound (DTR's fair point near
//! the hull's end, where the achievable totals are sparse), proving it means showing that
//! no count vector has its total in a narrow window around the centre, and the walk visits
//! every branch whose interval still meets the window: tens or hundreds of thousands of
//! nodes, most of them in the last few positions. A completion of those positions depends
//! only on how many placements `m` are left for them, so their achievable sums, listed once
//! per `m` and sorted, answer a whole subtree with one binary search: the sums nearest
//! the rest of the way to the centre, below and above it, are the only candidates, the
//! metric being unimodal in the total.
//!
//! The table holds every count vector of the last `t` positions, `(S + 1)^t` sums; `t` is
//! the largest that fits [`ENTRIES`] (8.5 KB of stack, only in the walk that uses it, the
//! one that runs after the short walk and the lattice have failed).

/// The most sums the table holds: `(32 + 1)^2`, so that two positions fit up to 32
/// sessions, four at 4 sessions and ten at one.
pub(super) const ENTRIES: usize = 1089;

/// The most placements the table's positions take: `t * S` for the largest `t` and `S`
/// that fit (`S <= 32` with `t = 2`).
const MAX_PLACED: usize = 64;

/// The most positions a table covers (one session: `2^10 <= ENTRIES`).
const MAX_POSITIONS: usize = 10;

/// The sums of every count vector of positions `from..from + t`, grouped by the number
/// of placements they take and sorted within each group.
pub(super) struct Tail {
    /// The table's first position.
    pub(super) from: usize,
    sessions: usize,
    /// `sums[start[m]..start[m + 1]]`: the sums of the vectors taking `m` placements.
    sums: [f64; ENTRIES],
    start: [u16; MAX_PLACED + 2],
}

impl Tail {
    /// The table of the last positions of `exposure` from `earliest` on at `sessions`
    /// sessions, or none where fewer than two positions fit (more than 32 sessions, or
    /// fewer than two positions after `earliest`: the walk's last position is direct).
    pub(super) fn build(exposure: &[f64], earliest: usize, sessions: usize) -> Option<Tail> {
        let n = exposure.len();
        let mut t = 0usize;
        let mut size = 1usize;
        while t < MAX_POSITIONS && earliest + t < n {
            match size.checked_mul(sessions + 1) {
                Some(next) if next <= ENTRIES => (t, size) = (t + 1, next),
                _ => break,
            }
        }
        if t < 2 || t * sessions > MAX_PLACED {
            return None;
        }
        let from = n - t;
        let mut tail = Tail {
            from,
            sessions,
            sums: [0.0; ENTRIES],
            start: [0; MAX_PLACED + 2],
        };
        let exposure = &exposure[from..];
        // Counting sort by placements: sizes first, then each vector into its group.
        let mut cursor = [0u16; MAX_PLACED + 2];
        each_vector(t, sessions, |digits| {
            cursor[placed(digits) + 1] += 1;
        });
        for m in 0..=MAX_PLACED {
            cursor[m + 1] += cursor[m];
        }
        tail.start = cursor;
        each_vector(t, sessions, |digits| {
            let m = placed(digits);
            tail.sums[usize::from(cursor[m])] = sum(digits, exposure);
            cursor[m] += 1;
        });
        for m in 0..=t * sessions {
            tail.group_mut(m).sort_unstable_by(f64::total_cmp);
        }
        Some(tail)
    }

    fn group_mut(&mut self, m: usize) -> &mut [f64] {
        &mut self.sums[usize::from(self.start[m])..usize::from(self.start[m + 1])]
    }

    /// The sums of `m` placements nearest `target`: the largest below it and the smallest
    /// at or above it (none where there is none on that side).
    pub(super) fn nearest(&self, m: usize, target: f64) -> [Option<f64>; 2] {
        let group = &self.sums[usize::from(self.start[m])..usize::from(self.start[m + 1])];
        let i = group.partition_point(|&y| y < target);
        [i.checked_sub(1).map(|i| group[i]), group.get(i).copied()]
    }

    /// Writes into `counts` (the table's positions) a count vector of `m` placements whose
    /// sum is `y`, bit for bit as the table computed it; false when there is none (never
    /// for a sum [`Tail::nearest`] gave).
    pub(super) fn counts_of(&self, exposure: &[f64], m: usize, y: f64, counts: &mut [u32]) -> bool {
        let exposure = &exposure[self.from..];
        let mut found = false;
        each_vector(exposure.len(), self.sessions, |digits| {
            if !found && placed(digits) == m && sum(digits, exposure).to_bits() == y.to_bits() {
                for (slot, &d) in counts.iter_mut().zip(digits) {
                    *slot = u32::from(d);
                }
                found = true;
            }
        });
        found
    }
}

/// The placements a vector takes.
fn placed(digits: &[u8]) -> usize {
    digits.iter().map(|&d| usize::from(d)).sum()
}

/// A vector's sum, always in the same order (so that [`Tail::counts_of`] finds it again).
fn sum(digits: &[u8], exposure: &[f64]) -> f64 {
    digits
        .iter()
        .zip(exposure)
        .map(|(&d, &e)| f64::from(d) * e)
        .sum()
}

/// Calls `f` with every vector of `t` counts in `0..=sessions` (an odometer).
fn each_vector(t: usize, sessions: usize, mut f: impl FnMut(&[u8])) {
    let mut digits = [0u8; MAX_POSITIONS];
    let digits = &mut digits[..t];
    loop {
        f(digits);
        let mut i = 0;
        loop {
            if i == t {
                return;
            }
            if usize::from(digits[i]) < sessions {
                digits[i] += 1;
                break;
            }
            digits[i] = 0;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nearest sums on either side agree with a scan of every count vector, and each
    /// is found again as a count vector of its placements and sum.
    #[test]
    fn nearest_sums_agree_with_a_scan_and_have_their_vectors() {
        let exposure: [f64; 9] = core::array::from_fn(|r| 1.0 / libm::log2(r as f64 + 2.0));
        for sessions in [1, 2, 4, 32] {
            let tail = Tail::build(&exposure, 3, sessions).unwrap();
            let t = exposure.len() - tail.from;
            assert!(t >= 2 && (sessions + 1).pow(t as u32) <= ENTRIES);
            for m in 0..=t * sessions {
                for target in [0.0, 0.3, 0.61, 1.0, 1.7, 2.5, 40.0] {
                    let (mut below, mut above) = (None::<f64>, None::<f64>);
                    each_vector(t, sessions, |d| {
                        if placed(d) != m {
                            return;
                        }
                        let y = sum(d, &exposure[tail.from..]);
                        if y < target {
                            below = Some(below.map_or(y, |b| b.max(y)));
                        } else {
                            above = Some(above.map_or(y, |a| a.min(y)));
                        }
                    });
                    let got = tail.nearest(m, target);
                    assert_eq!(got, [below, above], "S {sessions} m {m} target {target}");
                    for y in got.into_iter().flatten() {
                        let mut counts = [0u32; MAX_POSITIONS];
                        assert!(tail.counts_of(&exposure, m, y, &mut counts[..t]));
                        let digits: [u8; MAX_POSITIONS] = core::array::from_fn(|i| counts[i] as u8);
                        assert_eq!(placed(&digits[..t]), m);
                        assert_eq!(
                            sum(&digits[..t], &exposure[tail.from..]).to_bits(),
                            y.to_bits()
                        );
                    }
                }
            }
        }
        // No table where fewer than two positions fit.
        assert!(Tail::build(&exposure, 8, 4).is_none());
        assert!(Tail::build(&exposure, 0, 33).is_none());
    }
}
