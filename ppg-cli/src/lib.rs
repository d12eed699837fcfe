//! The `ppg` command-line crate: the front end over `ppg-core`, and the baselines the paper
//! compares PPG search with.
//!
//! The library holds what more than one front end needs, so that they agree:
//! - [`budget`]: the memory every engine of a process may take together (a quarter of
//!   physical memory by default), shared with the Python package;
//! - [`cost`]: the costs the optimisers minimise (`ppg_core::recipe::cost`), their tables
//!   and the protocol's evaluation;
//! - [`optimise`]: one query through PPG or Plackett-Luce, and the protocol's starting
//!   ranking;
//! - [`rerank_input`]: the input of `ppg rerank`, read one query at a time (and from
//!   bytes, for the fuzz target);
//! - [`finished`]: the queries that reader has finished, kept to find a split query in
//!   memory that does not grow with the input;
//! - [`quote`]: input text quoted in error messages, escaped and cut short;
//! - [`rerank_query`]: one query of `ppg rerank` through the core's recipe
//!   (`ppg_core::Ppg::rerank`), or through its exact optimum (`--method exact`), shared
//!   with the Python package;
//! - [`pause`]: a test hook that holds a run at a named moment;
//! - [`foe`]: Fairness of Exposure (Singh & Joachims, KDD 2018) in its hard and soft
//!   variants, the DTR baseline of the paper's Tables 1 and 2;
//! - [`bound_groups`]: the least DTR over more than two groups, exact by enumeration where
//!   tractable, a certified (polymatroid) lower bound where not.
//!
//! The exact optimum of DTR and EEL (the floor under every row of the reproduction tables)
//! and the seeds of sub-tasks are the core's: `ppg_core::objective::bound`, `ppg_core::seed`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bound_groups;
pub mod budget;
pub mod cost;
pub mod finished;
pub mod foe;
pub mod optimise;
pub mod pause;
pub mod quote;
pub mod rerank_input;
pub mod rerank_query;
