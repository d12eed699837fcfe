//! `ppg`: fair re-ranking by Probabilistic Permutation Graph search, and the paper's
//! experimental protocol.
//!
//! # The map
//!
//! The binary is a front end: what every host front end shares is in `ppg_host`, the
//! paper's protocol in `ppg_lab`; here are the command line and the files it names. A
//! module uses only the ones listed before it or beside it, and only `main` calls a
//! command.
//!
//! - `cli`: the arguments (clap derive; `ppg reproduce`'s are `ppg_lab`'s), and `main`
//!   dispatches on them: `ppg rerank` to `rerank`, `ppg reproduce` to `ppg_lab::run`,
//!   `ppg frontier` to `ppg_lab::frontier::run`.
//!   Dispatch happens here and nowhere else.
//! - Where things go: `destination` decides before anything is read where `-o` and
//!   `--report` write (a file replaced whole, a device written directly, never the input,
//!   never each other); `streams` opens files, `-` and `.gz` (in and out), and commits
//!   the two files together. The temporary files, their removal on signals,
//!   the memory budget, the thread pool and progress are `ppg_host`'s (`scratch`,
//!   `interrupt`, `budget`, `threads`, `progress`).
//! - Commands: `rerank` turns its flags into the host's one request
//!   (`ppg_host::rerank_query::RerankSpec`) once; the host's `rerank_input` reads the TSV query by
//!   query, the host's `Reranker` checks and re-ranks each, and the results are written in
//!   input order. `main` maps the host's error kinds to exit statuses.

mod cli;
mod destination;
mod rerank;
mod streams;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match &cli.command {
        Command::Rerank(args) => rerank::run(args),
        Command::Reproduce(args) => ppg_lab::run(args),
        Command::Frontier(args) => ppg_lab::frontier::run(args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(exit_code(&e))
        }
    }
}

/// The exit status of a failed command: 2 for what the user can fix in the command or its
/// input, 1 for anything else.
fn exit_code(e: &ppg_host::error::Error) -> u8 {
    use ppg_host::error::Error;
    match e {
        Error::Input { .. } | Error::Usage(_) => 2,
        Error::Failed(_) => 1,
    }
}
