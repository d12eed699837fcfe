//! The plain C types of the API and their conversion into the core's types.
//!
//! Enumerations cross the boundary as `uint32_t` and are converted here, so that a value
//! outside the enumeration is `PPG_STATUS_INVALID_ARGUMENT` rather than undefined
//! behaviour (a Rust enum must never hold an undeclared value).

#![allow(non_camel_case_types)]

use crate::status::{ppg_status, Status};
use core::mem::size_of;
use ppg_core::names::BrowseName;
use ppg_core::objective::{Browse, Level, Measure, RankStart, DEFAULT_PATIENCE, MAX_LEVELS};
use ppg_core::recipe::cost::EeScore;
use ppg_core::{Gradient, PlConfig, SamplerMode, TrainConfig};

/// A `bool` field of a caller's input struct, read as its byte: zero is false, any other
/// value true. In the header it is C's `bool` (cbindgen.toml renames it), one byte as
/// this is, so the layout is C's; but a struct filled by `memset`, or through a binding
/// whose field is a byte (JNA's `byte`), can hold a byte other than 0 or 1, and a Rust
/// `bool` made from one is undefined behaviour (a `3` read as false was seen).
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ByteBool(u8);

impl ByteBool {
    /// True for any non-zero byte.
    pub fn get(self) -> bool {
        self.0 != 0
    }
}

impl From<bool> for ByteBool {
    fn from(b: bool) -> Self {
        ByteBool(u8::from(b))
    }
}

/// Which optimiser an engine runs.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ppg_method {
    /// Probabilistic Permutation Graph search (the paper's method).
    Ppg = 0,
    /// The Plackett-Luce baseline, trained by REINFORCE with Adam. It supports no
    /// constraints; its initial logits are the items' utilities.
    Pl = 1,
}

impl ppg_method {
    pub(crate) fn from_raw(raw: u32) -> Status<Self> {
        match raw {
            0 => Ok(ppg_method::Ppg),
            1 => Ok(ppg_method::Pl),
            _ => Err(ppg_status::InvalidArgument),
        }
    }
}

/// How PPG draws a ranking (see protocol.md, "What the reference implementation does").
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ppg_sampler {
    /// The reference code's sampler (each merge draw uses the raw weight).
    Uncorrected = 0,
    /// The paper's Eq. 9 (each merge draw corrected to `w / (1 - q)`).
    Corrected = 1,
}

/// Which score function PPG's REINFORCE estimate uses.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ppg_gradient {
    /// The paper's Eq. 8, as if pairs were drawn independently (the reference).
    Approximate = 0,
    /// The exact gradient of the sampler's log-probability.
    Exact = 1,
}

/// The built-in objectives (costs, lower is better).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ppg_metric {
    /// Disparity of treatment ratio minus 1 (0 is fair): the paper's over two groups,
    /// over 3 to 16 the largest over the smallest exposure-per-utility ratio. Needs two
    /// groups with a positive utility sum for a meaningful value.
    Dtr = 0,
    /// Expected exposure loss (0 is optimal). Needs at least two groups.
    Eel = 1,
    /// `1 - NDCG@k`, the items' utilities as relevance labels.
    Ndcg = 2,
    /// `DTR - 1 + mix_weight * (1 - NDCG@k)`.
    DtrNdcgMix = 3,
    /// `EEL + mix_weight * (1 - NDCG@k)`.
    EelNdcgMix = 4,
    /// Expected exposure as TREC Fair Ranking 2020 scored it: `ee_measure` (EE-L by
    /// default), normalised per query unless `ee_raw`, under the browsing model `browse`
    /// at `ee_level`; EE-R, larger-is-better, as its distance below its upper bound
    /// (`1 - EE-R` normalised, `ub - EE-R` raw), so that 0 is optimal for every number. At
    /// group level the metric has no value for a query without an item of utility > 0:
    /// `ppg_engine_rerank` passes it through (`passed_through` in the report), the other
    /// calls refuse it (`PPG_STATUS_INVALID_ARGUMENT`).
    ExpectedExposure = 5,
    /// `1 - AWRF x NDCG` as TREC Fair Ranking 2021 scored a ranking (0 is optimal): the
    /// target averages the relevant items' group distribution with the uniform one over
    /// the query's groups, so the metric has no value without an item of utility > 0
    /// (passed through or refused as for `PPG_METRIC_EXPECTED_EXPOSURE`).
    Awrf = 6,
}

impl ppg_metric {
    pub(crate) fn from_raw(raw: u32) -> Status<Self> {
        match raw {
            0 => Ok(ppg_metric::Dtr),
            1 => Ok(ppg_metric::Eel),
            2 => Ok(ppg_metric::Ndcg),
            3 => Ok(ppg_metric::DtrNdcgMix),
            4 => Ok(ppg_metric::EelNdcgMix),
            5 => Ok(ppg_metric::ExpectedExposure),
            6 => Ok(ppg_metric::Awrf),
            _ => Err(ppg_status::InvalidArgument),
        }
    }
}

/// Where the exposure `1 / log2(r + 2)` of the fairness metrics starts counting ranks.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ppg_rank_start {
    /// `r = 0, 1, ...`: the top position gets exposure 1 (the usual DCG discount).
    Zero = 0,
    /// `r = 1, 2, ...`: the top position gets `1 / log2(3)`, as in the paper's reference
    /// code; use it to compare with the published numbers.
    One = 1,
}

/// The browsing model of `PPG_METRIC_EXPECTED_EXPOSURE`: the exposure of 0-based
/// position `i`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ppg_browse {
    /// The published cascade (Diaz et al.), the default: `patience^i (1 -
    /// cascade_utility)^k`, `k` the relevant items above position `i`.
    Cascade = 0,
    /// Rank-biased precision: `patience^i`.
    Rbp = 1,
    /// The paper's log discount `1 / log2(r + 2)`, `r` counted from `rank_start`.
    Log = 2,
    /// The cascade of `diazf/expeval` at `d943b3e`, where every judged (listed) item
    /// counts: `(patience * (1 - cascade_utility))^i`; ppg's published TREC figures use it.
    CascadeJudged = 3,
}

/// Whether `PPG_METRIC_EXPECTED_EXPOSURE` compares groups or items.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ppg_ee_level {
    /// Groups, over their items with utility > 0 (TREC 2020's setting).
    Group = 0,
    /// Individual items.
    Item = 1,
}

/// Which number of `PPG_METRIC_EXPECTED_EXPOSURE` is the cost.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ppg_ee_measure {
    /// EE-L, the loss against the target exposure (TREC 2020's score).
    Loss = 0,
    /// EE-D, the disparity `|e|^2`: blind to relevance, lowest where exposure is spread
    /// (at group level, where the relevant items get the least).
    Disparity = 1,
    /// EE-R, the relevance `e . t`: the cost is its distance below its upper bound.
    Relevance = 2,
}

/// One item of a query. Items are passed in ranked order (the input ranking).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ppg_item {
    /// The caller's id; any value, unique within the query.
    pub id: u64,
    /// Utility (relevance) of the item: finite. DTR and NDCG need it `>= 0`; EEL takes any
    /// finite value, grading a negative one as it grades 0 (the lowest grade).
    pub utility: f64,
    /// Fairness group of the item: any label (EEL and DTR tell up to 16 groups apart).
    pub group: u32,
}

/// The training recipe. Fill it with `ppg_train_config_default` (the paper's reference
/// run) and change what you need.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ppg_train_config {
    /// `sizeof(ppg_train_config)` as the caller compiled it: set by
    /// `ppg_train_config_default` (`ppg_train_config_init`); see "Growable structs".
    pub struct_size: u32,
    /// PPG's step size of `w -= learning_rate * grad`; finite, `>= 0`. Default 0.4.
    pub learning_rate: f64,
    /// Epochs at most (`ppg_engine_train*`). Default 50.
    pub epochs: u32,
    /// Samples per epoch, from 1 to the layout's batch (`ppg_engine_train*`). Default 16.
    pub batch: usize,
    /// Stop after this many epochs without a new best; 0 never stops early. Default 20.
    pub patience: u32,
    /// PPG: a step taking a weight to 0 or below sets it to this. Default 0.05.
    pub clamp_min: f64,
    /// PPG: a step taking a weight to this or above sets it to this. Default 0.95.
    /// `0 <= clamp_min <= clamp_max <= 1`.
    pub clamp_max: f64,
    /// PPG: a `ppg_sampler` value, the sampler `ppg_engine_train*` draw with.
    /// Default `PPG_SAMPLER_UNCORRECTED`.
    pub sampler: u32,
    /// PPG: a `ppg_gradient` value. Default `PPG_GRADIENT_APPROXIMATE`.
    pub gradient: u32,
    /// Subtract the batch-mean cost from each cost (variance reduction). Default false.
    pub baseline: ByteBool,
    /// PPG: score the input ranking before training, so the best ranking is never worse
    /// than the input. Default false (the reference run; its first sample always wins).
    pub score_input: ByteBool,
    /// PPG: the weight of every unconstrained pair when training starts on a fresh query
    /// (see `ppg_engine_train`); in `[0, 1]`. Default 0.5.
    pub initial_weight: f64,
    /// PL: Adam's step size; finite, `>= 0`. Default 0.1.
    pub pl_learning_rate: f64,
    /// PPG: grow over sessions. With more than one session, train 1 session, then each
    /// larger count up to the query's (halving while even: 1, 2, 4, 8 for 8), each from the
    /// state before the call, and keep the better of a count's best and the previous
    /// count's best copied into every session. The best is then never worse than without
    /// growing, nor than at half the sessions (for costs that average over sessions), at
    /// about twice the samples. Default false (the reference run). Last in the struct, so
    /// that the fields before it keep their offsets.
    pub grow: ByteBool,
    /// PPG: keep the input order within each group (the paper's intra-group constraint)
    /// in `ppg_engine_rerank`. Default false.
    pub intra: ByteBool,
    /// PPG, without `intra`: hold the input order within each group for a first run,
    /// then free it for a second run from the best ranking found (as
    /// `ppg_engine_hold_order_within_groups` before a training call, which
    /// `ppg_engine_train*` then do themselves). Default true (the recommended recipe;
    /// false in `ppg_train_config_init_reference`).
    pub hold: ByteBool,
    /// PPG: certify. Where the objective has a lower bound (the built-in DTR alone, EEL
    /// alone over two groups), every run stops as soon as its best cost is within
    /// `certify_tolerance` of it, and the report says whether the result is certified and
    /// its gap. Default true (false in `ppg_train_config_init_reference`).
    pub certify: ByteBool,
    /// The tolerance of `certify`, finite and `>= 0`. Default 1e-8.
    pub certify_tolerance: f64,
}

/// The built-in objective of `ppg_engine_train_builtin` and `ppg_engine_evaluate`.
/// Fill it with `ppg_objective_config_default`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ppg_objective_config {
    /// `sizeof(ppg_objective_config)` as the caller compiled it: set by
    /// `ppg_objective_config_default` (`ppg_objective_config_init`).
    pub struct_size: u32,
    /// A `ppg_metric` value. Default `PPG_METRIC_EEL`.
    pub metric: u32,
    /// EEL's grade levels, 1 to 64: 5 to optimise, 2 to evaluate (protocol). Default 5.
    pub eel_levels: u32,
    /// NDCG's cut-off `k >= 1` (NDCG metrics only). Default 10.
    pub ndcg_k: usize,
    /// Weight of `1 - NDCG@k` in the mix metrics; finite, `>= 0`. Default 0.
    pub mix_weight: f64,
    /// A `ppg_rank_start` value for the fairness exposure (NDCG always discounts from
    /// rank 0). Default `PPG_RANK_START_ONE` (the reference).
    pub rank_start: u32,
    /// A `ppg_browse` value. Default `PPG_BROWSE_CASCADE`, the published cascade. This field
    /// and the three after it are read for `PPG_METRIC_EXPECTED_EXPOSURE` only.
    pub browse: u32,
    /// Patience of the cascades and RBP, in (0, 1]. Default 0.5.
    pub patience: f64,
    /// The cascade's stop probability after a relevant item (a judged one under
    /// `PPG_BROWSE_CASCADE_JUDGED`), in [0, 1]. Default 0.5.
    pub cascade_utility: f64,
    /// A `ppg_ee_level` value. Default `PPG_EE_LEVEL_GROUP`.
    pub ee_level: u32,
    /// A `ppg_ee_measure` value. Default `PPG_EE_MEASURE_LOSS`. This field and the next
    /// are new in 0.2.0's third layout; a caller of an older layout gets the defaults.
    pub ee_measure: u32,
    /// The number raw rather than normalised per query by the evaluator's bounds.
    /// Default false (TREC 2020 normalised).
    pub ee_raw: ByteBool,
    /// `PPG_METRIC_AWRF`'s population: uniform over this many groups, 1 to 16, the
    /// attribute's (the whole input's, as `ppg rerank` counts a file's), so that a query
    /// lacking some of them is scored as TREC 2021 scored it; no group id of the query may
    /// reach it. 0 (the default): the groups `0..=max id` of the query (`ppg_engine_rerank`:
    /// the groups present in it). New in 0.2.0's fourth layout (a `size_t`: a 32-bit field
    /// would fit in the third's tail padding and keep its sizeof).
    pub awrf_groups: usize,
    /// `PPG_METRIC_AWRF`'s depth: the positions of each session it scores (TREC 2021
    /// scored ranks 1-20: 20), NDCG's ideal staying the whole list's. 0 (the default): the
    /// whole list. New in 0.2.0's fifth layout.
    pub awrf_depth: usize,
}

/// What a training run did. Prepare it with `ppg_train_report_default` before passing
/// it to a training call: the library writes at most `struct_size` bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ppg_train_report {
    /// `sizeof(ppg_train_report)` as the caller compiled it: set by
    /// `ppg_train_report_default` (`ppg_train_report_init`), kept by the library.
    pub struct_size: u32,
    /// Epochs run (fewer than configured when patience ran out), over every stage of a
    /// grown run (`grow`).
    pub epochs: u32,
    /// Rankings scored, a grown run's copies included.
    pub samples: u32,
    /// The lowest cost seen so far (`ppg_engine_best` returns its ranking); +infinity
    /// if none was scored.
    pub best_cost: f64,
    /// The epoch (0-based, counted over a grown run's stages) of this run that found the
    /// best ranking, -1 when this run found no new best.
    pub best_epoch: i64,
    /// The best cost is within the recipe's `certify_tolerance` of `bound`: no ranking is
    /// better by more. False without `certify`, without a bound, and after a NaN cost.
    pub certified: bool,
    /// `bound` is the objective's exact optimum; false where its search gave up at its
    /// node budget (`bound` is then a proven lower bound that may not be reached) or there
    /// is no bound.
    pub bound_exact: bool,
    /// A proven lower bound of the cost at the query's session count (the exact optimum
    /// when `bound_exact`), NaN without `certify` or where the objective gives none (a
    /// callback, NDCG, a mix, expected exposure's EE-D and EE-R).
    pub bound: f64,
    /// `best_cost - bound` (0 when rounding puts it below), NaN without a bound.
    pub gap: f64,
    /// `ppg_engine_rerank` only: the objective has no value for the query (AWRF or
    /// group-level expected exposure without an item of utility > 0, which their
    /// evaluators skip), so its input ranking was written unchanged, nothing trained
    /// (`epochs`, `samples` 0) and `best_cost` is NaN. `ppg rerank` and `ppg.rerank` pass
    /// such a query through the same way. Default false.
    pub passed_through: bool,
    /// `ppg_engine_rerank` only, the relevance certificate (issue 36): the returned
    /// rankings' NDCG@`k` (`ppg_objective_config.k`) of the items' utility, averaged over
    /// the sessions, as `ppg rerank --report`'s `ndcg` column. NaN where that column is
    /// empty (a query passed through or of one item) and after the other training calls.
    pub ndcg: f64,
    /// An upper bound on that NDCG over every ranking at least as fair as the returned
    /// one (`--report`'s `ndcg_bound`; `ppg_core::recipe::certify_relevance`). NaN where
    /// `ndcg` is.
    pub ndcg_bound: f64,
    /// `ndcg_bound - ndcg` (0 when rounding puts it below; `--report`'s `ndcg_gap`). NaN
    /// where `ndcg` is.
    pub ndcg_gap: f64,
    /// No ranking as fair is more relevant than `ndcg_bound` (`--report`'s `ndcg_exact`).
    /// False where `ndcg` is NaN.
    pub ndcg_exact: bool,
}

pub(crate) fn sampler_from_raw(raw: u32) -> Status<SamplerMode> {
    match raw {
        0 => Ok(SamplerMode::Uncorrected),
        1 => Ok(SamplerMode::Corrected),
        _ => Err(ppg_status::InvalidArgument),
    }
}

fn gradient_from_raw(raw: u32) -> Status<Gradient> {
    match raw {
        0 => Ok(Gradient::Approximate),
        1 => Ok(Gradient::Exact),
        _ => Err(ppg_status::InvalidArgument),
    }
}

/// A finite `f64` that is also finite as an `f32`.
fn to_f32(x: f64) -> Status<f32> {
    let y = x as f32;
    if y.is_finite() {
        Ok(y)
    } else {
        Err(ppg_status::InvalidArgument)
    }
}

impl ppg_train_config {
    /// The reference recipe: `TrainConfig::default()` and `PlConfig::default()`.
    pub(crate) fn reference() -> Self {
        let ppg = TrainConfig::default();
        let pl = PlConfig::default();
        ppg_train_config {
            // The structs are a few dozen bytes.
            struct_size: size_of::<Self>() as u32,
            learning_rate: f64::from(ppg.learning_rate),
            epochs: ppg.epochs,
            batch: ppg.batch,
            patience: ppg.patience,
            clamp_min: f64::from(ppg.clamp_min),
            clamp_max: f64::from(ppg.clamp_max),
            sampler: match ppg.sampler {
                SamplerMode::Uncorrected => ppg_sampler::Uncorrected as u32,
                SamplerMode::Corrected => ppg_sampler::Corrected as u32,
            },
            gradient: match ppg.gradient {
                Gradient::Approximate => ppg_gradient::Approximate as u32,
                Gradient::Exact => ppg_gradient::Exact as u32,
            },
            baseline: ppg.baseline.into(),
            score_input: ppg.score_input.into(),
            initial_weight: 0.5,
            pl_learning_rate: f64::from(pl.lr),
            grow: ppg.grow.into(),
            intra: false.into(),
            hold: false.into(),
            certify: ppg.certify.is_some().into(),
            certify_tolerance: ppg_core::recipe::CERTIFY_TOLERANCE,
        }
    }

    /// The recommended recipe (`ppg_core::Recipe::recommended`), what
    /// `ppg_train_config_init` gives: the reference run's budget and step, the input scored
    /// first, the order within groups held for a first run, grown over sessions, certified.
    pub(crate) fn recommended() -> Self {
        let recipe = ppg_core::Recipe::recommended();
        ppg_train_config {
            score_input: recipe.train.score_input.into(),
            grow: recipe.train.grow.into(),
            intra: recipe.intra.into(),
            hold: recipe.hold.into(),
            certify: recipe.train.certify.is_some().into(),
            certify_tolerance: recipe
                .train
                .certify
                .unwrap_or(ppg_core::recipe::CERTIFY_TOLERANCE),
            initial_weight: f64::from(recipe.initial_weight),
            ..Self::reference()
        }
    }

    /// The initial weight, checked to be a probability.
    pub(crate) fn initial_weight(&self) -> Status<f32> {
        let w = to_f32(self.initial_weight)?;
        if (0.0..=1.0).contains(&w) {
            Ok(w)
        } else {
            Err(ppg_status::InvalidArgument)
        }
    }

    /// The PPG recipe. Every field is checked against `layout_batch`, the PL-only one too,
    /// so that a recipe is valid or not whatever the method.
    pub(crate) fn ppg(&self, layout_batch: usize) -> Status<TrainConfig> {
        self.initial_weight()?;
        if to_f32(self.pl_learning_rate)? < 0.0 {
            return Err(ppg_status::InvalidArgument);
        }
        let config = TrainConfig {
            learning_rate: to_f32(self.learning_rate)?,
            epochs: self.epochs,
            batch: self.batch,
            patience: self.patience,
            clamp_min: to_f32(self.clamp_min)?,
            clamp_max: to_f32(self.clamp_max)?,
            sampler: sampler_from_raw(self.sampler)?,
            gradient: gradient_from_raw(self.gradient)?,
            baseline: self.baseline.get(),
            score_input: self.score_input.get(),
            grow: self.grow.get(),
            certify: self.certify.get().then_some(self.certify_tolerance),
        };
        config.check(layout_batch)?;
        Ok(config)
    }

    /// The PL recipe (Adam's constants at their defaults), every field checked as for PPG.
    pub(crate) fn pl(&self, layout_batch: usize) -> Status<PlConfig> {
        let checked = self.ppg(layout_batch)?;
        Ok(PlConfig {
            lr: to_f32(self.pl_learning_rate)?,
            epochs: checked.epochs,
            // PL counts its batch in u16.
            batch: u16::try_from(checked.batch).map_err(|_| ppg_status::InvalidArgument)?,
            patience: checked.patience,
            baseline: checked.baseline,
            ..PlConfig::default()
        })
    }
}

/// A checked `ppg_objective_config`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ObjectiveSpec {
    pub metric: ppg_metric,
    pub levels: u32,
    pub k: usize,
    pub mix_weight: f64,
    pub rank_start: RankStart,
    pub browse: Browse,
    pub ee_level: Level,
    pub ee: EeScore,
    /// AWRF's population (`CostSpec::awrf_groups`); `None`: the query's groups.
    pub awrf_groups: Option<usize>,
    /// AWRF's depth (`CostSpec::awrf_depth`); `None`: the whole list.
    pub awrf_depth: Option<usize>,
}

impl ppg_objective_config {
    /// EEL with 5 levels and the reference exposure; NDCG@10 at weight 0.
    pub(crate) fn reference() -> Self {
        ppg_objective_config {
            // The structs are a few dozen bytes.
            struct_size: size_of::<Self>() as u32,
            metric: ppg_metric::Eel as u32,
            eel_levels: 5,
            ndcg_k: 10,
            mix_weight: 0.0,
            rank_start: ppg_rank_start::One as u32,
            browse: ppg_browse::Cascade as u32,
            patience: DEFAULT_PATIENCE,
            cascade_utility: DEFAULT_PATIENCE,
            ee_level: ppg_ee_level::Group as u32,
            ee_measure: ppg_ee_measure::Loss as u32,
            ee_raw: false.into(),
            awrf_groups: 0,
            awrf_depth: 0,
        }
    }

    pub(crate) fn check(&self) -> Status<ObjectiveSpec> {
        let metric = ppg_metric::from_raw(self.metric)?;
        let rank_start = match self.rank_start {
            0 => RankStart::Zero,
            1 => RankStart::One,
            _ => return Err(ppg_status::InvalidArgument),
        };
        let levels_ok = (1..=MAX_LEVELS).contains(&self.eel_levels);
        let weight_ok = self.mix_weight.is_finite() && self.mix_weight >= 0.0;
        if !levels_ok || !weight_ok || self.ndcg_k == 0 {
            return Err(ppg_status::InvalidArgument);
        }
        // Read only for the metric that uses them: a caller that zeroes the struct and
        // sets an older metric's fields keeps working.
        let (browse, ee_level, ee) = if metric == ppg_metric::ExpectedExposure {
            let (browse, level) = self.browsing(rank_start)?;
            (browse, level, self.ee_score()?)
        } else {
            (Browse::DEFAULT, Level::Group, EeScore::OFFICIAL)
        };
        let awrf_groups = match self.awrf_groups {
            0 => None,
            g if g <= ppg_core::objective::MAX_GROUPS => Some(g),
            _ => return Err(ppg_status::InvalidArgument),
        };
        // Any depth is valid: past the list's length it scores the whole list.
        let awrf_depth = match self.awrf_depth {
            0 => None,
            d => Some(d),
        };
        Ok(ObjectiveSpec {
            awrf_groups,
            awrf_depth,
            metric,
            levels: self.eel_levels,
            k: self.ndcg_k,
            mix_weight: self.mix_weight,
            rank_start,
            browse,
            ee_level,
            ee,
        })
    }

    /// The number of `PPG_METRIC_EXPECTED_EXPOSURE`, checked.
    fn ee_score(&self) -> Status<EeScore> {
        let measure = match self.ee_measure {
            0 => Measure::Loss,
            1 => Measure::Disparity,
            2 => Measure::Relevance,
            _ => return Err(ppg_status::InvalidArgument),
        };
        Ok(EeScore {
            measure,
            normalised: !self.ee_raw.get(),
        })
    }

    /// The browsing model and level of `PPG_METRIC_EXPECTED_EXPOSURE`, checked.
    fn browsing(&self, rank_start: RankStart) -> Status<(Browse, Level)> {
        // The numbers are the ABI's; the model and its parameters are the core's names.
        let name = match self.browse {
            0 => BrowseName::Cascade,
            1 => BrowseName::Rbp,
            2 => BrowseName::Log,
            3 => BrowseName::CascadeJudged,
            _ => return Err(ppg_status::InvalidArgument),
        };
        let browse = name
            .with(self.patience, self.cascade_utility, rank_start)
            .map_err(|_| ppg_status::InvalidArgument)?;
        let level = match self.ee_level {
            0 => Level::Group,
            1 => Level::Item,
            _ => return Err(ppg_status::InvalidArgument),
        };
        Ok((browse, level))
    }
}
