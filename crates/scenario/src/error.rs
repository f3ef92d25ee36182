//! The errors of a scenario or a sweep: every failure a user can cause before or during a
//! run is one of these (never a panic).

use std::path::PathBuf;

/// A scenario or sweep file that does not describe a valid scenario.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}{}: {}{message}", if *line > 0 { format!(":{line}:{column}") } else { String::new() }, key.as_ref().map(|k| format!("key `{k}`: ")).unwrap_or_default())]
pub struct ScenarioError {
    /// The file (or `<sweep run i>` for a swept scenario).
    pub file: String,
    /// 1-based line of the offending key or value (0 when unknown).
    pub line: usize,
    /// 1-based column (0 when unknown).
    pub column: usize,
    /// The dotted key at fault, when known.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// Any failure of loading, checking or running a scenario or a sweep.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A scenario or sweep file is malformed.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// Reading a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The library refused or failed the run.
    #[error(transparent)]
    Contour(#[from] contour::Error),
    /// The canonical JSON of a sweep's fingerprint failed.
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
}

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
