//! The one error type of a host run (`ppg rerank`, the harness's `ppg reproduce`, the
//! helpers they share): what went wrong, in three kinds. Which exit status or exception a
//! kind becomes is the front end's to say (`ppg`'s `main`).

use std::fmt;

/// Why a run failed.
#[derive(Debug)]
pub enum Error {
    /// Bad input in a file: `path:line: message` (line 0 when no line applies).
    Input {
        /// The file as the user named it.
        path: String,
        /// 1-based line number, 0 for the file as a whole.
        line: usize,
        /// What is wrong, in words.
        message: String,
    },
    /// A bad argument, or a bad combination of them.
    Usage(String),
    /// Anything else (an I/O failure while writing, an engine refusing a query).
    Failed(String),
}

impl Error {
    /// Bad input at `path:line`.
    pub fn input(path: &str, line: usize, message: impl Into<String>) -> Self {
        Error::Input {
            path: path.to_owned(),
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input {
                path,
                line: 0,
                message,
            } => write!(f, "{path}: {message}"),
            Error::Input {
                path,
                line,
                message,
            } => write!(f, "{path}:{line}: {message}"),
            Error::Usage(message) | Error::Failed(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

/// Result of a command step.
pub type Result<T> = std::result::Result<T, Error>;
