//! One list: `ppg.rerank`. A built-in metric without extra constraints goes through
//! `ppg_host::rerank_query::Reranker`, as `ppg rerank` does; a Python callable or
//! forbidden pairs go through the same steps with the engine's constraint calls added.
//! A built-in metric runs without the GIL and stops on Ctrl-C ([`polling`]); a
//! callable needs the GIL for every cost and checks for signals before each.

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use ppg_core::objective::Stoppable;
use ppg_core::Recipe;
use ppg_core::{Dims, Error, Objective, Ppg};
use ppg_host::cost::Cost;
use ppg_host::optimise::{self, ranking_by};
use ppg_host::rerank_query::{self, query_seed};
use ppg_host::rerank_query::{Reranker, Rows};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::interrupt::polling;
use crate::memory;
use crate::options::Options;
use crate::refused;

/// What a list's re-ranking returns to Python: the rankings as indices into the input
/// (`sessions * n`, session after session), the input's cost and the result's.
type Outcome<'py> = (Bound<'py, PyArray1<i64>>, f64, f64);

/// Re-ranks one list. `objective` is the Python callable when `options.metric` is
/// "callable"; `forbid` holds pairs of input indices, flattened.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn rerank_list<'py>(
    py: Python<'py>,
    score: PyReadonlyArray1<'py, f64>,
    utility: PyReadonlyArray1<'py, f64>,
    group: PyReadonlyArray1<'py, u8>,
    options: Options,
    objective: Option<Bound<'py, PyAny>>,
    forbid: PyReadonlyArray1<'py, i64>,
    seed: u64,
) -> PyResult<Outcome<'py>> {
    let (score, utility, group) = (score.as_slice()?, utility.as_slice()?, group.as_slice()?);
    let n = score.len();
    if utility.len() != n || group.len() != n {
        return Err(PyValueError::new_err(
            "score, utility and groups must have the same length",
        ));
    }
    // The recipe first: a callable objective has one too, and no cost.
    let recipe = options.recipe()?;
    let reranker = options
        .rerank_spec(seed)?
        .map(|spec| Reranker::new(spec, n));
    let spec = reranker.as_ref().map(|r| &r.spec().cost);
    let sessions = options.sessions;
    let dims = Dims::new(n, sessions, recipe.train.batch);
    let mut mem = memory::engine(
        dims,
        memory::Names {
            items: "utility",
            sessions: "sessions",
            batch: "batch",
        },
    )?;
    // A list is query 0 of a one-query file: `ppg rerank` gives it the same seed.
    let qseed = query_seed(seed, 0);
    let forbid = forbid.as_slice()?;
    let (ranking, before, after) = match (&reranker, spec, objective) {
        (Some(reranker), _, None) if forbid.is_empty() => {
            let rows = Rows {
                score,
                utility,
                group,
            };
            let r = polling(py, |stop| {
                let mut engine = Ppg::new(&mut mem, dims, seed)?;
                reranker.rerank(&mut engine, &rows, qseed, stop)
            })?
            .map_err(|e| refused("rerank", e))?;
            (r.rankings, r.before, r.after)
        }
        (_, Some(spec), None) if !spec.defined(utility) => {
            let r = rerank_query::undefined(score, sessions);
            (r.rankings, r.before, r.after)
        }
        (Some(reranker), Some(spec), None) => {
            let list = List::new(score, group, forbid, sessions)?;
            let utility_s = optimise::permute(utility, &list.order);
            let view = reranker.tables().view();
            let mut scratch = ppg_host::cost::scratch(spec, utility_s.len());
            let cost = Cost::new(spec, &utility_s, &list.group, &view, &mut scratch)
                .map_err(|e| refused("utility or groups", e))?;
            let meaningful = spec.meaningful(utility, group);
            polling(py, |stop| {
                let mut engine = Ppg::new(&mut mem, dims, seed)?;
                let mut cost = Stoppable { inner: cost, stop };
                list.run(&mut engine, qseed, &recipe, &mut cost, meaningful)
            })?
            .map_err(|e| refused("rerank", e))?
        }
        (None, _, Some(callable)) => {
            let list = List::new(score, group, forbid, sessions)?;
            let mut engine = Ppg::new(&mut mem, dims, seed).map_err(|e| refused("engine", e))?;
            let mut failure = None;
            let mut cost = |ranking: &[u16], sessions: usize| -> f64 {
                if failure.is_some() {
                    return f64::NAN;
                }
                let items: Vec<i64> = ranking
                    .iter()
                    .map(|&k| i64::from(list.order[usize::from(k)]))
                    .collect();
                call_objective(py, &callable, "metric", items, sessions).unwrap_or_else(|e| {
                    failure = Some(e);
                    f64::NAN
                })
            };
            let outcome = list.run(&mut engine, qseed, &recipe, &mut cost, true);
            match (outcome, failure) {
                (_, Some(e)) => return Err(e),
                (Err(Error::NotFinite { .. }), None) => {
                    return Err(PyValueError::new_err(
                        "metric: the objective returned NaN or an infinity",
                    ))
                }
                (Err(e), None) => return Err(refused("rerank", e)),
                (Ok(outcome), None) => outcome,
            }
        }
        _ => return Err(PyValueError::new_err("metric: a name or a callable")),
    };
    let ranking: Vec<i64> = ranking.into_iter().map(i64::from).collect();
    Ok((PyArray1::from_vec(py, ranking), before, after))
}

/// One cost from a Python callable `objective` (the argument `name`) of a `(sessions, n)`
/// ranking of `items`; signals are checked first, so that Ctrl-C stops a callable written
/// in C (which never checks) as promptly as one written in Python.
///
/// # Errors
/// The signal handler's or the callable's exception; `TypeError` naming `name` when the
/// callable returns something other than a number.
pub(crate) fn call_objective(
    py: Python<'_>,
    objective: &Bound<'_, PyAny>,
    name: &str,
    items: Vec<i64>,
    sessions: usize,
) -> PyResult<f64> {
    py.check_signals()?;
    let n = items.len() / sessions;
    let value = objective.call1((PyArray1::from_vec(py, items).reshape([sessions, n])?,))?;
    value.extract::<f64>().map_err(|_| {
        let kind = value
            .get_type()
            .name()
            .map_or_else(|_| "an object".to_owned(), |t| t.to_string());
        PyTypeError::new_err(format!(
            "{name}: the objective returned {kind}, expected a number (the ranking's cost)"
        ))
    })
}

/// A list in its starting order, with its constraints in starting positions.
struct List {
    /// `order[k]`: the input index at starting position `k`.
    order: Vec<u16>,
    group: Vec<u8>,
    /// Forbidden pairs, in starting positions.
    forbid: Vec<(usize, usize)>,
    sessions: usize,
}

impl List {
    fn new(score: &[f64], group: &[u8], forbid: &[i64], sessions: usize) -> PyResult<Self> {
        let order = ranking_by(score);
        let mut position = vec![0usize; order.len()];
        for (k, &i) in order.iter().enumerate() {
            position[usize::from(i)] = k;
        }
        let at = |i: i64| {
            usize::try_from(i)
                .ok()
                .and_then(|i| position.get(i).copied())
                .ok_or_else(|| {
                    PyValueError::new_err(format!("forbid: item {i} is not in the list"))
                })
        };
        let forbid = forbid
            .chunks_exact(2)
            .map(|p| Ok((at(p[0])?, at(p[1])?)))
            .collect::<PyResult<_>>()?;
        Ok(List {
            group: optimise::permute(group, &order),
            order,
            forbid,
            sessions,
        })
    }

    /// `optimise::ppg` with the forbidden pairs: the input's cost, then the best ranking
    /// (as input indices) and its cost. Without `meaningful` the input is the answer.
    fn run(
        &self,
        engine: &mut Ppg,
        seed: u64,
        recipe: &Recipe,
        cost: &mut impl Objective,
        meaningful: bool,
    ) -> Result<(Vec<u16>, f64, f64), Error> {
        let n = self.order.len();
        engine.reseed(seed);
        engine.start(n, self.sessions, recipe.initial_weight)?;
        if recipe.intra {
            engine.keep_order_within(&self.group)?;
        } else if recipe.hold {
            engine.hold_order_within(&self.group)?;
        }
        for &(a, b) in &self.forbid {
            engine.forbid(a, b)?;
        }
        let input = engine.reference().to_vec();
        let before = cost.cost(&input, self.sessions);
        if !before.is_finite() {
            return Err(Error::NotFinite { index: 0 });
        }
        if !meaningful {
            return Ok((optimise::to_items(&input, &self.order), before, before));
        }
        engine.train(cost, &recipe.train)?;
        let (best, after) = engine.best().unwrap_or((&input, before));
        Ok((optimise::to_items(best, &self.order), before, after))
    }
}
