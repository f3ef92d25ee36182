//! Errors of `contour-planning`.

/// Everything that can go wrong while building a path or planning a motion along it.
///
/// Bad input (wrong dimensions, NaN/inf, non-monotone path parameter, inverted torque limits,
/// a path that leaves the feasible side of a unilateral constraint) and infeasible problems
/// (an admissible region that does not connect start and end) are reported here; nothing
/// panics on user input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanningError {
    /// A slice has the wrong length.
    #[error("{what}: expected length {expected}, found {found}")]
    DimensionMismatch {
        /// Name of the offending argument.
        what: &'static str,
        /// Expected length.
        expected: usize,
        /// Actual length.
        found: usize,
    },
    /// An input contains NaN or ±inf.
    #[error("{what} is not finite")]
    NonFinite {
        /// Name of the offending quantity.
        what: &'static str,
    },
    /// The path parameter does not increase strictly (segment `index` has `s_end <= s_start`,
    /// or it does not start where the previous segment ends).
    #[error("path parameter is not strictly increasing at segment {index} (s = {s:.3e})")]
    NonMonotonePath {
        /// Offending segment.
        index: usize,
        /// Parameter value where monotonicity or contiguity fails.
        s: f64,
    },
    /// A segment index past the last segment.
    #[error("segment index {index} is out of range 0..{len}")]
    SegmentIndex {
        /// The offending index.
        index: usize,
        /// Number of segments.
        len: usize,
    },
    /// The path is empty or a query lies outside `[s_start, s_end]` (or outside the interval
    /// of the segment it names).
    #[error("s = {s:.3e} lies outside [{start:.3e}, {end:.3e}]")]
    OutOfRange {
        /// Queried parameter.
        s: f64,
        /// Start of the path.
        start: f64,
        /// End of the path.
        end: f64,
    },
    /// Two consecutive segments do not meet (P is discontinuous), Huang 4.2.1 (ii).
    #[error("path is discontinuous at s = {s:.3e} (jump {jump:.3e})")]
    DiscontinuousPath {
        /// Breakpoint.
        s: f64,
        /// Norm of the jump in P.
        jump: f64,
    },
    /// A geometric construction is impossible (coincident points, a point at the circle
    /// centre, a degenerate arc, a singular interpolation system).
    #[error("degenerate geometry: {what}")]
    DegenerateGeometry {
        /// What is degenerate.
        what: &'static str,
    },
    /// The path tangent B = Q′ vanishes (or M B = 0): s̈ is not determined by the torques.
    #[error("degenerate path tangent at s = {s:.3e} (B = 0 or M B = 0)")]
    DegenerateTangent {
        /// Where.
        s: f64,
    },
    /// No limit bounds s̈ at `s` although the path moves there (B ≠ 0): velocity limits alone
    /// (or infinite torque and acceleration limits) leave the acceleration free, and the
    /// minimum time is an infimum that no motion attains.
    #[error("the path acceleration is unbounded at s = {s:.3e}: velocity limits alone do not bound it; add acceleration or torque limits")]
    UnboundedAcceleration {
        /// Where.
        s: f64,
    },
    /// A segment marked unconstrained leaves the feasible side φ ≥ 0 of a unilateral row.
    #[error("path violates unilateral constraint row {row} on an unconstrained segment at s = {s:.3e} (phi = {phi:.3e})")]
    PathViolatesConstraint {
        /// Constraint row.
        row: usize,
        /// Where.
        s: f64,
        /// Value of φ there.
        phi: f64,
    },
    /// A segment marked constrained does not stay on its constraint (|φ| too large).
    #[error("constrained segment leaves constraint row {row} at s = {s:.3e} (phi = {phi:.3e})")]
    PathLeavesConstraint {
        /// Constraint row.
        row: usize,
        /// Where.
        s: f64,
        /// Value of φ there.
        phi: f64,
    },
    /// A constrained segment names a constraint row the mechanism does not have.
    #[error("constraint row {row} out of range (mechanism has {rows} rows)")]
    BadConstraintRow {
        /// Requested row.
        row: usize,
        /// Number of rows of the mechanism.
        rows: usize,
    },
    /// Torque limits with lower > upper for some joint.
    #[error("torque limits inverted for joint {joint} at s = {s:.3e}: lower {lower:.3e} > upper {upper:.3e}")]
    InvertedTorqueLimits {
        /// Joint.
        joint: usize,
        /// Where.
        s: f64,
        /// Lower limit.
        lower: f64,
        /// Upper limit.
        upper: f64,
    },
    /// A path history is ill-posed (times not increasing, s values not increasing).
    #[error("bad path history: {what}")]
    BadHistory {
        /// What is wrong.
        what: &'static str,
    },
    /// The admissible region {h(s, ṡ) ≤ γ(s, ṡ)} does not connect start and end: at `s` no
    /// admissible motion passes (the maximum-acceleration curve stalls, or even ṡ = 0 is
    /// inadmissible).
    #[error("admissible region does not connect start and end (blocked at s = {s:.3e})")]
    EmptyAdmissibleRegion {
        /// Where the region is blocked.
        s: f64,
    },
    /// The maximum-acceleration curve hit the maximum-velocity curve at `s` and no valid
    /// switching point was found after it.
    #[error("no switching point found after s = {s:.3e}")]
    NoSwitchingPoint {
        /// Where the curve hit the maximum-velocity curve.
        s: f64,
    },
    /// The step size of the integration in s fell below its minimum.
    #[error("step size underflow at s = {s:.3e} (h = {h:.3e})")]
    StepSizeTooSmall {
        /// Where.
        s: f64,
        /// Step size.
        h: f64,
    },
    /// Inverse kinematics did not converge.
    #[error("inverse kinematics did not converge at s = {s:.3e} (residual {residual:.3e})")]
    InverseKinematics {
        /// Where.
        s: f64,
        /// Residual reached.
        residual: f64,
    },
    /// A linear system of the construction or of the kinematic map is singular.
    #[error("singular system: {what}")]
    Singular {
        /// Which system.
        what: &'static str,
    },
    /// A configuration parameter or limit is NaN or outside its valid range (both sides are
    /// checked where both make sense: tolerances are positive and at most 1, counts at least 1).
    #[error("invalid parameter {name} = {value:.3e} (expected {expected})")]
    InvalidParameter {
        /// Name of the parameter (the config field).
        name: &'static str,
        /// Its value (as f64; counts are converted).
        value: f64,
        /// The valid range, in words.
        expected: &'static str,
    },
    /// A parameter asks for more work than the documented cap (a step fraction so small, or a
    /// grid so fine, that the solver would not finish in reasonable time).
    #[error("{name} = {value:.3e} exceeds the work cap ({cap})")]
    WorkCap {
        /// Name of the parameter.
        name: &'static str,
        /// Its value.
        value: f64,
        /// The cap, in words (e.g. "max_step_fraction >= 1e-5").
        cap: &'static str,
    },
    /// A solver's result breaks the limits it was given (found by the check after the solve):
    /// the result is refused rather than returned.
    #[error("profile breaks the limit of joint {joint} at s = {s:.3e} by {relative:.3e} (relative to the limit)")]
    LimitViolated {
        /// Joint (or `usize::MAX` for the speed cap).
        joint: usize,
        /// Where.
        s: f64,
        /// Violation divided by the size of the limit.
        relative: f64,
    },
}
