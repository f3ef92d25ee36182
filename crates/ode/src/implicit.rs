//! Shared machinery of the implicit methods ([`crate::Bdf`], [`crate::HuangBdf2`],
//! [`crate::SingularlyImplicitRk`]): the iteration matrix `G = ∂F/∂y + c_j·∂F/∂y'`
//! (finite differences or the user's [`DaeJacobian`]) and its LU factorization with partial
//! pivoting, computed in place by faer into storage allocated once.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::partial_pivoting::{factor, solve};
use faer::perm::PermRef;
use faer::{Mat, MatMut, Par};

use crate::error::{OdeError, RhsError};
use crate::problem::{DaeJacobian, DaeResidual, WithJacobian};
use crate::stats::Stats;

/// A residual with an optional analytic iteration matrix (crate-internal): a wrapper around
/// the user's [`DaeResidual`] that forwards `dim` and `residual` to it.
pub(crate) trait Source {
    /// The wrapped residual.
    type Inner: DaeResidual + ?Sized;
    fn inner(&self) -> &Self::Inner;
    fn inner_mut(&mut self) -> &mut Self::Inner;
    fn dim(&self) -> usize {
        self.inner().dim()
    }
    fn residual(&mut self, t: f64, y: &[f64], yp: &[f64], r: &mut [f64]) -> Result<(), RhsError> {
        self.inner_mut().residual(t, y, yp, r)
    }
    /// `Some(..)` when the problem supplies `∂F/∂y + cj·∂F/∂y'` itself (default: `None`,
    /// finite differences).
    fn analytic_matrix(
        &mut self,
        _t: f64,
        _y: &[f64],
        _yp: &[f64],
        _cj: f64,
        _m: MatMut<'_, f64>,
    ) -> Option<Result<(), RhsError>> {
        None
    }
    /// [`DaeJacobian::owns_solve`] (default `false`).
    fn owns_solve(&self) -> bool {
        false
    }
    /// [`DaeJacobian::solve_iteration`] (default `false`).
    fn solve_iteration(&mut self, _x: &mut [f64]) -> bool {
        false
    }
    /// [`DaeJacobian::map_error_estimate`] (default `false`).
    fn map_error_estimate(&mut self, _t: f64, _h: f64, _y: &[f64], _e: &mut [f64]) -> bool {
        false
    }
    /// [`DaeJacobian::map_newton_update`] (default `false`).
    fn map_newton_update(&mut self, _delta: &mut [f64]) -> bool {
        false
    }
}

/// A plain residual: the iteration matrix is formed by finite differences.
pub(crate) struct Fd<'a, F: ?Sized>(pub &'a mut F);

impl<F: DaeResidual + ?Sized> Source for Fd<'_, F> {
    type Inner = F;
    fn inner(&self) -> &F {
        self.0
    }
    fn inner_mut(&mut self) -> &mut F {
        self.0
    }
}

impl<F: DaeJacobian> Source for WithJacobian<F> {
    type Inner = F;
    fn inner(&self) -> &F {
        &self.0
    }
    fn inner_mut(&mut self) -> &mut F {
        &mut self.0
    }
    fn analytic_matrix(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        cj: f64,
        m: MatMut<'_, f64>,
    ) -> Option<Result<(), RhsError>> {
        Some(self.0.iteration_matrix(t, y, yp, cj, m))
    }
    fn owns_solve(&self) -> bool {
        self.0.owns_solve()
    }
    fn solve_iteration(&mut self, x: &mut [f64]) -> bool {
        self.0.solve_iteration(x)
    }
    fn map_error_estimate(&mut self, t: f64, h: f64, y: &[f64], e: &mut [f64]) -> bool {
        self.0.map_error_estimate(t, h, y, e)
    }
    fn map_newton_update(&mut self, delta: &mut [f64]) -> bool {
        self.0.map_newton_update(delta)
    }
}

/// Checks once per stepper that the problem has the stepper's dimension `n` (`checked`
/// remembers it).
pub(crate) fn check_dim_once<S: Source + ?Sized>(
    f: &S,
    n: usize,
    checked: &mut bool,
) -> Result<(), OdeError> {
    if !*checked {
        crate::problem::check_dim_is(f.dim(), n)?;
        *checked = true;
    }
    Ok(())
}

/// Evaluates the residual, counts it and attaches `t` to a failure.
#[inline]
pub(crate) fn eval_res<S: Source + ?Sized>(
    f: &mut S,
    stats: &mut Stats,
    t: f64,
    y: &[f64],
    yp: &[f64],
    r: &mut [f64],
) -> Result<(), OdeError> {
    stats.f_evals += 1;
    f.residual(t, y, yp, r)
        .map_err(|source| OdeError::RhsFailed { t, source })?;
    // a NaN residual at finite (t, y, y') is the model's, named as such (see `eval_rhs`)
    crate::problem::check_nan_output(t, &[y, yp], r)
}

/// Iteration matrix `G` and its in-place LU factors `P G = L U` (faer, partial pivoting).
pub(crate) struct IterationMatrix {
    n: usize,
    /// `G` before [`IterationMatrix::factor`], the packed `L\U` after.
    pub(crate) lu: Mat<f64>,
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    mem: MemBuffer,
    /// Whether the last factorization produced a usable (nonsingular, finite) `U`.
    pub(crate) ok: bool,
    /// Residual at the perturbed point (finite differences).
    r_pert: Vec<f64>,
}

impl std::fmt::Debug for IterationMatrix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IterationMatrix")
            .field("n", &self.n)
            .field("ok", &self.ok)
            .finish_non_exhaustive()
    }
}

impl Clone for IterationMatrix {
    fn clone(&self) -> Self {
        let mut c = Self::new(self.n);
        c.lu.copy_from(&self.lu);
        c.perm.copy_from_slice(&self.perm);
        c.perm_inv.copy_from_slice(&self.perm_inv);
        c.ok = self.ok;
        c
    }
}

impl IterationMatrix {
    /// Allocates storage and scratch for `n × n`.
    pub(crate) fn new(n: usize) -> Self {
        let req = factor::lu_in_place_scratch::<usize, f64>(n, n, Par::Seq, Default::default())
            .or(solve::solve_in_place_scratch::<usize, f64>(n, 1, Par::Seq));
        Self {
            n,
            lu: Mat::zeros(n, n),
            perm: (0..n).collect(),
            perm_inv: (0..n).collect(),
            mem: MemBuffer::new(req),
            ok: false,
            r_pert: vec![0.0; n],
        }
    }

    /// Forms `G = ∂F/∂y + cj·∂F/∂y'` at `(t, y, yp)`: analytic when the problem offers it,
    /// otherwise by forward differences (DASSL's `DDAJAC`): column `j` perturbs
    /// `yⱼ += δⱼ`, `y'ⱼ += cj·δⱼ` with `δⱼ = √u·max(|yⱼ|, |h·y'ⱼ|, wⱼ)·sign(h·y'ⱼ)`,
    /// `wⱼ = 1/scⱼ` the tolerance scale, raised to `floor` when smaller (the constant-step
    /// methods pass `10⁻³‖y‖∞`: their first predictor has `y' = 0`, and with tight tolerances
    /// DASSL's increment would drown in the rounding of `F`); `r0 = F(t, y, yp)` must be
    /// supplied.
    /// Counts one Jacobian evaluation and `n` residual evaluations (finite differences).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn compute<S: Source + ?Sized>(
        &mut self,
        f: &mut S,
        stats: &mut Stats,
        t: f64,
        y: &mut [f64],
        yp: &mut [f64],
        cj: f64,
        h: f64,
        r0: &[f64],
        sc: &[f64],
        floor: f64,
    ) -> Result<(), OdeError> {
        stats.jacobian_evals += 1;
        if let Some(res) = f.analytic_matrix(t, y, yp, cj, self.lu.as_mut()) {
            return res.map_err(|source| OdeError::RhsFailed { t, source });
        }
        let squr = f64::EPSILON.sqrt();
        for j in 0..self.n {
            let w = if sc[j] > 0.0 { 1.0 / sc[j] } else { 1.0 };
            let mut del = squr * y[j].abs().max((h * yp[j]).abs()).max(w).max(floor);
            del = del.copysign(h * yp[j]);
            del = (y[j] + del) - y[j];
            let (ys, yps) = (y[j], yp[j]);
            y[j] += del;
            yp[j] += cj * del;
            let r = eval_res(f, stats, t, y, yp, &mut self.r_pert);
            y[j] = ys;
            yp[j] = yps;
            r?;
            for i in 0..self.n {
                self.lu[(i, j)] = (self.r_pert[i] - r0[i]) / del;
            }
        }
        Ok(())
    }

    /// Factors the stored `G` in place; returns whether `U` is nonsingular and finite.
    pub(crate) fn factor(&mut self, stats: &mut Stats) -> bool {
        stats.factorizations += 1;
        if self.n == 0 {
            self.ok = true;
            return true;
        }
        let finite = (0..self.n).all(|j| (0..self.n).all(|i| self.lu[(i, j)].is_finite()));
        if !finite {
            self.ok = false;
            return false;
        }
        let stack = MemStack::new(&mut self.mem);
        let _ = factor::lu_in_place(
            self.lu.as_mut(),
            &mut self.perm,
            &mut self.perm_inv,
            Par::Seq,
            stack,
            Default::default(),
        );
        self.ok = (0..self.n).all(|i| {
            let d = self.lu[(i, i)];
            d != 0.0 && d.is_finite()
        });
        self.ok
    }

    /// `x ← G⁻¹ x` with the stored factors.
    pub(crate) fn solve_in_place(&mut self, x: &mut [f64]) {
        if self.n == 0 {
            return;
        }
        let perm = PermRef::new_checked(&self.perm, &self.perm_inv, self.n);
        let lu = self.lu.as_ref();
        let stack = MemStack::new(&mut self.mem);
        solve::solve_in_place(
            lu,
            lu,
            perm,
            MatMut::from_column_major_slice_mut(x, self.n, 1),
            Par::Seq,
            stack,
        );
    }
}

/// Inverse tolerance scales without component weights, `sᵢ = 1/(atolᵢ + rtol·|yᵢ|)`
/// (used by the Newton convergence test, which involves every component).
pub(crate) fn newton_scales(tol: &crate::norm::Tolerances, y: &[f64], s: &mut [f64]) {
    for (i, (si, yi)) in s.iter_mut().zip(y).enumerate() {
        *si = 1.0 / (tol.atol_in(i) + tol.rtol * yi.abs()).max(f64::MIN_POSITIVE);
    }
}

/// `Advance` for a constant-step implicit method, for residual problems (finite-difference
/// iteration matrix) and for `WithJacobian` problems (analytic matrix), delegating to the
/// type's `step_impl`, `replace_impl` (shift the stored points by `ỹ − yₙ`, no evaluation) and
/// `restart_impl` (drop the history; the next step is a starting step).
macro_rules! implicit_advance {
    ($ty:ty) => {
        impl<F: $crate::problem::DaeResidual + ?Sized> $crate::stepper::Advance<F> for $ty {
            fn step(
                &mut self,
                f: &mut F,
            ) -> Result<$crate::stepper::StepInfo, $crate::error::OdeError> {
                self.step_impl(&mut $crate::implicit::Fd(f))
            }
            fn replace_y(&mut self, _f: &mut F, y: &[f64]) -> Result<(), $crate::error::OdeError> {
                self.replace_impl(y)
            }
            fn restart(
                &mut self,
                _f: &mut F,
                t: f64,
                y: &[f64],
            ) -> Result<(), $crate::error::OdeError> {
                self.restart_impl(t, y)
            }
        }

        impl<F: $crate::problem::DaeJacobian>
            $crate::stepper::Advance<$crate::problem::WithJacobian<F>> for $ty
        {
            fn step(
                &mut self,
                f: &mut $crate::problem::WithJacobian<F>,
            ) -> Result<$crate::stepper::StepInfo, $crate::error::OdeError> {
                self.step_impl(f)
            }
            fn replace_y(
                &mut self,
                _f: &mut $crate::problem::WithJacobian<F>,
                y: &[f64],
            ) -> Result<(), $crate::error::OdeError> {
                self.replace_impl(y)
            }
            fn restart(
                &mut self,
                _f: &mut $crate::problem::WithJacobian<F>,
                t: f64,
                y: &[f64],
            ) -> Result<(), $crate::error::OdeError> {
                self.restart_impl(t, y)
            }
        }
    };
}
pub(crate) use implicit_advance;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::{FnRhs, OdeAsDae};

    /// LU of a 3×3 matrix solves to round-off; the finite-difference matrix of a linear ODE
    /// `y' = A y` is `−A + cj·I`.
    #[test]
    fn lu_and_fd_matrix() {
        let a = [[1.0, 2.0, 0.5], [-1.0, 3.0, 1.0], [0.0, 1.0, -4.0]];
        let mut f = OdeAsDae::new(FnRhs::new(3, move |_t, y: &[f64], dy: &mut [f64]| {
            for i in 0..3 {
                dy[i] = (0..3).map(|j| a[i][j] * y[j]).sum();
            }
        }));
        let mut m = IterationMatrix::new(3);
        let mut stats = Stats::default();
        let (mut y, mut yp) = ([1.0, -2.0, 0.3], [0.1, 0.2, 0.3]);
        let mut r0 = [0.0; 3];
        f.residual(0.0, &y, &yp, &mut r0).unwrap();
        let cj = 7.0;
        m.compute(
            &mut Fd(&mut f),
            &mut stats,
            0.0,
            &mut y,
            &mut yp,
            cj,
            0.1,
            &r0,
            &[1e6; 3],
            0.0,
        )
        .unwrap();
        for i in 0..3 {
            for j in 0..3 {
                let exact = -a[i][j] + if i == j { cj } else { 0.0 };
                assert!((m.lu[(i, j)] - exact).abs() < 1e-6, "({i},{j})");
            }
        }
        let g = m.lu.clone();
        assert!(m.factor(&mut stats));
        let x = [0.5, -1.0, 2.0];
        let mut b: Vec<f64> = (0..3)
            .map(|i| (0..3).map(|j| g[(i, j)] * x[j]).sum())
            .collect();
        m.solve_in_place(&mut b);
        for i in 0..3 {
            assert!((b[i] - x[i]).abs() < 1e-14 * 30.0, "{b:?}");
        }
        assert_eq!(
            (stats.jacobian_evals, stats.factorizations, stats.f_evals),
            (1, 1, 3)
        );
        m.lu.fill(0.0);
        assert!(!m.factor(&mut stats));
    }
}
