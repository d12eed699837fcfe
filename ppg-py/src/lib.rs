//! The Python extension `ppg._ppg`: numpy arrays in, numpy arrays out, over ppg-core and
//! ppg-host, the library every host front end shares.
//!
//! The Python package (`python/ppg`) checks dtypes and shapes and names the argument in
//! its errors; this crate converts, calls the same functions as the command line, and
//! turns engine refusals into `ValueError`. Modules:
//! - [`options`]: the keyword arguments shared by every re-ranking call, checked into the
//!   CLI's `CostSpec` and `PpgRecipe`;
//! - [`list`]: one list, with a built-in metric or a Python callable as the objective;
//! - [`frame`]: many queries at once, in parallel without the GIL;
//! - [`frontier`]: what fairness costs in relevance over many queries (`ppg frontier`);
//! - [`metrics`]: the protocol's EEL, DTR and NDCG of given rankings, expected exposure
//!   and AWRF;
//! - [`engine`]: the engine itself, for callers that score rankings themselves;
//! - [`qid_seed`]: the seed rule that does not depend on a query's position;
//! - [`rules`]: the command line's input rules (ids, utilities, group counts) for the
//!   Python layer's checks;
//! - [`memory`]: an engine's memory through a fallible path (`MemoryError`, not an abort);
//! - [`interrupt`]: long calls without the GIL that still stop on Ctrl-C.
#![forbid(unsafe_code)]

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

pub mod attributes;
pub mod engine;
pub mod frame;
pub mod frontier;
pub mod interrupt;
pub mod list;
pub mod memory;
pub mod metrics;
pub mod options;
pub mod qid_seed;
pub mod rules;

/// An engine refusal as the `ValueError` Python callers catch, prefixed by what was asked.
pub(crate) fn refused(what: &str, e: ppg_core::Error) -> PyErr {
    PyValueError::new_err(format!("{what}: {e}"))
}

#[pymodule]
fn _ppg(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(list::rerank_list, m)?)?;
    m.add_function(wrap_pyfunction!(frame::rerank_many, m)?)?;
    m.add_function(wrap_pyfunction!(frontier::frontier, m)?)?;
    m.add_function(wrap_pyfunction!(metrics::eel, m)?)?;
    m.add_function(wrap_pyfunction!(metrics::dtr, m)?)?;
    m.add_function(wrap_pyfunction!(metrics::ndcg, m)?)?;
    m.add_function(wrap_pyfunction!(metrics::expected_exposure, m)?)?;
    m.add_function(wrap_pyfunction!(metrics::awrf, m)?)?;
    m.add_function(wrap_pyfunction!(attributes::awrf2022, m)?)?;
    m.add_function(wrap_pyfunction!(metrics::many, m)?)?;
    m.add_function(wrap_pyfunction!(rules::check_options, m)?)?;
    m.add_function(wrap_pyfunction!(rules::utility_refusal, m)?)?;
    m.add_function(wrap_pyfunction!(rules::id_refusal, m)?)?;
    m.add_function(wrap_pyfunction!(rules::group_limit, m)?)?;
    m.add_function(wrap_pyfunction!(rules::score_order, m)?)?;
    m.add_class::<engine::Engine>()?;
    m.add("MAX_ITEMS", ppg_core::MAX_ITEMS)?;
    m.add("MAX_GROUPS", ppg_core::objective::MAX_GROUPS)?;
    // The core's names, so that the Python layer checks a name before converting arrays
    // without a list of its own.
    use ppg_core::names::{BrowseName, MetricChoice, Named};
    m.add("METRIC_NAMES", MetricChoice::NAMES.to_vec())?;
    m.add("BROWSE_NAMES", BrowseName::NAMES.to_vec())?;
    Ok(())
}
