//! Work spread over threads, results in task order whatever the thread count.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a worker returns: its `(task, result)` pairs, or the task that failed and why.
pub type WorkerOutcome<T, E> = Result<Vec<(usize, T)>, (usize, E)>;

/// The tasks a worker pulls, one index at a time, in the order given.
pub struct Tasks<'a> {
    order: &'a [usize],
    next: AtomicUsize,
    failed: AtomicBool,
    progress: Option<&'a Progress>,
}

impl Tasks<'_> {
    /// The next task index; `None` when all are taken or a task has failed.
    pub fn next(&self) -> Option<usize> {
        if self.failed.load(Ordering::Relaxed) {
            return None;
        }
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        self.order.get(k).copied()
    }

    /// Marks one task done (for the progress bar).
    pub fn done(&self) {
        if let Some(p) = self.progress {
            p.tick();
        }
    }
}

/// Runs `worker` on `threads` threads. Each call pulls task indices from [`Tasks::next`]
/// (in `order`, a permutation of `0..count`: put the longest first) until none is left,
/// and returns `(index, result)` pairs; the results come back indexed by task. A worker
/// that returns an error stops the others from taking new tasks; the first error in task
/// order is returned.
///
/// Set-up that should happen once per thread (an engine and its memory) goes at the top
/// of `worker`.
pub fn map<T, E, F>(
    order: &[usize],
    threads: usize,
    progress: Option<&Progress>,
    worker: F,
) -> Result<Vec<T>, E>
where
    T: Send,
    E: Send,
    F: Fn(&Tasks) -> WorkerOutcome<T, E> + Sync,
{
    let tasks = Tasks {
        order,
        next: AtomicUsize::new(0),
        failed: AtomicBool::new(false),
        progress,
    };
    let threads = threads.clamp(1, order.len().max(1));
    let outcomes: Vec<WorkerOutcome<T, E>> = if threads == 1 {
        vec![worker(&tasks)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        let out = worker(&tasks);
                        if out.is_err() {
                            tasks.failed.store(true, Ordering::Relaxed);
                        }
                        out
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("worker thread panicked"))
                .collect()
        })
    };
    let mut slots: Vec<Option<T>> = (0..order.len()).map(|_| None).collect();
    let mut first_error: Option<(usize, E)> = None;
    for outcome in outcomes {
        match outcome {
            Ok(results) => {
                for (k, t) in results {
                    slots[k] = Some(t);
                }
            }
            Err((k, e)) => {
                if first_error.as_ref().is_none_or(|(j, _)| k < *j) {
                    first_error = Some((k, e));
                }
            }
        }
    }
    if let Some((_, e)) = first_error {
        return Err(e);
    }
    Ok(slots
        .into_iter()
        .map(|s| s.expect("every task ran"))
        .collect())
}

/// Thread count: `requested`, or every core when 0.
pub fn threads(requested: usize) -> usize {
    if requested > 0 {
        requested
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

/// A one-line progress bar on stderr, drawn at most ten times a second and only when
/// stderr is a terminal.
pub struct Progress {
    label: String,
    total: usize,
    done: AtomicUsize,
    last: Mutex<Instant>,
    start: Instant,
}

impl Progress {
    /// A bar over `total` tasks, or `None` when there are fewer than `min_total` of them or
    /// stderr is not a terminal.
    pub fn new(label: &str, total: usize, min_total: usize) -> Option<Progress> {
        if total < min_total || !std::io::stderr().is_terminal() {
            return None;
        }
        let now = Instant::now();
        Some(Progress {
            label: label.to_owned(),
            total,
            done: AtomicUsize::new(0),
            last: Mutex::new(now - Duration::from_secs(1)),
            start: now,
        })
    }

    fn tick(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let Ok(mut last) = self.last.try_lock() else {
            return;
        };
        if done < self.total && last.elapsed() < Duration::from_millis(100) {
            return;
        }
        *last = Instant::now();
        let width = 30;
        let filled = done * width / self.total.max(1);
        let bar: String = (0..width)
            .map(|k| if k < filled { '#' } else { '-' })
            .collect();
        let _ = write!(
            std::io::stderr(),
            "\r{} [{bar}] {done}/{} {:.1}s",
            self.label,
            self.total,
            self.start.elapsed().as_secs_f64()
        );
    }

    /// Clears the bar's line.
    pub fn finish(&self) {
        let _ = write!(std::io::stderr(), "\r{:width$}\r", "", width = 80);
    }
}
