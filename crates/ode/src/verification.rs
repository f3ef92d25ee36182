//! Measured orders and reference runs of the integrators, shared by the tests, the benches and
//! `contour-papers` (which turns them into the rows `ode/*` of `tables/ode.md`).
//!
//! * Orders: `log₂(e(h)/e(h/2))` of the global error at the final time for the two finest
//!   constant steps of a halving sequence, on the harmonic oscillator `ω = 1` over `[0, 10]`
//!   (for ABM at fixed order `k` with constant step; the start-up runs under a tolerance of
//!   1e-13, see [`crate::AbmStep::Fixed`]). For ABM at order `k` (Adams–Bashforth predictor of
//!   order `k`, corrector of order `k + 1` with local extrapolation) the theoretical global
//!   order is `k + 1`. The implicit methods run on the oscillator through [`OdeAsDae`]: BDF at
//!   fixed order `k` from exact past values (theory `k`), Huang's BDF2 started by backward
//!   Euler (theory 2), the singly-implicit RK (theory 3).
//! * Kepler, `e = 0.5`, three periods, `rtol = atol = tol`, error = max-norm error of `(q, p)`
//!   at `t = 6π`.
//! * The variable-order BDF on Van der Pol `μ = 1000` over `[0, 3000]` and Robertson over
//!   `[0, 10⁵]`, with reference solutions [`VDP1000_REFERENCE`] / [`ROBERTSON_REFERENCE`].
//! * [`Index1Dae`] on `[0, 10]` (inconsistent algebraic start repaired by the consistent
//!   initialization) and [`PendulumGgl`] (θ₀ = 1 rad, `[0, 10]`, `λ, μ` out of the error test).

use crate::adams_bashforth_moulton::{AbmConfig, AbmOrder, AbmStep, AdamsBashforthMoulton};
use crate::bdf::{Bdf, BdfConfig};
use crate::bdf_huang::{HuangBdf2, HuangBdf2Config, HuangStart};
use crate::dormand_prince::{DormandPrince54, DormandPrinceConfig};
use crate::driver::{integrate, integrate_to, DriverOptions};
use crate::error::OdeError;
use crate::norm::Tolerances;
use crate::problem::OdeAsDae;
use crate::runge_kutta_gill::{GillMode, RungeKuttaGill, RungeKuttaGillConfig};
use crate::sirk::{SinglyImplicitRk, SirkConfig};
use crate::stats::Stats;
use crate::stepper::Advance;
use crate::test_models::{max_abs_diff, ExactSolution, HarmonicOscillator, Kepler};
use crate::test_models::{Index1Dae, PendulumGgl, Robertson, VanDerPol};

/// Errors of a halving sequence and the observed order of its last two.
pub type OrderResult = Result<(Vec<f64>, f64), OdeError>;

/// The oscillator `ω = 1` of every order measurement.
const OSCILLATOR: HarmonicOscillator = HarmonicOscillator { omega: 1.0 };

/// `exact(t_end)` of `problem`.
fn exact_at<P: ExactSolution>(problem: &P, t_end: f64) -> Vec<f64> {
    let mut exact = vec![0.0; problem.dim()];
    problem.exact(t_end, &mut exact);
    exact
}

/// Runs `stepper` on `f` to `t_end`: (max-norm distance to `exact`, stats).
fn error_at<S: Advance<F>, F>(
    stepper: &mut S,
    f: &mut F,
    exact: &[f64],
    t_end: f64,
) -> Result<(f64, Stats), OdeError> {
    let sol = integrate_to(stepper, f, t_end)?;
    Ok((max_abs_diff(&sol.y[0], exact), sol.stats))
}

/// Runs `stepper` on `problem` to `t_end` and returns (max-norm global error, stats).
pub fn global_error<S: Advance<P>, P: ExactSolution>(
    stepper: &mut S,
    problem: &mut P,
    t_end: f64,
) -> Result<(f64, Stats), OdeError> {
    let exact = exact_at(problem, t_end);
    error_at(stepper, problem, &exact, t_end)
}

/// Runs an implicit `stepper` on `OdeAsDae(problem)` to `t_end`: (max-norm error, stats).
pub fn dae_global_error<S: Advance<OdeAsDae<P>>, P: ExactSolution + Clone>(
    stepper: &mut S,
    problem: &P,
    t_end: f64,
) -> Result<(f64, Stats), OdeError> {
    let exact = exact_at(problem, t_end);
    error_at(stepper, &mut OdeAsDae::new(problem.clone()), &exact, t_end)
}

/// `log₂(e₀/e₁)` of the last two errors of a halving sequence.
pub fn observed_order(errors: &[f64]) -> f64 {
    let m = errors.len();
    (errors[m - 2] / errors[m - 1]).log2()
}

/// The errors and observed order of the steppers `make(t0, y0, Tolerances(tol, tol), h)` on
/// the oscillator over `[0, 10]` with the constant steps `h = 10/nᵢ`, each run by `run`
/// ([`explicit`] or [`implicit`]). `tol` serves only start-ups and the Newton test.
fn oscillator_order<S>(
    ns: &[usize],
    tol: f64,
    make: impl Fn(f64, &[f64], Tolerances, f64) -> Result<S, OdeError>,
    run: impl Fn(&mut S, HarmonicOscillator, f64) -> Result<(f64, Stats), OdeError>,
) -> OrderResult {
    let p = OSCILLATOR;
    let errors = ns
        .iter()
        .map(|&n| {
            let h = 10.0 / n as f64;
            let mut s = make(p.t0(), &p.y0(), Tolerances::new(tol, tol), h)?;
            run(&mut s, p, 10.0).map(|r| r.0)
        })
        .collect::<Result<Vec<f64>, OdeError>>()?;
    let order = observed_order(&errors);
    Ok((errors, order))
}

/// An explicit stepper on the problem itself ([`global_error`]).
fn explicit<S: Advance<HarmonicOscillator>>(
    s: &mut S,
    mut p: HarmonicOscillator,
    t_end: f64,
) -> Result<(f64, Stats), OdeError> {
    global_error(s, &mut p, t_end)
}

/// An implicit stepper on `OdeAsDae(problem)` ([`dae_global_error`]).
fn implicit<S: Advance<OdeAsDae<HarmonicOscillator>>>(
    s: &mut S,
    p: HarmonicOscillator,
    t_end: f64,
) -> Result<(f64, Stats), OdeError> {
    dae_global_error(s, &p, t_end)
}

/// Measured order of Runge–Kutta–Gill (theory 4).
pub fn rkg_order() -> OrderResult {
    oscillator_order(
        &[25, 50, 100, 200],
        1e-6,
        |t0, y0, tol, h| {
            let mode = GillMode::Fixed { h };
            RungeKuttaGill::new(
                t0,
                y0,
                tol,
                RungeKuttaGillConfig {
                    mode,
                    ..Default::default()
                },
            )
        },
        explicit,
    )
}

/// Measured order of Dormand–Prince 5(4) in constant-step mode (theory 5).
pub fn dopri_order() -> OrderResult {
    oscillator_order(
        &[25, 50, 100, 200],
        1e-6,
        |t0, y0, tol, h| {
            let cfg = DormandPrinceConfig {
                fixed_step: Some(h),
                ..Default::default()
            };
            DormandPrince54::new(t0, y0, tol, cfg)
        },
        explicit,
    )
}

/// Step counts used for ABM at order `k` (chosen so that the errors lie well above the
/// start-up error and well inside the asymptotic range).
pub fn abm_steps(k: usize) -> [usize; 3] {
    match k {
        1 => [160, 320, 640],
        2 | 3 => [80, 160, 320],
        _ => [40, 80, 160],
    }
}

/// Measured order of ABM with fixed order `k` and constant step (theory `k + 1`).
pub fn abm_order(k: usize) -> OrderResult {
    oscillator_order(
        &abm_steps(k),
        1e-13,
        |t0, y0, tol, h| {
            let (order, step) = (AbmOrder::Fixed(k), AbmStep::Fixed { h });
            AdamsBashforthMoulton::new(
                t0,
                y0,
                tol,
                AbmConfig {
                    order,
                    step,
                    ..Default::default()
                },
            )
        },
        explicit,
    )
}

/// Step counts on `[0, 10]` used for the BDF of order `k`.
pub fn bdf_steps(k: usize) -> [usize; 3] {
    match k {
        1 => [400, 800, 1600],
        2 => [200, 400, 800],
        3 => [100, 200, 400],
        _ => [50, 100, 200],
    }
}

/// Measured order of the BDF at fixed order `k`, constant step, started from the exact
/// past values `y(−ih)`, `i = 0 … k` ([`Bdf::start_with_history`]), on the oscillator
/// through [`OdeAsDae`], tolerance 1e-13 for the Newton test (theory `k`).
pub fn bdf_order(k: usize) -> OrderResult {
    oscillator_order(
        &bdf_steps(k),
        1e-13,
        |t0, y0, tol, h| {
            let mut s = Bdf::new(t0, y0, tol, BdfConfig::default().fixed(k, h))?;
            let hist: Vec<Vec<f64>> = (0..=k)
                .map(|i| exact_at(&OSCILLATOR, -(i as f64) * h))
                .collect();
            let refs: Vec<&[f64]> = hist.iter().map(|v| v.as_slice()).collect();
            s.start_with_history(h, &refs)?;
            Ok(s)
        },
        implicit,
    )
}

/// Measured order of Huang's constant-step BDF2 (theory 2) with the given start, on the
/// oscillator over `[0, 10]`, `n = 100, 200, 400` steps, tolerance 1e-13 for the secant
/// iteration.
pub fn huang_bdf2_order(start: HuangStart) -> OrderResult {
    oscillator_order(
        &[100, 200, 400],
        1e-13,
        |t0, y0, tol, h| {
            HuangBdf2::new(
                t0,
                y0,
                tol,
                HuangBdf2Config {
                    h,
                    start,
                    ..Default::default()
                },
            )
        },
        implicit,
    )
}

/// Measured order of the singly-implicit RK (theory 3), oscillator over `[0, 10]`,
/// `n = 50, 100, 200` steps.
pub fn sirk_order() -> OrderResult {
    oscillator_order(
        &[50, 100, 200],
        1e-13,
        |t0, y0, tol, h| {
            SinglyImplicitRk::new(
                t0,
                y0,
                tol,
                SirkConfig {
                    h,
                    ..Default::default()
                },
            )
        },
        implicit,
    )
}

/// Van der Pol `μ = 1000`, `y(3000)`: the BDF at `rtol = atol = 10⁻¹³`, max order 5
/// (19 237 steps); the same at max order 4 agrees to 2·10⁻¹⁰.
pub const VDP1000_REFERENCE: [f64; 2] = [-1.510606936640263, 1.178380000937722e-3];

/// Robertson, `y(10⁵)`: the BDF at `rtol = 10⁻¹³`, `atol = 10⁻¹⁷`, max order 5 (4 788 steps);
/// the same at max order 4 agrees to 3·10⁻¹⁰ relative.
pub const ROBERTSON_REFERENCE: [f64; 3] = [
    1.786592114217948e-2,
    7.274751468469483e-8,
    9.821340061103062e-1,
];

/// Largest componentwise relative error `maxᵢ |yᵢ − refᵢ|/|refᵢ|`.
pub fn max_rel_error(y: &[f64], reference: &[f64]) -> f64 {
    y.iter()
        .zip(reference)
        .map(|(a, b)| (a - b).abs() / b.abs())
        .fold(0.0, f64::max)
}

/// The BDF on `OdeAsDae(problem)` from `t = 0` to `t_end`: (final state, stats).
fn bdf_final<P: crate::problem::OdeRhs>(
    problem: P,
    y0: &[f64],
    t_end: f64,
    rtol: f64,
    atol: f64,
    cfg: BdfConfig,
) -> Result<(Vec<f64>, Stats), OdeError> {
    let mut s = Bdf::new(0.0, y0, Tolerances::new(rtol, atol), cfg)?;
    let opts = DriverOptions::default();
    let sol = integrate(
        &mut s,
        &mut OdeAsDae::new(problem),
        t_end,
        &[t_end],
        &mut [],
        &opts,
    )?;
    Ok((sol.y[0].clone(), sol.stats))
}

/// Van der Pol `μ = 1000` on `[0, 3000]` with the BDF: (final state, stats).
pub fn vdp1000_bdf(rtol: f64, atol: f64, cfg: BdfConfig) -> Result<(Vec<f64>, Stats), OdeError> {
    let p = VanDerPol { mu: 1000.0 };
    bdf_final(p, &p.y0(), 3000.0, rtol, atol, cfg)
}

/// Robertson on `[0, 10⁵]` with the BDF: (final state, stats).
pub fn robertson_bdf(rtol: f64, atol: f64, cfg: BdfConfig) -> Result<(Vec<f64>, Stats), OdeError> {
    bdf_final(Robertson, &Robertson.y0(), 1e5, rtol, atol, cfg)
}

/// [`Index1Dae`] on `[0, 10]` with the BDF at `rtol = atol = tol`, started from the exact
/// `u(0)` and a wrong `z(0) + 0.3` (repaired by the consistent initialization):
/// (max-norm error at `t = 10`, stats).
pub fn index1_bdf(tol: f64) -> Result<(f64, Stats), OdeError> {
    let mut p = Index1Dae;
    let mut y0 = [0.0; 2];
    p.exact(0.0, &mut y0);
    y0[1] += 0.3;
    let cfg = BdfConfig::default().with_algebraic(p.algebraic());
    let mut s = Bdf::new(0.0, &y0, Tolerances::new(tol, tol), cfg)?;
    let sol = integrate_to(&mut s, &mut p, 10.0)?;
    let mut ex = [0.0; 2];
    p.exact(10.0, &mut ex);
    Ok((max_abs_diff(&sol.y[0], &ex), sol.stats))
}

/// [`PendulumGgl`] (`g = 9.81`, θ₀ = 1 rad, at rest) on `[0, 10]` with the BDF at
/// `rtol = atol = tol`, `λ, μ` out of the error test, consistent `y'₀` supplied:
/// (max `|φ(q)|` over the accepted steps, max energy drift, stats).
pub fn pendulum_ggl_bdf(tol: f64) -> Result<(f64, f64, Stats), OdeError> {
    let mut p = PendulumGgl { g: 9.81 };
    let cfg = BdfConfig::default()
        .with_algebraic_excluded(p.algebraic())
        .with_initial_derivative(p.yp0(1.0));
    let mut s = Bdf::new(0.0, &p.y0(1.0), Tolerances::new(tol, tol), cfg)?;
    let sol = integrate(
        &mut s,
        &mut p,
        10.0,
        &[],
        &mut [],
        &DriverOptions::default(),
    )?;
    let drift = sol.y.iter().map(|y| p.phi(y).abs()).fold(0.0, f64::max);
    let e0 = p.energy(&sol.y[0]);
    let de = sol
        .y
        .iter()
        .map(|y| (p.energy(y) - e0).abs())
        .fold(0.0, f64::max);
    Ok((drift, de, sol.stats))
}

/// Tolerances of the Kepler work–precision study: `10⁻³ … 10⁻¹⁰`.
pub const KEPLER_TOLS: [f64; 8] = [1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10];

/// Which method a Kepler run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeplerMethod {
    /// [`AdamsBashforthMoulton`], variable order 1–12.
    Abm,
    /// [`DormandPrince54`].
    Dopri5,
    /// [`RungeKuttaGill`] with step doubling.
    Rkg,
}

impl KeplerMethod {
    /// Identifier used in the row ids.
    pub fn id(self) -> &'static str {
        match self {
            KeplerMethod::Abm => "abm",
            KeplerMethod::Dopri5 => "dopri5",
            KeplerMethod::Rkg => "rkg",
        }
    }
}

/// One Kepler run (`e = 0.5`, three periods, `rtol = atol = tol`): (error, stats).
pub fn kepler_run(method: KeplerMethod, tol: f64) -> Result<(f64, Stats), OdeError> {
    let mut p = Kepler { e: 0.5 };
    let t_end = 3.0 * Kepler::PERIOD;
    let tols = Tolerances::new(tol, tol);
    let y0 = p.y0();
    match method {
        KeplerMethod::Abm => {
            let mut s = AdamsBashforthMoulton::new(0.0, &y0, tols, AbmConfig::default())?;
            global_error(&mut s, &mut p, t_end)
        }
        KeplerMethod::Dopri5 => {
            let mut s = DormandPrince54::new(0.0, &y0, tols, DormandPrinceConfig::default())?;
            global_error(&mut s, &mut p, t_end)
        }
        KeplerMethod::Rkg => {
            let mut s = RungeKuttaGill::new(0.0, &y0, tols, RungeKuttaGillConfig::default())?;
            global_error(&mut s, &mut p, t_end)
        }
    }
}
