//! Physical facts of every method on the Cartesian pendulum (ℓ = 1, m = 1, g = 9.81),
//! released at 1 rad and simulated for 10 s: PERT and PARAM stay on the circle to round-off,
//! the direct approach drifts, Baumgarte bounds the drift, ECS keeps it at the tolerance level.

use contour_model::models::Pendulum;
use contour_model::Mechanism;
use contour_projection::{
    BaumgarteGains, EcsConfig, ErrorControl, Integrator, Method, ParametrizationConfig,
    PerturbationConfig, Simulation, Trajectory,
};

fn run(method: Method, integrator: Integrator, tau: f64, t_end: f64) -> Trajectory {
    let p = Pendulum::default();
    let (q, qd) = p.state(1.0, 0.0);
    Simulation::new(&p, &q, &qd, 0.0, t_end)
        .method(method)
        .integrator(integrator)
        .error_control(ErrorControl::absolute(tau))
        .run()
        .unwrap()
}

fn energy(tr: &Trajectory, i: usize) -> f64 {
    let p = Pendulum::default();
    p.kinetic_energy(&tr.q[i], &tr.qd[i]).unwrap() + p.potential_energy(&tr.q[i]).unwrap()
}

#[test]
fn perturbation_keeps_the_circle_at_round_off_with_every_integrator() {
    for integ in [Integrator::abm(), Integrator::dopri5(), Integrator::rkg()] {
        let name = integ.name();
        let tr = run(
            Method::Perturbation(PerturbationConfig::default()),
            integ,
            1e-6,
            10.0,
        );
        assert!(
            tr.stats.max_phi <= 4.0 * f64::EPSILON,
            "{name}: {:e}",
            tr.stats.max_phi
        );
        // J(q̄) in the velocity correction (3.4) leaves J q̇ = O(|Δq|·|v|) ≤ O(τ)
        assert!(
            tr.stats.max_phidot <= 1e-6,
            "{name}: {:e}",
            tr.stats.max_phidot
        );
        // one correction per kept step plus one per redone step (Remark 2.5)
        assert_eq!(
            tr.stats.projections,
            tr.stats.steps + tr.stats.redone_steps,
            "{name}"
        );
        assert!(
            tr.stats.redone_steps * 10 <= tr.stats.steps,
            "{name}: {:?}",
            tr.stats
        );
        // energy conserved to the accuracy of the integration
        let e0 = energy(&tr, 0);
        let e1 = energy(&tr, tr.times.len() - 1);
        assert!((e1 - e0).abs() < 1e-3, "{name}: {e0} -> {e1}");
    }
}

#[test]
fn direct_approach_drifts_and_baumgarte_bounds_the_drift() {
    let direct = run(Method::Direct, Integrator::abm(), 1e-6, 10.0);
    let pert = run(
        Method::Perturbation(PerturbationConfig::default()),
        Integrator::abm(),
        1e-6,
        10.0,
    );
    let n = direct.step_phi.len();
    // φ̈ = 0 is marginally stable: the violation grows (Huang 5.2.4: φ ≈ εt + δ)
    let early = direct.step_phi[..n / 10]
        .iter()
        .fold(0.0f64, |m, v| m.max(*v));
    let late = direct.step_phi[n - n / 10..]
        .iter()
        .fold(0.0f64, |m, v| m.max(*v));
    assert!(late > 3.0 * early, "early {early:e} late {late:e}");
    assert!(direct.stats.max_phi > 1e6 * pert.stats.max_phi.max(1e-17));
    assert!(direct.stats.max_phi > 1e-9, "{:e}", direct.stats.max_phi);
    let bg = run(
        Method::Baumgarte(BaumgarteGains::critical(10.0).unwrap()),
        Integrator::abm(),
        1e-6,
        10.0,
    );
    let bg_late = bg.step_phi[bg.step_phi.len() * 9 / 10..]
        .iter()
        .fold(0.0f64, |m, v| m.max(*v));
    assert!(bg_late < late, "baumgarte {bg_late:e} vs direct {late:e}");
}

/// `‖x_a(T) − x_b(T)‖₂` of two runs.
fn final_distance(a: &Trajectory, b: &Trajectory) -> f64 {
    let s: f64 = a
        .x_final
        .iter()
        .zip(&b.x_final)
        .map(|(x, y)| (x - y).powi(2))
        .sum();
    s.sqrt()
}

#[test]
fn parametrization_stays_on_the_circle_and_reparametrizes() {
    let tr = run(
        Method::Parametrization(ParametrizationConfig::default()),
        Integrator::abm(),
        1e-6,
        10.0,
    );
    assert!(tr.stats.max_phi <= 1e-14, "{:e}", tr.stats.max_phi);
    assert!(tr.stats.max_phidot <= 1e-13, "{:e}", tr.stats.max_phidot);
    // a swing of ±1 rad tilts the tangent by more than 45°: the chart is renewed
    assert!(
        tr.stats.reparametrizations >= 2,
        "{}",
        tr.stats.reparametrizations
    );
    assert_eq!(tr.stats.restarts, tr.stats.reparametrizations);
    // the same motion as PERT to the tolerance
    let pert = run(
        Method::Perturbation(PerturbationConfig::default()),
        Integrator::abm(),
        1e-6,
        10.0,
    );
    let d = final_distance(&tr, &pert);
    assert!(d < 1e-3, "{d:e}");
}

#[test]
fn exact_stabilization_keeps_the_constraint_at_the_tolerance_level() {
    let ecs = run(
        Method::ExactStabilization(EcsConfig::default()),
        Integrator::Bdf(Default::default()),
        1e-6,
        5.0,
    );
    assert!(ecs.stats.max_phi < 1e-5, "{:e}", ecs.stats.max_phi);
    assert!(ecs.stats.newton_iterations > 0 && ecs.stats.factorizations > 0);
    let pert = run(
        Method::Perturbation(PerturbationConfig::default()),
        Integrator::dopri5(),
        1e-10,
        5.0,
    );
    let d = final_distance(&ecs, &pert);
    assert!(d < 1e-2, "{d:e}");
}

/// Requested output times: interpolated, projected (Remark 2.2), λ = −m(g y + |v|²)/(2ℓ²)·…
/// consistent with the rod tension.
#[test]
fn outputs_at_requested_times_are_on_the_manifold() {
    let p = Pendulum::default();
    let (q, qd) = p.state(1.0, 0.0);
    let times: Vec<f64> = (0..=40).map(|i| i as f64 * 0.05).collect();
    let tr = Simulation::new(&p, &q, &qd, 0.0, 2.0)
        .method(Method::Perturbation(PerturbationConfig::default()))
        .integrator(Integrator::abm())
        .error_control(ErrorControl::absolute(1e-6))
        .output_times(times.clone())
        .run()
        .unwrap();
    assert_eq!(tr.times, times);
    for i in 0..tr.times.len() {
        let (x, y) = (tr.q[i][0], tr.q[i][1]);
        assert!((x * x + y * y - 1.0).abs() < 1e-14);
        let v2 = tr.qd[i][0].powi(2) + tr.qd[i][1].powi(2);
        // radial balance: m v²/ℓ = T − m g cos θ, cos θ = −y; λ = −T/(2ℓ)
        let tension = v2 - 9.81 * y;
        assert!(
            (tr.lambda[i][0] + 0.5 * tension).abs() < 1e-9,
            "{}",
            tr.lambda[i][0]
        );
    }
    let json = serde_json::to_string(&tr).unwrap();
    let back: Trajectory = serde_json::from_str(&json).unwrap();
    assert_eq!(back.stats, tr.stats);
    // serde_json's default float parser is not round-trip exact in the last bit
    for (a, b) in back.times.iter().zip(&tr.times) {
        assert!((a - b).abs() <= 2.0 * f64::EPSILON * b.abs());
    }
}

/// Remark 2.5: a correction larger than `accept_factor·τ` is refused and the step redone with
/// half the size (restart from the last accepted point); the run still ends on the circle.
/// With an impossible acceptance threshold the method reports `ProjectionFailed`.
#[test]
fn refused_corrections_redo_the_step() {
    let cfg = PerturbationConfig {
        accept_factor: 0.02,
        ..Default::default()
    };
    let tr = run(Method::Perturbation(cfg), Integrator::abm(), 1e-6, 2.0);
    assert!(tr.stats.redone_steps > 0, "{:?}", tr.stats);
    assert_eq!(tr.stats.restarts, tr.stats.redone_steps);
    assert!(tr.stats.max_phi <= 4.0 * f64::EPSILON);
    let p = Pendulum::default();
    let (q, qd) = p.state(1.0, 0.0);
    let cfg = PerturbationConfig {
        accept_factor: 1e-300,
        max_redos: 3,
        ..Default::default()
    };
    let r = Simulation::new(&p, &q, &qd, 0.0, 1.0)
        .method(Method::Perturbation(cfg))
        .integrator(Integrator::dopri5())
        .error_control(ErrorControl::absolute(1e-6))
        .run()
        .map_err(contour_projection::ProjectionError::into_cause);
    assert!(
        matches!(
            r,
            Err(contour_projection::ProjectionError::ProjectionFailed { redos: 3, .. })
        ),
        "{r:?}"
    );
}

/// Both correction terms of (4.4) give the same motion; Huang's gains (5.2.20) stabilize.
#[test]
fn ecs_forms_agree_and_huang_gains_work() {
    use contour_projection::EcsForm;
    let a = run(
        Method::ExactStabilization(EcsConfig {
            form: EcsForm::Full,
        }),
        Integrator::Bdf(Default::default()),
        1e-8,
        2.0,
    );
    let b = run(
        Method::ExactStabilization(EcsConfig {
            form: EcsForm::BlockDiagonal,
        }),
        Integrator::Bdf(Default::default()),
        1e-8,
        2.0,
    );
    let d: f64 = a
        .x_final
        .iter()
        .zip(&b.x_final)
        .map(|(x, y)| (x - y).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(d < 1e-5, "{d:e}");
    let h = run(
        Method::Baumgarte(BaumgarteGains::huang_settling(0.5).unwrap()),
        Integrator::dopri5(),
        1e-6,
        10.0,
    );
    let direct = run(Method::Direct, Integrator::dopri5(), 1e-6, 10.0);
    assert!(
        h.stats.max_phi < direct.stats.max_phi,
        "{:e} {:e}",
        h.stats.max_phi,
        direct.stats.max_phi
    );
}
