//! `ppg`: fair re-ranking by Probabilistic Permutation Graph search, and the paper's
//! experimental protocol.
//!
//! # The map
//!
//! Two commands share one set of building blocks (some of them in the library crate, so that
//! other front ends run the same code); a module uses only the ones listed before it or
//! beside it, and only `main` calls a command.
//!
//! - `error`: the one error type and the exit status of each kind.
//! - `cli`: the arguments (clap derive), and `main` dispatches on them: `ppg rerank`
//!   to `rerank`, `ppg reproduce` to `single` (one data set) or, with `--all`, to
//!   `report` (both TREC sets). Dispatch happens here and nowhere else.
//! - Input: `tsv` reads tab-separated files with a header; `data` builds the two
//!   formats on it (ranked lists to re-rank, the protocol's evaluation data); `builtin`
//!   generates the small data set used without `--data`.
//! - Optimising, in the library crate (`ppg_cli`): `cost` turns `ppg_core::objective` into
//!   the costs the optimisers minimise and the metrics the evaluation reports; `optimise`
//!   runs one query through PPG or Plackett-Luce; `rerank_query` is one query of
//!   `ppg rerank`, shared with the Python package. Here, `methods` names each row of the tables (PPG, PL, FOE from the
//!   library crate, baselines) and how it turns a query into rankings.
//! - Running many: `seed` (library) derives per-task seeds so that results do not depend on
//!   threads; `parallel` spreads tasks over threads and returns them in task order.
//! - The protocol: `reproduce` holds an experiment, its cells and the grid of cells;
//!   `table` prints cells (paper-style table or JSON); `published` lists the paper's
//!   numbers; `plot` draws the session sweep as SVG.
//! - Commands: `rerank` re-ranks every query of a TSV; `single` runs the grid on one
//!   data set and prints it; `report` runs everything and writes `results.md` and the
//!   figures through `output`, which writes files whole or not at all.
//!
//! Data flow of `ppg reproduce`: protocol file -> `data` -> `reproduce` (per cell,
//! tasks through `parallel` into `methods` -> `optimise` -> `cost`) -> `table`
//! or `report`.

mod builtin;
mod cli;
mod data;
mod error;
mod floor;
mod methods;
mod output;
mod parallel;
mod plot;
mod published;
mod report;
mod reproduce;
mod rerank;
mod single;
mod table;
mod tsv;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match &cli.command {
        Command::Rerank(args) => rerank::run(args),
        Command::Reproduce(args) if args.all => report::run(args),
        Command::Reproduce(args) => single::run(args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
