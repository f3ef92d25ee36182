//! Kövecses & Piedbœuf (papers/001), source `kovecses`: rows `kovecses/*`,
//! the violation histories of figures 3–6, and the projector method in Keerthi's comparison
//! (`keerthi/extended/KOV/*`).
//!
//! **The arm** (REPRODUCTION.md): [`contour::model::models::ssrms_arm_tip_held`] (7 revolute
//! joints, 1,800 kg, ≈ 17 m, tip held by 3 position rows, zero gravity) driven by
//! [`Arm7LoadCase`] for 80 s from rest at the paper's joint angles. Integrator: DOPRI5 at
//! τ = 1e-8 (absolute, l2 norm of `x = (q, q̇)`) for the uncorrected (direct, KKT
//! accelerations (9)) and the corrected run (the paper's setting: one velocity filtering (33),
//! two corrections (36), [`ProjectorConfig::default`]).
//!
//! **(35) vs (36)**: both at the coarse τ = 1e-5, correcting until `‖φ‖₂ ≤ 1e-13` (at most 50
//! corrections per step; rows `eq35`, `eq36`) and with the paper's two open-loop corrections
//! (rows `eq35_fixed2`, `eq36_fixed2`), against a reference: the projector method with DOPRI5
//! at τ = 1e-11 (cross-checked against Keerthi's perturbation approach at the same tolerance).
//! `final_error = ‖x(80) − x_ref(80)‖₂`: a solution that satisfies the constraints but has
//! drifted along the admissible directions shows up here, not in `max_phi`. The sweep rows
//! `kovecses/arm/sweep/tau<τ>/{direct,eq35,eq36}/…` repeat the comparison for τ = 1e-3 … 1e-7.
//!
//! **Finding** (the paper conjectures that (35) may be more reliable): not on this arm. With
//! corrections to 1e-13, (35) needs ≈ 7× more corrections than (36) (its frozen directions
//! converge linearly, (36) quadratically) although it needs only one projector evaluation per
//! step against ≈ 2.2; its final error is about twice that of (36) at τ = 1e-5 and 1e-6,
//! similar at 1e-7, smaller only at 1e-4, where both are off by O(0.5) while satisfying the
//! constraints to 1e-13; at τ = 1e-3, (35) does not converge within 50 corrections. With two
//! open-loop corrections (35) leaves `‖φ‖` at 1e-7 (τ = 1e-5) where (36) reaches 4e-15.
//!
//! **Redundant mechanisms**: [`RedundantFourBar`] (3 rows, rank 2) and
//! [`RedundantParallelogram`] (a parallelogram linkage with a redundant middle crank: 6 rows,
//! rank 5 on the motion), both under gravity for 10 s with DOPRI5 at τ = 1e-8. The KKT-based
//! methods take the rank-revealing solve (the unique q̈, the minimum-norm λ) and run; asked to
//! refuse rank deficiency (`RankDeficiency::Error`) they stop with
//! [`ModelError::RankDeficientJacobian`]. The projector method runs.
//! `energy_drift = max_t |E(t) − E(0)| / E_scale` over the output grid (E_scale = the largest
//! kinetic energy reached).
//!
//! The numbers are in `tables/kovecses.md` (and `tables/keerthi.md` for `keerthi/extended/KOV/*`).

use std::sync::OnceLock;

use contour::model::models::{
    arm7_initial_q, ssrms_arm_tip_held, Arm7LoadCase, RedundantFourBar, RedundantParallelogram,
};
use contour::model::tree::ConstrainedTree;
use contour::model::{DynamicsOptions, Mechanism, ModelError, RankDeficiency, WithController};
use contour::projection::kovecses::{AccelerationSolver, ProjectionDynamics, VelocityFiltering};
use contour::projection::{
    ConfigurationCorrection, CorrectionCount, ErrorControl, Integrator, Method, PerturbationConfig,
    ProjectionError, ProjectorConfig, Simulation, Trajectory,
};

use crate::keerthi::tables::{bdf_note, measured, run_rows, ROUNDOFF_FLOOR};
use crate::keerthi::{dist, reference, run_case, KEERTHI_FINAL_TIME, KEERTHI_TAU};
use crate::{LinePlot, Row, SourceOutput, SourceResult, Tolerance};

/// The closed-loop arm with its load case.
pub type ArmSystem = WithController<ConstrainedTree, Arm7LoadCase>;

/// The arm of the experiment: tip held, [`Arm7LoadCase::default`].
pub fn arm_system() -> ArmSystem {
    WithController::new(ssrms_arm_tip_held(), Arm7LoadCase::default())
}

/// Duration of the arm experiment \[s\].
pub const ARM_FINAL_TIME: f64 = 80.0;
/// Tolerance of the arm runs of figures 3–6.
pub const ARM_TAU: f64 = 1e-8;
/// Coarse tolerance of the (35) vs (36) comparison.
pub const ARM_COARSE_TAU: f64 = 1e-5;
/// Tolerance of the arm's reference solution.
pub const ARM_REFERENCE_TAU: f64 = 1e-11;
/// Correction tolerance on `‖φ‖₂` of the (35) vs (36) comparison \[m\].
pub const ARM_CORRECTION_TOL: f64 = 1e-13;

/// Runs the arm from rest at the paper's angles for 80 s.
pub fn run_arm(
    method: Method,
    integrator: Integrator,
    tau: f64,
) -> Result<Trajectory, ProjectionError> {
    let sys = arm_system();
    let q0 = arm7_initial_q();
    Simulation::new(&sys, &q0, &[0.0; 7], 0.0, ARM_FINAL_TIME)
        .method(method)
        .integrator(integrator)
        .error_control(ErrorControl::absolute(tau))
        .output_times(vec![ARM_FINAL_TIME])
        .run()
}

/// `(series label, t, value)` of one curve of a figure.
pub type Series = (String, Vec<f64>, Vec<f64>);

/// Data of the two figures (log scale; values floored at 1e-18 so that exact zeros can be
/// drawn).
#[derive(Debug, Clone, PartialEq)]
pub struct KovecsesHistories {
    /// `kovecses_fig3_4.svg`: `‖φ‖₂` \[m\] and `‖A q̇‖₂` \[m/s\] after every accepted step of the
    /// uncorrected run (direct integration).
    pub fig3_4: Vec<Series>,
    /// `kovecses_fig5_6.svg`: the same with one velocity filtering and two corrections (36).
    pub fig5_6: Vec<Series>,
}

struct ArmRuns {
    uncorrected: Trajectory,
    corrected: Trajectory,
}

fn arm_runs() -> Result<&'static ArmRuns, ProjectionError> {
    static RUNS: OnceLock<Result<ArmRuns, ProjectionError>> = OnceLock::new();
    RUNS.get_or_init(|| {
        Ok(ArmRuns {
            uncorrected: run_arm(Method::Direct, Integrator::dopri5(), ARM_TAU)?,
            corrected: run_arm(
                Method::Projector(ProjectorConfig::default()),
                Integrator::dopri5(),
                ARM_TAU,
            )?,
        })
    })
    .as_ref()
    .map_err(Clone::clone)
}

fn floor(v: &[f64]) -> Vec<f64> {
    v.iter().map(|x| x.max(1e-18)).collect()
}

/// The violation histories of figures 3–6 (see [`KovecsesHistories`]).
pub fn kovecses_histories() -> Result<KovecsesHistories, ProjectionError> {
    let r = arm_runs()?;
    let series = |tr: &Trajectory| -> Vec<Series> {
        vec![
            (
                "|phi| [m]".to_string(),
                tr.step_times.clone(),
                floor(&tr.step_phi),
            ),
            (
                "|A qd| [m/s]".to_string(),
                tr.step_times.clone(),
                floor(&tr.step_phidot),
            ),
        ]
    };
    Ok(KovecsesHistories {
        fig3_4: series(&r.uncorrected),
        fig5_6: series(&r.corrected),
    })
}

/// A count row (exact under `--check`).
fn count(id: impl Into<String>, n: f64, note: impl Into<String>) -> Row {
    Row::count(id, n).note(note)
}

/// A violation the projector method keeps at round-off: judged against ≤ 1e-12.
fn kept(row: Row) -> Row {
    row.tolerance(Tolerance::AtMost(ROUNDOFF_FLOOR))
}

/// Largest value of `v` over the steps ending at or before `t_max`.
fn max_until(tr: &Trajectory, v: &[f64], t_max: f64) -> f64 {
    tr.step_times
        .iter()
        .zip(v)
        .filter(|(t, _)| **t <= t_max)
        .fold(0.0f64, |m, (_, x)| m.max(*x))
}

/// The configuration-correction comparison setting: (35) or (36), corrections to
/// [`ARM_CORRECTION_TOL`], one velocity filtering.
pub fn correction_comparison_config(correction: ConfigurationCorrection) -> ProjectorConfig {
    ProjectorConfig {
        correction,
        corrections: CorrectionCount::ToTolerance {
            tol: ARM_CORRECTION_TOL,
            max: 50,
        },
        ..ProjectorConfig::default()
    }
}

/// Every `kovecses/*` row (see the module documentation).
pub fn kovecses_rows() -> Result<Vec<Row>, ProjectionError> {
    let mut rows = Vec::new();
    let r = arm_runs()?;
    let (u, c) = (&r.uncorrected, &r.corrected);
    let setting =
        "SSRMS-like arm, tip held (3 rows), Arm7LoadCase, 80 s, DOPRI5 tau = 1e-8 absolute l2";
    rows.push(measured(
        "kovecses/arm/uncorrected/max_phi",
        u.stats.max_phi,
        format!("{setting}; direct integration of (9) (KKT), no correction; max over {} steps of |phi|_2 [m]; the paper's violations grow visibly after ~25 s (its load case and integrator are not printed). The rows of this table are sensitive to round-off over 80 s: forming the world inertias about the world origin instead of the COM (RBDA (2.66)), or the projector's T = Y G^T G (Kovecses (18)) as Y (G^T G) instead of (Y G^T) G, moves a final error by up to 8e-9 (2.7e-5 relative), a correction count by up to 3 and the round-off-level violations (below 1.2e-13) by up to 3.5x", u.stats.steps),
    ));
    rows.push(measured(
        "kovecses/arm/uncorrected/max_phidot",
        u.stats.max_phidot,
        format!("{setting}; direct integration; max |A qd|_2 [m/s]"),
    ));
    rows.push(measured(
        "kovecses/arm/uncorrected/max_phi_first_25s",
        max_until(u, &u.step_phi, 25.0),
        "max |phi|_2 over the first 25 s of the uncorrected run (the paper: violations considerable only after 25 s)",
    ));
    rows.push(measured(
        "kovecses/arm/uncorrected/max_phidot_first_25s",
        max_until(u, &u.step_phidot, 25.0),
        "max |A qd|_2 over the first 25 s of the uncorrected run",
    ));
    rows.push(kept(measured(
        "kovecses/arm/corrected/max_phi",
        c.stats.max_phi,
        format!("{setting}; projector method, paper's setting: accelerations (29)-(31), two corrections (36), one velocity filtering (33) per step; max |phi|_2 [m] (paper 1e-14...1e-15)"),
    )));
    rows.push(kept(measured(
        "kovecses/arm/corrected/max_phidot",
        c.stats.max_phidot,
        format!("{setting}; projector method (paper's setting); max |A qd|_2 [m/s]"),
    )));
    rows.push(count(
        "kovecses/arm/corrected/N_i",
        c.stats.steps as f64,
        format!("accepted steps (uncorrected run: {})", u.stats.steps),
    ));
    rows.push(count(
        "kovecses/arm/corrected/N_f",
        c.stats.f_evals as f64,
        format!("acceleration evaluations incl. DOPRI5's re-evaluation after each correction (uncorrected run: {})", u.stats.f_evals),
    ));
    rows.push(count(
        "kovecses/arm/corrected/projector_evaluations",
        c.stats.projector_evaluations as f64,
        format!("Cholesky of M + SVD of A L^-T in the corrector: 3 per step with (36) x 2 + filtering at q_i+1; {} corrections, {} filterings", c.stats.configuration_corrections, c.stats.velocity_filterings),
    ));

    // (35) vs (36) at a coarse tolerance against a tight reference.
    let reference = run_arm(
        Method::Projector(ProjectorConfig::default()),
        Integrator::dopri5(),
        ARM_REFERENCE_TAU,
    )?;
    let cross = run_arm(
        Method::Perturbation(PerturbationConfig::keerthi()),
        Integrator::dopri5(),
        ARM_REFERENCE_TAU,
    )?;
    let xref = &reference.x_final;
    rows.push(measured(
        "kovecses/arm/reference/crosscheck",
        dist(xref, &cross.x_final),
        "|x_ref(80) - x_pert(80)|_2: projector method vs Keerthi's perturbation approach, both DOPRI5 at tau = 1e-11",
    ));
    rows.push(measured(
        "kovecses/arm/corrected/final_error",
        dist(&c.x_final, xref),
        "|x(80) - x_ref(80)|_2 of the corrected run at tau = 1e-8",
    ));
    rows.push(measured(
        "kovecses/arm/uncorrected/final_error",
        dist(&u.x_final, xref),
        "|x(80) - x_ref(80)|_2 of the uncorrected run at tau = 1e-8",
    ));
    for (name, corr, fixed2) in [
        ("eq35", ConfigurationCorrection::QuasiIterative, false),
        ("eq36", ConfigurationCorrection::Iterative, false),
        ("eq35_fixed2", ConfigurationCorrection::QuasiIterative, true),
        ("eq36_fixed2", ConfigurationCorrection::Iterative, true),
    ] {
        let cfg = if fixed2 {
            ProjectorConfig {
                correction: corr,
                ..ProjectorConfig::default()
            }
        } else {
            correction_comparison_config(corr)
        };
        let tr = run_arm(Method::Projector(cfg), Integrator::dopri5(), ARM_COARSE_TAU)?;
        let s = tr.stats;
        let what = if corr == ConfigurationCorrection::QuasiIterative {
            "(35), directions frozen at q_i"
        } else {
            "(36), directions updated"
        };
        let how = if fixed2 {
            "two open-loop corrections per step"
        } else {
            "corrections until |phi|_2 <= 1e-13 (max 50 per step)"
        };
        let base = format!("kovecses/arm/{name}");
        let note = format!("{what}; DOPRI5 tau = 1e-5, {how}, one velocity filtering at q_i+1; {} steps, {} projector evaluations", s.steps, s.projector_evaluations);
        rows.push(measured(format!("{base}/max_phi"), s.max_phi, note.clone()));
        rows.push(measured(
            format!("{base}/max_phidot"),
            s.max_phidot,
            note.clone(),
        ));
        rows.push(measured(
            format!("{base}/final_error"),
            dist(&tr.x_final, xref),
            format!("|x(80) - x_ref(80)|_2 against the projector method at tau = 1e-11; {note}"),
        ));
        rows.push(count(
            format!("{base}/corrections"),
            s.configuration_corrections as f64,
            format!(
                "configuration corrections over all {} steps; {note}",
                s.steps
            ),
        ));
        rows.push(count(
            format!("{base}/projector_evaluations"),
            s.projector_evaluations as f64,
            "Cholesky of M + SVD of A L^-T in the corrector (the cost that (35) saves)",
        ));
    }
    for tau in [1e-3, 1e-4, 1e-5, 1e-6, 1e-7] {
        let base = format!("kovecses/arm/sweep/tau{tau:.0e}");
        let d = run_arm(Method::Direct, Integrator::dopri5(), tau)?;
        rows.push(measured(
            format!("{base}/direct/final_error"),
            dist(&d.x_final, xref),
            format!(
                "direct integration, DOPRI5 tau = {tau:.0e}; max |phi|_2 = {:.1e}",
                d.stats.max_phi
            ),
        ));
        for (name, corr) in [
            ("eq35", ConfigurationCorrection::QuasiIterative),
            ("eq36", ConfigurationCorrection::Iterative),
        ] {
            let cfg = correction_comparison_config(corr);
            match run_arm(Method::Projector(cfg), Integrator::dopri5(), tau)
                .map_err(ProjectionError::into_cause)
            {
                Ok(tr) => {
                    let note = format!(
                        "{name} to |phi|_2 <= 1e-13, DOPRI5 tau = {tau:.0e}; {} steps, {} corrections, {} projector evaluations, max |phi|_2 = {:.1e}",
                        tr.stats.steps,
                        tr.stats.configuration_corrections,
                        tr.stats.projector_evaluations,
                        tr.stats.max_phi
                    );
                    rows.push(measured(
                        format!("{base}/{name}/final_error"),
                        dist(&tr.x_final, xref),
                        note.clone(),
                    ));
                    rows.push(count(
                        format!("{base}/{name}/corrections"),
                        tr.stats.configuration_corrections as f64,
                        note,
                    ));
                    rows.push(count(
                        format!("{base}/{name}/failed"),
                        0.0,
                        "0: ran to the end",
                    ));
                }
                Err(ProjectionError::NoConvergence {
                    t,
                    iterations,
                    residual,
                }) => {
                    rows.push(count(
                        format!("{base}/{name}/failed"),
                        1.0,
                        format!("1: the correction did not reach 1e-13 within {iterations} corrections at t = {t:.2} s (|phi|_2 = {residual:.1e})"),
                    ));
                }
                Err(e) => return Err(e),
            }
        }
    }
    rows.extend(redundant_rows()?);
    Ok(rows)
}

/// Rows `kovecses/redundant/<mech>/{max_phi,max_phidot,energy_drift,rank,direct_error}`.
pub fn redundant_rows() -> Result<Vec<Row>, ProjectionError> {
    let mut rows = Vec::new();
    let fb = RedundantFourBar::default();
    let (q, qd) = fb
        .state(1.0, 0.0)
        .ok_or(ProjectionError::InvalidParameter {
            name: "four-bar crank angle",
            value: 1.0,
        })?;
    rows.extend(redundant_case(
        "four_bar",
        &fb,
        &q,
        &qd,
        DEFAULT_REDUNDANT_CFG,
    )?);
    let pg = RedundantParallelogram::default();
    let (q, qd) = pg.state(0.4, 0.0);
    rows.extend(redundant_case(
        "parallelogram",
        &pg,
        &q,
        &qd,
        ProjectorConfig {
            rank_rtol: RedundantParallelogram::RANK_RTOL,
            ..ProjectorConfig::default()
        },
    )?);
    Ok(rows)
}

const DEFAULT_REDUNDANT_CFG: ProjectorConfig = ProjectorConfig {
    velocity_filtering: VelocityFiltering::AtNewConfiguration,
    correction: ConfigurationCorrection::Iterative,
    corrections: CorrectionCount::Fixed(2),
    acceleration: AccelerationSolver::Projection,
    rank_rtol: contour::linalg::DEFAULT_RANK_RTOL,
    corrected_output: true,
};

/// Duration of the redundant-mechanism runs \[s\].
pub const REDUNDANT_FINAL_TIME: f64 = 10.0;

/// Runs a redundant mechanism with the projector method (DOPRI5, τ = 1e-8, outputs every
/// 0.01 s) and, for the record, with the direct method.
pub fn run_redundant<M: Mechanism + ?Sized>(
    mech: &M,
    q: &[f64],
    qd: &[f64],
    cfg: ProjectorConfig,
    method: Option<Method>,
) -> Result<Trajectory, ProjectionError> {
    let grid: Vec<f64> = (0..=1000).map(|i| i as f64 * 0.01).collect();
    Simulation::new(mech, q, qd, 0.0, REDUNDANT_FINAL_TIME)
        .method(method.unwrap_or(Method::Projector(cfg)))
        .integrator(Integrator::dopri5())
        .error_control(ErrorControl::absolute(1e-8))
        .output_times(grid)
        .run()
}

/// `max_t |E(t) − E(0)| / max_t T(t)` over the outputs of `tr`.
pub fn relative_energy_drift<M: Mechanism + ?Sized>(mech: &M, tr: &Trajectory) -> f64 {
    let e = |q: &[f64], qd: &[f64]| {
        mech.kinetic_energy(q, qd).unwrap_or(f64::NAN)
            + mech.potential_energy(q).unwrap_or(f64::NAN)
    };
    let e0 = e(&tr.q[0], &tr.qd[0]);
    let mut drift = 0.0f64;
    let mut tmax = 0.0f64;
    for (q, qd) in tr.q.iter().zip(&tr.qd) {
        drift = drift.max((e(q, qd) - e0).abs());
        tmax = tmax.max(mech.kinetic_energy(q, qd).unwrap_or(f64::NAN));
    }
    drift / tmax
}

fn redundant_case<M: Mechanism + ?Sized>(
    name: &str,
    mech: &M,
    q: &[f64],
    qd: &[f64],
    cfg: ProjectorConfig,
) -> Result<Vec<Row>, ProjectionError> {
    let base = format!("kovecses/redundant/{name}");
    let tr = run_redundant(mech, q, qd, cfg, None)?;
    let mut rank = usize::MAX;
    {
        let mut d = ProjectionDynamics::new(mech, cfg.rank_rtol)?;
        let (mut a, mut l) = (vec![0.0; mech.dof()], vec![0.0; mech.n_constraints()]);
        d.accelerations(mech, 0.0, q, qd, &mut a, &mut l)?;
        rank = rank.min(d.rank());
    }
    let direct = Simulation::new(mech, q, qd, 0.0, REDUNDANT_FINAL_TIME)
        .method(Method::Direct)
        .integrator(Integrator::dopri5())
        .error_control(ErrorControl::absolute(1e-8))
        .dynamics(DynamicsOptions {
            rank_deficiency: RankDeficiency::Error,
            ..Default::default()
        })
        .run()
        .map_err(ProjectionError::into_cause);
    let direct_fails = matches!(
        direct,
        Err(ProjectionError::Model(
            ModelError::RankDeficientJacobian { .. }
        ))
    );
    let setting = format!(
        "{} (N = {}, L = {} rows, rank {rank}), gravity, 10 s from rest, DOPRI5 tau = 1e-8, projector method (29)-(31) + two corrections (36) + filtering (33), rank cut-off {:.0e}",
        mech.name(),
        mech.dof(),
        mech.n_constraints(),
        cfg.rank_rtol
    );
    Ok(vec![
        kept(measured(format!("{base}/max_phi"), tr.stats.max_phi, format!("{setting}; max |phi|_2"))),
        kept(measured(format!("{base}/max_phidot"), tr.stats.max_phidot, format!("{setting}; max |A qd|_2"))),
        measured(
            format!("{base}/energy_drift"),
            relative_energy_drift(mech, &tr),
            format!("{setting}; max_t |E(t) - E(0)| / max_t T(t) on a 0.01 s grid (conservative system: integration error plus what the corrections remove)"),
        ),
        count(format!("{base}/rank"), rank as f64, "numerical rank of A at the initial state"),
        count(
            format!("{base}/direct_error"),
            if direct_fails { 1.0 } else { 0.0 },
            match &direct {
                Err(e) => format!("1 = the direct (KKT) method asked to refuse rank deficiency (RankDeficiency::Error) stops with RankDeficientJacobian: {e}"),
                Ok(_) => "0: the direct method did NOT report the rank deficiency".to_string(),
            },
        ),
        count(
            format!("{base}/N_i"),
            tr.stats.steps as f64,
            format!("accepted steps; {} corrections, {} filterings", tr.stats.configuration_corrections, tr.stats.velocity_filterings),
        ),
    ])
}

/// The projector method in Keerthi's comparison (ids `keerthi/extended/KOV/…`, paper null):
/// `keerthi/extended/KOV/<integrator>/ic<k>/{N_i,N_f,max_phi,max_phidot,final_error}` with the
/// default setting at τ = 1e-4 (l2), T = 5 s, for ABM, DOPRI5, RKG and the BDF (which also
/// gives `…/bdf/ic<k>/jacobian_evals`; its `N_f` includes the finite-difference columns), and
/// `keerthi/extended/KOV/eq35/abm/ic<k>/…` with the quasi-iterative correction (35).
pub fn keerthi_kov_rows() -> Result<Vec<Row>, ProjectionError> {
    let t_end = KEERTHI_FINAL_TIME;
    let refs = [reference(1, t_end)?.0, reference(2, t_end)?.0];
    let mut rows = Vec::new();
    let cases = [
        ("", Integrator::abm(), ProjectorConfig::default()),
        ("", Integrator::dopri5(), ProjectorConfig::default()),
        ("", Integrator::rkg(), ProjectorConfig::default()),
        ("", Integrator::bdf(), ProjectorConfig::default()),
        (
            "eq35/",
            Integrator::abm(),
            ProjectorConfig::quasi_iterative(),
        ),
    ];
    for (prefix, integ, cfg) in cases {
        for ic in [1usize, 2] {
            let tr = run_case(
                ic,
                Method::Projector(cfg),
                integ.clone(),
                KEERTHI_TAU,
                t_end,
                vec![],
            )?;
            let s = tr.stats;
            let base = format!("keerthi/extended/KOV/{prefix}{}/ic{ic}", integ.name());
            let mut note = format!(
                "Kovecses-Piedboeuf projector method ({}, one filtering (33)), accelerations (29)-(31), {} at tau = 1e-4 absolute l2, T = {t_end} s; N_f includes the re-evaluation after each correction ({} corrections, {} rejected)",
                if prefix.is_empty() { "two corrections (36)" } else { "two corrections (35)" },
                integ.name(),
                s.configuration_corrections,
                s.rejected_steps
            );
            if let Integrator::Bdf(_) = integ {
                // The BDF's replace_y shifts the history without evaluating f.
                note = note.replace(
                    "N_f includes the re-evaluation after each correction",
                    "replace_y shifts the BDF history without a re-evaluation",
                );
                note.push_str(&bdf_note(&s));
            }
            run_rows(
                &mut rows,
                &base,
                &s,
                matches!(integ, Integrator::Bdf(_)),
                &note,
                dist(&tr.x_final, &refs[ic - 1]),
                "|x(T) - x_ref(T)|_2 against PERT + DOPRI5 at tau = 1e-12; the projector's T = Y G^T G (Kovecses (18)) is formed as (Y G^T) G, and another grouping moves these rows at round-off (bdf/ic1 by 3.3e-10 against tau = 1e-4; max |phi|, |J qd| within 1e-17..3e-16)",
            );
        }
    }
    Ok(rows)
}

/// Source `kovecses`: the rows `kovecses/*` and the figures `kovecses_fig3_4` (uncorrected)
/// and `kovecses_fig5_6` (corrected; round-off noise, compared by structure only).
pub fn source() -> SourceResult {
    let rows = kovecses_rows()?;
    let h = kovecses_histories()?;
    let mut figures = Vec::new();
    for (name, title, series) in [
        ("kovecses_fig3_4", "7-joint closed-loop arm, 80 s, uncorrected (direct integration): constraint violations", h.fig3_4),
        ("kovecses_fig5_6", "7-joint closed-loop arm, 80 s, one velocity filtering + two corrections (36)", h.fig5_6),
    ] {
        let mut fig = LinePlot::new(name, title, "t [s]", "‖φ‖₂ [m], ‖A q̇‖₂ [m/s]");
        fig.log_y = true;
        for (label, t, v) in series {
            fig.series.push(crate::Series::line(label, t.into_iter().zip(v).collect()));
        }
        fig.noisy = name == "kovecses_fig5_6"; // corrected violations are round-off noise
        figures.push(fig);
    }
    Ok(SourceOutput { rows, figures })
}
