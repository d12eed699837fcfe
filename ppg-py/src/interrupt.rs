//! Long calls run without the GIL and still stop on Ctrl-C.
//!
//! Python runs signal handlers on its main thread, and only when that thread holds the GIL
//! and asks (`check_signals`). Two ways to ask while the work runs without the GIL:
//! - [`polling`], for work on the calling thread (one list): the stop check the trainer
//!   calls before every cost (`ppg_host::rerank_query::Stoppable`) takes the GIL for a
//!   moment to ask, at most every [`POLL`] (the clock read every [`EVERY`] costs, so that
//!   a cheap cost does not pay for it);
//! - [`interruptible`], for work on a pool (many queries), whose threads cannot run
//!   Python's handlers: the calling thread waits, waking every [`POLL`] to ask, and on a
//!   signal sets the flag the workers poll.
//!
//! Either way a handler's exception (Ctrl-C: `KeyboardInterrupt`) ends the work at its
//! next cost and is returned.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pyo3::prelude::*;

/// How often the calling thread asks for signals: well under the second within which a
/// Ctrl-C must be honoured.
pub const POLL: Duration = Duration::from_millis(50);

/// Costs between two reads of the clock in [`polling`]: a cost of a short list takes well
/// under a microsecond, a read of the clock tens of nanoseconds.
pub const EVERY: u32 = 16;

/// Runs `work` on this thread without the GIL; the stop check it gets asks Python for
/// signals at most every [`POLL`] (see the module docs), and says stop from the first
/// signal on.
///
/// # Errors
/// The exception a signal handler raised; `work`'s own result otherwise.
pub fn polling<R: Send>(
    py: Python<'_>,
    work: impl FnOnce(&dyn Fn() -> bool) -> R + Send,
) -> PyResult<R> {
    let (outcome, signal) = py.detach(|| {
        let (calls, last, signal) = (
            Cell::new(0u32),
            Cell::new(Instant::now()),
            RefCell::new(None),
        );
        let stop = || {
            if signal.borrow().is_some() {
                return true;
            }
            calls.set(calls.get().wrapping_add(1));
            if calls.get() % EVERY != 0 || last.get().elapsed() < POLL {
                return false;
            }
            last.set(Instant::now());
            match Python::attach(|py| py.check_signals()) {
                Ok(()) => false,
                Err(e) => {
                    *signal.borrow_mut() = Some(e);
                    true
                }
            }
        };
        let outcome = work(&stop);
        (outcome, signal.into_inner())
    });
    match signal {
        Some(e) => Err(e),
        None => Ok(outcome),
    }
}

/// Runs `work` without the GIL, stopping it on a signal (see the module docs). `work`
/// gets the flag it must poll.
///
/// # Errors
/// The exception a signal handler raised (`KeyboardInterrupt` for Ctrl-C); `work`'s own
/// result otherwise.
pub fn interruptible<R: Send>(
    py: Python<'_>,
    work: impl FnOnce(&AtomicBool) -> R + Send,
) -> PyResult<R> {
    let (stop, done) = (AtomicBool::new(false), AtomicBool::new(false));
    let caller = std::thread::current();
    let (outcome, signal) = py.detach(|| {
        std::thread::scope(|scope| {
            // `done`, not `is_finished`: the worker wakes this thread before it has
            // finished, and a wake-up spent on a check would leave this thread asleep for a
            // whole POLL after the work ended.
            let worker = scope.spawn(|| {
                let r = work(&stop);
                done.store(true, Ordering::Release);
                caller.unpark();
                r
            });
            let mut signal = None;
            while !done.load(Ordering::Acquire) {
                std::thread::park_timeout(POLL);
                if signal.is_none() && !done.load(Ordering::Acquire) {
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        stop.store(true, Ordering::Relaxed);
                        signal = Some(e);
                    }
                }
            }
            (worker.join(), signal)
        })
    });
    match (outcome, signal) {
        (_, Some(e)) => Err(e),
        (Ok(r), None) => Ok(r),
        (Err(panic), None) => std::panic::resume_unwind(panic),
    }
}

/// Whether `stop` was set: the check handed to the trainer.
pub fn stopped(stop: &AtomicBool) -> bool {
    stop.load(Ordering::Relaxed)
}
