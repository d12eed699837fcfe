//! Where `ppg rerank` writes, decided before anything is read, as `sort -o`, `cp` and
//! `rsync` do:
//! - a regular file (or a new name) is replaced whole, by a rename ([`AtomicFile`]); its
//!   mode is kept; a read-only one (no write bit, or not writable by this user) is refused
//!   unless `--force`; a symlink is followed (its target is replaced, the link stays);
//! - anything else (a device, a FIFO, a socket, a terminal, `/dev/stdout` on a pipe) is
//!   opened and written to directly: renaming onto it would replace the node itself;
//! - a name for what stdout already is (`-o /dev/stdout`, `-o out.tsv > out.tsv`) is
//!   stdout;
//! - a folder, or a name ending in `/`, is refused;
//! - the input is never the output: compared by device and inode, for every path and for
//!   stdin and stdout (`ppg rerank y.tsv >> y.tsv`, `ppg rerank - -o x.tsv < x.tsv`);
//! - a closed stdout is refused rather than written to nowhere;
//! - two destinations of one run (`-o` and `--report`) are never one place
//!   ([`refuse_same`]): compared by what they are, not by how they are spelt.
//!
//! [`AtomicFile`]: ppg_host::output::AtomicFile

use std::ffi::OsString;
use std::fs::{File, Metadata};
use std::io;
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use rustix::fs::{access, fcntl_getfl, Access, OFlags};

use ppg_host::error::{Error, Result};

/// Whether `path` names a standard stream (`-`: stdin as the input, stdout as `-o`).
pub fn is_std(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Where the output goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// Standard output.
    Stdout,
    /// Not a regular file: opened and written directly.
    Direct(PathBuf),
    /// A regular file, new or replaced whole: the path the rename goes to.
    Replace(PathBuf),
}

/// Decides where `flag output` (`-o`, `--report`; stdout when `None` or `-`) writes for
/// `input`, refusing the cases the module lists; messages name `flag`.
///
/// # Errors
/// Usage errors (exit 2) for a folder, a read-only file without `force`, a dangling symlink
/// and an output that is the input; exit 1 for a closed stdout.
pub fn resolve(
    input: &Path,
    flag: &str,
    output: Option<&Path>,
    force: bool,
) -> Result<Destination> {
    let stdout = fstat(io::stdout().as_fd());
    let destination = match output {
        Some(p) if !is_std(p) => of_path(flag, p, stdout.as_ref().ok(), force)?,
        _ => Destination::Stdout,
    };
    let written = match &destination {
        Destination::Stdout => {
            refuse_closed_stdout()?;
            stdout.ok()
        }
        Destination::Replace(p) => std::fs::metadata(p).ok(),
        Destination::Direct(_) => None,
    };
    let read = if is_std(input) {
        fstat(io::stdin().as_fd()).ok()
    } else {
        std::fs::metadata(input).ok()
    };
    if let (Some(w), Some(r)) = (&written, &read) {
        // Only a regular file can be both: a terminal is read and written at once.
        if w.is_file() && w.dev() == r.dev() && w.ino() == r.ino() {
            let what = match output {
                Some(p) => format!("{flag} {}", p.display()),
                None => "stdout".to_owned(),
            };
            let input = if is_std(input) {
                "stdin".to_owned()
            } else {
                input.display().to_string()
            };
            return Err(Error::Usage(format!(
                "{what} is the input {input} (the same file): write elsewhere, the input \
                 would be lost"
            )));
        }
    }
    Ok(destination)
}

fn of_path(flag: &str, p: &Path, stdout: Option<&Metadata>, force: bool) -> Result<Destination> {
    let refused = |what: String| Error::Usage(format!("{flag} {}: {what}", p.display()));
    let usage = |what: String| Err(refused(what));
    if p.as_os_str().as_encoded_bytes().ends_with(b"/") {
        return usage("names a folder: give a file name".into());
    }
    let meta = match std::fs::metadata(p) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if std::fs::symlink_metadata(p).is_ok() {
                return usage("a symlink to nothing: create its target or name a file".into());
            }
            return Ok(Destination::Replace(p.to_path_buf()));
        }
        Err(e) => return usage(e.to_string()),
    };
    if meta.is_dir() {
        return usage("is a folder: give a file name".into());
    }
    // Reopening a pipe through /proc needs its permissions; writing to fd 1 does not.
    if stdout.is_some_and(|s| s.dev() == meta.dev() && s.ino() == meta.ino()) {
        return Ok(Destination::Stdout);
    }
    if !meta.is_file() {
        return Ok(Destination::Direct(p.to_path_buf()));
    }
    if !force && (meta.permissions().readonly() || access(p, Access::WRITE_OK).is_err()) {
        return usage(
            "is read-only: --force replaces it (keeping its mode), or make it writable".into(),
        );
    }
    let target = if std::fs::symlink_metadata(p).is_ok_and(|m| m.is_symlink()) {
        std::fs::canonicalize(p).map_err(|e| refused(e.to_string()))?
    } else {
        p.to_path_buf()
    };
    Ok(Destination::Replace(target))
}

/// What a destination is, whatever its spelling: the node it names (after following
/// links), or for a name that does not exist yet, the folder it would be made in (its node)
/// and the name.
#[derive(Debug, PartialEq, Eq)]
enum Place {
    Node(u64, u64),
    New(u64, u64, OsString),
}

/// `None` where nothing can be said: a new name in a folder that cannot be read, which
/// fails when its file is created.
fn place(destination: &Destination) -> Option<Place> {
    let node = |m: Metadata| Place::Node(m.dev(), m.ino());
    let path = match destination {
        Destination::Stdout => return fstat(io::stdout().as_fd()).ok().map(node),
        Destination::Direct(p) | Destination::Replace(p) => p,
    };
    match std::fs::metadata(path) {
        Ok(m) => Some(node(m)),
        Err(_) => {
            let dir = match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            let dir = std::fs::metadata(dir).ok()?;
            Some(Place::New(
                dir.dev(),
                dir.ino(),
                path.file_name()?.to_owned(),
            ))
        }
    }
}

/// Refuses two destinations of one run that are one place (`-o x.tsv --report ./x.tsv`,
/// a symlink to the other, `--report -` or `--report /dev/stdout` beside stdout's
/// rankings): the later rename, or the later rows, would take the place of the other's.
/// Each is `(flag, the name given, where it resolved)`.
///
/// # Errors
/// A usage error naming both flags.
pub fn refuse_same(
    a: (&str, Option<&Path>, &Destination),
    b: (&str, Option<&Path>, &Destination),
) -> Result<()> {
    let same = match (a.2, b.2) {
        (Destination::Stdout, Destination::Stdout) => true,
        (x, y) => place(x).is_some_and(|p| Some(p) == place(y)),
    };
    if !same {
        return Ok(());
    }
    let name = |(flag, named, _): (&str, Option<&Path>, &Destination)| match named {
        Some(p) => format!("{flag} {}", p.display()),
        None => format!("stdout (no {flag})"),
    };
    let what = match a.2 {
        Destination::Stdout => "stdout",
        _ => "the same file",
    };
    Err(Error::Usage(format!(
        "{} and {} are one place ({what}): one would be lost in the other; give each its \
         own file",
        name(a),
        name(b)
    )))
}

fn fstat(fd: std::os::fd::BorrowedFd<'_>) -> io::Result<Metadata> {
    File::from(fd.try_clone_to_owned()?).metadata()
}

/// Rust's runtime opens `/dev/null` read-write on a standard stream that was closed
/// (`ppg rerank in.tsv >&-`), so writes to it would succeed; a shell's `> /dev/null` opens
/// it write-only. That difference is the one sign left of a closed stdout.
fn refuse_closed_stdout() -> Result<()> {
    let out = io::stdout();
    let (Ok(meta), Ok(null)) = (fstat(out.as_fd()), std::fs::metadata("/dev/null")) else {
        return Ok(());
    };
    let read_write = fcntl_getfl(out.as_fd()).is_ok_and(|f| f.contains(OFlags::RDWR));
    if read_write && meta.rdev() == null.rdev() && !meta.is_file() {
        return Err(Error::Failed(
            "stdout is closed: the output would go nowhere (give -o FILE, or > /dev/null to \
             discard it)"
                .into(),
        ));
    }
    Ok(())
}
