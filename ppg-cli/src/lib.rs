//! The `ppg` command-line crate: the front end over `ppg-core`, and the baselines the paper
//! compares PPG search with.
//!
//! [`foe`] is Fairness of Exposure (Singh & Joachims, KDD 2018) in its hard and soft
//! variants, the DTR baseline of the paper's Tables 1 and 2.
//!
//! [`bound`] is the exact optimum of DTR and EEL over S deterministic rankings: the floor
//! under every row of the reproduction tables.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bound;
pub mod foe;
