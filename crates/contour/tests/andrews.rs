//! Andrews' squeezer through the public API (the start of issue 13): from the test set's
//! consistent state at rest, t ∈ [0, 0.03], the direct method with DOPRI5 and the
//! perturbation method with DOPRI5 agree with each other, and the perturbation method keeps
//! φ at round-off. The final β is compared with the IVP test set's reference solution
//! β(0.03) = 15.81 (rad).

use contour::model::models::{AndrewsSqueezer, ANDREWS_Q0};
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
