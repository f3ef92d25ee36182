//! Source `ode`: the integrators' orders, the Kepler work–precision study, the stiff and DAE
//! problems (rows `ode/order/*`, `ode/kepler/*`, `ode/stiff/*`, `ode/dae/*`, figure
//! `ode_kepler_work_precision`). The runs are contour-ode's own verification
//! ([`contour::ode::verification`]); here they become rows.
//!
//! * `ode/order/<method>`: paper = theoretical order, ours = measured order.
//! * `ode/kepler/<method>/<tol>/{nfev,error}`: Kepler, `e = 0.5`, three periods,
//!   `rtol = atol = tol`, error = max-norm error of `(q, p)` at `t = 6π`.
//! * `ode/stiff/{vdp1000,robertson}/bdf/{steps,f_evals,jacobians,error}`: the variable-order
//!   BDF on Van der Pol `μ = 1000` over `[0, 3000]` (`rtol = atol = 10⁻⁶`) and Robertson over
//!   `[0, 10⁵]` (`rtol = 10⁻⁶`, `atol = 10⁻¹⁰`); error = largest componentwise relative error
//!   against the reference solutions. `f_evals` includes the residual evaluations of the
//!   finite-difference Jacobians.
//! * `ode/dae/index1/bdf/error` and `ode/dae/pendulum_ggl/bdf/{steps,max_phi_drift}`
//!   (drift = `max |φ(q)|` over the accepted steps), tolerance 10⁻⁶.

use contour::ode::verification::{
    abm_order, bdf_order, dopri_order, huang_bdf2_order, index1_bdf, kepler_run, max_rel_error,
    pendulum_ggl_bdf, rkg_order, robertson_bdf, sirk_order, vdp1000_bdf, KeplerMethod, KEPLER_TOLS,
    ROBERTSON_REFERENCE, VDP1000_REFERENCE,
};
use contour::ode::{BdfConfig, HuangStart};

use crate::{BoxError, LinePlot, Row, Series, SourceOutput, SourceResult, Tolerance};

/// `ode/order/{rkg, dopri5, abm/k1..k6, bdf/k1..k5, bdf2_huang, sirk}`: paper = theoretical
/// order, ours = measured order (±0.3).
pub fn order_rows() -> Result<Vec<Row>, BoxError> {
    let mut runs: Vec<(String, f64, f64)> = vec![
        ("ode/order/rkg".into(), 4.0, rkg_order()?.1),
        ("ode/order/dopri5".into(), 5.0, dopri_order()?.1),
    ];
    for k in 1..=6 {
        runs.push((
            format!("ode/order/abm/k{k}"),
            (k + 1) as f64,
            abm_order(k)?.1,
        ));
    }
    for k in 1..=5 {
        runs.push((format!("ode/order/bdf/k{k}"), k as f64, bdf_order(k)?.1));
    }
    runs.push((
        "ode/order/bdf2_huang".into(),
        2.0,
        huang_bdf2_order(HuangStart::BackwardEuler)?.1,
    ));
    runs.push(("ode/order/sirk".into(), 3.0, sirk_order()?.1));
    Ok(runs
        .into_iter()
        .map(|(id, theory, measured)| {
            Row::value(id, measured, "")
                .paper(theory)
                .note("paper = theoretical order; ours = log2 of successive error ratios under step halving")
                .tolerance(Tolerance::Abs(0.3))
        })
        .collect())
}

/// One Kepler run: method id, tolerance, final max-norm error, f-evaluations.
pub type KeplerRun = (&'static str, f64, f64, f64);

/// The Kepler runs of ABM and DOPRI5 at every tolerance of [`KEPLER_TOLS`].
pub fn kepler_runs() -> Result<Vec<KeplerRun>, BoxError> {
    let mut runs = Vec::new();
    for method in [KeplerMethod::Abm, KeplerMethod::Dopri5] {
        for tol in KEPLER_TOLS {
            let (err, stats) = kepler_run(method, tol)?;
            runs.push((method.id(), tol, err, stats.f_evals as f64));
        }
    }
    Ok(runs)
}

/// `ode/kepler/<abm|dopri5>/<tol>/{nfev,error}`; tol printed as `1e-3` ….
pub fn kepler_rows(runs: &[KeplerRun]) -> Vec<Row> {
    let mut rows = Vec::new();
    for &(method, tol, err, nfev) in runs {
        let id = format!("ode/kepler/{method}/{tol:e}");
        rows.push(Row::count(format!("{id}/nfev"), nfev));
        rows.push(
            Row::value(format!("{id}/error"), err, "")
                .note("max-norm error of the final state against Kepler's equation"),
        );
    }
    rows
}

const REFERENCE_NOTE: &str =
    "max relative error against a reference computed by the same BDF at rtol 1e-13";

/// `ode/stiff/{vdp1000,robertson}/bdf/{steps,f_evals,jacobians,error}`.
pub fn stiff_rows() -> Result<Vec<Row>, BoxError> {
    let mut rows = Vec::new();
    let runs = [
        (
            "vdp1000",
            vdp1000_bdf(1e-6, 1e-6, BdfConfig::default())?,
            &VDP1000_REFERENCE[..],
        ),
        (
            "robertson",
            robertson_bdf(1e-6, 1e-10, BdfConfig::default())?,
            &ROBERTSON_REFERENCE[..],
        ),
    ];
    for (name, (y, st), reference) in runs {
        let id = format!("ode/stiff/{name}/bdf");
        rows.push(Row::count(format!("{id}/steps"), st.steps as f64));
        rows.push(Row::count(format!("{id}/f_evals"), st.f_evals as f64));
        rows.push(Row::count(
            format!("{id}/jacobians"),
            st.jacobian_evals as f64,
        ));
        rows.push(
            Row::value(format!("{id}/error"), max_rel_error(&y, reference), "")
                .note(REFERENCE_NOTE),
        );
    }
    Ok(rows)
}

/// The note of the GGL pendulum rows.
fn ggl_note(st: &contour::ode::Stats) -> String {
    format!(
        "GGL pendulum, theta0 = 1 rad, [0, 10], tol 1e-6; the BDF's Newton test for this index-2 system is DASSL's rate test in the error-test norm with tolerance 0.03, each multiplier update weighted by its effect on the differential components through its column of the iteration matrix (Hairer-Wanner VII.8): {} steps, {} Newton failures",
        st.steps, st.newton_failures
    )
}

/// `ode/dae/index1/bdf/error`, `ode/dae/pendulum_ggl/bdf/{steps,max_phi_drift}`.
pub fn dae_rows() -> Result<Vec<Row>, BoxError> {
    let (drift, _, st) = pendulum_ggl_bdf(1e-6)?;
    Ok(vec![
        Row::value("ode/dae/index1/bdf/error", index1_bdf(1e-6)?.0, "").note(REFERENCE_NOTE),
        Row::count("ode/dae/pendulum_ggl/bdf/steps", st.steps as f64).note(ggl_note(&st)),
        Row::value("ode/dae/pendulum_ggl/bdf/max_phi_drift", drift, "").note(ggl_note(&st)),
    ])
}

/// The rows `ode/*` and the work–precision diagram of the Kepler problem, drawn from the
/// same runs.
pub fn source() -> SourceResult {
    let mut rows = order_rows()?;
    let kepler = kepler_runs()?;
    rows.extend(kepler_rows(&kepler));
    rows.extend(stiff_rows()?);
    rows.extend(dae_rows()?);
    let mut fig = LinePlot::new(
        "ode_kepler_work_precision",
        "Kepler e = 0.5, 3 periods: error vs f-evaluations",
        "log10 f-evaluations",
        "max-norm final error",
    );
    fig.log_y = true;
    for method in ["abm", "dopri5", "rkg"] {
        let mut pts: Vec<(f64, f64)> = kepler
            .iter()
            .filter(|r| r.0 == method)
            .map(|&(_, _, err, nfev)| (nfev.log10(), err))
            .collect();
        if !pts.is_empty() {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            fig.series.push(Series::line(method, pts));
        }
    }
    let figures = if fig.series.is_empty() {
        Vec::new()
    } else {
        vec![fig]
    };
    Ok(SourceOutput { rows, figures })
}
