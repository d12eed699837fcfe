//! The costs the optimisers minimise (the core's, `ppg_core::recipe::cost`), the tables
//! they read, and the metrics the evaluation reports.

use ppg_core::objective::{
    exposure, Awrf, Browse, Dtr, DtrGroups, Eel, ExpectedExposure, Level, Ndcg, RankStart,
};
use ppg_core::recipe::cost::EeScore;

pub use ppg_core::recipe::{Cost, CostSpec, Metric};

/// How many groups `metric` tells apart, and why, for the message that refuses one more:
/// the rule `ppg rerank`'s reader and the Python package apply.
pub fn max_groups(metric: Metric) -> (usize, &'static str) {
    match metric {
        Metric::Dtr => (
            ppg_core::objective::MAX_GROUPS,
            "DTR takes at most 16 groups",
        ),
        Metric::Eel => (
            ppg_core::objective::MAX_GROUPS,
            "EEL takes at most 16 groups",
        ),
        Metric::Ee | Metric::Awrf => (
            ppg_core::objective::MAX_GROUPS,
            "expected exposure and AWRF take at most 16 groups",
        ),
        // Its attributes come from --attributes; a group column is read but not scored.
        Metric::Awrf2022 => (
            ppg_core::objective::MAX_GROUPS,
            "a file takes at most 16 groups",
        ),
    }
}

/// The scratch [`Cost::new`] needs for a list of `n` items under `spec` (empty but for
/// expected exposure).
pub fn scratch(spec: &CostSpec, n: usize) -> Vec<f64> {
    vec![0.0; scratch_len(spec, n)]
}

/// The length of [`scratch`].
pub fn scratch_len(spec: &CostSpec, n: usize) -> usize {
    match spec.metric {
        Metric::Ee => ppg_core::recipe::cost::SCRATCH_PER_ITEM * n,
        Metric::Dtr | Metric::Eel | Metric::Awrf | Metric::Awrf2022 => 0,
    }
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

/// The first utility `spec` refuses, with its index: a negative one for every metric,
/// one whose NDCG gain overflows when the cost has an NDCG term.
///
/// # Errors
/// The index of the first refused value and why.
pub fn check_utility(spec: &CostSpec, utility: &[f64]) -> Result<(), (usize, BadUtility)> {
    for (i, &u) in utility.iter().enumerate() {
        if u < 0.0 {
            return Err((i, BadUtility::Negative));
        }
        // NDCG's gain is 2^u - 1: refuse what it cannot hold, as the engine would.
        if spec.ndcg.is_some() && !(u.exp2() - 1.0).is_finite() {
            return Err((i, BadUtility::TooLargeForNdcg));
        }
    }
    Ok(())
}

/// Exposure (for the fairness metrics) and discount (for NDCG) tables, long enough for
/// the longest list.
#[derive(Debug)]
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

    /// The tables as the core's costs read them.
    pub fn view(&self) -> ppg_core::recipe::Tables<'_> {
        ppg_core::recipe::Tables {
            exposure: &self.exposure,
            discount: &self.discount,
            attention: &self.attention,
        }
    }
}

/// The protocol's groups (`L` and `H`): AWRF's population in [`evaluate`].
pub const PROTOCOL_GROUPS: usize = 2;

/// The protocol's evaluation of one query's output: fairness with the true labels (EEL
/// with 2 levels; expected exposure at group level under `d943b3e`'s cascade
/// ([`Browse::D943B3E`], which docs/results.md published), the number a run chose, EE-L
/// normalised officially; AWRF x NDCG) and NDCG@10 averaged over sessions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Eval {
    /// The fairness metric (DTR as the ratio).
    pub fairness: f64,
    /// NDCG@10, averaged over sessions.
    pub ndcg: f64,
}

/// Evaluates `ranking` (`sessions` blocks of item ids) with the true `label`s; `ee` is the
/// number expected exposure reports (as the evaluator gives it: EE-R higher is better).
///
/// # Errors
/// The engine's refusal of the query's labels or groups.
pub fn evaluate(
    metric: Metric,
    ee: EeScore,
    label: &[f64],
    group: &[u8],
    ranking: &[u16],
    sessions: usize,
    tables: &Tables,
) -> Result<Eval, ppg_core::Error> {
    let fairness = match metric {
        Metric::Dtr if group.iter().all(|&g| g <= 1) => {
            Dtr::new(label, group, &tables.exposure)?.ratio(ranking, sessions)
        }
        Metric::Dtr => DtrGroups::new(label, group, &tables.exposure)?.ratio(ranking, sessions),
        Metric::Eel => Eel::new(label, group, 2, &tables.exposure)?.value(ranking, sessions),
        Metric::Ee => ExpectedExposure::new(
            label,
            group,
            Browse::D943B3E,
            Level::Group,
            ee.measure,
            ee.normalised,
            vec![0.0; ExpectedExposure::SCRATCH_PER_ITEM * label.len()],
        )?
        .report(ranking, sessions)
        .map_or(f64::NAN, |r| ee.of(&r)),
        // The protocol's two groups are the population of every query, one-group queries
        // included, as TREC 2021 scored a query over every region (issue 38, point 8).
        Metric::Awrf => {
            ppg_core::recipe::cost::awrf(label, group, &tables.attention, Some(PROTOCOL_GROUPS))?
                .report(ranking, sessions)
                .map_or(f64::NAN, |r| r.product)
        }
        // The protocol's data carry no attributes.
        Metric::Awrf2022 => f64::NAN,
    };
    let ndcg = Ndcg::new(label, 10, &tables.discount)?.value(ranking, sessions);
    Ok(Eval { fairness, ndcg })
}
