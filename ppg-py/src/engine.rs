//! `ppg.Engine`: the engine for callers that score rankings themselves (start, sample a
//! batch, update with its costs, best), with exact log-probabilities.
//!
//! A `Ppg` borrows its memory; `EngineCell` keeps the buffer and the engine together so
//! that Python can own both (ouroboros writes the self-borrowing struct).

use numpy::{PyArray1, PyReadonlyArray1};
use ppg_core::{Dims, Error, Ppg, TrainConfig};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::list::call_objective;
use crate::memory;
use crate::options::{gradient, learning_rate, sampler};
use crate::refused;

/// An engine with the memory it borrows.
#[ouroboros::self_referencing]
struct EngineCell {
    memory: Vec<u8>,
    #[borrows(mut memory)]
    #[not_covariant]
    engine: Ppg<'this>,
}

/// A drawn batch: the rankings, flat, and their log-probabilities.
type Batch<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<f64>>);

/// A PPG engine laid out for `items` items, `sessions` sessions and `batch` samples.
#[pyclass(module = "ppg._ppg")]
pub struct Engine {
    cell: EngineCell,
}

fn ranking_of(engine: &Ppg, ids: &[u16]) -> Vec<i64> {
    debug_assert_eq!(ids.len(), engine.items() * engine.sessions());
    ids.iter().map(|&i| i64::from(i)).collect()
}

impl Engine {
    fn with<R>(&mut self, f: impl FnOnce(&mut Ppg) -> R) -> R {
        self.cell.with_engine_mut(f)
    }
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (items, sessions = 1, batch = 16, seed = 0))]
    fn new(items: usize, sessions: usize, batch: usize, seed: u64) -> PyResult<Self> {
        let dims = Dims::new(items, sessions, batch);
        let memory = memory::engine(
            dims,
            memory::Names {
                items: "items",
                sessions: "sessions",
                batch: "batch",
            },
        )?;
        let cell = EngineCellTryBuilder {
            memory,
            engine_builder: |m: &mut Vec<u8>| Ppg::new(m, dims, seed),
        }
        .try_build()
        .map_err(|e| refused("engine", e))?;
        Ok(Engine { cell })
    }

    /// Restarts the random generator.
    fn reseed(&mut self, seed: u64) {
        self.with(|e| e.reseed(seed));
    }

    /// Starts a query; `keep_order` (group per item) and `forbid` (pairs) constrain it,
    /// `hold_order` (group per item) holds the order within groups for a first run.
    #[pyo3(signature = (items, sessions = 1, initial_weight = 0.5, keep_order = None, hold_order = None, forbid = None))]
    fn start(
        &mut self,
        items: usize,
        sessions: usize,
        initial_weight: f32,
        keep_order: Option<PyReadonlyArray1<'_, i64>>,
        hold_order: Option<PyReadonlyArray1<'_, i64>>,
        forbid: Option<PyReadonlyArray1<'_, i64>>,
    ) -> PyResult<()> {
        let keep = keep_order.as_ref().map(|a| a.as_slice()).transpose()?;
        let hold = hold_order.as_ref().map(|a| a.as_slice()).transpose()?;
        let forbid = forbid
            .as_ref()
            .map(|a| a.as_slice())
            .transpose()?
            .unwrap_or(&[]);
        let pairs: Vec<(usize, usize)> = forbid
            .chunks_exact(2)
            .map(|p| match (usize::try_from(p[0]), usize::try_from(p[1])) {
                (Ok(a), Ok(b)) => Ok((a, b)),
                _ => Err(PyValueError::new_err("forbid: item ids are non-negative")),
            })
            .collect::<PyResult<_>>()?;
        self.with(|e| -> Result<(), (&str, Error)> {
            e.start(items, sessions, initial_weight)
                .map_err(|x| ("start", x))?;
            if let Some(groups) = keep {
                e.keep_order_within(groups).map_err(|x| ("keep_order", x))?;
            }
            if let Some(groups) = hold {
                e.hold_order_within(groups).map_err(|x| ("hold_order", x))?;
            }
            for &(a, b) in &pairs {
                e.forbid(a, b).map_err(|x| ("forbid", x))?;
            }
            Ok(())
        })
        .map_err(|(what, e)| refused(what, e))
    }

    /// Items and sessions of the started query.
    #[getter]
    fn shape(&mut self) -> (usize, usize) {
        self.with(|e| (e.items(), e.sessions()))
    }

    /// Draws `count` rankings; returns them flat (`count * sessions * items`) and their
    /// log-probabilities.
    #[pyo3(signature = (count, sampler = "uncorrected"))]
    fn sample_batch<'py>(
        &mut self,
        py: Python<'py>,
        count: usize,
        sampler: &str,
    ) -> PyResult<Batch<'py>> {
        let mode = self::sampler(sampler)?;
        let (ids, log_probs) = self
            .with(|e| -> Result<_, Error> {
                let ids = e
                    .sample_batch(count, mode)?
                    .iter()
                    .map(|&i| i64::from(i))
                    .collect();
                Ok((ids, e.batch_log_probs().to_vec()))
            })
            .map_err(|e| refused("sample_batch", e))?;
        Ok((
            PyArray1::from_vec(py, ids),
            PyArray1::from_vec(py, log_probs),
        ))
    }

    /// One REINFORCE step on the pending batch with one cost per ranking.
    #[pyo3(signature = (costs, lr = 0.4, gradient = "approximate", baseline = false))]
    fn update(
        &mut self,
        costs: PyReadonlyArray1<'_, f64>,
        lr: f32,
        gradient: &str,
        baseline: bool,
    ) -> PyResult<bool> {
        let costs = costs.as_slice()?;
        let config = TrainConfig {
            learning_rate: learning_rate(lr)?,
            gradient: self::gradient(gradient)?,
            baseline,
            ..TrainConfig::default()
        };
        self.with(|e| e.update(costs, &config))
            .map_err(|e| refused("costs", e))
    }

    /// The best ranking seen (flat) and its cost, or None.
    fn best<'py>(&mut self, py: Python<'py>) -> Option<(Bound<'py, PyArray1<i64>>, f64)> {
        self.with(|e| e.best().map(|(r, c)| (ranking_of(e, r), c)))
            .map(|(r, c)| (PyArray1::from_vec(py, r), c))
    }

    /// The exact log-probability of a flat ranking under `sampler`.
    #[pyo3(signature = (ranking, sampler = "uncorrected"))]
    fn log_prob(&mut self, ranking: PyReadonlyArray1<'_, i64>, sampler: &str) -> PyResult<f64> {
        let mode = self::sampler(sampler)?;
        let ids = ranking
            .as_slice()?
            .iter()
            .map(|&i| u16::try_from(i))
            .collect::<Result<Vec<u16>, _>>()
            .map_err(|_| PyValueError::new_err("ranking: item ids are in 0..65535"))?;
        self.with(|e| e.log_prob(mode, &ids))
            .map_err(|e| refused("ranking", e))
    }

    /// Trains against a Python callable of a (sessions, items) ranking; on any error
    /// (the callable raised, or returned NaN) the engine is as before the call.
    #[pyo3(signature = (objective, epochs = 50, batch = 16, lr = 0.4, patience = 20, sampler = "uncorrected", gradient = "approximate", baseline = false, grow = false))]
    #[allow(clippy::too_many_arguments)]
    fn train(
        &mut self,
        py: Python<'_>,
        objective: Bound<'_, PyAny>,
        epochs: u32,
        batch: usize,
        lr: f32,
        patience: u32,
        sampler: &str,
        gradient: &str,
        baseline: bool,
        grow: bool,
    ) -> PyResult<(u32, f64)> {
        let config = TrainConfig {
            learning_rate: learning_rate(lr)?,
            epochs,
            batch,
            patience,
            sampler: self::sampler(sampler)?,
            gradient: self::gradient(gradient)?,
            baseline,
            grow,
            ..TrainConfig::default()
        };
        let mut failure = None;
        let mut cost = |ranking: &[u16], sessions: usize| -> f64 {
            if failure.is_some() {
                return f64::NAN;
            }
            let ids: Vec<i64> = ranking.iter().map(|&i| i64::from(i)).collect();
            call_objective(py, &objective, "objective", ids, sessions).unwrap_or_else(|e| {
                failure = Some(e);
                f64::NAN
            })
        };
        let report = self.with(|e| e.train(&mut cost, &config));
        match (report, failure) {
            (_, Some(e)) => Err(e),
            (Err(Error::NotFinite { .. }), None) => Err(PyValueError::new_err(
                "objective: returned NaN or an infinity",
            )),
            (Err(e), None) => Err(refused("train", e)),
            (Ok(r), None) => Ok((r.epochs, r.best_cost)),
        }
    }
}
