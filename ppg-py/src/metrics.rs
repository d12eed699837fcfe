//! `ppg.metrics`: the protocol's EEL, DTR and NDCG of given rankings, computed by the
//! objectives `ppg_host::cost::evaluate` uses; [`many`] scores every query of a frame; and
//! the TREC Fair Ranking measures (expected exposure, AWRF).

use numpy::{PyArray1, PyReadonlyArray1};
use ppg_core::names::{BrowseName, NameError, Parameter};
use ppg_core::objective::{
    Awrf, AwrfCost, AwrfTarget, Eel, ExpectedExposure, Level, Measure, Ndcg, RankStart,
};
use ppg_core::recipe::AnyDtr;
use ppg_host::cost::Tables;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::options::{self, Options};
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
    let levels = options::levels(levels)?;
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
    let dtr = AnyDtr::new(utility, group.as_slice()?, &t.exposure)
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

/// Expected exposure (EE-L, EE-D, EE-R raw, then normalised) under the browsing model
/// `browse` ("cascade", "rbp", "log" or "cascade-judged"), at `level` ("group" or "item").
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn expected_exposure(
    ranking: PyReadonlyArray1<'_, u16>,
    sessions: usize,
    utility: PyReadonlyArray1<'_, f64>,
    group: PyReadonlyArray1<'_, u8>,
    browse: &str,
    patience: f64,
    cascade_utility: f64,
    level: &str,
    rank_start: &str,
) -> PyResult<[f64; 6]> {
    let (ranking, utility) = slices(&ranking, &utility)?;
    let name = options::named::<BrowseName>(browse, "browse")?;
    let start = match name {
        BrowseName::Log => Options::rank_start_named(rank_start)?,
        _ => RankStart::One,
    };
    let model = name
        .with(patience, cascade_utility, start)
        .map_err(|e| match e {
            NameError::Parameter {
                parameter: Parameter::CascadeUtility,
                why,
            } => PyValueError::new_err(format!("cascade_utility: {why}")),
            e => PyValueError::new_err(format!("patience: {e}")),
        })?;
    let level = options::named::<Level>(level, "level")?;
    let scratch = vec![0.0; ExpectedExposure::SCRATCH_PER_ITEM * utility.len()];
    let mut ee = ExpectedExposure::new(
        utility,
        group.as_slice()?,
        model,
        level,
        Measure::Loss,
        true,
        scratch,
    )
    .map_err(|e| refused("utility or groups", e))?;
    let r = ee
        .report(ranking, sessions)
        .ok_or_else(|| PyValueError::new_err("ranking: not sessions x n item ids"))?;
    Ok([
        r.raw.loss,
        r.raw.disparity,
        r.raw.relevance,
        r.normalised.loss,
        r.normalised.disparity,
        r.normalised.relevance,
    ])
}

/// AWRF, NDCG and their product averaged over sessions; the target given, or TREC 2021's
/// from `population`; the first `depth` positions of each session scored (`None`: all).
#[pyfunction]
#[pyo3(signature = (ranking, sessions, utility, group, distribution, trec, depth=None))]
#[allow(clippy::too_many_arguments)]
pub fn awrf(
    ranking: PyReadonlyArray1<'_, u16>,
    sessions: usize,
    utility: PyReadonlyArray1<'_, f64>,
    group: PyReadonlyArray1<'_, u8>,
    distribution: PyReadonlyArray1<'_, f64>,
    trec: bool,
    depth: Option<usize>,
) -> PyResult<[f64; 3]> {
    let (ranking, utility) = slices(&ranking, &utility)?;
    let distribution = distribution.as_slice()?;
    let target = if trec {
        AwrfTarget::Trec {
            population: distribution,
        }
    } else {
        AwrfTarget::Given(distribution)
    };
    let t = tables(utility.len(), "one")?;
    let awrf = Awrf::new(
        utility,
        group.as_slice()?,
        target,
        &t.attention,
        AwrfCost::Product,
    )
    .map_err(|e| refused("utility, groups or target", e))?;
    let awrf = match depth {
        Some(d) => awrf.with_depth(d).map_err(|e| refused("depth", e))?,
        None => awrf,
    };
    let r = awrf
        .report(ranking, sessions)
        .ok_or_else(|| PyValueError::new_err("ranking: not sessions x n item ids"))?;
    Ok([r.awrf, r.ndcg, r.product])
}

/// The metric named `metric` ("eel", "dtr" or "ndcg") of every query of a frame: query `q`
/// has the items `item_offsets[q]..item_offsets[q + 1]` of `utility` and `group`, and
/// `sessions[q]` rankings of them (local item ids, checked by the Python layer to be
/// permutations), laid end to end in `rankings`. `names` are the queries' ids, for
/// messages. EEL takes `levels` grades, NDCG is NDCG@`k`.
///
/// # Errors
/// `ValueError` naming the query whose utility or groups the metric refuses.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn many<'py>(
    py: Python<'py>,
    metric: &str,
    rankings: PyReadonlyArray1<'py, u16>,
    item_offsets: PyReadonlyArray1<'py, i64>,
    sessions: PyReadonlyArray1<'py, i64>,
    utility: PyReadonlyArray1<'py, f64>,
    group: PyReadonlyArray1<'py, u8>,
    names: Vec<String>,
    levels: u32,
    k: usize,
    rank_start: &str,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (rankings, offsets) = (rankings.as_slice()?, item_offsets.as_slice()?);
    let (sessions, utility, group) = (sessions.as_slice()?, utility.as_slice()?, group.as_slice()?);
    let queries = sessions.len();
    if offsets.len() != queries + 1 || names.len() != queries {
        return Err(PyValueError::new_err(
            "one offset after each query, one name per query",
        ));
    }
    let spans: Vec<(usize, usize, usize)> = offsets
        .windows(2)
        .zip(sessions)
        .map(|(w, &s)| (w[0] as usize, w[1] as usize, s as usize))
        .collect();
    let longest = spans.iter().map(|&(a, b, _)| b - a).max().unwrap_or(1);
    let total: usize = spans.iter().map(|&(a, b, s)| (b - a) * s).sum();
    if total != rankings.len() || offsets.last().copied() != Some(utility.len() as i64) {
        return Err(PyValueError::new_err("rankings and items do not add up"));
    }
    if metric == "eel" {
        options::levels(levels)?;
    }
    let t = tables(longest, rank_start)?;
    let mut values = Vec::with_capacity(queries);
    let mut at = 0;
    for (q, &(a, b, s)) in spans.iter().enumerate() {
        let (u, g) = (&utility[a..b], &group[a..b]);
        let ranking = &rankings[at..at + (b - a) * s];
        at += ranking.len();
        let refused = |e| refused(&format!("query {:?}", names[q]), e);
        values.push(match metric {
            "eel" => Eel::new(u, g, levels, &t.exposure)
                .map_err(refused)?
                .value(ranking, s),
            "dtr" => AnyDtr::new(u, g, &t.exposure)
                .map_err(refused)?
                .ratio(ranking, s),
            "ndcg" => Ndcg::new(u, k, &t.discount)
                .map_err(refused)?
                .value(ranking, s),
            other => {
                return Err(PyValueError::new_err(format!(
                    "metric: unknown metric {other:?} (expected \"eel\", \"dtr\" or \"ndcg\")"
                )))
            }
        });
    }
    Ok(PyArray1::from_vec(py, values))
}
