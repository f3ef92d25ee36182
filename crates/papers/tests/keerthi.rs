//! Keerthi's robot with the control law (4.5): the claims of section 4 and of the methods.

use contour::model::models::KEERTHI_IC2;
use contour::model::ConsistentStateOptions;
use contour::projection::{
    ErrorControl, Integrator, Method, PerturbationConfig, Simulation, Trajectory, VelocityJacobian,
};
use contour_papers::keerthi::{
    dist, keerthi_system, reference, run_case, settling_time, table_method, KEERTHI_FINAL_TIME,
    KEERTHI_TAU,
};

fn pert() -> Method {
    Method::Perturbation(PerturbationConfig::keerthi())
}

/// Keerthi's IC2 under PERT + ABM at his τ and final time.
fn ic2_pert_abm(cfg: PerturbationConfig) -> Trajectory {
    run_case(
        2,
        Method::Perturbation(cfg),
        Integrator::abm(),
        KEERTHI_TAU,
        KEERTHI_FINAL_TIME,
        vec![],
    )
    .unwrap()
}

/// PERT keeps `φ` at round-off while ICS δ = 0 drifts (REPRODUCTION.md, qualitative finding 3),
/// on both initial conditions.
#[test]
fn pert_at_round_off_direct_drifts() {
    for ic in [1, 2] {
        let p = run_case(
            ic,
            pert(),
            Integrator::abm(),
            KEERTHI_TAU,
            KEERTHI_FINAL_TIME,
            vec![],
        )
        .unwrap();
        let d = run_case(
            ic,
            Method::Direct,
            Integrator::abm(),
            KEERTHI_TAU,
            KEERTHI_FINAL_TIME,
            vec![],
        )
        .unwrap();
        assert!(p.stats.max_phi < 1e-15, "ic{ic}: {:e}", p.stats.max_phi);
        assert!(d.stats.max_phi > 1e-6, "ic{ic}: {:e}", d.stats.max_phi);
        assert!(d.stats.max_phi > 1e9 * p.stats.max_phi);
    }
}

/// ECS needs the most steps; the counts of every method are within a factor 2 of each other
/// except ECS (REPRODUCTION.md, qualitative finding 1).
#[test]
fn ecs_needs_the_most_steps() {
    for ic in [1, 2] {
        let ecs = run_case(
            ic,
            table_method("ECS").unwrap(),
            Integrator::Bdf(Default::default()),
            KEERTHI_TAU,
            KEERTHI_FINAL_TIME,
            vec![],
        )
        .unwrap();
        for name in ["PERT", "PARAM", "ICS0", "ICS2"] {
            let tr = run_case(
                ic,
                table_method(name).unwrap(),
                Integrator::abm(),
                KEERTHI_TAU,
                KEERTHI_FINAL_TIME,
                vec![],
            )
            .unwrap();
            assert!(
                ecs.stats.steps > tr.stats.steps,
                "ic{ic} {name}: {} vs {}",
                ecs.stats.steps,
                tr.stats.steps
            );
        }
    }
}

/// The ABM variant that projects before the final evaluation of PECE gives the same solution
/// as `replace_y` after the step (which re-evaluates f and shifts the differences) with one
/// evaluation per step less: `N_f = 2 N_i + 1 + rejected`.
#[test]
fn abm_project_before_final_evaluation_is_equivalent() {
    let a = ic2_pert_abm(PerturbationConfig::keerthi());
    let cfg = PerturbationConfig {
        project_before_final_evaluation: false,
        ..PerturbationConfig::keerthi()
    };
    let b = ic2_pert_abm(cfg);
    assert_eq!(a.stats.steps, b.stats.steps);
    assert_eq!(a.stats.rejected_steps, b.stats.rejected_steps);
    assert!(
        dist(&a.x_final, &b.x_final) < 1e-13,
        "{:e}",
        dist(&a.x_final, &b.x_final)
    );
    assert_eq!(a.stats.f_evals + a.stats.steps, b.stats.f_evals);
    assert_eq!(
        a.stats.f_evals,
        2 * a.stats.steps + 1 + a.stats.rejected_steps
    );
}

/// Global convergence: the final error against the τ = 1e-12 reference falls with τ, for PERT
/// (ABM and DOPRI5) and the direct approach.
#[test]
fn final_error_converges_with_the_tolerance() {
    let t_end = 3.0;
    let (xref, cross) = reference(2, t_end).unwrap();
    assert!(cross < 1e-10, "{cross:e}");
    for (method, integ) in [
        (pert(), Integrator::abm()),
        (pert(), Integrator::dopri5()),
        (Method::Direct, Integrator::abm()),
    ] {
        let errs: Vec<f64> = [1e-4, 1e-6, 1e-8]
            .iter()
            .map(|&tau| {
                let tr = run_case(2, method.clone(), integ.clone(), tau, t_end, vec![]).unwrap();
                dist(&tr.x_final, &xref)
            })
            .collect();
        assert!(
            errs[1] < 0.1 * errs[0] && errs[2] < 0.1 * errs[1],
            "{} {errs:?}",
            integ.name()
        );
        assert!(errs[2] < 1e-6, "{errs:?}");
    }
}

/// The final time of the tables is the settling time of initial condition 2 to within τ,
/// rounded up to the whole second (module documentation of `reproduction`).
#[test]
fn final_time_is_the_settling_time_of_ic2() {
    let s2 = settling_time(2, KEERTHI_TAU).unwrap();
    let s1 = settling_time(1, KEERTHI_TAU).unwrap();
    assert_eq!(s2.ceil(), KEERTHI_FINAL_TIME);
    assert!(s1 < s2);
}

/// With `J` at the corrected position the velocity constraint is also at round-off.
#[test]
fn projected_velocity_jacobian_zeroes_the_velocity_constraint() {
    let cfg = PerturbationConfig {
        velocity_jacobian: VelocityJacobian::Projected,
        ..Default::default()
    };
    let tr = ic2_pert_abm(cfg);
    assert!(
        tr.stats.max_phi < 1e-15 && tr.stats.max_phidot < 1e-14,
        "{:?}",
        tr.stats
    );
    // two QR factorizations per step: J(q̄) for positions, J(qₖ₊₁) for velocities
    assert_eq!(tr.stats.qr_factorizations, 2 * tr.stats.projections);
}

/// The printed initial condition is inconsistent (‖φ‖ ≈ 1.6e-3): refused unless projected.
#[test]
fn printed_initial_condition_needs_projection() {
    let sys = keerthi_system();
    let sim = Simulation::new(&sys, &KEERTHI_IC2.q, &KEERTHI_IC2.qd, 0.0, 1.0)
        .method(pert())
        .error_control(ErrorControl::absolute(1e-4));
    match sim.run() {
        Err(contour::projection::ProjectionError::InconsistentInitialState {
            position_residual,
            ..
        }) => assert!(
            (position_residual - 1.6e-3).abs() < 1e-4,
            "{position_residual:e}"
        ),
        other => panic!("{other:?}"),
    }
    let tr = sim
        .make_consistent(ConsistentStateOptions::default())
        .run()
        .unwrap();
    assert!(tr.stats.initial_phi < 1e-14);
}

/// Every fixed identifier of REPRODUCTION.md is produced, with the printed value where there
/// is one and a finite value of ours.
#[test]
fn every_keerthi_row_is_produced() {
    let rows = contour_papers::keerthi::tables::keerthi_rows().unwrap();
    for table in ["table4.1", "table4.2"] {
        for m in ["PERT", "PARAM", "ICS0", "ICS2", "ECS"] {
            for q in ["N_i", "N_f", "max_phi", "max_phidot", "final_error"] {
                let id = format!("keerthi/{table}/{m}/{q}");
                let r = rows
                    .iter()
                    .find(|r| r.id == id)
                    .unwrap_or_else(|| panic!("{id}"));
                assert!(r.ours.is_finite(), "{id}");
                assert_eq!(r.paper.is_some(), q.starts_with("N_"), "{id}");
                assert!(!r.note.is_empty());
            }
        }
    }
    let get = |id: &str| rows.iter().find(|r| r.id == id).unwrap();
    assert_eq!(get("keerthi/table4.2/ECS/N_f").paper, Some(601.0));
    assert_eq!(get("keerthi/table4.1/PERT/N_i").paper, Some(33.0));
    assert_eq!(get("keerthi/final_time").ours, KEERTHI_FINAL_TIME);
}
