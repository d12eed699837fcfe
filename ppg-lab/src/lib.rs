//! The research harness of PPG search: the paper's experimental protocol, the baselines it
//! compares PPG with, and the tables, report and figures it prints. The `ppg` binary runs
//! it as `ppg reproduce` ([`run`] with [`ReproduceArgs`]); it stands on `ppg-host` and
//! `ppg-core` and nothing stands on it but that binary.
//!
//! # The map
//!
//! A module uses only the ones listed before it or beside it.
//!
//! - `args`: the arguments of `ppg reproduce` and `ppg frontier` (clap derive).
//! - Input: `tsv` reads the protocol's tab-separated files with a header and `data` builds
//!   its evaluation data; `builtin` generates the small data set used without `--data`.
//! - The baselines: [`foe`] is Fairness of Exposure (Singh & Joachims, KDD 2018) in its
//!   hard and soft variants, the DTR baseline of the paper's Tables 1 and 2; the exact
//!   optimum of DTR and EEL over S deterministic rankings, the floor under every row of
//!   the tables, is the core's (`ppg_core::objective::bound`; over more than two groups,
//!   which the protocol's data does not have, `ppg_core::objective::bound_groups`).
//!   `methods` names each row
//!   of the tables (PPG and PL through `ppg_host::optimise`, FOE, the bound, baselines)
//!   and how it turns a query into rankings; `floor` checks that no row is below the
//!   bound.
//! - `shapes_attributes` generates queries for TREC 2022's AWRF (eight soft attributes, unknowns, an unfair input)
//! - `shapes` generates production-shaped queries (model scores, graded labels, 2-4 groups)
//!   for the tests and benchmarks beyond the paper's data.
//! - The protocol: `reproduce` holds an experiment, its cells and the grid of cells
//!   (tasks on a rayon pool, seeded by `ppg_core::seed`); `table` prints cells
//!   (paper-style table or JSON); `published` lists the paper's numbers; `plot` draws the
//!   session sweep as SVG.
//! - Commands: `single` runs the grid on one data set and prints it; `report` runs
//!   everything and writes `results.md` and the figures (`ppg_host::output`, whole or not
//!   at all), with `report_trec`'s section on the TREC Fair Ranking measures; `frontier`
//!   is `ppg frontier` (fairness against relevance, streamed), drawn by `frontier_plot`.
//!
//! Data flow: protocol file -> `data` -> `reproduce` (per cell, tasks into `methods` ->
//! `ppg_host::optimise` -> `ppg_host::cost`) -> `table` or `report`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod args;
mod builtin;
mod data;
mod floor;
pub mod foe;
pub mod frontier;
mod frontier_plot;
mod methods;
pub mod names_arg;
mod plot;
mod published;
mod report;
mod report_trec;
mod reproduce;
pub mod shapes;
pub mod shapes_attributes;
mod single;
mod table;
mod tsv;

pub use args::{DataUtility, ProgressArg, ReproduceArgs};
pub use frontier::FrontierArgs;
use ppg_host::error::Result;

/// `ppg reproduce`: with `--all`, everything into `results.md` and the figures; else the
/// grid on one data set, printed.
///
/// # Errors
///
/// Bad input or arguments (exit status 2) and failures while running or writing (1), as
/// [`ppg_host::error::Error`] says.
pub fn run(args: &ReproduceArgs) -> Result<()> {
    if args.all {
        report::run(args)
    } else {
        single::run(args)
    }
}
