//! Many queries at once (`ppg.rerank_frame`, the Spark job): rows grouped by query, one
//! engine per worker thread, the GIL released. Each query runs the core's recipe
//! (`ppg_core::Ppg::rerank`), the function behind `ppg rerank` and `ppg_engine_rerank`, with
//! a seed fixed by the query alone, so the output does not depend on the thread count. The
//! pool works while the calling thread watches for Ctrl-C ([`interruptible`]), which stops
//! every worker at its next cost.

use numpy::{PyArray1, PyReadonlyArray1};
use ppg_core::recipe::relevance::NDCG_CUTOFF;
use ppg_core::recipe::Relevance;
use ppg_core::{Ppg, MAX_ITEMS};
use ppg_host::attributes::AttributeSpec;
use ppg_host::cost::Metric;
use ppg_host::rerank_attributes::rerank_on;
use ppg_host::rerank_query::Reranked;
use ppg_host::rerank_query::{Failure, RerankSpec, Reranker, Rows};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::interrupt::{interruptible, stopped};
use crate::memory;
use crate::options::Options;
use crate::qid_seed;

/// One query's answer and its relevance certificate (none for a query passed through).
type Done = (Reranked, Option<Relevance>);

/// Queries per engine layout.
const CHUNK: usize = 64;

/// What the many-query call returns: for every query its rankings as row numbers of the
/// grouped input (`sessions * n` each, queries in order), and per query the cost before
/// and after, whether it is certified and its gap (NaN without a bound), and the
/// relevance certificate: NDCG@10 of the utility, its bound and the gap (NaN for a query
/// passed through).
type Outcome<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<f64>>,
    [Bound<'py, PyArray1<f64>>; 3],
);

/// Re-ranks the queries whose rows are `offsets[q]..offsets[q + 1]` of the other arrays.
/// `names` are the queries' ids as text (messages, and seeds when `seed_by_qid`).
/// `threads` 0 is one per core; more than the machine runs at once is capped to that, and
/// to what the memory budget holds engines for (`worker_count`).
/// With `metric="awrf2022"`, `items` names every row in `attributes`' table (the
/// texts of [`crate::attributes::Texts`]).
#[pyfunction]
#[pyo3(signature = (score, utility, group, offsets, names, options, seed, seed_by_qid, threads, items=None, attributes=None))]
#[allow(clippy::too_many_arguments)]
pub fn rerank_many<'py>(
    py: Python<'py>,
    score: PyReadonlyArray1<'py, f64>,
    utility: PyReadonlyArray1<'py, f64>,
    group: PyReadonlyArray1<'py, u8>,
    offsets: PyReadonlyArray1<'py, i64>,
    names: Vec<String>,
    options: Options,
    seed: u64,
    seed_by_qid: bool,
    threads: usize,
    items: Option<Vec<String>>,
    attributes: Option<crate::attributes::Texts>,
) -> PyResult<Outcome<'py>> {
    let (score, utility, group) = (score.as_slice()?, utility.as_slice()?, group.as_slice()?);
    let spans = spans(offsets.as_slice()?, score.len(), &names)?;
    if utility.len() != score.len() || group.len() != score.len() {
        return Err(PyValueError::new_err(
            "score, utility and group must have the same length",
        ));
    }
    let spec = options
        .rerank_spec(seed)?
        .ok_or_else(|| PyValueError::new_err("metric: rerank_frame takes a metric name"))?;
    let spec = RerankSpec {
        attributes: attribute_spec(&spec, attributes.as_ref(), items.as_ref(), score.len())?,
        ..spec
    };
    let items: Vec<&str> = items.iter().flatten().map(String::as_str).collect();
    let sessions = spec.sessions;
    let longest = spans.iter().map(|r| r.len()).max().unwrap_or(1);
    let reranker = Reranker::new(spec, longest);
    let dims = reranker.dims(longest);
    let bytes = memory::check(
        dims,
        memory::Names {
            items: "qid",
            sessions: "sessions",
            batch: "batch",
        },
    )?;
    let seeds: Vec<u64> = (0..spans.len())
        .map(|q| match seed_by_qid {
            true => qid_seed::of(seed, &names[q]),
            false => reranker.seed(q),
        })
        .collect();
    let workers = worker_count(threads, spans.len().div_ceil(CHUNK), bytes);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .map_err(|e| PyValueError::new_err(format!("threads: {e}")))?;
    // Queries in chunks, one engine per chunk: an engine borrows its memory, so it
    // cannot outlive a closure call; a chunk amortises its layout over many queries.
    let run = |stop: &AtomicBool| -> Result<Vec<Done>, (usize, String)> {
        pool.install(|| {
            let chunks: Vec<Vec<Done>> = (0..spans.len())
                .collect::<Vec<_>>()
                .par_chunks(CHUNK)
                .map(|queries| {
                    let mut mem = memory::allocate(bytes).map_err(|e| (queries[0], e))?;
                    let mut engine =
                        Ppg::new(&mut mem, dims, seed).map_err(|e| (queries[0], e.to_string()))?;
                    queries
                        .iter()
                        .map(|&q| {
                            if stopped(stop) {
                                return Err((q, "interrupted".to_owned()));
                            }
                            let r = spans[q].clone();
                            let rows = Rows {
                                score: &score[r.clone()],
                                utility: &utility[r.clone()],
                                group: &group[r],
                            };
                            let reranked = if reranker.spec().attributes.is_some() {
                                let needs = reranker.needs_engine(&rows);
                                rerank_on(
                                    needs.then_some(&mut engine),
                                    &reranker,
                                    &rows,
                                    &items[spans[q].clone()],
                                    seeds[q],
                                )
                                .map_err(|e| (q, failure(e)))?
                            } else {
                                reranker
                                    .rerank(&mut engine, &rows, seeds[q], &|| stopped(stop))
                                    .map_err(|e| (q, e.to_string()))?
                            };
                            // As `ppg rerank --report`: of the utility, at NDCG@10.
                            let relevance = reranker
                                .relevance(&rows, rows.utility, &reranked, NDCG_CUTOFF)
                                .ok()
                                .filter(|_| rows.score.len() > 1 && !reranked.is_undefined());
                            Ok((reranked, relevance))
                        })
                        .collect()
                })
                .collect::<Result<_, _>>()?;
            Ok(chunks.into_iter().flatten().collect())
        })
    };
    let results = interruptible(py, run)?
        .map_err(|(q, e)| PyValueError::new_err(format!("query {:?}: {e}", names[q])))?;
    let mut rows = Vec::with_capacity(score.len() * sessions);
    for ((r, _), span) in results.iter().zip(&spans) {
        rows.extend(
            r.rankings
                .iter()
                .map(|&k| (span.start + usize::from(k)) as i64),
        );
    }
    let before = results.iter().map(|r| r.0.before).collect();
    let after = results.iter().map(|r| r.0.after).collect();
    let certified = results.iter().map(|r| r.0.certified).collect();
    let gap = results
        .iter()
        .map(|r| r.0.gap().unwrap_or(f64::NAN))
        .collect();
    let relevance = |f: fn(&Relevance) -> f64| {
        let values = results.iter().map(|r| r.1.as_ref().map_or(f64::NAN, f));
        PyArray1::from_vec(py, values.collect())
    };
    Ok((
        PyArray1::from_vec(py, rows),
        PyArray1::from_vec(py, before),
        PyArray1::from_vec(py, after),
        PyArray1::from_vec(py, certified),
        PyArray1::from_vec(py, gap),
        [
            relevance(|v| v.ndcg),
            relevance(|v| v.bound),
            relevance(Relevance::gap),
        ],
    ))
}

/// The request's attribute spec: `attributes` read ([`crate::attributes::spec`]) for
/// `metric="awrf2022"` with an item name per row, refused for another metric.
///
/// # Errors
/// `ValueError` naming `attributes` (missing, or given for another metric), `item` (not
/// one name per row) or the argument the reader names.
fn attribute_spec(
    spec: &RerankSpec,
    attributes: Option<&crate::attributes::Texts>,
    items: Option<&Vec<String>>,
    rows: usize,
) -> PyResult<Option<Arc<AttributeSpec>>> {
    let wanted = spec.cost.metric == Metric::Awrf2022;
    match attributes {
        None if wanted => Err(PyValueError::new_err(
            "attributes: metric \"awrf2022\" needs the items' attributes",
        )),
        None => Ok(None),
        Some(_) if !wanted => Err(PyValueError::new_err(
            "attributes: only metric \"awrf2022\" reads attributes",
        )),
        Some(_) if items.map(Vec::len) != Some(rows) => Err(PyValueError::new_err(
            "item: metric \"awrf2022\" needs an item name per row",
        )),
        Some(texts) => Ok(Some(Arc::new(crate::attributes::spec(texts)?))),
    }
}

/// A failure of a query under AWRF 2022, as a message.
fn failure(e: Failure) -> String {
    match e {
        Failure::Exact(why) => why,
        Failure::Allocation { bytes, error } => format!("cannot allocate {bytes} bytes: {error}"),
        Failure::Engine(e) | Failure::Core(e) => e.to_string(),
    }
}

/// The pool's size for `requested` threads (0: one per core) over `chunks` chunks of
/// queries, each engine `bytes` large: never more than the machine runs at once (the work
/// is all computation, so more threads only take turns; a request of a million would
/// start a million OS threads), than there are chunks, nor than the memory budget holds
/// engines for.
fn worker_count(requested: usize, chunks: usize, bytes: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let engines = (memory::limit() / bytes.max(1)).max(1);
    let wanted = if requested == 0 { cores } else { requested };
    wanted.min(cores).min(chunks.max(1)).min(engines)
}

/// The row ranges of the queries, checked: increasing offsets from 0 to `rows`, one name
/// per query, 1 to `MAX_ITEMS` rows each (as `ppg rerank` requires; a query of one row is
/// passed through).
fn spans(offsets: &[i64], rows: usize, names: &[String]) -> PyResult<Vec<std::ops::Range<usize>>> {
    let bad = |why: String| PyValueError::new_err(why);
    if offsets.first() != Some(&0) || offsets.last().copied() != Some(rows as i64) {
        return Err(bad(format!("offsets must run from 0 to {rows}")));
    }
    if names.len() + 1 != offsets.len() {
        return Err(bad("one name per query".into()));
    }
    offsets
        .windows(2)
        .zip(names)
        .map(|(w, name)| {
            let len = w[1] - w[0];
            if len < 1 {
                return Err(bad(format!("qid: query {name:?} has no rows")));
            }
            if len as usize > MAX_ITEMS {
                return Err(bad(format!(
                    "qid: query {name:?} has {len} items, more than the {MAX_ITEMS} the \
                     engine takes"
                )));
            }
            Ok(w[0] as usize..w[1] as usize)
        })
        .collect()
}
