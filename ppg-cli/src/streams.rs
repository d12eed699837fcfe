//! What `ppg rerank` reads and writes: a file or `-` (stdin, stdout), gzip when the name
//! ends in `.gz`; the output and the report where [`destination`](crate::destination)
//! decided, files committed together once both are written.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Stdout, Write};
use std::path::Path;

use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;

use crate::destination::{is_std, Destination};
use ppg_host::error::{Error, Result};
use ppg_host::output::{commit_both, AtomicFile, Ready};

fn gz(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

/// Opens the input: `-` is stdin, a name ending in `.gz` is decompressed.
pub fn open_input(path: &Path) -> Result<Box<dyn Read + Send>> {
    let name = path.display().to_string();
    let raw: Box<dyn Read + Send> = if is_std(path) {
        Box::new(std::io::stdin())
    } else {
        Box::new(File::open(path).map_err(|e| Error::input(&name, 0, format!("cannot read: {e}")))?)
    };
    Ok(if gz(path) {
        Box::new(MultiGzDecoder::new(raw))
    } else {
        raw
    })
}

/// The bytes under the optional gzip layer.
enum Sink {
    Stdout(BufWriter<Stdout>),
    /// A device, FIFO or socket.
    Direct(BufWriter<File>),
    /// A regular file, renamed onto its name at the end.
    File(BufWriter<File>, AtomicFile),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Stdout(w) => w.write(buf),
            Sink::Direct(w) | Sink::File(w, _) => w.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Stdout(w) => w.flush(),
            Sink::Direct(w) | Sink::File(w, _) => w.flush(),
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
    /// The output at `destination`, gzip-compressed when the name the user gave (`named`)
    /// ends in `.gz`.
    ///
    /// # Errors
    /// The temporary file or the device cannot be opened.
    pub fn create(destination: &Destination, named: Option<&Path>) -> Result<Self> {
        let buffered = |f| BufWriter::with_capacity(1 << 16, f);
        let (sink, name) = match destination {
            Destination::Replace(p) => {
                let (atomic, file) = AtomicFile::create(p)?;
                (Sink::File(buffered(file), atomic), p.display().to_string())
            }
            Destination::Direct(p) => {
                // A FIFO waits here for its reader, as a shell's redirection does.
                let file = OpenOptions::new()
                    .write(true)
                    .open(p)
                    .map_err(|e| Error::Failed(format!("cannot write {}: {e}", p.display())))?;
                (Sink::Direct(buffered(file)), p.display().to_string())
            }
            Destination::Stdout => (
                Sink::Stdout(BufWriter::with_capacity(1 << 16, std::io::stdout())),
                "stdout".to_owned(),
            ),
        };
        let writer = match named {
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
    pub fn failed(&self, e: std::io::Error) -> Error {
        Error::Failed(format!("cannot write {}: {e}", self.name))
    }

    /// Ends the gzip stream and flushes; a file is made durable, and returned to be
    /// renamed onto its name ([`commit`]).
    pub fn finish(self) -> Result<Option<Ready>> {
        let name = self.name;
        let fail = |e: std::io::Error| Error::Failed(format!("cannot write {name}: {e}"));
        let sink = match self.writer {
            Layer::Plain(s) => s,
            Layer::Gz(g) => g.finish().map_err(fail)?,
        };
        match sink {
            Sink::Stdout(mut w) => w.flush().map_err(fail).map(|()| None),
            Sink::Direct(mut w) => w.flush().map_err(fail).map(|()| None),
            Sink::File(w, atomic) => {
                let file = w.into_inner().map_err(|e| fail(e.into_error()))?;
                atomic.sync(file).map(Some)
            }
        }
    }
}

/// Renames the finished files onto their names: both or neither.
///
/// # Errors
/// A rename failed; what was committed is taken back ([`commit_both`]).
pub fn commit(output: Option<Ready>, report: Option<Ready>) -> Result<()> {
    match (output, report) {
        (Some(output), Some(report)) => commit_both(output, report),
        (Some(one), None) | (None, Some(one)) => one.commit(),
        (None, None) => Ok(()),
    }
}
