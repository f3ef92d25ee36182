//! Keerthi et al., section 4: source `keerthi` — Tables 4.1 and 4.2 (rows
//! `keerthi/table4.{1,2}/<method>/<quantity>`, [`tables`]), the extended comparison
//! (`keerthi/extended/…`, [`extended`]), the final-time scan and the projector method on the
//! same robot — plus the sources `model` ([`consistency`]) and `projection` ([`longrun`]).
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
//!   sensitivity rows of [`extended::keerthi_extended_rows`]); the criterion of Mani–Haug–Atkinson's
//!   implementation is not printed, so we keep the geometric default and report the spread.
//!
//! **Counting.** `N_i` = accepted steps; `N_f` = solutions of (1.1)+(1.4) requested by the
//! integration, including ABM's initial evaluation, one per rejected attempt and one per
//! restart. For PERT with ABM the projection is done before the final evaluation of PECE
//! (see `contour::projection::perturbation`), which is what `N_f = 2 N_i` in the paper implies.

pub mod consistency;
pub mod extended;
pub mod longrun;
pub mod tables;

use contour::model::models::{
    KeerthiControlLaw, KeerthiInitialCondition, KeerthiRobot, KEERTHI_IC1, KEERTHI_IC2,
};
use contour::model::{ConsistentStateOptions, WithController};
use contour::projection::exact_stabilization::ecs_integrator;
use contour::projection::{
    BaumgarteGains, EcsConfig, ErrorControl, Integrator, Method, ParametrizationConfig,
    PerturbationConfig, ProjectionError, Simulation, Trajectory,
};

use crate::{LinePlot, Series, SourceOutput, SourceResult};

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
        "PERT" => Method::Perturbation(PerturbationConfig::keerthi()),
        "PARAM" => Method::Parametrization(ParametrizationConfig::default()),
        "ICS0" => Method::Direct,
        "ICS2" => Method::Baumgarte(BaumgarteGains::critical(2.0).ok()?),
        "ECS" => Method::ExactStabilization(EcsConfig::keerthi()),
        _ => return None,
    })
}

/// The method of a table name, or an error naming it.
pub fn table_method_or_err(name: &str) -> Result<Method, ProjectionError> {
    table_method(name).ok_or(ProjectionError::InvalidParameter {
        name: "table method",
        value: f64::NAN,
    })
}

/// The integrator of a table method: ABM, the BDF for ECS.
pub fn table_integrator(name: &str) -> Integrator {
    if name == "ECS" {
        ecs_integrator()
    } else {
        Integrator::abm()
    }
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
        Method::Perturbation(PerturbationConfig::keerthi()),
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
        Method::Perturbation(PerturbationConfig::keerthi()),
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

/// Rows computed by other sources' modules on Keerthi's robot (the final-time scan, the
/// projector method), placed after the extended comparison.
pub type ForeignRows = fn() -> Result<Vec<crate::Row>, ProjectionError>;

/// Source `keerthi`: the tables, the extended comparison, then `foreign` in order, and the
/// figures `keerthi_violation_ic2` and `keerthi_work_precision`. The registry
/// ([`crate::sources`]) passes the final-time scan and the projector method's rows, so this
/// module names neither.
pub fn source_with(foreign: &[ForeignRows]) -> SourceResult {
    let mut rows = tables::keerthi_rows()?;
    rows.extend(extended::keerthi_extended_rows()?);
    for rows_of in foreign {
        rows.extend(rows_of()?);
    }
    let mut violation = LinePlot::new(
        "keerthi_violation_ic2",
        "Keerthi robot, initial condition 2, τ = 1e-4: position-constraint violation per step",
        "t [s]",
        "‖φ(q)‖₂",
    );
    violation.log_y = true;
    for (name, t, phi) in extended::violation_histories()? {
        // Round-off-level values are shown at 1e-17 (the log axis has no zero).
        violation.series.push(Series::line(
            name,
            t.into_iter()
                .zip(phi.into_iter().map(|p| p.max(1e-17)))
                .collect(),
        ));
    }
    violation.noisy = true; // PERT/PARAM curves sit at round-off level
    let work_precision = extended::work_precision_figure(&rows);
    Ok(SourceOutput {
        rows,
        figures: vec![violation, work_precision],
    })
}
