//! Rows of `cargo xtask reproduce-tables` for this crate.
//!
//! * `ode/order/<method>`: (id, theoretical order, measured order). The measured order is
//!   `log₂(e(h)/e(h/2))` of the global error at the final time for the two finest constant
//!   steps of a halving sequence, on the harmonic oscillator `ω = 1` over `[0, 10]` (for ABM
//!   at fixed order `k` with constant step; the
//!   start-up runs under a tolerance of 1e-13, see [`crate::AbmStep::Fixed`]). For ABM at
//!   order `k` (Adams–Bashforth predictor of order `k`, corrector of order `k + 1` with
//!   local extrapolation) the theoretical global order is `k + 1`.
//! * `ode/kepler/<method>/<tol>/{nfev,error}`: Kepler, `e = 0.5`, three periods,
//!   `rtol = atol = tol`, error = max-norm error of `(q, p)` at `t = 6π`.

use crate::adams_bashforth_moulton::{AbmConfig, AbmOrder, AbmStep, AdamsBashforthMoulton};
use crate::dormand_prince::{DormandPrince54, DormandPrinceConfig};
use crate::driver::{integrate, DriverOptions};
use crate::error::OdeError;
use crate::norm::Tolerances;
use crate::runge_kutta_gill::{GillMode, RungeKuttaGill, RungeKuttaGillConfig};
use crate::stats::Stats;
use crate::stepper::Advance;
use crate::test_models::{max_abs_diff, ExactSolution, HarmonicOscillator, Kepler};

/// Runs `stepper` on `problem` to `t_end` and returns (max-norm global error, stats).
pub fn global_error<S: Advance<P>, P: ExactSolution>(
    stepper: &mut S,
    problem: &mut P,
    t_end: f64,
) -> Result<(f64, Stats), OdeError> {
    let sol = integrate(
        stepper,
        problem,
        t_end,
        &[t_end],
        &mut [],
        &DriverOptions::default(),
    )?;
    let mut exact = vec![0.0; problem.dim()];
    problem.exact(t_end, &mut exact);
    Ok((max_abs_diff(&sol.y[0], &exact), sol.stats))
}

/// Global errors at `t_end` for the constant steps `t_end/nᵢ` made by `make(h)`.
pub fn error_sequence<S: Advance<P>, P: ExactSolution + Clone>(
    problem: &P,
    t_end: f64,
    ns: &[usize],
    mut make: impl FnMut(f64, &P) -> Result<S, OdeError>,
) -> Result<Vec<f64>, OdeError> {
    ns.iter()
        .map(|&n| {
            let h = t_end / n as f64;
            let mut p = problem.clone();
            let mut s = make(h, &p)?;
            global_error(&mut s, &mut p, t_end).map(|r| r.0)
        })
        .collect()
}

/// `log₂(e₀/e₁)` of the last two errors of a halving sequence.
pub fn observed_order(errors: &[f64]) -> f64 {
    let m = errors.len();
    (errors[m - 2] / errors[m - 1]).log2()
}

/// Measured order of Runge–Kutta–Gill (theory 4).
pub fn rkg_order() -> Result<(Vec<f64>, f64), OdeError> {
    let p = HarmonicOscillator { omega: 1.0 };
    let e = error_sequence(&p, 10.0, &[25, 50, 100, 200], |h, p| {
        RungeKuttaGill::new(
            p.t0(),
            &p.y0(),
            Tolerances::new(1e-6, 1e-6),
            RungeKuttaGillConfig {
                mode: GillMode::Fixed { h },
                ..Default::default()
            },
        )
    })?;
    let o = observed_order(&e);
    Ok((e, o))
}

/// Measured order of Dormand–Prince 5(4) in constant-step mode (theory 5).
pub fn dopri_order() -> Result<(Vec<f64>, f64), OdeError> {
    let p = HarmonicOscillator { omega: 1.0 };
    let e = error_sequence(&p, 10.0, &[25, 50, 100, 200], |h, p| {
        DormandPrince54::new(
            p.t0(),
            &p.y0(),
            Tolerances::new(1e-6, 1e-6),
            DormandPrinceConfig {
                fixed_step: Some(h),
                ..Default::default()
            },
        )
    })?;
    let o = observed_order(&e);
    Ok((e, o))
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
pub fn abm_order(k: usize) -> Result<(Vec<f64>, f64), OdeError> {
    let p = HarmonicOscillator { omega: 1.0 };
    let e = error_sequence(&p, 10.0, &abm_steps(k), |h, p| {
        AdamsBashforthMoulton::new(
            p.t0(),
            &p.y0(),
            Tolerances::new(1e-13, 1e-13),
            AbmConfig {
                order: AbmOrder::Fixed(k),
                step: AbmStep::Fixed { h },
                ..Default::default()
            },
        )
    })?;
    let o = observed_order(&e);
    Ok((e, o))
}

/// `(id, theoretical order, measured order)` for `ode/order/{rkg, dopri5, abm/k1..k6}`.
/// A failed run gives a NaN measured order.
pub fn order_rows() -> Vec<(String, f64, f64)> {
    let mut rows = vec![
        (
            "ode/order/rkg".to_string(),
            4.0,
            rkg_order().map_or(f64::NAN, |r| r.1),
        ),
        (
            "ode/order/dopri5".to_string(),
            5.0,
            dopri_order().map_or(f64::NAN, |r| r.1),
        ),
    ];
    for k in 1..=6 {
        rows.push((
            format!("ode/order/abm/k{k}"),
            (k + 1) as f64,
            abm_order(k).map_or(f64::NAN, |r| r.1),
        ));
    }
    rows
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

/// `(id, value)` rows `ode/kepler/<abm|dopri5>/<tol>/{nfev,error}`; tol printed as `1e-3` ….
pub fn kepler_rows() -> Vec<(String, f64)> {
    let mut rows = Vec::new();
    for method in [KeplerMethod::Abm, KeplerMethod::Dopri5] {
        for tol in KEPLER_TOLS {
            let id = format!("ode/kepler/{}/{:e}", method.id(), tol);
            let (err, nfev) = match kepler_run(method, tol) {
                Ok((e, s)) => (e, s.f_evals as f64),
                Err(_) => (f64::NAN, f64::NAN),
            };
            rows.push((format!("{id}/nfev"), nfev));
            rows.push((format!("{id}/error"), err));
        }
    }
    rows
}
