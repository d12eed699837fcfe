//! What every hosted front end of PPG search shares (the `ppg` binary, the Python
//! extension, the research harness), so that they agree: the middle layer between the
//! no_std core `ppg-core` and the front ends. Nothing here imports a front end.
//!
//! - Reading and checking a table of queries: [`rerank_input`] reads `ppg rerank`'s
//!   input one query at a time (and from bytes, for the fuzz target); [`finished`] keeps
//!   the queries that reader has finished, to find a split query in memory that does not
//!   grow with the input; [`ids`] holds a query's item ids in one buffer; [`records`]
//!   gives it the input's lines split into fields (memchr over one buffer), numbered,
//!   and stops at a line longer than its limit before the line is held; [`quote`] quotes
//!   input text in error messages, escaped and cut short; `decimal` reads its numbers.
//! - Costs and one query: [`cost`] builds the costs the optimisers minimise
//!   (`ppg_core::recipe::cost`) from a query's columns, their tables and the protocol's
//!   evaluation; [`optimise`] runs one query through PPG or Plackett-Luce, with the
//!   protocol's starting ranking. [`rerank_query`] holds the one request of a re-ranking
//!   ([`rerank_query::RerankSpec`]: cost, recipe, sessions, seed, method), which
//!   `ppg rerank` and the Python package build once, the [`rerank_query::Reranker`] that
//!   checks and re-ranks each query with it, and the mechanics of one query, through the
//!   core's recipe (`ppg_core::Ppg::rerank`) or its exact optimum (`--method exact`). The
//!   seeds of sub-tasks are the core's (`ppg_core::seed`). `kept` keeps a worker's
//!   engine from one query to the next. [`rerank_task`] admits each query `ppg rerank`
//!   reads (its utility, the request's refusals as messages at its lines, its engine
//!   against the budget, its ids against the run file's format) before it is queued.
//! - Running many queries: [`pipeline`] reads them on a thread of its own, runs them in
//!   batches of a bounded window on a pool and writes the results in input order;
//!   [`threads`] builds the rayon pool; [`budget`] shares one memory budget between the
//!   engines in flight; [`progress`] reports on a terminal or in logs (indicatif).
//! - Files a run leaves: [`output`] writes a file whole or not at all; [`scratch`] makes
//!   the temporary files and folders under names a later run recognises and removes the
//!   ones killed runs left; [`interrupt`] removes them on SIGINT, SIGTERM and SIGHUP once
//!   a front end that owns the process's signals calls [`interrupt::install`] (the
//!   Python extension leaves them to the interpreter).
//! - [`attributes`]: TREC 2022's AWRF from the host's side: the per-item attribute table,
//!   the unknown policies and the target read once per request, each query's rows laid out
//!   for the core, and one query re-ranked under it.
//! - [`trec_run`]: the run-file formats of the TREC Fair Ranking tracks' evaluators.
//! - [`protocol`]: the paper's protocol as several doors run it (the exact optimum and
//!   its witness, the default recipe's request); [`frontier`]: what fairness costs in
//!   relevance over a data set (`ppg frontier`, Python's `ppg.frontier`).
//! - [`error`]: the one error type of a run (its kinds; the exit status of each is the
//!   `ppg` binary's); [`arg`]: parsing the command lines' single-precision numbers (the
//!   command-line parser itself, clap, is the front ends'); [`pause`]: a test hook that
//!   holds a run at a named moment.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod arg;
pub mod attributes;
pub mod budget;
pub mod cost;
mod decimal;
pub mod error;
pub mod finished;
pub mod frontier;
pub mod ids;
pub mod interrupt;
mod kept;
mod kept_work;
pub mod optimise;
pub mod output;
pub mod pause;
pub mod pipeline;
pub mod progress;
pub mod protocol;
pub mod quote;
pub mod records;
pub mod rerank_attributes;
pub mod rerank_input;
pub mod rerank_query;
pub mod rerank_task;
pub mod scratch;
pub mod threads;
pub mod trec_run;
