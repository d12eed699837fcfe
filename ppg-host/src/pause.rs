//! A test hook: with `PPG_PAUSE_AT=POINT:FIFO` in the environment, the first time the
//! process reaches the named point it says `ppg: paused at POINT` on stderr and waits there
//! until the FIFO has been opened for writing and closed. The tests of `ppg rerank` use it
//! to signal a run, or race two, at a moment they know: `reading` (the first query read),
//! `optimising` (the first query on an engine), `merging` (the external sort's segments
//! written, the merge begun), `committing` (the output and the report written in full,
//! neither renamed yet). Without the variable a point costs one atomic load.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// The environment variable.
pub const VARIABLE: &str = "PPG_PAUSE_AT";

static SPEC: OnceLock<Option<(String, PathBuf)>> = OnceLock::new();
static PAUSED: AtomicBool = AtomicBool::new(false);

/// Waits here if the environment names `point` and this is the first time it is reached.
pub fn at(point: &str) {
    if PAUSED.load(Ordering::Relaxed) {
        return;
    }
    let spec = SPEC.get_or_init(|| {
        let value = std::env::var(VARIABLE).ok()?;
        let (point, fifo) = value.split_once(':')?;
        Some((point.to_owned(), PathBuf::from(fifo)))
    });
    let Some((wanted, fifo)) = spec else {
        PAUSED.store(true, Ordering::Relaxed);
        return;
    };
    if wanted != point || PAUSED.swap(true, Ordering::Relaxed) {
        return;
    }
    eprintln!("ppg: paused at {point}");
    // Blocks until a writer opens the FIFO, then reads to its closing.
    drop(std::fs::read(fifo));
}
