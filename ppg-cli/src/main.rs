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
//! - Where things go: `destination` decides before anything is read where `-o` writes (a
//!   file replaced whole, a device written directly, never the input); `scratch` makes the
//!   temporary files and folders under names a later run recognises, locked while they
//!   live, and removes the ones killed runs left; `interrupt` removes them on SIGINT,
//!   SIGTERM and SIGHUP.
//! - Input: `streams` opens files, `-` and `.gz` (in and out); the library's
//!   `rerank_input` reads `ppg rerank`'s input query by query; `tsv` reads the protocol's
//!   tab-separated files with a header and `data` builds its evaluation data; `builtin`
//!   generates the small data set used without `--data`.
//! - Optimising, in the library crate (`ppg_cli`): `cost` turns `ppg_core::objective` into
//!   the costs the optimisers minimise and the metrics the evaluation reports; `optimise`
//!   runs one query through PPG or Plackett-Luce; `rerank_query` is one query of
//!   `ppg rerank`, shared with the Python package. Here, `methods` names each row of the
//!   tables (PPG, PL, FOE and the bound from the library crate, baselines) and how it turns
//!   a query into rankings; `floor` checks that no row is below the bound.
//! - Running many: `seed` (library) derives per-task seeds so that results do not depend on
//!   threads; `threads` builds the rayon pool; `budget` (library) shares one memory budget
//!   between the engines in flight; `progress` reports on a terminal or in logs (indicatif).
//! - The protocol: `reproduce` holds an experiment, its cells and the grid of cells;
//!   `table` prints cells (paper-style table or JSON); `published` lists the paper's
//!   numbers; `plot` draws the session sweep as SVG.
//! - Commands: `rerank` re-ranks every query of a TSV; `single` runs the grid on one
//!   data set and prints it; `report` runs everything and writes `results.md` and the
//!   figures through `output`, which writes files whole or not at all.
//!
//! Data flow of `ppg reproduce`: protocol file -> `data` -> `reproduce` (per cell,
//! tasks on the rayon pool into `methods` -> `optimise` -> `cost`) -> `table`
//! or `report`.

mod builtin;
mod cli;
mod data;
mod destination;
mod error;
mod floor;
mod interrupt;
mod methods;
mod output;
mod plot;
mod progress;
mod published;
mod report;
mod report_trec;
mod reproduce;
mod rerank;
mod scratch;
mod single;
mod streams;
mod table;
mod threads;
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
