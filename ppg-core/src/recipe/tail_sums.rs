//! The last positions of the count-vector walk (`count_tree.rs`) as a sorted table of
//! their sums: meet in the middle, on the stack (8.7 KB).
//!
//! Below the NDCG cut-off only group 0's total exposure matters, and a completion of the
//! last `t` positions depends only on the placements `m` left for them: their sums, listed
//! once per `m` and sorted, answer a whole subtree with one binary search (is any sum in
//! what the window leaves?). The same table as `objective/tail.rs` builds for the
//! fairness bound, which asks it another question (the sums nearest a centre) and is
//! private to `objective`; one of them could serve both.

/// The most sums of [`Sums`]: `(32 + 1)^2`, two positions at 32 sessions, four at 4.
const ENTRIES: usize = 1089;
/// The most placements the table's positions take.
const MAX_PLACED: usize = 64;
/// The most positions the table covers.
const MAX_TAIL: usize = 10;

/// The sums of every count vector of the last positions (below the cut-off, where only
/// the total matters), grouped by placements and sorted: one binary search answers a
/// whole subtree of the walk (meet in the middle, as `objective/tail.rs` does for the
/// fairness bound).
pub(super) struct Sums {
    pub(super) from: usize,
    sessions: usize,
    sums: [f64; ENTRIES],
    start: [u16; MAX_PLACED + 2],
}

impl Sums {
    pub(super) fn build(exposure: &[f64], earliest: usize, sessions: usize) -> Option<Sums> {
        let n = exposure.len();
        let (mut t, mut size) = (0usize, 1usize);
        while t < MAX_TAIL && earliest + t < n {
            match size.checked_mul(sessions + 1) {
                Some(next) if next <= ENTRIES => (t, size) = (t + 1, next),
                _ => break,
            }
        }
        if t < 2 || t * sessions > MAX_PLACED {
            return None;
        }
        let from = n - t;
        let mut table = Sums {
            from,
            sessions,
            sums: [0.0; ENTRIES],
            start: [0; MAX_PLACED + 2],
        };
        let exposure = &exposure[from..];
        let mut cursor = [0u16; MAX_PLACED + 2];
        each_vector(t, sessions, |digits| cursor[placed(digits) + 1] += 1);
        for m in 0..=MAX_PLACED {
            cursor[m + 1] += cursor[m];
        }
        table.start = cursor;
        each_vector(t, sessions, |digits| {
            let m = placed(digits);
            table.sums[usize::from(cursor[m])] = sum(digits, exposure);
            cursor[m] += 1;
        });
        for m in 0..=t * sessions {
            let (a, b) = (usize::from(table.start[m]), usize::from(table.start[m + 1]));
            table.sums[a..b].sort_unstable_by(f64::total_cmp);
        }
        Some(table)
    }

    /// A sum of `m` placements in `[lo, hi]`, if any.
    pub(super) fn within(&self, m: usize, lo: f64, hi: f64) -> Option<f64> {
        if m + 1 >= self.start.len() {
            return None;
        }
        let group = &self.sums[usize::from(self.start[m])..usize::from(self.start[m + 1])];
        let i = group.partition_point(|&y| y < lo);
        group.get(i).copied().filter(|&y| y <= hi)
    }

    /// Writes the counts of a vector of `m` placements summing to `y` bit for bit (one
    /// the table holds).
    pub(super) fn counts_of(&self, exposure: &[f64], m: usize, y: f64, counts: &mut [u8]) {
        let exposure = &exposure[self.from..];
        let mut found = false;
        each_vector(exposure.len(), self.sessions, |digits| {
            if !found && placed(digits) == m && sum(digits, exposure).to_bits() == y.to_bits() {
                counts.copy_from_slice(digits);
                found = true;
            }
        });
    }
}

/// The placements a vector of counts takes.
fn placed(digits: &[u8]) -> usize {
    digits.iter().map(|&d| usize::from(d)).sum()
}

/// A vector's sum, always in the same order (so that [`Sums::counts_of`] finds it again).
fn sum(digits: &[u8], exposure: &[f64]) -> f64 {
    digits
        .iter()
        .zip(exposure)
        .map(|(&d, &e)| f64::from(d) * e)
        .sum()
}

/// Calls `f` with every vector of `t` counts in `0..=sessions` (an odometer).
fn each_vector(t: usize, sessions: usize, mut f: impl FnMut(&[u8])) {
    let mut digits = [0u8; MAX_TAIL];
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
