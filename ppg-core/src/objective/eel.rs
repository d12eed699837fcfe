//! Expected exposure loss (EEL): distance of each group's exposure from its merit.
//!
//! It stays whole (over 400 lines): the metric, its grading (`Linspan`) and the precision
//! it adds up in are one definition that the protocol fixes, and 190 lines are its tests.

use super::bound::{self, LowerBound, Shape, TOLERANCE};
use super::deal;
use super::exposure::{check_finite, check_items, check_len, checked_prefix, shape_ok};
use super::peel::{self, Matrix, LIST, ROWS};
use super::{Objective, Real, MAX_GROUPS, OPTIMUM_WORK};
use crate::Error;

/// The most grade levels [`Eel`] accepts; the paper uses 5 to optimise and 2 to evaluate.
pub const MAX_LEVELS: u32 = 64;

// Group ids index a fixed array through a mask (see `Eel::value`), which needs a power of two.
const _: () = assert!(MAX_GROUPS.is_power_of_two());

/// EEL of a grouped list, as in the paper's protocol; lower is better, 0 is optimal.
///
/// Utilities are cut into `levels` grades by `linspan`: `m = max(min(y) - 1e-10, 0)`,
/// `M = max(y) + 1e-10`, `step = (M - m) / levels`, `grade = floor((y - m) / step)`
/// (clamped into `0..levels`, which only matters for negative utilities). The target
/// exposure of an item is the mean exposure of the positions its grade occupies when the
/// list is sorted by grade, descending; a group's target is the sum over its items. The
/// expected exposure of a group is the exposure of the positions its items hold, summed
/// over sessions and divided by the number of sessions. EEL is the sum over groups of
/// `(expected - target)^2`.
///
/// `F` is the precision the exposures are added up in (the targets are computed in `f64`
/// and rounded to it once): `f64` by default, `f32` on a single-precision FPU, where a
/// training loop then calls no software double-precision routine (the firmware image does).
/// With `f32` a 20-item EEL is within about `1e-6` of the `f64` one.
///
/// ```
/// use ppg_core::objective::{Eel, ExposureTable, RankStart};
/// let table = ExposureTable::<2>::new(RankStart::Zero);
/// let eel = Eel::new(&[1.0, 0.0], &[0, 1], 2, table.as_slice())?;
/// // The merit order is already the ranking: nothing to fix.
/// assert_eq!(eel.value(&[0, 1], 1), 0.0);
/// assert!(eel.value(&[1, 0], 1) > 0.0);
/// # Ok::<(), ppg_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Eel<'a, F: Real = f64> {
    /// The utility and its grading, for the optimum's rankings ([`Objective::optimum`]).
    utility: &'a [f64],
    grades: Linspan,
    group: &'a [u8],
    exposure: &'a [F],
    target: [F; MAX_GROUPS],
    /// Largest group id + 1: the groups the sum runs over.
    groups: usize,
}

impl Eel<'_> {
    /// Whether EEL is meaningful for this query in the protocol's sense: at least two
    /// groups are present. `false` also for an id of [`MAX_GROUPS`] or more.
    pub fn valid(group: &[u8]) -> bool {
        let mut seen = 0u32;
        for &g in group {
            if usize::from(g) >= MAX_GROUPS {
                return false;
            }
            seen |= 1 << g;
        }
        seen.count_ones() >= 2
    }
}

impl<'a, F: Real> Eel<'a, F> {
    /// EEL over the list whose item `i` has utility `utility[i]` and group `group[i]`,
    /// with `levels` grades and the exposure `exposure[k]` at position `k` of each session
    /// (only the first `n = utility.len()` entries are read).
    ///
    /// # Errors
    /// - [`Error::Empty`] for an empty list, [`Error::Capacity`] for more than
    ///   [`MAX_ITEMS`](crate::MAX_ITEMS) items or a group id of [`MAX_GROUPS`] or more
    ///   (`requested` is then the id + 1).
    /// - [`Error::LengthMismatch`] when `group` is not `n` long or `exposure` is shorter
    ///   than `n`.
    /// - [`Error::NotFinite`] for a NaN or infinite utility (index into `utility`) or
    ///   exposure (index into `exposure`).
    /// - [`Error::InvalidConfig`] for `levels` outside `1..=`[`MAX_LEVELS`] or a negative
    ///   exposure.
    pub fn new(
        utility: &'a [f64],
        group: &'a [u8],
        levels: u32,
        exposure: &'a [F],
    ) -> Result<Self, Error> {
        let n = utility.len();
        check_items(n)?;
        check_len(n, group.len())?;
        check_finite(utility)?;
        if !(1..=MAX_LEVELS).contains(&levels) {
            return Err(Error::InvalidConfig("EEL levels must be in 1..=64"));
        }
        let mut groups = 0;
        for &g in group {
            let g = usize::from(g);
            if g >= MAX_GROUPS {
                return Err(Error::Capacity {
                    requested: g + 1,
                    capacity: MAX_GROUPS,
                });
            }
            groups = groups.max(g + 1);
        }
        let exposure = checked_prefix(exposure, n)?;

        let grades = Linspan::new(utility, levels);
        let mut count = [0usize; MAX_LEVELS as usize];
        for &y in utility {
            count[grades.grade(y)] += 1;
        }
        // Sorted by grade, descending, grade g occupies one contiguous run of positions;
        // ties within a grade share the run's mean exposure.
        let mut mean = [0.0f64; MAX_LEVELS as usize];
        let mut start = 0;
        // Grades above `levels` have no items: only the first `levels` slots are walked.
        let used = levels as usize;
        for (slot, &c) in mean[..used].iter_mut().zip(&count[..used]).rev() {
            if c > 0 {
                let run = exposure.get(start..start + c).unwrap_or(&[]);
                *slot = run.iter().map(|e| e.to_f64()).sum::<f64>() / c as f64;
                start += c;
            }
        }
        let mut target = [0.0f64; MAX_GROUPS];
        for (&y, &g) in utility.iter().zip(group) {
            target[usize::from(g) & (MAX_GROUPS - 1)] += mean[grades.grade(y)];
        }
        Ok(Eel {
            utility,
            grades,
            group,
            exposure,
            target: target.map(F::from_f64),
            groups,
        })
    }

    /// Items per session (`n`).
    pub fn items(&self) -> usize {
        self.group.len()
    }

    /// The target exposure of groups `0..=max id`, in one session.
    pub fn targets(&self) -> &[F] {
        self.target.get(..self.groups).unwrap_or(&[])
    }

    /// The EEL of `ranking`.
    ///
    /// Returns NaN when `ranking` is not `sessions >= 1` blocks of `n` ids or names an
    /// id `>= n`; an optimiser stops on it. Blocks are not checked to be permutations: an
    /// id named twice is counted twice.
    pub fn value(&self, ranking: &[u16], sessions: usize) -> f64 {
        self.sum(ranking, sessions).map_or(f64::NAN, F::to_f64)
    }

    /// The EEL in `F`, `None` where [`Eel::value`] is NaN.
    fn sum(&self, ranking: &[u16], sessions: usize) -> Option<F> {
        let n = self.group.len();
        if !shape_ok(ranking, sessions, n) {
            return None;
        }
        // Four partial sums per group, by rank modulo 4: a single sum is one chain of
        // dependent adds through memory as long as the ranking, and the trainer calls this
        // for every sample.
        let mut lanes = [[F::ZERO; MAX_GROUPS]; 4];
        // `new` checked every id below MAX_GROUPS: the mask changes nothing and leaves the
        // hot loop without a bounds check.
        let add = |lane: &mut [F; MAX_GROUPS], item: u16, e: F| {
            let &g = self.group.get(usize::from(item))?;
            lane[usize::from(g) & (MAX_GROUPS - 1)] += e;
            Some(())
        };
        for block in ranking.chunks_exact(n) {
            let mut items = block.chunks_exact(4);
            let mut exposures = self.exposure.chunks_exact(4);
            for (four, e) in (&mut items).zip(&mut exposures) {
                for (lane, (&item, &e)) in lanes.iter_mut().zip(four.iter().zip(e)) {
                    add(lane, item, e)?;
                }
            }
            let rest = items.remainder().iter().zip(exposures.remainder());
            for (lane, (&item, &e)) in lanes.iter_mut().zip(rest) {
                add(lane, item, e)?;
            }
        }
        let mut exposure = [F::ZERO; MAX_GROUPS];
        for (g, e) in exposure.iter_mut().enumerate() {
            *e = (lanes[0][g] + lanes[1][g]) + (lanes[2][g] + lanes[3][g]);
        }
        let sessions = F::from_count(sessions);
        let mut sum = F::ZERO;
        for (&e, &t) in exposure.iter().zip(&self.target).take(self.groups) {
            let d = e / sessions - t;
            sum += d * d;
        }
        Some(sum)
    }
}

impl<F: Real> Objective for Eel<'_, F> {
    /// The EEL itself; NaN for a malformed ranking.
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        self.value(ranking, sessions)
    }

    /// Single precision when `F` is `f32`.
    fn single(&self) -> bool {
        F::SINGLE
    }

    /// The sum in `F`, rounded to `f32` (as is, when `F` is `f32`).
    fn cost_single(&mut self, ranking: &[u16], sessions: usize) -> f32 {
        self.sum(ranking, sessions).map_or(f32::NAN, F::to_f32)
    }

    /// The exact optimum of two groups (ids 0 and 1, both present; [`bound`]). `None` for
    /// other groupings, exposures that are not positive and non-increasing, `work` shorter
    /// than `n + 1`, and in single precision: the bound adds up in `f64`, which the
    /// single-precision targets (a firmware FPU) would only emulate.
    fn lower_bound(&self, sessions: usize, work: &mut [f64]) -> Option<LowerBound> {
        if self.groups != 2 {
            return self.over_groups(sessions, None).map(|(b, _)| b);
        }
        let exposure = F::as_f64s(self.exposure)?;
        let group0 = self.group.iter().filter(|&&g| g == 0).count();
        let shape = Shape::Eel {
            target: [self.target[0].to_f64(), self.target[1].to_f64()],
        };
        let b = bound::solve(
            shape,
            exposure,
            group0,
            sessions,
            bound::CERTIFY_BUDGET,
            work,
            None,
        )
        .ok()?;
        Some(LowerBound {
            value: b.lower,
            exact: b.exact,
        })
    }

    /// The bound, and where it is exact, the rankings that reach it while every position
    /// keeps the grade it has in the merit order (group 0 takes its share of each grade's
    /// run of positions: [`bound::solve_within`]), when there are some. Why that
    /// restriction: the optimum's first rankings over all positions give relevant items'
    /// places to others (TREC 2020, true labels, one session: NDCG@10 0.9780 against PPG's
    /// 0.9856), while these keep the merit order's NDCG and, on the same data, reach the
    /// optimum for most queries.
    fn optimum(
        &self,
        sessions: usize,
        work: &mut [f64],
        out: &mut [u16],
    ) -> Option<(LowerBound, bool)> {
        if self.groups != 2 {
            return self.over_groups(sessions, Some(out));
        }
        let bound = self.lower_bound(sessions, work)?;
        let n = self.group.len();
        let exposure = F::as_f64s(self.exposure)?;
        if !bound.exact || work.len() < OPTIMUM_WORK * n + 4 {
            return Some((bound, false));
        }
        // From the side of item 0's group, so that the rankings do not depend on which
        // group is called 0 (each door names groups in its own order).
        let first = self.group.first().copied().unwrap_or(0);
        let mut count = [[0usize; 2]; MAX_LEVELS as usize];
        for (&y, &g) in self.utility.iter().zip(self.group) {
            count[self.grades.grade(y)][usize::from(g != first)] += 1;
        }
        let mut blocks = [bound::Block { end: 0, group0: 0 }; bound::MAX_BLOCKS];
        let (mut used, mut end) = (0, 0);
        for &[zero, one] in count.iter().rev().filter(|c| c[0] + c[1] > 0) {
            end += zero + one;
            blocks[used] = bound::Block { end, group0: zero };
            used += 1;
        }
        // Prefix sums (n + 1), the two count vectors (n values' worth of u32 pairs) and
        // the order (n u16).
        let (prefix, rest) = work.split_at_mut(n + 1);
        let (counts, rest) = rest.split_at_mut(n);
        let order = &mut bytemuck::must_cast_slice_mut::<f64, u16>(rest)[..n];
        let (walk, best) = bytemuck::must_cast_slice_mut::<f64, u32>(counts).split_at_mut(n);
        let [t0, t1] = [self.target[0].to_f64(), self.target[1].to_f64()];
        let shape = Shape::Eel {
            target: if first == 0 { [t0, t1] } else { [t1, t0] },
        };
        let within = bound::solve_within(
            shape,
            exposure,
            &blocks[..used],
            sessions,
            bound::CERTIFY_BUDGET,
            prefix,
            Some(bound::Counts { walk, best }),
        );
        let side = |g: u8| g == first;
        let found = match within {
            Ok(b) if b.value <= bound.value + bound::TOLERANCE => {
                bound::witness_as(best, self.group, side, self.utility, sessions, order, out)
                    .is_ok()
            }
            // No ranking that keeps every position's grade is optimal: the optimum's own
            // count vector, each group's items by utility in its positions (at one session
            // on production-shaped scores, 45 % of the queries; without these rankings they
            // trained to their patience uncertified).
            _ => {
                let group0 = self.group.iter().filter(|&&g| side(g)).count();
                let whole = bound::solve(
                    shape,
                    exposure,
                    group0,
                    sessions,
                    bound::CERTIFY_BUDGET,
                    prefix,
                    Some(bound::Counts { walk, best }),
                );
                matches!(whole, Ok(b) if b.exact && b.value <= bound.value + bound::TOLERANCE)
                    && bound::witness_as(best, self.group, side, self.utility, sessions, order, out)
                        .is_ok()
            }
        };
        Some((bound, found))
    }
}

impl<F: Real> Eel<'_, F> {
    /// The groups with an item in the list.
    fn present(&self) -> u32 {
        let mut seen = 0u32;
        for &g in self.group {
            seen |= 1 << (g & (MAX_GROUPS as u8 - 1));
        }
        seen.count_ones()
    }

    /// The bound over more than two groups (or ids other than 0 and 1), and with `out`,
    /// rankings that reach it.
    ///
    /// # Why 0 is the bound
    ///
    /// EEL is `sum_G (x_G / S - t_G)^2`, a convex quadratic in the group totals, and its
    /// least value over the relaxation (the totals of fractional count matrices, the
    /// polymatroid of [`super::bound_groups`]) is 0: the targets themselves are such
    /// totals. Give every position of grade `g`'s run in the merit order `S n_{G,g} / L_g`
    /// placements of group `G` (`n_{G,g}` of its items have the grade, the run is `L_g`
    /// long): each column sums to `S`, row `G` to `S n_G`, and the total of group `G` is
    /// `S sum_g n_{G,g} mean_g = S t_G`. So the bound is 0, and it is exact when some count
    /// matrix is within the tolerance of it: [`peel`] looks for one that keeps every
    /// position's grade (each group keeps its share of each grade's run, as the
    /// two-group optimum's rankings do, for NDCG), then for any.
    ///
    /// `None` in single precision (the bound adds up in `f64`); exact false for more than
    /// [`ROWS`] groups present or more than [`LIST`] items.
    fn over_groups(&self, sessions: usize, out: Option<&mut [u16]>) -> Option<(LowerBound, bool)> {
        // Fewer than three groups present: as before this bound (none unless ids 0 and 1).
        if self.present() < 3 {
            return None;
        }
        let exposure = F::as_f64s(self.exposure)?;
        let n = self.group.len();
        let none = Some((
            LowerBound {
                value: 0.0,
                exact: false,
            },
            false,
        ));
        // Rows: the groups present, in id order.
        let mut row_of = [u8::MAX; MAX_GROUPS];
        let mut rows = 0;
        for &g in self.group {
            row_of[usize::from(g)] = 0;
        }
        for slot in row_of.iter_mut().filter(|r| **r == 0) {
            *slot = rows as u8;
            rows += 1;
        }
        let placements = n.checked_mul(sessions).and_then(|m| u32::try_from(m).ok());
        if rows > ROWS || n > LIST || sessions == 0 || placements.is_none() {
            return none;
        }
        let mut row = [0u8; LIST];
        for (r, &g) in row.iter_mut().zip(self.group) {
            *r = row_of[usize::from(g)];
        }
        let mut target = [f64::NAN; ROWS];
        for (g, &r) in row_of.iter().enumerate() {
            if r != u8::MAX {
                target[usize::from(r)] = sessions as f64 * self.target[g].to_f64();
            }
        }
        // The grade runs of the merit order, and each row's items in each.
        let mut count = [[0u32; ROWS]; MAX_LEVELS as usize];
        for (&y, &r) in self.utility.iter().zip(&row[..n]) {
            count[self.grades.grade(y)][usize::from(r)] += 1;
        }
        let mut ends = [0usize; bound::MAX_BLOCKS];
        let mut sums = [[0u32; bound::MAX_BLOCKS]; ROWS];
        let (mut used, mut end) = (0, 0);
        for c in count.iter().rev().filter(|c| c.iter().any(|&x| x > 0)) {
            end += c.iter().sum::<u32>() as usize;
            ends[used] = end;
            for r in 0..rows {
                sums[r][used] = c[r] * sessions as u32;
            }
            used += 1;
        }
        let mut whole = [[0u32; bound::MAX_BLOCKS]; ROWS];
        for r in 0..rows {
            whole[r][0] = sums[r][..used].iter().sum();
        }
        let s = sessions as f64;
        let eel = |totals: &[f64; ROWS]| -> f64 {
            (0..rows)
                .map(|r| {
                    let d = (totals[r] - target[r]) / s;
                    d * d
                })
                .sum()
        };
        let mut matrix: Matrix = [[0; LIST]; ROWS];
        let mut found = false;
        for (ends, sums) in [(&ends[..used], &sums), (&[n][..], &whole)] {
            let problem = peel::Peel {
                exposure: &exposure[..n],
                sessions,
                ends,
                rows,
                sums,
                target,
                goal: peel::Goal::Eel { sessions: s },
                fixed: None,
            };
            if peel::peel(&problem, &mut matrix, |t| eel(t) <= 0.9 * TOLERANCE) {
                found = true;
                break;
            }
        }
        let bound = LowerBound {
            value: 0.0,
            exact: found,
        };
        let dealt = match out {
            Some(out) if found => deal::deal(&matrix, rows, &row[..n], self.utility, sessions, out),
            _ => false,
        };
        Some((bound, dealt))
    }
}

/// The reference code's `linspan` grading.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Linspan {
    low: f64,
    step: f64,
    top: usize,
}

impl Linspan {
    /// `utility` is non-empty and finite; `levels` is in `1..=MAX_LEVELS`.
    fn new(utility: &[f64], levels: u32) -> Self {
        let (min, max) = utility
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &y| {
                (lo.min(y), hi.max(y))
            });
        let low = (min - 1e-10).max(0.0);
        let high = max + 1e-10;
        Linspan {
            low,
            step: (high - low) / f64::from(levels),
            top: levels as usize - 1,
        }
    }

    /// A grade in `0..=top`. Negative utilities fall below `low` and a list of equal large
    /// values gives `0 / 0`; both land in grade 0 rather than outside the table.
    fn grade(&self, y: f64) -> usize {
        let g = libm::floor((y - self.low) / self.step);
        if g >= 0.0 {
            // Saturating float-to-int conversion: huge quotients become usize::MAX first.
            (g as usize).min(self.top)
        } else {
            0
        }
    }
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
    fn two_items() {
        let t = ExposureTable::<2>::new(RankStart::Zero);
        let mut eel = Eel::new(&[1.0, 0.0], &[0, 1], 2, t.as_slice()).unwrap();
        // Grades 1 and 0: targets (1, C).
        assert!(close(eel.targets()[0], 1.0) && close(eel.targets()[1], C));
        assert_eq!(eel.targets().len(), 2);
        assert!(close(eel.value(&[0, 1], 1), 0.0));
        // Expected (C, 1): 2 (1 - C)^2.
        assert!(close(eel.cost(&[1, 0], 1), 2.0 * (1.0 - C) * (1.0 - C)));
        // Expected ((1 + C)/2, (1 + C)/2): (1 - C)^2 / 2.
        assert!(close(
            eel.value(&[0, 1, 1, 0], 2),
            (1.0 - C) * (1.0 - C) / 2.0
        ));
    }

    #[test]
    fn tied_grade_shares_mean_exposure() {
        let t = ExposureTable::<3>::new(RankStart::Zero);
        let eel = Eel::new(&[1.0, 1.0, 0.0], &[0, 1, 1], 2, t.as_slice()).unwrap();
        // Grade 1 holds positions 0 and 1: each item's target (1 + C)/2; grade 0 gets 1/2.
        let half = (1.0 + C) / 2.0;
        assert!(close(eel.targets()[0], half));
        assert!(close(eel.targets()[1], half + 0.5));
        // [0,1,2]: expected (1, C + 1/2); both off by (1 - C)/2.
        assert!(close(eel.value(&[0, 1, 2], 1), (1.0 - C) * (1.0 - C) / 2.0));
        // Alternating the tie over two sessions meets the targets exactly.
        assert!(close(eel.value(&[0, 1, 2, 1, 0, 2], 2), 0.0));
    }

    #[test]
    fn five_levels() {
        let t = ExposureTable::<4>::new(RankStart::One);
        let e = t.as_slice();
        // step = (4 + 1e-10)/5: grades 0, 0, 1, 4.
        let eel = Eel::new(&[0.0, 0.5, 1.0, 4.0], &[0, 1, 0, 1], 5, e).unwrap();
        let tail = (e[2] + e[3]) / 2.0;
        assert!(close(eel.targets()[0], tail + e[1]));
        assert!(close(eel.targets()[1], tail + e[0]));
        // With 1 level everything ties and both groups get half of the total.
        let flat = Eel::new(&[0.0, 0.5, 1.0, 4.0], &[0, 1, 0, 1], 1, e).unwrap();
        let half = e.iter().sum::<f64>() / 2.0;
        assert!(close(flat.targets()[0], half) && close(flat.targets()[1], half));
    }

    #[test]
    fn equal_or_negative_utilities_stay_in_range() {
        let t = ExposureTable::<3>::new(RankStart::Zero);
        let all = 1.0 + C + 0.5;
        for u in [[3.0, 3.0, 3.0], [1e20, 1e20, 1e20], [-1.0, -5.0, 0.0]] {
            let eel = Eel::new(&u, &[0, 1, 1], 2, t.as_slice()).unwrap();
            // One grade: each item's target is the mean of all positions.
            assert!(close(eel.targets()[0], all / 3.0), "{u:?}");
            assert!(close(eel.targets()[1], 2.0 * all / 3.0), "{u:?}");
        }
    }

    #[test]
    fn group_naming_does_not_matter() {
        let t = ExposureTable::<4>::new(RankStart::One);
        let u = [0.0, 1.0, 1.0, 0.0];
        let a = Eel::new(&u, &[0, 1, 1, 0], 2, t.as_slice()).unwrap();
        let b = Eel::new(&u, &[1, 0, 0, 1], 2, t.as_slice()).unwrap();
        let r = [3u16, 1, 0, 2, 1, 2, 3, 0];
        assert!(a.value(&r, 2) > 0.0);
        assert!(close(a.value(&r, 2), b.value(&r, 2)));
    }

    #[test]
    fn many_groups() {
        let t = ExposureTable::<3>::new(RankStart::Zero);
        // Ids 0 and 15 with 1..14 absent: absent groups add nothing.
        let eel = Eel::new(&[1.0, 0.0, 0.0], &[15, 0, 0], 2, t.as_slice()).unwrap();
        assert_eq!(eel.targets().len(), 16);
        assert!(close(eel.targets()[15], 1.0));
        assert!(close(eel.value(&[0, 1, 2], 1), 0.0));
        // Expected (group 0, group 15) = (1.5, C) against targets (C + 0.5, 1).
        let d = 1.0 - C;
        assert!(close(eel.value(&[1, 0, 2], 1), 2.0 * d * d));
    }

    #[test]
    fn malformed_ranking_is_nan() {
        let t = ExposureTable::<2>::new(RankStart::Zero);
        let mut eel = Eel::new(&[1.0, 0.0], &[0, 1], 2, t.as_slice()).unwrap();
        assert!(eel.value(&[0, 1, 0], 1).is_nan());
        assert!(eel.value(&[0, 7], 1).is_nan());
        assert!(eel.cost(&[], 0).is_nan());
    }

    #[test]
    fn constructor_errors() {
        let t = ExposureTable::<3>::new(RankStart::Zero);
        let t = t.as_slice();
        assert_eq!(Eel::new(&[], &[], 2, t), Err(Error::Empty));
        assert_eq!(
            Eel::new(&[1.0, 0.0], &[0, 1, 1], 2, t),
            Err(Error::LengthMismatch {
                expected: 2,
                found: 3
            })
        );
        assert_eq!(
            Eel::new(&[f64::NAN, 0.0], &[0, 1], 2, t),
            Err(Error::NotFinite { index: 0 })
        );
        assert!(matches!(
            Eel::new(&[1.0, 0.0], &[0, 1], 0, t),
            Err(Error::InvalidConfig(_))
        ));
        assert!(matches!(
            Eel::new(&[1.0, 0.0], &[0, 1], 65, t),
            Err(Error::InvalidConfig(_))
        ));
        assert!(Eel::new(&[1.0, 0.0], &[0, 1], 64, t).is_ok());
        assert_eq!(
            Eel::new(&[1.0, 0.0], &[0, 16], 2, t),
            Err(Error::Capacity {
                requested: 17,
                capacity: 16
            })
        );
        assert_eq!(
            Eel::new(&[1.0; 4], &[0, 1, 0, 1], 2, t),
            Err(Error::LengthMismatch {
                expected: 4,
                found: 3
            })
        );
        assert!(matches!(
            Eel::new(&[1.0], &[0], 2, &[-1.0]),
            Err(Error::InvalidConfig(_))
        ));
    }

    #[test]
    fn validity() {
        assert!(Eel::valid(&[0, 1]));
        assert!(Eel::valid(&[1, 1, 0, 1]));
        assert!(Eel::valid(&[3, 15]));
        assert!(!Eel::valid(&[1, 1, 1]));
        assert!(!Eel::valid(&[]));
        assert!(!Eel::valid(&[0, 16]));
    }

    /// Adding up in `f32` moves EEL by at most `1e-5` here: each exposure sum has at most
    /// 50 * 4 terms below 1, each add rounding by `2^-24` of a sum below 200 (`1.2e-5`
    /// absolute at worst, far less in practice), and EEL squares differences of such sums.
    #[test]
    fn single_precision_is_within_1e_5_of_double() {
        extern crate std;
        let mut rng = crate::Rng::new(9);
        let mut worst: f64 = 0.0;
        for round in 0..200 {
            let n = 2 + round % 49;
            let sessions = 1 + round % 4;
            let utility: std::vec::Vec<f64> = (0..n).map(|_| (rng.next_u64() % 5) as f64).collect();
            let group: std::vec::Vec<u8> = (0..n).map(|_| (rng.next_u64() % 3) as u8).collect();
            let t = ExposureTable::<50>::new(RankStart::One);
            let single: std::vec::Vec<f32> = t.as_slice().iter().map(|&e| e as f32).collect();
            let double = Eel::new(&utility, &group, 5, t.as_slice()).unwrap();
            let narrow = Eel::<f32>::new(&utility, &group, 5, &single).unwrap();
            let mut ranking: std::vec::Vec<u16> =
                (0..n as u16).cycle().take(n * sessions).collect();
            for block in ranking.chunks_exact_mut(n) {
                for k in (1..n).rev() {
                    block.swap(k, (rng.next_u64() % (k as u64 + 1)) as usize);
                }
            }
            let (a, b) = (
                double.value(&ranking, sessions),
                narrow.value(&ranking, sessions),
            );
            worst = worst.max((a - b).abs());
        }
        assert!(worst < 1e-5, "{worst}");
    }
}
