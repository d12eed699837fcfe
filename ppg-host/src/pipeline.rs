//! Many queries in bounded memory, in input order: a reader thread reads tasks into
//! batches of a window, a rayon pool runs each batch, and the calling thread hands the
//! results to the writer in input order. Memory is two windows of tasks (the one running
//! and the one read ahead) plus what the running tasks take, whatever the number of
//! queries; the output does not depend on the thread count.

use std::sync::mpsc;

use rayon::prelude::*;

use crate::error::Result;

/// Tasks in flight per thread: enough that the threads of a batch rarely wait for one
/// long task at its end, few enough that memory stays flat.
pub const WINDOW_PER_THREAD: usize = 64;

/// Runs every task `read` returns through `work` on `pool`, `window` tasks at a time, and
/// hands each task with its result to `write` in the order `read` returned them;
/// `batch_written` hears how many were written after each batch (for a progress display,
/// which costs too much to update at every task of a stream of small ones).
///
/// `read` runs on a thread of its own, one batch ahead of the pool; its first error ends
/// the run once the tasks read before it are written. `work` runs on the pool, one task
/// per job (a long task does not hold others back in its job).
///
/// # Errors
///
/// The first error of `read`, `work` or `write`, in input order: a task's error is returned
/// once every task before it is written, and nothing after it is written.
pub fn in_order<T, R>(
    read: impl FnMut() -> Result<Option<T>> + Send,
    window: usize,
    pool: &rayon::ThreadPool,
    work: impl Fn(&T) -> Result<R> + Sync,
    mut write: impl FnMut(&T, R) -> Result<()>,
    mut batch_written: impl FnMut(usize),
) -> Result<()>
where
    T: Send + Sync,
    R: Send,
{
    std::thread::scope(|scope| -> Result<()> {
        // Two batches queued at most: the reader reads ahead while the pool works.
        let (tx, rx) = mpsc::sync_channel::<Result<Vec<T>>>(1);
        scope.spawn(move || read_batches(read, window.max(1), tx));
        for batch in rx {
            let batch = batch?;
            let results: Vec<Result<R>> =
                pool.install(|| batch.par_iter().with_max_len(1).map(&work).collect());
            for (task, result) in batch.iter().zip(results) {
                write(task, result?)?;
            }
            batch_written(batch.len());
        }
        Ok(())
    })
}

/// Reads tasks and sends them in batches of `window`; stops at the first error, which it
/// sends after the batch before it, or when the receiver has gone.
fn read_batches<T>(
    mut read: impl FnMut() -> Result<Option<T>>,
    window: usize,
    tx: mpsc::SyncSender<Result<Vec<T>>>,
) {
    let mut batch = Vec::with_capacity(window);
    loop {
        match read() {
            Ok(Some(t)) => {
                batch.push(t);
                if batch.len() == window && tx.send(Ok(std::mem::take(&mut batch))).is_err() {
                    return;
                }
            }
            Ok(None) => {
                if !batch.is_empty() {
                    let _ = tx.send(Ok(batch));
                }
                return;
            }
            Err(e) => {
                if !batch.is_empty() && tx.send(Ok(std::mem::take(&mut batch))).is_err() {
                    return;
                }
                let _ = tx.send(Err(e));
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    /// Runs 0..n through `work`, a read error at `read_fails`; what was written, and the
    /// error.
    fn run(
        n: usize,
        window: usize,
        threads: usize,
        read_fails: Option<usize>,
        work: impl Fn(&usize) -> Result<usize> + Sync,
    ) -> (Vec<(usize, usize)>, Option<String>) {
        let mut next = 0;
        let read = move || {
            if Some(next) == read_fails {
                return Err(Error::Usage(format!("read {next}")));
            }
            next += 1;
            Ok((next <= n).then_some(next - 1))
        };
        let (mut written, mut batches) = (Vec::new(), Vec::new());
        let write = |&t: &usize, r| {
            written.push((t, r));
            Ok(())
        };
        let outcome = in_order(read, window, &pool(threads), work, write, |n| {
            batches.push(n)
        });
        // Every batch full but the last; none empty.
        if let Some((last, full)) = batches.split_last() {
            assert!(full.iter().all(|&n| n == window.max(1)) && (1..=window.max(1)).contains(last));
        }
        (written, outcome.err().map(|e| e.to_string()))
    }

    #[test]
    fn results_come_in_input_order_whatever_the_window_and_threads() {
        // Later tasks finish first: the writer still sees 0, 1, 2, ...
        let slow_first = |&t: &usize| {
            std::thread::sleep(std::time::Duration::from_micros((50 - t as u64 % 50) * 20));
            Ok(t * t)
        };
        let want: Vec<(usize, usize)> = (0..200).map(|t| (t, t * t)).collect();
        for (window, threads) in [(1, 1), (7, 2), (64, 4), (1000, 3)] {
            assert_eq!(
                run(200, window, threads, None, slow_first),
                (want.clone(), None)
            );
        }
        assert_eq!(run(0, 8, 2, None, slow_first), (vec![], None));
    }

    #[test]
    fn a_failed_task_is_returned_after_every_task_before_it_is_written() {
        let fails_at_13 = |&t: &usize| {
            if t == 13 {
                Err(Error::Failed("task 13".into()))
            } else {
                Ok(t)
            }
        };
        let (written, error) = run(100, 5, 3, None, fails_at_13);
        assert_eq!(written, (0..13).map(|t| (t, t)).collect::<Vec<_>>());
        assert_eq!(error.as_deref(), Some("task 13"));
    }

    #[test]
    fn a_read_error_ends_the_run_after_the_tasks_read_before_it() {
        let (written, error) = run(100, 4, 2, Some(10), |&t| Ok(t));
        assert_eq!(written, (0..10).map(|t| (t, t)).collect::<Vec<_>>());
        assert_eq!(error.as_deref(), Some("read 10"));
    }

    #[test]
    fn a_write_error_stops_the_reader() {
        // The reader would go on forever: the run ends because the writer failed.
        let mut next = 0usize;
        let endless = move || {
            next += 1;
            Ok(Some(next))
        };
        let mut writes = 0;
        let outcome = in_order(
            endless,
            3,
            &pool(2),
            |&t| Ok(t),
            |_, _| {
                writes += 1;
                if writes == 7 {
                    Err(Error::Failed("disk full".into()))
                } else {
                    Ok(())
                }
            },
            |_| (),
        );
        assert_eq!(outcome.unwrap_err().to_string(), "disk full");
        assert_eq!(writes, 7);
    }
}
