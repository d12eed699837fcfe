//! Output files that appear whole or not at all.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::{CliError, Result};

/// A file written under a temporary name in the destination's directory and renamed onto
/// the destination by [`AtomicFile::commit`]. Until the rename succeeds the temporary file
/// is removed when this is dropped, whatever step failed: a failed run leaves neither a
/// partial output nor a temporary file behind.
pub struct AtomicFile {
    temp: PathBuf,
    dest: PathBuf,
    committed: bool,
}

impl AtomicFile {
    /// Creates the temporary file next to `dest`, and the file to write it through.
    pub fn create(dest: &Path) -> Result<(Self, File)> {
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = dest
            .file_name()
            .ok_or_else(|| CliError::Usage(format!("{}: not a file name", dest.display())))?;
        let temp = dir.join(format!(
            ".{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let file = File::create(&temp)
            .map_err(|e| CliError::Usage(format!("cannot create {}: {e}", temp.display())))?;
        Ok((
            AtomicFile {
                temp,
                dest: dest.to_path_buf(),
                committed: false,
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
        mut self,
        file: File,
        sync: impl FnOnce(&File) -> std::io::Result<()>,
    ) -> Result<()> {
        let fail = |e: std::io::Error, what: &str, p: &Path| {
            CliError::Failed(format!("cannot {what} {}: {e}", p.display()))
        };
        sync(&file).map_err(|e| fail(e, "write", &self.temp))?;
        drop(file);
        std::fs::rename(&self.temp, &self.dest).map_err(|e| fail(e, "rename onto", &self.dest))?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.temp);
        }
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
            .filter(|n| n.ends_with(".tmp"))
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
