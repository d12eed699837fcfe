//! The one error type of a host run (`ppg rerank`, the harness's `ppg reproduce`, the
//! helpers they share) and the exit status of each kind.

use std::fmt;

/// Why the command failed.
#[derive(Debug)]
pub enum CliError {
    /// Bad input in a file: `path:line: message` (line 0 when no line applies). Exit 2.
    Input {
        /// The file as the user named it.
        path: String,
        /// 1-based line number, 0 for the file as a whole.
        line: usize,
        /// What is wrong, in words.
        message: String,
    },
    /// A bad combination of arguments. Exit 2.
    Usage(String),
    /// Anything else (an I/O failure while writing, an engine refusing a query). Exit 1.
    Failed(String),
}

impl CliError {
    /// Bad input at `path:line`.
    pub fn input(path: &str, line: usize, message: impl Into<String>) -> Self {
        CliError::Input {
            path: path.to_owned(),
            line,
            message: message.into(),
        }
    }

    /// The process exit status for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input { .. } | CliError::Usage(_) => 2,
            CliError::Failed(_) => 1,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Input {
                path,
                line: 0,
                message,
            } => write!(f, "{path}: {message}"),
            CliError::Input {
                path,
                line,
                message,
            } => write!(f, "{path}:{line}: {message}"),
            CliError::Usage(message) | CliError::Failed(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for CliError {}

/// Result of a command step.
pub type Result<T> = std::result::Result<T, CliError>;
