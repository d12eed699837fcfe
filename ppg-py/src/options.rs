//! The keyword arguments every re-ranking call shares, checked as `ppg rerank` checks its
//! flags, into the core's `CostSpec` and `Recipe`, and together into the host's one
//! request, [`RerankSpec`].

use ppg_core::names::{self, BrowseName, MetricChoice, Mixable, NameError, Named, Parameter};
use ppg_core::objective::{Browse, RankStart, MAX_LEVELS};
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
    /// Expected exposure's browsing model: "cascade", "rbp", "log" or "cascade-judged".
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

/// The value named `name` (the core's names), as the argument `argument`.
///
/// # Errors
/// `ValueError` naming `argument` for a name the core does not know.
pub fn named<T: Named>(name: &str, argument: &str) -> PyResult<T> {
    names::parse(name).map_err(|e| bad(argument, format!("{e}: {name:?}")))
}

/// The core's refusal of a named choice's parameter, naming the keyword argument.
pub fn refused(e: NameError) -> PyErr {
    match e {
        NameError::Parameter { parameter, why } => bad(
            match parameter {
                Parameter::Patience => "browse_patience",
                Parameter::CascadeUtility => "cascade_utility",
                Parameter::MixWeight => "mix_weight",
                Parameter::NdcgK => "ndcg_k",
            },
            why,
        ),
        // Names are parsed by `named`, which names the argument.
        NameError::Unknown { .. } => PyValueError::new_err(e.to_string()),
    }
}

/// The fairness metric named `name` (any of the core's [`Metric`] names; the mix's own
/// fairness is read as a [`Mixable`] by [`Options::spec`]).
///
/// # Errors
/// `ValueError` naming `argument` for a name that is not a fairness metric's.
pub fn fairness(name: &str, argument: &str) -> PyResult<Metric> {
    named::<Metric>(name, argument)
}

impl Options {
    /// The cost to minimise; `None` for a callable objective.
    ///
    /// # Errors
    /// `ValueError` naming the argument out of range, as `ppg rerank` refuses its flags.
    pub fn spec(&self) -> PyResult<Option<CostSpec>> {
        levels(self.levels)?;
        if self.metric == "callable" {
            return Ok(None);
        }
        let choice = named::<MetricChoice>(&self.metric, "metric")
            .map_err(|e| bad("metric", format!("{e} or a callable")))?;
        // The mix's fairness is read only for the mix, as `ppg rerank` reads --mix-fairness.
        let mix = match choice {
            MetricChoice::NdcgMix => named::<Mixable>(&self.mix_fairness, "mix_fairness")?,
            MetricChoice::Fairness(metric) => Mixable(metric),
        };
        let (metric, ndcg) = choice
            .cost(mix, self.mix_weight, self.ndcg_k)
            .map_err(refused)?;
        Ok(Some(CostSpec {
            browse: self.browse()?,
            level: named(&self.ee_level, "ee_level")?,
            ee: EeScore {
                measure: named(&self.ee_measure, "ee_measure")?,
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
        let name = named::<BrowseName>(&self.browse, "browse")?;
        // The rank start only where the model reads it, so that it is refused only there.
        let start = match name {
            BrowseName::Log => self.rank_start()?,
            _ => RankStart::One,
        };
        name.with(self.browse_patience, self.cascade_utility, start)
            .map_err(refused)
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
        named(name, "rank_start")
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
    named(name, "sampler")
}

/// The gradient named `name` ("approximate" or "exact").
///
/// # Errors
/// `ValueError` naming `gradient` for another name.
pub fn gradient(name: &str) -> PyResult<Gradient> {
    named(name, "gradient")
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
