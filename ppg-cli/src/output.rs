//! Output files that appear whole or not at all.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::{CliError, Result};

/// A file written under a temporary name in the destination's directory and renamed onto
/// the destination by [`AtomicFile::commit`]; dropped uncommitted, it is removed, so a
/// failed run leaves no partial output behind.
pub struct AtomicFile {
    temp: PathBuf,
    dest: PathBuf,
    writer: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Creates the temporary file next to `dest`.
    pub fn create(dest: &Path) -> Result<Self> {
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
        Ok(AtomicFile {
            temp,
            dest: dest.to_path_buf(),
            writer: Some(BufWriter::new(file)),
        })
    }

    /// The writer.
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        self.writer.as_mut().expect("present until commit")
    }

    /// Flushes and renames onto the destination.
    pub fn commit(mut self) -> Result<()> {
        let writer = self.writer.take().expect("present until commit");
        let fail = |e: std::io::Error, what: &str, p: &Path| {
            CliError::Failed(format!("cannot {what} {}: {e}", p.display()))
        };
        let file = writer
            .into_inner()
            .map_err(|e| fail(e.into_error(), "write", &self.temp))?;
        file.sync_all().map_err(|e| fail(e, "write", &self.temp))?;
        drop(file);
        std::fs::rename(&self.temp, &self.dest).map_err(|e| fail(e, "rename onto", &self.dest))
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Writes `text` to `dest` atomically.
pub fn write_atomic(dest: &Path, text: &str) -> Result<()> {
    let mut file = AtomicFile::create(dest)?;
    file.writer()
        .write_all(text.as_bytes())
        .map_err(|e| CliError::Failed(format!("cannot write {}: {e}", dest.display())))?;
    file.commit()
}
