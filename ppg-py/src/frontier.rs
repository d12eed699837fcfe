//! `ppg.frontier`: what fairness costs in relevance over a frame's queries, the numbers of
//! `ppg frontier`'s table (both run `ppg_host::frontier::Run`). The pool works while the
//! calling thread watches for Ctrl-C ([`interruptible`]).

use numpy::PyReadonlyArray1;
use ppg_host::cost::Metric;
use ppg_host::frontier::{Config, Run};
use ppg_host::protocol::Utility;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::interrupt::interruptible;

/// One row of the table: level (`None` without a constraint), mean fairness cap, mean best
/// NDCG@k, mean bound, queries whose best is exact.
type Row = (Option<f64>, f64, f64, f64, usize);

/// What [`frontier`] returns: the valid queries, the rows, and (fairness, NDCG@k) of the
/// input ranking and of the default recipe.
type Table = (usize, Vec<Row>, (f64, f64), (f64, f64));

/// The frontier of the queries whose rows are `offsets[q]..offsets[q + 1]` of `label`,
/// `ltr` and `group` (0 or 1), in that order (the recipe's seeds are by that position).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn frontier(
    py: Python<'_>,
    label: PyReadonlyArray1<'_, f64>,
    ltr: PyReadonlyArray1<'_, f64>,
    group: PyReadonlyArray1<'_, u8>,
    offsets: PyReadonlyArray1<'_, i64>,
    metric: &str,
    sessions: usize,
    levels: usize,
    k: usize,
    utility: &str,
    seed: u64,
    budget: u64,
    threads: usize,
) -> PyResult<Table> {
    let (label, ltr, group) = (label.as_slice()?, ltr.as_slice()?, group.as_slice()?);
    let offsets = offsets.as_slice()?;
    let n = label.len();
    if ltr.len() != n || group.len() != n {
        return Err(PyValueError::new_err(
            "label, score and group must have the same length",
        ));
    }
    if offsets.first() != Some(&0)
        || offsets.last() != Some(&(n as i64))
        || offsets.windows(2).any(|w| w[1] < w[0])
    {
        return Err(PyValueError::new_err(
            "offsets must rise from 0 to the number of rows",
        ));
    }
    let metric = match metric {
        "dtr" => Metric::Dtr,
        "eel" => Metric::Eel,
        other => {
            return Err(PyValueError::new_err(format!(
                "metric: {other:?}: the frontier covers the two-group \"dtr\" and \"eel\" only"
            )))
        }
    };
    let utility = match utility {
        "label" => Utility::Label,
        "score" => Utility::Ltr,
        other => {
            return Err(PyValueError::new_err(format!(
                "utility: {other:?}: expected \"label\" or \"score\""
            )))
        }
    };
    let config = Config {
        metric,
        sessions,
        levels,
        k,
        utility,
        seed,
        budget,
        threads,
    };
    config
        .check()
        .map_err(|(arg, why)| PyValueError::new_err(format!("{arg}: {why}")))?;
    let frontier = interruptible(py, |stop| {
        let mut run = Run::new(config, stop)?;
        for w in offsets.windows(2) {
            let r = w[0] as usize..w[1] as usize;
            run.push(&label[r.clone()], &ltr[r.clone()], &group[r])?;
        }
        run.finish()
    })?
    .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let rows = frontier
        .rows
        .iter()
        .map(|r| (r.level, r.fairness, r.ndcg, r.bound, r.exact))
        .collect();
    Ok((frontier.queries, rows, frontier.input, frontier.recipe))
}
