//! The costs the optimisers minimise (the core's, `ppg_core::recipe::cost`), the tables
//! they read, and the metrics the evaluation reports.

use ppg_core::objective::{exposure, Dtr, Eel, Ndcg, RankStart};

pub use ppg_core::recipe::{Cost, CostSpec, Metric};

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

    /// The tables as the core's costs read them.
    pub fn view(&self) -> ppg_core::recipe::Tables<'_> {
        ppg_core::recipe::Tables {
            exposure: &self.exposure,
            discount: &self.discount,
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
