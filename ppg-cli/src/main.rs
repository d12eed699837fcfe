//! `ppg`: fair re-ranking by Probabilistic Permutation Graph search, and the paper's
//! experimental protocol.

mod budget;
mod builtin;
mod cli;
mod data;
mod error;
mod methods;
mod output;
mod plot;
mod progress;
mod published;
mod report;
mod reproduce;
mod rerank;
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
        Command::Reproduce(args) => reproduce::run(args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
