//! Long calls run without the GIL and still stop on Ctrl-C.
//!
//! Python runs signal handlers on its main thread, and only when that thread holds the GIL
//! and asks. [`interruptible`] therefore runs the work on a scoped thread without the GIL,
//! while the calling thread wakes every [`POLL`] to take the GIL for a moment and ask
//! (`check_signals`). When a handler raises (Ctrl-C: `KeyboardInterrupt`), it sets the
//! flag the work polls (between queries, and before every cost the trainer asks for, see
//! `ppg_cli::rerank_query::Stoppable`), waits for the work to end, and returns the
//! handler's exception.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use pyo3::prelude::*;

/// How often the calling thread asks for signals: well under the second within which a
/// Ctrl-C must be honoured.
pub const POLL: Duration = Duration::from_millis(50);

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
    let stop = AtomicBool::new(false);
    let caller = std::thread::current();
    let (outcome, signal) = py.detach(|| {
        std::thread::scope(|scope| {
            let worker = scope.spawn(|| {
                let r = work(&stop);
                caller.unpark();
                r
            });
            let mut signal = None;
            while !worker.is_finished() {
                std::thread::park_timeout(POLL);
                if signal.is_none() && !worker.is_finished() {
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
