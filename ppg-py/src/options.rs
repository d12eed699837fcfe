//! The keyword arguments every re-ranking call shares, checked as `ppg rerank` checks its
//! flags, into the core's `CostSpec` and `Recipe`, and together into the host's one
//! request, [`RerankSpec`].

use ppg_core::objective::{Browse, Level, Measure, RankStart, MAX_LEVELS};
use ppg_core::recipe::cost::EeScore;
use ppg_core::recipe::{CostSpec, Metric, Recipe};
use ppg_core::{Gradient, SamplerMode, TrainConfig};
use ppg_host::rerank_query::{Method, RerankSpec};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The options dict built by `ppg._options` (every key present).
#[derive(Debug, Clone, FromPyObject)]
#[pyo3(from_item_all)]
pub struct Options {
    /// "eel", "dtr", "ee", "awrf", "ndcg-mix"; "callable" when a Python function is the
    /// objective.
    pub metric: String,
    pub mix_fairness: String,
    pub mix_weight: f64,
    pub ndcg_k: usize,
    pub levels: u32,
    pub rank_start: String,
    pub sessions: usize,
    pub intra: bool,
    pub initial_weight: f32,
    pub epochs: u32,
    pub batch: usize,
    pub lr: f32,
    pub patience: u32,
    pub sampler: String,
    pub gradient: String,
    pub baseline: bool,
    pub grow: bool,
    pub hold: bool,
    /// Stop training once certified against the metric's exact optimum.
    pub certify: bool,
    /// Expected exposure's browsing model: "cascade", "rbp" or "log".
    pub browse: String,
    pub browse_patience: f64,
    pub cascade_utility: f64,
    /// "group" or "item".
    pub ee_level: String,
    /// "loss", "disparity" or "relevance".
    pub ee_measure: String,
    pub ee_raw: bool,
    /// AWRF's population (`CostSpec::awrf_groups`): the number of groups of the whole
    /// input, set by the Python layer (a frame's groups, a list's ids `0..=max`) or given.
    pub awrf_groups: Option<usize>,
    /// AWRF's depth (`CostSpec::awrf_depth`): positions scored per session; `None`: all.
    pub awrf_depth: Option<usize>,
}

fn bad(argument: &str, why: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{argument}: {why}"))
}

/// EEL's grade levels, checked: the argument `levels` of every call that takes it.
///
/// # Errors
/// `ValueError` naming `levels` outside `1..=MAX_LEVELS` (the core's own refusal names no
/// argument).
pub fn levels(levels: u32) -> PyResult<u32> {
    if (1..=MAX_LEVELS).contains(&levels) {
        Ok(levels)
    } else {
        Err(bad(
            "levels",
            format!("must be in 1..={MAX_LEVELS}, got {levels}"),
        ))
    }
}

/// The fairness metric named `name`.
///
/// # Errors
/// `ValueError` naming `argument` for a name other than "eel", "dtr", "ee" and "awrf".
pub fn fairness(name: &str, argument: &str) -> PyResult<Metric> {
    match name {
        "eel" => Ok(Metric::Eel),
        "dtr" => Ok(Metric::Dtr),
        "ee" => Ok(Metric::Ee),
        "awrf" => Ok(Metric::Awrf),
        "awrf2022" => Ok(Metric::Awrf2022),
        other => Err(bad(
            argument,
            format!("unknown metric {other:?} (expected \"eel\", \"dtr\", \"ee\" or \"awrf\")"),
        )),
    }
}

impl Options {
    /// The cost to minimise; `None` for a callable objective.
    ///
    /// # Errors
    /// `ValueError` naming the argument out of range, as `ppg rerank` refuses its flags.
    pub fn spec(&self) -> PyResult<Option<CostSpec>> {
        levels(self.levels)?;
        let (metric, ndcg) = match self.metric.as_str() {
            "callable" => return Ok(None),
            "ndcg-mix" => {
                if !(self.mix_weight.is_finite() && self.mix_weight >= 0.0) {
                    return Err(bad("mix_weight", "must be finite and non-negative"));
                }
                if self.ndcg_k == 0 {
                    return Err(bad("ndcg_k", "must be at least 1"));
                }
                if self.mix_fairness == "awrf2022" {
                    return Err(bad("mix_fairness", "\"awrf2022\" is AWRF x NDCG already"));
                }
                (
                    fairness(&self.mix_fairness, "mix_fairness")?,
                    Some((self.mix_weight, self.ndcg_k)),
                )
            }
            "eel" | "dtr" | "ee" | "awrf" | "awrf2022" => (fairness(&self.metric, "metric")?, None),
            other => {
                return Err(bad(
                    "metric",
                    format!(
                        "unknown metric {other:?} (expected \"eel\", \"dtr\", \"ee\", \
                         \"awrf\", \"ndcg-mix\" or a callable)"
                    ),
                ))
            }
        };
        Ok(Some(CostSpec {
            browse: self.browse()?,
            level: match self.ee_level.as_str() {
                "group" => Level::Group,
                "item" => Level::Item,
                other => {
                    return Err(bad(
                        "ee_level",
                        format!("{other:?} is neither \"group\" nor \"item\""),
                    ))
                }
            },
            ee: EeScore {
                measure: match self.ee_measure.as_str() {
                    "loss" => Measure::Loss,
                    "disparity" => Measure::Disparity,
                    "relevance" => Measure::Relevance,
                    other => {
                        return Err(bad(
                            "ee_measure",
                            format!("{other:?} is none of \"loss\", \"disparity\", \"relevance\""),
                        ))
                    }
                },
                normalised: !self.ee_raw,
            },
            awrf_groups: self.awrf_groups,
            awrf_depth: self.awrf_depth,
            ..CostSpec::new(metric, self.levels, ndcg)
        }))
    }

    /// The request of a built-in metric with the run's `seed` (PPG search, as
    /// `ppg rerank`'s default method); `None` for a callable objective. The recipe is
    /// cost is checked first, then the recipe, then the rank start.
    ///
    /// # Errors
    /// `ValueError` naming the first argument out of range.
    pub fn rerank_spec(&self, seed: u64) -> PyResult<Option<RerankSpec>> {
        let cost = self.spec()?;
        let recipe = self.recipe()?;
        let rank_start = self.rank_start()?;
        Ok(cost.map(|cost| RerankSpec {
            cost,
            recipe,
            sessions: self.sessions,
            seed,
            method: Method::Ppg,
            rank_start,
            attributes: None,
        }))
    }

    /// Expected exposure's browsing model, checked as `ppg rerank` checks `--browse`.
    ///
    /// # Errors
    /// `ValueError` naming `browse` for an unknown model, `browse_patience` or
    /// `cascade_utility` for a value out of range.
    fn browse(&self) -> PyResult<Browse> {
        let model = match self.browse.as_str() {
            "cascade" => Browse::Cascade {
                patience: self.browse_patience,
                utility: self.cascade_utility,
            },
            "rbp" => Browse::Rbp {
                patience: self.browse_patience,
            },
            "log" => Browse::Log(self.rank_start()?),
            "cascade-relevant" => Browse::CascadeRelevant {
                patience: self.browse_patience,
                utility: self.cascade_utility,
            },
            other => {
                return Err(bad(
                    "browse",
                    format!(
                        "{other:?} is none of \"cascade\", \"rbp\", \"log\", \
                         \"cascade-relevant\""
                    ),
                ))
            }
        };
        // The patience alone first, so that the message names the argument out of range.
        let patience = Browse::Rbp {
            patience: self.browse_patience,
        };
        let argument = match patience.checked() {
            Ok(_) => "cascade_utility",
            Err(_) => "browse_patience",
        };
        model.checked().map_err(|e| bad(argument, e))
    }

    /// Where the exposure's rank count starts.
    ///
    /// # Errors
    /// `ValueError` for a name other than "one" and "zero".
    pub fn rank_start(&self) -> PyResult<RankStart> {
        Self::rank_start_named(&self.rank_start)
    }

    /// The rank start named `name` ("one" or "zero").
    ///
    /// # Errors
    /// `ValueError` naming `rank_start` for another name.
    pub fn rank_start_named(name: &str) -> PyResult<RankStart> {
        match name {
            "one" => Ok(RankStart::One),
            "zero" => Ok(RankStart::Zero),
            other => Err(bad(
                "rank_start",
                format!("{other:?} is neither \"one\" nor \"zero\""),
            )),
        }
    }

    /// The training recipe of `ppg rerank` (input scored first, so never worse than it).
    ///
    /// # Errors
    /// `ValueError` naming the first argument out of range.
    pub fn recipe(&self) -> PyResult<Recipe> {
        if self.sessions == 0 {
            return Err(bad("sessions", "must be at least 1"));
        }
        let w0 = self.initial_weight;
        if !(w0 > 0.0 && w0 < 1.0) {
            return Err(bad("initial_weight", "must be in (0, 1)"));
        }
        if self.batch == 0 {
            return Err(bad("batch", "must be at least 1"));
        }
        let train = TrainConfig {
            learning_rate: learning_rate(self.lr)?,
            epochs: self.epochs,
            batch: self.batch,
            patience: self.patience,
            sampler: sampler(&self.sampler)?,
            gradient: gradient(&self.gradient)?,
            baseline: self.baseline,
            score_input: true,
            grow: self.grow,
            certify: self.certify.then_some(ppg_core::recipe::CERTIFY_TOLERANCE),
            ..TrainConfig::default()
        };
        train.check(train.batch).map_err(|e| bad("recipe", e))?;
        Ok(Recipe {
            train,
            intra: self.intra,
            hold: self.hold,
            initial_weight: w0,
        })
    }
}

/// The sampler named `name` ("uncorrected" or "corrected").
///
/// # Errors
/// `ValueError` naming `sampler` for another name.
pub fn sampler(name: &str) -> PyResult<SamplerMode> {
    match name {
        "uncorrected" => Ok(SamplerMode::Uncorrected),
        "corrected" => Ok(SamplerMode::Corrected),
        other => Err(bad(
            "sampler",
            format!("{other:?} is neither \"uncorrected\" nor \"corrected\""),
        )),
    }
}

/// The gradient named `name` ("approximate" or "exact").
///
/// # Errors
/// `ValueError` naming `gradient` for another name.
pub fn gradient(name: &str) -> PyResult<Gradient> {
    match name {
        "approximate" => Ok(Gradient::Approximate),
        "exact" => Ok(Gradient::Exact),
        other => Err(bad(
            "gradient",
            format!("{other:?} is neither \"approximate\" nor \"exact\""),
        )),
    }
}

/// `lr` checked as `ppg rerank` checks `--lr`.
///
/// # Errors
/// `ValueError` naming `lr` when it is not finite and non-negative.
pub fn learning_rate(lr: f32) -> PyResult<f32> {
    if lr.is_finite() && lr >= 0.0 {
        Ok(lr)
    } else {
        Err(bad("lr", format!("{lr} is not finite and non-negative")))
    }
}
