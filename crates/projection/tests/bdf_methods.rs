//! Every method with the variable-order BDF ([`Integrator::Bdf`], through
//! [`contour_projection::BdfOde`]) on the Cartesian pendulum (ℓ = 1, released at 1 rad,
//! 10 s) keeps what it claims: PERT and PARAM stay on the circle to round-off, the projector
//! method to ≤ 1e-12, the direct approach drifts and Baumgarte bounds the drift; the
//! finite-difference iteration matrices are counted in `N_f` and reported separately.

use crate::common;

use common::keerthi_ic2;
use contour_model::models::Pendulum;
use contour_model::Mechanism;
use contour_projection::{
    BaumgarteGains, ErrorControl, Integrator, Method, ParametrizationConfig, PerturbationConfig,
    ProjectorConfig, Simulation, Trajectory,
};

/// `‖a − b‖₂`.
fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

fn run(method: Method, tau: f64, t_end: f64) -> Trajectory {
    let p = Pendulum::default();
    let (q, qd) = p.state(1.0, 0.0);
    Simulation::new(&p, &q, &qd, 0.0, t_end)
        .method(method)
        .integrator(Integrator::bdf())
        .error_control(ErrorControl::absolute(tau))
        .run()
        .unwrap()
}

fn energy(q: &[f64], qd: &[f64]) -> f64 {
    let p = Pendulum::default();
    p.kinetic_energy(q, qd).unwrap() + p.potential_energy(q).unwrap()
}

/// `N_f` counts every evaluation the BDF requested (predictors, Newton iterations, the initial
/// derivative and the 2N = 4 finite-difference columns of every iteration matrix).
fn check_counts(tr: &Trajectory, dim: usize) {
    let s = &tr.stats;
    assert_eq!(tr.integrator, "bdf");
    assert!(
        s.jacobian_evals > 0 && s.factorizations >= s.jacobian_evals,
        "{s:?}"
    );
    assert_eq!(s.jacobian_f_evals, dim * s.jacobian_evals, "{s:?}");
    assert_eq!(s.f_evals, s.integrator_f_calls, "{s:?}");
    // one start + per accepted or rejected attempt at least one predictor evaluation
    assert!(
        s.f_evals >= 1 + s.jacobian_f_evals + s.steps + s.rejected_steps,
        "{s:?}"
    );
    assert!(s.newton_iterations >= s.steps, "{s:?}");
}

#[test]
fn perturbation_with_the_bdf_keeps_the_circle_at_round_off() {
    let tr = run(
        Method::Perturbation(PerturbationConfig::default()),
        1e-6,
        10.0,
    );
    let s = tr.stats;
    assert!(s.max_phi <= 4.0 * f64::EPSILON, "{:e}", s.max_phi);
    // J(q̄) in the velocity correction (3.4): J q̇ = O(|Δq|·|v|) ≤ O(τ)
    assert!(s.max_phidot <= 1e-6, "{:e}", s.max_phidot);
    assert_eq!(s.projections, s.steps + s.redone_steps);
    assert!(s.redone_steps * 10 <= s.steps, "{s:?}");
    check_counts(&tr, 4);
    let e0 = energy(&tr.q[0], &tr.qd[0]);
    let e1 = energy(tr.q.last().unwrap(), tr.qd.last().unwrap());
    assert!((e1 - e0).abs() < 1e-4, "{e0} {e1}");
}

#[test]
fn direct_with_the_bdf_drifts_and_baumgarte_bounds_the_drift() {
    let direct = run(Method::Direct, 1e-6, 10.0);
    let pert = run(
        Method::Perturbation(PerturbationConfig::default()),
        1e-6,
        10.0,
    );
    let baum = run(
        Method::Baumgarte(BaumgarteGains::critical(5.0).unwrap()),
        1e-6,
        10.0,
    );
    let (d, b) = (direct.stats.max_phi, baum.stats.max_phi);
    // the BDF's local errors accumulate along the normal: φ grows far above round-off
    assert!(d > 10.0 * 1e-6, "direct {d:e}");
    assert!(d > 1e8 * pert.stats.max_phi, "direct {d:e}");
    // ... and grows in time (φ̈ = 0 is only marginally stable)
    let n = direct.step_phi.len();
    let early = direct.step_phi[..n / 10]
        .iter()
        .fold(0.0f64, |m, v| m.max(*v));
    assert!(
        direct.step_phi[n - 1] > 10.0 * early,
        "{early:e} {:e}",
        direct.step_phi[n - 1]
    );
    assert!(b < 0.05 * d, "baumgarte {b:e} direct {d:e}");
    check_counts(&direct, 4);
    check_counts(&baum, 4);
}

#[test]
fn parametrization_with_the_bdf_stays_on_the_circle() {
    let tr = run(
        Method::Parametrization(ParametrizationConfig::default()),
        1e-6,
        10.0,
    );
    let s = tr.stats;
    assert!(s.max_phi <= 1e-14 && s.max_phidot <= 1e-14, "{s:?}");
    // the pendulum swings through ±1 rad: the chart is changed (and the BDF restarted)
    assert!(
        s.reparametrizations > 0 && s.restarts == s.reparametrizations,
        "{s:?}"
    );
    // PARAM integrates y ∈ ℝ², so each matrix costs 2 columns
    check_counts(&tr, 2);
}

#[test]
fn projector_with_the_bdf_stays_below_1e_12() {
    let tr = run(Method::Projector(ProjectorConfig::default()), 1e-6, 10.0);
    let s = tr.stats;
    assert!(s.max_phi <= 1e-12 && s.max_phidot <= 1e-12, "{s:?}");
    assert_eq!(s.velocity_filterings, s.steps);
    assert_eq!(s.configuration_corrections, 2 * s.steps);
    check_counts(&tr, 4);
}

/// The BDF runs converge to the reference of the Keerthi robot as τ decreases, and the
/// methods agree with each other to the tolerance level.
#[test]
fn bdf_runs_converge_on_the_keerthi_robot() {
    // reference: the perturbation method with DOPRI5 at 1e-12
    let reference = keerthi_ic2(
        Method::Perturbation(PerturbationConfig::default()),
        Integrator::dopri5(),
        1e-12,
        2.0,
    )
    .x_final;
    let err = |m: Method, tau: f64| {
        let tr = keerthi_ic2(m, Integrator::bdf(), tau, 2.0);
        (dist(&tr.x_final, &reference), tr.stats.f_evals)
    };
    for m in [
        Method::Perturbation(PerturbationConfig::default()),
        Method::Direct,
        Method::Projector(ProjectorConfig::default()),
        Method::Parametrization(ParametrizationConfig::default()),
    ] {
        let name = m.name();
        let (e4, n4) = err(m.clone(), 1e-4);
        let (e8, n8) = err(m, 1e-8);
        assert!(e8 < 1e-2 * e4, "{name}: {e4:e} {e8:e}");
        assert!(e8 < 1e-6, "{name}: {e8:e}");
        assert!(n8 > n4, "{name}: {n4} {n8}");
    }
}

/// Remark 2.5 with the BDF: a refused correction restarts the BDF from the last accepted
/// point with half the step (one counted evaluation of `ẋ = f(x)` per restart); the run
/// still ends on the circle and the step cap is lifted again afterwards. (A threshold far
/// below τ/2 makes the BDF cascade: each restart begins at order 1, whose local error
/// `h²q̈/2` points along the centripetal acceleration, i.e. normal to the circle, so the
/// next correction is refused again — with 0.02·τ about 1700 redos in 2 s.)
#[test]
fn refused_corrections_redo_the_bdf_step() {
    let cfg = PerturbationConfig {
        accept_factor: 0.2,
        ..Default::default()
    };
    let tr = run(Method::Perturbation(cfg), 1e-6, 2.0);
    let s = tr.stats;
    assert!(s.redone_steps > 0, "{s:?}");
    assert_eq!(s.restarts, s.redone_steps);
    assert_eq!(s.projections, s.steps + s.redone_steps);
    assert!(s.max_phi <= 4.0 * f64::EPSILON, "{:e}", s.max_phi);
    check_counts(&tr, 4);
    let plain = run(
        Method::Perturbation(PerturbationConfig::default()),
        1e-6,
        2.0,
    );
    // the redone steps cost steps, but the cap h/2 does not stay for the rest of the run
    assert!(
        s.steps < 3 * plain.stats.steps,
        "{s:?} vs {:?}",
        plain.stats
    );
    let d = dist(&tr.x_final, &plain.x_final);
    assert!(d < 1e-4, "{d:e}");
}
