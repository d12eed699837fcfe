//! Expected exposure (EE-L, EE-D, EE-R) as the TREC Fair Ranking 2020 evaluator scores it.
//!
//! Definitions from Diaz et al., "Evaluating stochastic rankings with expected exposure"
//! (CIKM 2020), computed as its public evaluator `diazf/expeval` does in the re-ranking
//! setting (complete judgements, `-c`), at the level of items or of groups (`-g`). This is
//! the evaluator at `d943b3e`, the first commit whose `trec/expeval.sh` runs `expeval.py -g
//! -c` (which commit the track ran is not recorded), one consistent snapshot
//! (`individual.py`, `group.py`, `metrics.py`, `util.py`), under its cascade
//! ([`Browse::CascadeJudged`]) or, by default, under the published cascade
//! ([`Browse::Cascade`]) with the targets of the later `exposure.py`; docs/metrics.md lists
//! where later commits of that repository differ.
//!
//! - Target exposure of an item: the relevance levels (the distinct utilities) sorted
//!   descending; a level of `m` items below `b` items of higher levels gets the mean
//!   exposure of positions `b..b+m` (the evaluator's closed form
//!   `(q^b - q^(b+m)) / (m (1 - q))` of its geometric exposure `q^i`).
//! - Expected exposure of an item: its exposure averaged over the sessions.
//! - At group level, both are summed over the group's *relevant* items (utility > 0), as
//!   the evaluator aggregates only judged-relevant documents; a group without a relevant
//!   item takes no part.
//! - EE-D (disparity) `= |e|^2`, EE-R (relevance) `= e . t`, EE-L (loss) `= |e - t|^2`
//!   (the evaluator writes `EE-D - 2 EE-R + |t|^2`: the same number, rounded differently).
//! - Normalised per query by the evaluator's bounds: `(x - lb) / (ub - lb)` for EE-D
//!   (0 where `lb = ub`) and EE-R (1 where `lb = ub`), `x / ub` for EE-L (0 where
//!   `ub = 0`, where the evaluator would divide by zero).
//!
//! The file is about 700 lines, 190 of them tests: targets, bounds and scoring read the
//! same scratch layout, which splitting would spread over files. EE-L's lower bound is
//! `ee_bound.rs`.

use super::bound::LowerBound;
use super::browse::Browse;
use super::ee_bound;
use super::exposure::{check_finite, check_items, check_len, shape_ok};
use super::heapsort::sort_descending;
pub use super::level::Level;
use super::{Objective, MAX_GROUPS};
use crate::Error;

/// One of the three numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// EE-L: squared distance from the target exposure; lower is better.
    Loss,
    /// EE-D: squared norm of the exposure; lower is better (less disparity).
    Disparity,
    /// EE-R: exposure's agreement with the target; higher is better.
    Relevance,
}

/// EE-L, EE-D and EE-R of one ranking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EeValues {
    /// EE-L.
    pub loss: f64,
    /// EE-D.
    pub disparity: f64,
    /// EE-R.
    pub relevance: f64,
}

impl EeValues {
    /// The number `measure` names.
    pub fn get(&self, measure: Measure) -> f64 {
        match measure {
            Measure::Loss => self.loss,
            Measure::Disparity => self.disparity,
            Measure::Relevance => self.relevance,
        }
    }
}

/// The three numbers raw and normalised.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EeReport {
    /// As computed.
    pub raw: EeValues,
    /// Normalised by the per-query bounds.
    pub normalised: EeValues,
}

/// The evaluator's per-query bounds.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Bounds {
    disparity: (f64, f64),
    relevance: (f64, f64),
    /// The upper bound of EE-R, kept where the normalisation sets `relevance` to (0, 0)
    /// (one relevance level): the raw EE-R cost's reference point.
    relevance_max: f64,
    loss: f64,
}

/// Expected exposure of a list; one of its numbers is the cost (see [`ExpectedExposure::new`]).
///
/// ```
/// use ppg_core::objective::{Browse, ExpectedExposure, Level, Measure};
/// let (utility, group) = ([1.0, 0.0], [0, 1]);
/// let mut scratch = [0.0; 2 * ExpectedExposure::SCRATCH_PER_ITEM];
/// let mut ee = ExpectedExposure::new(
///     &utility, &group, Browse::DEFAULT, Level::Item, Measure::Loss, true, &mut scratch,
/// )?;
/// // The merit order meets the targets (1 and 0.5 x 0.5) exactly. Reversed, the relevant
/// // item gets 0.5 (no relevant item above stops the user) and the other 1.
/// assert_eq!(ee.report(&[0, 1], 1).unwrap().raw.loss, 0.0);
/// assert_eq!(ee.report(&[1, 0], 1).unwrap().raw.loss, 0.5 * 0.5 + 0.75 * 0.75);
/// # Ok::<(), ppg_core::Error>(())
/// ```
///
/// `S` is where the scratch values live: a borrowed slice by default (nothing allocates),
/// or anything that derefs to one, such as an owned `Vec<f64>` where a heap exists.
#[derive(Debug)]
pub struct ExpectedExposure<'a, S = &'a mut [f64]> {
    level: Level,
    measure: Measure,
    normalised: bool,
    utility: &'a [f64],
    group: &'a [u8],
    /// `[0, n)` the accumulator of [`ExpectedExposure::report`], `[n, 2n)` the items'
    /// targets, `[2n, 3n)` the exposure of each position.
    scratch: S,
    target: [f64; MAX_GROUPS],
    /// Groups with a relevant item (group level).
    present: u32,
    bounds: Bounds,
    /// The published cascade's factor per relevant item above ([`Browse::relevant_stops`]).
    stops: Option<f64>,
}

impl ExpectedExposure<'_> {
    /// Scratch values per item that [`ExpectedExposure::new`] needs.
    pub const SCRATCH_PER_ITEM: usize = 3;

    /// Whether the metric is defined for this list at `level`: at group level some item
    /// must be relevant (utility > 0), as the evaluator skips a query without one.
    pub fn valid(utility: &[f64], level: Level) -> bool {
        level == Level::Item || utility.iter().any(|&y| y > 0.0)
    }
}

impl<'a, S: AsMut<[f64]> + AsRef<[f64]>> ExpectedExposure<'a, S> {
    /// Expected exposure over the list whose item `i` has `utility[i]` and `group[i]`,
    /// under the browsing model `browse` (its exposures are filled into `scratch`, with
    /// the targets and the accumulator of [`ExpectedExposure::report`]); the cost is
    /// `measure`, normalised by the per-query bounds or raw.
    ///
    /// # Errors
    /// - [`Error::Empty`] for an empty list, [`Error::Capacity`] for too many items or a
    ///   group id of [`MAX_GROUPS`] or more.
    /// - [`Error::LengthMismatch`] when `group` is not `n` long or `scratch` is shorter
    ///   than [`ExpectedExposure::SCRATCH_PER_ITEM`]` * n`.
    /// - [`Error::NotFinite`] for a NaN or infinite utility.
    /// - [`Error::InvalidConfig`] for a browsing model out of range (see
    ///   [`Browse::checked`]) or no relevant item at group level.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        utility: &'a [f64],
        group: &'a [u8],
        browse: Browse,
        level: Level,
        measure: Measure,
        normalised: bool,
        mut scratch: S,
    ) -> Result<Self, Error> {
        let n = utility.len();
        check_items(n)?;
        check_len(n, group.len())?;
        check_finite(utility)?;
        if let Some(&g) = group.iter().find(|&&g| usize::from(g) >= MAX_GROUPS) {
            return Err(Error::Capacity {
                requested: usize::from(g) + 1,
                capacity: MAX_GROUPS,
            });
        }
        let browse = browse.checked()?;
        let needed = ExpectedExposure::SCRATCH_PER_ITEM * n;
        let found = scratch.as_ref().len();
        if found < needed {
            return Err(Error::LengthMismatch {
                expected: needed,
                found,
            });
        }
        if !ExpectedExposure::valid(utility, level) {
            return Err(Error::InvalidConfig(
                "group-level expected exposure needs an item with utility > 0",
            ));
        }
        let (upper, lower) = (|i| browse.upper(i), |i| browse.lower(i));
        // [accumulator | item targets | exposure]; while building, the accumulator's slot
        // holds the sorted utilities and the exposure's the targets by sorted position.
        let (sorted, rest) = scratch.as_mut()[..needed].split_at_mut(n);
        let (item_target, level_target) = rest.split_at_mut(n);
        sorted.copy_from_slice(utility);
        sort_descending(sorted);
        // The published cascade's ideal ranking has its relevant items on top.
        let relevant_items = sorted.partition_point(|&y| y > 0.0);
        // Sorted descending, a relevance level occupies one run of positions; its items
        // share the run's mean exposure.
        let mut levels = 0;
        let mut start = 0;
        while start < n {
            let end = start + sorted[start..].partition_point(|&y| y == sorted[start]);
            let ideal = |i| browse.ideal(i, relevant_items);
            let mean = (start..end).map(ideal).sum::<f64>() / (end - start) as f64;
            level_target[start..end].fill(mean);
            levels += 1;
            start = end;
        }
        for (t, &y) in item_target.iter_mut().zip(utility) {
            *t = level_target[sorted.partition_point(|&x| x > y)];
        }

        let mut target = [0.0; MAX_GROUPS];
        let mut present = 0u32;
        let bounds = match level {
            Level::Item => {
                let disparity_ub = (0..n).map(|i| upper(i) * upper(i)).sum();
                let mass = browse.lower_sum(n);
                let ascending = level_target.iter().rev();
                let (mut relevance_lb, mut loss_ub) = (0.0, 0.0);
                for (i, &t) in ascending.enumerate() {
                    relevance_lb += lower(i) * t;
                    loss_ub += (lower(i) - t) * (lower(i) - t);
                }
                let relevance_max = level_target.iter().map(|t| t * t).sum();
                let mut relevance = (relevance_lb, relevance_max);
                if levels <= 1 {
                    relevance = (0.0, 0.0);
                }
                Bounds {
                    disparity: (mass * mass / n as f64, disparity_ub),
                    relevance,
                    relevance_max,
                    loss: loss_ub,
                }
            }
            Level::Group => {
                let mut relevant = 0;
                for ((&y, &g), &t) in utility.iter().zip(group).zip(item_target.iter()) {
                    if y > 0.0 {
                        target[usize::from(g)] += t;
                        present |= 1 << g;
                        relevant += 1;
                    }
                }
                let mass = browse.upper_sum(relevant);
                let groups = present.count_ones();
                let in_play = || {
                    target
                        .iter()
                        .enumerate()
                        .filter(|(g, _)| present >> g & 1 == 1)
                };
                let norm: f64 = in_play().map(|(_, t)| t * t).sum();
                let far: f64 = in_play().map(|(_, t)| (mass - t) * (mass - t)).sum();
                let disparity_ub = if groups == 1 {
                    0.0
                } else {
                    mass * mass * f64::from(groups)
                };
                let relevance_max = in_play().map(|(_, t)| t * mass).sum();
                Bounds {
                    disparity: (0.0, disparity_ub),
                    relevance: (0.0, relevance_max),
                    relevance_max,
                    loss: norm.max(far),
                }
            }
        };
        browse.fill(level_target)?;
        Ok(ExpectedExposure {
            stops: browse.relevant_stops(),
            level,
            measure,
            normalised,
            utility,
            group,
            scratch,
            target,
            present,
            bounds,
        })
    }

    /// Items per session.
    pub fn items(&self) -> usize {
        self.group.len()
    }

    /// The target exposure of each item (item level) or of groups `0..MAX_GROUPS` (group
    /// level; 0 for a group without a relevant item).
    pub fn targets(&self) -> &[f64] {
        match self.level {
            Level::Item => &self.scratch.as_ref()[self.items()..2 * self.items()],
            Level::Group => &self.target,
        }
    }

    /// EE-L, EE-D and EE-R of `ranking`, raw and normalised; `None` when `ranking` is not
    /// `sessions >= 1` blocks of `n` ids below `n`.
    pub fn report(&mut self, ranking: &[u16], sessions: usize) -> Option<EeReport> {
        let n = self.items();
        if !shape_ok(ranking, sessions, n) {
            return None;
        }
        let s = sessions as f64;
        let (stops, utility) = (self.stops, self.utility);
        let raw = match self.level {
            Level::Item => {
                let (acc, rest) = self.scratch.as_mut().split_at_mut(n);
                let (target, exposure) = rest.split_at(n);
                acc.fill(0.0);
                for block in ranking.chunks_exact(n) {
                    let mut stop = 1.0;
                    for (&item, &e) in block.iter().zip(&exposure[..n]) {
                        let i = usize::from(item);
                        *acc.get_mut(i)? += stop * e / s;
                        stop = stopped(stops, stop, *utility.get(i)?);
                    }
                }
                values(acc.iter().zip(target))
            }
            Level::Group => {
                let mut acc = [0.0; MAX_GROUPS];
                let exposure = &self.scratch.as_ref()[2 * n..3 * n];
                for block in ranking.chunks_exact(n) {
                    let mut stop = 1.0;
                    for (&item, &e) in block.iter().zip(exposure) {
                        let i = usize::from(item);
                        let y = *self.utility.get(i)?;
                        if y > 0.0 {
                            acc[usize::from(self.group[i])] += stop * e / s;
                        }
                        stop = stopped(stops, stop, y);
                    }
                }
                let present = self.present;
                let in_play = acc.iter().zip(&self.target).enumerate();
                values(
                    in_play
                        .filter(|(g, _)| present >> g & 1 == 1)
                        .map(|(_, p)| p),
                )
            }
        };
        let b = self.bounds;
        let scale = |x: f64, (lb, ub): (f64, f64), default: f64| {
            if lb == ub {
                default
            } else {
                (x - lb) / (ub - lb)
            }
        };
        let normalised = EeValues {
            loss: if b.loss == 0.0 {
                0.0
            } else {
                raw.loss / b.loss
            },
            disparity: scale(raw.disparity, b.disparity, 0.0),
            relevance: scale(raw.relevance, b.relevance, 1.0),
        };
        Some(EeReport { raw, normalised })
    }
}

impl<S: AsRef<[f64]>> ExpectedExposure<'_, S> {
    /// What the bound reads: the positions' exposures, the targets, the groups in play.
    fn problem(&self) -> ee_bound::Problem<'_> {
        let n = self.group.len();
        let scratch = self.scratch.as_ref();
        ee_bound::Problem {
            exposure: &scratch[2 * n..3 * n],
            utility: self.utility,
            group: self.group,
            item_target: &scratch[n..2 * n],
            group_target: &self.target,
            present: self.present,
            level: self.level,
        }
    }
}

/// The cascade's factor on the positions below an item of utility `y`: times `1 -
/// utility` after a relevant item under the published cascade (`stops`), else unchanged.
fn stopped(stops: Option<f64>, stop: f64, y: f64) -> f64 {
    match stops {
        Some(factor) if y > 0.0 => stop * factor,
        _ => stop,
    }
}

/// The three numbers over (exposure, target) pairs.
fn values<'v>(pairs: impl Iterator<Item = (&'v f64, &'v f64)>) -> EeValues {
    let mut v = EeValues {
        loss: 0.0,
        disparity: 0.0,
        relevance: 0.0,
    };
    for (&e, &t) in pairs {
        v.loss += (e - t) * (e - t);
        v.disparity += e * e;
        v.relevance += e * t;
    }
    v
}

impl<S: AsMut<[f64]> + AsRef<[f64]>> Objective for ExpectedExposure<'_, S> {
    /// The chosen measure, oriented so that lower is better and the best value is 0 or
    /// above: EE-L and EE-D as they are, EE-R as its distance below its upper bound, `1 -
    /// EE-R` normalised and `ub - EE-R` raw (`ub` the evaluator's bound: `|t|^2` at item
    /// level, `gp(q_u, r) sum t` at group level). Every cost of the crate is non-negative,
    /// so a REINFORCE step moves away from costly samples for EE-R too; `-EE-R` would
    /// have the same minimisers but pull towards every sample. NaN for a malformed
    /// ranking.
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        let (measure, normalised) = (self.measure, self.normalised);
        let max = self.bounds.relevance_max;
        let Some(report) = self.report(ranking, sessions) else {
            return f64::NAN;
        };
        let value = if normalised {
            report.normalised
        } else {
            report.raw
        }
        .get(measure);
        match (measure, normalised) {
            (Measure::Relevance, true) => 1.0 - value,
            (Measure::Relevance, false) => max - value,
            _ => value,
        }
    }

    /// EE-L's lower bound over `sessions` rankings (`objective/ee_bound.rs`: each group's,
    /// or item's, nearest achievable exposure to its target; exact with one group in play,
    /// and with two groups holding every item when the search ends), divided by the
    /// evaluator's bound when normalised; under the published cascade, which is not
    /// positional, 0, exact with one group in play (`ee_bound::published`). `None` for
    /// EE-D and EE-R (their costs have no bound here). `work` lends `n + 1` values.
    fn lower_bound(&self, sessions: usize, work: &mut [f64]) -> Option<LowerBound> {
        if self.measure != Measure::Loss || sessions == 0 {
            return None;
        }
        if self.normalised && self.bounds.loss == 0.0 {
            // The cost is 0 for every ranking.
            return Some(LowerBound {
                value: 0.0,
                exact: true,
            });
        }
        if self.stops.is_some() {
            return Some(ee_bound::published(&self.problem()));
        }
        let mut bound = ee_bound::loss(&self.problem(), sessions, work);
        if self.normalised {
            bound.value /= self.bounds.loss;
        }
        Some(bound)
    }

    /// The bound, and where it is exact with one group holding the relevant items, the
    /// rankings that reach it (`ee_bound::one_group_witness`, `ee_bound::published_witness`):
    /// at 4 sessions on TREC 2020, 13 such queries trained to their patience above an
    /// optimum of 0.
    fn optimum(
        &self,
        sessions: usize,
        work: &mut [f64],
        out: &mut [u16],
    ) -> Option<(LowerBound, bool)> {
        let bound = self.lower_bound(sessions, work)?;
        if !bound.exact || self.normalised && self.bounds.loss == 0.0 {
            return Some((bound, false));
        }
        let found = if self.stops.is_some() {
            ee_bound::published_witness(&self.problem(), sessions, out)
        } else {
            ee_bound::one_group_witness(&self.problem(), sessions, work, out)
        };
        Some((bound, found))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::RankStart;

    const RBP: Browse = Browse::Rbp { patience: 0.5 };

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-15
    }

    fn report(level: Level, group: &[u8], ranking: &[u16], sessions: usize) -> EeReport {
        let utility = [1.0, 0.0, 1.0];
        let mut scratch = [0.0; 12];
        let mut ee = ExpectedExposure::new(
            &utility,
            group,
            RBP,
            level,
            Measure::Loss,
            true,
            &mut scratch,
        )
        .unwrap();
        ee.report(ranking, sessions).unwrap()
    }

    /// Utilities (1, 0, 1) under RBP 0.5: exposures (1, 0.5, 0.25), level 1 holds the
    /// top two positions (target 0.75 each), level 0 the last (0.25).
    #[test]
    fn item_level_by_hand() {
        let r = report(Level::Item, &[0, 1, 1], &[0, 1, 2], 1);
        assert!(close(r.raw.loss, 0.375), "{r:?}");
        assert!(close(r.raw.disparity, 1.3125));
        assert!(close(r.raw.relevance, 1.0625));
        // Bounds: disparity (1.75^2 / 3, 1.3125), relevance (0.8125, 1.1875), loss 0.875.
        assert!(close(r.normalised.disparity, 1.0));
        assert!(close(r.normalised.relevance, 0.25 / 0.375));
        assert!(close(r.normalised.loss, 0.375 / 0.875));
        let two = report(Level::Item, &[0, 1, 1], &[0, 1, 2, 2, 1, 0], 2);
        // Exposures (0.625, 0.5, 0.625) against (0.75, 0.25, 0.75).
        assert!(close(two.raw.loss, 0.09375));
        let lb = 1.75 * 1.75 / 3.0;
        let d = 2.0 * 0.625 * 0.625 + 0.25;
        assert!(close(two.normalised.disparity, (d - lb) / (1.3125 - lb)));
    }

    /// Groups (0, 1, 1): the relevant items 0 and 2 make the groups, targets (0.75, 0.75);
    /// item 1 is not relevant and counts for nothing.
    #[test]
    fn group_level_by_hand() {
        let r = report(Level::Group, &[0, 1, 1], &[0, 1, 2], 1);
        assert!(close(r.raw.loss, 0.3125), "{r:?}");
        assert!(close(r.raw.disparity, 1.0625));
        assert!(close(r.raw.relevance, 0.9375));
        // Mass of the top 2 positions 1.5: disparity ub 1.5^2 * 2 groups, relevance ub
        // 1.5 * 1.5, loss ub max(2 * 0.75^2, 2 * 0.75^2).
        assert!(close(r.normalised.disparity, 1.0625 / 4.5));
        assert!(close(r.normalised.relevance, 0.9375 / 2.25));
        assert!(close(r.normalised.loss, 0.3125 / 1.125));
        // Swapping the irrelevant item 1 with anything of the same group position changes
        // nothing at group level as long as the relevant items keep their positions.
        let one_group = report(Level::Group, &[0, 0, 0], &[0, 1, 2], 1);
        assert_eq!(one_group.normalised.disparity, 0.0);
    }

    #[test]
    fn costs_are_oriented() {
        let utility = [1.0, 0.0, 1.0];
        let group = [0, 1, 1];
        let cost = |measure, normalised, ranking: &[u16]| {
            let mut scratch = [0.0; 12];
            let mut ee = ExpectedExposure::new(
                &utility,
                &group,
                RBP,
                Level::Item,
                measure,
                normalised,
                &mut scratch,
            )
            .unwrap();
            ee.cost(ranking, 1)
        };
        assert!(close(cost(Measure::Loss, false, &[0, 1, 2]), 0.375));
        // |t|^2 = 2 * 0.75^2 + 0.25^2 = 1.1875 above the raw EE-R of 1.0625.
        assert!(close(cost(Measure::Relevance, false, &[0, 1, 2]), 0.125));
        // The merit order meets the bound: exposures (1, 0.25, 0.5) against the targets.
        assert!(close(cost(Measure::Relevance, false, &[0, 2, 1]), 0.0));
        assert!(close(
            cost(Measure::Relevance, true, &[0, 1, 2]),
            1.0 - 0.25 / 0.375
        ));
        assert!(cost(Measure::Loss, true, &[0, 2, 1]) < cost(Measure::Loss, true, &[1, 0, 2]));
        assert!(cost(Measure::Disparity, false, &[0, 1]).is_nan());
        assert!(cost(Measure::Disparity, false, &[0, 1, 3]).is_nan());
    }

    /// The log discount's targets are the protocol's EEL targets (one level per utility).
    #[test]
    fn log_discount_targets_sum_to_the_exposure() {
        let utility = [3.0, 1.0, 3.0, 0.0, 1.0];
        let mut scratch = [0.0; 20];
        let ee = ExpectedExposure::new(
            &utility,
            &[0; 5],
            Browse::Log(RankStart::One),
            Level::Item,
            Measure::Loss,
            false,
            &mut scratch,
        )
        .unwrap();
        let e: [f64; 5] =
            core::array::from_fn(|i| crate::objective::exposure::at(RankStart::One, i));
        let t = ee.targets();
        assert!(close(t[0], (e[0] + e[1]) / 2.0) && t[0] == t[2]);
        assert!(close(t[1], (e[2] + e[3]) / 2.0) && t[1] == t[4]);
        assert_eq!(t[3], e[4]);
    }

    #[test]
    fn errors() {
        let mut scratch = [0.0; 12];
        let u = [1.0, 0.0, 1.0];
        let g = [0u8, 1, 1];
        let new = |u: &[f64], g: &[u8], browse, level, scratch: &mut [f64]| {
            ExpectedExposure::new(u, g, browse, level, Measure::Loss, true, scratch).map(|_| ())
        };
        for browse in [
            Browse::Rbp { patience: 0.0 },
            Browse::Rbp { patience: f64::NAN },
            Browse::CascadeJudged {
                patience: 1.5,
                utility: 0.5,
            },
            Browse::CascadeJudged {
                patience: 0.5,
                utility: -0.5,
            },
        ] {
            let e = new(&u, &g, browse, Level::Item, &mut scratch);
            assert!(matches!(e, Err(Error::InvalidConfig(_))), "{browse:?}");
        }
        assert_eq!(
            new(&[], &[], RBP, Level::Item, &mut scratch),
            Err(Error::Empty)
        );
        assert_eq!(
            new(&[1.0, f64::NAN, 0.0], &g, RBP, Level::Item, &mut scratch),
            Err(Error::NotFinite { index: 1 })
        );
        assert_eq!(
            new(&u, &g[..2], RBP, Level::Item, &mut scratch),
            Err(Error::LengthMismatch {
                expected: 3,
                found: 2
            })
        );
        assert_eq!(
            new(&u, &g, RBP, Level::Item, &mut [0.0; 8]),
            Err(Error::LengthMismatch {
                expected: 9,
                found: 8
            })
        );
        assert!(matches!(
            new(&u, &[0, 1, 16], RBP, Level::Item, &mut scratch),
            Err(Error::Capacity { requested: 17, .. })
        ));
        assert!(matches!(
            new(&[0.0; 3], &g, RBP, Level::Group, &mut scratch),
            Err(Error::InvalidConfig(_))
        ));
        assert!(new(&[0.0; 3], &g, RBP, Level::Item, &mut scratch).is_ok());
    }
}
