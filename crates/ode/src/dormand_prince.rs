//! Dormand–Prince 5(4) with FSAL, PI step control and Hairer's 4th-order dense output.
//!
//! Tableau: Dormand & Prince, *A family of embedded Runge–Kutta formulae*, J. Comput.
//! Appl. Math. 6 (1980) 19–26 (the method RK5(4)7M). Dense output: the continuous extension
//! of Hairer, Nørsett & Wanner, *Solving ODEs I*, §II.6 (code DOPRI5, `CONTD5`).
//!
//! One step of size `h` from `(tₙ, yₙ)`:
//! `kᵢ = f(tₙ + cᵢh, yₙ + h Σⱼ aᵢⱼ kⱼ)`, `yₙ₊₁ = yₙ + h Σ bᵢ kᵢ` (5th order, `b = a₇ⱼ`, so
//! `k₇ = f(tₙ₊₁, yₙ₊₁)` is the `k₁` of the next step: FSAL, 6 evaluations per step),
//! local error estimate `errᵢ = h Σ eⱼ kⱼ` (`e = b − b̂`), accepted when
//! `‖err‖ ≤ 1` in the norm of [`Tolerances`] with `wᵢ = atolᵢ + rtol·max(|yₙ,ᵢ|, |yₙ₊₁,ᵢ|)`.
//! Step control (Hairer's PI controller): `h_new = h / fac`,
//! `fac = clamp(err^{0.2−0.75β} / err_old^{β} / safety, 1/fac_max, 1/fac_min)`.

use crate::error::{OdeError, Quantity};
use crate::norm::Tolerances;
use crate::problem::{check_dim, check_finite, eval_rhs, OdeRhs};
use crate::stats::Stats;
use crate::stepper::{
    check_initial, check_params, clamp_step, step_fraction, stepper_bookkeeping, stepper_state,
    Advance, StepInfo, Stepper,
};

/// An explicit 7-stage Runge–Kutta tableau with an embedded error estimate and a
/// continuous extension (data, not code).
#[derive(Debug, Clone, PartialEq)]
pub struct Tableau {
    /// Nodes `cᵢ`.
    pub c: [f64; 7],
    /// Coefficients `aᵢⱼ` (strictly lower triangular).
    pub a: [[f64; 7]; 7],
    /// Weights `bᵢ` of the propagated (5th-order) solution.
    pub b: [f64; 7],
    /// Error weights `eᵢ = bᵢ − b̂ᵢ` (5th minus 4th order).
    pub e: [f64; 7],
    /// Dense-output weights `dᵢ` of the continuous extension.
    pub d: [f64; 7],
    /// Order of the propagated solution.
    pub order: usize,
}

impl Tableau {
    /// RK5(4)7M of Dormand & Prince (1980), Table 2 of the paper; dense-output weights `dᵢ`
    /// of Hairer's DOPRI5 (Solving ODEs I, II.6).
    #[must_use]
    pub const fn dormand_prince_1980() -> Self {
        let b = [
            35.0 / 384.0,
            0.0,
            500.0 / 1113.0,
            125.0 / 192.0,
            -2187.0 / 6784.0,
            11.0 / 84.0,
            0.0,
        ];
        Self {
            c: [0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0],
            a: [
                [0.0; 7],
                [1.0 / 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0, 0.0],
                [
                    19372.0 / 6561.0,
                    -25360.0 / 2187.0,
                    64448.0 / 6561.0,
                    -212.0 / 729.0,
                    0.0,
                    0.0,
                    0.0,
                ],
                [
                    9017.0 / 3168.0,
                    -355.0 / 33.0,
                    46732.0 / 5247.0,
                    49.0 / 176.0,
                    -5103.0 / 18656.0,
                    0.0,
                    0.0,
                ],
                b,
            ],
            b,
            e: [
                71.0 / 57600.0,
                0.0,
                -71.0 / 16695.0,
                71.0 / 1920.0,
                -17253.0 / 339200.0,
                22.0 / 525.0,
                -1.0 / 40.0,
            ],
            d: [
                -12715105075.0 / 11282082432.0,
                0.0,
                87487479700.0 / 32700410799.0,
                -10690763975.0 / 1880347072.0,
                701980252875.0 / 199316789632.0,
                -1453857185.0 / 822651844.0,
                69997945.0 / 29380423.0,
            ],
            order: 5,
        }
    }
}

/// The tableau of [`DormandPrince54`], as a constant (no per-call construction).
pub const DORMAND_PRINCE_1980: Tableau = Tableau::dormand_prince_1980();

/// Result of one [`Tableau::scalar_step`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScalarStep {
    /// The propagated value `yₙ₊₁ = yₙ + h Σ bᵢ kᵢ`.
    pub y: f64,
    /// Its slope `k₇ = f(tₙ + h, yₙ₊₁)` (FSAL: the `k₁` of the next step).
    pub f: f64,
    /// The local error estimate `h Σ eᵢ kᵢ` (signed).
    pub err: f64,
    /// `h Σ dᵢ kᵢ`: Hairer's 4th-order dense output on the step is the cubic Hermite
    /// interpolant through `(yₙ, k₁)`, `(yₙ₊₁, k₇)` plus `θ²(1 − θ)² · dense` (θ = (t − tₙ)/h,
    /// DOPRI5's `rcont5`); `|dense|/16` is how far the Hermite interpolant is from it at
    /// mid-step.
    pub dense: f64,
}

impl Tableau {
    /// One step of this (FSAL: `c₇ = 1`, `a₇ⱼ = bⱼ`) tableau for a **scalar** equation
    /// `y' = f(t, y)` from `(t, y)` with slope `f0 = f(t, y)` and step `h`, for callers that
    /// run their own step control and event logic (the phase-plane curves of
    /// `contour-planning`). Six evaluations of `f`; the first error returned by `f` ends the
    /// step. The stage sums run in the order `j = 1, 2, …`, with zero coefficients included.
    pub fn scalar_step<E>(
        &self,
        f: &mut impl FnMut(f64, f64) -> Result<f64, E>,
        t: f64,
        y: f64,
        f0: f64,
        h: f64,
    ) -> Result<ScalarStep, E> {
        let mut k = [0.0; 7];
        k[0] = f0;
        let mut y_new = y;
        for i in 1..7 {
            let mut sum = self.a[i][0] * k[0];
            for j in 1..i {
                sum += self.a[i][j] * k[j];
            }
            let yi = y + h * sum;
            let ti = if self.c[i] == 1.0 {
                t + h
            } else {
                t + self.c[i] * h
            };
            k[i] = f(ti, yi)?;
            if i == 6 {
                y_new = yi;
            }
        }
        let mut e = self.e[0] * k[0];
        for j in 1..7 {
            e += self.e[j] * k[j];
        }
        let mut d = self.d[0] * k[0];
        for j in 1..7 {
            d += self.d[j] * k[j];
        }
        Ok(ScalarStep {
            y: y_new,
            f: k[6],
            err: h * e,
            dense: h * d,
        })
    }
}

/// Copies stage `s` (`k`, as evaluated) into the by-component table `kt`.
#[inline]
fn mirror_stage(kt: &mut [[f64; 7]], k: &[f64], s: usize) {
    for (row, v) in kt.iter_mut().zip(k) {
        row[s] = *v;
    }
}

/// Hairer's dense-output coefficients (DOPRI5's `RCONT`) of one component on a step of size
/// `h` from `y0` to `y1` with the stages `k = (k₁ … k₇)`: `r₁ = y0`, `r₂ = y1 − y0`,
/// `r₃ = h k₁ − r₂`, `r₄ = r₂ − h k₇ − r₃`, `r₅ = h Σⱼ dⱼ kⱼ`.
#[inline(always)]
fn dense_coefficients(d: &[f64; 7], h: f64, y0: f64, y1: f64, k: &[f64; 7]) -> [f64; 5] {
    let ydiff = y1 - y0;
    let bspl = h * k[0] - ydiff;
    let mut acc = 0.0;
    for j in 0..7 {
        acc += d[j] * k[j];
    }
    [y0, ydiff, bspl, ydiff - h * k[6] - bspl, h * acc]
}

/// Cubic Hermite interpolant on `[t0, t1]` through the values `y0, y1` with slopes `f0, f1`,
/// at `t` (exact for cubics; `y0` when `t1 = t0`). The scalar form of the dense output of
/// [`RungeKuttaGill`](crate::RungeKuttaGill).
#[must_use]
pub fn hermite_cubic_scalar(t0: f64, y0: f64, f0: f64, t1: f64, y1: f64, f1: f64, t: f64) -> f64 {
    let h = t1 - t0;
    if h == 0.0 {
        return y0;
    }
    let s = (t - t0) / h;
    let s2 = s * s;
    let s3 = s2 * s;
    let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
    let h10 = s3 - 2.0 * s2 + s;
    let h01 = -2.0 * s3 + 3.0 * s2;
    let h11 = s3 - s2;
    h00 * y0 + h10 * h * f0 + h01 * y1 + h11 * h * f1
}

/// Configuration of [`DormandPrince54`].
///
/// Defaults (Hairer's DOPRI5): `h_init = None` (chosen by Hairer's `HINIT`, one extra
/// evaluation), `h_max = ∞`, `safety = 0.9`, `fac_min = 0.2`, `fac_max = 10`,
/// `beta = 0.04` (PI control; `0` gives the classical I controller), `fixed_step = None`.
#[derive(Debug, Clone, PartialEq)]
pub struct DormandPrinceConfig {
    /// First step size (`None`: automatic).
    pub h_init: Option<f64>,
    /// Largest step size.
    pub h_max: f64,
    /// Safety factor of the step-size formula.
    pub safety: f64,
    /// Smallest ratio `h_new / h`.
    pub fac_min: f64,
    /// Largest ratio `h_new / h`.
    pub fac_max: f64,
    /// PI exponent `β` of the previous error (0: I controller).
    pub beta: f64,
    /// Constant step size without error control (for convergence tests).
    pub fixed_step: Option<f64>,
}

impl Default for DormandPrinceConfig {
    fn default() -> Self {
        Self {
            h_init: None,
            h_max: f64::INFINITY,
            safety: 0.9,
            fac_min: 0.2,
            fac_max: 10.0,
            beta: 0.04,
            fixed_step: None,
        }
    }
}

/// Dormand–Prince 5(4) stepper (see the module documentation).
#[derive(Debug, Clone)]
pub struct DormandPrince54 {
    tab: Tableau,
    cfg: DormandPrinceConfig,
    tol: Tolerances,
    t: f64,
    t_prev: f64,
    h_last: f64,
    h_next: f64,
    y: Vec<f64>,
    y_new: Vec<f64>,
    y_stage: Vec<f64>,
    err: Vec<f64>,
    /// `k₁ = f(tₙ, yₙ)` (after an accepted step the FSAL stage, the step's `k₇`).
    k1: Vec<f64>,
    /// `k₇` of the step being taken; after an accepted step (swapped with `k1`) the step's `k₁`,
    /// which `rcont_of` reads.
    k7: Vec<f64>,
    /// `k₂ … k₆` in turn, as evaluated: they are only read through `kt`.
    k_mid: Vec<f64>,
    /// The stages by component, `kt[i][j] = kⱼ₊₁[i]` (a copy: the stage sums of one
    /// component read one row, without bounds checks).
    kt: Vec<[f64; 7]>,
    /// Dense output coefficients `r₁ … r₅` (Hairer's `RCONT`) by component (one allocation;
    /// `dense` reads one row per component), valid when `rcont_valid`.
    rcont: Vec<[f64; 5]>,
    /// `rcont` describes the last step (set by `new`, `restart` and `replace_y`). After an
    /// accepted step it is not formed (most steps hold no output time): [`Stepper::dense`]
    /// forms each component's coefficients from `y_new` (`yₙ₋₁` after the swap), `y`,
    /// `k7` (`k₁` after the FSAL swap) and `kt` (`k₂ … k₇`), the same values.
    rcont_valid: bool,
    err_old: f64,
    t_stop: Option<f64>,
    initialized: bool,
    stats: Stats,
}

impl DormandPrince54 {
    /// Creates a stepper at `(t0, y0)`; allocates every workspace. No evaluation of `f` yet.
    ///
    /// Errors: non-finite `t0`/`y0` ([`OdeError::NonFinite`]), invalid tolerances or
    /// configuration.
    pub fn new(
        t0: f64,
        y0: &[f64],
        tol: Tolerances,
        cfg: DormandPrinceConfig,
    ) -> Result<Self, OdeError> {
        let n = y0.len();
        check_initial(t0, y0, &tol)?;
        check_params([
            ("safety", cfg.safety, cfg.safety > 0.0 && cfg.safety <= 1.0),
            (
                "fac_min",
                cfg.fac_min,
                cfg.fac_min > 0.0 && cfg.fac_min < 1.0,
            ),
            ("fac_max", cfg.fac_max, cfg.fac_max > 1.0),
            ("beta", cfg.beta, (0.0..0.2).contains(&cfg.beta)),
            ("h_max", cfg.h_max, cfg.h_max > 0.0),
            (
                "h_init",
                cfg.h_init.unwrap_or(1.0),
                cfg.h_init.is_none_or(|h| h > 0.0 && h.is_finite()),
            ),
            (
                "fixed_step",
                cfg.fixed_step.unwrap_or(1.0),
                cfg.fixed_step.is_none_or(|h| h > 0.0 && h.is_finite()),
            ),
        ])?;
        let z = || vec![0.0; n];
        Ok(Self {
            tab: Tableau::dormand_prince_1980(),
            cfg,
            tol,
            t: t0,
            t_prev: t0,
            h_last: 0.0,
            h_next: 0.0,
            y: y0.to_vec(),
            y_new: z(),
            y_stage: z(),
            err: z(),
            k1: z(),
            k7: z(),
            k_mid: z(),
            kt: vec![[0.0; 7]; y0.len()],
            rcont: y0.iter().map(|&v| [v, 0.0, 0.0, 0.0, 0.0]).collect(),
            rcont_valid: true,
            err_old: 1e-4,
            t_stop: None,
            initialized: false,
            stats: Stats::default(),
        })
    }

    /// Step size proposed for the next step.
    pub fn h_next(&self) -> f64 {
        self.h_next
    }

    fn init<F: OdeRhs + ?Sized>(&mut self, f: &mut F) -> Result<(), OdeError> {
        check_dim(f, self.y.len())?;
        eval_rhs(f, &mut self.stats, self.t, &self.y, &mut self.k1)?;
        check_finite(&self.k1, Quantity::Derivative)?;
        mirror_stage(&mut self.kt, &self.k1, 0);
        self.err_old = 1e-4;
        self.h_next = match (self.cfg.fixed_step, self.cfg.h_init) {
            (Some(h), _) => h,
            (None, Some(h)) => h,
            (None, None) => self.initial_step(f)?,
        }
        .min(self.cfg.h_max);
        self.initialized = true;
        Ok(())
    }

    /// Hairer's `HINIT` (Solving ODEs I, II.4): `h₀ = 0.01‖y₀‖/‖f₀‖`, one explicit Euler
    /// step to estimate `‖f'‖`, then `h = min(100h₀, (0.01/max(‖f₀‖, ‖f'‖))^{1/5})`.
    fn initial_step<F: OdeRhs + ?Sized>(&mut self, f: &mut F) -> Result<f64, OdeError> {
        let n = self.y.len();
        let zeros_norm = |tol: &Tolerances, v: &[f64], y: &[f64]| tol.norm_two_point_in(v, y, y);
        let d0 = zeros_norm(&self.tol, &self.y, &self.y);
        let d1 = zeros_norm(&self.tol, &self.k1, &self.y);
        let mut h0 = if d0 < 1e-5 || d1 < 1e-5 {
            1e-6
        } else {
            0.01 * d0 / d1
        };
        h0 = h0.min(self.cfg.h_max);
        for i in 0..n {
            self.y_stage[i] = self.y[i] + h0 * self.k1[i];
        }
        eval_rhs(
            f,
            &mut self.stats,
            self.t + h0,
            &self.y_stage,
            &mut self.k_mid,
        )?;
        for i in 0..n {
            self.err[i] = (self.k_mid[i] - self.k1[i]) / h0;
        }
        let d2 = zeros_norm(&self.tol, &self.err, &self.y);
        let dm = d1.max(d2);
        let h1 = if dm <= 1e-15 || !dm.is_finite() {
            (h0 * 1e-3).max(1e-6)
        } else {
            (0.01 / dm).powf(0.2)
        };
        Ok((100.0 * h0).min(h1).min(self.cfg.h_max))
    }

    /// Computes stages 2…7 for step size `h`; leaves `yₙ₊₁` in `y_new`, `k₇` in `k7`.
    fn stages<F: OdeRhs + ?Sized>(&mut self, f: &mut F, h: f64) -> Result<(), OdeError> {
        for s in 1..7 {
            let a = &self.tab.a[s];
            let target: &mut Vec<f64> = if s == 6 {
                &mut self.y_new
            } else {
                &mut self.y_stage
            };
            for ((v, y), row) in target.iter_mut().zip(&self.y).zip(&self.kt) {
                let mut acc = 0.0;
                for j in 0..s {
                    acc += a[j] * row[j];
                }
                *v = y + h * acc;
            }
            let (arg, k): (&[f64], &mut Vec<f64>) = if s == 6 {
                (&self.y_new, &mut self.k7)
            } else {
                (&self.y_stage, &mut self.k_mid)
            };
            eval_rhs(f, &mut self.stats, self.t + self.tab.c[s] * h, arg, k)?;
            mirror_stage(&mut self.kt, k, s);
        }
        Ok(())
    }

    /// The dense-output coefficients `r₁ … r₅` of component `i` on the last step: `rcont`,
    /// or (after an accepted step) formed from the step's values and stages.
    #[inline]
    fn rcont_of(&self, i: usize) -> [f64; 5] {
        if self.rcont_valid {
            return self.rcont[i];
        }
        let mut k = self.kt[i];
        k[0] = self.k7[i];
        dense_coefficients(&self.tab.d, self.h_last, self.y_new[i], self.y[i], &k)
    }

    /// Stores the dense-output coefficients of the last step in `rcont` (before `y` or the
    /// stages change outside a step).
    fn keep_rcont(&mut self) {
        for i in 0..self.y.len() {
            self.rcont[i] = self.rcont_of(i);
        }
        self.rcont_valid = true;
    }
}

impl Stepper for DormandPrince54 {
    stepper_state!(t, y, t_prev, h_last);
    fn order(&self) -> usize {
        5
    }

    /// Hairer's `CONTD5`: with `θ = (t − tₙ₋₁)/h`, `θ₁ = 1 − θ`,
    /// `y(t) ≈ r₁ + θ(r₂ + θ₁(r₃ + θ(r₄ + θ₁ r₅)))`.
    fn dense(&self, t_out: f64, out: &mut [f64]) -> Result<(), OdeError> {
        crate::stepper::check_dense(self.dim(), t_out, out)?;
        let Some(th) = step_fraction(self.t_prev, self.h_last, &self.y, t_out, out) else {
            return Ok(());
        };
        let th1 = 1.0 - th;
        for (i, o) in out.iter_mut().enumerate() {
            let r = self.rcont_of(i);
            *o = r[0] + th * (r[1] + th1 * (r[2] + th * (r[3] + th1 * r[4])));
        }
        crate::problem::check_finite(out, crate::error::Quantity::DenseOutput)
    }

    stepper_bookkeeping!(h_max);
}

impl<F: OdeRhs + ?Sized> Advance<F> for DormandPrince54 {
    fn step(&mut self, f: &mut F) -> Result<StepInfo, OdeError> {
        if !self.initialized {
            self.init(f)?;
        }
        let expo1 = 0.2 - 0.75 * self.cfg.beta;
        let mut rejected = 0;
        let mut last_rejected = false;
        loop {
            let (h, hits_stop) = clamp_step(self.t, self.h_next, self.cfg.h_max, self.t_stop, 4.0)?;
            self.stages(f, h)?;
            for (v, row) in self.err.iter_mut().zip(&self.kt) {
                let mut acc = 0.0;
                for j in 0..7 {
                    acc += self.tab.e[j] * row[j];
                }
                *v = h * acc;
            }
            let errn = if self.cfg.fixed_step.is_some() {
                0.0
            } else {
                self.tol.norm_two_point_in(&self.err, &self.y, &self.y_new)
            };
            if errn <= 1.0 {
                // Accepted. The dense output is formed when asked for (`rcont_of`).
                self.rcont_valid = false;
                let h_new = if let Some(hf) = self.cfg.fixed_step {
                    hf
                } else {
                    // Hairer's PI controller.
                    let fac11 = errn.max(1e-300).powf(expo1);
                    let fac = (fac11 / self.err_old.powf(self.cfg.beta) / self.cfg.safety)
                        .clamp(1.0 / self.cfg.fac_max, 1.0 / self.cfg.fac_min);
                    self.err_old = errn.max(1e-4);
                    let hn = h / fac;
                    if last_rejected {
                        hn.min(h)
                    } else {
                        hn
                    }
                };
                std::mem::swap(&mut self.y, &mut self.y_new);
                std::mem::swap(&mut self.k1, &mut self.k7); // FSAL
                for row in &mut self.kt {
                    row[0] = row[6];
                }
                self.t_prev = self.t;
                self.t = if hits_stop {
                    self.t_stop.unwrap_or(self.t + h)
                } else {
                    self.t + h
                };
                self.h_last = h;
                self.h_next = if hits_stop {
                    h_new.max(self.h_next)
                } else {
                    h_new
                };
                self.stats.steps += 1;
                return Ok(StepInfo {
                    t_prev: self.t_prev,
                    t: self.t,
                    h,
                    order: 5,
                    rejected,
                });
            }
            // Rejected (also when the estimate is NaN/∞).
            rejected += 1;
            last_rejected = true;
            self.stats.rejected_steps += 1;
            let fac11 = if errn.is_finite() {
                errn.powf(expo1)
            } else {
                f64::INFINITY
            };
            self.h_next = h / (1.0 / self.cfg.fac_min).min(fac11 / self.cfg.safety);
        }
    }

    /// Sets `yₙ ← ỹ` and re-evaluates `k₁ = f(tₙ, ỹ)` (one counted evaluation) so that the
    /// FSAL stage of the next step belongs to the moved point. The dense output keeps
    /// describing the step just taken (ending at the unmoved point).
    fn replace_y(&mut self, f: &mut F, y: &[f64]) -> Result<(), OdeError> {
        crate::stepper::check_replacement(self.y.len(), y)?;
        if !self.rcont_valid {
            self.keep_rcont();
        }
        self.y.copy_from_slice(y);
        if self.initialized {
            eval_rhs(f, &mut self.stats, self.t, &self.y, &mut self.k1)?;
            mirror_stage(&mut self.kt, &self.k1, 0);
        }
        Ok(())
    }

    fn restart(&mut self, f: &mut F, t: f64, y: &[f64]) -> Result<(), OdeError> {
        let clock = (&mut self.t, &mut self.t_prev, &mut self.h_last);
        crate::stepper::restart_state(clock, &mut self.y, t, y)?;
        for (r, &v) in self.rcont.iter_mut().zip(y) {
            *r = [v, 0.0, 0.0, 0.0, 0.0];
        }
        self.rcont_valid = true;
        self.init(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Row sums `Σⱼ aᵢⱼ = cᵢ` and the quadrature conditions `Σ bᵢ cᵢ^{q−1} = 1/q`, q ≤ 5;
    /// the embedded 4th-order weights satisfy them for q ≤ 4 (so `Σ eᵢ cᵢ^{q−1} = 0`).
    #[test]
    fn tableau_conditions() {
        let t = Tableau::dormand_prince_1980();
        for i in 0..7 {
            let s: f64 = t.a[i].iter().sum();
            assert!((s - t.c[i]).abs() < 1e-14, "row {i}");
        }
        for q in 1..=5 {
            let s: f64 = (0..7).map(|i| t.b[i] * t.c[i].powi(q - 1)).sum();
            assert!((s - 1.0 / q as f64).abs() < 1e-14, "q = {q}");
            if q <= 4 {
                let e: f64 = (0..7).map(|i| t.e[i] * t.c[i].powi(q - 1)).sum();
                assert!(e.abs() < 1e-14, "e, q = {q}");
            }
        }
        // Σ bᵢ aᵢⱼ cⱼ = 1/6.
        let s: f64 = (0..7)
            .map(|i| t.b[i] * (0..7).map(|j| t.a[i][j] * t.c[j]).sum::<f64>())
            .sum();
        assert!((s - 1.0 / 6.0).abs() < 1e-14);
    }

    /// The continuous extension matches the step ends and is 4th order: on constant steps
    /// `h` and `h/2` the maximum error at step midpoints falls by ≥ 2^{4.5}.
    #[test]
    fn dense_output_order() {
        use crate::test_models::{ExactSolution, HarmonicOscillator};
        let run = |h: f64| {
            let mut f = HarmonicOscillator { omega: 1.0 };
            let cfg = DormandPrinceConfig {
                fixed_step: Some(h),
                ..Default::default()
            };
            let mut s =
                DormandPrince54::new(0.0, &f.y0(), Tolerances::new(1e-6, 1e-6), cfg).unwrap();
            let (mut buf, mut ex) = ([0.0; 2], [0.0; 2]);
            let mut worst: f64 = 0.0;
            while s.t() < 2.0 - 1e-12 {
                let y_prev = s.y().to_vec();
                s.step(&mut f).unwrap();
                s.dense(s.t_prev(), &mut buf).unwrap();
                assert!(crate::test_models::max_abs_diff(&buf, &y_prev) < 1e-15);
                s.dense(s.t(), &mut buf).unwrap();
                assert!(crate::test_models::max_abs_diff(&buf, s.y()) < 1e-15);
                for th in [0.25, 0.5, 0.75] {
                    let t = s.t_prev() + th * s.h();
                    s.dense(t, &mut buf).unwrap();
                    f.exact(t, &mut ex);
                    // Local interpolation error: compare with the exact solution through y_prev.
                    worst = worst.max(crate::test_models::max_abs_diff(&buf, &ex));
                }
            }
            worst
        };
        let (e1, e2) = (run(0.2), run(0.1));
        let order = (e1 / e2).log2();
        assert!(order > 4.5, "dense output order {order} ({e1:e}, {e2:e})");
    }

    /// The dense output is formed on demand after an accepted step; `replace_y` keeps it
    /// describing the step just taken (bit for bit), as the coefficients stored at the step did.
    #[test]
    fn dense_output_survives_replace_y() {
        use crate::test_models::{ExactSolution, HarmonicOscillator};
        let mut f = HarmonicOscillator { omega: 1.0 };
        let tol = Tolerances::new(1e-6, 1e-6);
        let mut s =
            DormandPrince54::new(0.0, &f.y0(), tol, DormandPrinceConfig::default()).unwrap();
        s.step(&mut f).unwrap();
        s.step(&mut f).unwrap();
        let t_mid = s.t_prev() + 0.37 * s.h();
        let (mut before, mut after, mut end) = ([0.0; 2], [0.0; 2], [0.0; 2]);
        s.dense(t_mid, &mut before).unwrap();
        s.dense(s.t(), &mut end).unwrap();
        let moved: Vec<f64> = s.y().iter().map(|v| v + 1e-3).collect();
        s.replace_y(&mut f, &moved).unwrap();
        s.dense(t_mid, &mut after).unwrap();
        assert_eq!(before.map(f64::to_bits), after.map(f64::to_bits));
        s.dense(s.t(), &mut after).unwrap();
        assert_eq!(end.map(f64::to_bits), after.map(f64::to_bits));
    }

    #[test]
    fn scalar_step_integrates_the_exponential_at_fifth_order() {
        // x' = x, x(0) = 1 on [0, 1] with fixed steps: global error O(h^5)
        let mut f = |_t: f64, x: f64| -> Result<f64, ()> { Ok(x) };
        let run = |n: usize, f: &mut dyn FnMut(f64, f64) -> Result<f64, ()>| {
            let h = 1.0 / n as f64;
            let (mut t, mut x, mut fx, mut max_err) = (0.0, 1.0, 1.0, 0.0f64);
            for _ in 0..n {
                let r = DORMAND_PRINCE_1980
                    .scalar_step(&mut |a, b| f(a, b), t, x, fx, h)
                    .unwrap();
                (t, x, fx) = (t + h, r.y, r.f);
                max_err = max_err.max(r.err.abs());
            }
            ((x - 1f64.exp()).abs(), max_err)
        };
        let (e1, est) = run(10, &mut f);
        let (e2, _) = run(20, &mut f);
        let order = (e1 / e2).log2();
        assert!(order > 4.7 && order < 5.5, "order {order} ({e1:e}, {e2:e})");
        assert!(est < 1e-6 && est > 0.0, "error estimate {est:e}");
    }

    #[test]
    fn scalar_step_dense_term_makes_the_midpoint_fourth_order() {
        // x' = x from x(0) = 1, one step h: Hermite + dense/16 at mid-step is within O(h^5)
        // of e^{h/2}, the Hermite value alone only O(h^4)
        let mid = |h: f64| {
            let r = DORMAND_PRINCE_1980
                .scalar_step(&mut |_t, x| -> Result<f64, ()> { Ok(x) }, 0.0, 1.0, 1.0, h)
                .unwrap();
            let herm = hermite_cubic_scalar(0.0, 1.0, 1.0, h, r.y, r.f, 0.5 * h);
            let exact = (0.5 * h).exp();
            ((herm - exact).abs(), (herm + r.dense / 16.0 - exact).abs())
        };
        let (h1, d1) = mid(0.1);
        let (h2, d2) = mid(0.05);
        let (oh, od) = ((h1 / h2).log2(), (d1 / d2).log2());
        assert!(oh > 3.7 && oh < 4.3, "Hermite order {oh}");
        assert!(
            od > 4.6,
            "dense order {od} ({d1:e}, {d2:e}; Hermite {h1:e})"
        );
        assert!(d1 < 0.1 * h1, "{d1:e} vs {h1:e}");
    }

    #[test]
    fn scalar_hermite_is_exact_for_cubics() {
        let p = |s: f64| 1.0 + 2.0 * s - s * s + 0.5 * s * s * s;
        let dp = |s: f64| 2.0 - 2.0 * s + 1.5 * s * s;
        let v = hermite_cubic_scalar(0.3, p(0.3), dp(0.3), 1.1, p(1.1), dp(1.1), 0.77);
        assert!((v - p(0.77)).abs() < 1e-14);
        assert_eq!(hermite_cubic_scalar(0.3, 1.0, 0.0, 0.3, 2.0, 0.0, 0.3), 1.0);
    }
}
