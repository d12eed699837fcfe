//! `ppg reproduce --all`: both TREC sets, the session sweep, docs/results.md and figures.

use crate::cli::ReproduceArgs;
use crate::error::{CliError, Result};

pub fn run(_args: &ReproduceArgs) -> Result<()> {
    Err(CliError::Failed("not yet".into()))
}
