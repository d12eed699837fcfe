//! Probabilistic Permutation Graph (PPG) search without a heap.
//!
//! # Which entry point
//!
//! | your job | use |
//! | --- | --- |
//! | re-rank a query (scores, utilities, groups) for a built-in metric, as `ppg rerank` does | the recipe: [`Ppg::rerank`] with a [`Recipe`] and a [`recipe::CostSpec`] |
//! | your own cost, constraints, or a loop you drive yourself | the step-wise engine: [`Ppg::new`], [`Ppg::start`], constraints ([`Ppg::forbid`], [`Ppg::keep_order_within`]), then [`Ppg::train`] with any [`Objective`] (or [`Ppg::sample_batch`] and [`Ppg::update`]), and [`Ppg::best`] |
//! | a fixed capacity known when compiling (firmware, no buffer sizing) | the typed engine: [`FixedMemory`] and its [`FixedPpg`], the best ranking as a [`Ranking`] |
//! | the paper's baseline | [`PlackettLuce`] |
//!
//! Each query's seed comes from [`seed::query_seed`], so every front end seeds a query
//! alike; [`Ppg::bytes`] sizes the buffer of a [`Dims`].
//!
//! # The map
//!
//! Data flows one way through the crate, and each module uses only the ones before it:
//!
//! ```text
//! weights -> prepared tables -> draws -> costs -> gradient -> weights
//! distribution  sampler      sampler  objective  trainer    distribution
//! ```
//!
//! - Foundations: `dims` ([`Dims`], the shape an engine is laid out for), [`arena`] (typed
//!   regions of the caller's byte buffer; nothing here allocates; the C API carves its
//!   own buffers with it too), `rng` ([`Rng`], the
//!   seeded portable generator), `error` ([`Error`]), `pairs` (how an unordered item pair
//!   is indexed in a packed triangle, and the views of one session's weights by item pair
//!   or by reference position).
//! - `distribution`: what is sampled. Per session block a reference permutation and an
//!   inversion probability per item pair, and the constrained pairs (weight held at 0). It
//!   knows nothing of how it is sampled or trained.
//! - `sampler/`: how it is sampled. The merge sampler of the paper (corrected and
//!   uncorrected), the uncorrected sampler's branch-free merges over leaf outcome tables,
//!   exact log-probabilities and scores by replay. It owns every table it prepares from the
//!   distribution and reads the distribution only. One sample goes from `Sampler::draw` to
//!   the returned ranking inside this folder; [`SamplerMode`] picks the variant.
//! - [`objective`]: what a ranking costs. The [`Objective`] trait (any black box) and the
//!   paper's metrics (EEL, DTR, NDCG, their mixes), and the TREC Fair Ranking measures:
//!   expected exposure under a browsing model (`browse`: log discount, RBP, cascade) at
//!   item or group level, and AWRF with its NDCG product; the exact optimum of DTR and EEL
//!   over two groups (`bound`) and of DTR over more (`bound_groups`), which they give as
//!   their lower bound. It uses only the foundations.
//! - `trainer/`: how the weights move. The REINFORCE loop ([`TrainConfig`], [`Gradient`]):
//!   draw a batch through the sampler, cost it with the objective, step the weights of the
//!   distribution with the exact score or the approximate gradient, keep the best ranking
//!   and make it the reference; the same loop over a growing number of sessions when the
//!   recipe says `grow`; with `certify`, every run stops once its best is within a
//!   tolerance of the objective's lower bound; [`TrainReport`] says what happened.
//! - `engine`: [`Ppg`], the one public engine. It lays out the caller's buffer for the
//!   distribution, the sampler and the trainer, checks every argument before it delegates,
//!   and undoes a failed training run from a snapshot.
//! - `fixed`: [`FixedMemory`] and [`FixedPpg`], the same engine over memory whose capacity
//!   (items, sessions, batch) is in its type, checked when compiling, and the best ranking
//!   as a bounded [`Ranking`]. It uses the engine only.
//! - [`recipe`]: the recommended recipe, [`Ppg::rerank`]: a query as the caller has it
//!   (score, utility, group per item) re-ranked in one call, with the cost built by name,
//!   the input scored, the order within groups held first, grown over sessions, certified
//!   against the cost's exact optimum ([`objective::bound`], [`objective::bound_groups`]).
//!   Every front end calls it.
//!   [`seed`] derives each query's seed, so every front end seeds a query alike.
//! - [`names`]: the names the front ends give the metrics, browsing models and the
//!   recipe's choices, parsed once ([`names::NameError`]); a front end adds its flag.
//! - [`pl`]: [`PlackettLuce`], the baseline the paper compares with: its own policy, sampler
//!   and trainer over the same foundations and objectives.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod arena;
mod dims;
mod distribution;
mod engine;
mod error;
mod fixed;
pub mod names;
pub mod objective;
mod pairs;
pub mod pl;
pub mod recipe;
mod report;
mod rng;
mod sampler;
pub mod seed;
mod trainer;

pub use dims::{Dims, MAX_ITEMS};
pub use engine::Ppg;
pub use error::Error;
pub use fixed::{FixedMemory, FixedPpg, Ranking};
pub use objective::Objective;
pub use pl::{PlConfig, PlackettLuce};
pub use recipe::Recipe;
pub use report::TrainReport;
pub use rng::Rng;
pub use sampler::SamplerMode;
pub use trainer::{Gradient, PendingDraw, TrainConfig};

// The Rust examples of the README and of docs/rust.md are doctests of this crate.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

#[cfg(doctest)]
#[doc = include_str!("../../docs/rust.md")]
struct RustGuideDoctests;

// The crate's own README (crates.io's page) is checked the same way.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct CrateReadmeDoctests;
