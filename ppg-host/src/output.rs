//! Output files that appear whole or not at all, alone ([`AtomicFile::commit`]) or two
//! together ([`commit_both`]: both or neither).

use std::fs::{File, Permissions};
use std::io::{BufWriter, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::{flock, renameat_with, FlockOperation, RenameFlags, CWD};
use rustix::io::Errno;

use crate::error::{Error, Result};
use crate::interrupt;
use crate::scratch::TempFile;

/// A file written under a temporary name in the destination's folder ([`TempFile`]) and
/// renamed onto the destination by [`AtomicFile::commit`]. Until the rename succeeds the
/// temporary file is removed when this is dropped, whatever step failed, and when a signal
/// stops the process: a failed run leaves neither a partial output nor a temporary file.
/// A file it replaces keeps its mode, and its owner where the process may give it.
pub struct AtomicFile {
    temp: TempFile,
    dest: PathBuf,
}

impl AtomicFile {
    /// Creates the temporary file next to `dest` (a regular file or a name that does not
    /// exist yet), and the file to write it through.
    pub fn create(dest: &Path) -> Result<(Self, File)> {
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let existing = std::fs::metadata(dest).ok().filter(|m| m.is_file());
        let cannot = |e: std::io::Error| {
            Error::Usage(format!(
                "cannot write {}: cannot create a file in its folder {}: {e}",
                dest.display(),
                dir.display()
            ))
        };
        let mode = existing
            .as_ref()
            .map_or(0o666, |m| m.permissions().mode() & 0o7777);
        let temp = TempFile::new(&dir, Permissions::from_mode(mode)).map_err(cannot)?;
        let file = temp.file.as_file();
        if let Some(m) = &existing {
            // The umask took bits off at creation: the replaced file's mode, exactly.
            file.set_permissions(m.permissions()).map_err(cannot)?;
            // Only root may give a file away; others keep the file theirs.
            let _ = std::os::unix::fs::fchown(file, Some(m.uid()), Some(m.gid()));
        }
        let file = file.try_clone().map_err(cannot)?;
        Ok((
            AtomicFile {
                temp,
                dest: dest.to_path_buf(),
            },
            file,
        ))
    }

    /// Makes `file` (written completely) durable and renames it onto the destination.
    pub fn commit(self, file: File) -> Result<()> {
        self.commit_with(file, |f| f.sync_all())
    }

    /// [`AtomicFile::commit`] with `sync` as the step that makes the file durable (a
    /// parameter so that its failure can be tested).
    pub fn commit_with(
        self,
        file: File,
        sync: impl FnOnce(&File) -> std::io::Result<()>,
    ) -> Result<()> {
        self.sync_with(file, sync)?.commit()
    }

    /// Makes `file` (written completely) durable: what is left is the rename
    /// ([`Ready::commit`], or [`commit_both`] for two files that go together).
    pub fn sync(self, file: File) -> Result<Ready> {
        self.sync_with(file, |f| f.sync_all())
    }

    fn sync_with(
        self,
        file: File,
        sync: impl FnOnce(&File) -> std::io::Result<()>,
    ) -> Result<Ready> {
        sync(&file).map_err(|e| failed(e, "write", &self.dest))?;
        Ok(Ready(self))
    }
}

/// A file written and made durable, not yet renamed onto its destination; dropped, its
/// temporary file is removed.
pub struct Ready(AtomicFile);

impl Ready {
    /// Renames the file onto its destination.
    ///
    /// # Errors
    /// The rename failed; the temporary file is removed.
    pub fn commit(self) -> Result<()> {
        let AtomicFile { temp, dest } = self.0;
        temp.persist(&dest)
            .map_err(|e| failed(e, "rename onto", &dest))
    }

    /// Puts the file at its destination and says how to take it back: a regular file
    /// there is exchanged with it (`renameat2`'s `RENAME_EXCHANGE`: the temporary name then
    /// holds the replaced file, removed with it), a new name is renamed to. Anything else
    /// there (a folder put in its place meanwhile) gets the plain rename, which fails on a
    /// folder as a lone commit does.
    fn put(&self) -> std::io::Result<Undo> {
        let (temp, dest) = (self.0.temp.file.path(), &self.0.dest);
        match std::fs::symlink_metadata(dest) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::rename(temp, dest)?;
                return Ok(Undo::Rename);
            }
            Ok(m) if m.is_file() => {
                // Under a temporary name, the replaced file would look like a dead run's
                // to another run's clean-up ([`TempFile`]) unless it is locked.
                let lock = File::open(dest)
                    .ok()
                    .filter(|f| flock(f, FlockOperation::NonBlockingLockExclusive).is_ok());
                match renameat_with(CWD, temp, CWD, dest, RenameFlags::EXCHANGE) {
                    Ok(()) => return Ok(Undo::Exchange { _held: lock }),
                    // A file system without the exchange: the plain rename.
                    Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => {}
                    Err(e) => return Err(e.into()),
                }
            }
            _ => {}
        }
        std::fs::rename(temp, dest)?;
        Ok(Undo::Cannot)
    }

    /// Takes back what [`Ready::put`] did.
    fn undo(&self, undo: Undo) -> std::io::Result<()> {
        let (temp, dest) = (self.0.temp.file.path(), &self.0.dest);
        match undo {
            Undo::Exchange { .. } => {
                Ok(renameat_with(CWD, temp, CWD, dest, RenameFlags::EXCHANGE)?)
            }
            Undo::Rename => std::fs::rename(dest, temp),
            Undo::Cannot => Err(std::io::Error::other(
                "the file it replaced is gone (its file system cannot exchange two files)",
            )),
        }
    }
}

/// How to take back a file put at its destination.
enum Undo {
    /// With the replaced file's lock, held until then, when it could be taken.
    Exchange {
        _held: Option<File>,
    },
    Rename,
    Cannot,
}

/// Commits two files together, or neither (`ppg rerank`'s output and report): `first` is
/// put at its destination, then `second`; if the second cannot be, the first is taken
/// back, and the files that were there before stay. Signals wait for both (a `SIGKILL` or
/// a power cut between the two can still leave the first alone committed).
///
/// # Errors
/// A rename failed: the error names it, and says if the first could not be taken back.
pub fn commit_both(first: Ready, second: Ready) -> Result<()> {
    let outcome = interrupt::during_commit(|| {
        let undo = first
            .put()
            .map_err(|e| failed(e, "rename onto", &first.0.dest))?;
        let Err(e) = second.put() else {
            return Ok(());
        };
        let e = failed(e, "rename onto", &second.0.dest);
        match first.undo(undo) {
            Ok(()) => Err(e),
            Err(u) => Err(Error::Failed(format!(
                "{e}; {} was committed and cannot be taken back: {u}",
                first.0.dest.display()
            ))),
        }
    });
    // Each temporary name now holds a replaced file, the file taken back, or nothing:
    // removed (or found gone) with the temporary file.
    drop((first, second));
    outcome
}

fn failed(e: std::io::Error, what: &str, p: &Path) -> Error {
    Error::Failed(format!("cannot {what} {}: {e}", p.display()))
}

/// Writes `text` to `dest` atomically.
pub fn write_atomic(dest: &Path, text: &str) -> Result<()> {
    let (atomic, file) = AtomicFile::create(dest)?;
    let mut w = BufWriter::new(file);
    w.write_all(text.as_bytes())
        .map_err(|e| Error::Failed(format!("cannot write {}: {e}", dest.display())))?;
    let file = w
        .into_inner()
        .map_err(|e| Error::Failed(format!("cannot write {}: {e}", dest.display())))?;
    atomic.commit(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".ppg-output."))
            .collect()
    }

    #[test]
    fn failed_rename_removes_the_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("outdir");
        std::fs::create_dir(&dest).unwrap();
        let e = write_atomic(&dest, "qid\n").unwrap_err();
        assert!(e.to_string().contains("cannot rename onto"), "{e}");
        assert!(
            leftovers(dir.path()).is_empty(),
            "{:?}",
            leftovers(dir.path())
        );
    }

    #[test]
    fn failed_sync_removes_the_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.tsv");
        let (atomic, mut file) = AtomicFile::create(&dest).unwrap();
        file.write_all(b"qid\n").unwrap();
        assert_eq!(leftovers(dir.path()).len(), 1, "the temp file is there");
        let e = atomic
            .commit_with(file, |_| Err(std::io::Error::other("disk gone")))
            .unwrap_err();
        assert!(e.to_string().contains("disk gone"), "{e}");
        assert!(leftovers(dir.path()).is_empty());
        assert!(!dest.exists());
    }

    /// `text` written to a file bound for `dest`, made durable.
    fn ready(dest: &Path, text: &str) -> Ready {
        let (atomic, mut file) = AtomicFile::create(dest).unwrap();
        file.write_all(text.as_bytes()).unwrap();
        atomic.sync(file).unwrap()
    }

    #[test]
    fn two_files_are_committed_together_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.tsv"), dir.path().join("b.tsv"));
        std::fs::write(&a, "old a\n").unwrap();
        // Both: the existing one replaced, the new one made.
        commit_both(ready(&a, "new a\n"), ready(&b, "new b\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "new a\n");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "new b\n");
        assert!(leftovers(dir.path()).is_empty());
        // The second's name a folder: the first is taken back, replaced or new.
        let folder = dir.path().join("folder");
        std::fs::create_dir(&folder).unwrap();
        let c = dir.path().join("c.tsv");
        for (first, before) in [(&a, Some("new a\n")), (&c, None)] {
            let e = commit_both(ready(first, "newer\n"), ready(&folder, "x\n")).unwrap_err();
            assert!(e.to_string().contains("cannot rename onto"), "{e}");
            assert_eq!(std::fs::read_to_string(first).ok().as_deref(), before);
            assert!(
                leftovers(dir.path()).is_empty(),
                "{:?}",
                leftovers(dir.path())
            );
        }
    }

    /// Between the first rename and the second, the replaced file waits under the
    /// temporary name, locked: another run's clean-up takes it for a live run's and leaves
    /// it, so the first can still be taken back.
    #[test]
    fn the_replaced_file_is_locked_while_it_waits() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.tsv");
        std::fs::write(&a, "old\n").unwrap();
        let first = ready(&a, "new\n");
        let undo = first.put().unwrap();
        let waiting = File::open(first.0.temp.file.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(first.0.temp.file.path()).unwrap(),
            "old\n"
        );
        assert!(flock(&waiting, FlockOperation::NonBlockingLockExclusive).is_err());
        first.undo(undo).unwrap();
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "old\n");
        drop(first);
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn committed_file_is_whole_and_alone() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.tsv");
        write_atomic(&dest, "qid\n").unwrap();
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "qid\n");
        assert!(leftovers(dir.path()).is_empty());
    }
}
