//! Kövecses & Piedbœuf (papers/001) for `cargo xtask reproduce-tables`: rows `kovecses/*`,
//! the violation histories of figures 3–6, and the projector method in Keerthi's comparison
//! (`keerthi/extended/KOV/*`).
//!
//! **The arm** (REPRODUCTION.md): [`contour_model::models::ssrms_arm_tip_held`] (7 revolute
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
//! methods stop with [`ModelError::RankDeficientJacobian`]; the projector method runs.
//! `energy_drift = max_t |E(t) − E(0)| / E_scale` over the output grid (E_scale = the largest
//! kinetic energy reached).

//!
//! ## Numbers (dev profile; all four functions run in < 1 s)
//!
//! | row | ours |
//! |---|---|
//! | `kovecses/arm/uncorrected/max_phi`, `/max_phidot` | 1.4e-7 m, 7.3e-9 m/s (1.1e-8, 1.2e-9 over the first 25 s) |
//! | `kovecses/arm/corrected/max_phi`, `/max_phidot` | 4.9e-15 m, 5.6e-14 m/s |
//! | `kovecses/arm/eq35/{max_phi,final_error,corrections}` (τ = 1e-5) | 1.0e-13, 2.3e-2, 1650 |
//! | `kovecses/arm/eq36/{max_phi,final_error,corrections}` (τ = 1e-5) | 9.9e-14, 1.2e-2, 256 |
//! | `kovecses/redundant/four_bar/{max_phi,max_phidot,energy_drift}` | 1.7e-16, 1.6e-15, 8.9e-9 |
//! | `kovecses/redundant/parallelogram/{max_phi,max_phidot,energy_drift}` | 1.3e-16, 1.4e-15, 2.2e-8 |

use std::sync::OnceLock;

use contour_model::models::{arm7_initial_q, ssrms_arm_tip_held, Arm7LoadCase, RedundantFourBar};
use contour_model::tree::ConstrainedTree;
use contour_model::{Mechanism, ModelError, WithController};
use faer::MatMut;

use crate::error::ProjectionError;
use crate::kovecses::{ConfigurationCorrection, CorrectionCount, ProjectorConfig};
use crate::perturbation::PerturbationConfig;
use crate::reproduction::{dist, reference, run_case, KeerthiRow, KEERTHI_FINAL_TIME, KEERTHI_TAU};
use crate::simulation::{Integrator, Method, Simulation};
use crate::tolerance::ErrorControl;
use crate::trajectory::Trajectory;

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

fn row(id: impl Into<String>, ours: f64, note: impl Into<String>) -> KeerthiRow {
    KeerthiRow {
        id: id.into(),
        paper: None,
        ours,
        note: note.into(),
    }
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
pub fn kovecses_rows() -> Result<Vec<KeerthiRow>, ProjectionError> {
    let mut rows = Vec::new();
    let r = arm_runs()?;
    let (u, c) = (&r.uncorrected, &r.corrected);
    let setting =
        "SSRMS-like arm, tip held (3 rows), Arm7LoadCase, 80 s, DOPRI5 tau = 1e-8 absolute l2";
    rows.push(row(
        "kovecses/arm/uncorrected/max_phi",
        u.stats.max_phi,
        format!("{setting}; direct integration of (9) (KKT), no correction; max over {} steps of |phi|_2 [m]; the paper's violations grow visibly after ~25 s (its load case and integrator are not printed)", u.stats.steps),
    ));
    rows.push(row(
        "kovecses/arm/uncorrected/max_phidot",
        u.stats.max_phidot,
        format!("{setting}; direct integration; max |A qd|_2 [m/s]"),
    ));
    rows.push(row(
        "kovecses/arm/uncorrected/max_phi_first_25s",
        max_until(u, &u.step_phi, 25.0),
        "max |phi|_2 over the first 25 s of the uncorrected run (the paper: violations considerable only after 25 s)",
    ));
    rows.push(row(
        "kovecses/arm/uncorrected/max_phidot_first_25s",
        max_until(u, &u.step_phidot, 25.0),
        "max |A qd|_2 over the first 25 s of the uncorrected run",
    ));
    rows.push(row(
        "kovecses/arm/corrected/max_phi",
        c.stats.max_phi,
        format!("{setting}; projector method, paper's setting: accelerations (29)-(31), two corrections (36), one velocity filtering (33) per step; max |phi|_2 [m] (paper 1e-14...1e-15)"),
    ));
    rows.push(row(
        "kovecses/arm/corrected/max_phidot",
        c.stats.max_phidot,
        format!("{setting}; projector method (paper's setting); max |A qd|_2 [m/s]"),
    ));
    rows.push(row(
        "kovecses/arm/corrected/N_i",
        c.stats.steps as f64,
        format!("accepted steps (uncorrected run: {})", u.stats.steps),
    ));
    rows.push(row(
        "kovecses/arm/corrected/N_f",
        c.stats.f_evals as f64,
        format!("acceleration evaluations incl. DOPRI5's re-evaluation after each correction (uncorrected run: {})", u.stats.f_evals),
    ));
    rows.push(row(
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
        Method::Perturbation(PerturbationConfig::default()),
        Integrator::dopri5(),
        ARM_REFERENCE_TAU,
    )?;
    let xref = &reference.x_final;
    rows.push(row(
        "kovecses/arm/reference/crosscheck",
        dist(xref, &cross.x_final),
        "|x_ref(80) - x_pert(80)|_2: projector method vs Keerthi's perturbation approach, both DOPRI5 at tau = 1e-11",
    ));
    rows.push(row(
        "kovecses/arm/corrected/final_error",
        dist(&c.x_final, xref),
        "|x(80) - x_ref(80)|_2 of the corrected run at tau = 1e-8",
    ));
    rows.push(row(
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
        rows.push(row(format!("{base}/max_phi"), s.max_phi, note.clone()));
        rows.push(row(
            format!("{base}/max_phidot"),
            s.max_phidot,
            note.clone(),
        ));
        rows.push(row(
            format!("{base}/final_error"),
            dist(&tr.x_final, xref),
            format!("|x(80) - x_ref(80)|_2 against the projector method at tau = 1e-11; {note}"),
        ));
        rows.push(row(
            format!("{base}/corrections"),
            s.configuration_corrections as f64,
            format!(
                "configuration corrections over all {} steps; {note}",
                s.steps
            ),
        ));
        rows.push(row(
            format!("{base}/projector_evaluations"),
            s.projector_evaluations as f64,
            "Cholesky of M + SVD of A L^-T in the corrector (the cost that (35) saves)",
        ));
    }
    for tau in [1e-3, 1e-4, 1e-5, 1e-6, 1e-7] {
        let base = format!("kovecses/arm/sweep/tau{tau:.0e}");
        let d = run_arm(Method::Direct, Integrator::dopri5(), tau)?;
        rows.push(row(
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
                    rows.push(row(
                        format!("{base}/{name}/final_error"),
                        dist(&tr.x_final, xref),
                        note.clone(),
                    ));
                    rows.push(row(
                        format!("{base}/{name}/corrections"),
                        tr.stats.configuration_corrections as f64,
                        note,
                    ));
                    rows.push(row(
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
                    rows.push(row(
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
pub fn redundant_rows() -> Result<Vec<KeerthiRow>, ProjectionError> {
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
    velocity_filtering: crate::kovecses::VelocityFiltering::AtNewConfiguration,
    correction: ConfigurationCorrection::Iterative,
    corrections: CorrectionCount::Fixed(2),
    acceleration: crate::kovecses::AccelerationSolver::Projection,
    rank_rtol: contour_linalg::DEFAULT_RANK_RTOL,
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
) -> Result<Vec<KeerthiRow>, ProjectionError> {
    let base = format!("kovecses/redundant/{name}");
    let tr = run_redundant(mech, q, qd, cfg, None)?;
    let mut rank = usize::MAX;
    {
        let mut d = crate::kovecses::ProjectionDynamics::new(mech, cfg.rank_rtol)?;
        let (mut a, mut l) = (vec![0.0; mech.dof()], vec![0.0; mech.n_constraints()]);
        d.accelerations(mech, 0.0, q, qd, &mut a, &mut l)?;
        rank = rank.min(d.rank());
    }
    let direct =
        run_redundant(mech, q, qd, cfg, Some(Method::Direct)).map_err(ProjectionError::into_cause);
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
        row(format!("{base}/max_phi"), tr.stats.max_phi, format!("{setting}; max |phi|_2")),
        row(format!("{base}/max_phidot"), tr.stats.max_phidot, format!("{setting}; max |A qd|_2")),
        row(
            format!("{base}/energy_drift"),
            relative_energy_drift(mech, &tr),
            format!("{setting}; max_t |E(t) - E(0)| / max_t T(t) on a 0.01 s grid (conservative system: integration error plus what the corrections remove)"),
        ),
        row(format!("{base}/rank"), rank as f64, "numerical rank of A at the initial state"),
        row(
            format!("{base}/direct_error"),
            if direct_fails { 1.0 } else { 0.0 },
            match &direct {
                Err(e) => format!("1 = the direct (KKT) method stops with RankDeficientJacobian: {e}"),
                Ok(_) => "0: the direct method did NOT report the rank deficiency".to_string(),
            },
        ),
        row(
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
pub fn keerthi_kov_rows() -> Result<Vec<KeerthiRow>, ProjectionError> {
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
                note.push_str(&crate::reproduction::bdf_note(&s));
            }
            rows.push(row(format!("{base}/N_i"), s.steps as f64, note.clone()));
            rows.push(row(format!("{base}/N_f"), s.f_evals as f64, note));
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
                dist(&tr.x_final, &refs[ic - 1]),
                "|x(T) - x_ref(T)|_2 against PERT + DOPRI5 at tau = 1e-12",
            ));
            if let Integrator::Bdf(_) = integ {
                rows.push(row(
                    format!("{base}/jacobian_evals"),
                    s.jacobian_evals as f64,
                    crate::reproduction::bdf_note(&s),
                ));
            }
        }
    }
    Ok(rows)
}

/// A parallelogram linkage with a redundant middle crank: three equal cranks (length `a`,
/// mass `m_c`, uniform bars) pivoting at `(0, 0)`, `(d/2, 0)` and `(d, 0)`, pinned to a coupler
/// (length `d`, mass `m_b`, uniform bar) at its left end, middle and right end. Gravity along −y.
///
/// `q = (θ1, θ2, θ3, x, y, ψ)`: crank angles (left, right, middle) and the coupler's centre
/// and angle. `M = diag(I_c, I_c, I_c, m_b, m_b, m_b d²/12)`, `I_c = m_c a²/3`,
/// `h = g (m_c a/2 cos θ1, m_c a/2 cos θ2, m_c a/2 cos θ3, 0, m_b, 0)`;
///
/// ```text
/// φ0,1 = a(cos θ1, sin θ1) − (x, y) + d/2 (cos ψ, sin ψ)
/// φ2,3 = (d, 0) + a(cos θ2, sin θ2) − (x, y) − d/2 (cos ψ, sin ψ)
/// φ4,5 = (d/2, 0) + a(cos θ3, sin θ3) − (x, y)
/// ```
///
/// Six rows on six coordinates, yet the linkage moves: on the parallelogram motion
/// (`θ1 = θ2 = θ3`, `ψ = 0`) `rank A = 5` — the middle crank is the classic redundant
/// (over-constrained) member. The rank deficiency is configuration-dependent: off the motion
/// by `ε` the sixth singular value is `O(ε)`, so the pseudo-inverse uses the looser cut-off
/// [`RedundantParallelogram::RANK_RTOL`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RedundantParallelogram {
    /// Crank length a \[m\] (0.2).
    pub crank_length: f64,
    /// Coupler length d (also the pivot span) \[m\] (0.5).
    pub coupler_length: f64,
    /// Mass of each crank \[kg\] (1).
    pub crank_mass: f64,
    /// Coupler mass \[kg\] (2).
    pub coupler_mass: f64,
    /// Gravitational acceleration along −y \[m/s²\] (9.81).
    pub gravity: f64,
}

impl Default for RedundantParallelogram {
    fn default() -> Self {
        Self {
            crank_length: 0.2,
            coupler_length: 0.5,
            crank_mass: 1.0,
            coupler_mass: 2.0,
            gravity: 9.81,
        }
    }
}

impl RedundantParallelogram {
    /// Relative rank cut-off for this mechanism: drops singular values below `1e-6 σ_max`
    /// (state errors of the integrator stay far below 1e-6 of the link lengths).
    pub const RANK_RTOL: f64 = 1e-6;

    /// The consistent state with all cranks at angle `theta` and rate `omega`.
    pub fn state(&self, theta: f64, omega: f64) -> ([f64; 6], [f64; 6]) {
        let (a, d) = (self.crank_length, self.coupler_length);
        let (s, c) = theta.sin_cos();
        (
            [theta, theta, theta, 0.5 * d + a * c, a * s, 0.0],
            [omega, omega, omega, -a * s * omega, a * c * omega, 0.0],
        )
    }
}

impl Mechanism for RedundantParallelogram {
    fn name(&self) -> &str {
        "redundant-parallelogram"
    }
    fn dof(&self) -> usize {
        6
    }
    fn n_constraints(&self) -> usize {
        6
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        let (a, d) = (self.crank_length, self.coupler_length);
        m.fill(0.0);
        let ic = self.crank_mass * a * a / 3.0;
        for i in 0..3 {
            m[(i, i)] = ic;
        }
        m[(3, 3)] = self.coupler_mass;
        m[(4, 4)] = self.coupler_mass;
        m[(5, 5)] = self.coupler_mass * d * d / 12.0;
    }
    fn bias_forces(&self, q: &[f64], _qd: &[f64], h: &mut [f64]) {
        let g = self.gravity;
        let k = g * self.crank_mass * 0.5 * self.crank_length;
        for i in 0..3 {
            h[i] = k * q[i].cos();
        }
        h[3] = 0.0;
        h[4] = g * self.coupler_mass;
        h[5] = 0.0;
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        let (a, d) = (self.crank_length, self.coupler_length);
        let (sp, cp) = q[5].sin_cos();
        let (x, y) = (q[3], q[4]);
        phi[0] = a * q[0].cos() - x + 0.5 * d * cp;
        phi[1] = a * q[0].sin() - y + 0.5 * d * sp;
        phi[2] = d + a * q[1].cos() - x - 0.5 * d * cp;
        phi[3] = a * q[1].sin() - y - 0.5 * d * sp;
        phi[4] = 0.5 * d + a * q[2].cos() - x;
        phi[5] = a * q[2].sin() - y;
    }
    fn constraint_jacobian(&self, _t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        let (a, d) = (self.crank_length, self.coupler_length);
        let (sp, cp) = q[5].sin_cos();
        j.fill(0.0);
        for (k, row) in [(0usize, 0usize), (1, 2), (2, 4)] {
            let (s, c) = q[k].sin_cos();
            j[(row, k)] = -a * s;
            j[(row + 1, k)] = a * c;
            j[(row, 3)] = -1.0;
            j[(row + 1, 4)] = -1.0;
        }
        j[(0, 5)] = -0.5 * d * sp;
        j[(1, 5)] = 0.5 * d * cp;
        j[(2, 5)] = 0.5 * d * sp;
        j[(3, 5)] = -0.5 * d * cp;
    }
    fn constraint_accel_bias(&self, _t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        let (a, d) = (self.crank_length, self.coupler_length);
        let (sp, cp) = q[5].sin_cos();
        let w2 = qd[5] * qd[5];
        for (k, row) in [(0usize, 0usize), (1, 2), (2, 4)] {
            let (s, c) = q[k].sin_cos();
            let t2 = qd[k] * qd[k];
            rho[row] = -a * c * t2;
            rho[row + 1] = -a * s * t2;
        }
        rho[0] -= 0.5 * d * cp * w2;
        rho[1] -= 0.5 * d * sp * w2;
        rho[2] += 0.5 * d * cp * w2;
        rho[3] += 0.5 * d * sp * w2;
    }
    fn kinetic_energy(&self, _q: &[f64], qd: &[f64]) -> Option<f64> {
        let (a, d) = (self.crank_length, self.coupler_length);
        let ic = self.crank_mass * a * a / 3.0;
        let mb = self.coupler_mass;
        Some(
            0.5 * ic * (qd[0] * qd[0] + qd[1] * qd[1] + qd[2] * qd[2])
                + 0.5 * mb * (qd[3] * qd[3] + qd[4] * qd[4])
                + 0.5 * mb * d * d / 12.0 * qd[5] * qd[5],
        )
    }
    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        let k = self.gravity * self.crank_mass * 0.5 * self.crank_length;
        Some(k * (q[0].sin() + q[1].sin() + q[2].sin()) + self.gravity * self.coupler_mass * q[4])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallelogram_model_passes_finite_difference_checks() {
        let p = RedundantParallelogram::default();
        let mut rng = contour_model::testing::SplitMix64::new(7);
        for _ in 0..10 {
            let q = rng.vector(6, -1.0, 1.0);
            let qd = rng.vector(6, -1.0, 1.0);
            let ej = contour_model::testing::check_jacobian(&p, 0.0, &q).unwrap();
            let er = contour_model::testing::check_accel_bias(&p, 0.0, &q, &qd).unwrap();
            assert!(ej < 1e-7 && er < 1e-6, "{ej:e} {er:e}");
        }
        let (q, qd) = p.state(0.4, 0.7);
        let mut phi = [1.0; 6];
        p.constraints(0.0, &q, &mut phi);
        assert!(phi.iter().all(|v| v.abs() < 1e-16), "{phi:?}");
        let (pr, vr) = contour_model::constraint_residuals(&p, 0.0, &q, &qd).unwrap();
        assert!(pr < 1e-16 && vr < 1e-16);
        let mut j = faer::Mat::zeros(6, 6);
        p.constraint_jacobian(0.0, &q, j.as_mut());
        assert_eq!(
            contour_linalg::numerical_rank(j.as_ref(), 0.0, 1e-10).unwrap(),
            5
        );
    }
}
