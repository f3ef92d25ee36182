//! The comparison beyond the paper (ids `keerthi/extended/…`, paper value null), the
//! violation histories and the work–precision figure.

use contour::projection::{
    ErrorControl, Integrator, Method, NormKind, ParametrizationConfig, ProjectionError,
};

use super::tables::{bdf_note, measured, run_rows};
use super::{
    dist, reference, run_case, run_case_with, table_integrator, table_method_or_err,
    KEERTHI_FINAL_TIME, KEERTHI_TAU, TABLE_METHODS,
};
use crate::{LinePlot, Row, Series};

/// Tolerances of the work–precision sweep, `1e-3 … 1e-10`.
pub const WORK_PRECISION_TAUS: [f64; 8] = [1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10];

/// The comparison beyond the paper (ids `keerthi/extended/…`, paper value null):
///
/// * `keerthi/extended/<METHOD>/<integrator>/ic<k>/{N_i,N_f,max_phi,max_phidot,final_error}`
///   for PERT, PARAM, ICS0, ICS2 with `dopri5`, `rkg` and `bdf` at τ = 1e-4, T = 5 s (the BDF
///   rows also give `…/jacobian_evals`; their `N_f` includes the finite-difference columns);
/// * `keerthi/extended/work_precision/<METHOD>/tau1e-<p>/{N_f,final_error,max_phi}` on
///   initial condition 2 for PERT (ABM), ICS0 (ABM) and ECS (BDF), τ = 1e-3 … 1e-10;
/// * `keerthi/extended/PARAM/max_slope_<s>/ic2/{N_i,N_f,reparametrizations}`: the
///   sensitivity of PARAM to its re-parametrization threshold;
/// * `keerthi/extended/norm/<rms|mixed>/<METHOD>/ic<k>/{N_i,N_f}`: the sensitivity of the
///   table counts to the norm weights — the root-mean-square norm `sqrt(Σe²/6) ≤ τ` (a
///   tolerance √6 times looser than the plain l2 norm) and mixed weights
///   `wᵢ = τ(1 + |xᵢ|)` — with ABM (ECS: BDF).
pub fn keerthi_extended_rows() -> Result<Vec<Row>, ProjectionError> {
    let t_end = KEERTHI_FINAL_TIME;
    let mut rows = Vec::new();
    let refs = [reference(1, t_end)?.0, reference(2, t_end)?.0];
    for integ in [Integrator::dopri5(), Integrator::rkg(), Integrator::bdf()] {
        for name in ["PERT", "PARAM", "ICS0", "ICS2"] {
            for ic_index in [1usize, 2] {
                let method = table_method_or_err(name)?;
                let tr = run_case(ic_index, method, integ.clone(), KEERTHI_TAU, t_end, vec![])?;
                let s = tr.stats;
                let base = format!("keerthi/extended/{name}/{}/ic{ic_index}", integ.name());
                let mut note = format!(
                    "{} instead of ABM, tau = 1e-4 absolute l2, T = {t_end} s; {} rejected, {} redone, {} re-parametrizations",
                    integ.name(),
                    s.rejected_steps,
                    s.redone_steps,
                    s.reparametrizations
                );
                if let Integrator::Bdf(_) = integ {
                    note.push_str(&bdf_note(&s));
                }
                run_rows(
                    &mut rows,
                    &base,
                    &s,
                    matches!(integ, Integrator::Bdf(_)),
                    &note,
                    dist(&tr.x_final, &refs[ic_index - 1]),
                    "|x(T) - x_ref(T)|_2",
                );
            }
        }
    }
    for (name, integ) in [
        ("PERT", Integrator::abm()),
        ("ICS0", Integrator::abm()),
        ("ECS", table_integrator("ECS")),
    ] {
        for tau in WORK_PRECISION_TAUS {
            let method = table_method_or_err(name)?;
            let tr = run_case(2, method, integ.clone(), tau, t_end, vec![])?;
            let base = format!("keerthi/extended/work_precision/{name}/tau{:.0e}", tau);
            let mut note = format!("initial condition 2, {} at tau = {tau:.0e}", integ.name());
            if tau <= 1e-9 {
                note.push_str("; at this tolerance final_error and max_phi sit near the run's round-off floor: a KKT solve that rounds differently (L L^T instead of L D L^T) moves them by up to 2.5x");
            }
            rows.push(
                Row::count(format!("{base}/N_f"), tr.stats.f_evals as f64)
                    .note(ecs_aware_note(name, &note, &tr.stats)),
            );
            rows.push(measured(
                format!("{base}/final_error"),
                dist(&tr.x_final, &refs[1]),
                &note,
            ));
            rows.push(measured(format!("{base}/max_phi"), tr.stats.max_phi, &note));
        }
    }
    for (norm_name, ec) in [
        (
            "rms",
            ErrorControl::absolute(KEERTHI_TAU).with_norm(NormKind::Rms),
        ),
        ("mixed", ErrorControl::mixed(KEERTHI_TAU)),
    ] {
        for name in TABLE_METHODS {
            for ic_index in [1usize, 2] {
                let method = table_method_or_err(name)?;
                let integ = table_integrator(name);
                let tr = run_case_with(ic_index, method, integ, ec, t_end, vec![])?;
                let base = format!("keerthi/extended/norm/{norm_name}/{name}/ic{ic_index}");
                let note = format!(
                    "as the table row, with the {norm_name} norm weights instead of the plain l2 norm with rtol = 0"
                );
                rows.push(Row::count(format!("{base}/N_i"), tr.stats.steps as f64).note(&note));
                rows.push(
                    Row::count(format!("{base}/N_f"), tr.stats.f_evals as f64)
                        .note(ecs_aware_note(name, &note, &tr.stats)),
                );
            }
        }
    }
    for slope in [0.25, 0.5, 1.0, 2.0, 4.0] {
        let cfg = ParametrizationConfig {
            max_slope: slope,
            ..Default::default()
        };
        let tr = run_case(
            2,
            Method::Parametrization(cfg),
            Integrator::abm(),
            KEERTHI_TAU,
            t_end,
            vec![],
        )?;
        let base = format!("keerthi/extended/PARAM/max_slope_{slope}/ic2");
        let note = "PARAM with ABM, tau = 1e-4: re-parametrize when |(J V1)^-1 J V2|_F exceeds the threshold (default 1)";
        rows.push(Row::count(format!("{base}/N_i"), tr.stats.steps as f64).note(note));
        rows.push(Row::count(format!("{base}/N_f"), tr.stats.f_evals as f64).note(note));
        rows.push(
            Row::count(
                format!("{base}/reparametrizations"),
                tr.stats.reparametrizations as f64,
            )
            .note(note),
        );
    }
    Ok(rows)
}

/// `(method, step end times, ‖φ‖₂ after each step)`.
pub type ViolationHistory = (String, Vec<f64>, Vec<f64>);

/// The violation history of every table method on initial condition 2 (τ = 1e-4, ABM;
/// ECS with the BDF), for the figure `keerthi_violation_ic2.svg`.
pub fn violation_histories() -> Result<Vec<ViolationHistory>, ProjectionError> {
    let mut out = Vec::new();
    for name in TABLE_METHODS {
        let method = table_method_or_err(name)?;
        let integ = table_integrator(name);
        let tr = run_case(2, method, integ, KEERTHI_TAU, KEERTHI_FINAL_TIME, vec![])?;
        out.push((name.to_string(), tr.step_times, tr.step_phi));
    }
    Ok(out)
}

/// `keerthi_work_precision.svg`: final error against N_f over τ = 1e-3 … 1e-10 (IC2), drawn
/// from the `keerthi/extended/work_precision/<method>/tau<τ>/{N_f,final_error}` rows.
pub fn work_precision_figure(rows: &[Row]) -> LinePlot {
    const PREFIX: &str = "keerthi/extended/work_precision/";
    let mut fig = LinePlot::new(
        "keerthi_work_precision",
        "Keerthi robot, initial condition 2: final error vs f-evaluations (τ = 1e-3 … 1e-10)",
        "log10 N_f",
        "‖x(T) − x_ref(T)‖₂",
    );
    fig.log_y = true;
    let mut methods: Vec<String> = Vec::new();
    for r in rows.iter().filter(|r| r.id.starts_with(PREFIX)) {
        let m = r.id[PREFIX.len()..]
            .split('/')
            .next()
            .unwrap_or("")
            .to_string();
        if !methods.contains(&m) {
            methods.push(m);
        }
    }
    for m in methods {
        let mut pts = Vec::new();
        for nf in rows
            .iter()
            .filter(|r| r.id.starts_with(&format!("{PREFIX}{m}/")) && r.id.ends_with("/N_f"))
        {
            let err_id = nf.id.replace("/N_f", "/final_error");
            if let Some(err) = rows.iter().find(|r| r.id == err_id) {
                pts.push((nf.ours.log10(), err.ours.max(1e-17)));
            }
        }
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        fig.series.push(Series::line(m, pts));
    }
    fig
}

/// `note`, with the counting note of ECS's `N_f` appended for the ECS rows.
pub(crate) fn ecs_aware_note(
    name: &str,
    note: &str,
    s: &contour::projection::SimulationStats,
) -> String {
    if name == "ECS" {
        format!("{note}{}", super::tables::ecs_count_note(s))
    } else {
        note.to_string()
    }
}
