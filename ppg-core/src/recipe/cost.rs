//! The costs a re-ranking minimises, built from the metrics of [`crate::objective`] by name:
//! the fairness metric of the protocol (or TREC Fair Ranking's), optionally mixed with an
//! NDCG term.

use crate::objective::{
    Awrf, AwrfCost, AwrfTarget, Browse, Dtr, DtrGroups, EeReport, Eel, ExpectedExposure, Level,
    LowerBound, Measure, Mix, Ndcg, MAX_GROUPS,
};
use crate::{Error, Objective};

/// A fairness metric: the paper's two and TREC Fair Ranking's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Disparity of treatment ratio (reported as the ratio, optimised as ratio - 1): the
    /// paper's [`Dtr`] over the group ids 0 and 1, [`DtrGroups`] (the largest over the
    /// smallest exposure-per-utility ratio) over up to [`MAX_GROUPS`].
    Dtr,
    /// Expected exposure loss.
    Eel,
    /// Expected exposure as TREC Fair Ranking 2020 scored it: by default EE-L normalised
    /// per query, under a browsing model (by default: group level, the published cascade,
    /// patience 0.5); [`CostSpec::ee`] chooses EE-D or EE-R, raw or normalised.
    Ee,
    /// AWRF x NDCG as TREC Fair Ranking 2021 scored a ranking (the target: the relevant
    /// items' group distribution averaged with the uniform one over the attribute's groups,
    /// [`CostSpec::awrf_groups`]); reported as the score, optimised as 1 - score.
    Awrf,
    /// AWRF x NDCG as TREC Fair Ranking 2022 scored a ranking: several soft attributes
    /// with unknowns ([`crate::objective::Awrf2022`]). Its per-item attributes are side
    /// data this spec does not carry: [`Cost::new`] refuses it, and a host builds the
    /// metric from the attributes it read.
    Awrf2022,
}

// `Metric::name` is in `crate::names`, with the other names the front ends parse.
impl Metric {
    /// Whether the metric means anything for this query (the protocol's valid-query
    /// filter).
    pub fn valid(self, utility: &[f64], group: &[u8]) -> bool {
        match self {
            Metric::Dtr if two_groups(group) => Dtr::valid(utility, group),
            Metric::Dtr => DtrGroups::valid(utility, group),
            Metric::Eel => Eel::valid(group),
            Metric::Ee => ExpectedExposure::valid(utility, Level::Group),
            Metric::Awrf | Metric::Awrf2022 => utility.iter().any(|&y| y > 0.0),
        }
    }
}

/// Which of expected exposure's numbers [`Metric::Ee`] is: EE-L, EE-D or EE-R, normalised
/// per query by the evaluator's bounds or raw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EeScore {
    /// EE-L, EE-D or EE-R.
    pub measure: Measure,
    /// Normalised per query (TREC 2020's figures) rather than raw.
    pub normalised: bool,
}

impl EeScore {
    /// TREC 2020's score: EE-L normalised.
    pub const OFFICIAL: EeScore = EeScore {
        measure: Measure::Loss,
        normalised: true,
    };

    /// The number as the evaluator reports it (EE-R: higher is better; the cost
    /// [`ExpectedExposure`] minimises is its distance below its upper bound).
    pub fn of(self, report: &EeReport) -> f64 {
        if self.normalised {
            report.normalised
        } else {
            report.raw
        }
        .get(self.measure)
    }

    /// The number's name in reports: `EE-L`, `EE-D` or `EE-R`, with ` raw` when raw.
    pub fn name(self) -> &'static str {
        match (self.measure, self.normalised) {
            (Measure::Loss, true) => "EE-L",
            (Measure::Disparity, true) => "EE-D",
            (Measure::Relevance, true) => "EE-R",
            (Measure::Loss, false) => "EE-L raw",
            (Measure::Disparity, false) => "EE-D raw",
            (Measure::Relevance, false) => "EE-R raw",
        }
    }
}

/// What to minimise: a fairness metric, optionally plus `weight * (1 - NDCG@k)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostSpec {
    /// The fairness metric.
    pub metric: Metric,
    /// EEL grade levels (5 when optimising in the protocol).
    pub levels: u32,
    /// `(weight, k)` of an NDCG@k term.
    pub ndcg: Option<(f64, usize)>,
    /// The browsing model of [`Metric::Ee`] ([`Browse::DEFAULT`]: the published cascade, 0.5).
    pub browse: Browse,
    /// The level of [`Metric::Ee`] ([`Level::Group`] officially).
    pub level: Level,
    /// The number of [`Metric::Ee`] ([`EeScore::OFFICIAL`]: EE-L normalised).
    pub ee: EeScore,
    /// [`Metric::Awrf`]'s population: uniform over this many groups, the attribute's (a
    /// door that numbers groups over a whole file or frame gives their count), so that a
    /// query lacking some of them is scored as TREC 2021's scorer scores it (its target
    /// over every region of the world, `metrics.py`'s `qtarget`). At least the number of
    /// groups in the query and at most [`MAX_GROUPS`]. `None`: over the groups `0..=max
    /// id` of the list the cost is built on ([`awrf`]; after [`crate::Ppg::rerank`]'s
    /// renumbering, the groups present in the query), which is TREC's only where every
    /// query holds every group.
    pub awrf_groups: Option<usize>,
    /// [`Metric::Awrf`]'s depth: the positions scored in each session ([`Awrf::with_depth`];
    /// TREC 2021 scored ranks 1-20). `None`: the whole list.
    pub awrf_depth: Option<usize>,
}

impl CostSpec {
    /// `metric` with EEL's `levels` and an optional `(weight, k)` NDCG@k term; expected
    /// exposure in the official settings (change `browse`, `level` and `ee` after).
    pub fn new(metric: Metric, levels: u32, ndcg: Option<(f64, usize)>) -> Self {
        CostSpec {
            metric,
            levels,
            ndcg,
            browse: Browse::DEFAULT,
            level: Level::Group,
            ee: EeScore::OFFICIAL,
            awrf_groups: None,
            awrf_depth: None,
        }
    }

    /// Whether the fairness metric has a value for a query with `utility` per item:
    /// group-level expected exposure and AWRF need an item with utility > 0 (their
    /// evaluators skip a query without one, and [`Cost::new`] refuses it); every door
    /// passes such a query through, its input ranking unchanged.
    pub fn defined(&self, utility: &[f64]) -> bool {
        match self.metric {
            Metric::Ee => ExpectedExposure::valid(utility, self.level),
            Metric::Awrf | Metric::Awrf2022 => utility.iter().any(|&y| y > 0.0),
            Metric::Dtr | Metric::Eel => true,
        }
    }

    /// Whether the cost has anything to optimise for a query with `utility` and `group`
    /// per item: an NDCG term always does; a fairness metric alone only where it means
    /// something ([`Metric::valid`]; expected exposure at this spec's level).
    pub fn meaningful(&self, utility: &[f64], group: &[u8]) -> bool {
        self.ndcg.is_some()
            || match self.metric {
                Metric::Ee => ExpectedExposure::valid(utility, self.level),
                metric => metric.valid(utility, group),
            }
    }
}

/// The exposure of each rank (for DTR and EEL), the discount of each rank (for NDCG) and
/// the attention of each rank (for AWRF), at least as long as the list.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tables<'t> {
    /// Exposure of each rank, for DTR and EEL (see [`crate::objective::exposure`]).
    pub exposure: &'t [f64],
    /// Discount of each rank, for NDCG (from rank 0).
    pub discount: &'t [f64],
    /// Attention of each rank, for AWRF ([`Awrf::discount`]).
    pub attention: &'t [f64],
}

/// Scratch values per item [`Cost::new`] needs for [`Metric::Ee`] (none for the others).
pub const SCRATCH_PER_ITEM: usize = ExpectedExposure::SCRATCH_PER_ITEM;

/// AWRF's background population: uniform over the attribute's groups (the protocol's two);
/// TREC 2021 used the world's population by region, which these groups have none of.
const AWRF_POPULATION: [f64; MAX_GROUPS] = [1.0; MAX_GROUPS];

/// The expected exposure `spec` chooses (browsing model, level, number) of `utility`'s
/// list in `scratch`.
fn expected_exposure<'a>(
    spec: &CostSpec,
    utility: &'a [f64],
    group: &'a [u8],
    scratch: &'a mut [f64],
) -> Result<ExpectedExposure<'a>, Error> {
    ExpectedExposure::new(
        utility,
        group,
        spec.browse,
        spec.level,
        spec.ee.measure,
        spec.ee.normalised,
        scratch,
    )
}

/// AWRF x NDCG of `utility`'s list with TREC 2021's target ([`Metric::Awrf`]): the mean
/// of the relevant items' group distribution and a population uniform over `groups`
/// groups ([`CostSpec::awrf_groups`]; `None`: the groups `0..=max id` of `group`),
/// `attention` as [`Awrf::discount`] fills it.
///
/// # Errors
/// As [`Awrf::new`]: no relevant item, a group id of [`MAX_GROUPS`] or more, ...;
/// [`Error::Capacity`] for `groups` above [`MAX_GROUPS`], [`Error::ItemOutOfRange`] for a
/// group id not below `groups`, [`Error::Empty`] for `groups` 0.
pub fn awrf<'a>(
    utility: &'a [f64],
    group: &'a [u8],
    attention: &'a [f64],
    groups: Option<usize>,
) -> Result<Awrf<'a>, Error> {
    let groups = groups.unwrap_or_else(|| group.iter().max().map_or(1, |&g| usize::from(g) + 1));
    let population = AWRF_POPULATION.get(..groups).ok_or(Error::Capacity {
        requested: groups,
        capacity: MAX_GROUPS,
    })?;
    let target = AwrfTarget::Trec { population };
    Awrf::new(utility, group, target, attention, AwrfCost::Product)
}

/// [`awrf`] at the spec's population and depth.
fn awrf_deep<'a>(
    spec: &CostSpec,
    utility: &'a [f64],
    group: &'a [u8],
    attention: &'a [f64],
) -> Result<Awrf<'a>, Error> {
    let metric = awrf(utility, group, attention, spec.awrf_groups)?;
    match spec.awrf_depth {
        Some(depth) => metric.with_depth(depth),
        None => Ok(metric),
    }
}

/// Whether DTR over `group` is the paper's two-group [`Dtr`] (ids 0 and 1 only), whose
/// results and exact bound stay as they were; otherwise [`DtrGroups`].
fn two_groups(group: &[u8]) -> bool {
    group.iter().all(|&g| g <= 1)
}

/// DTR over two groups or over more, each with its lower bound.
#[derive(Debug)]
pub enum AnyDtr<'a> {
    /// Group ids 0 and 1.
    Two(Dtr<'a>),
    /// Up to [`MAX_GROUPS`] groups.
    Groups(DtrGroups<'a>),
}

impl<'a> AnyDtr<'a> {
    /// DTR of `utility`'s list: the paper's [`Dtr`] over ids 0 and 1, else
    /// [`DtrGroups`].
    ///
    /// # Errors
    /// As [`Dtr::new`] and [`DtrGroups::new`] (a group id of [`MAX_GROUPS`] or more is
    /// [`Error::Capacity`]).
    pub fn new(utility: &'a [f64], group: &'a [u8], exposure: &'a [f64]) -> Result<Self, Error> {
        Ok(if two_groups(group) {
            AnyDtr::Two(Dtr::new(utility, group, exposure)?)
        } else {
            AnyDtr::Groups(DtrGroups::new(utility, group, exposure)?)
        })
    }

    /// The DTR of `ranking` (at least 1; 1 when degenerate; NaN when malformed), as
    /// [`Dtr::ratio`] and [`DtrGroups::ratio`].
    pub fn ratio(&self, ranking: &[u16], sessions: usize) -> f64 {
        match self {
            AnyDtr::Two(c) => c.ratio(ranking, sessions),
            AnyDtr::Groups(c) => c.ratio(ranking, sessions),
        }
    }
}

impl Objective for AnyDtr<'_> {
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        match self {
            AnyDtr::Two(c) => c.cost(ranking, sessions),
            AnyDtr::Groups(c) => c.cost(ranking, sessions),
        }
    }

    /// The two-group DTR's exact optimum; over more groups the optimum or a lower bound
    /// flagged inexact.
    fn lower_bound(&self, sessions: usize, work: &mut [f64]) -> Option<LowerBound> {
        match self {
            AnyDtr::Two(c) => c.lower_bound(sessions, work),
            AnyDtr::Groups(c) => c.lower_bound(sessions, work),
        }
    }

    /// The two-group DTR's optimum rankings; over more groups the bound alone.
    fn optimum(
        &self,
        sessions: usize,
        work: &mut [f64],
        out: &mut [u16],
    ) -> Option<(LowerBound, bool)> {
        match self {
            AnyDtr::Two(c) => c.optimum(sessions, work, out),
            AnyDtr::Groups(c) => c.optimum(sessions, work, out),
        }
    }
}

/// A built cost, borrowing the query's arrays.
#[derive(Debug)]
pub enum Cost<'a> {
    /// DTR alone.
    Dtr(AnyDtr<'a>),
    /// EEL alone.
    Eel(Eel<'a>),
    /// DTR plus an NDCG term.
    DtrNdcg(Mix<AnyDtr<'a>, Ndcg<'a>>),
    /// EEL plus an NDCG term.
    EelNdcg(Mix<Eel<'a>, Ndcg<'a>>),
    /// Expected exposure ([`CostSpec::ee`]; EE-R as its distance below its upper bound).
    Ee(ExpectedExposure<'a>),
    /// Expected exposure plus an NDCG term.
    EeNdcg(Mix<ExpectedExposure<'a>, Ndcg<'a>>),
    /// 1 - AWRF x NDCG.
    Awrf(Awrf<'a>),
    /// 1 - AWRF x NDCG plus an NDCG@k term.
    AwrfNdcg(Mix<Awrf<'a>, Ndcg<'a>>),
}

impl<'a> Cost<'a> {
    /// The cost of a list with `utility` and `group` per item; expected exposure keeps
    /// its values in `scratch` ([`SCRATCH_PER_ITEM`] per item; the other metrics take an
    /// empty one).
    ///
    /// # Errors
    /// The metrics' refusal (negative utility for DTR or NDCG, more groups than the
    /// metric takes, tables or scratch shorter than the list, no relevant item for
    /// expected exposure or AWRF, ...).
    pub fn new(
        spec: &CostSpec,
        utility: &'a [f64],
        group: &'a [u8],
        tables: &Tables<'a>,
        scratch: &'a mut [f64],
    ) -> Result<Self, Error> {
        let ndcg = |k: usize| Ndcg::new(utility, k, tables.discount);
        Ok(match (spec.metric, spec.ndcg) {
            (Metric::Dtr, None) => Cost::Dtr(AnyDtr::new(utility, group, tables.exposure)?),
            (Metric::Eel, None) => {
                Cost::Eel(Eel::new(utility, group, spec.levels, tables.exposure)?)
            }
            (Metric::Dtr, Some((w, k))) => Cost::DtrNdcg(Mix::new(
                AnyDtr::new(utility, group, tables.exposure)?,
                ndcg(k)?,
                w,
            )?),
            (Metric::Eel, Some((w, k))) => Cost::EelNdcg(Mix::new(
                Eel::new(utility, group, spec.levels, tables.exposure)?,
                ndcg(k)?,
                w,
            )?),
            (Metric::Ee, None) => Cost::Ee(expected_exposure(spec, utility, group, scratch)?),
            (Metric::Ee, Some((w, k))) => Cost::EeNdcg(Mix::new(
                expected_exposure(spec, utility, group, scratch)?,
                ndcg(k)?,
                w,
            )?),
            (Metric::Awrf, None) => Cost::Awrf(awrf_deep(spec, utility, group, tables.attention)?),
            (Metric::Awrf, Some((w, k))) => Cost::AwrfNdcg(Mix::new(
                awrf_deep(spec, utility, group, tables.attention)?,
                ndcg(k)?,
                w,
            )?),
            (Metric::Awrf2022, _) => {
                return Err(Error::Unsupported(
                    "AWRF 2022 needs the items' attributes: build objective::Awrf2022",
                ))
            }
        })
    }
}

impl Objective for Cost<'_> {
    fn cost(&mut self, ranking: &[u16], sessions: usize) -> f64 {
        match self {
            Cost::Dtr(c) => c.cost(ranking, sessions),
            Cost::Eel(c) => c.cost(ranking, sessions),
            Cost::DtrNdcg(c) => c.cost(ranking, sessions),
            Cost::EelNdcg(c) => c.cost(ranking, sessions),
            Cost::Ee(c) => c.cost(ranking, sessions),
            Cost::EeNdcg(c) => c.cost(ranking, sessions),
            Cost::Awrf(c) => c.cost(ranking, sessions),
            Cost::AwrfNdcg(c) => c.cost(ranking, sessions),
        }
    }

    /// DTR's, EEL's, EE-L's and AWRF's lower bounds; a mix gives none.
    fn lower_bound(&self, sessions: usize, work: &mut [f64]) -> Option<LowerBound> {
        match self {
            Cost::Dtr(c) => c.lower_bound(sessions, work),
            Cost::Eel(c) => c.lower_bound(sessions, work),
            Cost::Ee(c) => c.lower_bound(sessions, work),
            Cost::Awrf(c) => c.lower_bound(sessions, work),
            Cost::DtrNdcg(_) | Cost::EelNdcg(_) | Cost::EeNdcg(_) | Cost::AwrfNdcg(_) => None,
        }
    }

    /// DTR's and EEL's optimum rankings (two groups), EE-L's with one group in play
    /// ([`Objective::optimum`]).
    fn optimum(
        &self,
        sessions: usize,
        work: &mut [f64],
        out: &mut [u16],
    ) -> Option<(LowerBound, bool)> {
        match self {
            Cost::Dtr(c) => c.optimum(sessions, work, out),
            Cost::Eel(c) => c.optimum(sessions, work, out),
            Cost::Ee(c) => c.optimum(sessions, work, out),
            _ => self.lower_bound(sessions, work).map(|b| (b, false)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::{exposure, RankStart};

    #[test]
    fn dtr_is_the_papers_on_two_groups_and_dtr_groups_beyond_each_with_a_bound() {
        let mut table = [0.0; 6];
        exposure::fill(RankStart::One, &mut table);
        let utility = [3.0, 1.0, 2.0, 2.0, 1.0, 1.0];
        let ranking = [5u16, 4, 3, 2, 1, 0, 0, 1, 2, 3, 4, 5];
        let two = [0, 1, 0, 1, 0, 1];
        let dtr = AnyDtr::new(&utility, &two, &table).unwrap();
        assert!(matches!(dtr, AnyDtr::Two(_)));
        let paper = Dtr::new(&utility, &two, &table).unwrap();
        assert_eq!(dtr.ratio(&ranking, 2), paper.ratio(&ranking, 2));
        assert!(dtr.lower_bound(2, &mut [0.0; 7]).is_some());

        let three = [0, 1, 2, 1, 0, 2];
        let dtr = AnyDtr::new(&utility, &three, &table).unwrap();
        let groups = DtrGroups::new(&utility, &three, &table).unwrap();
        assert_eq!(dtr.ratio(&ranking, 2), groups.ratio(&ranking, 2));
        assert!(dtr.ratio(&ranking, 2) > 1.0);
        let bound = dtr.lower_bound(2, &mut [0.0; 7]).unwrap();
        assert_eq!(Some(bound), groups.lower_bound(2, &mut [0.0; 7]));
        assert!(bound.value > 0.0 && bound.value <= dtr.ratio(&ranking, 2) - 1.0);
        assert!(matches!(
            AnyDtr::new(&utility, &[0, 1, 2, 3, 4, 16], &table),
            Err(Error::Capacity { .. })
        ));
        assert!(Metric::Dtr.valid(&utility, &three));
        assert!(!Metric::Dtr.valid(&[1.0, 0.0, 0.0], &[0, 1, 2]));
    }
}
