//! Variable-order (1–5), variable-step BDF for `F(t, y, y') = 0` in the DASSL tradition.
//!
//! The algorithm is that of Petzold's DASSL (`DDASTP`, `DDAJAC`, `DDATRP`; Brenan, Campbell &
//! Petzold, *Numerical Solution of Initial-Value Problems in DAEs*, ch. 5), in the
//! fixed-leading-coefficient form:
//!
//! * History: modified divided differences `φⱼ(n)`, `j = 1 … k+1`, with
//!   `ψᵢ = t_{n+1} − t_{n+1−i}`; the predictor `y⁽⁰⁾ₙ₊₁ = Σⱼ φ*ⱼ(n)`,
//!   `y'⁽⁰⁾ₙ₊₁ = Σⱼ γⱼ φ*ⱼ(n)` (`φ* = β·φ`), Huang's (5.2.11)/(5.2.13) generalised to
//!   variable steps.
//! * Corrector: `y'ₙ₊₁ = y'⁽⁰⁾ + c_j (yₙ₊₁ − y⁽⁰⁾)`, `c_j = −α_s/h`, `α_s = −Σᵢ₌₁ᵏ 1/i`;
//!   `F(tₙ₊₁, yₙ₊₁, y'ₙ₊₁) = 0` is solved by Newton's method with the iteration matrix
//!   `G = ∂F/∂y + c_j ∂F/∂y'` reused over steps (recomputed when `c_j` moved by more than
//!   the ratio 0.6…1/0.6, or when the iteration fails with an old matrix), the update
//!   damped by `2/(1 + c_j/c_j^old)`; convergence when `ρ/(1−ρ)·‖δ‖ ≤ 0.33`
//!   (`ρ` the observed rate), at most 4 iterations.
//! * Local error `‖ck·(yₙ₊₁ − y⁽⁰⁾)‖ ≤ 1`, `ck = max(|αₖ₊₁ + α_s − α⁰|, αₖ₊₁)`; errors at
//!   orders `k−2 … k+1` decide the order; `r = (2·est + 10⁻⁴)^{−1/(k+1)}` the step (doubled
//!   when `r ≥ 2`, kept when `1 < r < 2`, else reduced by `max(0.5, min(0.9, r))`).
//!   Starting phase: order 1, order raised and step doubled after each step until the first
//!   rejection or a lower order is preferred.
//! * Rejections: error test — first `r = 0.9(2·est+10⁻⁴)^{−1/(k+1)}` clamped to [0.25, 0.9],
//!   then ×0.25, then ×0.25 at order 1; Newton failure with a fresh matrix — ×0.25
//!   (10 failures in one step → [`OdeError::NoConvergence`]).
//!
//! The error test uses the norm of [`Tolerances`] with `wᵢ = atolᵢ + rtol·|yₙ,ᵢ|` and
//! the component weights; [`BdfConfig::exclude_algebraic_from_error_test`] also removes the
//! components marked algebraic (index-2 systems: their error estimate does not go to zero
//! with `h`). For such an index-2 system the Newton convergence test is DASSL's
//! `ρ/(1−ρ)·‖δ‖ ≤ tol` (Brenan, Campbell & Petzold §5.2.2) in the *error-test* norm, with
//! [`BdfConfig::index2_newton_tol`]: the differential components carry their error-test
//! weights, and each algebraic update `δμⱼ` is weighted by its effect on the differential
//! components, `‖G[diff, j]‖/c_j` in those weights (column `j` of the iteration matrix;
//! Hairer & Wanner, *Solving ODEs II*, VII.8: the index-2 variables are measured through
//! the differential ones, not at their own `O(u/h)`-noisy scale); a problem may measure its
//! updates itself ([`DaeJacobian::map_newton_update`]). Otherwise every component
//! enters the Newton test with its own tolerance scale.
//!
//! Consistent initialization ([`Bdf::initialize`]): unless `y'₀` is given, Newton's method
//! on `F(t₀, y₀, y'₀) = 0` in the unknowns `y'ᵢ` (differential components) and `yᵢ`
//! (algebraic components, `y'ᵢ = 0`) — DASPK's first option. It works for ODEs and index-1
//! DAEs; for index 2 the matrix is singular ([`OdeError::SingularIterationMatrix`]) and the
//! caller supplies a consistent `y'₀` ([`BdfConfig::initial_derivative`]).
//!
//! `replace_y` shifts the whole history polynomial by `ỹ − yₙ` (`φ₁ += ỹ − yₙ`, higher
//! differences kept): the next predictor starts from the moved point with the old slope.

use crate::error::{OdeError, Quantity};
use crate::implicit::{check_dim_once, eval_res, newton_scales, Fd, IterationMatrix, Source};
use crate::norm::Tolerances;
use crate::problem::{check_finite, DaeJacobian, DaeResidual, WithJacobian};
use crate::stats::Stats;
use crate::stepper::{
    check_initial, check_params, clamp_step, initial_derivative, stepper_bookkeeping,
    stepper_state, Advance, StepInfo, Stepper,
};

/// Largest order of [`Bdf`].
pub const BDF_MAX_ORDER: usize = 5;

/// Constant order and step (no error control) — for convergence-order measurements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BdfFixed {
    /// Order `k` (1–5). Without [`Bdf::start_with_history`] the order ramps up `1, 2, …, k`
    /// over the first steps.
    pub order: usize,
    /// Step size `h`.
    pub h: f64,
}

/// Configuration of [`Bdf`].
///
/// Defaults: `max_order = 5`, `h_init = None` (DASSL's `h₀ = min(0.001·(t_stop − t₀),
/// 0.5/‖y'₀‖)`), `h_max = ∞`, `fixed = None`, `algebraic = []` (all components
/// differential), `exclude_algebraic_from_error_test = false`, `initial_derivative = None`
/// (computed, see the module documentation), `max_newton_iterations = 4`,
/// `newton_tol = 0.33`, `index2_newton_tol = 0.03`.
#[derive(Debug, Clone, PartialEq)]
pub struct BdfConfig {
    /// Largest order (1–5).
    pub max_order: usize,
    /// First step size (`None`: automatic).
    pub h_init: Option<f64>,
    /// Largest step size.
    pub h_max: f64,
    /// Constant order and step without error control.
    pub fixed: Option<BdfFixed>,
    /// `algebraic[i]`: component `i` is algebraic (its derivative does not appear in `F`).
    /// Empty: every component is differential.
    pub algebraic: Vec<bool>,
    /// Leave the algebraic components out of the error test (index-2 systems).
    pub exclude_algebraic_from_error_test: bool,
    /// Consistent `y'₀` (length `n`); `None`: computed by [`Bdf::initialize`].
    pub initial_derivative: Option<Vec<f64>>,
    /// Newton iterations per attempt (DASSL: 4).
    pub max_newton_iterations: usize,
    /// Convergence threshold of `ρ/(1−ρ)·‖δ‖` (DASSL: 0.33).
    pub newton_tol: f64,
    /// The same threshold for index-2 systems (algebraic components out of the error test),
    /// where `‖δ‖` is the error-test norm with the algebraic updates weighted by their effect
    /// on the differential components (module documentation). Tighter than `newton_tol`:
    /// that norm divides by `m_err` and not by `n`, and the error test sees the converged
    /// differential components directly.
    pub index2_newton_tol: f64,
}

impl Default for BdfConfig {
    fn default() -> Self {
        Self {
            max_order: BDF_MAX_ORDER,
            h_init: None,
            h_max: f64::INFINITY,
            fixed: None,
            algebraic: Vec::new(),
            exclude_algebraic_from_error_test: false,
            initial_derivative: None,
            max_newton_iterations: 4,
            newton_tol: 0.33,
            index2_newton_tol: 0.03,
        }
    }
}

impl BdfConfig {
    /// Marks algebraic components (`true` = algebraic).
    #[must_use]
    pub fn with_algebraic(mut self, algebraic: Vec<bool>) -> Self {
        self.algebraic = algebraic;
        self
    }

    /// Marks algebraic components and leaves them out of the error test (index 2).
    #[must_use]
    pub fn with_algebraic_excluded(mut self, algebraic: Vec<bool>) -> Self {
        self.algebraic = algebraic;
        self.exclude_algebraic_from_error_test = true;
        self
    }

    /// Supplies a consistent initial derivative `y'₀`.
    #[must_use]
    pub fn with_initial_derivative(mut self, yp0: Vec<f64>) -> Self {
        self.initial_derivative = Some(yp0);
        self
    }

    /// Constant order `k` and step `h` without error control.
    #[must_use]
    pub fn fixed(mut self, order: usize, h: f64) -> Self {
        self.fixed = Some(BdfFixed { order, h });
        self
    }

    /// Sets the largest order.
    #[must_use]
    pub fn with_max_order(mut self, k: usize) -> Self {
        self.max_order = k;
        self
    }
}

/// Outcome of one corrector solve.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Corrector {
    Converged,
    Failed { iterations: usize, residual: f64 },
    Singular,
}

/// Variable-order, variable-step BDF stepper for `F(t, y, y') = 0` (see the module
/// documentation). Implements [`Advance<F>`] for every [`DaeResidual`] (finite-difference
/// iteration matrix) and for [`WithJacobian<F>`] with `F:` [`DaeJacobian`].
#[derive(Debug, Clone)]
pub struct Bdf {
    cfg: BdfConfig,
    tol: Tolerances,
    n: usize,
    t: f64,
    t_prev: f64,
    h_last: f64,
    h_next: f64,
    y: Vec<f64>,
    yp: Vec<f64>,
    yc: Vec<f64>,
    ypc: Vec<f64>,
    delta: Vec<f64>,
    e: Vec<f64>,
    /// Scratch for an error estimate mapped by [`DaeJacobian::map_error_estimate`].
    e_mapped: Vec<f64>,
    sc_newton: Vec<f64>,
    /// Index-2 Newton weights: `sc_err` on the differential components, on each algebraic
    /// component `j` the error-test norm of column `j` of the iteration matrix over the
    /// differential rows divided by `c_j` (set when the matrix is formed).
    sc_newton2: Vec<f64>,
    /// Some component is algebraic and out of the error test (an index-2 system).
    index2: bool,
    sc_err: Vec<f64>,
    m_err: usize,
    /// `φ₁ … φ₇` (index 0 unused).
    phi: Vec<Vec<f64>>,
    psi: [f64; 8],
    alpha: [f64; 8],
    beta: [f64; 8],
    gamma: [f64; 8],
    sigma: [f64; 8],
    hold: f64,
    cj: f64,
    cjold: f64,
    s: f64,
    k: usize,
    kold: usize,
    ns: usize,
    iphase: u8,
    /// −1: a new matrix is needed; 0: the matrix is fresh; 1: the matrix is old.
    jcalc: i8,
    t_stop: Option<f64>,
    initialized: bool,
    dim_checked: bool,
    mat: IterationMatrix,
    stats: Stats,
}

impl Bdf {
    /// Creates a stepper at `(t0, y0)`; allocates every workspace (history, LU storage and
    /// scratch). No residual evaluation yet.
    ///
    /// Errors: non-finite `t0`, `y0` or `y'₀`; invalid tolerances; a configuration out of
    /// range (`max_order ∉ 1..=5`, fixed order/step invalid, `h_max ≤ 0`, `newton_tol` or
    /// `index2_newton_tol ∉ (0, 1)`, `max_newton_iterations = 0`); wrong lengths of `algebraic` / `y'₀`.
    pub fn new(t0: f64, y0: &[f64], tol: Tolerances, cfg: BdfConfig) -> Result<Self, OdeError> {
        let n = y0.len();
        check_initial(t0, y0, &tol)?;
        let fixed_ok = cfg
            .fixed
            .is_none_or(|f| (1..=BDF_MAX_ORDER).contains(&f.order) && f.h > 0.0 && f.h.is_finite());
        check_params([
            (
                "max_order",
                cfg.max_order as f64,
                (1..=BDF_MAX_ORDER).contains(&cfg.max_order),
            ),
            ("h_max", cfg.h_max, cfg.h_max > 0.0),
            (
                "h_init",
                cfg.h_init.unwrap_or(1.0),
                cfg.h_init.is_none_or(|h| h > 0.0 && h.is_finite()),
            ),
            ("fixed", cfg.fixed.map_or(1.0, |f| f.h), fixed_ok),
            (
                "newton_tol",
                cfg.newton_tol,
                cfg.newton_tol > 0.0 && cfg.newton_tol < 1.0,
            ),
            (
                "index2_newton_tol",
                cfg.index2_newton_tol,
                cfg.index2_newton_tol > 0.0 && cfg.index2_newton_tol < 1.0,
            ),
            (
                "max_newton_iterations",
                cfg.max_newton_iterations as f64,
                cfg.max_newton_iterations > 0,
            ),
        ])?;
        if !cfg.algebraic.is_empty() && cfg.algebraic.len() != n {
            return Err(OdeError::DimensionMismatch {
                expected: n,
                got: cfg.algebraic.len(),
            });
        }
        initial_derivative(cfg.initial_derivative.as_deref(), n)?;
        let z = || vec![0.0; n];
        let mut phi = Vec::with_capacity(BDF_MAX_ORDER + 3);
        phi.push(Vec::new());
        for _ in 1..=BDF_MAX_ORDER + 2 {
            phi.push(z());
        }
        let index2 = cfg.exclude_algebraic_from_error_test && cfg.algebraic.iter().any(|a| *a);
        let mut s = Self {
            cfg,
            tol,
            n,
            t: t0,
            t_prev: t0,
            h_last: 0.0,
            h_next: 0.0,
            y: y0.to_vec(),
            yp: z(),
            yc: z(),
            ypc: z(),
            delta: z(),
            e: z(),
            e_mapped: z(),
            sc_newton: z(),
            sc_newton2: z(),
            index2,
            sc_err: z(),
            m_err: n,
            phi,
            psi: [0.0; 8],
            alpha: [0.0; 8],
            beta: [0.0; 8],
            gamma: [0.0; 8],
            sigma: [0.0; 8],
            hold: 0.0,
            cj: 0.0,
            cjold: 0.0,
            s: 100.0,
            k: 1,
            kold: 0,
            ns: 0,
            iphase: 0,
            jcalc: -1,
            t_stop: None,
            initialized: false,
            dim_checked: false,
            mat: IterationMatrix::new(n),
            stats: Stats::default(),
        };
        s.update_scales();
        Ok(s)
    }

    /// Current derivative `y'ₙ` (the corrector's value on the last step; `y'₀` after
    /// initialization).
    pub fn yp(&self) -> &[f64] {
        &self.yp
    }

    /// Step size proposed for the next step.
    pub fn h_next(&self) -> f64 {
        self.h_next
    }

    /// The configuration.
    pub fn config(&self) -> &BdfConfig {
        &self.cfg
    }

    /// Derivative of the interpolant of the last step at `t_out` (DASSL's `DDATRP`).
    ///
    /// Errors: as [`Stepper::dense`] (`out` of the problem's length, a finite `t_out`).
    pub fn dense_derivative(&self, t_out: f64, out: &mut [f64]) -> Result<(), OdeError> {
        crate::stepper::check_dense(self.yp.len(), t_out, out)?;
        if self.kold == 0 || self.h_last == 0.0 {
            out.copy_from_slice(&self.yp);
            return Ok(());
        }
        let temp1 = t_out - self.t;
        out.fill(0.0);
        let (mut c, mut d, mut gam) = (1.0, 0.0, temp1 / self.psi[1]);
        for j in 2..=self.kold + 1 {
            d = d * gam + c / self.psi[j - 1];
            c *= gam;
            gam = (temp1 + self.psi[j - 1]) / self.psi[j];
            for (o, p) in out.iter_mut().zip(&self.phi[j]) {
                *o += d * p;
            }
        }
        crate::problem::check_finite(out, crate::error::Quantity::DenseOutput)
    }

    /// Consistent initialization at `t₀` (also done by the first [`Advance::step`]):
    /// uses the given `y'₀`, or solves `F(t₀, y₀, y'₀) = 0` for the differential `y'ᵢ` and the
    /// algebraic `yᵢ` (see the module documentation); then chooses `h₀` and sets up the
    /// history `φ₁ = y₀`, `φ₂ = h₀ y'₀`.
    ///
    /// Errors: [`OdeError::DimensionMismatch`] when `F` has another dimension;
    /// [`OdeError::SingularIterationMatrix`] / [`OdeError::NoConvergence`] when `y'₀` cannot
    /// be computed.
    pub fn initialize<F: DaeResidual + ?Sized>(&mut self, f: &mut F) -> Result<(), OdeError> {
        self.init_impl(&mut Fd(f))
    }

    /// Starts from known past values at constant step `h`: `values[i] = y(t₀ − i·h)`,
    /// `i = 0 … k` (so `values[0] = y₀`), order `k = values.len() − 1`. The history becomes
    /// `φⱼ = ∇^{j−1} yₙ` (backward differences), `y'₀ ≈ Σⱼ ∇ʲy/(j h)`. Used to measure the
    /// order of the fixed-order formulas without start-up error.
    ///
    /// Errors: `k ∉ 1..=max_order`, wrong lengths, non-finite values or `h`.
    pub fn start_with_history(&mut self, h: f64, values: &[&[f64]]) -> Result<(), OdeError> {
        let k = values.len().saturating_sub(1);
        if !(1..=self.max_order()).contains(&k) {
            return Err(OdeError::InvalidParameter {
                name: "history length",
                value: values.len() as f64,
            });
        }
        if !(h > 0.0 && h.is_finite()) {
            return Err(OdeError::InvalidParameter {
                name: "h",
                value: h,
            });
        }
        for v in values {
            if v.len() != self.n {
                return Err(OdeError::DimensionMismatch {
                    expected: self.n,
                    got: v.len(),
                });
            }
            check_finite(v, Quantity::InitialState)?;
        }
        // Backward differences ∇^{j−1} y₀, j = 1 … k+1: column-wise difference table.
        for i in 0..self.n {
            let mut d = [0.0; BDF_MAX_ORDER + 1];
            for (m, v) in values.iter().enumerate() {
                d[m] = v[i];
            }
            for j in 0..=k {
                self.phi[j + 1][i] = d[0];
                for m in 0..k - j {
                    d[m] -= d[m + 1];
                }
            }
            let mut yp = 0.0;
            for j in 1..=k {
                yp += self.phi[j + 1][i] / j as f64;
            }
            self.yp[i] = yp / h;
        }
        self.y.copy_from_slice(values[0]);
        for i in 1..=k + 1 {
            self.psi[i] = i as f64 * h;
        }
        self.k = k;
        self.kold = k;
        self.hold = h;
        self.h_next = h;
        self.h_last = 0.0;
        self.ns = 0;
        self.iphase = 1;
        self.jcalc = -1;
        self.cj = 0.0;
        self.cjold = 1.0;
        self.s = 100.0;
        self.initialized = true;
        self.update_scales();
        Ok(())
    }

    /// Restarts at `(t, y)` with a given consistent derivative `y'` (history dropped,
    /// statistics kept) — for index-2 systems, whose `y'` cannot be computed.
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
        self.reset_to(t, y)?;
        self.cfg.initial_derivative = Some(yp.to_vec());
        Ok(())
    }

    fn max_order(&self) -> usize {
        self.cfg.fixed.map_or(self.cfg.max_order, |f| f.order)
    }

    fn is_algebraic(&self, i: usize) -> bool {
        self.cfg.algebraic.get(i).copied().unwrap_or(false)
    }

    /// Tolerance scales from the current `y`.
    fn update_scales(&mut self) {
        newton_scales(&self.tol, &self.y, &mut self.sc_newton);
        self.tol
            .inverse_scales_in(self.y.iter().map(|v| v.abs()), &mut self.sc_err);
        if self.cfg.exclude_algebraic_from_error_test {
            for i in 0..self.n {
                if self.is_algebraic(i) {
                    self.sc_err[i] = 0.0;
                }
            }
        }
        self.m_err = self.sc_err.iter().filter(|s| **s > 0.0).count().max(1);
    }

    fn norm_err(&self, v: &[f64]) -> f64 {
        self.tol.norm_scaled_in(v, &self.sc_err, self.m_err)
    }

    /// The error-test norm of `self.e` (`of_delta = false`) or `self.delta` after the
    /// problem's [`DaeJacobian::map_error_estimate`] at the corrector of a step `h` to `t`
    /// (the plain norm when the problem maps nothing).
    fn norm_err_mapped<S: Source + ?Sized>(
        &mut self,
        f: &mut S,
        t: f64,
        h: f64,
        of_delta: bool,
    ) -> f64 {
        let src = if of_delta { &self.delta } else { &self.e };
        self.e_mapped.copy_from_slice(src);
        if f.map_error_estimate(t, h, &self.yc, &mut self.e_mapped) {
            self.norm_err(&self.e_mapped)
        } else if of_delta {
            self.norm_err(&self.delta)
        } else {
            self.norm_err(&self.e)
        }
    }

    fn norm_newton(&self, v: &[f64]) -> f64 {
        self.tol.norm_scaled_in(v, &self.sc_newton, self.n)
    }

    /// The index-2 Newton norm: the error-test norm (`m_err` components) with the algebraic
    /// updates weighted by their effect on the differential components ([`Bdf::sc_newton2`]).
    fn norm_newton2(&self, v: &[f64]) -> f64 {
        self.tol.norm_scaled_in(v, &self.sc_newton2, self.m_err)
    }

    /// Weights of [`Bdf::norm_newton2`] from the iteration matrix `G` (not yet factored)
    /// formed at `c_j`. A Newton update `δμⱼ` of an algebraic component changes the residual
    /// of differential row `i` by `Gᵢⱼ δμⱼ`; in the semi-explicit form `y'ᵢ − fᵢ(y, μ) = 0`
    /// that row's own derivative enters `G` as `c_j`, so the update moves `yᵢ` by about
    /// `Gᵢⱼ δμⱼ / c_j`. The weight of `μⱼ` is the error-test norm of that column
    /// (Brenan, Campbell & Petzold §5.2.2 measure convergence in the error-test norm;
    /// Hairer & Wanner VII.8 measure index-2 variables through their effect).
    fn set_newton2_weights(&mut self) {
        let cj = self.cj.abs().max(f64::MIN_POSITIVE);
        for j in 0..self.n {
            if !self.is_algebraic(j) {
                continue;
            }
            let col = (0..self.n)
                .filter(|i| !self.is_algebraic(*i))
                .map(|i| self.mat.lu[(i, j)] * self.sc_err[i] / cj);
            self.sc_newton2[j] = crate::norm::norm_of(self.tol.norm, col, 1);
        }
    }

    /// Copies the differential error-test weights into [`Bdf::sc_newton2`].
    fn refresh_newton2_differential(&mut self) {
        for i in 0..self.n {
            if !self.is_algebraic(i) {
                self.sc_newton2[i] = self.sc_err[i];
            }
        }
    }

    fn reset_to(&mut self, t: f64, y: &[f64]) -> Result<(), OdeError> {
        let clock = (&mut self.t, &mut self.t_prev, &mut self.h_last);
        crate::stepper::restart_state(clock, &mut self.y, t, y)?;
        self.kold = 0;
        self.k = 1;
        self.initialized = false;
        self.update_scales();
        Ok(())
    }

    fn init_impl<S: Source + ?Sized>(&mut self, f: &mut S) -> Result<(), OdeError> {
        check_dim_once(f, self.n, &mut self.dim_checked)?;
        match self.cfg.initial_derivative.as_ref() {
            Some(yp0) => self.yp.copy_from_slice(yp0),
            None => self.consistent_derivative(f)?,
        }
        self.update_scales();
        let h0 = if let Some(fx) = self.cfg.fixed {
            fx.h
        } else if let Some(h) = self.cfg.h_init {
            h
        } else {
            // DASSL: h₀ = min(0.001·|t_out − t₀|, 0.5/‖y'₀‖).
            let mut h0 = match self.t_stop {
                Some(ts) if ts > self.t => 0.001 * (ts - self.t),
                _ => 1e-3 * self.t.abs().max(1.0),
            };
            let ypn = self.norm_err(&self.yp);
            if ypn > 0.5 / h0 {
                h0 = 0.5 / ypn;
            }
            h0
        }
        .min(self.cfg.h_max);
        self.h_next = h0;
        self.phi[1].copy_from_slice(&self.y);
        for i in 0..self.n {
            self.phi[2][i] = h0 * self.yp[i];
        }
        self.psi[1] = h0;
        self.cj = 1.0 / h0;
        self.cjold = self.cj;
        self.s = 100.0;
        self.k = 1;
        self.kold = 0;
        self.hold = 0.0;
        self.ns = 0;
        self.iphase = 0;
        self.jcalc = -1;
        self.initialized = true;
        Ok(())
    }

    /// Newton on `F(t₀, y₀, y'₀) = 0` for `uᵢ = y'ᵢ` (differential) / `yᵢ` (algebraic),
    /// finite-difference Jacobian recomputed every iteration, at most 10 iterations,
    /// converged when `max |Δuᵢ|/(1 + |uᵢ|) ≤ 10⁻¹⁰`.
    fn consistent_derivative<S: Source + ?Sized>(&mut self, f: &mut S) -> Result<(), OdeError> {
        let n = self.n;
        let t = self.t;
        for i in 0..n {
            self.yp[i] = 0.0;
        }
        let squr = f64::EPSILON.sqrt();
        let mut last = f64::INFINITY;
        for _ in 0..10 {
            eval_res(f, &mut self.stats, t, &self.y, &self.yp, &mut self.delta)?;
            check_finite(&self.delta, Quantity::Derivative)?;
            self.stats.jacobian_evals += 1;
            for j in 0..n {
                let alg = self.is_algebraic(j);
                let u = if alg { self.y[j] } else { self.yp[j] };
                let del = (u + squr * u.abs().max(1.0)) - u;
                if alg {
                    self.y[j] += del;
                } else {
                    self.yp[j] += del;
                }
                let r = eval_res(f, &mut self.stats, t, &self.y, &self.yp, &mut self.e);
                if alg {
                    self.y[j] = u;
                } else {
                    self.yp[j] = u;
                }
                r?;
                for i in 0..n {
                    self.mat.lu[(i, j)] = (self.e[i] - self.delta[i]) / del;
                }
            }
            if !self.mat.factor(&mut self.stats) {
                return Err(OdeError::SingularIterationMatrix { t });
            }
            self.mat.solve_in_place(&mut self.delta);
            self.stats.newton_iterations += 1;
            let mut change: f64 = 0.0;
            for j in 0..n {
                let u = if self.is_algebraic(j) {
                    &mut self.y[j]
                } else {
                    &mut self.yp[j]
                };
                *u -= self.delta[j];
                change = change.max(self.delta[j].abs() / (1.0 + u.abs()));
            }
            last = change;
            if !change.is_finite() {
                break;
            }
            if change <= 1e-10 {
                return Ok(());
            }
        }
        if last <= 1e-8 {
            return Ok(());
        }
        Err(OdeError::NoConvergence {
            t,
            iterations: 10,
            residual: last,
        })
    }

    /// `δ = F(t, y_c, y'_c)` at the current corrector iterate (counted); `false` when some
    /// component is not finite.
    fn corrector_residual<S: Source + ?Sized>(
        &mut self,
        f: &mut S,
        t: f64,
    ) -> Result<bool, OdeError> {
        eval_res(f, &mut self.stats, t, &self.yc, &self.ypc, &mut self.delta)?;
        Ok(self.delta.iter().all(|v| v.is_finite()))
    }

    /// Predictor and Newton corrector at `t_new` (DASSL `DDASTP` block 3).
    fn corrector<S: Source + ?Sized>(
        &mut self,
        f: &mut S,
        t_new: f64,
        h: f64,
        kp1: usize,
    ) -> Result<Corrector, OdeError> {
        let n = self.n;
        loop {
            // Predict: y⁽⁰⁾ = Σ φ*ⱼ, y'⁽⁰⁾ = Σ γⱼ φ*ⱼ — Huang (5.2.13) generalised.
            self.yc.copy_from_slice(&self.phi[1]);
            self.ypc.fill(0.0);
            for j in 2..=kp1 {
                let g = self.gamma[j];
                for i in 0..n {
                    self.yc[i] += self.phi[j][i];
                    self.ypc[i] += g * self.phi[j][i];
                }
            }
            let index2 = self.index2;
            if index2 {
                self.refresh_newton2_differential();
            }
            let finite = self.corrector_residual(f, t_new)?;
            if self.jcalc == -1 {
                if !finite {
                    return Ok(Corrector::Failed {
                        iterations: 0,
                        residual: f64::NAN,
                    });
                }
                self.mat.compute(
                    f,
                    &mut self.stats,
                    t_new,
                    &mut self.yc,
                    &mut self.ypc,
                    self.cj,
                    h,
                    &self.delta,
                    &self.sc_newton,
                    0.0,
                )?;
                if index2 {
                    self.set_newton2_weights();
                }
                self.jcalc = 0;
                self.cjold = self.cj;
                self.s = 100.0;
                // a problem with its own (e.g. least-norm) solve factors `G` itself
                if !self.mat.factor(&mut self.stats) && !f.owns_solve() {
                    return Ok(Corrector::Singular);
                }
            }
            self.e.fill(0.0);
            let mut m = 0usize;
            let mut oldnrm = 0.0;
            let (pnorm, newton_tol) = if index2 {
                (self.norm_newton2(&self.yc), self.cfg.index2_newton_tol)
            } else {
                (self.norm_newton(&self.yc), self.cfg.newton_tol)
            };
            let mut delnrm;
            let converged = loop {
                let damp = 2.0 / (1.0 + self.cj / self.cjold);
                for d in self.delta.iter_mut() {
                    *d *= damp;
                }
                if !(f.owns_solve() && f.solve_iteration(&mut self.delta)) {
                    if !self.mat.ok {
                        return Ok(Corrector::Singular);
                    }
                    self.mat.solve_in_place(&mut self.delta);
                }
                self.stats.newton_iterations += 1;
                for i in 0..n {
                    let d = self.delta[i];
                    self.yc[i] -= d;
                    self.e[i] -= d;
                    self.ypc[i] -= self.cj * d;
                }
                // DASSL's test (Brenan, Campbell & Petzold §5.2.2): `ρ/(1−ρ)·‖δ‖ ≤ tol`, `ρ`
                // the observed rate, divergence when `ρ > 0.9`. Index 2: in the
                // error-test norm with the multipliers weighted through the iteration
                // matrix — with their own absolute scale the updates of `μ ≈ 0`, at an
                // `O(u/h)` round-off floor, stalled the test (GGL on Andrews' squeezer at
                // τ = 1e-8: 802 Jacobians for 1,195 steps).
                delnrm = if index2 {
                    // a problem may measure its update itself (e.g. the multipliers through
                    // their effect on the differential components)
                    self.e_mapped.copy_from_slice(&self.delta);
                    if f.map_newton_update(&mut self.e_mapped) {
                        self.norm_err(&self.e_mapped)
                    } else {
                        self.norm_newton2(&self.delta)
                    }
                } else {
                    self.norm_newton(&self.delta)
                };
                if !delnrm.is_finite() {
                    break false;
                }
                if delnrm <= 100.0 * f64::EPSILON * pnorm {
                    break true;
                }
                if m == 0 {
                    oldnrm = delnrm;
                } else {
                    let rate = (delnrm / oldnrm).powf(1.0 / m as f64);
                    if rate > 0.9 {
                        break false;
                    }
                    self.s = rate / (1.0 - rate);
                }
                if self.s * delnrm <= newton_tol {
                    break true;
                }
                m += 1;
                if m >= self.cfg.max_newton_iterations {
                    break false;
                }
                if !self.corrector_residual(f, t_new)? {
                    delnrm = f64::NAN;
                    break false;
                }
            };
            if converged {
                self.jcalc = 1;
                return Ok(Corrector::Converged);
            }
            self.stats.newton_failures += 1;
            if self.jcalc == 0 {
                return Ok(Corrector::Failed {
                    iterations: m + 1,
                    residual: delnrm,
                });
            }
            // The matrix was old: recompute it and retry the same step.
            self.jcalc = -1;
        }
    }

    fn step_impl<S: Source + ?Sized>(&mut self, f: &mut S) -> Result<StepInfo, OdeError> {
        if !self.initialized {
            self.init_impl(f)?;
        }
        check_dim_once(f, self.n, &mut self.dim_checked)?;
        let n = self.n;
        let maxord = self.max_order();
        let fixed = self.cfg.fixed.is_some();
        let mut rejected = 0usize;
        let (mut netf, mut ncf, mut nsf) = (0usize, 0usize, 0usize);
        loop {
            let h_prop = self.cfg.fixed.map_or(self.h_next, |fx| fx.h);
            let (h, hits_stop) = clamp_step(self.t, h_prop, self.cfg.h_max, self.t_stop, 4.0)?;
            if self.kold == 0 && h != self.psi[1] {
                // First step: φ₂ = h·y'₀ follows the step size.
                let r = h / self.psi[1];
                for v in self.phi[2].iter_mut() {
                    *v *= r;
                }
                self.psi[1] = h;
            }
            let k = self.k;
            let (kp1, kp2) = (k + 1, k + 2);

            // Block 2: coefficients of the formulas for this step.
            if h != self.hold || k != self.kold {
                self.ns = 0;
            }
            self.ns = (self.ns + 1).min(self.kold + 2);
            let nsp1 = self.ns + 1;
            if kp1 >= self.ns {
                self.beta[1] = 1.0;
                self.alpha[1] = 1.0;
                let mut temp1 = h;
                self.gamma[1] = 0.0;
                self.sigma[1] = 1.0;
                for i in 2..=kp1 {
                    let temp2 = self.psi[i - 1];
                    self.psi[i - 1] = temp1;
                    self.beta[i] = self.beta[i - 1] * self.psi[i - 1] / temp2;
                    temp1 = temp2 + h;
                    self.alpha[i] = h / temp1;
                    self.sigma[i] = (i - 1) as f64 * self.sigma[i - 1] * self.alpha[i];
                    self.gamma[i] = self.gamma[i - 1] + self.alpha[i - 1] / h;
                }
                self.psi[kp1] = temp1;
            }
            let (mut alphas, mut alpha0) = (0.0, 0.0);
            for i in 1..=k {
                alphas -= 1.0 / i as f64;
                alpha0 -= self.alpha[i];
            }
            let cjlast = self.cj;
            self.cj = -alphas / h;
            let ck = (self.alpha[kp1] + alphas - alpha0)
                .abs()
                .max(self.alpha[kp1]);
            let ratio = self.cj / self.cjold;
            if !(0.6..=1.0 / 0.6).contains(&ratio) {
                self.jcalc = -1;
            }
            if self.cj != cjlast {
                self.s = 100.0;
            }
            if kp1 >= nsp1 {
                for j in nsp1..=kp1 {
                    let b = self.beta[j];
                    for v in self.phi[j].iter_mut() {
                        *v *= b;
                    }
                }
            }
            let t_new = if hits_stop {
                self.t_stop.unwrap_or(self.t + h)
            } else {
                self.t + h
            };

            // Block 3: predictor and corrector.
            let corr = self.corrector(f, t_new, h, kp1)?;

            // Block 4: error estimates at orders k, k−1, k−2.
            let (mut knew, mut est, mut erkm1, mut terkm1, mut terk) = (k, 0.0, 0.0, 0.0, 0.0);
            let mut accepted = false;
            if corr == Corrector::Converged {
                let enorm = self.norm_err_mapped(f, t_new, h, false);
                let erk = self.sigma[k + 1] * enorm;
                terk = (k + 1) as f64 * erk;
                est = erk;
                if k > 1 {
                    for i in 0..n {
                        self.delta[i] = self.phi[kp1][i] + self.e[i];
                    }
                    erkm1 = self.sigma[k] * self.norm_err_mapped(f, t_new, h, true);
                    terkm1 = k as f64 * erkm1;
                    let lower = if k > 2 {
                        for i in 0..n {
                            self.delta[i] += self.phi[k][i];
                        }
                        let erkm2 = self.sigma[k - 1] * self.norm_err_mapped(f, t_new, h, true);
                        let terkm2 = (k - 1) as f64 * erkm2;
                        lowers_order(k, terkm2, terkm1, terk)
                    } else {
                        lowers_order(k, f64::NAN, terkm1, terk)
                    };
                    if lower {
                        knew = k - 1;
                        est = erkm1;
                    }
                }
                let err = if fixed { 0.0 } else { ck * enorm };
                accepted = err <= 1.0;
            }

            if accepted {
                // Block 5: successful step; order and step for the next one.
                let kdiff = k as isize - self.kold as isize;
                self.kold = k;
                self.hold = h;
                let mut hnew = h;
                if fixed {
                    if k < maxord {
                        self.k = k + 1;
                    }
                } else {
                    if knew + 1 == k || k == maxord {
                        self.iphase = 1;
                    }
                    if self.iphase == 0 {
                        self.k = kp1;
                        hnew = 2.0 * h;
                    } else {
                        let mut knext = k;
                        if knew + 1 == k {
                            knext = k - 1;
                            est = erkm1;
                        } else if k != maxord && kp1 < self.ns && kdiff != 1 {
                            for i in 0..n {
                                self.delta[i] = self.e[i] - self.phi[kp2][i];
                            }
                            let terkp1 = self.norm_err_mapped(f, t_new, h, true);
                            let erkp1 = terkp1 / (k + 2) as f64;
                            if k == 1 {
                                if terkp1 < 0.5 * terk {
                                    knext = kp1;
                                    est = erkp1;
                                }
                            } else if terkm1 <= terk.min(terkp1) {
                                knext = k - 1;
                                est = erkm1;
                            } else if terkp1 < terk {
                                knext = kp1;
                                est = erkp1;
                            }
                        }
                        self.k = knext;
                        let r = (2.0 * est + 1e-4).powf(-1.0 / (knext + 1) as f64);
                        if r >= 2.0 {
                            hnew = 2.0 * h;
                        } else if r <= 1.0 {
                            hnew = h * r.clamp(0.5, 0.9);
                        }
                    }
                }
                // Update the differences for the next step.
                if self.kold != BDF_MAX_ORDER {
                    self.phi[kp2].copy_from_slice(&self.e);
                }
                for (p, e) in self.phi[kp1].iter_mut().zip(&self.e) {
                    *p += e;
                }
                for j in (1..kp1).rev() {
                    let (lo, hi) = self.phi.split_at_mut(j + 1);
                    for (a, b) in lo[j].iter_mut().zip(&hi[0]) {
                        *a += b;
                    }
                }
                self.h_next = hnew;
                self.t_prev = self.t;
                self.t = t_new;
                self.h_last = h;
                std::mem::swap(&mut self.y, &mut self.yc);
                std::mem::swap(&mut self.yp, &mut self.ypc);
                self.update_scales();
                self.stats.steps += 1;
                return Ok(StepInfo {
                    t_prev: self.t_prev,
                    t: self.t,
                    h,
                    order: k,
                    rejected,
                });
            }

            // Block 6: unsuccessful step; restore φ and ψ, choose a smaller step.
            self.iphase = 1;
            if kp1 >= nsp1 {
                for j in nsp1..=kp1 {
                    let b = 1.0 / self.beta[j];
                    for v in self.phi[j].iter_mut() {
                        *v *= b;
                    }
                }
            }
            for i in 2..=kp1 {
                self.psi[i - 1] = self.psi[i] - h;
            }
            rejected += 1;
            self.stats.rejected_steps += 1;
            let r = match corr {
                Corrector::Converged => {
                    netf += 1;
                    if netf == 1 {
                        self.k = knew;
                        (0.9 * (2.0 * est + 1e-4).powf(-1.0 / (knew + 1) as f64)).clamp(0.25, 0.9)
                    } else if netf == 2 {
                        self.k = knew;
                        0.25
                    } else {
                        self.k = 1;
                        0.25
                    }
                }
                Corrector::Failed {
                    iterations,
                    residual,
                } => {
                    ncf += 1;
                    if fixed || ncf >= 10 {
                        return Err(OdeError::NoConvergence {
                            t: self.t,
                            iterations,
                            residual,
                        });
                    }
                    0.25
                }
                Corrector::Singular => {
                    nsf += 1;
                    if fixed || nsf >= 3 {
                        return Err(OdeError::SingularIterationMatrix { t: t_new });
                    }
                    0.25
                }
            };
            self.h_next = h * r;
        }
    }
}

impl Stepper for Bdf {
    stepper_state!(t, y, t_prev, h_last);
    fn order(&self) -> usize {
        self.kold
    }

    /// DASSL's `DDATRP`: the interpolating polynomial of order `kold` through the last
    /// `kold + 1` points, `y(t) = Σⱼ cⱼ(t) φⱼ` with `c₁ = 1`,
    /// `cⱼ₊₁ = cⱼ·(t − tₙ + ψⱼ₋₁)/ψⱼ`.
    fn dense(&self, t_out: f64, out: &mut [f64]) -> Result<(), OdeError> {
        crate::stepper::check_dense(self.dim(), t_out, out)?;
        if self.kold == 0 || self.h_last == 0.0 {
            out.copy_from_slice(&self.y);
            return Ok(());
        }
        let temp1 = t_out - self.t;
        out.copy_from_slice(&self.phi[1]);
        let mut c = 1.0;
        let mut gam = temp1 / self.psi[1];
        for j in 2..=self.kold + 1 {
            c *= gam;
            gam = (temp1 + self.psi[j - 1]) / self.psi[j];
            for (o, p) in out.iter_mut().zip(&self.phi[j]) {
                *o += c * p;
            }
        }
        crate::problem::check_finite(out, crate::error::Quantity::DenseOutput)
    }

    stepper_bookkeeping!(h_max);
}

fn replace_common(s: &mut Bdf, y: &[f64]) -> Result<(), OdeError> {
    crate::stepper::check_replacement(s.n, y)?;
    if s.initialized {
        for i in 0..s.n {
            s.phi[1][i] += y[i] - s.y[i];
        }
    }
    s.y.copy_from_slice(y);
    s.update_scales();
    Ok(())
}

impl<F: DaeResidual + ?Sized> Advance<F> for Bdf {
    fn step(&mut self, f: &mut F) -> Result<StepInfo, OdeError> {
        self.step_impl(&mut Fd(f))
    }

    /// `yₙ ← ỹ`, `φ₁ += ỹ − yₙ` (the history polynomial is shifted; `y'ₙ` and the higher
    /// differences are kept). No residual evaluation.
    fn replace_y(&mut self, _f: &mut F, y: &[f64]) -> Result<(), OdeError> {
        replace_common(self, y)
    }

    /// Drops the history and re-initializes at `(t, y)`; `y'` is recomputed by the
    /// consistent initialization (use [`Bdf::restart_with_derivative`] for index 2).
    fn restart(&mut self, f: &mut F, t: f64, y: &[f64]) -> Result<(), OdeError> {
        self.reset_to(t, y)?;
        self.cfg.initial_derivative = None;
        self.init_impl(&mut Fd(f))
    }
}

impl<F: DaeJacobian> Advance<WithJacobian<F>> for Bdf {
    fn step(&mut self, f: &mut WithJacobian<F>) -> Result<StepInfo, OdeError> {
        self.step_impl(f)
    }
    fn replace_y(&mut self, _f: &mut WithJacobian<F>, y: &[f64]) -> Result<(), OdeError> {
        replace_common(self, y)
    }
    fn restart(&mut self, f: &mut WithJacobian<F>, t: f64, y: &[f64]) -> Result<(), OdeError> {
        self.reset_to(t, y)?;
        self.cfg.initial_derivative = None;
        self.init_impl(f)
    }
}

/// DASSL's test for lowering the order after a converged corrector at order `k ≥ 2`
/// (DDASTP, from the terms `T(j) = (j+1)·σ(j+1)·‖·‖` of the error estimates at orders
/// `k − 2 … k`): at `k > 2` when neither lower-order term exceeds `T(k)`; at `k = 2` (no
/// `T(k−2)`) only when `T(k−1) ≤ T(k)/2`, so that order 1 is taken only where it is clearly
/// more accurate.
fn lowers_order(k: usize, terkm2: f64, terkm1: f64, terk: f64) -> bool {
    if k > 2 {
        terkm1.max(terkm2) <= terk
    } else {
        terkm1 <= 0.5 * terk
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::{integrate, integrate_to, DriverOptions};
    use crate::problem::{FnRhs, OdeAsDae};
    use crate::test_models::{ExactSolution, ExponentialDecay, HarmonicOscillator};

    /// Variable-order BDF on the oscillator meets its tolerance; the dense output matches
    /// the step ends; the consistent y'₀ equals f(t₀, y₀).
    #[test]
    fn oscillator_with_tolerance() {
        let p = HarmonicOscillator { omega: 1.0 };
        let mut f = OdeAsDae::new(p);
        let mut s = Bdf::new(
            0.0,
            &p.y0(),
            Tolerances::new(1e-8, 1e-8),
            BdfConfig::default(),
        )
        .unwrap();
        s.initialize(&mut f).unwrap();
        assert!((s.yp()[0] - 0.0).abs() < 1e-12 && (s.yp()[1] + 1.0).abs() < 1e-9);
        let sol = integrate(
            &mut s,
            &mut f,
            10.0,
            &[5.0, 10.0],
            &mut [],
            &DriverOptions::default(),
        )
        .unwrap();
        let mut ex = [0.0; 2];
        p.exact(10.0, &mut ex);
        let err = crate::test_models::max_abs_diff(&sol.y[1], &ex);
        assert!(err < 1e-5, "error {err:e}, stats {:?}", sol.stats);
        assert!(
            sol.stats.steps > 50 && sol.stats.steps < 2000,
            "{:?}",
            sol.stats
        );
        let mut buf = [0.0; 2];
        s.dense(s.t(), &mut buf).unwrap();
        assert!(crate::test_models::max_abs_diff(&buf, s.y()) < 1e-14);
    }

    /// Fixed order k with exact history at constant step: order k on y' = −y.
    #[test]
    fn fixed_order_with_history() {
        for k in 1..=5 {
            let run = |nsteps: usize| {
                let p = ExponentialDecay { lambda: 1.0 };
                let h = 2.0 / nsteps as f64;
                let mut f = OdeAsDae::new(p);
                let cfg = BdfConfig::default().fixed(k, h);
                let mut s = Bdf::new(0.0, &[1.0], Tolerances::new(1e-13, 1e-13), cfg).unwrap();
                let hist: Vec<Vec<f64>> = (0..=k).map(|i| vec![(i as f64 * h).exp()]).collect();
                let refs: Vec<&[f64]> = hist.iter().map(|v| v.as_slice()).collect();
                s.start_with_history(h, &refs).unwrap();
                let sol = integrate_to(&mut s, &mut f, 2.0).unwrap();
                (sol.y[0][0] - (-2.0f64).exp()).abs()
            };
            let (e1, e2) = (run(40), run(80));
            let order = (e1 / e2).log2();
            assert!(
                (order - k as f64).abs() < 0.3,
                "k = {k}: {order} ({e1:e}, {e2:e})"
            );
        }
    }

    /// A stiff linear system is integrated in few steps (A-/A(α)-stability).
    #[test]
    fn stiff_linear() {
        let mut f = OdeAsDae::new(FnRhs::new(2, |_t, y: &[f64], dy: &mut [f64]| {
            dy[0] = -1e6 * (y[0] - y[1].cos());
            dy[1] = -y[1];
        }));
        let mut s = Bdf::new(
            0.0,
            &[0.0, 1.0],
            Tolerances::new(1e-6, 1e-8),
            BdfConfig::default(),
        )
        .unwrap();
        let sol = integrate_to(&mut s, &mut f, 10.0).unwrap();
        let y1 = (-10.0f64).exp();
        assert!((sol.y[0][1] - y1).abs() < 1e-5, "{:?}", sol.y);
        assert!((sol.y[0][0] - y1.cos()).abs() < 1e-4);
        assert!(sol.stats.steps < 400, "{:?}", sol.stats);
        assert!(
            sol.stats.jacobian_evals > 0 && sol.stats.factorizations >= sol.stats.jacobian_evals
        );
    }

    #[test]
    fn bad_input() {
        let tol = Tolerances::new(1e-6, 1e-6);
        assert!(Bdf::new(0.0, &[f64::NAN], tol.clone(), BdfConfig::default()).is_err());
        assert!(Bdf::new(
            0.0,
            &[1.0],
            Tolerances::new(-1.0, 1e-6),
            BdfConfig::default()
        )
        .is_err());
        assert!(Bdf::new(
            0.0,
            &[1.0],
            tol.clone(),
            BdfConfig::default().with_max_order(6)
        )
        .is_err());
        assert!(Bdf::new(
            0.0,
            &[1.0],
            tol.clone(),
            BdfConfig::default().with_algebraic(vec![true, false])
        )
        .is_err());
        assert!(Bdf::new(
            0.0,
            &[1.0],
            tol,
            BdfConfig::default().with_initial_derivative(vec![f64::INFINITY])
        )
        .is_err());
    }

    /// The order-lowering rule is DASSL's (DDASTP): at k = 2 order 1 only when its error term
    /// is at most half of order 2's; above, when both lower terms are at most the current one.
    #[test]
    fn order_lowering_follows_dassl() {
        assert!(lowers_order(2, f64::NAN, 0.5, 1.0));
        assert!(!lowers_order(2, f64::NAN, 0.55, 1.0));
        assert!(!lowers_order(2, f64::NAN, 0.9, 1.0));
        assert!(lowers_order(3, 0.9, 1.0, 1.0));
        assert!(!lowers_order(3, 1.1, 0.5, 1.0));
        assert!(!lowers_order(5, 0.5, 1.1, 1.0));
    }
}
