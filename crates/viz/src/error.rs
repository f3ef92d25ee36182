//! Errors of contour-viz.

use contour_model::ModelError;

/// Why an animation could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VizError {
    /// `times` holds no sample.
    #[error("times: the trajectory has no sample")]
    EmptyTrajectory,
    /// Two inputs that must have one entry per sample (or per coordinate) differ in length.
    #[error("{argument}: expected {expected} entries, found {found}")]
    LengthMismatch {
        /// The argument.
        argument: &'static str,
        /// Entries expected.
        expected: usize,
        /// Entries found.
        found: usize,
    },
    /// A time, coordinate or parameter is NaN or infinite.
    #[error("{argument}: entry {index} is not finite")]
    NonFinite {
        /// The argument.
        argument: &'static str,
        /// Index of the first offending entry.
        index: usize,
    },
    /// `times` decreases between samples `index − 1` and `index`.
    #[error("times: decreases at sample {index}")]
    DecreasingTimes {
        /// Index of the sample.
        index: usize,
    },
    /// The display rate is not a positive finite number of frames per second.
    #[error("rate: {value} is not a positive number of frames per second")]
    InvalidRate {
        /// The rate given.
        value: f64,
    },
    /// A point index (segment end, traced point) names no point of the drawable.
    #[error("{argument}: point {index} does not exist (the drawable has {n_points} points)")]
    PointOutOfRange {
        /// The argument.
        argument: &'static str,
        /// The index given.
        index: usize,
        /// Number of points.
        n_points: usize,
    },
    /// The drawable gave a NaN or infinite point or pose.
    #[error("drawable: point or pose {index} of sample {sample} is not finite")]
    NonFinitePoint {
        /// Sample index.
        sample: usize,
        /// Point (or frame) index.
        index: usize,
    },
    /// The model refused the state (forward kinematics of a tree).
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The URDF could not be read for its visuals.
    #[error("urdf {path}: {message}")]
    Urdf {
        /// The file.
        path: String,
        /// The parser's message.
        message: String,
    },
    /// Writing the page failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}
