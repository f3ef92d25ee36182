//! Errors of the linear-algebra layer.

/// Everything that can go wrong in `contour-linalg`.
///
/// Bad input (wrong shape, NaN/inf) and numerical failure (indefinite or
/// rank-deficient matrices, SVD non-convergence) are reported through this
/// enum; no routine panics on bad data.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LinalgError {
    /// An argument has the wrong shape (vectors are reported as `len × 1`).
    #[error("{what}: expected {expected_rows}x{expected_cols}, found {rows}x{cols}")]
    DimensionMismatch {
        /// Name of the offending argument.
        what: &'static str,
        /// Expected number of rows.
        expected_rows: usize,
        /// Expected number of columns.
        expected_cols: usize,
        /// Actual number of rows.
        rows: usize,
        /// Actual number of columns.
        cols: usize,
    },
    /// An argument contains NaN or ±inf (first offending entry, column-major order).
    #[error("{what} contains a non-finite value at ({row}, {col})")]
    NonFinite {
        /// Name of the offending argument.
        what: &'static str,
        /// Row of the first non-finite entry.
        row: usize,
        /// Column of the first non-finite entry.
        col: usize,
    },
    /// The Cholesky factorization met a pivot `≤ 0`.
    #[error("matrix is not positive definite (pivot {index} is {pivot:.3e})")]
    NotPositiveDefinite {
        /// Index of the failing pivot.
        index: usize,
        /// Value of the failing pivot `M_kk − Σ_{j<k} L_kj²` (≤ 0, or NaN).
        pivot: f64,
    },
    /// The LU factorization met a pivot `|u_kk| ≤ rtol · max|a_ij|` (or zero, or NaN): the
    /// matrix is (numerically) singular.
    #[error("matrix is singular (pivot {index} is {pivot:.3e})")]
    Singular {
        /// Index `k` of the failing pivot (column of the elimination).
        index: usize,
        /// Value of the failing pivot `u_kk`.
        pivot: f64,
    },
    /// A matrix that must have full rank is numerically rank-deficient.
    #[error("matrix has numerical rank {rank} < {required} required (tolerance {tolerance:.3e})")]
    RankDeficient {
        /// Numerical rank found (see the routine's documentation for how it is estimated).
        rank: usize,
        /// Rank required for the operation.
        required: usize,
        /// Relative tolerance that was applied.
        tolerance: f64,
    },
    /// A skinny QR was requested for a wide matrix.
    #[error("QR needs rows >= cols, got {rows}x{cols}")]
    NotSkinny {
        /// Rows of the matrix.
        rows: usize,
        /// Columns of the matrix.
        cols: usize,
    },
    /// faer's SVD reached its iteration limit.
    #[error("singular value decomposition did not converge")]
    SvdNoConvergence,
    /// A solve was requested before a successful `factor`/`compute`.
    #[error("{what}: no successful factorization to solve with")]
    NotFactored {
        /// The workspace type that was used.
        what: &'static str,
    },
    /// A tolerance argument is negative or not finite.
    #[error("{what} must be finite and non-negative, got {value:.3e}")]
    InvalidTolerance {
        /// Name of the tolerance argument.
        what: &'static str,
        /// The rejected value.
        value: f64,
    },
    /// An entry of a sparsity pattern lies outside the matrix, or below the diagonal of a
    /// pattern that must hold the upper triangle only.
    #[error("{what}: entry ({row}, {col}) is outside the allowed part of the matrix")]
    InvalidPattern {
        /// Name of the pattern argument.
        what: &'static str,
        /// Row of the offending entry.
        row: usize,
        /// Column of the offending entry.
        col: usize,
    },
}

/// Checks the shape of a matrix argument.
pub(crate) fn check_dims(
    what: &'static str,
    a: faer::MatRef<'_, f64>,
    rows: usize,
    cols: usize,
) -> Result<(), LinalgError> {
    if a.nrows() != rows || a.ncols() != cols {
        return Err(LinalgError::DimensionMismatch {
            what,
            expected_rows: rows,
            expected_cols: cols,
            rows: a.nrows(),
            cols: a.ncols(),
        });
    }
    Ok(())
}

/// Checks the length of a vector argument.
pub(crate) fn check_len(what: &'static str, x: &[f64], len: usize) -> Result<(), LinalgError> {
    if x.len() != len {
        return Err(LinalgError::DimensionMismatch {
            what,
            expected_rows: len,
            expected_cols: 1,
            rows: x.len(),
            cols: 1,
        });
    }
    Ok(())
}

/// Checks that every entry of a matrix is finite.
pub(crate) fn check_finite(
    what: &'static str,
    a: faer::MatRef<'_, f64>,
) -> Result<(), LinalgError> {
    for col in 0..a.ncols() {
        for row in 0..a.nrows() {
            if !a[(row, col)].is_finite() {
                return Err(LinalgError::NonFinite { what, row, col });
            }
        }
    }
    Ok(())
}

/// Checks that every entry of a vector is finite.
pub(crate) fn check_finite_vec(what: &'static str, x: &[f64]) -> Result<(), LinalgError> {
    match x.iter().position(|v| !v.is_finite()) {
        Some(row) => Err(LinalgError::NonFinite { what, row, col: 0 }),
        None => Ok(()),
    }
}

/// Checks a tolerance argument.
pub(crate) fn check_tol(what: &'static str, value: f64) -> Result<(), LinalgError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(LinalgError::InvalidTolerance { what, value })
    }
}
