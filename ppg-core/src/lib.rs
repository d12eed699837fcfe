//! Probabilistic Permutation Graph (PPG) search without a heap.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod arena;
mod dims;
mod error;
pub mod objective;
mod pairs;
mod report;
mod rng;

pub use dims::{Dims, MAX_ITEMS};
pub use error::Error;
pub use objective::Objective;
pub use report::TrainReport;
pub use rng::Rng;
