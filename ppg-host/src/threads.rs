//! Worker threads: how many, and the rayon pool that runs them.

use crate::error::{CliError, Result};

/// Thread count: `requested`, or one per core when 0.
pub fn count(requested: usize) -> usize {
    match requested {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// A pool of `threads` workers (a pool per command rather than rayon's global one, so that
/// `--threads` holds).
pub fn pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CliError::Failed(format!("cannot start {threads} threads: {e}")))
}
