//! Keerthi's Tables 4.1 and 4.2 (rows `keerthi/table4.{1,2}/<method>/<quantity>`) and the
//! extended comparison (`keerthi/extended/…`) for `cargo xtask reproduce-tables`.
//!
//! **Setting** (REPRODUCTION.md): the robot of section 4 with the control law (4.5)
//! ([`KeerthiRobot`] with `J2 = 0.2`, recovered from the gains of (4.5), see its docs),
//! Shampine–Gordon variable-order ABM PECE, tolerance τ = 1e-4 in Keerthi's l2 norm
//! ([`ErrorControl::absolute`]: `‖e‖₂ ≤ τ` on `x = (q, q̇)`, i.e. DE's `relerr = 0`,
//! `abserr = τ`), both printed initial conditions made consistent first by
//! `contour_model::consistent_state` (Gauss–Newton minimum-norm steps; the residuals before
//! and after are the rows `model/keerthi/*`).
//!
//! **Final time.** The paper does not print it. We take the settling time of the slower
//! response: the closed loop (4.5) drives both initial conditions to the equilibrium
//! `x_e ≈ (0.43616, 0.29989, 0.20004, 0, 0, 0)`; the last time at which the reference
//! solution of initial condition 2 is farther than τ from `x_e` (l2 norm of `x`) is
//! 4.7 s (3.0 s for initial condition 1). We round it up to the whole second:
//! [`KEERTHI_FINAL_TIME`] `= 5 s`, for every row. (Rows `keerthi/settling_time/ic{1,2}`
//! recompute the settling times; the test `final_time_is_the_settling_time_of_ic2` checks
//! the rule.) The time was fixed by this rule before any step count was looked at.
//!
//! **Reference solution:** PERT with Dormand–Prince 5(4) at τ = 1e-12 (the same norm),
//! cross-checked against the direct approach with DOPRI5 at τ = 1e-12
//! (`keerthi/reference/ic{1,2}/crosscheck`). `final_error = ‖x(T) − x_ref(T)‖₂`.
//!
//! **Findings** (REPRODUCTION.md's qualitative claims):
//! * ECS needs the most steps — holds on both tables (test `ecs_needs_the_most_steps`).
//! * PERT keeps `φ` at round-off (‖φ‖ ≤ 2e-16) while ICS δ = 0 drifts (8e-5, 3e-5) — holds
//!   (test `pert_at_round_off_direct_drifts`).
//! * PARAM clearly worse than PERT on initial condition 2 — **only partly**: with our
//!   re-parametrization threshold the chart changes 6 times and PARAM needs about as many
//!   steps and f-evaluations as PERT (109 / 231 vs 111 / 225), plus Newton iterations for ψ in
//!   every f̃ (row `…/PARAM/parametrization_iterations`), which PERT does not pay. PERT
//!   integrates at τ/2, PARAM at τ; against ICS0 at τ (107 / 217) PARAM is 2 steps and 14
//!   evaluations worse. A tighter threshold makes PARAM clearly worse (the `max_slope_*`
//!   sensitivity rows of [`keerthi_extended_rows`]); the criterion of Mani–Haug–Atkinson's
//!   implementation is not printed, so we keep the geometric default and report the spread.
//!
//! **Counting.** `N_i` = accepted steps; `N_f` = solutions of (1.1)+(1.4) requested by the
//! integration, including ABM's initial evaluation, one per rejected attempt and one per
//! restart. For PERT with ABM the projection is done before the final evaluation of PECE
//! (see [`crate::perturbation`]), which is what `N_f = 2 N_i` in the paper implies.

use contour_model::models::{
    KeerthiControlLaw, KeerthiInitialCondition, KeerthiRobot, KEERTHI_IC1, KEERTHI_IC2,
};
use contour_model::{ConsistentStateOptions, WithController};
use serde::{Deserialize, Serialize};

use crate::baumgarte::BaumgarteGains;
use crate::error::ProjectionError;
use crate::parametrization::ParametrizationConfig;
use crate::perturbation::PerturbationConfig;
use crate::simulation::{Integrator, Method, Simulation};
use crate::tolerance::ErrorControl;
use crate::trajectory::Trajectory;

/// One reproduced number: the printed value (if any) and ours (always computed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeerthiRow {
    /// Fixed identifier, e.g. `keerthi/table4.1/PERT/N_i`.
    pub id: String,
    /// The printed value (`None` where the paper prints nothing).
    pub paper: Option<f64>,
    /// Our value.
    pub ours: f64,
    /// How it was obtained / why it deviates.
    pub note: String,
}

/// Keerthi's tolerance τ.
pub const KEERTHI_TAU: f64 = 1e-4;
/// The final time used for every row (see the module documentation).
pub const KEERTHI_FINAL_TIME: f64 = 5.0;
/// Tolerance of the reference solution.
pub const REFERENCE_TAU: f64 = 1e-12;

/// The controlled robot of section 4.
pub type KeerthiSystem = WithController<KeerthiRobot, KeerthiControlLaw>;

/// The robot with the control law (4.5), nominal parameters.
pub fn keerthi_system() -> KeerthiSystem {
    WithController::new(KeerthiRobot::default(), KeerthiControlLaw::default())
}

/// The methods of the tables, by their table names.
pub const TABLE_METHODS: [&str; 5] = ["PERT", "PARAM", "ICS0", "ICS2", "ECS"];

/// Printed `(N_i, N_f)` of Tables 4.1 (`ic = 1`) and 4.2 (`ic = 2`).
pub fn paper_counts(ic: usize, method: &str) -> Option<(f64, f64)> {
    let t = match (ic, method) {
        (1, "PERT") => (33.0, 66.0),
        (1, "PARAM") => (34.0, 68.0),
        (1, "ICS0") => (32.0, 64.0),
        (1, "ICS2") => (34.0, 73.0),
        (1, "ECS") => (85.0, 170.0),
        (2, "PERT") => (121.0, 243.0),
        (2, "PARAM") => (183.0, 378.0),
        (2, "ICS0") => (98.0, 196.0),
        (2, "ICS2") => (104.0, 209.0),
        (2, "ECS") => (251.0, 601.0),
        _ => return None,
    };
    Some(t)
}

/// The [`Method`] behind a table name (`"ECS"` is [`Method::ExactStabilization`]).
pub fn table_method(name: &str) -> Option<Method> {
    Some(match name {
        "PERT" => Method::Perturbation(PerturbationConfig::default()),
        "PARAM" => Method::Parametrization(ParametrizationConfig::default()),
        "ICS0" => Method::Direct,
        "ICS2" => Method::Baumgarte(BaumgarteGains::critical(2.0).ok()?),
        "ECS" => Method::ExactStabilization(crate::exact_stabilization::EcsConfig::default()),
        _ => return None,
    })
}

fn ic(i: usize) -> KeerthiInitialCondition {
    if i == 1 {
        KEERTHI_IC1
    } else {
        KEERTHI_IC2
    }
}

/// Runs one case of the comparison on initial condition `ic_index` (1 or 2) with the
/// absolute tolerance `tau` in the l2 norm.
pub fn run_case(
    ic_index: usize,
    method: Method,
    integrator: Integrator,
    tau: f64,
    t_end: f64,
    output_times: Vec<f64>,
) -> Result<Trajectory, ProjectionError> {
    run_case_with(
        ic_index,
        method,
        integrator,
        ErrorControl::absolute(tau),
        t_end,
        output_times,
    )
}

/// [`run_case`] with any [`ErrorControl`].
pub fn run_case_with(
    ic_index: usize,
    method: Method,
    integrator: Integrator,
    ec: ErrorControl,
    t_end: f64,
    output_times: Vec<f64>,
) -> Result<Trajectory, ProjectionError> {
    let sys = keerthi_system();
    let c = ic(ic_index);
    Simulation::new(&sys, &c.q, &c.qd, 0.0, t_end)
        .make_consistent(ConsistentStateOptions::default())
        .method(method)
        .integrator(integrator)
        .error_control(ec)
        .output_times(output_times)
        .run()
}

/// Reference state at `t_end` (PERT + DOPRI5 at τ = 1e-12) and the cross-check distance to
/// the direct approach with DOPRI5 at the same tolerance.
pub fn reference(ic_index: usize, t_end: f64) -> Result<(Vec<f64>, f64), ProjectionError> {
    let a = run_case(
        ic_index,
        Method::Perturbation(PerturbationConfig::default()),
        Integrator::dopri5(),
        REFERENCE_TAU,
        t_end,
        vec![t_end],
    )?;
    let b = run_case(
        ic_index,
        Method::Direct,
        Integrator::dopri5(),
        REFERENCE_TAU,
        t_end,
        vec![t_end],
    )?;
    Ok((a.x_final.clone(), dist(&a.x_final, &b.x_final)))
}

/// `‖a − b‖₂`.
pub fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

/// Settling time of initial condition `ic_index`: the last time on a 0.01 s grid over
/// `[0, 20]` at which the reference solution is farther than `tol` (l2 norm of `x`) from the
/// equilibrium (the reference state at 20 s).
pub fn settling_time(ic_index: usize, tol: f64) -> Result<f64, ProjectionError> {
    let grid: Vec<f64> = (0..=2000).map(|i| i as f64 * 0.01).collect();
    let tr = run_case(
        ic_index,
        Method::Perturbation(PerturbationConfig::default()),
        Integrator::dopri5(),
        REFERENCE_TAU,
        20.0,
        grid,
    )?;
    let xe = &tr.x_final;
    let mut last = 0.0;
    for (i, t) in tr.times.iter().enumerate() {
        let x: Vec<f64> = tr.q[i].iter().chain(&tr.qd[i]).copied().collect();
        if dist(&x, xe) > tol {
            last = *t;
        }
    }
    Ok(last)
}

fn pct(ours: f64, paper: f64) -> f64 {
    100.0 * (ours - paper) / paper
}

/// The tolerance column of REPRODUCTION.md, in percent.
pub fn tolerance_percent(ic: usize, method: &str) -> f64 {
    match (ic, method) {
        (_, "ECS") | (2, "PARAM") => 40.0,
        _ => 25.0,
    }
}

/// Facts the notes quote, computed in the same run.
struct NoteFacts {
    /// `N_i` of PERT and ICS0 on this initial condition.
    pert_steps: usize,
    ics0_steps: usize,
    /// PARAM: re-parametrizations with the default threshold, and `(N_i, changes)` with the
    /// loosest (4) and the tightest (0.25) threshold of the sensitivity sweep.
    param_changes: usize,
    loose: (usize, usize),
    tight: (usize, usize),
}

/// Why a count deviates (the note of `N_i`/`N_f`).
fn deviation_note(ic: usize, method: &str, dev: f64, f: &NoteFacts) -> String {
    let tol = tolerance_percent(ic, method);
    let mut s = format!("deviation {dev:+.0} % (tolerance +-{tol:.0} %)");
    if dev.abs() > tol {
        s.push_str("; OUTSIDE the tolerance: ");
    } else {
        s.push_str("; ");
    }
    let why = match (ic, method) {
        (_, "PERT") => format!(
            "PERT integrates at tau/2 (Remark 2.3 expects ~15 % more steps than at tau; ours: PERT {} vs ICS0 {} steps)",
            f.pert_steps, f.ics0_steps
        ),
        (2, "PARAM") => format!(
            "with our re-parametrization threshold (chart slope |(J V1)^-1 J V2|_F > 1, a 45 deg tilt) the chart changes {} times on IC2, each followed by an ABM restart (order 1, small first step); the paper's 183 steps imply more changes or costlier restarts - the sensitivity rows keerthi/extended/PARAM/max_slope_* give N_i = {} ({} changes, threshold 4) ... {} ({} changes, threshold 0.25); the criterion of [8] is not printed in the paper. PARAM also integrates only the 2 tangential components at tau, so its fair baseline is ICS0 ({} steps), not PERT at tau/2 ({} steps)",
            f.param_changes, f.loose.0, f.loose.1, f.tight.0, f.tight.1, f.ics0_steps, f.pert_steps
        ),
        (1, "PARAM") => "no re-parametrization is needed near the equilibrium".to_string(),
        (_, "ICS0") | (_, "ICS2") => "same integrator and norm; the remaining differences are of the size of the ABM start-up and of the step-size history (a few steps)".to_string(),
        _ => "our BDF is DASSL's (orders 1-5, fixed leading coefficient); the paper's DAE code is not named; mu is out of the error test".to_string(),
    };
    s.push_str(&why);
    s
}

fn method_note(name: &str) -> &'static str {
    match name {
        "PERT" => "Procedure P1: ABM at tau/2, MNR projection (2.15)-(2.17) with skinny QR, positions/velocities split (3.5)-(3.7), one QR (W2 = W1); projection before the final E of PECE",
        "PARAM" => "Mani-Haug-Atkinson tangent-space chart, Newton for psi in every f~ evaluation, re-parametrization + ABM restart when the chart slope |(J V1)^-1 J V2|_F > 1",
        "ICS0" => "direct integration of (1.1)+(1.4) (Baumgarte delta = 0)",
        "ICS2" => "Baumgarte (4.3), alpha = 2 delta, beta = delta^2, delta = 2",
        _ => "GGL (4.4) index-2 DAE in (x, mu), variable-order BDF (DASSL-style), mu out of the error test; N_f counts every solution of (1.1)+(1.4): residual evaluations and the finite-difference iteration matrices",
    }
}

/// Every `keerthi/table4.{1,2}/{PERT,PARAM,ICS0,ICS2,ECS}/{N_i,N_f,max_phi,max_phidot,final_error}`
/// row plus the settling times, the final time, the reference cross-checks and a few extras
/// (`rejected`, `reparametrizations`, `projection_iterations`).
pub fn keerthi_rows() -> Result<Vec<KeerthiRow>, ProjectionError> {
    let t_end = KEERTHI_FINAL_TIME;
    let mut rows = Vec::new();
    let s1 = settling_time(1, KEERTHI_TAU)?;
    let s2 = settling_time(2, KEERTHI_TAU)?;
    rows.push(KeerthiRow {
        id: "keerthi/settling_time/ic1".into(),
        paper: None,
        ours: s1,
        note: "last time on a 0.01 s grid with |x - x_e|_2 > tau = 1e-4 (reference solution)"
            .into(),
    });
    rows.push(KeerthiRow {
        id: "keerthi/settling_time/ic2".into(),
        paper: None,
        ours: s2,
        note: "as ic1; the final time is this value rounded up to the whole second".into(),
    });
    rows.push(KeerthiRow {
        id: "keerthi/final_time".into(),
        paper: None,
        ours: t_end,
        note: "not printed in the paper; settling time of initial condition 2 to within tau, rounded up; used for every row".into(),
    });
    for ic_index in [1usize, 2] {
        let table = if ic_index == 1 {
            "table4.1"
        } else {
            "table4.2"
        };
        let (xref, cross) = reference(ic_index, t_end)?;
        rows.push(KeerthiRow {
            id: format!("keerthi/reference/ic{ic_index}/crosscheck"),
            paper: None,
            ours: cross,
            note: "|x_ref(T) - x_direct(T)|_2, both DOPRI5 at tau = 1e-12 (PERT vs ICS0)".into(),
        });
        let mut runs = Vec::new();
        for name in TABLE_METHODS {
            let method = table_method(name).ok_or(ProjectionError::InvalidParameter {
                name: "table method",
                value: f64::NAN,
            })?;
            let integrator = if name == "ECS" {
                crate::exact_stabilization::ecs_integrator()
            } else {
                Integrator::abm()
            };
            runs.push(run_case(
                ic_index,
                method,
                integrator,
                KEERTHI_TAU,
                t_end,
                Vec::new(),
            )?);
        }
        let param_sweep = |slope: f64| -> Result<(usize, usize), ProjectionError> {
            let cfg = ParametrizationConfig {
                max_slope: slope,
                ..Default::default()
            };
            let tr = run_case(
                ic_index,
                Method::Parametrization(cfg),
                Integrator::abm(),
                KEERTHI_TAU,
                t_end,
                Vec::new(),
            )?;
            Ok((tr.stats.steps, tr.stats.reparametrizations))
        };
        let facts = NoteFacts {
            pert_steps: runs[0].stats.steps,
            ics0_steps: runs[2].stats.steps,
            param_changes: runs[1].stats.reparametrizations,
            loose: param_sweep(4.0)?,
            tight: param_sweep(0.25)?,
        };
        for (name, tr) in TABLE_METHODS.iter().copied().zip(runs) {
            let s = tr.stats;
            let (pi, pf) = paper_counts(ic_index, name).unwrap_or((f64::NAN, f64::NAN));
            let base = format!("keerthi/{table}/{name}");
            let mn = method_note(name);
            rows.push(KeerthiRow {
                id: format!("{base}/N_i"),
                paper: Some(pi),
                ours: s.steps as f64,
                note: format!(
                    "{mn}; tau = 1e-4 absolute, l2 norm of x = (q, qd), T = {t_end} s; {} rejected attempts; {}",
                    s.rejected_steps,
                    deviation_note(ic_index, name, pct(s.steps as f64, pi), &facts)
                ),
            });
            rows.push(KeerthiRow {
                id: format!("{base}/N_f"),
                paper: Some(pf),
                ours: s.f_evals as f64,
                note: format!(
                    "solutions of (1.1)+(1.4) for the integration incl. the initial one, rejected attempts and restarts ({} restarts){}; {}",
                    s.restarts,
                    if name == "ECS" {
                        format!(
                            "{}, {:+.0} % against the paper, whose N_f ~ 2 N_i counts no Jacobian evaluations",
                            ecs_count_note(&s),
                            pct((s.f_evals - s.jacobian_f_evals) as f64, pf)
                        )
                    } else {
                        String::new()
                    },
                    deviation_note(ic_index, name, pct(s.f_evals as f64, pf), &facts)
                ),
            });
            rows.push(KeerthiRow {
                id: format!("{base}/max_phi"),
                paper: None,
                ours: s.max_phi,
                note: "max over accepted steps of |phi|_2".into(),
            });
            rows.push(KeerthiRow {
                id: format!("{base}/max_phidot"),
                paper: None,
                ours: s.max_phidot,
                note: if name == "PERT" {
                    "max over accepted steps of |J qd|_2; PERT's velocity correction uses J at the uncorrected q (Keerthi (3.4)), leaving O(|dq| |qd|)".into()
                } else {
                    "max over accepted steps of |J qd|_2".into()
                },
            });
            rows.push(KeerthiRow {
                id: format!("{base}/final_error"),
                paper: None,
                ours: dist(&tr.x_final, &xref),
                note: "|x(T) - x_ref(T)|_2 against PERT + DOPRI5 at tau = 1e-12".into(),
            });
            rows.push(KeerthiRow {
                id: format!("{base}/rejected"),
                paper: None,
                ours: s.rejected_steps as f64,
                note: "attempts rejected by the error test".into(),
            });
            if name == "PARAM" {
                rows.push(KeerthiRow {
                    id: format!("{base}/reparametrizations"),
                    paper: None,
                    ours: s.reparametrizations as f64,
                    note: "chart changes, each followed by an ABM restart".into(),
                });
                rows.push(KeerthiRow {
                    id: format!("{base}/parametrization_iterations"),
                    paper: None,
                    ours: s.parametrization_iterations as f64,
                    note: "Newton iterations solving the m-dimensional system of psi (one per f~ evaluation and more), the per-evaluation cost PERT does not have".into(),
                });
            }
            if name == "PERT" {
                rows.push(KeerthiRow {
                    id: format!("{base}/projection_iterations"),
                    paper: None,
                    ours: s.projection_iterations as f64,
                    note: format!(
                        "MNR iterations of the position correction over {} projections; {} steps redone (Remark 2.5)",
                        s.projections, s.redone_steps
                    ),
                });
            }
        }
    }
    Ok(rows)
}

fn row(id: String, ours: f64, note: &str) -> KeerthiRow {
    KeerthiRow {
        id,
        paper: None,
        ours,
        note: note.to_string(),
    }
}

/// The counting note of an ECS `N_f` row: the finite-difference iteration matrices are in
/// `N_f` (as for every BDF run) since issue 12; before, they were left out.
pub(crate) fn ecs_count_note(s: &crate::trajectory::SimulationStats) -> String {
    format!(
        "; incl. the {} acceleration solves of {} finite-difference iteration matrices (2N + 1 each): counted in N_f as in every other BDF run since issue 12 (before: N_f = {} without them)",
        s.jacobian_f_evals,
        s.jacobian_evals,
        s.f_evals - s.jacobian_f_evals
    )
}

/// The counting note of a row with the BDF on the ODE (`crate::BdfOde`).
pub(crate) fn bdf_note(s: &crate::trajectory::SimulationStats) -> String {
    format!(
        "; variable-order BDF (DASSL) on xdot - f(x) = 0, h0 and start as DASSL with xdot0 = f(x0); N_f counts every acceleration solve incl. the {} finite-difference columns of {} iteration matrices ({} factorizations, {} Newton iterations)",
        s.jacobian_f_evals, s.jacobian_evals, s.factorizations, s.newton_iterations
    )
}

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
pub fn keerthi_extended_rows() -> Result<Vec<KeerthiRow>, ProjectionError> {
    let t_end = KEERTHI_FINAL_TIME;
    let mut rows = Vec::new();
    let refs = [reference(1, t_end)?.0, reference(2, t_end)?.0];
    for integ in [Integrator::dopri5(), Integrator::rkg(), Integrator::bdf()] {
        for name in ["PERT", "PARAM", "ICS0", "ICS2"] {
            for ic_index in [1usize, 2] {
                let method = table_method(name).ok_or(ProjectionError::InvalidParameter {
                    name: "table method",
                    value: f64::NAN,
                })?;
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
                rows.push(row(format!("{base}/N_i"), s.steps as f64, &note));
                rows.push(row(format!("{base}/N_f"), s.f_evals as f64, &note));
                rows.push(row(
                    format!("{base}/max_phi"),
                    s.max_phi,
                    "max |phi|_2 over accepted steps",
                ));
                rows.push(row(
                    format!("{base}/max_phidot"),
                    s.max_phidot,
                    "max |J qd|_2 over accepted steps",
                ));
                rows.push(row(
                    format!("{base}/final_error"),
                    dist(&tr.x_final, &refs[ic_index - 1]),
                    "|x(T) - x_ref(T)|_2",
                ));
                if let Integrator::Bdf(_) = integ {
                    rows.push(row(
                        format!("{base}/jacobian_evals"),
                        s.jacobian_evals as f64,
                        &bdf_note(&s),
                    ));
                }
            }
        }
    }
    for (name, integ) in [
        ("PERT", Integrator::abm()),
        ("ICS0", Integrator::abm()),
        ("ECS", crate::exact_stabilization::ecs_integrator()),
    ] {
        for tau in WORK_PRECISION_TAUS {
            let method = table_method(name).ok_or(ProjectionError::InvalidParameter {
                name: "table method",
                value: f64::NAN,
            })?;
            let tr = run_case(2, method, integ.clone(), tau, t_end, vec![])?;
            let base = format!("keerthi/extended/work_precision/{name}/tau{:.0e}", tau);
            let note = format!("initial condition 2, {} at tau = {tau:.0e}", integ.name());
            let nf_note = if name == "ECS" {
                format!("{note}{}", ecs_count_note(&tr.stats))
            } else {
                note.clone()
            };
            rows.push(row(
                format!("{base}/N_f"),
                tr.stats.f_evals as f64,
                &nf_note,
            ));
            rows.push(row(
                format!("{base}/final_error"),
                dist(&tr.x_final, &refs[1]),
                &note,
            ));
            rows.push(row(format!("{base}/max_phi"), tr.stats.max_phi, &note));
        }
    }
    for (norm_name, ec) in [
        (
            "rms",
            ErrorControl::absolute(KEERTHI_TAU).with_norm(crate::tolerance::NormKind::Rms),
        ),
        ("mixed", ErrorControl::mixed(KEERTHI_TAU)),
    ] {
        for name in TABLE_METHODS {
            for ic_index in [1usize, 2] {
                let method = table_method(name).ok_or(ProjectionError::InvalidParameter {
                    name: "table method",
                    value: f64::NAN,
                })?;
                let integ = if name == "ECS" {
                    crate::exact_stabilization::ecs_integrator()
                } else {
                    Integrator::abm()
                };
                let tr = run_case_with(ic_index, method, integ, ec, t_end, vec![])?;
                let base = format!("keerthi/extended/norm/{norm_name}/{name}/ic{ic_index}");
                let note = format!(
                    "as the table row, with the {norm_name} norm weights instead of the plain l2 norm with rtol = 0"
                );
                rows.push(row(format!("{base}/N_i"), tr.stats.steps as f64, &note));
                let nf_note = if name == "ECS" {
                    format!("{note}{}", ecs_count_note(&tr.stats))
                } else {
                    note.clone()
                };
                rows.push(row(
                    format!("{base}/N_f"),
                    tr.stats.f_evals as f64,
                    &nf_note,
                ));
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
        rows.push(row(format!("{base}/N_i"), tr.stats.steps as f64, note));
        rows.push(row(format!("{base}/N_f"), tr.stats.f_evals as f64, note));
        rows.push(row(
            format!("{base}/reparametrizations"),
            tr.stats.reparametrizations as f64,
            note,
        ));
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
        let method = table_method(name).ok_or(ProjectionError::InvalidParameter {
            name: "table method",
            value: f64::NAN,
        })?;
        let integ = if name == "ECS" {
            crate::exact_stabilization::ecs_integrator()
        } else {
            Integrator::abm()
        };
        let tr = run_case(2, method, integ, KEERTHI_TAU, KEERTHI_FINAL_TIME, vec![])?;
        out.push((name.to_string(), tr.step_times, tr.step_phi));
    }
    Ok(out)
}

/// Long run (ids `projection/longrun/<METHOD>/{max_phi,energy_drift,N_f}`): the pendulum
/// (ℓ = 1 m, released at 1 rad) for 100 s at τ = 1e-8 with ABM (ECS: BDF); energy drift
/// `|E(100) − E(0)|` in J.
pub fn longrun_rows() -> Result<Vec<KeerthiRow>, ProjectionError> {
    use contour_model::models::Pendulum;
    use contour_model::Mechanism;
    let p = Pendulum::default();
    let (q, qd) = p.state(1.0, 0.0);
    let e = |x: &[f64]| -> f64 {
        p.kinetic_energy(&x[..2], &x[2..]).unwrap_or(f64::NAN)
            + p.potential_energy(&x[..2]).unwrap_or(f64::NAN)
    };
    let mut rows = Vec::new();
    for name in TABLE_METHODS {
        let method = table_method(name).ok_or(ProjectionError::InvalidParameter {
            name: "table method",
            value: f64::NAN,
        })?;
        let integ = if name == "ECS" {
            crate::exact_stabilization::ecs_integrator()
        } else {
            Integrator::abm()
        };
        let tr = Simulation::new(&p, &q, &qd, 0.0, 100.0)
            .method(method)
            .integrator(integ)
            .error_control(ErrorControl::absolute(1e-8))
            .output_times(vec![100.0])
            .run()?;
        let base = format!("projection/longrun/{name}");
        let note = "pendulum, 100 s, tau = 1e-8 absolute l2 (ABM; ECS: BDF)";
        rows.push(row(format!("{base}/max_phi"), tr.stats.max_phi, note));
        rows.push(row(
            format!("{base}/energy_drift"),
            (e(&tr.x_final) - e(&tr.x_initial)).abs(),
            note,
        ));
        let nf_note = if name == "ECS" {
            format!("{note}{}", ecs_count_note(&tr.stats))
        } else {
            note.to_string()
        };
        rows.push(row(
            format!("{base}/N_f"),
            tr.stats.f_evals as f64,
            &nf_note,
        ));
    }
    Ok(rows)
}
