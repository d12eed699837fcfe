//! SIGINT, SIGTERM and SIGHUP: every temporary file and folder of the process is removed,
//! a line says which signal stopped the run, and the process exits with 128 + the signal's
//! number, as a shell reports a process the signal killed.
//!
//! The signals are received by a thread of their own (signal-hook's iterator), so the
//! removal runs as ordinary code rather than in a signal handler, and `exit` stops the
//! other threads wherever they are: the work stops at once. What is removed is what the
//! process registered ([`Scratch`]); committing an output ([`during_commit`]) holds the
//! same lock, so a signal comes either before the rename (the temporary file is removed,
//! nothing is committed) or after it (the output is whole).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::error::{Error, Result};

/// The temporary paths of the process, by a key that [`Scratch`] keeps.
static LIVE: Mutex<Vec<(u64, PathBuf)>> = Mutex::new(Vec::new());
static NEXT_KEY: AtomicU64 = AtomicU64::new(0);

fn live() -> MutexGuard<'static, Vec<(u64, PathBuf)>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Starts the thread that receives the three signals. Call it before the first temporary
/// path is registered.
///
/// # Errors
/// The signals could not be set up (the operating system refused).
pub fn install() -> Result<()> {
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])
        .map_err(|e| Error::Failed(format!("cannot set up signal handling: {e}")))?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                stop(signal);
            }
        })
        .map_err(|e| Error::Failed(format!("cannot start the signal thread: {e}")))?;
    Ok(())
}

/// Removes every registered path and exits with 128 + `signal`.
fn stop(signal: i32) -> ! {
    let name = match signal {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        _ => "SIGHUP",
    };
    // Held until exit: no commit starts or finishes after this point.
    let paths = live();
    for (_, path) in paths.iter() {
        // Best effort: a path renamed or removed already is no error here.
        let _ = remove(path);
    }
    eprintln!("ppg: stopped by {name}; its temporary files are removed");
    std::process::exit(128 + signal);
}

/// Removes a file, or a folder and what it holds.
///
/// # Errors
/// The removal failed (it may be gone already, or not this user's to remove).
pub fn remove(path: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(path)?.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    }
}

/// A temporary path removed if a signal stops the process while this is alive. Dropping
/// it only forgets the path (its owner, a `NamedTempFile` or `TempDir`, removes it).
pub struct Scratch {
    key: u64,
}

impl Scratch {
    /// Registers `path`.
    pub fn new(path: &Path) -> Self {
        let key = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
        live().push((key, path.to_path_buf()));
        Scratch { key }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        live().retain(|(k, _)| *k != self.key);
    }
}

/// Runs `commit` (a rename onto the output) with the signal thread held off; `commit`
/// must not drop a [`Scratch`].
pub fn during_commit<T>(commit: impl FnOnce() -> T) -> T {
    let _held = live();
    commit()
}
