//! Probabilistic Permutation Graph (PPG) search without a heap.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod arena;
mod dims;
mod engine;
mod error;
mod leaves;
pub mod objective;
mod pairs;
pub mod pl;
mod report;
mod rng;
mod sampler;
mod score;
mod trainer;
mod uncorrected;

pub use dims::{Dims, MAX_ITEMS};
pub use engine::Ppg;
pub use error::Error;
pub use objective::Objective;
pub use pl::{PlConfig, PlackettLuce};
pub use report::TrainReport;
pub use rng::Rng;
pub use sampler::SamplerMode;
pub use trainer::{Gradient, TrainConfig};

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
