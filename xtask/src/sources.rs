//! The registry of reproduction sources: one function per source, in presentation order.
//!
//! A source owns every row whose id starts with `<source>/`. Paper values typed here are the
//! printed ones (REPRODUCTION.md); `ours` always comes from the library.

use std::error::Error;

use crate::plot::{LinePlot, Series};
use crate::rows::{stated_tolerance, Check, Row, SourceOutput, Tolerance};

type SourceFn = fn() -> Result<SourceOutput, Box<dyn Error>>;

/// Every source, in the order of `tables/reproduction.json`.
pub fn all() -> Vec<(&'static str, SourceFn)> {
    vec![
        ("linalg", linalg),
        ("model", model),
        ("ode", ode),
        ("huang", crate::huang::source),
        ("featherstone", featherstone),
        ("keerthi", crate::keerthi::source),
        ("projection", crate::keerthi::projection_source),
        ("kovecses", crate::keerthi::kovecses_source),
    ]
}

/// Accuracy of the dense kernels over a fixed, seeded set of random problems.
fn linalg() -> Result<SourceOutput, Box<dyn Error>> {
    let rows = contour::linalg::accuracy::accuracy_report(20261122)
        .into_iter()
        .map(|(id, value)| {
            Row::ours(id, value, "relative")
                .note("worst case over seeded random sizes up to 30, rank-deficient included; rounded up to a power of ten (round-off digits depend on the SIMD kernel faer picks), checked only to stay below 1e-10")
                .check(Check::Below(1e-10))
                .tolerance(Tolerance::AtMost(1e-10))
                .rounded()
        })
        .collect();
    Ok(SourceOutput {
        rows,
        figures: Vec::new(),
    })
}

/// Consistency of the printed initial conditions of Keerthi's robot, before and after
/// `consistent_state`.
fn model() -> Result<SourceOutput, Box<dyn Error>> {
    let mut rows = Vec::new();
    for (id, value) in contour::model::reproduction::keerthi_consistency_rows() {
        let row = if id.ends_with("/iterations") {
            Row::ours(id, value, "")
                .note("Gauss–Newton iterations of consistent_state")
                .check(Check::Exact)
        } else if id.ends_with("/position_change") {
            Row::ours(id, value, "")
                .note("‖q − q_printed‖₂ moved by consistent_state")
                .rounded()
        } else if id.ends_with("_after") {
            Row::ours(id, value, "")
                .note("‖φ‖₂ after consistent_state (Gauss–Newton with minimum-norm steps); round-off level")
                .check(Check::Below(1e-13))
                .tolerance(Tolerance::AtMost(1e-13))
        } else {
            Row::ours(id, value, "")
                .note("‖φ‖₂ of the initial condition as printed (REPRODUCTION.md: ≈ 1e-4 and ≈ 1.6e-3)")
                .rounded()
        };
        rows.push(row);
    }
    Ok(SourceOutput {
        rows,
        figures: Vec::new(),
    })
}

/// Integrator orders and work–precision.
fn ode() -> Result<SourceOutput, Box<dyn Error>> {
    let mut rows = Vec::new();
    for (id, theory, measured) in contour::ode::reproduction::order_rows() {
        rows.push(
            Row::vs_paper(id, theory, measured, "")
                .note("paper = theoretical order; ours = log2 of successive error ratios under step halving")
                .tolerance(Tolerance::Abs(0.3))
                .check(Check::Close)
                .rounded(),
        );
    }
    let kepler = contour::ode::reproduction::kepler_rows();
    for (id, value) in kepler.iter().cloned() {
        let row = if id.ends_with("/nfev") {
            Row::ours(id, value, "").check(Check::Exact)
        } else {
            Row::ours(id, value, "")
                .rounded()
                .note("max-norm error of the final state against Kepler's equation")
        };
        rows.push(row);
    }
    for (id, value) in contour::ode::reproduction::stiff_rows()
        .into_iter()
        .chain(contour::ode::reproduction::dae_rows())
    {
        let last = id.rsplit('/').next().unwrap_or("").to_string();
        let row = if value.fract() == 0.0 && !last.contains("error") && !last.contains("drift") {
            Row::ours(id, value, "").check(Check::Exact)
        } else {
            Row::ours(id, value, "")
                .rounded()
                .note(match last.as_str() {
                "error" => {
                    "max relative error against a reference computed by the same BDF at rtol 1e-13"
                }
                _ => "",
            })
        };
        rows.push(row);
    }
    // Work–precision diagram of the Kepler problem, drawn from the same rows.
    let mut fig = LinePlot::new(
        "ode_kepler_work_precision",
        "Kepler e = 0.5, 3 periods: error vs f-evaluations",
        "log10 f-evaluations",
        "max-norm final error",
    );
    fig.log_y = true;
    for method in ["abm", "dopri5", "rkg"] {
        let prefix = format!("ode/kepler/{method}/");
        let mut pts: Vec<(f64, f64)> = Vec::new();
        for (id, nfev) in kepler
            .iter()
            .filter(|(id, _)| id.starts_with(&prefix) && id.ends_with("/nfev"))
        {
            let err_id = id.replace("/nfev", "/error");
            if let Some((_, err)) = kepler.iter().find(|(i, _)| *i == err_id) {
                pts.push((nfev.log10(), *err));
            }
        }
        if !pts.is_empty() {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            fig.series.push(Series::line(method, pts));
        }
    }
    let figures = if fig.series.is_empty() {
        Vec::new()
    } else {
        vec![fig.render()?]
    };
    Ok(SourceOutput { rows, figures })
}

/// Featherstone's `planar2g` (explicit constraint q2 = 2 sin q1, FDgq).
fn featherstone() -> Result<SourceOutput, Box<dyn Error>> {
    let mut rows = Vec::new();
    for (id, value) in contour::model::reproduction_featherstone::planar2g_rows() {
        let row = match id.rsplit('/').next().unwrap_or("") {
            "energy_balance" => Row::ours(id.clone(), value, "")
                .note("|q1(T) − KE(T)| / KE(T), T = 10 s, FDgq with Tstab = 0.1 integrated by fixed-step RK4, h = 0.25 ms; round-off/truncation level, checked to stay below the bound")
                .check(Check::Below(1e-8)),
            "max_constraint_residual" => Row::ours(id.clone(), value, "rad")
                .note("max |q2 − 2 sin q1| over the run; checked to stay below the bound")
                .check(Check::Below(1e-10)),
            _ => Row::ours(id.clone(), value, "").rounded(),
        };
        rows.push(row.tolerance(stated_tolerance(&id)));
    }
    let id = "featherstone/planar2g/implicit_vs_explicit".to_string();
    let diff = contour::projection::reproduction_featherstone::planar2g_implicit_vs_explicit()?;
    rows.push(
        Row::ours(id, diff, "")
            .note("max state difference over 10 s between the perturbation method on the implicit row q2 − 2 sin q1 and FDgq, both at τ = 1e-10 (3.0e-7 at 1e-8, 1.8e-5 at 1e-6: agreement at the integration tolerance)")
            .rounded(),
    );
    Ok(SourceOutput {
        rows,
        figures: Vec::new(),
    })
}
