//! The costs the optimisers minimise and the metrics the evaluation reports, built from
//! `ppg_core::objective`.

use ppg_core::objective::{
    exposure, Awrf, AwrfCost, AwrfTarget, Browse, Dtr, Eel, ExpectedExposure, Level, Measure, Mix,
    Ndcg, RankStart,
};
use ppg_core::Objective;

/// A fairness metric of the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Disparity of treatment ratio (reported as the ratio, optimised as ratio - 1).
    Dtr,
    /// Expected exposure loss.
    Eel,
    /// Expected exposure as TREC Fair Ranking 2020 scored it: EE-L normalised per query,
    /// under a browsing model (official: group level, cascade, patience 0.5).
    Ee,
    /// AWRF x NDCG as TREC Fair Ranking 2021 scored a ranking (the target: the relevant
    /// items' group distribution averaged with the uniform one over groups `0..=max id`);
    /// reported as the score, optimised as 1 - score.
    Awrf,
}

impl Metric {
    /// The metric's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Dtr => "dtr",
            Metric::Eel => "eel",
            Metric::Ee => "ee",
            Metric::Awrf => "awrf",
        }
    }

    /// How many groups the metric tells apart, and why, for the message that refuses one
    /// more.
    pub fn max_groups(self) -> (usize, &'static str) {
        match self {
            Metric::Dtr => (2, "DTR compares two groups"),
            Metric::Eel => (
                ppg_core::objective::MAX_GROUPS,
                "EEL takes at most 16 groups",
            ),
            Metric::Ee | Metric::Awrf => (
                ppg_core::objective::MAX_GROUPS,
                "expected exposure and AWRF take at most 16 groups",
            ),
        }
    }

    /// Whether the metric means anything for this query (the protocol's valid-query
    /// filter, applied to the evaluation's true labels).
    pub fn valid(self, utility: &[f64], group: &[u8]) -> bool {
        match self {
            Metric::Dtr => Dtr::valid(utility, group),
            Metric::Eel => Eel::valid(group),
            Metric::Ee => ExpectedExposure::valid(utility, Level::Group),
            Metric::Awrf => utility.iter().any(|&y| y > 0.0),
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
    /// The browsing model of [`Metric::Ee`] ([`Browse::OFFICIAL`]: the cascade, 0.5).
    pub browse: Browse,
    /// The level of [`Metric::Ee`] ([`Level::Group`] officially).
    pub level: Level,
}

/// AWRF's background population: uniform over the groups `0..=max id` (the protocol's
/// two); TREC 2021 used the world's population by region, which these groups have none of.
const AWRF_POPULATION: [f64; ppg_core::objective::MAX_GROUPS] =
    [1.0; ppg_core::objective::MAX_GROUPS];

/// The official expected exposure (normalised EE-L) of `utility`'s list; the engine owns
/// its scratch.
fn expected_exposure<'a>(
    utility: &'a [f64],
    group: &'a [u8],
    browse: Browse,
    level: Level,
) -> Result<ExpectedExposure<'a, Vec<f64>>, ppg_core::Error> {
    let scratch = vec![0.0; ExpectedExposure::SCRATCH_PER_ITEM * utility.len()];
    ExpectedExposure::new(utility, group, browse, level, Measure::Loss, true, scratch)
}

/// AWRF x NDCG of `utility`'s list with TREC 2021's target.
fn awrf<'a>(
    utility: &'a [f64],
    group: &'a [u8],
    tables: &'a Tables,
) -> Result<Awrf<'a>, ppg_core::Error> {
    let groups = group.iter().max().map_or(1, |&g| usize::from(g) + 1);
    let population = AWRF_POPULATION
        .get(..groups)
        .ok_or(ppg_core::Error::Capacity {
            requested: groups,
            capacity: AWRF_POPULATION.len(),
        })?;
    let target = AwrfTarget::Trec { population };
    Awrf::new(utility, group, target, &tables.attention, AwrfCost::Product)
}

/// Why a utility cannot feed a cost: the rule `ppg rerank` applies to its `label` (or
/// `score`) column, and the Python package to its `utility`, from this one function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadUtility {
    /// Below zero: DTR's ratios and NDCG's gain need values >= 0, and EEL's grades would
    /// take every negative one for 0.
    Negative,
    /// NDCG's gain `2^u - 1` overflows a double (`u` of 1024 or more).
    TooLargeForNdcg,
}

impl std::fmt::Display for BadUtility {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BadUtility::Negative => {
                "is negative: DTR and NDCG need utilities >= 0, and EEL would grade every \
                 negative one as 0"
            }
            BadUtility::TooLargeForNdcg => {
                "is too large for NDCG: its gain 2^u - 1 overflows (at most 1023.99)"
            }
        })
    }
}

impl CostSpec {
    /// The first utility `spec` refuses, with its index: a negative one for every metric,
    /// one whose NDCG gain overflows when the cost has an NDCG term.
    ///
    /// # Errors
    /// The index of the first refused value and why.
    pub fn check_utility(&self, utility: &[f64]) -> Result<(), (usize, BadUtility)> {
        for (i, &u) in utility.iter().enumerate() {
            if u < 0.0 {
                return Err((i, BadUtility::Negative));
            }
            // NDCG's gain is 2^u - 1: refuse what it cannot hold, as the engine would.
            if self.ndcg.is_some() && !(u.exp2() - 1.0).is_finite() {
                return Err((i, BadUtility::TooLargeForNdcg));
            }
        }
        Ok(())
    }
}

/// Exposure (for the fairness metrics) and discount (for NDCG) tables, long enough for
/// the longest list.
pub struct Tables {
    /// Exposure of each rank, for DTR and EEL.
    pub exposure: Vec<f64>,
    /// Discount of each rank, for NDCG.
    pub discount: Vec<f64>,
    /// Attention of each rank, for AWRF (`1 / log2(max(r, 2))`, r from 1).
    pub attention: Vec<f64>,
}

impl Tables {
    /// Tables of `len` positions; `start` is where the exposure's rank count starts (the
    /// protocol: [`RankStart::One`]); the NDCG discount always starts at r = 0.
    pub fn new(len: usize, start: RankStart) -> Self {
        let mut t = Tables {
            exposure: vec![0.0; len],
            discount: vec![0.0; len],
            attention: vec![0.0; len],
        };
        exposure::fill(start, &mut t.exposure);
        exposure::fill(RankStart::Zero, &mut t.discount);
        Awrf::discount(&mut t.attention);
        t
    }
}

/// A built cost, borrowing the query's arrays.
pub enum Cost<'a> {
    /// DTR alone.
    Dtr(Dtr<'a>),
    /// EEL alone.
    Eel(Eel<'a>),
    /// DTR plus an NDCG term.
    DtrNdcg(Mix<Dtr<'a>, Ndcg<'a>>),
    /// EEL plus an NDCG term.
    EelNdcg(Mix<Eel<'a>, Ndcg<'a>>),
    /// Expected exposure, normalised EE-L.
    Ee(ExpectedExposure<'a, Vec<f64>>),
    /// Expected exposure plus an NDCG term.
    EeNdcg(Mix<ExpectedExposure<'a, Vec<f64>>, Ndcg<'a>>),
    /// 1 - AWRF x NDCG.
    Awrf(Awrf<'a>),
    /// 1 - AWRF x NDCG plus an NDCG@k term.
    AwrfNdcg(Mix<Awrf<'a>, Ndcg<'a>>),
}

impl<'a> Cost<'a> {
    /// The cost of a list with `utility` and `group` per item.
    ///
    /// # Errors
    /// The engine's refusal (negative utility for DTR or NDCG, more groups than the
    /// metric takes, ...).
    pub fn new(
        spec: &CostSpec,
        utility: &'a [f64],
        group: &'a [u8],
        tables: &'a Tables,
    ) -> Result<Self, ppg_core::Error> {
        let ndcg = |k: usize| Ndcg::new(utility, k, &tables.discount);
        Ok(match (spec.metric, spec.ndcg) {
            (Metric::Dtr, None) => Cost::Dtr(Dtr::new(utility, group, &tables.exposure)?),
            (Metric::Eel, None) => {
                Cost::Eel(Eel::new(utility, group, spec.levels, &tables.exposure)?)
            }
            (Metric::Dtr, Some((w, k))) => Cost::DtrNdcg(Mix::new(
                Dtr::new(utility, group, &tables.exposure)?,
                ndcg(k)?,
                w,
            )?),
            (Metric::Eel, Some((w, k))) => Cost::EelNdcg(Mix::new(
                Eel::new(utility, group, spec.levels, &tables.exposure)?,
                ndcg(k)?,
                w,
            )?),
            (Metric::Ee, None) => {
                Cost::Ee(expected_exposure(utility, group, spec.browse, spec.level)?)
            }
            (Metric::Ee, Some((w, k))) => Cost::EeNdcg(Mix::new(
                expected_exposure(utility, group, spec.browse, spec.level)?,
                ndcg(k)?,
                w,
            )?),
            (Metric::Awrf, None) => Cost::Awrf(awrf(utility, group, tables)?),
            (Metric::Awrf, Some((w, k))) => {
                Cost::AwrfNdcg(Mix::new(awrf(utility, group, tables)?, ndcg(k)?, w)?)
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
}

/// The protocol's evaluation of one query's output: fairness with the true labels (EEL
/// with 2 levels; expected exposure in the official settings; AWRF x NDCG) and NDCG@10
/// averaged over sessions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Eval {
    /// The fairness metric (DTR as the ratio).
    pub fairness: f64,
    /// NDCG@10, averaged over sessions.
    pub ndcg: f64,
}

/// Evaluates `ranking` (`sessions` blocks of item ids) with the true `label`s.
///
/// # Errors
/// The engine's refusal of the query's labels or groups.
pub fn evaluate(
    metric: Metric,
    label: &[f64],
    group: &[u8],
    ranking: &[u16],
    sessions: usize,
    tables: &Tables,
) -> Result<Eval, ppg_core::Error> {
    let fairness = match metric {
        Metric::Dtr => Dtr::new(label, group, &tables.exposure)?.ratio(ranking, sessions),
        Metric::Eel => Eel::new(label, group, 2, &tables.exposure)?.value(ranking, sessions),
        Metric::Ee => expected_exposure(label, group, Browse::OFFICIAL, Level::Group)?
            .report(ranking, sessions)
            .map_or(f64::NAN, |r| r.normalised.loss),
        Metric::Awrf => awrf(label, group, tables)?
            .report(ranking, sessions)
            .map_or(f64::NAN, |r| r.product),
    };
    let ndcg = Ndcg::new(label, 10, &tables.discount)?.value(ranking, sessions);
    Ok(Eval { fairness, ndcg })
}
