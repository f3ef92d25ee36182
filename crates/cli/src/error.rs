//! The errors of the command line: every failure a user can cause is one of these, printed
//! by `main` with a non-zero exit status (never a panic).

use std::path::PathBuf;

pub use contour_scenario::ScenarioError;

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
    /// A `--shard`/`--shards` argument or shard environment that does not name one shard of
    /// a known count.
    #[error("invalid shard `{given}`: {reason}")]
    InvalidShard {
        /// What was given.
        given: String,
        /// Why it is refused.
        reason: String,
    },
    /// `--jobs` outside `1..=MAX_JOBS`.
    #[error("--jobs {given}: give 1 to {max} worker threads")]
    InvalidJobs {
        /// What was given.
        given: usize,
        /// The largest accepted.
        max: usize,
    },
    /// `-o` names an existing file: the outputs go into a directory.
    #[error("-o {path}: is a file; -o names the output directory (created if missing)")]
    OutputNotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// Another process is writing the same part (its CSV is locked).
    #[error("{path}: another process is writing this part (the same shard launched twice?)")]
    PartBusy {
        /// The part's CSV.
        path: PathBuf,
    },
    /// `--resume` on a part written by a different sweep.
    #[error("{path}: cannot resume: the part belongs to sweep {found}, this sweep is {expected} (remove the part or write to another directory)")]
    ResumeMismatch {
        /// The part's sidecar.
        path: PathBuf,
        /// Fingerprint in the part.
        found: String,
        /// Fingerprint of the sweep being run.
        expected: String,
    },
    /// A sweep without `--resume` or `--force` into a directory that holds a complete part
    /// of another sweep (it would mix two sweeps' parts, or overwrite finished results).
    #[error("{path}: the directory holds a complete part of sweep {found}, this sweep is {expected}: write to another directory, or pass --force to run beside it (its part of the same name is overwritten)")]
    OtherSweepPresent {
        /// The other sweep's sidecar.
        path: PathBuf,
        /// Its fingerprint.
        found: String,
        /// Fingerprint of the sweep being run.
        expected: String,
    },
    /// `sweep merge` found parts of different sweeps.
    #[error("refusing to merge parts of different sweeps:\n{groups}")]
    MixedSweeps {
        /// One line per fingerprint with its files.
        groups: String,
    },
    /// `sweep merge` found no part.
    #[error("{dir}: no part-*-of-*.csv to merge")]
    NoParts {
        /// The directory.
        dir: PathBuf,
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
}

/// Exit status of a sweep that completed with failed runs (every row written; the
/// `status` and `error` columns say which and why).
pub const EXIT_RUNS_FAILED: u8 = 3;
/// Exit status of a merge that found missing runs or conflicting duplicates.
pub const EXIT_MERGE_INCOMPLETE: u8 = 4;

impl CliError {
    /// The process exit status of this error: [`EXIT_MERGE_INCOMPLETE`] for an incomplete
    /// merge, 1 for every other error (2 is the command-line parser's usage error).
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::IncompleteMerge { .. } => EXIT_MERGE_INCOMPLETE,
            _ => 1,
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CliError::Io {
            path: path.into(),
            source,
        }
    }
}

impl From<contour_scenario::Error> for CliError {
    fn from(e: contour_scenario::Error) -> Self {
        match e {
            contour_scenario::Error::Scenario(e) => CliError::Scenario(e),
            contour_scenario::Error::Io { path, source } => CliError::Io { path, source },
            contour_scenario::Error::Contour(e) => CliError::Contour(e),
            contour_scenario::Error::Json(e) => CliError::Json(e),
        }
    }
}

/// `Result` with [`CliError`].
pub type Result<T, E = CliError> = std::result::Result<T, E>;
