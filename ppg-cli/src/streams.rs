//! Where `ppg rerank` reads and writes: a file or `-` (stdin, stdout), gzip when the name
//! ends in `.gz`, an output file written atomically and never the input itself.

use std::fs::File;
use std::io::{BufWriter, Read, Stdout, Write};
use std::path::Path;

use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;

use crate::error::{CliError, Result};
use crate::output::AtomicFile;

/// Whether `path` names a standard stream.
pub fn is_std(path: &Path) -> bool {
    path.as_os_str() == "-"
}

fn gz(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

/// Opens the input: `-` is stdin, a name ending in `.gz` is decompressed.
pub fn open_input(path: &Path) -> Result<Box<dyn Read + Send>> {
    let name = path.display().to_string();
    let raw: Box<dyn Read + Send> = if is_std(path) {
        Box::new(std::io::stdin())
    } else {
        Box::new(
            File::open(path).map_err(|e| CliError::input(&name, 0, format!("cannot read: {e}")))?,
        )
    };
    Ok(if gz(path) {
        Box::new(MultiGzDecoder::new(raw))
    } else {
        raw
    })
}

/// Refuses an output that is the input: the same canonical path, or the same device and
/// inode (a hard link).
pub fn refuse_same_file(input: &Path, output: &Path) -> Result<()> {
    if is_std(input) || is_std(output) {
        return Ok(());
    }
    let same_path = match (input.canonicalize(), output.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same_path || same_inode(input, output) {
        return Err(CliError::Usage(format!(
            "the output {} is the input: write elsewhere (the input would be lost)",
            output.display()
        )));
    }
    Ok(())
}

#[cfg(unix)]
fn same_inode(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_inode(_: &Path, _: &Path) -> bool {
    false
}

/// The bytes under the optional gzip layer.
enum Sink {
    Stdout(BufWriter<Stdout>),
    File(BufWriter<File>, AtomicFile),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Stdout(w) => w.write(buf),
            Sink::File(w, _) => w.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Stdout(w) => w.flush(),
            Sink::File(w, _) => w.flush(),
        }
    }
}

/// The output: stdout or an atomic file, gzip-compressed when the name ends in `.gz`.
pub struct Output {
    name: String,
    writer: Layer,
}

enum Layer {
    Plain(Sink),
    Gz(GzEncoder<Sink>),
}

impl Output {
    /// Stdout when `path` is `None` or `-`, else a temporary file beside `path`.
    pub fn create(path: Option<&Path>) -> Result<Self> {
        let (sink, name) = match path {
            Some(p) if !is_std(p) => {
                let (atomic, file) = AtomicFile::create(p)?;
                (
                    Sink::File(BufWriter::with_capacity(1 << 16, file), atomic),
                    p.display().to_string(),
                )
            }
            _ => (
                Sink::Stdout(BufWriter::with_capacity(1 << 16, std::io::stdout())),
                "stdout".to_owned(),
            ),
        };
        let writer = match path {
            Some(p) if gz(p) => Layer::Gz(GzEncoder::new(sink, Compression::default())),
            _ => Layer::Plain(sink),
        };
        Ok(Output { name, writer })
    }

    /// The writer.
    pub fn writer(&mut self) -> &mut dyn Write {
        match &mut self.writer {
            Layer::Plain(w) => w,
            Layer::Gz(w) => w,
        }
    }

    /// An error writing to this output.
    pub fn failed(&self, e: std::io::Error) -> CliError {
        CliError::Failed(format!("cannot write {}: {e}", self.name))
    }

    /// Ends the gzip stream, flushes, and renames a file onto its name.
    pub fn finish(self) -> Result<()> {
        let name = self.name;
        let fail = |e: std::io::Error| CliError::Failed(format!("cannot write {name}: {e}"));
        let sink = match self.writer {
            Layer::Plain(s) => s,
            Layer::Gz(g) => g.finish().map_err(fail)?,
        };
        match sink {
            Sink::Stdout(mut w) => w.flush().map_err(fail),
            Sink::File(w, atomic) => {
                let file = w.into_inner().map_err(|e| fail(e.into_error()))?;
                atomic.commit(file)
            }
        }
    }
}
