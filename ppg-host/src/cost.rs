//! The costs the optimisers minimise and the metrics the evaluation reports, built from
//! `ppg_core::objective`.

use ppg_core::objective::{exposure, Dtr, Eel, Mix, Ndcg, RankStart};
use ppg_core::Objective;

/// A fairness metric of the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Disparity of treatment ratio (reported as the ratio, optimised as ratio - 1).
    Dtr,
    /// Expected exposure loss.
    Eel,
}

impl Metric {
    /// The metric's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Dtr => "dtr",
            Metric::Eel => "eel",
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
        }
    }

    /// Whether the metric means anything for this query (the protocol's valid-query
    /// filter, applied to the evaluation's true labels).
    pub fn valid(self, utility: &[f64], group: &[u8]) -> bool {
        match self {
            Metric::Dtr => Dtr::valid(utility, group),
            Metric::Eel => Eel::valid(group),
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
}

impl Tables {
    /// Tables of `len` positions; `start` is where the exposure's rank count starts (the
    /// protocol: [`RankStart::One`]); the NDCG discount always starts at r = 0.
    pub fn new(len: usize, start: RankStart) -> Self {
        let mut t = Tables {
            exposure: vec![0.0; len],
            discount: vec![0.0; len],
        };
        exposure::fill(start, &mut t.exposure);
        exposure::fill(RankStart::Zero, &mut t.discount);
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
        }
    }
}

/// The protocol's evaluation of one query's output: fairness with the true labels (EEL
/// with 2 levels) and NDCG@10 averaged over sessions.
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
    };
    let ndcg = Ndcg::new(label, 10, &tables.discount)?.value(ranking, sessions);
    Ok(Eval { fairness, ndcg })
}
