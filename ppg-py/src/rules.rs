//! The command line's input rules, called from the Python layer so that both front ends
//! refuse the same input: the rule itself lives in `ppg-cli` (ids: `rerank_input`,
//! utilities and group counts: `cost`), and this module only reports its verdict in
//! Python's terms (an index the Python layer turns into a position or an index label).

use numpy::PyReadonlyArray1;
use ppg_cli::cost::CostSpec;
use pyo3::prelude::*;

use crate::options::Options;

/// Checks every option on its own, before any data is read: what a job that runs
/// elsewhere (Spark's executors) must know on the driver.
///
/// # Errors
/// `ValueError` naming the first bad option.
#[pyfunction]
pub fn check_options(options: Options) -> PyResult<()> {
    options.spec()?;
    options.recipe()?;
    options.rank_start()?;
    Ok(())
}

/// The first utility `ppg rerank` would refuse for the fairness metric named `fairness`
/// (with an NDCG term when `ndcg`), as it refuses its label: `(index, why)`, or `None`.
///
/// # Errors
/// `ValueError` naming `metric` for an unknown fairness metric.
#[pyfunction]
pub fn utility_refusal(
    fairness: &str,
    ndcg: bool,
    utility: PyReadonlyArray1<'_, f64>,
) -> PyResult<Option<(usize, String)>> {
    let spec = CostSpec {
        metric: crate::options::fairness(fairness, "metric")?,
        levels: 1,
        ndcg: ndcg.then_some((1.0, 1)),
    };
    Ok(spec
        .check_utility(utility.as_slice()?)
        .err()
        .map(|(i, why)| (i, why.to_string())))
}

/// The first id `ppg rerank` would refuse in its `column` column: `(index, why)`, or
/// `None`.
#[pyfunction]
pub fn id_refusal(column: &str, ids: Vec<String>) -> Option<(usize, String)> {
    ids.iter().enumerate().find_map(|(i, id)| {
        ppg_cli::rerank_input::check_id(column, id)
            .err()
            .map(|why| (i, why))
    })
}

/// How many groups the named fairness metric takes, and why.
///
/// # Errors
/// `ValueError` naming `argument` for an unknown metric.
#[pyfunction]
pub fn group_limit(metric: &str, argument: &str) -> PyResult<(usize, &'static str)> {
    Ok(crate::options::fairness(metric, argument)?.max_groups())
}
