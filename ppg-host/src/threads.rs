//! Worker threads: how many, and the rayon pool that runs them.

use crate::error::{Error, Result};

/// Thread count: one per core when `requested` is 0, else `requested` but never more than
/// the cores. The work is all computation, so threads beyond the cores only take turns
/// while each holds its engine's memory; an unbounded count let `--threads 1000000` start
/// a million threads. The output does not depend on the count.
pub fn count(requested: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match requested {
        0 => cores,
        n => n.min(cores),
    }
}

/// A pool of `threads` workers (a pool per command rather than rayon's global one, so that
/// `--threads` holds).
pub fn pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Failed(format!("cannot start {threads} threads: {e}")))
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn a_count_is_at_most_the_cores() {
        let cores = count(0);
        assert!(cores >= 1);
        assert_eq!(count(1), 1);
        assert_eq!(count(1_000_000), cores);
        assert_eq!(count(usize::MAX), cores);
    }
}
