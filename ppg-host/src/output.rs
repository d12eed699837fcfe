//! Output files that appear whole or not at all.

use std::fs::{File, Permissions};
use std::io::{BufWriter, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::error::{CliError, Result};
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
            CliError::Usage(format!(
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
        let fail = |e: std::io::Error, what: &str, p: &Path| {
            CliError::Failed(format!("cannot {what} {}: {e}", p.display()))
        };
        sync(&file).map_err(|e| fail(e, "write", &self.dest))?;
        drop(file);
        self.temp
            .persist(&self.dest)
            .map_err(|e| fail(e, "rename onto", &self.dest))
    }
}

/// Writes `text` to `dest` atomically.
pub fn write_atomic(dest: &Path, text: &str) -> Result<()> {
    let (atomic, file) = AtomicFile::create(dest)?;
    let mut w = BufWriter::new(file);
    w.write_all(text.as_bytes())
        .map_err(|e| CliError::Failed(format!("cannot write {}: {e}", dest.display())))?;
    let file = w
        .into_inner()
        .map_err(|e| CliError::Failed(format!("cannot write {}: {e}", dest.display())))?;
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

    #[test]
    fn committed_file_is_whole_and_alone() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.tsv");
        write_atomic(&dest, "qid\n").unwrap();
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "qid\n");
        assert!(leftovers(dir.path()).is_empty());
    }
}
