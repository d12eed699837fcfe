//! TREC 2022's AWRF from Python (`metric="awrf2022"`, `ppg.metrics.awrf2022`): the
//! attribute spec read from the texts the Python layer makes of its arguments (a path's
//! contents, a frame's rows as `item attribute level weight` lines) by the host's reader,
//! the one `ppg rerank --attributes` uses, so that the same data give the same spec.

use ppg_host::attributes::{read_spec, AttributeSpec, SpecInput};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The texts of the table, the background, the given target, and the unknown policies
/// as `(attribute, policy)` pairs.
pub type Texts = (
    String,
    Option<String>,
    Option<String>,
    Vec<(String, String)>,
);

/// The spec of `texts`.
///
/// # Errors
/// `ValueError` naming the argument at fault (`attributes`, `attribute_background`,
/// `attribute_target`, `attribute_unknown`) and the line.
pub fn spec(texts: &Texts) -> PyResult<AttributeSpec> {
    let (table, background, target, unknown) = texts;
    read_spec(
        table.as_bytes(),
        background.as_deref().map(str::as_bytes),
        target.as_deref().map(str::as_bytes),
        unknown,
    )
    .map_err(|(input, (line, why))| {
        let argument = match input {
            SpecInput::Table => "attributes",
            SpecInput::Background => "attribute_background",
            SpecInput::Target => "attribute_target",
            SpecInput::Unknown => "attribute_unknown",
            SpecInput::Spec if target.is_some() => "attribute_target",
            SpecInput::Spec if background.is_some() => "attribute_background",
            SpecInput::Spec => "attributes",
        };
        let at = if line > 0 {
            format!("line {line}: ")
        } else {
            String::new()
        };
        PyValueError::new_err(format!("{argument}: {at}{why}"))
    })
}

/// TREC 2022's AWRF, NDCG and their product of `ranking` (`sessions` rankings of the
/// ids `0..n`, end to end) over the list of `items` with `utility`.
///
/// # Errors
/// `ValueError` naming the argument at fault.
#[pyfunction]
pub fn awrf2022(
    ranking: Vec<u16>,
    sessions: usize,
    utility: Vec<f64>,
    items: Vec<String>,
    attributes: Texts,
) -> PyResult<[f64; 3]> {
    let spec = spec(&attributes)?;
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let r = ppg_host::rerank_attributes::score(&spec, &items, &utility, &ranking, sessions)
        .map_err(|why| PyValueError::new_err(format!("items, utility or ranking: {why}")))?;
    Ok([r.awrf, r.ndcg, r.product])
}
