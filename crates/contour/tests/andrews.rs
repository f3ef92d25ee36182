//! Andrews' squeezer through the public API: from the test set's consistent state
//! at rest, t ∈ [0, 0.03], `ErrorControl::mixed(τ)`.
//!
//! * every method × integrator the driver accepts completes at τ = 1e-4, 1e-6, 1e-8, 1e-10
//!   (the hard cases: GGL/BDF at t = 0 for τ ≤ 1e-6, PERT/ABM at τ = 1e-4, PERT/RKG at
//!   τ ≤ 1e-8);
//! * at τ = 1e-10 the positions of PERT (ABM, DOPRI5), the projector method (ABM, DOPRI5) and
//!   GGL/BDF agree with the reference solution to 1e-8 relative.
//!
//! Reference: the IVP test set (F. Mazzia, C. Magherini, *Test Set for Initial Value Problem
//! Solvers*, release 2.4, Università di Bari, 2008), problem "andrews", routine `SOLN`:
//! y(0.03), computed there with RADAU5 at tight tolerances.

use contour::model::models::{AndrewsSqueezer, ANDREWS_Q0, ANDREWS_REFERENCE_Q_AT_0_03};
use contour::prelude::*;

fn run(method: Method, tau: f64) -> Trajectory {
    let a = AndrewsSqueezer::default();
    Simulation::new(&a, &ANDREWS_Q0, &[0.0; 7], 0.0, 0.03)
        .method(method)
        .integrator(Integrator::dopri5())
        .error_control(ErrorControl::absolute(tau))
        .run()
        .unwrap()
}

#[test]
fn direct_and_perturbation_agree_on_andrews() {
    let d = run(Method::Direct, 1e-10);
    let p = run(Method::Perturbation(PerturbationConfig::default()), 1e-10);
    let diff = d
        .x_final
        .iter()
        .zip(&p.x_final)
        .take(7)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    eprintln!(
        "beta(0.03): direct {:.10}, perturbation {:.10}; max |q| difference {diff:.1e}; PERT max|phi| {:.1e}, {} steps",
        d.x_final[0], p.x_final[0], p.stats.max_phi, p.stats.steps
    );
    assert!(diff < 1e-6, "{diff:e}");
    assert!(p.stats.max_phi < 1e-12, "{}", p.stats.max_phi);
    assert!((p.x_final[0] - 15.81).abs() < 0.01, "{}", p.x_final[0]);
}

/// IVP test set, `andrews.f`, `SOLN`: the positions at t = 0.03.
const REFERENCE_Q: [f64; 7] = ANDREWS_REFERENCE_Q_AT_0_03;

fn methods() -> [Method; 6] {
    Method::every(BaumgarteGains::critical(100.0).unwrap())
}

fn integrators() -> Vec<Integrator> {
    vec![
        Integrator::abm(),
        Integrator::dopri5(),
        Integrator::Bdf(Default::default()),
        Integrator::RungeKuttaGill(Default::default()),
    ]
}

/// Largest relative error of the positions against the test set, component by component.
fn position_error(x: &[f64]) -> f64 {
    x.iter()
        .zip(&REFERENCE_Q)
        .fold(0.0f64, |e, (a, r)| e.max((a - r).abs() / r.abs()))
}

#[test]
fn every_method_and_integrator_completes_andrews() {
    let a = AndrewsSqueezer::default();
    let mut runs = 0;
    for tau in [1e-4, 1e-6, 1e-8, 1e-10] {
        for m in methods() {
            for i in integrators() {
                let r = Simulation::new(&a, &ANDREWS_Q0, &[0.0; 7], 0.0, 0.03)
                    .method(m.clone())
                    .integrator(i.clone())
                    .error_control(ErrorControl::mixed(tau))
                    .run();
                let tr = match r {
                    Ok(tr) => tr,
                    Err(ProjectionError::UnsupportedIntegrator { .. }) => continue,
                    Err(e) => panic!("{}/{} at tau {tau:e}: {e}", m.name(), i.name()),
                };
                runs += 1;
                let err = position_error(&tr.x_final);
                eprintln!(
                    "tau {tau:.0e} {:>20}/{:<6}: q error {err:.1e}, {} steps, {} f-evals",
                    m.name(),
                    i.name(),
                    tr.stats.steps,
                    tr.stats.f_evals
                );
                // every run is at least roughly right (β moves by 15.8 rad over the span)
                assert!(
                    err < 1e-2,
                    "{}/{} at tau {tau:e}: {err:e}",
                    m.name(),
                    i.name()
                );
                let strict = tau == 1e-10
                    && matches!(
                        (m.name(), i.name()),
                        ("perturbation", "abm" | "dopri5")
                            | ("projector", "abm" | "dopri5")
                            | ("exact_stabilization", "bdf")
                    );
                if strict {
                    assert!(err < 1e-8, "{}/{}: {err:e}", m.name(), i.name());
                }
            }
        }
    }
    assert_eq!(runs, 4 * (6 * 4 - 3));
}

/// The perturbation method with the ABM at τ = 1e-4 completes. A velocity correction with
/// `J(q̄)` (Keerthi (3.4), `VelocityJacobian::Predicted`) leaves `J q̇ + b` at up to 0.99τ
/// after accepted steps, which no step halving can remove (the run fails at t = 0.0252 after
/// 20 step halvings with ‖X*‖ = 0.74τ). The default corrects with `J` at the corrected
/// position, and `J q̇ + b` stays at round-off.
#[test]
fn perturbation_abm_loose_tolerance_regression() {
    let a = AndrewsSqueezer::default();
    let run = |cfg: PerturbationConfig| {
        Simulation::new(&a, &ANDREWS_Q0, &[0.0; 7], 0.0, 0.03)
            .method(Method::Perturbation(cfg))
            .integrator(Integrator::abm())
            .error_control(ErrorControl::mixed(1e-4))
            .run()
    };
    let tr = run(PerturbationConfig::default()).unwrap();
    assert!(tr.stats.max_phidot < 1e-12, "{}", tr.stats.max_phidot);
    // Keerthi's (3.4) still fails here, for the reason above: its partial run shows the
    // residual J q̇ + b left after accepted steps above the acceptance bound τ/2
    match run(PerturbationConfig::keerthi()) {
        Err(ProjectionError::Failed(f)) => {
            let worst = f.partial.step_phidot.iter().fold(0.0f64, |m, v| m.max(*v));
            assert!(worst > 0.5e-4, "{worst:e}");
        }
        other => panic!(
            "expected the documented failure, got {:?}",
            other.map(|t| t.stats)
        ),
    }
}

/// GGL on the BDF starts for τ ≤ 1e-6: DASSL's first step (h₀ ≈ 3e-5·τ here) puts the Newton
/// updates of the index-2 multipliers `μ` at their round-off floor `O(u/h)`, which an unscaled
/// convergence test cannot pass (it fails at t = 0). The index-2 Newton test weights `μ` by
/// its effect on `q` and `v` (see the test below).
#[test]
fn ggl_starts_at_rest_with_large_accelerations() {
    let a = AndrewsSqueezer::default();
    for tau in [1e-6, 1e-10] {
        let tr = Simulation::new(&a, &ANDREWS_Q0, &[0.0; 7], 0.0, 1e-4)
            .method(Method::ExactStabilization(EcsConfig::default()))
            .integrator(Integrator::Bdf(Default::default()))
            .error_control(ErrorControl::mixed(tau))
            .run()
            .unwrap();
        assert!(tr.stats.max_phi < 1e2 * tau, "{}", tr.stats.max_phi);
    }
}

/// GGL on the BDF at τ = 1e-8 needs few Jacobians. With the multipliers' updates weighted by
/// their own (absolute-tolerance) scale, the iteration stops at its second iteration with
/// rate ≈ 1 on `μ` after each Newton failure with an old matrix (802 Jacobians for 1,195
/// steps). The index-2 Newton test measures the iterate in the error-test norm, each `μ`
/// weighted by its effect on `q` and `v`.
#[test]
fn ggl_bdf_newton_does_not_stall_on_multipliers() {
    let a = AndrewsSqueezer::default();
    let tr = Simulation::new(&a, &ANDREWS_Q0, &[0.0; 7], 0.0, 0.03)
        .method(Method::ExactStabilization(EcsConfig::default()))
        .integrator(Integrator::Bdf(Default::default()))
        .error_control(ErrorControl::mixed(1e-8))
        .run()
        .unwrap();
    let s = &tr.stats;
    let err = position_error(&tr.x_final);
    eprintln!(
        "GGL/BDF tau 1e-8: {} steps, {} rejected, {} f-evals, {} Jacobians, {} Newton iterations, q error {err:.1e}",
        s.steps, s.rejected_steps, s.f_evals, s.jacobian_evals, s.newton_iterations
    );
    assert!(s.jacobian_evals <= 150, "{}", s.jacobian_evals);
    assert!(s.f_evals <= 10_000, "{}", s.f_evals);
    assert!(err < 1e-6, "{err:e}");
}
