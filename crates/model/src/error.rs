//! Errors of `contour-model`.

use contour_linalg::LinalgError;

/// Everything that can go wrong in `contour-model`.
///
/// Bad input (wrong dimensions, NaN/inf) and numerical failure (an indefinite
/// mass matrix, a rank-deficient constraint Jacobian, a Gauss–Newton
/// projection that does not converge) are reported here; nothing panics on
/// user input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// A slice or matrix has the wrong length (matrices: the offending dimension).
    #[error("{what}: expected length {expected}, found {found}")]
    DimensionMismatch {
        /// Name of the offending argument or model output (`"q"`, `"qd"`, `"lambda"`, ...).
        what: &'static str,
        /// Expected length.
        expected: usize,
        /// Actual length.
        found: usize,
    },
    /// An input or a model output contains NaN or ±inf.
    #[error("{what} is not finite at index {index}")]
    NonFinite {
        /// Name of the offending quantity (`"q"`, `"mass matrix"`, `"phi"`, ...).
        what: &'static str,
        /// First offending index (column-major for matrices).
        index: usize,
    },
    /// The mass matrix `M(q)` is not (numerically) symmetric positive definite.
    #[error("mass matrix is not positive definite (Cholesky pivot {index} is {pivot:.3e})")]
    MassMatrixNotPositiveDefinite {
        /// Index of the failing Cholesky pivot.
        index: usize,
        /// Value of the failing pivot.
        pivot: f64,
    },
    /// The constraint Jacobian `J` (L×N) does not have full row rank L where it is required.
    #[error("constraint Jacobian has numerical rank {rank} < {rows} rows where full row rank is required (singular values of L^-1 J^T at or below {tolerance:.3e} sigma_max count as lost)")]
    RankDeficientJacobian {
        /// Numerical rank found.
        rank: usize,
        /// Number of constraint rows L (the rank required).
        rows: usize,
        /// Relative rank tolerance used.
        tolerance: f64,
    },
    /// Where `J` has lost rank (numerical rank `rank` of `rows`), the acceleration constraint
    /// `J q̈ = −ρ` is inconsistent in the lost directions by more than the rank cut-off
    /// explains: no `q̈` meets it, because the state has left the constraint manifold (a drift
    /// of `φ̇` that the nearly lost directions amplify), and continuing with the least-squares
    /// `q̈` would pick a branch at random. Methods that keep the state on the manifold (the
    /// projector method, projection after every step) do not meet it.
    ///
    /// The message tells the cases apart: rows redundant since the start with the rank
    /// unchanged (`rank = initial_rank < rows`: no singular configuration, the drift shows in a
    /// redundant direction), a rank that dropped below the start's (a singular configuration,
    /// with the row whose residual fails and `t`), and a cut-off below the round-off
    /// (`rank = rows`).
    #[error("{}", inconsistent_message(self))]
    InconsistentAtSingularity {
        /// Time of the evaluation.
        t: f64,
        /// The first row whose residual in the dropped directions fails.
        row: usize,
        /// Numerical rank of `J` at the first constrained solve of the workspace (the start
        /// of a run).
        initial_rank: usize,
        /// Numerical rank of `J`.
        rank: usize,
        /// Number of rows L.
        rows: usize,
        /// The relative rank cut-off of the solve (`rank_rtol`).
        tolerance: f64,
        /// Largest `|d_i|` of the dropped part of the data.
        residual: f64,
        /// The bound it exceeds (`rank_rtol` times the size of the row's terms).
        bound: f64,
    },
    /// An iteration did not reach its tolerance.
    #[error("no convergence after {iterations} iterations (residual {residual:.3e})")]
    NoConvergence {
        /// Iterations performed.
        iterations: usize,
        /// Residual norm reached.
        residual: f64,
    },
    /// A state violates `φ = 0` or `J q̇ + b = 0` by more than the tolerance.
    #[error("inconsistent initial state: |phi| = {position_residual:.3e}, |J qd + b| = {velocity_residual:.3e}")]
    InconsistentInitialState {
        /// `‖φ(t, q)‖₂`.
        position_residual: f64,
        /// `‖J(t, q) q̇ + b(t, q)‖₂`.
        velocity_residual: f64,
    },
    /// An option or model parameter is out of range (negative tolerance, ...).
    #[error("invalid parameter {what} = {value:.3e}")]
    InvalidParameter {
        /// Name of the parameter.
        what: &'static str,
        /// The rejected value.
        value: f64,
    },
    /// An option of [`crate::DynamicsOptions`] outside its documented range
    /// ([`crate::DynamicsOptions::validate`]).
    #[error("DynamicsOptions::{option} = {value:.3e} is outside its range {range}")]
    InvalidOption {
        /// The option (`"rank_rtol"`, `"pivot_rtol"`, `"baumgarte.alpha"`, ...).
        option: &'static str,
        /// The rejected value.
        value: f64,
        /// The accepted range, as written in the option's documentation.
        range: &'static str,
    },
    /// The declared sparsity pattern ([`crate::Mechanism::sparsity`]) omits an entry that the
    /// dense matrix has ([`crate::SparsityPattern::verify`]).
    #[error("the declared sparsity pattern omits {matrix} entry ({row}, {col}) = {value:.3e}")]
    UndeclaredSparsity {
        /// `"mass matrix"` or `"jacobian"`.
        matrix: &'static str,
        /// Row of the entry.
        row: usize,
        /// Column of the entry.
        col: usize,
        /// Its dense value at the probed state.
        value: f64,
    },
    /// The sparse values ([`crate::Mechanism::mass_matrix_values`],
    /// [`crate::Mechanism::constraint_jacobian_values`]) differ from the dense matrix at an
    /// entry of the pattern ([`crate::SparsityPattern::verify`]).
    #[error("the sparse values of the {matrix} give ({row}, {col}) = {value:.3e}, the dense matrix {dense:.3e}")]
    SparseValuesMismatch {
        /// `"mass matrix"` or `"jacobian"`.
        matrix: &'static str,
        /// Row of the entry.
        row: usize,
        /// Column of the entry.
        col: usize,
        /// The sparse value (duplicates summed).
        value: f64,
        /// The dense value.
        dense: f64,
    },
    /// A solve returned a result that does not satisfy its own equations to the accuracy
    /// the data allow: the residual exceeds `bound`
    /// (`RESIDUAL_FACTOR · ε · (|ρ_i| + ‖J_i‖₁ (‖q̈‖_∞ + ‖forces‖_∞))` for the constrained accelerations,
    /// [`crate::RESIDUAL_FACTOR`]), i.e. `M` or `J M⁻¹ Jᵀ` is too ill-conditioned.
    #[error("{what}: residual {residual:.3e} exceeds {bound:.3e} (ill-conditioned system)")]
    IllConditioned {
        /// Which solve.
        what: &'static str,
        /// Residual found (largest row).
        residual: f64,
        /// The bound it exceeds.
        bound: f64,
    },
    /// A body index that the kinematic tree does not have.
    #[error("unknown body {body} (the tree has {n_bodies} bodies)")]
    UnknownBody {
        /// The offending index.
        body: usize,
        /// Number of bodies of the tree.
        n_bodies: usize,
    },
    /// A tree whose configuration and velocity differ in size (free-flyer, spherical, planar
    /// or unbounded revolute joints carry unit quaternions or `(cos, sin)` pairs) handed to
    /// code that uses one coordinate vector for both.
    #[error("{what} needs nq = nv, but the tree has nq = {nq} configuration and nv = {nv} velocity coordinates")]
    ConfigurationNotVelocity {
        /// What refused the tree.
        what: &'static str,
        /// Number of configuration coordinates.
        nq: usize,
        /// Number of velocity coordinates.
        nv: usize,
    },
    /// Building a tree from a URDF description failed.
    #[error(transparent)]
    Urdf(#[from] crate::urdf::UrdfImportError),
    /// A linear-algebra failure not covered by a more specific variant.
    #[error(transparent)]
    Linalg(#[from] LinalgError),
}

/// The message of [`ModelError::InconsistentAtSingularity`]: permanently redundant rows, a
/// lost rank, or (rank = rows) a cut-off below the round-off of the solve.
fn inconsistent_message(e: &ModelError) -> String {
    let ModelError::InconsistentAtSingularity {
        t,
        row,
        initial_rank,
        rank,
        rows,
        tolerance: tol,
        residual,
        bound,
    } = *e
    else {
        return String::new();
    };
    if rank < rows && rank >= initial_rank {
        format!(
            "at t = {t:.3e} the acceleration constraint of row {row} is inconsistent in a redundant \
             direction (row residual {residual:.3e} > {bound:.3e}): the {rows} constraint rows are \
             redundant, of numerical rank {rank} since the start (cut-off {tol:.3e} sigma_max; no \
             singular configuration), and the state has drifted off the constraint manifold; a \
             method that keeps it there (projector, perturbation, parametrization, \
             exact_stabilization) or a tighter tolerance avoids this"
        )
    } else if rank < rows {
        format!(
            "at t = {t:.3e} row {row} lost rank: the constraint Jacobian has numerical rank \
             {rank} < {initial_rank} at the start ({rows} rows, cut-off {tol:.3e} sigma_max) and \
             the acceleration constraint is inconsistent in the lost directions (row residual \
             {residual:.3e} > {bound:.3e}): the state has left the constraint manifold near a \
             singular configuration"
        )
    } else {
        format!(
            "the rank-revealing solve kept all {rows} rows of the constraint Jacobian (rank {rank} \
             of {rows} at the cut-off {tol:.3e} sigma_max) and still leaves a row residual \
             {residual:.3e} > {bound:.3e} (the cut-off times the row's terms): the rank cut-off \
             is below the round-off of the solve, raise rank_rtol"
        )
    }
}

impl ModelError {
    /// Maps a linear-algebra error raised while factoring `M` or solving with `J`
    /// to the model-level variant that names the culprit.
    pub(crate) fn from_solver(e: LinalgError, rows: usize) -> Self {
        match e {
            LinalgError::NotPositiveDefinite { index, pivot } => {
                ModelError::MassMatrixNotPositiveDefinite { index, pivot }
            }
            LinalgError::RankDeficient {
                rank, tolerance, ..
            } => ModelError::RankDeficientJacobian {
                rank,
                rows,
                tolerance,
            },
            other => ModelError::Linalg(other),
        }
    }
}
