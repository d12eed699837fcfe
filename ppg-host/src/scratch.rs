//! The temporary files and folders of `ppg`, and what a killed run left of them.
//!
//! Each is made by the tempfile crate (`O_EXCL`, a random name of fixed length, so two runs
//! never share one, whatever their process ids) under a name that says it is ppg's:
//! `.ppg-output.XXXXXXXXXXXX.tmp` beside an output, `.ppg-rerank.XXXXXXXXXXXX/` in TMPDIR
//! for the external sort. The run that made it holds an exclusive `flock` on it for as long
//! as it lives; the kernel drops the lock when the process ends, however it ends (SIGKILL
//! included). A later run looking at the same folder takes such a name for a dead run's
//! when it can take the lock itself, and removes it; a live run's lock makes it look away.
//! Between creating a name and locking it, a later run could take it for dead: the maker
//! checks after locking that the name is still its own and otherwise starts again.
//! Each path is also registered with [`interrupt`] while it lives.

use std::ffi::OsStr;
use std::fs::{File, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use rustix::fs::{flock, FlockOperation};
use tempfile::{Builder, NamedTempFile, TempDir};

use crate::error::{Error, Result};
use crate::interrupt::{self, Scratch};

const FILE_PREFIX: &str = ".ppg-output.";
const FILE_SUFFIX: &str = ".tmp";
const DIR_PREFIX: &str = ".ppg-rerank.";
const RANDOM: usize = 12;
/// Attempts at a name before giving up: each fails only when a later run's clean-up took
/// the name in the instant between its creation and its lock.
const ATTEMPTS: usize = 8;

/// Whether `name` is one this module makes with `prefix` and `suffix`.
fn is_ours(name: &OsStr, prefix: &str, suffix: &str) -> bool {
    name.to_str()
        .and_then(|n| n.strip_prefix(prefix))
        .and_then(|n| n.strip_suffix(suffix))
        .is_some_and(|r| r.len() == RANDOM && r.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// Takes the lock of `handle`, opened on `path`, and checks that `path` still names it.
/// `Ok(false)`: another run holds it or removed it; try another name. A file system without
/// `flock` leaves the path unlocked (a later run cannot lock it either, so leaves it).
fn lock(path: &Path, handle: &File) -> io::Result<bool> {
    match flock(handle, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => {}
        Err(rustix::io::Errno::WOULDBLOCK) => return Ok(false),
        Err(_) => return Ok(true),
    }
    let mine = handle.metadata()?;
    Ok(std::fs::symlink_metadata(path)
        .is_ok_and(|m| m.dev() == mine.dev() && m.ino() == mine.ino()))
}

/// Removes what killed runs left in `dir` under names made with `prefix` and `suffix`,
/// and says so on stderr. A name no run holds the lock of is dead; one that cannot be
/// opened or locked is left.
fn remove_dead(dir: &Path, prefix: &str, suffix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if !is_ours(&entry.file_name(), prefix, suffix) {
            continue;
        }
        let path = entry.path();
        let Ok(handle) = File::open(&path) else {
            continue;
        };
        if flock(&handle, FlockOperation::NonBlockingLockExclusive).is_ok()
            && interrupt::remove(&path).is_ok()
        {
            eprintln!(
                "ppg: removed {}, left by a run that was stopped",
                path.display()
            );
        }
    }
}

/// A temporary file beside an output, locked and registered until it is dropped or
/// renamed.
pub struct TempFile {
    /// The file; its path is the temporary name.
    pub file: NamedTempFile,
    registered: Scratch,
}

impl TempFile {
    /// Creates one in `dir` with `permissions` (the umask applies, as for any new file),
    /// after removing dead runs' temporary files there.
    ///
    /// # Errors
    /// The folder does not exist or is not writable.
    pub fn new(dir: &Path, permissions: Permissions) -> io::Result<Self> {
        remove_dead(dir, FILE_PREFIX, FILE_SUFFIX);
        for _ in 0..ATTEMPTS {
            let file = Builder::new()
                .prefix(FILE_PREFIX)
                .suffix(FILE_SUFFIX)
                .rand_bytes(RANDOM)
                .permissions(permissions.clone())
                .tempfile_in(dir)?;
            if lock(file.path(), file.as_file())? {
                let registered = Scratch::new(file.path());
                return Ok(TempFile { file, registered });
            }
        }
        Err(io::Error::other("no temporary name could be locked"))
    }

    /// Renames the file onto `dest`, with signals held off for the rename.
    ///
    /// # Errors
    /// The rename failed; the temporary file is removed.
    pub fn persist(self, dest: &Path) -> io::Result<()> {
        let TempFile { file, registered } = self;
        let renamed = interrupt::during_commit(|| file.persist(dest));
        drop(registered);
        renamed.map(drop).map_err(|e| e.error)
    }
}

/// The folder of the external sort in TMPDIR, locked and registered while the run lives;
/// the sort makes its own folder inside it.
pub struct SortFolder {
    _dir: TempDir,
    _lock: File,
    _registered: Scratch,
}

impl SortFolder {
    /// Removes dead runs' folders from TMPDIR, creates this run's, checks that a file can
    /// be written in it, and makes it the process's temporary folder (so that the external
    /// sort, which asks the tempfile crate for one, works inside it).
    ///
    /// # Errors
    /// TMPDIR is missing, read-only or full: exit 1, naming it, before the work starts
    /// (else it would surface after the first 262,144 queries as an error of the input).
    pub fn new() -> Result<Self> {
        let tmp = std::env::temp_dir();
        let failed = |e: io::Error| {
            Error::Failed(format!(
                "TMPDIR {}: cannot make the external sort's folder there: {e} (set TMPDIR \
                 to a writable folder with free space)",
                tmp.display()
            ))
        };
        remove_dead(&tmp, DIR_PREFIX, "");
        for _ in 0..ATTEMPTS {
            let dir = Builder::new()
                .prefix(DIR_PREFIX)
                .rand_bytes(RANDOM)
                .tempdir_in(&tmp)
                .map_err(failed)?;
            let handle = match File::open(dir.path()) {
                Ok(handle) => handle,
                // Another run's clean-up took the name between its creation and this open
                // (seen in CI: many runs starting at once in one TMPDIR).
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(failed(e)),
            };
            if !lock(dir.path(), &handle).map_err(failed)? {
                continue;
            }
            let registered = Scratch::new(dir.path());
            probe(dir.path()).map_err(failed)?;
            // The first call wins; `ppg rerank` makes one folder a process.
            let _ = tempfile::env::override_temp_dir(dir.path());
            return Ok(SortFolder {
                _dir: dir,
                _lock: handle,
                _registered: registered,
            });
        }
        Err(failed(io::Error::other("no folder name could be locked")))
    }
}

/// Writes and removes a file of 64 KiB in `dir`: a full file system refuses the write.
fn probe(dir: &Path) -> io::Result<()> {
    let path: PathBuf = dir.join("probe");
    let result = File::create_new(&path).and_then(|mut f| f.write_all(&[0; 1 << 16]));
    let _ = std::fs::remove_file(&path);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn names_are_recognised_exactly() {
        let file = |n: &str| is_ours(OsStr::new(n), FILE_PREFIX, FILE_SUFFIX);
        assert!(file(".ppg-output.Ab3dE6gH9jK1.tmp"));
        assert!(!file(".ppg-output.Ab3dE6gH9jK.tmp"), "one letter short");
        assert!(!file(".ppg-output.Ab3dE6-H9jK1.tmp"));
        assert!(
            !file(".out.tsv.1234.tmp"),
            "an older version's name is not ours"
        );
        assert!(is_ours(
            OsStr::new(".ppg-rerank.000000000000"),
            DIR_PREFIX,
            ""
        ));
    }

    #[test]
    fn a_dead_file_is_removed_and_a_live_one_kept() {
        let dir = tempfile::tempdir().unwrap();
        let mode = || Permissions::from_mode(0o644);
        let live = TempFile::new(dir.path(), mode()).unwrap();
        let dead = dir.path().join(".ppg-output.deaddeaddead.tmp");
        std::fs::write(&dead, "left").unwrap();
        let other = dir.path().join(".ppg-output.notes.tmp");
        std::fs::write(&other, "a user's").unwrap();
        let second = TempFile::new(dir.path(), mode()).unwrap();
        assert!(!dead.exists());
        assert!(live.file.path().exists() && second.file.path().exists() && other.exists());
    }
}
