//! Errors of the integrators.
//!
//! Every variant says *what* went wrong and *where* (the time `t`, the component
//! `index`, the step size `h`), so that a caller can report it without a debugger.

use thiserror::Error;

/// Failure reported by a right-hand side ([`crate::problem::OdeRhs::eval`]).
///
/// The right-hand side of a mechanical model may fail for a physical reason
/// (a singular mass matrix, a configuration outside the model's domain).
#[derive(Debug, Clone, Copy, PartialEq, Error)]
pub enum RhsError {
    /// The right-hand side could not be evaluated at this state.
    #[error("the right-hand side cannot be evaluated at this state")]
    Failed,
    /// A linear system inside the right-hand side (e.g. `M(q) q̈ = …`) was singular.
    #[error("singular matrix inside the right-hand side")]
    SingularMatrix,
    /// A non-finite value was produced in component `index`.
    #[error("non-finite value in component {index} of the right-hand side")]
    NonFinite {
        /// Component of `dy` that is NaN or infinite.
        index: usize,
    },
}

/// Which input or intermediate quantity was non-finite (see [`OdeError::NonFinite`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// The initial time `t0`.
    InitialTime,
    /// The initial state `y0`.
    InitialState,
    /// A state passed to [`crate::stepper::Advance::replace_y`] or a restart.
    ReplacedState,
    /// The value `f(t, y)` returned by the right-hand side.
    Derivative,
    /// The final time or an output time passed to the driver.
    OutputTime,
    /// The initial derivative `y'₀` of an implicit (DAE) method.
    InitialDerivative,
    /// The computed solution after a step.
    Solution,
    /// An event function value `g(t, y)`.
    EventFunction,
    /// A value of the dense output (an extrapolation far outside the step overflows).
    DenseOutput,
}

/// Errors of `contour-ode`.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum OdeError {
    /// A tolerance is not a finite positive number (`rtol ≥ 0`, `atol ≥ 0`, not both zero).
    #[error("invalid tolerance: {which} = {value:.3e} (component {index})")]
    InvalidTolerance {
        /// `"rtol"`, `"atol"` or `"weight"`.
        which: &'static str,
        /// The offending value.
        value: f64,
        /// Component index (0 for a scalar tolerance).
        index: usize,
    },
    /// A tolerance below what f64 arithmetic can meet at the state's scale (see
    /// [`crate::norm::Tolerances::validate_at`]).
    #[error("{which} = {value:.3e} (component {index}) is below the floor {floor:.3e} that f64 arithmetic can meet at this state's scale; raise it")]
    ToleranceBelowFloor {
        /// `"rtol"` or `"atol"`.
        which: &'static str,
        /// The offending value.
        value: f64,
        /// The smallest accepted value.
        floor: f64,
        /// Component index (0 for a scalar tolerance).
        index: usize,
    },
    /// A step-size bound below the time resolution of the span, or one that forces more steps
    /// than the driver's budget.
    #[error("{name} = {value:.3e} is below {floor:.3e}: {reason}")]
    StepBoundTooSmall {
        /// `"h_max"`, `"h"` or `"h_init"`.
        name: &'static str,
        /// The offending value.
        value: f64,
        /// The smallest accepted value.
        floor: f64,
        /// Why.
        reason: &'static str,
    },
    /// An index argument outside its range `0..len`.
    #[error("{what} = {index} is out of range 0..{len}")]
    IndexOutOfRange {
        /// Name of the argument.
        what: &'static str,
        /// The offending index.
        index: usize,
        /// Exclusive upper bound.
        len: usize,
    },
    /// A buffer or argument has the wrong length.
    #[error("{what}: expected length {expected}, got {got}")]
    WrongLength {
        /// Name of the argument.
        what: &'static str,
        /// Expected length.
        expected: usize,
        /// Length that was passed.
        got: usize,
    },
    /// A configuration parameter is out of its documented range.
    #[error("invalid parameter {name} = {value:.3e}")]
    InvalidParameter {
        /// Name of the configuration field.
        name: &'static str,
        /// The offending value.
        value: f64,
    },
    /// A NaN or infinite value in `what`, component `index`.
    #[error("non-finite value in {what:?}, component {index}")]
    NonFinite {
        /// Which quantity.
        what: Quantity,
        /// Component index.
        index: usize,
    },
    /// Vector lengths disagree.
    #[error("dimension mismatch: expected {expected}, got {got}")]
    DimensionMismatch {
        /// Expected length (the problem dimension).
        expected: usize,
        /// Length that was passed.
        got: usize,
    },
    /// The step size needed to meet the tolerance fell below the round-off limit
    /// `4·u·|t|` (or the configured minimum step).
    #[error("step size too small at t = {t:.3e}: h = {h:.3e}")]
    StepSizeTooSmall {
        /// Time at which the step failed.
        t: f64,
        /// The step size that was too small.
        h: f64,
    },
    /// The requested accuracy is below what the machine precision allows at `t`;
    /// `rtol_min` is the smallest relative tolerance STEP considers attainable
    /// (Shampine & Gordon, block 0 of STEP).
    #[error("tolerance too small for machine precision at t = {t:.3e}; relative tolerance must be at least {factor:.3e} times larger")]
    ToleranceTooSmall {
        /// Time at which the test failed.
        t: f64,
        /// Factor by which the tolerances must be increased.
        factor: f64,
    },
    /// An iteration (Newton, secant, root finding) did not converge.
    #[error(
        "no convergence at t = {t:.3e} after {iterations} iterations (weighted update or residual {residual:.3e}); \
         an implicit method retried with smaller steps and fresh iteration matrices — check the \
         residual's Jacobian (or supply it), a consistent initial derivative, and try a smaller \
         initial step (`h_init`) when the start has large accelerations"
    )]
    NoConvergence {
        /// Time at which the iteration failed.
        t: f64,
        /// Iterations performed.
        iterations: usize,
        /// Norm of the last residual or update.
        residual: f64,
    },
    /// The iteration matrix `∂F/∂y + c·∂F/∂y'` (or the matrix of the consistent
    /// initialization) is singular at `t` — e.g. an index-2 DAE whose initial derivative
    /// was not supplied.
    #[error("singular iteration matrix at t = {t:.3e}")]
    SingularIterationMatrix {
        /// Time at which the matrix was formed.
        t: f64,
    },
    /// The right-hand side failed at time `t`.
    #[error("right-hand side failed at t = {t:.3e}: {source}")]
    RhsFailed {
        /// Time of the failing evaluation.
        t: f64,
        /// The reason given by the right-hand side.
        source: RhsError,
    },
    /// The integration interval is empty, reversed or non-finite, or output times are not
    /// sorted inside `[t0, t_end]`.
    #[error("invalid interval: t0 = {t0:.3e}, t_end = {t_end:.3e}")]
    InvalidInterval {
        /// Start of the interval (current time of the stepper).
        t0: f64,
        /// Requested end (or the offending output time).
        t_end: f64,
    },
    /// The driver exceeded its step budget.
    #[error("maximum number of steps ({max_steps}) reached at t = {t:.3e}")]
    TooManySteps {
        /// Time reached.
        t: f64,
        /// The budget.
        max_steps: usize,
    },
}
