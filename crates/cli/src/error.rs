//! The errors of the command line: every failure a user can cause is one of these, printed
//! by `main` with a non-zero exit status (never a panic).

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

/// Any failure of a `contour` command.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// A scenario or sweep file is malformed.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// Reading or writing a file failed.
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
    /// Writing the trajectory failed.
    #[error(transparent)]
    TrajectoryIo(#[from] contour::projection::TrajectoryIoError),
    /// A URDF file could not be imported.
    #[error("URDF import failed: {0}")]
    Urdf(#[from] contour::model::urdf::UrdfImportError),
    /// Drawing a figure failed.
    #[error(transparent)]
    Plot(#[from] contour_plot::PlotError),
    /// JSON output failed.
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Writing the Parquet summary failed.
    #[error("Parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    /// A `--shard` argument or shard environment that is not `i/n` with `i < n`.
    #[error("invalid shard `{given}`: {reason}")]
    InvalidShard {
        /// What was given.
        given: String,
        /// Why it is refused.
        reason: &'static str,
    },
    /// A summary part that cannot be read back by `sweep merge`.
    #[error("{path}:{line}: malformed summary: {reason}")]
    MalformedSummary {
        /// The part file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// `sweep merge` found runs missing or duplicated (the report is printed before).
    #[error("merge incomplete: {missing} run(s) missing, {duplicated} duplicated")]
    IncompleteMerge {
        /// Runs with no row.
        missing: usize,
        /// Runs with more than one (differing) row.
        duplicated: usize,
    },
    /// A command was called without an argument it needs.
    #[error("missing argument: {0}")]
    MissingArgument(&'static str),
    /// `plan` on a scenario without a `[plan]` table.
    #[error("the scenario has no [plan] table")]
    NoPlan,
    /// The rayon pool could not be built.
    #[error("thread pool: {0}")]
    ThreadPool(#[from] rayon::ThreadPoolBuildError),
}

impl CliError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CliError::Io {
            path: path.into(),
            source,
        }
    }
}

/// `Result` with [`CliError`].
pub type Result<T, E = CliError> = std::result::Result<T, E>;
