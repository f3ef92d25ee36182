//! Fourth-order Runge–Kutta–Gill with Gill's round-off compensation, Huang (5.3.3).
//!
//! With `A = 1 − 1/√2`, `B = 1 + 1/√2` and the accumulator `γ` (Gill's `q`), one step of
//! size `h` from `yₙ` reads (Huang (5.3.3), S. Gill, Proc. Cambridge Philos. Soc. 47 (1951)):
//!
//! ```text
//! k₁ = h f(tₙ, yₙ),          z₁ = yₙ + ½(k₁ − 2γ₀),        γ₁ = γ₀ + 3[½(k₁ − 2γ₀)] − ½k₁
//! k₂ = h f(tₙ + h/2, z₁),    z₂ = z₁ + A(k₂ − γ₁),         γ₂ = γ₁ + 3[A(k₂ − γ₁)] − A k₂
//! k₃ = h f(tₙ + h/2, z₂),    z₃ = z₂ + B(k₃ − γ₂),         γ₃ = γ₂ + 3[B(k₃ − γ₂)] − B k₃
//! k₄ = h f(tₙ + h, z₃),      yₙ₊₁ = z₃ + ⅙(k₄ − 2γ₃),     γ₄ = γ₃ + 3[⅙(k₄ − 2γ₃)] − ½k₄
//! ```
//!
//! and `γ₀(tₙ) = γ₄(tₙ₋₁)`, `γ₀(t₀) = 0`. In exact arithmetic `γ₄ = 0`; in floating point it
//! holds about three times the round-off committed in `yₙ₊₁`, which the next step removes.
//! Following Gill, the bracket `[·]` is the increment *actually added* to `z` (the computed
//! `z_new − z_old`), not the exact product, which is what makes the compensation work.
//!
//! Misprint check: the constants in the extracted text of Huang (5.3.3) are `1 ∓ 1/√2`, which
//! agree with Gill's `1 − √½` and `1 + √½` (the coefficients that make the method 4th order,
//! verified by the unit tests via the weights `(1, 2A, 2B, 1)/6`); the last line uses `½k₄`, not
//! `⅙k₄`, as it must for `γ₄ = 0` in exact arithmetic. No misprint was found.
//!
//! Modes: constant step, or variable step with a step-doubling (Richardson) estimate: one
//! step of `2h` and two steps of `h` give `err = (y_{h/2} − y_{2h})/15`; an accepted
//! (double) step advances by `2h`. Dense output: cubic Hermite interpolation between
//! `(tₙ₋₁, yₙ₋₁, fₙ₋₁)` and `(tₙ, yₙ, fₙ)`; `fₙ` is evaluated at the end of each step and is
//! reused as `k₁/h` of the next step (no extra cost beyond the last step).

use std::f64::consts::FRAC_1_SQRT_2;

use crate::error::{OdeError, Quantity};
use crate::norm::Tolerances;
use crate::problem::{check_dim, check_finite, eval_rhs, OdeRhs};
use crate::stats::Stats;
use crate::stepper::{
    check_initial, check_params, clamp_step, stepper_bookkeeping, stepper_state, Advance, StepInfo,
    Stepper,
};

/// `A = 1 − 1/√2`, Huang (5.3.3).
pub const GILL_A: f64 = 1.0 - FRAC_1_SQRT_2;
/// `B = 1 + 1/√2`, Huang (5.3.3).
pub const GILL_B: f64 = 1.0 + FRAC_1_SQRT_2;

/// Step-size mode of [`RungeKuttaGill`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GillMode {
    /// Constant step `h`, no error estimate (4 evaluations per step).
    Fixed {
        /// The step size.
        h: f64,
    },
    /// Variable step with the step-doubling estimate (11 evaluations per accepted step of `2h`,
    /// 10 per rejected one).
    Doubling,
}

/// Configuration of [`RungeKuttaGill`].
///
/// Defaults: `mode = Doubling`, `h_init = None` (`0.01·‖y₀‖/‖f₀‖` in the weighted norm, or
/// `1e-6` when either norm is below `1e-5`; capped by `h_max`), `h_max = ∞`, `safety = 0.9`, `fac_min = 0.2`, `fac_max = 4`,
/// `extrapolate = false` (keep the 4th-order value, as Huang), `compensate = true`.
#[derive(Debug, Clone, PartialEq)]
pub struct RungeKuttaGillConfig {
    /// Constant or variable step.
    pub mode: GillMode,
    /// First (double) step size in variable mode.
    pub h_init: Option<f64>,
    /// Largest (double) step size.
    pub h_max: f64,
    /// Safety factor.
    pub safety: f64,
    /// Smallest ratio `h_new/h`.
    pub fac_min: f64,
    /// Largest ratio `h_new/h`.
    pub fac_max: f64,
    /// Use the Richardson-extrapolated value `y + err` (5th order) instead of `y`.
    pub extrapolate: bool,
    /// Carry `γ` from step to step (Gill's compensation); `false` resets `γ₀ = 0` every step.
    pub compensate: bool,
}

impl Default for RungeKuttaGillConfig {
    fn default() -> Self {
        Self {
            mode: GillMode::Doubling,
            h_init: None,
            h_max: f64::INFINITY,
            safety: 0.9,
            fac_min: 0.2,
            fac_max: 4.0,
            extrapolate: false,
            compensate: true,
        }
    }
}

/// Runge–Kutta–Gill stepper (see the module documentation).
#[derive(Debug, Clone)]
pub struct RungeKuttaGill {
    cfg: RungeKuttaGillConfig,
    tol: Tolerances,
    t: f64,
    t_prev: f64,
    t_base: f64,
    n_fixed: u64,
    h_last: f64,
    h_next: f64,
    y: Vec<f64>,
    fy: Vec<f64>,
    y_prev: Vec<f64>,
    f_prev: Vec<f64>,
    gamma: Vec<f64>,
    gamma_big: Vec<f64>,
    gamma_half: Vec<f64>,
    y_big: Vec<f64>,
    y_mid: Vec<f64>,
    f_mid: Vec<f64>,
    y_half: Vec<f64>,
    kbuf: Vec<f64>,
    err: Vec<f64>,
    t_stop: Option<f64>,
    initialized: bool,
    order: usize,
    stats: Stats,
}

/// One Gill step, Huang (5.3.3): from `y` with `f0 = f(t, y)` and the accumulator `q` (γ₀ on
/// entry, γ₄ on exit) to `out`. Three evaluations of `f`, stage buffer `kbuf`.
/// Stage 2 or 3 of Gill's scheme with its coefficient `c` (`A` or `B`), in place on `z`:
/// `z ← z + c(k − γ)`, `γ ← γ + 3(z_new − z_old) − c·k` with `k = h·kbuf`.
#[inline]
fn gill_middle_stage(c: f64, h: f64, kbuf: &[f64], q: &mut [f64], z: &mut [f64]) {
    for ((&kb, qi), zi) in kbuf.iter().zip(q.iter_mut()).zip(z.iter_mut()) {
        let k = h * kb;
        let z_new = *zi + c * (k - *qi);
        let r = z_new - *zi;
        *qi += 3.0 * r - c * k;
        *zi = z_new;
    }
}

#[allow(clippy::too_many_arguments)]
fn gill_step<F: OdeRhs + ?Sized>(
    f: &mut F,
    stats: &mut Stats,
    t: f64,
    h: f64,
    y: &[f64],
    f0: &[f64],
    q: &mut [f64],
    out: &mut [f64],
    kbuf: &mut [f64],
) -> Result<(), OdeError> {
    let n = y.len();
    // Stage 1: z₁ = yₙ + ½(k₁ − 2γ₀), γ₁ = γ₀ + 3[·] − ½k₁.
    for i in 0..n {
        let k = h * f0[i];
        let z = y[i] + 0.5 * (k - 2.0 * q[i]);
        let r = z - y[i];
        q[i] += 3.0 * r - 0.5 * k;
        out[i] = z;
    }
    eval_rhs(f, stats, t + 0.5 * h, out, kbuf)?;
    // Stage 2: z₂ = z₁ + A(k₂ − γ₁), γ₂ = γ₁ + 3[·] − A k₂.
    gill_middle_stage(GILL_A, h, kbuf, q, out);
    eval_rhs(f, stats, t + 0.5 * h, out, kbuf)?;
    // Stage 3: z₃ = z₂ + B(k₃ − γ₂), γ₃ = γ₂ + 3[·] − B k₃.
    gill_middle_stage(GILL_B, h, kbuf, q, out);
    eval_rhs(f, stats, t + h, out, kbuf)?;
    // Stage 4: yₙ₊₁ = z₃ + ⅙(k₄ − 2γ₃), γ₄ = γ₃ + 3[·] − ½k₄.
    for i in 0..n {
        let k = h * kbuf[i];
        let z = out[i] + (k - 2.0 * q[i]) / 6.0;
        let r = z - out[i];
        q[i] += 3.0 * r - 0.5 * k;
        out[i] = z;
    }
    Ok(())
}

impl RungeKuttaGill {
    /// Creates a stepper at `(t0, y0)`; allocates every workspace.
    ///
    /// Errors: non-finite input, invalid tolerances or configuration.
    pub fn new(
        t0: f64,
        y0: &[f64],
        tol: Tolerances,
        cfg: RungeKuttaGillConfig,
    ) -> Result<Self, OdeError> {
        let n = y0.len();
        check_initial(t0, y0, &tol)?;
        if let GillMode::Fixed { h } = cfg.mode {
            if !(h > 0.0 && h.is_finite()) {
                return Err(OdeError::InvalidParameter {
                    name: "h",
                    value: h,
                });
            }
        }
        check_params([
            ("safety", cfg.safety, cfg.safety > 0.0 && cfg.safety <= 1.0),
            (
                "fac_min",
                cfg.fac_min,
                cfg.fac_min > 0.0 && cfg.fac_min < 1.0,
            ),
            ("fac_max", cfg.fac_max, cfg.fac_max > 1.0),
            ("h_max", cfg.h_max, cfg.h_max > 0.0),
            (
                "h_init",
                cfg.h_init.unwrap_or(1.0),
                cfg.h_init.is_none_or(|h| h > 0.0 && h.is_finite()),
            ),
        ])?;
        let z = || vec![0.0; n];
        Ok(Self {
            cfg,
            tol,
            t: t0,
            t_prev: t0,
            t_base: t0,
            n_fixed: 0,
            h_last: 0.0,
            h_next: 0.0,
            y: y0.to_vec(),
            fy: z(),
            y_prev: y0.to_vec(),
            f_prev: z(),
            gamma: z(),
            gamma_big: z(),
            gamma_half: z(),
            y_big: z(),
            y_mid: z(),
            f_mid: z(),
            y_half: z(),
            kbuf: z(),
            err: z(),
            t_stop: None,
            initialized: false,
            order: 4,
            stats: Stats::default(),
        })
    }

    /// The round-off accumulator `γ` carried to the next step.
    pub fn gamma(&self) -> &[f64] {
        &self.gamma
    }

    /// Step size proposed for the next step.
    pub fn h_next(&self) -> f64 {
        self.h_next
    }

    fn init<F: OdeRhs + ?Sized>(&mut self, f: &mut F) -> Result<(), OdeError> {
        check_dim(f, self.y.len())?;
        eval_rhs(f, &mut self.stats, self.t, &self.y, &mut self.fy)?;
        check_finite(&self.fy, Quantity::Derivative)?;
        self.gamma.fill(0.0);
        self.t_base = self.t;
        self.n_fixed = 0;
        self.h_next = match (self.cfg.mode, self.cfg.h_init) {
            (GillMode::Fixed { h }, _) => h,
            (GillMode::Doubling, Some(h)) => h,
            (GillMode::Doubling, None) => {
                // ‖y‖/‖f‖-type guess with the error weights (the first part of Hairer's HINIT);
                // the step-doubling controller corrects it within a few attempts.
                let d0 = self.tol.norm_two_point_in(&self.y, &self.y, &self.y);
                let d1 = self.tol.norm_two_point_in(&self.fy, &self.y, &self.y);
                if d0 < 1e-5 || d1 < 1e-5 {
                    1e-6
                } else {
                    0.01 * d0 / d1
                }
            }
        }
        .min(self.cfg.h_max);
        self.initialized = true;
        Ok(())
    }

    fn accept(&mut self, t_new: f64, h: f64) {
        self.y_prev.copy_from_slice(&self.y);
        self.f_prev.copy_from_slice(&self.fy);
        self.t_prev = self.t;
        self.t = t_new;
        self.h_last = h;
        self.stats.steps += 1;
    }
}

impl Stepper for RungeKuttaGill {
    stepper_state!(t, y, t_prev, h_last);
    fn order(&self) -> usize {
        self.order
    }

    /// Cubic Hermite interpolation on `[tₙ₋₁, tₙ]` from `yₙ₋₁, fₙ₋₁, yₙ, fₙ` (error `O(h⁴)`).
    fn dense(&self, t_out: f64, out: &mut [f64]) -> Result<(), OdeError> {
        crate::stepper::check_dense(self.dim(), t_out, out)?;
        hermite_cubic(
            self.t_prev,
            self.h_last,
            &self.y_prev,
            &self.f_prev,
            &self.y,
            &self.fy,
            t_out,
            out,
        );
        crate::problem::check_finite(out, crate::error::Quantity::DenseOutput)
    }

    stepper_bookkeeping!(h_max);
}

impl<F: OdeRhs + ?Sized> Advance<F> for RungeKuttaGill {
    fn step(&mut self, f: &mut F) -> Result<StepInfo, OdeError> {
        if !self.initialized {
            self.init(f)?;
        }
        let n = self.y.len();
        if !self.cfg.compensate {
            self.gamma.fill(0.0);
        }
        match self.cfg.mode {
            GillMode::Fixed { h: h_fixed } => {
                let (h, hits_stop) = clamp_step(self.t, h_fixed, self.cfg.h_max, self.t_stop, 4.0)?;
                gill_step(
                    f,
                    &mut self.stats,
                    self.t,
                    h,
                    &self.y,
                    &self.fy,
                    &mut self.gamma,
                    &mut self.y_half,
                    &mut self.kbuf,
                )?;
                // t = t_base + m·h avoids drift of t over many constant steps.
                let t_new = if hits_stop {
                    self.t_stop.unwrap_or(self.t + h)
                } else if h == h_fixed {
                    self.n_fixed += 1;
                    self.t_base + self.n_fixed as f64 * h_fixed
                } else {
                    self.t + h
                };
                if h != h_fixed || hits_stop {
                    self.t_base = t_new;
                    self.n_fixed = 0;
                }
                self.accept(t_new, h);
                std::mem::swap(&mut self.y, &mut self.y_half);
                eval_rhs(f, &mut self.stats, self.t, &self.y, &mut self.fy)?;
                Ok(StepInfo {
                    t_prev: self.t_prev,
                    t: self.t,
                    h,
                    order: 4,
                    rejected: 0,
                })
            }
            GillMode::Doubling => {
                let mut rejected = 0;
                loop {
                    let (hh, hits_stop) =
                        clamp_step(self.t, self.h_next, self.cfg.h_max, self.t_stop, 8.0)?;
                    let half = 0.5 * hh;
                    // One step of 2h (its γ₄ is discarded).
                    self.gamma_big.copy_from_slice(&self.gamma);
                    gill_step(
                        f,
                        &mut self.stats,
                        self.t,
                        hh,
                        &self.y,
                        &self.fy,
                        &mut self.gamma_big,
                        &mut self.y_big,
                        &mut self.kbuf,
                    )?;
                    // Two steps of h (these carry γ).
                    self.gamma_half.copy_from_slice(&self.gamma);
                    gill_step(
                        f,
                        &mut self.stats,
                        self.t,
                        half,
                        &self.y,
                        &self.fy,
                        &mut self.gamma_half,
                        &mut self.y_mid,
                        &mut self.kbuf,
                    )?;
                    eval_rhs(
                        f,
                        &mut self.stats,
                        self.t + half,
                        &self.y_mid,
                        &mut self.f_mid,
                    )?;
                    gill_step(
                        f,
                        &mut self.stats,
                        self.t + half,
                        half,
                        &self.y_mid,
                        &self.f_mid,
                        &mut self.gamma_half,
                        &mut self.y_half,
                        &mut self.kbuf,
                    )?;
                    // Richardson: err = (y_h − y_2h)/(2⁴ − 1).
                    for i in 0..n {
                        self.err[i] = (self.y_half[i] - self.y_big[i]) / 15.0;
                    }
                    let errn = self.tol.norm_two_point_in(&self.err, &self.y, &self.y_half);
                    let fac = if errn > 0.0 && errn.is_finite() {
                        (self.cfg.safety * errn.powf(-0.2))
                            .clamp(self.cfg.fac_min, self.cfg.fac_max)
                    } else if errn == 0.0 {
                        self.cfg.fac_max
                    } else {
                        self.cfg.fac_min
                    };
                    if errn <= 1.0 {
                        if self.cfg.extrapolate {
                            for i in 0..n {
                                self.y_half[i] += self.err[i];
                            }
                            self.gamma_half.fill(0.0);
                        }
                        let t_new = if hits_stop {
                            self.t_stop.unwrap_or(self.t + hh)
                        } else {
                            self.t + hh
                        };
                        self.accept(t_new, hh);
                        std::mem::swap(&mut self.y, &mut self.y_half);
                        std::mem::swap(&mut self.gamma, &mut self.gamma_half);
                        eval_rhs(f, &mut self.stats, self.t, &self.y, &mut self.fy)?;
                        let h_new = hh * if rejected > 0 { fac.min(1.0) } else { fac };
                        self.h_next = if hits_stop {
                            h_new.max(self.h_next)
                        } else {
                            h_new
                        };
                        return Ok(StepInfo {
                            t_prev: self.t_prev,
                            t: self.t,
                            h: hh,
                            order: 4,
                            rejected,
                        });
                    }
                    rejected += 1;
                    self.stats.rejected_steps += 1;
                    self.h_next = hh * fac.min(0.9);
                }
            }
        }
    }

    /// Sets `yₙ ← ỹ`, resets `γ ← 0` (the accumulated round-off belonged to the old point) and
    /// re-evaluates `fₙ = f(tₙ, ỹ)` (one counted evaluation). The dense output keeps the
    /// step just taken.
    fn replace_y(&mut self, f: &mut F, y: &[f64]) -> Result<(), OdeError> {
        crate::stepper::check_replacement(self.y.len(), y)?;
        self.y.copy_from_slice(y);
        self.gamma.fill(0.0);
        if self.initialized {
            eval_rhs(f, &mut self.stats, self.t, &self.y, &mut self.fy)?;
        }
        Ok(())
    }

    fn restart(&mut self, f: &mut F, t: f64, y: &[f64]) -> Result<(), OdeError> {
        let clock = (&mut self.t, &mut self.t_prev, &mut self.h_last);
        crate::stepper::restart_state(clock, &mut self.y, t, y)?;
        self.y_prev.copy_from_slice(y);
        self.init(f)
    }
}

/// Cubic Hermite interpolant through `(t0, y0, f0)` and `(t0 + h, y1, f1)` at `t`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn hermite_cubic(
    t0: f64,
    h: f64,
    y0: &[f64],
    f0: &[f64],
    y1: &[f64],
    f1: &[f64],
    t: f64,
    out: &mut [f64],
) {
    if h == 0.0 {
        out.copy_from_slice(y1);
        return;
    }
    let s = (t - t0) / h;
    let s2 = s * s;
    let s3 = s2 * s;
    let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
    let h10 = s3 - 2.0 * s2 + s;
    let h01 = -2.0 * s3 + 3.0 * s2;
    let h11 = s3 - s2;
    for i in 0..out.len() {
        out[i] = h00 * y0[i] + h * h10 * f0[i] + h01 * y1[i] + h * h11 * f1[i];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gill's weights: with γ₀ = 0 the step equals `yₙ + (k₁ + 2A k₂ + 2B k₃ + k₄)/6`, and
    /// `A + B = 2` so that `Σ bᵢ = 1`, `Σ bᵢ cᵢ = ½` (the classical conditions).
    #[test]
    fn constants() {
        assert!((GILL_A + GILL_B - 2.0).abs() < 1e-15);
        let b = [1.0 / 6.0, 2.0 * GILL_A / 6.0, 2.0 * GILL_B / 6.0, 1.0 / 6.0];
        let c = [0.0, 0.5, 0.5, 1.0];
        let s0: f64 = b.iter().sum();
        let s1: f64 = b.iter().zip(&c).map(|(b, c)| b * c).sum();
        let s2: f64 = b.iter().zip(&c).map(|(b, c)| b * c * c).sum();
        let s3: f64 = b.iter().zip(&c).map(|(b, c)| b * c * c * c).sum();
        assert!((s0 - 1.0).abs() < 1e-15 && (s1 - 0.5).abs() < 1e-15);
        assert!((s2 - 1.0 / 3.0).abs() < 1e-15 && (s3 - 0.25).abs() < 1e-15);
    }

    /// γ₄ is pure round-off: after one step of a linear problem it is at the level `u·|y|`.
    #[test]
    fn gamma_is_roundoff() {
        let mut f = crate::problem::FnRhs::new(2, |_t, y: &[f64], dy: &mut [f64]| {
            dy[0] = y[1];
            dy[1] = -y[0];
        });
        let mut s = RungeKuttaGill::new(
            0.0,
            &[1.0, 0.0],
            Tolerances::new(1e-8, 1e-8),
            RungeKuttaGillConfig {
                mode: GillMode::Fixed { h: 0.1 },
                ..Default::default()
            },
        )
        .unwrap();
        for _ in 0..10 {
            s.step(&mut f).unwrap();
            for g in s.gamma() {
                assert!(g.abs() < 8.0 * f64::EPSILON, "γ = {g}");
            }
        }
    }
}
