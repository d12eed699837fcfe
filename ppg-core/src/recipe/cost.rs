//! The costs a re-ranking minimises, built from the metrics of [`crate::objective`] by name:
//! the fairness metric of the protocol, optionally mixed with an NDCG term.

use crate::objective::{Dtr, Eel, LowerBound, Mix, Ndcg};
use crate::{Error, Objective};

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

    /// Whether the metric means anything for this query (the protocol's valid-query
    /// filter).
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

impl CostSpec {
    /// Whether the cost has anything to optimise for a query with `utility` and `group`
    /// per item: an NDCG term always does; a fairness metric alone only where it means
    /// something ([`Metric::valid`]).
    pub fn meaningful(&self, utility: &[f64], group: &[u8]) -> bool {
        self.ndcg.is_some() || self.metric.valid(utility, group)
    }
}

/// The exposure of each rank (for DTR and EEL) and the discount of each rank (for NDCG),
/// at least as long as the list.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tables<'t> {
    /// Exposure of each rank, for DTR and EEL (see [`crate::objective::exposure`]).
    pub exposure: &'t [f64],
    /// Discount of each rank, for NDCG (from rank 0).
    pub discount: &'t [f64],
}

/// A built cost, borrowing the query's arrays.
#[derive(Debug, Clone, Copy, PartialEq)]
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
    /// The metrics' refusal (negative utility for DTR or NDCG, more groups than the
    /// metric takes, tables shorter than the list, ...).
    pub fn new(
        spec: &CostSpec,
        utility: &'a [f64],
        group: &'a [u8],
        tables: &Tables<'a>,
    ) -> Result<Self, Error> {
        let ndcg = |k: usize| Ndcg::new(utility, k, tables.discount);
        Ok(match (spec.metric, spec.ndcg) {
            (Metric::Dtr, None) => Cost::Dtr(Dtr::new(utility, group, tables.exposure)?),
            (Metric::Eel, None) => {
                Cost::Eel(Eel::new(utility, group, spec.levels, tables.exposure)?)
            }
            (Metric::Dtr, Some((w, k))) => Cost::DtrNdcg(Mix::new(
                Dtr::new(utility, group, tables.exposure)?,
                ndcg(k)?,
                w,
            )?),
            (Metric::Eel, Some((w, k))) => Cost::EelNdcg(Mix::new(
                Eel::new(utility, group, spec.levels, tables.exposure)?,
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

    /// DTR's and EEL's exact optimum; a mix gives none.
    fn lower_bound(&self, sessions: usize, work: &mut [f64]) -> Option<LowerBound> {
        match self {
            Cost::Dtr(c) => c.lower_bound(sessions, work),
            Cost::Eel(c) => c.lower_bound(sessions, work),
            Cost::DtrNdcg(_) | Cost::EelNdcg(_) => None,
        }
    }
}
