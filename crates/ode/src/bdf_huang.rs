//! Huang's constant-step two-step BDF for `F(t, y, y') = 0`, (5.2.11)–(5.2.15).
//!
//! * Formula, Huang (5.2.11) with (5.2.14): `y'ₙ₊₁ = −(1/h) Σᵢ₌₁³ αᵢ yₙ₊₂₋ᵢ`,
//!   `α = (−3/2, 2, −1/2)`, i.e. `y'ₙ₊₁ = (3yₙ₊₁ − 4yₙ + yₙ₋₁)/(2h)`, and the nonlinear
//!   system (5.2.12) `F(tₙ₊₁, yₙ₊₁, y'ₙ₊₁) = 0`.
//! * Predictor (5.2.13) with (5.2.14): `ŷₙ₊₁ = Σ βᵢ yₙ₊₁₋ᵢ`, `β = (3, −3, 1)` (quadratic
//!   extrapolation); on the second step (two points) Huang's `β = (2, −1)` of (5.2.15); on
//!   the first step `ŷ₁ = y₀ + h y'₀` (`y'₀ = 0` unless given).
//! * Start (selectable, [`HuangStart`]): backward Euler (5.2.11) with (5.2.15),
//!   `α = (−1, 1)`: `y'₁ = (y₁ − y₀)/h`; or one step of the singly-implicit RK
//!   (5.2.16)–(5.2.18) ([`crate::SinglyImplicitRk`]).
//! * Corrector: Huang's "secant method" as Broyden's ("good") quasi-Newton method in
//!   Kelley's limited-memory form (*Iterative Methods for Linear and Nonlinear Equations*,
//!   SIAM 1995, §7.3, `brsol` with full steps): `B₀ = G = ∂F/∂y + (α₀/h)∂F/∂y'` (LU reused
//!   over steps — the step is constant), `s₀ = −B₀⁻¹F(y⁽⁰⁾)`, then
//!   `z = −B₀⁻¹F(y⁽ᵐ⁾)`, `z += sⱼ₊₁ (sⱼᵀz)/‖sⱼ‖²` for `j < m−1`,
//!   `sₘ = z / (1 − sₘ₋₁ᵀz/‖sₘ₋₁‖²)`, `y⁽ᵐ⁺¹⁾ = y⁽ᵐ⁾ + sₘ`. Converged when
//!   `ρ/(1−ρ)·‖sₘ‖ ≤ newton_tol` (weighted norm, `ρ` the observed rate measured from the
//!   second iteration on, since for index 3 the first two updates fix different blocks), or
//!   at once when `‖sₘ‖ ≤ 100u‖ŷ‖` (the predictor already solves the equation to round-off:
//!   one evaluation); on failure the matrix is refreshed once, then
//!   [`OdeError::NoConvergence`], both failed attempts counted in [`Stats::newton_failures`].
//!   The starter's work (the singly-implicit RK's evaluations, matrices, iterations and
//!   failures) is counted in this stepper's [`Stats`], a failed start's included.
//!   On index-3 systems (Huang's manipulators) the matrix of the previous step seldom
//!   suffices — `G⁻¹` grows like `h⁻²` in the multiplier rows while `G` drifts by `O(h)` —
//!   so most steps form a fresh matrix (test `huang_bdf2_on_index3_pendulum`: ≈ 0.95
//!   Jacobians per step at `h = 10⁻³`); the Broyden updates then converge in ≈ 5 iterations.
//! * No error control (constant step, as Huang recommends for index-3 systems).
//! * Dense output: the quadratic through `yₙ₋₁, yₙ, yₙ₊₁` (linear after the first step).
//!
//! `replace_y` shifts the stored past values by the same `ỹ − yₙ` (the predictor
//! polynomial is translated), as in [`crate::Bdf`].

use crate::error::{OdeError, Quantity};
use crate::implicit::{check_dim_once, eval_res, newton_scales, IterationMatrix, Source};
use crate::norm::Tolerances;
use crate::problem::check_finite;
use crate::sirk::{SinglyImplicitRk, SirkConfig};
use crate::stats::Stats;
use crate::stepper::{
    check_constant_step_newton, check_initial, clamp_step, initial_derivative, stepper_bookkeeping,
    StepInfo, Stepper,
};

/// Starting procedure of [`HuangBdf2`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HuangStart {
    /// Backward Euler, Huang (5.2.15).
    #[default]
    BackwardEuler,
    /// Two-stage third-order singly-implicit RK, Huang (5.2.16)–(5.2.18).
    SinglyImplicitRk,
}

/// Configuration of [`HuangBdf2`].
///
/// Defaults: `h = 0.01`, `start = BackwardEuler`, `initial_derivative = None`,
/// `max_iterations = 10`, `newton_tol = 0.33`.
#[derive(Debug, Clone, PartialEq)]
pub struct HuangBdf2Config {
    /// Constant step size `h`.
    pub h: f64,
    /// Starting procedure for the first step.
    pub start: HuangStart,
    /// `y'₀` for the first predictor (optional).
    pub initial_derivative: Option<Vec<f64>>,
    /// Secant iterations per attempt.
    pub max_iterations: usize,
    /// Convergence threshold of `ρ/(1−ρ)·‖s‖`.
    pub newton_tol: f64,
}

impl Default for HuangBdf2Config {
    fn default() -> Self {
        Self {
            h: 0.01,
            start: HuangStart::BackwardEuler,
            initial_derivative: None,
            max_iterations: 10,
            newton_tol: 0.33,
        }
    }
}

/// Huang's constant-step BDF2 stepper (see the module documentation).
#[derive(Debug, Clone)]
pub struct HuangBdf2 {
    cfg: HuangBdf2Config,
    tol: Tolerances,
    n: usize,
    t: f64,
    t_prev: f64,
    h_last: f64,
    /// `yₙ`, `yₙ₋₁`, `yₙ₋₂`.
    hist: [Vec<f64>; 3],
    /// Number of stored points (1 … 3).
    npts: usize,
    yp0: Vec<f64>,
    yc: Vec<f64>,
    ypc: Vec<f64>,
    r: Vec<f64>,
    z: Vec<f64>,
    /// Broyden steps `s₀ … s_{max}`.
    steps_s: Vec<Vec<f64>>,
    sc: Vec<f64>,
    mat: IterationMatrix,
    /// `(h, α₀)` of the factored matrix.
    mat_key: (f64, f64),
    starter: Option<SinglyImplicitRk>,
    t_stop: Option<f64>,
    dim_checked: bool,
    stats: Stats,
}

impl HuangBdf2 {
    /// Creates a stepper at `(t0, y0)`; allocates every workspace (and the SIRK starter).
    ///
    /// Errors: non-finite input, invalid tolerances, `h ≤ 0`, bad iteration parameters.
    pub fn new(
        t0: f64,
        y0: &[f64],
        tol: Tolerances,
        cfg: HuangBdf2Config,
    ) -> Result<Self, OdeError> {
        let n = y0.len();
        check_initial(t0, y0, &tol)?;
        check_constant_step_newton(cfg.h, cfg.newton_tol, "max_iterations", cfg.max_iterations)?;
        let yp0 = initial_derivative(cfg.initial_derivative.as_deref(), n)?;
        let starter = match cfg.start {
            HuangStart::BackwardEuler => None,
            HuangStart::SinglyImplicitRk => Some(SinglyImplicitRk::new(
                t0,
                y0,
                tol.clone(),
                SirkConfig {
                    h: cfg.h,
                    initial_derivative: cfg.initial_derivative.clone(),
                    ..SirkConfig::default()
                },
            )?),
        };
        let z = || vec![0.0; n];
        let mut s = Self {
            tol,
            n,
            t: t0,
            t_prev: t0,
            h_last: 0.0,
            hist: [y0.to_vec(), z(), z()],
            npts: 1,
            yp0,
            yc: z(),
            ypc: z(),
            r: z(),
            z: z(),
            steps_s: (0..=cfg.max_iterations).map(|_| z()).collect(),
            sc: z(),
            mat: IterationMatrix::new(n),
            mat_key: (0.0, 0.0),
            starter,
            t_stop: None,
            dim_checked: false,
            stats: Stats::default(),
            cfg,
        };
        newton_scales(&s.tol, y0, &mut s.sc);
        Ok(s)
    }

    fn dot(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    /// `y' = (α₀ y + hist)/h` for the current formula: writes `ypc` from `yc`.
    fn derivative(&mut self, a0: f64, h: f64) {
        let n = self.n;
        if self.npts == 1 {
            // Backward Euler (5.2.15): y' = (y₁ − y₀)/h.
            for l in 0..n {
                self.ypc[l] = (self.yc[l] - self.hist[0][l]) / h;
            }
        } else {
            // (5.2.14): y' = (3/2 yₙ₊₁ − 2yₙ + 1/2 yₙ₋₁)/h.
            for l in 0..n {
                self.ypc[l] = (a0 * self.yc[l] - 2.0 * self.hist[0][l] + 0.5 * self.hist[1][l]) / h;
            }
        }
    }

    fn predict(&mut self, h: f64) {
        let n = self.n;
        for l in 0..n {
            let (y0, y1, y2) = (self.hist[0][l], self.hist[1][l], self.hist[2][l]);
            self.yc[l] = match self.npts {
                1 => y0 + h * self.yp0[l],
                2 => 2.0 * y0 - y1,            // (5.2.15) β = (2, −1)
                _ => 3.0 * y0 - 3.0 * y1 + y2, // (5.2.14) β = (3, −3, 1)
            };
        }
    }

    fn new_matrix<S: Source + ?Sized>(
        &mut self,
        f: &mut S,
        t: f64,
        h: f64,
        a0: f64,
    ) -> Result<(), OdeError> {
        self.predict(h);
        self.derivative(a0, h);
        eval_res(f, &mut self.stats, t, &self.yc, &self.ypc, &mut self.r)?;
        let floor = 1e-3 * self.hist[0].iter().fold(0.0f64, |m, v| m.max(v.abs()));
        self.mat.compute(
            f,
            &mut self.stats,
            t,
            &mut self.yc,
            &mut self.ypc,
            a0 / h,
            h,
            &self.r,
            &self.sc,
            floor,
        )?;
        self.mat_key = (h, a0);
        if !self.mat.factor(&mut self.stats) {
            return Err(OdeError::SingularIterationMatrix { t });
        }
        Ok(())
    }

    /// Broyden iteration from the predictor; `Ok(true)` when converged (result in `yc`).
    fn secant<S: Source + ?Sized>(
        &mut self,
        f: &mut S,
        t: f64,
        h: f64,
        a0: f64,
    ) -> Result<bool, OdeError> {
        let n = self.n;
        self.predict(h);
        let pnorm = self.tol.norm_scaled_in(&self.yc, &self.sc, n);
        let mut oldnrm = 0.0;
        let mut fac = 100.0;
        for m in 0..self.cfg.max_iterations {
            self.derivative(a0, h);
            eval_res(f, &mut self.stats, t, &self.yc, &self.ypc, &mut self.r)?;
            // z = −B₀⁻¹ F(y⁽ᵐ⁾)
            for l in 0..n {
                self.z[l] = -self.r[l];
            }
            self.mat.solve_in_place(&mut self.z);
            self.stats.newton_iterations += 1;
            if m > 0 {
                for j in 0..m - 1 {
                    let (sj, sj1) = (&self.steps_s[j], &self.steps_s[j + 1]);
                    let c = Self::dot(sj, &self.z) / Self::dot(sj, sj);
                    for (zl, sl) in self.z.iter_mut().zip(sj1) {
                        *zl += c * sl;
                    }
                }
                let sp = &self.steps_s[m - 1];
                let ss = Self::dot(sp, sp);
                let den = 1.0 - Self::dot(sp, &self.z) / ss;
                if !(den.is_finite() && den != 0.0) {
                    return Ok(false);
                }
                for zl in self.z.iter_mut() {
                    *zl /= den;
                }
            }
            self.steps_s[m].copy_from_slice(&self.z);
            for l in 0..n {
                self.yc[l] += self.z[l];
            }
            let delnrm = self.tol.norm_scaled_in(&self.z, &self.sc, n);
            if !delnrm.is_finite() {
                return Ok(false);
            }
            if delnrm <= 100.0 * f64::EPSILON * pnorm || delnrm == 0.0 {
                return Ok(true);
            }
            // The rate is measured from the second iteration on: for higher-index DAEs the
            // first update corrects the differential and the second the algebraic
            // components (Huang's index-3 systems), so ‖s₁‖ need not be below ‖s₀‖.
            if m <= 1 {
                oldnrm = delnrm;
                if m == 0 {
                    continue;
                }
            } else {
                let rate = (delnrm / oldnrm).powf(1.0 / (m - 1) as f64);
                if rate > 0.9 {
                    return Ok(false);
                }
                fac = rate / (1.0 - rate);
            }
            if fac * delnrm <= self.cfg.newton_tol {
                return Ok(true);
            }
            // A zero step cannot be used in the next update.
            if Self::dot(&self.z, &self.z) == 0.0 {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn step_impl<S: Source + ?Sized>(&mut self, f: &mut S) -> Result<StepInfo, OdeError> {
        check_dim_once(f, self.n, &mut self.dim_checked)?;
        let (h, hits_stop) = clamp_step(self.t, self.cfg.h, f64::INFINITY, self.t_stop, 4.0)?;
        let t_new = if hits_stop {
            self.t_stop.unwrap_or(self.t + h)
        } else {
            self.t + h
        };
        let order;
        let starter = if self.npts == 1 {
            self.starter.as_mut()
        } else {
            None
        };
        if let Some(st) = starter {
            // Start by the singly-implicit RK (5.2.16)–(5.2.18).
            st.set_t_stop(self.t_stop);
            // The starter's work is this stepper's work, a failed start's included.
            let started = st.step_impl(f);
            self.stats.f_evals += st.stats().f_evals;
            self.stats.jacobian_evals += st.stats().jacobian_evals;
            self.stats.factorizations += st.stats().factorizations;
            self.stats.newton_iterations += st.stats().newton_iterations;
            self.stats.newton_failures += st.stats().newton_failures;
            *st.stats_mut() = Stats::default();
            started?;
            self.yc.copy_from_slice(st.y());
            order = 3;
        } else {
            let (a0, ord) = if self.npts == 1 { (1.0, 1) } else { (1.5, 2) };
            order = ord;
            if self.mat_key != (h, a0) || !self.mat.ok {
                self.new_matrix(f, t_new, h, a0)?;
            }
            if !self.secant(f, t_new, h, a0)? {
                self.stats.newton_failures += 1;
                self.new_matrix(f, t_new, h, a0)?;
                if !self.secant(f, t_new, h, a0)? {
                    self.stats.newton_failures += 1;
                    return Err(OdeError::NoConvergence {
                        t: self.t,
                        iterations: self.cfg.max_iterations,
                        residual: f64::NAN,
                    });
                }
            }
        }
        check_finite(&self.yc, Quantity::Solution)?;
        // Shift the history: yₙ₋₂ ← yₙ₋₁ ← yₙ ← yₙ₊₁.
        self.hist.rotate_right(1);
        self.hist[0].copy_from_slice(&self.yc);
        self.npts = (self.npts + 1).min(3);
        self.t_prev = self.t;
        self.t = t_new;
        self.h_last = h;
        newton_scales(&self.tol, &self.hist[0], &mut self.sc);
        self.stats.steps += 1;
        Ok(StepInfo {
            t_prev: self.t_prev,
            t: self.t,
            h,
            order,
            rejected: 0,
        })
    }

    fn replace_impl(&mut self, y: &[f64]) -> Result<(), OdeError> {
        crate::stepper::check_replacement(self.n, y)?;
        for l in 0..self.n {
            let d = y[l] - self.hist[0][l];
            for p in 0..self.npts {
                self.hist[p][l] += d;
            }
        }
        newton_scales(&self.tol, y, &mut self.sc);
        if self.npts == 1 {
            if let Some(st) = self.starter.as_mut() {
                st.restart_impl(self.t, y)?;
            }
        }
        Ok(())
    }

    fn restart_impl(&mut self, t: f64, y: &[f64]) -> Result<(), OdeError> {
        let clock = (&mut self.t, &mut self.t_prev, &mut self.h_last);
        crate::stepper::restart_state(clock, &mut self.hist[0], t, y)?;
        self.npts = 1;
        self.yp0.fill(0.0);
        newton_scales(&self.tol, y, &mut self.sc);
        if let Some(st) = self.starter.as_mut() {
            st.restart_impl(t, y)?;
        }
        Ok(())
    }
}

impl Stepper for HuangBdf2 {
    fn t(&self) -> f64 {
        self.t
    }
    fn y(&self) -> &[f64] {
        &self.hist[0]
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
    /// Quadratic through `yₙ₋₂, yₙ₋₁, yₙ` at constant spacing (linear after one step).
    fn dense(&self, t_out: f64, out: &mut [f64]) -> Result<(), OdeError> {
        crate::stepper::check_dense(self.dim(), t_out, out)?;
        if self.h_last == 0.0 || self.npts == 1 {
            out.copy_from_slice(&self.hist[0]);
            return Ok(());
        }
        let s = (t_out - self.t) / self.h_last;
        for (l, o) in out.iter_mut().enumerate() {
            let (y0, y1) = (self.hist[0][l], self.hist[1][l]);
            let d1 = y0 - y1;
            *o = if self.npts == 2 {
                y0 + s * d1
            } else {
                let d2 = d1 - (y1 - self.hist[2][l]);
                y0 + s * d1 + 0.5 * s * (s + 1.0) * d2
            };
        }
        crate::problem::check_finite(out, crate::error::Quantity::DenseOutput)
    }
    stepper_bookkeeping!(constant_h);
}

crate::implicit::implicit_advance!(HuangBdf2);
