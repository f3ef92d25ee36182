//! The problem: a right-hand side `y' = f(t, y)`.
//!
//! [`OdeRhs`] is the one interface every explicit integrator calls. It may fail
//! (a mechanical model inverts a mass matrix inside `eval`), so `eval` returns a
//! [`RhsError`] that the integrators turn into [`OdeError::RhsFailed`] with the time.
//! Closures are adapted by [`FnRhs`] (infallible) and [`TryFnRhs`] (fallible).
//!
//! Implicit DAE methods (BDF, singly-implicit RK) take the residual form [`DaeResidual`],
//! `F(t, y, y') = 0`; an ODE enters that form through [`OdeAsDae`] (`F = y' − f(t, y)`).

use crate::error::{OdeError, Quantity, RhsError};
use crate::stats::Stats;

/// Right-hand side of `y' = f(t, y)`, `y ∈ ℝⁿ`.
pub trait OdeRhs {
    /// Dimension `n` of the state.
    fn dim(&self) -> usize;
    /// Writes `dy = f(t, y)`; `y.len() == dy.len() == self.dim()`.
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError>;
}

impl<T: OdeRhs + ?Sized> OdeRhs for &mut T {
    fn dim(&self) -> usize {
        (**self).dim()
    }
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        (**self).eval(t, y, dy)
    }
}

/// Residual `F(t, y, y') = 0` of an implicit ODE or DAE, `y ∈ ℝⁿ`.
///
/// Semi-explicit DAEs `y₁' = f(t, y₁, y₂)`, `0 = g(t, y₁, y₂)` are written as
/// `F = (y₁' − f, g)`. Jacobians `∂F/∂y + c·∂F/∂y'` are the business of the implicit methods
/// (by finite differences unless a method offers a hook).
pub trait DaeResidual {
    /// Dimension `n`.
    fn dim(&self) -> usize;
    /// Writes `r = F(t, y, y')`; all slices have length `self.dim()`.
    fn residual(&mut self, t: f64, y: &[f64], yp: &[f64], r: &mut [f64]) -> Result<(), RhsError>;
}

/// Extension of [`DaeResidual`] by an analytic iteration matrix.
///
/// The implicit methods solve their corrector equations with the matrix
/// `G = ∂F/∂y + c_j·∂F/∂y'` (for BDF `c_j = α_s/h`); by default it is formed by finite
/// differences (`n` extra residual evaluations). A problem that implements this trait and is
/// passed wrapped in [`WithJacobian`] supplies `G` itself.
pub trait DaeJacobian: DaeResidual {
    /// Writes `G = ∂F/∂y + cj·∂F/∂y'` at `(t, y, y')` into the `n × n` matrix `m`.
    fn iteration_matrix(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        cj: f64,
        m: faer::MatMut<'_, f64>,
    ) -> Result<(), RhsError>;

    /// Whether [`DaeJacobian::solve_iteration`] solves the corrector equations (default:
    /// `false`, the stepper's LU of `G` with partial pivoting solves them). Used by [`crate::Bdf`].
    fn owns_solve(&self) -> bool {
        false
    }

    /// Writes `x ← G⁻¹x` (or a least-norm solution where `G` is numerically singular) for
    /// the matrix of the last [`DaeJacobian::iteration_matrix`] call, factored there by the
    /// problem; returns `false` when it cannot. Called only when
    /// [`DaeJacobian::owns_solve`] is `true`.
    fn solve_iteration(&mut self, _x: &mut [f64]) -> bool {
        false
    }

    /// Maps the local error estimate `e` of a step of size `h` ending at the corrector `y`
    /// before the error norm (e.g. a state-dependent weighting of some directions); returns
    /// `false` (the default) to leave the estimate unchanged. Used by [`crate::Bdf`].
    fn map_error_estimate(&mut self, _t: f64, _h: f64, _y: &[f64], _e: &mut [f64]) -> bool {
        false
    }

    /// Maps a Newton update `δ` of the last [`DaeJacobian::solve_iteration`] before the
    /// index-2 Newton test, which then takes its error-test norm (the algebraic components
    /// out of it); returns `false` (the default) to leave the test on `δ` with the algebraic
    /// updates weighted by their iteration-matrix columns. Used by [`crate::Bdf`].
    fn map_newton_update(&mut self, _delta: &mut [f64]) -> bool {
        false
    }
}

/// Marks a [`DaeJacobian`] problem whose analytic iteration matrix the implicit methods
/// should use (`Advance<WithJacobian<F>>`); a bare [`DaeResidual`] gets finite differences.
#[derive(Debug, Clone)]
pub struct WithJacobian<F>(pub F);

/// An explicit ODE `y' = f(t, y)` seen as the residual `F(t, y, y') = y' − f(t, y)`.
///
/// Holds one scratch vector, allocated in [`OdeAsDae::new`].
#[derive(Debug, Clone)]
pub struct OdeAsDae<F> {
    /// The wrapped right-hand side.
    pub rhs: F,
    scratch: Vec<f64>,
}

impl<F: OdeRhs> OdeAsDae<F> {
    /// Wraps `rhs`.
    pub fn new(rhs: F) -> Self {
        let n = rhs.dim();
        Self {
            rhs,
            scratch: vec![0.0; n],
        }
    }
}

impl<F: OdeRhs> DaeResidual for OdeAsDae<F> {
    fn dim(&self) -> usize {
        self.rhs.dim()
    }
    fn residual(&mut self, t: f64, y: &[f64], yp: &[f64], r: &mut [f64]) -> Result<(), RhsError> {
        self.rhs.eval(t, y, &mut self.scratch)?;
        for i in 0..r.len() {
            r[i] = yp[i] - self.scratch[i];
        }
        Ok(())
    }
}

/// Adapts an infallible closure `|t, y, dy| { … }` to [`OdeRhs`].
#[derive(Debug, Clone)]
pub struct FnRhs<G> {
    dim: usize,
    f: G,
}

impl<G: FnMut(f64, &[f64], &mut [f64])> FnRhs<G> {
    /// Wraps `f` for a state of dimension `dim`.
    pub fn new(dim: usize, f: G) -> Self {
        Self { dim, f }
    }
}

impl<G: FnMut(f64, &[f64], &mut [f64])> OdeRhs for FnRhs<G> {
    fn dim(&self) -> usize {
        self.dim
    }
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        (self.f)(t, y, dy);
        Ok(())
    }
}

/// Adapts a fallible closure `|t, y, dy| -> Result<(), RhsError>` to [`OdeRhs`].
#[derive(Debug, Clone)]
pub struct TryFnRhs<G> {
    dim: usize,
    f: G,
}

impl<G: FnMut(f64, &[f64], &mut [f64]) -> Result<(), RhsError>> TryFnRhs<G> {
    /// Wraps `f` for a state of dimension `dim`.
    pub fn new(dim: usize, f: G) -> Self {
        Self { dim, f }
    }
}

impl<G: FnMut(f64, &[f64], &mut [f64]) -> Result<(), RhsError>> OdeRhs for TryFnRhs<G> {
    fn dim(&self) -> usize {
        self.dim
    }
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        (self.f)(t, y, dy)
    }
}

/// Evaluates `f`, counts it in `stats.f_evals` and attaches `t` to a failure.
///
/// A NaN in `dy` at a finite `(t, y)` is the model's failure, not the step size's: it is
/// reported as [`OdeError::NonFinite`] with [`Quantity::Derivative`] and the component, in
/// every stepper (a step-size controller would otherwise shrink the step to round-off and
/// report [`OdeError::StepSizeTooSmall`]). A NaN produced from a non-finite stage (after an
/// overflow) and ±∞ (an overflow) still lead to a rejected step. A user's [`RhsError`] stays
/// [`OdeError::RhsFailed`].
#[inline]
pub(crate) fn eval_rhs<F: OdeRhs + ?Sized>(
    f: &mut F,
    stats: &mut Stats,
    t: f64,
    y: &[f64],
    dy: &mut [f64],
) -> Result<(), OdeError> {
    stats.f_evals += 1;
    f.eval(t, y, dy)
        .map_err(|source| OdeError::RhsFailed { t, source })?;
    check_nan_output(t, &[y], dy)
}

/// [`OdeError::NonFinite`] (`Derivative`) naming the first NaN of `out` when `t` and every
/// input slice are finite (see [`eval_rhs`]).
#[inline]
pub(crate) fn check_nan_output(t: f64, inputs: &[&[f64]], out: &[f64]) -> Result<(), OdeError> {
    // A scan without early exit first (vector operations); the position only after a NaN.
    if !out.iter().fold(false, |any, v| any | v.is_nan()) {
        return Ok(());
    }
    if let Some(index) = out.iter().position(|v| v.is_nan()) {
        if t.is_finite() && inputs.iter().all(|v| v.iter().all(|x| x.is_finite())) {
            return Err(OdeError::NonFinite {
                what: Quantity::Derivative,
                index,
            });
        }
    }
    Ok(())
}

/// Returns an error naming the first non-finite component of `v`.
pub(crate) fn check_finite(v: &[f64], what: Quantity) -> Result<(), OdeError> {
    match v.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(OdeError::NonFinite { what, index }),
        None => Ok(()),
    }
}

/// Checks `f.dim() == n`.
pub(crate) fn check_dim<F: OdeRhs + ?Sized>(f: &F, n: usize) -> Result<(), OdeError> {
    check_dim_is(f.dim(), n)
}

/// Checks that a problem of dimension `got` fits a stepper of dimension `n`.
pub(crate) fn check_dim_is(got: usize, n: usize) -> Result<(), OdeError> {
    if got != n {
        return Err(OdeError::DimensionMismatch { expected: n, got });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ode_as_dae_residual() {
        let mut d = OdeAsDae::new(FnRhs::new(2, |t, y: &[f64], dy: &mut [f64]| {
            dy[0] = y[1];
            dy[1] = -y[0] + t;
        }));
        let mut r = [0.0; 2];
        d.residual(2.0, &[1.0, 3.0], &[3.0, 1.0], &mut r).unwrap();
        assert_eq!(r, [0.0, 0.0]);
        d.residual(2.0, &[1.0, 3.0], &[4.0, 0.0], &mut r).unwrap();
        assert_eq!(r, [1.0, -1.0]);
    }
}
