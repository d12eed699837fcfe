//! `ppg.metrics`: the protocol's EEL, DTR and NDCG of given rankings, computed by the
//! objectives `ppg_host::cost::evaluate` uses.

use numpy::PyReadonlyArray1;
use ppg_core::objective::{Dtr, Eel, Ndcg};
use ppg_host::cost::Tables;
use pyo3::prelude::*;

use crate::options::Options;
use crate::refused;

/// The arrays every metric reads: `ranking` is `sessions` blocks of item ids (indices
/// into `utility`), checked by the Python layer to be permutations.
fn slices<'a>(
    ranking: &'a PyReadonlyArray1<'_, u16>,
    utility: &'a PyReadonlyArray1<'_, f64>,
) -> PyResult<(&'a [u16], &'a [f64])> {
    Ok((ranking.as_slice()?, utility.as_slice()?))
}

fn tables(n: usize, rank_start: &str) -> PyResult<Tables> {
    let start = Options::rank_start_named(rank_start)?;
    Ok(Tables::new(n.max(1), start))
}

/// Expected exposure loss with `levels` grades.
#[pyfunction]
pub fn eel(
    ranking: PyReadonlyArray1<'_, u16>,
    sessions: usize,
    utility: PyReadonlyArray1<'_, f64>,
    group: PyReadonlyArray1<'_, u8>,
    levels: u32,
    rank_start: &str,
) -> PyResult<f64> {
    let (ranking, utility) = slices(&ranking, &utility)?;
    let t = tables(utility.len(), rank_start)?;
    let eel = Eel::new(utility, group.as_slice()?, levels, &t.exposure)
        .map_err(|e| refused("utility, groups or levels", e))?;
    Ok(eel.value(ranking, sessions))
}

/// Disparity of treatment ratio (1 is fair).
#[pyfunction]
pub fn dtr(
    ranking: PyReadonlyArray1<'_, u16>,
    sessions: usize,
    utility: PyReadonlyArray1<'_, f64>,
    group: PyReadonlyArray1<'_, u8>,
    rank_start: &str,
) -> PyResult<f64> {
    let (ranking, utility) = slices(&ranking, &utility)?;
    let t = tables(utility.len(), rank_start)?;
    let dtr = Dtr::new(utility, group.as_slice()?, &t.exposure)
        .map_err(|e| refused("utility or groups", e))?;
    Ok(dtr.ratio(ranking, sessions))
}

/// NDCG@k averaged over sessions, with the discount 1 / log2(r + 2) from r = 0.
#[pyfunction]
pub fn ndcg(
    ranking: PyReadonlyArray1<'_, u16>,
    sessions: usize,
    utility: PyReadonlyArray1<'_, f64>,
    k: usize,
) -> PyResult<f64> {
    let (ranking, utility) = slices(&ranking, &utility)?;
    let t = tables(utility.len(), "one")?;
    let ndcg = Ndcg::new(utility, k, &t.discount).map_err(|e| refused("utility or k", e))?;
    Ok(ndcg.value(ranking, sessions))
}
