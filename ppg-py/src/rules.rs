//! The command line's input rules, called from the Python layer so that both front ends
//! refuse the same input: the rule itself lives in `ppg-host`, the library both share (ids:
//! `rerank_input`, utilities and group counts: `cost`, the starting ranking: `optimise`),
//! and this module only reports its verdict in Python's terms (an index the Python layer
//! turns into a position or an index label).

use numpy::{PyArray1, PyReadonlyArray1};
use ppg_host::cost::CostSpec;
use ppg_host::optimise::ranking_by;
use pyo3::exceptions::PyValueError;
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
    let spec = CostSpec::new(
        crate::options::fairness(fairness, "metric")?,
        1,
        ndcg.then_some((1.0, 1)),
    );
    Ok(ppg_host::cost::check_utility(&spec, utility.as_slice()?)
        .err()
        .map(|(i, why)| (i, why.to_string())))
}

/// The first id `ppg rerank` would refuse in its `column` column: `(index, why)`, or
/// `None`.
#[pyfunction]
pub fn id_refusal(column: &str, ids: Vec<String>) -> Option<(usize, String)> {
    ids.iter().enumerate().find_map(|(i, id)| {
        ppg_host::rerank_input::check_id(column, id)
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
    Ok(ppg_host::cost::max_groups(crate::options::fairness(
        metric, argument,
    )?))
}

/// The starting ranking of every query, by `ppg rerank`'s rule
/// (`ppg_host::optimise::ranking_by`: score descending in the total order of doubles, so
/// 0.0 above -0.0, ties the later row first): query `q` holds the rows
/// `offsets[q]..offsets[q + 1]` of `score`, and its ranking is returned as those row
/// numbers, queries in order.
///
/// # Errors
/// `ValueError` for offsets that do not run from 0 to the rows, or a query longer than
/// the engine takes.
#[pyfunction]
pub fn score_order<'py>(
    py: Python<'py>,
    score: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (score, offsets) = (score.as_slice()?, offsets.as_slice()?);
    let fits = offsets.first() == Some(&0)
        && offsets.last().copied() == Some(score.len() as i64)
        && offsets
            .windows(2)
            .all(|w| w[0] <= w[1] && w[1] - w[0] <= ppg_core::MAX_ITEMS as i64);
    if !fits {
        return Err(PyValueError::new_err(
            "offsets must rise from 0 to the rows, at most MAX_ITEMS apart",
        ));
    }
    let mut rows = Vec::with_capacity(score.len());
    for w in offsets.windows(2) {
        let (start, end) = (w[0] as usize, w[1] as usize);
        rows.extend(
            ranking_by(&score[start..end])
                .into_iter()
                .map(|k| (start + usize::from(k)) as i64),
        );
    }
    Ok(PyArray1::from_vec(py, rows))
}
