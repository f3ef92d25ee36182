//! Errors of `contour-contact`.

use contour_linalg::LinalgError;
use contour_model::ModelError;
use contour_ode::OdeError;

/// Everything that can go wrong in a unilateral-contact simulation.
#[derive(Debug, thiserror::Error)]
pub enum ContactError {
    /// An argument has the wrong length.
    #[error("{what}: expected length {expected}, found {found}")]
    DimensionMismatch {
        /// Name of the argument.
        what: &'static str,
        /// Expected length.
        expected: usize,
        /// Length found.
        found: usize,
    },
    /// A NaN or infinite input or model output.
    #[error("{what} is not finite at index {index}")]
    NonFinite {
        /// Name of the quantity.
        what: &'static str,
        /// First offending index.
        index: usize,
    },
    /// A configuration parameter is out of range.
    #[error("invalid parameter {name} = {value:.3e}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// Offending value.
        value: f64,
    },
    /// A row index (an entry of `what`) is not a constraint row of the mechanism, or appears
    /// twice.
    #[error("{what}: row index {index} is out of range 0..{len} or repeated")]
    RowIndex {
        /// Name of the argument.
        what: &'static str,
        /// The offending index.
        index: usize,
        /// Number of constraint rows L.
        len: usize,
    },
    /// A tolerance below what f64 arithmetic can deliver at the state's scale.
    #[error("{name} = {value:.3e} is below the floor {floor:.3e} that f64 can resolve at this state's scale; raise it")]
    ToleranceBelowFloor {
        /// Parameter name.
        name: &'static str,
        /// Offending value.
        value: f64,
        /// The smallest accepted value.
        floor: f64,
    },
    /// A [`crate::ContactDynamics`] query before any [`crate::ContactDynamics::evaluate`].
    #[error("ContactDynamics::evaluate must be called before {what}")]
    NotEvaluated {
        /// The query.
        what: &'static str,
    },
    /// The mechanism has no unilateral row, or a bilateral row (not handled here).
    #[error("constraint row {row} is bilateral: contour-contact handles unilateral rows only")]
    BilateralRow {
        /// The offending row.
        row: usize,
    },
    /// A small dense matrix (mass matrix or `J M⁻¹ Jᵀ` of the active rows) is not positive definite.
    #[error("{what} is not positive definite (pivot {pivot} at index {index})")]
    NotPositiveDefinite {
        /// Which matrix.
        what: &'static str,
        /// Failing index.
        index: usize,
        /// The failing pivot.
        pivot: f64,
    },
    /// Any other failure of a dense kernel of `contour-linalg`.
    #[error(transparent)]
    Linalg(LinalgError),
    /// The linear complementarity problem has no solution (or is too large to enumerate).
    #[error("LCP of size {size} has no solution (smallest violation {violation:.3e})")]
    LcpNoSolution {
        /// Number of rows.
        size: usize,
        /// Smallest complementarity/feasibility violation met while enumerating.
        violation: f64,
    },
    /// The LCP is larger than the enumeration solver accepts.
    #[error("LCP of size {size} exceeds the enumeration limit {limit}")]
    LcpTooLarge {
        /// Number of rows.
        size: usize,
        /// Largest accepted size.
        limit: usize,
    },
    /// Lemke's method ended on a ray: the LCP has no solution (for a copositive-plus matrix).
    #[error(
        "LCP of size {size}: Lemke's method ended on a ray after {pivots} pivots (no solution)"
    )]
    LcpRayTermination {
        /// Number of rows.
        size: usize,
        /// Pivots made.
        pivots: usize,
    },
    /// Lemke's method reached its pivot limit (cycling through round-off).
    #[error("LCP of size {size}: Lemke's method reached its pivot limit {limit}")]
    LcpPivotLimit {
        /// Number of rows.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// Too many events (an accumulation not caught by the Zeno detector).
    #[error("more than {limit} events before t = {t:.3e}")]
    TooManyEvents {
        /// Time reached.
        t: f64,
        /// The limit.
        limit: usize,
    },
    /// The state left the admissible set by more than the tolerance (missed entry).
    #[error("row {row} penetrated by {phi:.3e} at t = {t:.3e}")]
    Penetration {
        /// Time.
        t: f64,
        /// Row.
        row: usize,
        /// φ value.
        phi: f64,
    },
    /// A parameter asks for more work than the documented cap ([`crate::MAX_OUTPUTS`]
    /// outputs, [`crate::MAX_FORCED_STEPS`] steps forced by a step-size bound).
    #[error("{name} = {value:e} exceeds the work cap ({cap})")]
    WorkCap {
        /// Parameter name.
        name: &'static str,
        /// Offending value.
        value: f64,
        /// The cap, in words.
        cap: &'static str,
    },
    /// A unilateral row is violated at the initial state (`φ < −contact_tol` at `t0`): the
    /// schemes would launch the body out (creating energy) or snap it silently.
    #[error("initial state penetrates row {row} (phi = {phi:.3e} < -contact_tol)")]
    InitialPenetration {
        /// Row.
        row: usize,
        /// φ at the initial state.
        phi: f64,
    },
    /// From the model crate.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// From the integrators.
    #[error(transparent)]
    Ode(#[from] OdeError),
}

impl ContactError {
    /// The error of a Cholesky factorization of the matrix `what` (typed as
    /// [`ContactError::NotPositiveDefinite`] / [`ContactError::NonFinite`] where it is one).
    pub(crate) fn factorization(what: &'static str, e: LinalgError) -> Self {
        match e {
            LinalgError::NotPositiveDefinite { index, pivot } => {
                ContactError::NotPositiveDefinite { what, index, pivot }
            }
            LinalgError::NonFinite { row, .. } => ContactError::NonFinite { what, index: row },
            other => ContactError::Linalg(other),
        }
    }
}
