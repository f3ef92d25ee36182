//! The augmented-Lagrangian index-3 formulation with mass-orthogonal projections (Bayo &
//! Ledesma 1996; Cuadrado, Cardenal & Bayo 1997): the method of the MBS benchmark's reference
//! results ([`crate::Method::AugmentedLagrangian`]).
//!
//! The equations of motion `M q̈ + h = u + Jᵀλ` are replaced by the penalized form with
//! iterated multipliers λ*
//!
//! ```text
//! M q̈ + h − u + Jᵀ(λ* + α φ) = 0,        λ*ᵢ₊₁ = λ*ᵢ + α φᵢ₊₁          Bayo–Ledesma (9), (11)
//! ```
//!
//! (`λ = −(λ* + αφ)` in the sign of [`Mechanism`]), discretized by the trapezoidal rule at the
//! constant step `h` (the MBS benchmark's protocol):
//!
//! ```text
//! q̇ₙ₊₁ = (2/h) qₙ₊₁ + q̂̇ₙ,   q̂̇ₙ = −(2/h) qₙ − q̇ₙ
//! q̈ₙ₊₁ = (4/h²) qₙ₊₁ + q̂̈ₙ,  q̂̈ₙ = −(4/h²) qₙ − (4/h) q̇ₙ − q̈ₙ          Cuadrado (8)
//! ```
//!
//! Newton on the residual scaled by `h²/4`, `f(q) = (h²/4)(M q̈ + h − u + Jᵀ(λ* + αφ))`,
//! with the tangent `T = M + (h/2)C + (h²/4)(K + α JᵀJ)` (Cuadrado (11)), `C = ∂(h − u)/∂q̇`,
//! `K = ∂(h − u)/∂q` by forward differences once per step (a stiff spring-damper such as
//! A05's makes them dominate `M`); λ* is updated after every iteration. Two terms of the exact
//! tangent are dropped: `∂(M q̈)/∂q` (zero for the constant mass matrices of natural
//! coordinates) and `(h²/4) ∂(Jᵀ)/∂q (λ* + αφ)` (it changes the convergence rate, not the
//! converged `q`). `T` is regular for a rank-deficient `J` (`M` is positive definite), so
//! redundant rows need no treatment.
//!
//! After convergence the velocities and accelerations are projected onto the velocity and
//! acceleration constraints, with `W = M + (h/2)C + (h²/4)K`:
//!
//! ```text
//! T q̇ = W q̇* − (h²/4) α Jᵀ b           Cuadrado (13)   (φ̇ = J q̇ + b)
//! T q̈ = W q̈* − (h²/4) α Jᵀ ρ(q, q̇)     Cuadrado (14)   (φ̈ = J q̈ + ρ)
//! ```
//!
//! **Tolerance.** The step is `h` whatever τ is: τ of the run's [`crate::ErrorControl`]
//! (`atol + rtol·‖q‖∞`) is the Newton tolerance on `‖Δq‖∞` and `‖φ‖∞`. The method has its own
//! integrator and refuses another one ([`ProjectionError::UnsupportedIntegrator`]) rather than
//! ignore a request for error control. Errors and CPU times on the MBS problems come from the
//! ignored test `mbs_grid` (`tests/augmented_lagrangian.rs`; not yet measured).

use contour_linalg::Lu;
use contour_model::Mechanism;
use contour_ode::{Advance, OdeError, Quantity, Stats, StepInfo, Stepper};
use faer::Mat;
use serde::{Deserialize, Serialize};

use crate::error::ProjectionError;
use crate::integrator::Integrator;
use crate::method::{check_parameters, ConstraintMethod, Multipliers, RunContext};
use crate::trajectory::SimulationStats;

/// Configuration of [`crate::Method::AugmentedLagrangian`].
///
/// Defaults: `h = 1e-3` s, `alpha = 1e8`, `max_newton_iterations = 20`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AugmentedLagrangianConfig {
    /// Constant step `h` \[s\] of the trapezoidal rule (> 0).
    pub h: f64,
    /// Penalty factor α (> 0), in the units of `M q̈ / φ` (N/m² for length constraints of
    /// natural coordinates). The converged `q` does not depend on it (the λ* iteration);
    /// `(h²/4)α ≫ ‖M‖` makes the iteration contract fast.
    pub alpha: f64,
    /// Newton iterations per step (≥ 1).
    pub max_newton_iterations: usize,
}

impl Default for AugmentedLagrangianConfig {
    fn default() -> Self {
        Self {
            h: 1e-3,
            alpha: 1e8,
            max_newton_iterations: 20,
        }
    }
}

impl AugmentedLagrangianConfig {
    /// Checks `h > 0`, `α > 0` (finite) and `max_newton_iterations ≥ 1`.
    pub fn validate(&self) -> Result<(), ProjectionError> {
        check_parameters(&[
            ("h", self.h, self.h > 0.0),
            ("alpha", self.alpha, self.alpha > 0.0),
            (
                "max_newton_iterations",
                self.max_newton_iterations as f64,
                self.max_newton_iterations > 0,
            ),
        ])
    }
}

/// The problem the [`Trapezoidal`] stepper advances: the mechanism, and the multipliers λ of
/// the last accepted point, written by the stepper (every other workspace is the stepper's).
#[derive(Debug)]
pub struct AlProblem<'m, M: ?Sized> {
    mech: &'m M,
    lambda: Vec<f64>,
}

impl<'m, M: Mechanism + ?Sized> AlProblem<'m, M> {
    /// The problem of `mech` (allocates λ).
    pub fn new(mech: &'m M) -> Self {
        Self {
            mech,
            lambda: vec![0.0; mech.n_constraints()],
        }
    }

    /// `λ = −λ*` (the sign of [`Mechanism`]) at the last accepted point.
    pub fn lambda(&self) -> &[f64] {
        &self.lambda
    }
}

/// The trapezoidal rule on the augmented-Lagrangian index-3 equations with the projections
/// (13)–(14), at the constant step `h` (module documentation). The state is `y = (q, q̇)`;
/// `q̈` and λ* are carried between steps. Allocates in [`Trapezoidal::new`] only.
#[derive(Debug, Clone)]
pub struct Trapezoidal {
    cfg: AugmentedLagrangianConfig,
    rtol: f64,
    atol: f64,
    n: usize,
    l: usize,
    t: f64,
    t_prev: f64,
    h_last: f64,
    t_stop: Option<f64>,
    /// `(q, q̇)` now and at the start of the last step.
    y: Vec<f64>,
    y_prev: Vec<f64>,
    /// `q̈` now and at the start of the last step.
    qdd: Vec<f64>,
    qdd_prev: Vec<f64>,
    /// The iterated multipliers λ* (λ = −λ* in the sign of [`Mechanism`]).
    lam: Vec<f64>,
    m: Mat<f64>,
    j: Mat<f64>,
    /// `(h/2)C + (h²/4)K` of the step.
    ck: Mat<f64>,
    tan: Mat<f64>,
    lu: Lu,
    q: Vec<f64>,
    qd: Vec<f64>,
    qhd: Vec<f64>,
    qhdd: Vec<f64>,
    g: Vec<f64>,
    g1: Vec<f64>,
    u: Vec<f64>,
    r: Vec<f64>,
    w: Vec<f64>,
    phi: Vec<f64>,
    c: Vec<f64>,
    stats: Stats,
}

impl Trapezoidal {
    /// A stepper at `(t0, x0 = (q0, q̇0))`: the consistent `q̈₀` and λ*₀ by the augmented
    /// Lagrangian on the acceleration level (below).
    ///
    /// Errors: [`AugmentedLagrangianConfig::validate`], a wrong length of `x0`, a tolerance
    /// with `rtol` or `atol` negative or both zero ([`OdeError::InvalidParameter`]).
    pub fn new<M: Mechanism + ?Sized>(
        problem: &mut AlProblem<'_, M>,
        t0: f64,
        x0: &[f64],
        cfg: AugmentedLagrangianConfig,
        rtol: f64,
        atol: f64,
    ) -> Result<Self, ProjectionError> {
        cfg.validate()?;
        let mech = problem.mech;
        let (n, l) = (mech.dof(), mech.n_constraints());
        if x0.len() != 2 * n {
            return Err(ProjectionError::DimensionMismatch {
                what: "x0",
                expected: 2 * n,
                found: x0.len(),
            });
        }
        if !(rtol >= 0.0 && atol >= 0.0 && rtol + atol > 0.0) {
            return Err(OdeError::InvalidParameter {
                name: "tolerance",
                value: rtol + atol,
            }
            .into());
        }
        let z = |k| vec![0.0; k];
        let mut s = Self {
            cfg,
            rtol,
            atol,
            n,
            l,
            t: t0,
            t_prev: t0,
            h_last: 0.0,
            t_stop: None,
            y: x0.to_vec(),
            y_prev: x0.to_vec(),
            qdd: z(n),
            qdd_prev: z(n),
            lam: z(l),
            m: Mat::zeros(n, n),
            j: Mat::zeros(l, n),
            ck: Mat::zeros(n, n),
            tan: Mat::zeros(n, n),
            lu: Lu::new(n),
            q: z(n),
            qd: z(n),
            qhd: z(n),
            qhdd: z(n),
            g: z(n),
            g1: z(n),
            u: z(n),
            r: z(n),
            w: z(n),
            phi: z(l),
            c: z(l),
            stats: Stats::default(),
        };
        s.start(mech, t0)?;
        s.write_lambda(&mut problem.lambda);
        Ok(s)
    }

    /// `λ = −λ*` into `out`.
    fn write_lambda(&self, out: &mut [f64]) {
        for (o, v) in out.iter_mut().zip(&self.lam) {
            *o = -v;
        }
    }

    /// `q̈` of the last accepted point.
    pub fn acceleration(&self) -> &[f64] {
        &self.qdd
    }

    /// `g = h(q, q̇) − u(t, q, q̇)` into `out` (one counted evaluation).
    fn forces<M: Mechanism + ?Sized>(
        mech: &M,
        stats: &mut Stats,
        t: f64,
        q: &[f64],
        qd: &[f64],
        u: &mut [f64],
        out: &mut [f64],
    ) {
        stats.f_evals += 1;
        mech.bias_forces(q, qd, out);
        mech.applied_forces(t, q, qd, u);
        for (o, ui) in out.iter_mut().zip(u.iter()) {
            *o -= ui;
        }
    }

    /// `q̈₀` and λ*₀ at `(t, y)`: the augmented Lagrangian on the acceleration level,
    /// `(M + α' JᵀJ) q̈ = −g − Jᵀ(λ* + α'ρ)`, `λ* ← λ* + α'(J q̈ + ρ)`, with `α' = (h²/4)α`
    /// (Bayo–Ledesma's iteration for `q̈`, which needs no full-rank `J`), until
    /// `‖J q̈ + ρ‖∞` stops decreasing or reaches round-off.
    fn start<M: Mechanism + ?Sized>(&mut self, mech: &M, t: f64) -> Result<(), ProjectionError> {
        let n = self.n;
        let (q, qd) = self.y.split_at(n);
        let a = 0.25 * self.cfg.h * self.cfg.h * self.cfg.alpha;
        mech.mass_matrix(q, self.m.as_mut());
        Self::forces(mech, &mut self.stats, t, q, qd, &mut self.u, &mut self.g);
        mech.constraint_jacobian(t, q, self.j.as_mut());
        mech.constraint_accel_bias(t, q, qd, &mut self.c);
        self.lam.fill(0.0);
        penalized(&mut self.tan, &self.m, &self.j, a);
        self.lu
            .factor(self.tan.as_ref())
            .map_err(|_| ProjectionError::SingularMatrix {
                what: "M + (h²/4)α JᵀJ",
                pivot: 0.0,
            })?;
        let scale = self.g.iter().fold(1.0f64, |s, v| s.max(v.abs()));
        let mut last = f64::INFINITY;
        for _ in 0..100 {
            for i in 0..n {
                let mut s = -self.g[i];
                for k in 0..self.l {
                    s -= self.j[(k, i)] * (self.lam[k] + a * self.c[k]);
                }
                self.qdd[i] = s;
            }
            self.lu.solve_in_place(&mut self.qdd);
            let mut viol = 0.0f64;
            for k in 0..self.l {
                let mut e = self.c[k];
                for i in 0..n {
                    e += self.j[(k, i)] * self.qdd[i];
                }
                self.lam[k] += a * e;
                viol = viol.max(e.abs());
            }
            if viol <= 1e-14 * scale || viol >= 0.5 * last {
                break;
            }
            last = viol;
        }
        finite(&self.qdd, t)?;
        self.qdd_prev.copy_from_slice(&self.qdd);
        Ok(())
    }

    /// One step of size `h` from `(t, y, q̈, λ*)` (module documentation).
    fn advance<M: Mechanism + ?Sized>(&mut self, mech: &M, h: f64) -> Result<(), OdeError> {
        let (n, l) = (self.n, self.l);
        let t1 = self.t + h;
        let (c1, c2, h24) = (2.0 / h, 4.0 / (h * h), 0.25 * h * h);
        let alpha = self.cfg.alpha;
        {
            let (qn, vn) = self.y.split_at(n);
            for i in 0..n {
                // Cuadrado (8)
                self.qhd[i] = -(c1 * qn[i] + vn[i]);
                self.qhdd[i] = -(c2 * qn[i] + 2.0 * c1 * vn[i] + self.qdd[i]);
                self.q[i] = qn[i] + h * vn[i] + 0.5 * h * h * self.qdd[i];
            }
        }
        let mut converged = false;
        let mut last_dq = f64::NAN;
        for k in 0..self.cfg.max_newton_iterations {
            for i in 0..n {
                self.qd[i] = c1 * self.q[i] + self.qhd[i];
                self.w[i] = c2 * self.q[i] + self.qhdd[i];
            }
            mech.mass_matrix(&self.q, self.m.as_mut());
            Self::forces(
                mech,
                &mut self.stats,
                t1,
                &self.q,
                &self.qd,
                &mut self.u,
                &mut self.g,
            );
            mech.constraints(t1, &self.q, &mut self.phi);
            mech.constraint_jacobian(t1, &self.q, self.j.as_mut());
            if k > 0 {
                // Bayo–Ledesma (11): λ* updated with φ at the new iterate
                for (lk, pk) in self.lam.iter_mut().zip(&self.phi) {
                    *lk += alpha * pk;
                }
            }
            if k == 0 {
                self.stiffness_and_damping(mech, t1, h);
            }
            // f(q) = (h²/4)(M q̈ + g + Jᵀ(λ* + αφ))
            for i in 0..n {
                let mut s = self.g[i];
                for c in 0..n {
                    s += self.m[(i, c)] * self.w[c];
                }
                for r in 0..l {
                    s += self.j[(r, i)] * (self.lam[r] + alpha * self.phi[r]);
                }
                self.r[i] = -h24 * s;
            }
            self.tangent(h24 * alpha);
            self.stats.jacobian_evals += 1;
            self.lu
                .factor(self.tan.as_ref())
                .map_err(|_| OdeError::SingularIterationMatrix { t: t1 })?;
            self.stats.factorizations += 1;
            self.lu.solve_in_place(&mut self.r);
            self.stats.newton_iterations += 1;
            let mut dq = 0.0f64;
            let mut qmax = 0.0f64;
            for i in 0..n {
                self.q[i] += self.r[i];
                dq = dq.max(self.r[i].abs());
                qmax = qmax.max(self.q[i].abs());
            }
            let phimax = self.phi.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            last_dq = dq;
            let tol = self.atol + self.rtol * qmax;
            if !dq.is_finite() {
                break;
            }
            if dq <= tol && phimax <= tol {
                converged = true;
                break;
            }
        }
        if !converged {
            self.stats.newton_failures += 1;
            return Err(OdeError::NoConvergence {
                t: t1,
                iterations: self.cfg.max_newton_iterations,
                residual: last_dq,
            });
        }
        finite(&self.q, t1).map_err(|_| OdeError::NonFinite {
            what: Quantity::Solution,
            index: 0,
        })?;
        // the converged point: λ* with its φ, then the projections (13)–(14)
        for i in 0..n {
            self.qd[i] = c1 * self.q[i] + self.qhd[i];
            self.w[i] = c2 * self.q[i] + self.qhdd[i];
        }
        mech.mass_matrix(&self.q, self.m.as_mut());
        mech.constraints(t1, &self.q, &mut self.phi);
        mech.constraint_jacobian(t1, &self.q, self.j.as_mut());
        mech.constraint_rate_bias(t1, &self.q, &mut self.c);
        self.stats.f_evals += 1;
        for (lk, pk) in self.lam.iter_mut().zip(&self.phi) {
            *lk += alpha * pk;
        }
        self.tangent(h24 * alpha);
        self.lu
            .factor(self.tan.as_ref())
            .map_err(|_| OdeError::SingularIterationMatrix { t: t1 })?;
        self.stats.factorizations += 1;
        // Cuadrado (13): T q̇ = W q̇* − (h²/4) α Jᵀ b
        self.project(h24 * alpha, ProjectWhat::Velocity);
        self.lu.solve_in_place(&mut self.r);
        self.qd.copy_from_slice(&self.r);
        // Cuadrado (14): T q̈ = W q̈* − (h²/4) α Jᵀ ρ(q, q̇)
        mech.constraint_accel_bias(t1, &self.q, &self.qd, &mut self.c);
        self.project(h24 * alpha, ProjectWhat::Acceleration);
        self.lu.solve_in_place(&mut self.r);
        finite(&self.qd, t1)
            .and_then(|()| finite(&self.r, t1))
            .map_err(|_| OdeError::NonFinite {
                what: Quantity::Solution,
                index: 0,
            })?;
        self.y_prev.copy_from_slice(&self.y);
        self.qdd_prev.copy_from_slice(&self.qdd);
        self.y[..n].copy_from_slice(&self.q);
        self.y[n..].copy_from_slice(&self.qd);
        self.qdd.copy_from_slice(&self.r);
        Ok(())
    }

    /// `r = W v* − a Jᵀ c` with `W = M + ck`, `v*` the trapezoidal velocity (`self.qd`) or
    /// acceleration (`self.w`), `c` the rate or acceleration bias.
    fn project(&mut self, a: f64, what: ProjectWhat) {
        let (n, l) = (self.n, self.l);
        let v = match what {
            ProjectWhat::Velocity => &self.qd,
            ProjectWhat::Acceleration => &self.w,
        };
        for i in 0..n {
            let mut s = 0.0;
            for c in 0..n {
                s += (self.m[(i, c)] + self.ck[(i, c)]) * v[c];
            }
            for r in 0..l {
                s -= a * self.j[(r, i)] * self.c[r];
            }
            self.r[i] = s;
        }
    }

    /// `T = M + ck + a JᵀJ` into `self.tan`.
    fn tangent(&mut self, a: f64) {
        penalized(&mut self.tan, &self.m, &self.j, a);
        for c in 0..self.n {
            for i in 0..self.n {
                self.tan[(i, c)] += self.ck[(i, c)];
            }
        }
    }

    /// `ck = (h/2)C + (h²/4)K` at `(q, q̇) = (self.q, self.qd)` with `g = self.g` there, by
    /// forward differences of `g = h − u` (`2N` counted evaluations).
    fn stiffness_and_damping<M: Mechanism + ?Sized>(&mut self, mech: &M, t: f64, h: f64) {
        let n = self.n;
        let (wc, wk) = (0.5 * h, 0.25 * h * h);
        for c in 0..n {
            for (which, weight) in [(0, wk), (1, wc)] {
                let x = if which == 0 {
                    &mut self.q[c]
                } else {
                    &mut self.qd[c]
                };
                let x0 = *x;
                let d = f64::EPSILON.sqrt() * x0.abs().max(1.0);
                *x = x0 + d;
                let d = *x - x0;
                Self::forces(
                    mech,
                    &mut self.stats,
                    t,
                    &self.q,
                    &self.qd,
                    &mut self.u,
                    &mut self.g1,
                );
                if which == 0 {
                    self.q[c] = x0;
                } else {
                    self.qd[c] = x0;
                }
                for i in 0..n {
                    let v = weight * (self.g1[i] - self.g[i]) / d;
                    if which == 0 {
                        self.ck[(i, c)] = v;
                    } else {
                        self.ck[(i, c)] += v;
                    }
                }
            }
        }
    }
}

#[derive(Clone, Copy)]
enum ProjectWhat {
    Velocity,
    Acceleration,
}

/// `out = M + a JᵀJ`.
fn penalized(out: &mut Mat<f64>, m: &Mat<f64>, j: &Mat<f64>, a: f64) {
    let (n, l) = (m.nrows(), j.nrows());
    for c in 0..n {
        for i in 0..n {
            let mut s = 0.0;
            for r in 0..l {
                s += j[(r, i)] * j[(r, c)];
            }
            out[(i, c)] = m[(i, c)] + a * s;
        }
    }
}

/// A non-finite entry is [`OdeError::NonFinite`] at `t`.
fn finite(v: &[f64], t: f64) -> Result<(), OdeError> {
    match v.iter().position(|x| !x.is_finite()) {
        None => Ok(()),
        Some(index) => {
            let _ = t;
            Err(OdeError::NonFinite {
                what: Quantity::Solution,
                index,
            })
        }
    }
}

impl Stepper for Trapezoidal {
    fn t(&self) -> f64 {
        self.t
    }
    fn y(&self) -> &[f64] {
        &self.y
    }
    fn t_prev(&self) -> f64 {
        self.t_prev
    }
    fn h(&self) -> f64 {
        self.h_last
    }
    fn order(&self) -> usize {
        2
    }
    /// Cubic Hermite of `q` on `(q, q̇)` and of `q̇` on `(q̇, q̈)` at both ends of the step.
    fn dense(&self, t_out: f64, out: &mut [f64]) -> Result<(), OdeError> {
        contour_ode::stepper::check_dense(self.y.len(), t_out, out)?;
        let h = self.h_last;
        if h == 0.0 {
            out.copy_from_slice(&self.y);
            return Ok(());
        }
        let n = self.n;
        let s = (t_out - self.t_prev) / h;
        let (h00, h10) = (
            (1.0 + 2.0 * s) * (1.0 - s).powi(2),
            s * (1.0 - s).powi(2) * h,
        );
        let (h01, h11) = (s * s * (3.0 - 2.0 * s), s * s * (s - 1.0) * h);
        for i in 0..n {
            let (q0, v0, q1, v1) = (self.y_prev[i], self.y_prev[n + i], self.y[i], self.y[n + i]);
            out[i] = h00 * q0 + h10 * v0 + h01 * q1 + h11 * v1;
            out[n + i] = h00 * v0 + h10 * self.qdd_prev[i] + h01 * v1 + h11 * self.qdd[i];
        }
        Ok(())
    }
    fn stats(&self) -> &Stats {
        &self.stats
    }
    fn stats_mut(&mut self) -> &mut Stats {
        &mut self.stats
    }
    fn set_t_stop(&mut self, t_stop: Option<f64>) {
        self.t_stop = t_stop;
    }
    /// Lowers the constant step (never raises it above `AugmentedLagrangianConfig::h`).
    fn set_max_step(&mut self, h_max: f64) {
        if h_max > 0.0 && h_max < self.cfg.h {
            self.cfg.h = h_max;
        }
    }
    fn step_bound(&self) -> Option<(&'static str, f64)> {
        Some(("h", self.cfg.h))
    }
}

impl<M: Mechanism + ?Sized> Advance<AlProblem<'_, M>> for Trapezoidal {
    /// One step of the constant size `h` (the last one shortened to end on the stop time).
    fn step(&mut self, f: &mut AlProblem<'_, M>) -> Result<StepInfo, OdeError> {
        let mut h = self.cfg.h;
        let mut t1 = self.t + h;
        if let Some(ts) = self.t_stop {
            if t1 >= ts - 4.0 * f64::EPSILON * ts.abs().max(1.0) {
                h = ts - self.t;
                t1 = ts;
            }
        }
        if !(h > 4.0 * f64::EPSILON * self.t.abs() && h > f64::MIN_POSITIVE) {
            return Err(OdeError::StepSizeTooSmall { t: self.t, h });
        }
        self.advance(f.mech, h)?;
        self.write_lambda(&mut f.lambda);
        self.t_prev = self.t;
        self.t = t1;
        self.h_last = h;
        self.stats.steps += 1;
        Ok(StepInfo {
            t_prev: self.t_prev,
            t: self.t,
            h,
            order: 2,
            rejected: 0,
        })
    }

    /// `(q, q̇) ← y`; `q̈` and λ* are kept.
    fn replace_y(&mut self, _f: &mut AlProblem<'_, M>, y: &[f64]) -> Result<(), OdeError> {
        if y.len() != self.y.len() {
            return Err(OdeError::DimensionMismatch {
                expected: self.y.len(),
                got: y.len(),
            });
        }
        self.y.copy_from_slice(y);
        Ok(())
    }

    /// A new start at `(t, y)`: `q̈` and λ* computed anew.
    fn restart(&mut self, f: &mut AlProblem<'_, M>, t: f64, y: &[f64]) -> Result<(), OdeError> {
        self.replace_y(f, y)?;
        self.t = t;
        self.t_prev = t;
        self.h_last = 0.0;
        self.y_prev.copy_from_slice(y);
        self.start(f.mech, t)
            .map_err(|_| OdeError::SingularIterationMatrix { t })?;
        self.write_lambda(&mut f.lambda);
        Ok(())
    }
}

/// [`crate::Method::AugmentedLagrangian`] for the one driver.
#[derive(Debug)]
pub(crate) struct AugmentedLagrangian<'m, M: ?Sized> {
    problem: AlProblem<'m, M>,
}

impl<'m, M: Mechanism + ?Sized> AugmentedLagrangian<'m, M> {
    /// The method and its stepper at `x0`. Refuses an integrator other than the default
    /// (the method integrates with its own trapezoidal rule at the constant step `cfg.h`).
    pub(crate) fn new(
        ctx: &RunContext<'_, 'm, M>,
        cfg: &AugmentedLagrangianConfig,
    ) -> Result<(Self, Trapezoidal), ProjectionError> {
        cfg.validate()?;
        if *ctx.integrator != Integrator::abm() {
            return Err(ProjectionError::UnsupportedIntegrator {
                method: "augmented_lagrangian",
                integrator: ctx.integrator.name(),
            });
        }
        crate::method::refuse_unused(
            "augmented_lagrangian",
            &ctx.dynamics,
            &[
                ("method", "its Newton iteration on the index-3 equations"),
                (
                    "baumgarte",
                    "the penalty alpha of AugmentedLagrangianConfig",
                ),
                ("pivot_rtol", "its LU of the tangent"),
                ("rank_rtol", "the penalty alpha (no rank decision)"),
                ("rank_deficiency", "the penalty alpha (no rank decision)"),
            ],
        )?;
        let mut problem = AlProblem::new(ctx.mech);
        let ec = ctx.error_control;
        let stepper = Trapezoidal::new(&mut problem, ctx.t0, &ctx.x0, *cfg, ec.rtol, ec.atol)?;
        Ok((Self { problem }, stepper))
    }
}

impl<'m, M: Mechanism + ?Sized> ConstraintMethod<M> for AugmentedLagrangian<'m, M> {
    type Problem = AlProblem<'m, M>;

    fn name(&self) -> &'static str {
        "augmented_lagrangian"
    }

    fn problem(&mut self) -> &mut Self::Problem {
        &mut self.problem
    }

    fn integrator_error(&mut self, e: OdeError) -> ProjectionError {
        match e {
            OdeError::NoConvergence {
                t,
                iterations,
                residual,
            } => ProjectionError::NoConvergence {
                t,
                iterations,
                residual,
            },
            e => e.into(),
        }
    }

    /// λ of the step's end (outputs inside a step get the λ of its end).
    fn multipliers(&mut self, _t: f64, _x: &[f64]) -> Result<Multipliers<'_>, ProjectionError> {
        Ok(Multipliers::Given(&self.problem.lambda))
    }

    fn add_stats(&self, s: &mut SimulationStats) {
        s.f_evals = s.integrator_f_calls;
    }
}
