//! Two-stage, third-order singly-implicit Runge–Kutta method with Huang's coefficients
//! (5.2.18), constant step, for `F(t, y, y') = 0` (ODEs through [`crate::OdeAsDae`],
//! semi-explicit DAEs as in Huang (5.2.16)–(5.2.17)).
//!
//! Huang's notation → Butcher's: nodes `aᵢ → cᵢ`, matrix `bᵢⱼ → aᵢⱼ`, weights `cᵢ → bᵢ`:
//!
//! ```text
//! μ = (3 + √3)/6
//! c₁ = μ(2 − √2),              c₂ = μ(2 + √2)
//! a₁₁ = μ(1 − √2/4),  a₁₂ = μ(1 − 3√2/4)
//! a₂₁ = μ(1 + 3√2/4), a₂₂ = μ(1 + √2/4)
//! b₁ = [4μ(1 + √2) − √2]/(8μ), b₂ = [4μ(1 − √2) + √2]/(8μ)
//! ```
//!
//! `A` has the double eigenvalue `μ` (`tr A = 2μ`, `det A = μ²`), `A = μI + N` with
//! `N² = 0` — the "singly implicit" property: the nodes `cᵢ = μ·ξᵢ` are μ times the zeros
//! `ξ = 2 ∓ √2` of the Laguerre polynomial `L₂`. The order conditions up to order 3 hold for
//! this `μ` (test `order_conditions`); `R(∞) = 1 − bᵀA⁻¹𝟙 = 1 − √3`.
//!
//! **Stage equations** (derived from the coefficients; the extraction of (5.2.17) is
//! garbled): with stage derivatives `Kᵢ` and stage values `Yᵢ = yₙ + h Σⱼ aᵢⱼ Kⱼ`,
//!
//! `F(tₙ + cᵢh, Yᵢ, Kᵢ) = 0`, `i = 1, 2`, `yₙ₊₁ = yₙ + h(b₁K₁ + b₂K₂)` — Huang (5.2.16).
//!
//! For Huang's system `x' = y`, `y' = R(x, y, λ, T, t)`, `0 = φ̄(x)` this reads
//! `ρᵢₓ = xₙ + h(bᵢ₁k₁ₓ + bᵢ₂k₂ₓ)`, `ρᵢᵧ = yₙ + h(bᵢ₁k₁ᵧ + bᵢ₂k₂ᵧ)`,
//! `ρᵢλ = λₙ + h(bᵢ₁k₁λ + bᵢ₂k₂λ)`, `kᵢₓ = ρᵢᵧ`, `kᵢᵧ = R(ρᵢₓ, ρᵢᵧ, ρᵢλ, T, tₙ + aᵢh)`,
//! `0 = φ̄(ρᵢₓ)`. **Misprint** in (5.2.17) as printed: its first line
//! `k_{is} = x_n + h b_{i1} k_{1s} + h b_{i2} k_{2s}` defines the *stage slope* of `x` as a
//! stage *value*; it must be `kᵢₓ = ρᵢᵧ = yₙ + h(bᵢ₁k₁ᵧ + bᵢ₂k₂ᵧ)` (the stage value
//! `ρᵢₓ = xₙ + …` is what enters `R` and `φ̄`, printed there with `z` for `x`).
//!
//! **Solution of the stage equations** in the stage values `Y`: `K = (1/h)(A⁻¹ ⊗ I)(Y − 𝟙 yₙ)`,
//! simplified Newton with one `n × n` matrix `G = ∂F/∂y + (1/(hμ)) ∂F/∂y'` (as the BDF's),
//! exploiting `A = μI + N`, `N = u vᵀ`, `vᵀu = 0`: the Newton system
//! `G ΔYᵢ − (1/(hμ²)) Σⱼ Nᵢⱼ (∂F/∂y') ΔYⱼ = −rᵢ` is solved exactly by
//! `S = Σⱼ vⱼΔYⱼ = −G⁻¹(Σ vᵢrᵢ)` and `ΔYᵢ = G⁻¹(−rᵢ + uᵢ/(hμ²)·(∂F/∂y')S)`, the product
//! `(∂F/∂y')S` by one directional difference of `F` — three solves with one LU of size `n`
//! and three residuals per iteration instead of an LU of size `2n` (Huang counts `2(2n+1)`
//! equations per iteration).
//!
//! Dense output: the quadratic through `(tₙ, yₙ)`, `(tₙ + c₁h, Y₁)`, `(tₙ₊₁, yₙ₊₁)`.

use crate::error::{OdeError, Quantity};
use crate::implicit::{check_dim_once, eval_res, newton_scales, IterationMatrix, Source};
use crate::norm::Tolerances;
use crate::problem::check_finite;
use crate::stats::Stats;
use crate::stepper::{
    check_constant_step_newton, check_initial, clamp_step, initial_derivative, step_fraction,
    stepper_bookkeeping, stepper_state, StepInfo, Stepper,
};

/// Coefficients of a two-stage singly-implicit Runge–Kutta method (Butcher notation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SirkTableau {
    /// The single eigenvalue `μ` of `A`.
    pub mu: f64,
    /// Nodes `cᵢ` (Huang's `aᵢ`).
    pub c: [f64; 2],
    /// Matrix `aᵢⱼ` (Huang's `bᵢⱼ`).
    pub a: [[f64; 2]; 2],
    /// Weights `bᵢ` (Huang's `cᵢ`).
    pub b: [f64; 2],
}

impl SirkTableau {
    /// Huang (5.2.18), after Burrage's SIRK methods (Huang's reference \[10\]).
    #[must_use]
    pub fn huang() -> Self {
        let s2 = 2f64.sqrt();
        let mu = (3.0 + 3f64.sqrt()) / 6.0;
        Self {
            mu,
            c: [mu * (2.0 - s2), mu * (2.0 + s2)],
            a: [
                [mu * (1.0 - s2 / 4.0), mu * (1.0 - 3.0 * s2 / 4.0)],
                [mu * (1.0 + 3.0 * s2 / 4.0), mu * (1.0 + s2 / 4.0)],
            ],
            b: [
                (4.0 * mu * (1.0 + s2) - s2) / (8.0 * mu),
                (4.0 * mu * (1.0 - s2) + s2) / (8.0 * mu),
            ],
        }
    }

    /// `A⁻¹`.
    pub fn a_inverse(&self) -> [[f64; 2]; 2] {
        let a = &self.a;
        let det = a[0][0] * a[1][1] - a[0][1] * a[1][0];
        [
            [a[1][1] / det, -a[0][1] / det],
            [-a[1][0] / det, a[0][0] / det],
        ]
    }
}

/// Configuration of [`SinglyImplicitRk`].
///
/// Defaults: `h = 0.01`, `initial_derivative = None` (the first predictor is `Yᵢ = y₀`),
/// `max_newton_iterations = 10`, `newton_tol = 0.33`.
#[derive(Debug, Clone, PartialEq)]
pub struct SirkConfig {
    /// Constant step size `h`.
    pub h: f64,
    /// `y'₀` for the first predictor `Yᵢ = y₀ + cᵢh y'₀` (optional).
    pub initial_derivative: Option<Vec<f64>>,
    /// Iterations per attempt.
    pub max_newton_iterations: usize,
    /// Convergence threshold of `ρ/(1−ρ)·max ‖ΔYᵢ‖`.
    pub newton_tol: f64,
}

impl Default for SirkConfig {
    fn default() -> Self {
        Self {
            h: 0.01,
            initial_derivative: None,
            max_newton_iterations: 10,
            newton_tol: 0.33,
        }
    }
}

/// Constant-step two-stage singly-implicit RK stepper (see the module documentation).
#[derive(Debug, Clone)]
pub struct SinglyImplicitRk {
    tab: SirkTableau,
    w: [[f64; 2]; 2],
    /// `A − μI = u vᵀ` (rank one, `vᵀu = 0`).
    uv: ([f64; 2], [f64; 2]),
    cfg: SirkConfig,
    tol: Tolerances,
    n: usize,
    t: f64,
    t_prev: f64,
    h_last: f64,
    y: Vec<f64>,
    yp: Vec<f64>,
    y_prev: Vec<f64>,
    stage: [Vec<f64>; 2],
    kst: [Vec<f64>; 2],
    res: [Vec<f64>; 2],
    y1_dense: Vec<f64>,
    tmp_y: Vec<f64>,
    tmp_yp: Vec<f64>,
    svec: Vec<f64>,
    dvec: Vec<f64>,
    sc: Vec<f64>,
    mat: IterationMatrix,
    h_mat: f64,
    t_stop: Option<f64>,
    dim_checked: bool,
    stats: Stats,
}

impl SinglyImplicitRk {
    /// Creates a stepper at `(t0, y0)`; allocates every workspace.
    ///
    /// Errors: non-finite input, invalid tolerances, `h ≤ 0`, bad iteration parameters,
    /// wrong length of `y'₀`.
    pub fn new(t0: f64, y0: &[f64], tol: Tolerances, cfg: SirkConfig) -> Result<Self, OdeError> {
        let n = y0.len();
        check_initial(t0, y0, &tol)?;
        check_constant_step_newton(
            cfg.h,
            cfg.newton_tol,
            "max_newton_iterations",
            cfg.max_newton_iterations,
        )?;
        let yp = initial_derivative(cfg.initial_derivative.as_deref(), n)?;
        let tab = SirkTableau::huang();
        let z = || vec![0.0; n];
        let nn = [
            [tab.a[0][0] - tab.mu, tab.a[0][1]],
            [tab.a[1][0], tab.a[1][1] - tab.mu],
        ];
        let uv = ([1.0, nn[1][0] / nn[0][0]], [nn[0][0], nn[0][1]]);
        let mut s = Self {
            uv,
            w: tab.a_inverse(),
            tab,
            cfg,
            tol,
            n,
            t: t0,
            t_prev: t0,
            h_last: 0.0,
            y: y0.to_vec(),
            yp,
            y_prev: y0.to_vec(),
            stage: [z(), z()],
            kst: [z(), z()],
            res: [z(), z()],
            y1_dense: y0.to_vec(),
            tmp_y: z(),
            tmp_yp: z(),
            svec: z(),
            dvec: z(),
            sc: z(),
            mat: IterationMatrix::new(n),
            h_mat: 0.0,
            t_stop: None,
            dim_checked: false,
            stats: Stats::default(),
        };
        newton_scales(&s.tol, &s.y, &mut s.sc);
        Ok(s)
    }

    /// The coefficients.
    pub fn tableau(&self) -> &SirkTableau {
        &self.tab
    }

    /// Derivative estimate `y'ₙ` (derivative of the step's quadratic at `tₙ`).
    pub fn yp(&self) -> &[f64] {
        &self.yp
    }

    /// Sets the constant step size for the following steps.
    pub fn set_step(&mut self, h: f64) -> Result<(), OdeError> {
        if !(h > 0.0 && h.is_finite()) {
            return Err(OdeError::InvalidParameter {
                name: "h",
                value: h,
            });
        }
        self.cfg.h = h;
        Ok(())
    }

    /// `Kᵢ = (1/h) Σⱼ (A⁻¹)ᵢⱼ (Yⱼ − yₙ)`.
    fn stage_derivatives(&mut self, h: f64) {
        for i in 0..2 {
            let (w0, w1) = (self.w[i][0] / h, self.w[i][1] / h);
            for l in 0..self.n {
                self.kst[i][l] =
                    w0 * (self.stage[0][l] - self.y[l]) + w1 * (self.stage[1][l] - self.y[l]);
            }
        }
    }

    fn predict(&mut self, h: f64) {
        for i in 0..2 {
            let ch = self.tab.c[i] * h;
            for l in 0..self.n {
                self.stage[i][l] = self.y[l] + ch * self.yp[l];
            }
        }
    }

    /// Solves the stage equations for step `h`; returns `Ok(true)` when converged.
    fn solve_stages<S: Source + ?Sized>(&mut self, f: &mut S, h: f64) -> Result<bool, OdeError> {
        let n = self.n;
        let mut fresh = false;
        if self.h_mat != h || !self.mat.ok {
            self.new_matrix(f, h)?;
            fresh = true;
        }
        loop {
            self.predict(h);
            let pnorm = self.tol.norm_scaled_in(&self.stage[1], &self.sc, n);
            let mut oldnrm = 0.0;
            let mut rate_fac = 100.0;
            let mut converged = false;
            for m in 0..self.cfg.max_newton_iterations {
                self.stage_derivatives(h);
                for i in 0..2 {
                    eval_res(
                        f,
                        &mut self.stats,
                        self.t + self.tab.c[i] * h,
                        &self.stage[i],
                        &self.kst[i],
                        &mut self.res[i],
                    )?;
                }
                // Simplified Newton with the exact stage coupling (module documentation):
                // S = −G⁻¹(v₁r₁ + v₂r₂), then ΔYᵢ = −G⁻¹(rᵢ − uᵢ/(hμ²)·(∂F/∂y')S), the product
                // (∂F/∂y')S by a directional difference at stage 1 (one residual).
                let (u, v) = self.uv;
                for l in 0..n {
                    self.svec[l] = -(v[0] * self.res[0][l] + v[1] * self.res[1][l]);
                }
                self.mat.solve_in_place(&mut self.svec);
                let smax = self.svec.iter().fold(0.0f64, |m, x| m.max(x.abs()));
                if smax > 0.0 && smax.is_finite() {
                    let kmax = self.kst[0].iter().fold(1.0f64, |m, x| m.max(x.abs()));
                    let eps = f64::EPSILON.sqrt() * kmax / smax;
                    for l in 0..n {
                        self.dvec[l] = self.kst[0][l] + eps * self.svec[l];
                    }
                    eval_res(
                        f,
                        &mut self.stats,
                        self.t + self.tab.c[0] * h,
                        &self.stage[0],
                        &self.dvec,
                        &mut self.svec,
                    )?;
                    for l in 0..n {
                        self.dvec[l] = (self.svec[l] - self.res[0][l]) / eps;
                    }
                } else {
                    self.dvec.fill(0.0);
                }
                let c = 1.0 / (h * self.tab.mu * self.tab.mu);
                let mut delnrm: f64 = 0.0;
                for i in 0..2 {
                    for l in 0..n {
                        self.res[i][l] -= u[i] * c * self.dvec[l];
                    }
                    self.mat.solve_in_place(&mut self.res[i]);
                    for l in 0..n {
                        self.stage[i][l] -= self.res[i][l];
                    }
                    delnrm = delnrm.max(self.tol.norm_scaled_in(&self.res[i], &self.sc, n));
                }
                self.stats.newton_iterations += 1;
                if !delnrm.is_finite() {
                    break;
                }
                if delnrm <= 100.0 * f64::EPSILON * pnorm {
                    converged = true;
                    break;
                }
                // The rate is measured from the second iteration on: for higher-index DAEs
                // the first two updates correct different blocks (no monotone decrease).
                if m <= 1 {
                    oldnrm = delnrm;
                    if m == 0 {
                        continue;
                    }
                } else {
                    let rate = (delnrm / oldnrm).powf(1.0 / (m - 1) as f64);
                    if rate > 0.9 {
                        break;
                    }
                    rate_fac = rate / (1.0 - rate);
                }
                if rate_fac * delnrm <= self.cfg.newton_tol {
                    converged = true;
                    break;
                }
            }
            if converged {
                self.stage_derivatives(h);
                return Ok(true);
            }
            self.stats.newton_failures += 1;
            if fresh {
                return Ok(false);
            }
            self.new_matrix(f, h)?;
            fresh = true;
        }
    }

    /// `G = ∂F/∂y + (1/(hμ))∂F/∂y'` at `(tₙ, yₙ, y'ₙ)`, factored.
    fn new_matrix<S: Source + ?Sized>(&mut self, f: &mut S, h: f64) -> Result<(), OdeError> {
        self.tmp_y.copy_from_slice(&self.y);
        self.tmp_yp.copy_from_slice(&self.yp);
        eval_res(
            f,
            &mut self.stats,
            self.t,
            &self.tmp_y,
            &self.tmp_yp,
            &mut self.res[0],
        )?;
        let cj = 1.0 / (h * self.tab.mu);
        let floor = 1e-3 * self.y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        self.mat.compute(
            f,
            &mut self.stats,
            self.t,
            &mut self.tmp_y,
            &mut self.tmp_yp,
            cj,
            h,
            &self.res[0],
            &self.sc,
            floor,
        )?;
        self.h_mat = h;
        if !self.mat.factor(&mut self.stats) {
            return Err(OdeError::SingularIterationMatrix { t: self.t });
        }
        Ok(())
    }

    pub(crate) fn step_impl<S: Source + ?Sized>(
        &mut self,
        f: &mut S,
    ) -> Result<StepInfo, OdeError> {
        check_dim_once(f, self.n, &mut self.dim_checked)?;
        let (h, hits_stop) = clamp_step(self.t, self.cfg.h, f64::INFINITY, self.t_stop, 4.0)?;
        if !self.solve_stages(f, h)? {
            return Err(OdeError::NoConvergence {
                t: self.t,
                iterations: self.cfg.max_newton_iterations,
                residual: f64::NAN,
            });
        }
        // Huang (5.2.16): yₙ₊₁ = yₙ + h(b₁K₁ + b₂K₂).
        let n = self.n;
        self.y_prev.copy_from_slice(&self.y);
        let (b0, b1) = (self.tab.b[0] * h, self.tab.b[1] * h);
        for l in 0..n {
            self.y[l] += b0 * self.kst[0][l] + b1 * self.kst[1][l];
        }
        check_finite(&self.y, Quantity::Solution)?;
        self.y1_dense.copy_from_slice(&self.stage[0]);
        self.t_prev = self.t;
        self.t = if hits_stop {
            self.t_stop.unwrap_or(self.t + h)
        } else {
            self.t + h
        };
        self.h_last = h;
        // y'ₙ₊₁ from the quadratic through (0, yₙ), (c₁, Y₁), (c₂, Y₂) in θ = (t − tₙ)/h,
        // evaluated at θ = 1 — the next predictor.
        let (c1, c2) = (self.tab.c[0], self.tab.c[1]);
        for l in 0..n {
            let d1 = (self.stage[0][l] - self.y_prev[l]) / c1;
            let d2 = (self.stage[1][l] - self.y_prev[l]) / c2;
            // p(θ) = y + θ·d1 + θ(θ − c1)·q, q = (d2 − d1)/(c2 − c1)
            let q = (d2 - d1) / (c2 - c1);
            self.yp[l] = (d1 + (2.0 - c1) * q) / h;
        }
        newton_scales(&self.tol, &self.y, &mut self.sc);
        self.stats.steps += 1;
        Ok(StepInfo {
            t_prev: self.t_prev,
            t: self.t,
            h,
            order: 3,
            rejected: 0,
        })
    }

    fn replace_impl(&mut self, y: &[f64]) -> Result<(), OdeError> {
        crate::stepper::check_replacement(self.n, y)?;
        self.y.copy_from_slice(y);
        newton_scales(&self.tol, &self.y, &mut self.sc);
        Ok(())
    }

    /// Restarts at `(t, y)` with the known derivative `y'` (the first predictor
    /// `Yᵢ = y + cᵢh y'`), as [`crate::SirkOde`] does for an explicit ODE.
    ///
    /// Errors: lengths other than the state's, non-finite input.
    pub fn restart_with_derivative(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
    ) -> Result<(), OdeError> {
        if yp.len() != self.n {
            return Err(OdeError::DimensionMismatch {
                expected: self.n,
                got: yp.len(),
            });
        }
        check_finite(yp, Quantity::InitialDerivative)?;
        self.restart_impl(t, y)?;
        self.yp.copy_from_slice(yp);
        Ok(())
    }

    pub(crate) fn restart_impl(&mut self, t: f64, y: &[f64]) -> Result<(), OdeError> {
        let clock = (&mut self.t, &mut self.t_prev, &mut self.h_last);
        crate::stepper::restart_state(clock, &mut self.y, t, y)?;
        newton_scales(&self.tol, &self.y, &mut self.sc);
        self.yp.fill(0.0);
        self.mat.ok = false;
        Ok(())
    }
}

impl Stepper for SinglyImplicitRk {
    stepper_state!(t, y, t_prev, h_last);
    fn order(&self) -> usize {
        3
    }
    /// Quadratic through `(tₙ₋₁, yₙ₋₁)`, `(tₙ₋₁ + c₁h, Y₁)`, `(tₙ, yₙ)`.
    fn dense(&self, t_out: f64, out: &mut [f64]) -> Result<(), OdeError> {
        crate::stepper::check_dense(self.dim(), t_out, out)?;
        let Some(th) = step_fraction(self.t_prev, self.h_last, &self.y, t_out, out) else {
            return Ok(());
        };
        let c1 = self.tab.c[0];
        // Lagrange basis on the nodes 0, c₁, 1.
        let l0 = (th - c1) * (th - 1.0) / c1;
        let l1 = th * (th - 1.0) / (c1 * (c1 - 1.0));
        let l2 = th * (th - c1) / (1.0 - c1);
        for (l, o) in out.iter_mut().enumerate() {
            *o = l0 * self.y_prev[l] + l1 * self.y1_dense[l] + l2 * self.y[l];
        }
        crate::problem::check_finite(out, crate::error::Quantity::DenseOutput)
    }
    stepper_bookkeeping!(constant_h);
}

crate::implicit::implicit_advance!(SinglyImplicitRk);

#[cfg(test)]
mod tests {
    use super::*;

    /// Huang's (5.2.18) satisfies the order conditions of order 3 (and not the order-4
    /// quadrature condition); `A` has the double eigenvalue μ; `R(∞) = 1 − √3`.
    #[test]
    fn order_conditions() {
        let t = SirkTableau::huang();
        let eps = 16.0 * f64::EPSILON;
        for i in 0..2 {
            assert!((t.a[i][0] + t.a[i][1] - t.c[i]).abs() < eps, "row sum {i}");
        }
        let (b, c, a) = (t.b, t.c, t.a);
        let q = |p: i32| b[0] * c[0].powi(p) + b[1] * c[1].powi(p);
        assert!((q(0) - 1.0).abs() < eps);
        assert!((q(1) - 0.5).abs() < eps);
        assert!((q(2) - 1.0 / 3.0).abs() < eps);
        let bac: f64 = (0..2)
            .map(|i| b[i] * (0..2).map(|j| a[i][j] * c[j]).sum::<f64>())
            .sum();
        assert!((bac - 1.0 / 6.0).abs() < eps, "Σ bᵢaᵢⱼcⱼ = {bac}");
        assert!(
            (q(3) - 0.25).abs() > 1e-3,
            "order 4 would need Σ bᵢcᵢ³ = 1/4"
        );
        let tr = a[0][0] + a[1][1];
        let det = a[0][0] * a[1][1] - a[0][1] * a[1][0];
        assert!((tr - 2.0 * t.mu).abs() < eps && (det - t.mu * t.mu).abs() < eps);
        let w = t.a_inverse();
        let r_inf = 1.0 - (0..2).map(|i| b[i] * (w[i][0] + w[i][1])).sum::<f64>();
        assert!(
            (r_inf - (1.0 - 3f64.sqrt())).abs() < 1e-14,
            "R(∞) = {r_inf}"
        );
    }
}
