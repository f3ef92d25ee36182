//! The parametrization approach (Keerthi (4.1)–(4.2)) after Mani, Haug & Atkinson: a local
//! tangent-space parametrization of `M = {x : g(x) = 0}`.
//!
//! At a point `xₚ = (qₚ, vₚ) ∈ M` (time `tₚ`) split `ℝᴺ` into orthonormal bases `V₁` of the
//! row space of `J(qₚ)` (N × L) and `V₂` of its null space (N × (N−L)) — Mani, Haug &
//! Atkinson take them from the SVD of `J`; we orthonormalize the rows of `J` and complete the
//! basis by modified Gram–Schmidt (same subspaces, no allocation). With `y = (y_q, y_v)` ∈
//! ℝ^{n−m}, `n − m = 2(N − L)`:
//!
//! ```text
//! x = ψ(y):   q = qₚ + V₂ y_q + V₁ z,   φ(t, q) = 0          (L nonlinear equations in z)
//!             v = V₂ y_v + V₁ w,        J(q) v + b = 0        (L linear equations in w)
//! ẏ = f̃(y):   ẏ_q = V₂ᵀ q̇ = y_v,   ẏ_v = V₂ᵀ q̈(t, q, v)      (4.2)
//! ```
//!
//! Each `f̃` evaluation solves the m-dimensional system (Newton on `z` with the matrix
//! `J(q)V₁`, warm-started, then `w`) and one `f` (counted in `N_f`). The chart degrades as `q`
//! leaves `qₚ`: `J(q)V₁` loses conditioning and the slope `S = (J V₁)⁻¹ J V₂ = −∂z/∂y_q` grows
//! (`S = 0` at `qₚ`). After every accepted step we **re-parametrize** at the current point and
//! **restart** the integrator from `y = (0, V₂ᵀv)` when `‖S‖_F > max_slope` (default 1: the
//! chart's tangent plane is tilted by 45° against the manifold's), when a Newton solve needed
//! more than `reparametrize_after_iterations` iterations, or when the chart failed inside a step
//! (the step is then retaken from the last accepted point in a new chart). Each restart costs
//! the integrator's start-up (for ABM and the BDF: order 1 and small steps again, the BDF
//! also a new iteration matrix) — the "integration
//! restarts with associated inefficiencies" of Keerthi section 4.

use contour_linalg::{LinalgError, Lu};
use contour_model::{ConstrainedDynamics, DynamicsOptions, Mechanism};
use contour_ode::{OdeError, OdeRhs, RhsError};
use faer::Mat;
use serde::{Deserialize, Serialize};

use crate::error::ProjectionError;
use crate::method::{
    check_parameters, Accepted, AfterStep, ConstraintMethod, MethodStart, RunContext,
};
use crate::rhs::{ode_error, ConstrainedRhs};
use crate::trajectory::{EventKind, SimulationStats};

/// Options of the parametrization approach.
///
/// Defaults: `max_slope = 1.0`, `newton_tol = 1e-10` (update size relative to
/// `1 + ‖qₚ‖∞`), `max_newton_iterations = 10`, `reparametrize_after_iterations = 4`,
/// `max_chart_failures = 5` (consecutive re-parametrizations without an accepted step).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ParametrizationConfig {
    /// Re-parametrize when `‖(J V₁)⁻¹ J V₂‖_F` exceeds this.
    pub max_slope: f64,
    /// Newton on `z` stops when `‖δz‖∞ ≤ newton_tol·(1 + ‖qₚ‖∞)`.
    pub newton_tol: f64,
    /// Newton iterations allowed per `ψ` evaluation.
    pub max_newton_iterations: usize,
    /// Re-parametrize after a step in which some `ψ` needed more iterations than this.
    pub reparametrize_after_iterations: usize,
    /// Consecutive chart failures tolerated at one point.
    pub max_chart_failures: usize,
}

impl Default for ParametrizationConfig {
    fn default() -> Self {
        Self {
            max_slope: 1.0,
            newton_tol: 1e-10,
            max_newton_iterations: 10,
            reparametrize_after_iterations: 4,
            max_chart_failures: 5,
        }
    }
}

impl ParametrizationConfig {
    fn validate(&self) -> Result<(), ProjectionError> {
        check_parameters(&[
            ("max_slope", self.max_slope, self.max_slope > 0.0),
            ("newton_tol", self.newton_tol, self.newton_tol > 0.0),
            (
                "max_newton_iterations",
                self.max_newton_iterations as f64,
                self.max_newton_iterations > 0,
            ),
        ])
    }
}

/// A local chart `x = ψ(y)` around `xₚ` and the reduced field `ẏ = f̃(y)` (4.2).
#[derive(Debug)]
pub(crate) struct ParamRhs<'m, M: ?Sized> {
    inner: ConstrainedRhs<'m, M>,
    n: usize,
    /// Rows of the chart: the numerical rank r of `J` (rows `sel` of `J`, L when no row is
    /// redundant).
    l: usize,
    /// Constraint rows L of the mechanism.
    rows: usize,
    /// The `l` rows of `J` that span its row space (Gram–Schmidt in row order; the others are
    /// redundant and met with them on the manifold).
    sel: Vec<usize>,
    d: usize,
    cfg: ParametrizationConfig,
    /// Basis `[V₁ V₂]` (N × N), columns `0..L` span the rows of `J(qₚ)`.
    basis: Mat<f64>,
    qp: Vec<f64>,
    qscale: f64,
    z: Vec<f64>,
    j: Mat<f64>,
    /// `J_sel(q) V₁` (r × r) and its LU.
    jv1: Mat<f64>,
    lu: Lu,
    /// `φ` and `b` of every row (length L), and the right-hand side of the selected rows (r).
    phi: Vec<f64>,
    b: Vec<f64>,
    rhs: Vec<f64>,
    r: Vec<f64>,
    x: Vec<f64>,
    dx: Vec<f64>,
    last_y: Vec<f64>,
    last_t: f64,
    last_valid: bool,
    /// Newton iterations in total, and the most in one ψ since the last reset.
    iterations: usize,
    max_iterations_seen: usize,
    error: Option<ProjectionError>,
}

impl<'m, M: Mechanism + ?Sized> ParamRhs<'m, M> {
    fn new(
        mech: &'m M,
        cfg: ParametrizationConfig,
        dynamics: DynamicsOptions,
    ) -> Result<Self, ProjectionError> {
        let (n, l) = (mech.dof(), mech.n_constraints());
        if l == 0 {
            return Err(ProjectionError::BadConstraintCount {
                method: "parametrization",
                rows: l,
                dof: n,
            });
        }
        // the chart's size is the rank of J, set by `select_rows` (L ≥ N rows may still leave
        // free coordinates)
        let r = l.min(n.saturating_sub(1));
        Ok(Self {
            inner: ConstrainedRhs::new(mech, dynamics)?,
            n,
            l: r,
            rows: l,
            sel: (0..r).collect(),
            d: n - r,
            cfg,
            basis: Mat::zeros(n, n),
            qp: vec![0.0; n],
            qscale: 1.0,
            z: vec![0.0; r],
            j: Mat::zeros(l, n),
            jv1: Mat::zeros(r, r),
            lu: Lu::new(r),
            phi: vec![0.0; l],
            b: vec![0.0; l],
            rhs: vec![0.0; r],
            r: vec![0.0; n],
            x: vec![0.0; 2 * n],
            dx: vec![0.0; 2 * n],
            last_y: vec![0.0; 2 * (n - r)],
            last_t: f64::NAN,
            last_valid: false,
            iterations: 0,
            max_iterations_seen: 0,
            error: None,
        })
    }

    /// The numerical rank r of `J(t, q)` and the rows that span its row space (modified
    /// Gram–Schmidt on the rows in order, [`Self::orthogonalize_into`]'s cut-off): the chart
    /// has `N − r` coordinates. Sizes the workspace (allocates; once, at the start).
    /// [`ProjectionError::NoFreeCoordinates`] when `r = N`, [`ProjectionError::BadConstraintCount`]
    /// when no row is independent (`J = 0`).
    fn select_rows(&mut self, t: f64, q: &[f64]) -> Result<(), ProjectionError> {
        let (n, rows) = (self.n, self.rows);
        let mech = self.inner.mechanism();
        mech.constraint_jacobian(t, q, self.j.as_mut());
        let mut sel = Vec::with_capacity(rows);
        for i in 0..rows {
            for k in 0..n {
                self.r[k] = self.j[(i, k)];
            }
            if sel.len() < n && self.orthogonalize_into(sel.len()) {
                sel.push(i);
            }
        }
        let r = sel.len();
        if r >= n {
            return Err(ProjectionError::NoFreeCoordinates {
                method: "parametrization",
                rank: r,
                rows,
                dof: n,
            });
        }
        if r == 0 {
            return Err(ProjectionError::BadConstraintCount {
                method: "parametrization",
                rows,
                dof: n,
            });
        }
        if r != self.l {
            self.l = r;
            self.d = n - r;
            self.z = vec![0.0; r];
            self.jv1 = Mat::zeros(r, r);
            self.lu = Lu::new(r);
            self.rhs = vec![0.0; r];
            self.last_y = vec![0.0; 2 * (n - r)];
        }
        self.sel = sel;
        Ok(())
    }

    /// New chart at `xp` (on `M`); writes `y₀ = (0, V₂ᵀ vₚ)`.
    ///
    /// [`ProjectionError::RankChanged`] when the rows of `J(qₚ)` no longer have the rank r of
    /// the start (the chart's size is fixed for the run): the first row whose dependence
    /// changed and `t`.
    fn reparametrize(&mut self, t: f64, xp: &[f64], y0: &mut [f64]) -> Result<(), ProjectionError> {
        let (n, l, d) = (self.n, self.l, self.d);
        let mech = self.inner.mechanism();
        self.qp.copy_from_slice(&xp[..n]);
        self.qscale = 1.0 + self.qp.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        mech.constraint_jacobian(t, &self.qp, self.j.as_mut());
        // Modified Gram–Schmidt (twice) on the rows of J (the independent ones), then on
        // e₁ … e_N.
        let mut col = 0usize;
        for i in 0..self.rows {
            for k in 0..n {
                self.r[k] = self.j[(i, k)];
            }
            let independent = col < l && self.orthogonalize_into(col);
            if independent {
                self.sel[col] = i;
                col += 1;
            } else if col == l {
                // the rank is complete: a further independent row raises it
                if self.orthogonalize_into(col) {
                    return Err(ProjectionError::RankChanged {
                        method: "parametrization",
                        t,
                        rank: l + 1,
                        expected: l,
                        row: i,
                    });
                }
            } else if self.rows - i <= l - col {
                // too few rows left to reach rank l: row i lost it
                return Err(ProjectionError::RankChanged {
                    method: "parametrization",
                    t,
                    rank: col + (self.rows - i - 1),
                    expected: l,
                    row: i,
                });
            }
        }
        if col < l {
            return Err(ProjectionError::RankChanged {
                method: "parametrization",
                t,
                rank: col,
                expected: l,
                row: self.rows - 1,
            });
        }
        for e in 0..n {
            if col == n {
                break;
            }
            self.r.fill(0.0);
            self.r[e] = 1.0;
            if self.orthogonalize_into(col) {
                col += 1;
            }
        }
        debug_assert_eq!(col, n);
        self.z.fill(0.0);
        for a in 0..d {
            y0[a] = 0.0;
            let mut s = 0.0;
            for k in 0..n {
                s += self.basis[(k, l + a)] * xp[n + k];
            }
            y0[d + a] = s;
        }
        self.last_valid = false;
        Ok(())
    }

    /// Orthogonalizes `self.r` against columns `0..col` (twice), normalizes it into column
    /// `col`; false when it is (numerically) dependent.
    fn orthogonalize_into(&mut self, col: usize) -> bool {
        let n = self.n;
        let norm0 = self.r.iter().map(|v| v * v).sum::<f64>().sqrt();
        for _ in 0..2 {
            for c in 0..col {
                let mut s = 0.0;
                for k in 0..n {
                    s += self.basis[(k, c)] * self.r[k];
                }
                for k in 0..n {
                    self.r[k] -= s * self.basis[(k, c)];
                }
            }
        }
        let norm = self.r.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm.is_nan() || norm <= 1e-8 * norm0 || norm0 == 0.0 {
            return false;
        }
        for k in 0..n {
            self.basis[(k, col)] = self.r[k] / norm;
        }
        true
    }

    /// Factors `J_sel(q) V₁` (r × r, the selected rows) with `J` already in `self.j`.
    fn factor_jv1(&mut self) -> Result<(), ProjectionError> {
        let (n, l) = (self.n, self.l);
        for (i, &row) in self.sel.iter().enumerate() {
            for c in 0..l {
                let mut s = 0.0;
                for k in 0..n {
                    s += self.j[(row, k)] * self.basis[(k, c)];
                }
                self.jv1[(i, c)] = s;
            }
        }
        let what = "J V1 of the parametrization";
        self.lu
            .factor_with_rtol(self.jv1.as_ref(), 1e-12)
            .map_err(|e| match e {
                LinalgError::Singular { pivot, .. } => {
                    ProjectionError::SingularMatrix { what, pivot }
                }
                LinalgError::NonFinite { .. } => ProjectionError::SingularMatrix {
                    what,
                    pivot: f64::NAN,
                },
                other => ProjectionError::Linalg(other),
            })
    }

    /// `x = ψ(t, y)` into `self.x` (Newton on z, then w). Does not allocate.
    fn psi(&mut self, t: f64, y: &[f64]) -> Result<(), ProjectionError> {
        if self.last_valid && t == self.last_t && y == &self.last_y[..] {
            return Ok(());
        }
        let (n, l, d) = (self.n, self.l, self.d);
        let mech = self.inner.mechanism();
        let tol = self.cfg.newton_tol * self.qscale;
        let mut it = 0usize;
        let mut last_step = f64::INFINITY;
        loop {
            // q = qₚ + V₂ y_q + V₁ z
            for k in 0..n {
                let mut s = self.qp[k];
                for a in 0..d {
                    s += self.basis[(k, l + a)] * y[a];
                }
                for c in 0..l {
                    s += self.basis[(k, c)] * self.z[c];
                }
                self.x[k] = s;
            }
            mech.constraint_jacobian(t, &self.x[..n], self.j.as_mut());
            self.factor_jv1()?;
            if last_step <= tol {
                break;
            }
            if it == self.cfg.max_newton_iterations {
                mech.constraints(t, &self.x[..n], &mut self.phi);
                let res = self.phi.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                self.iterations += it;
                return Err(ProjectionError::NoConvergence {
                    t,
                    iterations: it,
                    residual: res,
                });
            }
            mech.constraints(t, &self.x[..n], &mut self.phi);
            // Newton on the selected rows: (J_sel V₁) δz = −φ_sel
            for (ri, &row) in self.rhs.iter_mut().zip(&self.sel) {
                *ri = -self.phi[row];
            }
            self.lu.solve_in_place(&mut self.rhs);
            last_step = 0.0;
            for c in 0..l {
                self.z[c] += self.rhs[c];
                last_step = last_step.max(self.rhs[c].abs());
            }
            if !last_step.is_finite() {
                return Err(ProjectionError::NoConvergence {
                    t,
                    iterations: it,
                    residual: last_step,
                });
            }
            it += 1;
        }
        self.iterations += it;
        self.max_iterations_seen = self.max_iterations_seen.max(it);
        // v = V₂ y_v + V₁ w with (J V₁) w = −(J V₂ y_v + b)
        for k in 0..n {
            let mut s = 0.0;
            for a in 0..d {
                s += self.basis[(k, l + a)] * y[d + a];
            }
            self.r[k] = s;
        }
        mech.constraint_rate_bias(t, &self.x[..n], &mut self.b);
        for (i, &row) in self.sel.iter().enumerate() {
            let mut s = self.b[row];
            for k in 0..n {
                s += self.j[(row, k)] * self.r[k];
            }
            self.rhs[i] = -s;
        }
        self.lu.solve_in_place(&mut self.rhs);
        for k in 0..n {
            let mut s = self.r[k];
            for c in 0..l {
                s += self.basis[(k, c)] * self.rhs[c];
            }
            self.x[n + k] = s;
        }
        self.last_y.copy_from_slice(y);
        self.last_t = t;
        self.last_valid = true;
        Ok(())
    }

    /// `‖(J_sel V₁)⁻¹ J_sel V₂‖_F` at the last `ψ` (its `J` and factorization).
    fn slope(&mut self) -> f64 {
        let (n, l, d) = (self.n, self.l, self.d);
        let mut acc = 0.0;
        for a in 0..d {
            for (i, &row) in self.sel.iter().enumerate() {
                let mut s = 0.0;
                for k in 0..n {
                    s += self.j[(row, k)] * self.basis[(k, l + a)];
                }
                self.rhs[i] = s;
            }
            self.lu.solve_in_place(&mut self.rhs);
            acc += self.rhs.iter().map(|v| v * v).sum::<f64>();
        }
        acc.sqrt()
    }
}

impl<M: Mechanism + ?Sized> OdeRhs for ParamRhs<'_, M> {
    fn dim(&self) -> usize {
        2 * self.d
    }
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        if let Err(e) = self.psi(t, y) {
            self.error = Some(e);
            return Err(RhsError::Failed);
        }
        let (n, l, d) = (self.n, self.l, self.d);
        let x = std::mem::take(&mut self.x);
        let r = self.inner.eval_counted(t, &x, &mut self.dx);
        self.x = x;
        r?;
        // (4.2): ẏ_q = y_v, ẏ_v = V₂ᵀ q̈
        dy[..d].copy_from_slice(&y[d..]);
        for a in 0..d {
            let mut s = 0.0;
            for k in 0..n {
                s += self.basis[(k, l + a)] * self.dx[n + k];
            }
            dy[d + a] = s;
        }
        Ok(())
    }
}

/// The parametrization approach as a method of the driver: integrates the chart
/// coordinates `y`, maps them by `ψ`, and restarts in a new chart when the chart degrades.
#[derive(Debug)]
pub(crate) struct Parametrization<'m, M: ?Sized> {
    rhs: ParamRhs<'m, M>,
    cfg: ParametrizationConfig,
    reparams: usize,
    restarts: usize,
    /// Consecutive chart failures without an accepted step.
    failures: usize,
}

impl<'m, M: Mechanism + ?Sized> Parametrization<'m, M> {
    /// The first chart at the initial point, `y₀ = (0, V₂ᵀ v₀)`.
    pub(crate) fn new(
        ctx: &RunContext<'_, 'm, M>,
        cfg: &ParametrizationConfig,
    ) -> Result<MethodStart<Self>, ProjectionError> {
        cfg.validate()?;
        let mut rhs = ParamRhs::new(ctx.mech, *cfg, ctx.dynamics)?;
        rhs.select_rows(ctx.t0, &ctx.x0[..ctx.mech.dof()])?;
        let mut y0 = vec![0.0; 2 * rhs.d];
        rhs.reparametrize(ctx.t0, &ctx.x0, &mut y0)?;
        let tol = ctx.error_control.to_ode(y0.len());
        let method = Self {
            rhs,
            cfg: *cfg,
            reparams: 0,
            restarts: 0,
            failures: 0,
        };
        Ok(MethodStart { method, y0, tol })
    }
}

impl<'m, M: Mechanism + ?Sized> ConstraintMethod<M> for Parametrization<'m, M> {
    type Problem = ParamRhs<'m, M>;

    fn name(&self) -> &'static str {
        "parametrization"
    }

    fn problem(&mut self) -> &mut Self::Problem {
        &mut self.rhs
    }

    fn kkt_dynamics(&mut self) -> Option<&mut ConstrainedDynamics> {
        Some(self.rhs.inner.dynamics_mut())
    }

    fn integrator_error(&mut self, e: OdeError) -> ProjectionError {
        ode_error(e, &mut self.rhs.inner.last_error)
    }

    fn before_step(&mut self) {
        self.rhs.max_iterations_seen = 0;
    }

    /// The chart failed inside the step: new chart at the last accepted point.
    fn step_failed(
        &mut self,
        e: OdeError,
        last: Accepted<'_>,
        y_restart: &mut [f64],
    ) -> Result<EventKind, ProjectionError> {
        let err = match self.rhs.error.take() {
            Some(pe) => pe,
            None => ode_error(e, &mut self.rhs.inner.last_error),
        };
        self.failures += 1;
        if self.failures > self.cfg.max_chart_failures
            || !matches!(
                err,
                ProjectionError::NoConvergence { .. } | ProjectionError::SingularMatrix { .. }
            )
        {
            return Err(err);
        }
        self.rhs.reparametrize(last.t, last.x, y_restart)?;
        self.reparams += 1;
        self.restarts += 1;
        Ok(EventKind::Reparametrization)
    }

    fn after_step(
        &mut self,
        _t: f64,
        _h: f64,
        _y: &[f64],
        _y_new: &mut [f64],
    ) -> Result<AfterStep, ProjectionError> {
        self.failures = 0;
        Ok(AfterStep::Keep)
    }

    /// Mani–Haug–Atkinson: `x = ψ(y)` of the current chart.
    fn state(&mut self, t: f64, y: &[f64], x: &mut [f64]) -> Result<(), ProjectionError> {
        self.rhs.psi(t, y)?;
        x.copy_from_slice(&self.rhs.x);
        Ok(())
    }

    /// Degradation test at the accepted point (`ψ(y)` is cached unless an output moved it):
    /// a new chart when `‖S‖_F > max_slope` or a Newton solve was slow.
    fn after_record(
        &mut self,
        t: f64,
        at_end: bool,
        y: &[f64],
        x: &[f64],
        y_restart: &mut [f64],
    ) -> Result<Option<EventKind>, ProjectionError> {
        self.rhs.psi(t, y)?;
        let slope = self.rhs.slope();
        if !at_end
            && (slope > self.cfg.max_slope
                || self.rhs.max_iterations_seen > self.cfg.reparametrize_after_iterations)
        {
            self.rhs.reparametrize(t, x, y_restart)?;
            self.reparams += 1;
            self.restarts += 1;
            return Ok(Some(EventKind::Reparametrization));
        }
        Ok(None)
    }
    fn add_stats(&self, s: &mut SimulationStats) {
        s.f_evals = self.rhs.inner.evals;
        s.rank_revealing_evals = self.rhs.inner.rank_revealing_solves();
        s.reparametrizations = self.reparams;
        s.restarts = self.restarts;
        s.parametrization_iterations = self.rhs.iterations;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contour_model::models::{KeerthiControlLaw, KeerthiRobot, Pendulum};
    use contour_model::WithController;

    /// ψ(y₀) = xₚ at the chart origin; the chart's slope is 0 there; [V₁ V₂] is orthonormal
    /// with `J V₂ = 0`.
    #[test]
    fn chart_origin_and_basis() {
        let sys = WithController::new(KeerthiRobot::default(), KeerthiControlLaw::default());
        let cs = contour_model::consistent_state(
            &sys,
            0.0,
            &[2.8, 0.0, 0.3],
            &[0.1, 0.2, -0.3],
            &Default::default(),
        )
        .unwrap();
        let mut xp = cs.q.clone();
        xp.extend_from_slice(&cs.qd);
        let mut p = ParamRhs::new(
            &sys,
            ParametrizationConfig::default(),
            DynamicsOptions::default(),
        )
        .unwrap();
        let mut y0 = vec![0.0; 2];
        p.reparametrize(0.0, &xp, &mut y0).unwrap();
        for a in 0..3 {
            for b in 0..3 {
                let mut s = 0.0;
                for k in 0..3 {
                    s += p.basis[(k, a)] * p.basis[(k, b)];
                }
                let e = if a == b { 1.0 } else { 0.0 };
                assert!((s - e).abs() < 1e-14);
            }
        }
        p.psi(0.0, &y0).unwrap();
        for k in 0..6 {
            assert!((p.x[k] - xp[k]).abs() < 1e-13, "{:?} {:?}", p.x, xp);
        }
        assert!(p.slope() < 1e-14);
        // away from the origin ψ stays on the manifold
        p.psi(0.0, &[0.05, 0.3]).unwrap();
        let mut mon = crate::rhs::ConstraintMonitor::new(&sys);
        let (ph, pd) = mon.violations(&sys, 0.0, &p.x);
        assert!(ph < 1e-14 && pd < 1e-14, "{ph:e} {pd:e}");
        assert!(p.slope() > 0.0);
    }

    #[test]
    fn needs_constraints() {
        struct Free;
        impl Mechanism for Free {
            fn name(&self) -> &str {
                "free"
            }
            fn dof(&self) -> usize {
                1
            }
            fn n_constraints(&self) -> usize {
                0
            }
            fn mass_matrix(&self, _q: &[f64], mut m: faer::MatMut<'_, f64>) {
                m[(0, 0)] = 1.0;
            }
            fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
                h[0] = 0.0;
            }
            fn constraints(&self, _t: f64, _q: &[f64], _phi: &mut [f64]) {}
            fn constraint_jacobian(&self, _t: f64, _q: &[f64], _j: faer::MatMut<'_, f64>) {}
            fn constraint_accel_bias(&self, _t: f64, _q: &[f64], _qd: &[f64], _r: &mut [f64]) {}
        }
        assert!(matches!(
            ParamRhs::new(
                &Free,
                ParametrizationConfig::default(),
                DynamicsOptions::default()
            ),
            Err(ProjectionError::BadConstraintCount { .. })
        ));
        let p = Pendulum::default();
        assert!(ParamRhs::new(
            &p,
            ParametrizationConfig::default(),
            DynamicsOptions::default()
        )
        .is_ok());
    }
}
