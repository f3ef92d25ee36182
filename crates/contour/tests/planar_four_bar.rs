//! A closed planar four-bar built from `planar(3)`: the point closure gives its 2
//! independent rows, and every method × integrator the driver accepts runs it from rest
//! under gravity, keeps the loop closed and agrees with the others.

use contour::prelude::*;

fn four_bar() -> (ConstrainedTree, [f64; 3]) {
    let t = KinematicTree::planar_with_gravity(3, 9.81);
    let q0 = [0.9, -1.2, -1.1];
    let c = Closure::point_at_current_position(&t, &q0, 2, [1.0, 0.0, 0.0]).unwrap();
    (ConstrainedTree::new(t, vec![c]).unwrap(), q0)
}

#[test]
fn every_method_runs_the_planar_four_bar() {
    let (m, q0) = four_bar();
    assert_eq!(m.n_constraints(), 2);
    let methods = Method::every(BaumgarteGains::critical(10.0).unwrap());
    let integrators = Integrator::every();
    // reference: perturbation + DOPRI5 at a tight tolerance
    let reference = Simulation::new(&m, &q0, &[0.0; 3], 0.0, 2.0)
        .method(Method::Perturbation(PerturbationConfig::default()))
        .integrator(Integrator::dopri5())
        .error_control(ErrorControl::mixed(1e-11))
        .run()
        .unwrap();
    let mut runs = 0;
    for method in &methods {
        for integrator in &integrators {
            let r = Simulation::new(&m, &q0, &[0.0; 3], 0.0, 2.0)
                .method(method.clone())
                .integrator(integrator.clone())
                .error_control(ErrorControl::mixed(1e-8))
                .run();
            let tr = match r {
                Ok(tr) => tr,
                Err(ProjectionError::UnsupportedIntegrator { .. }) => continue,
                Err(e) => panic!("{}/{}: {e}", method.name(), integrator.name()),
            };
            runs += 1;
            let err = tr
                .x_final
                .iter()
                .zip(&reference.x_final)
                .fold(0.0f64, |e, (a, b)| e.max((a - b).abs()));
            eprintln!(
                "{}/{}: max |x - ref| {err:.1e}, max |phi| {:.1e}, {} f-evals",
                method.name(),
                integrator.name(),
                tr.stats.max_phi,
                tr.stats.f_evals
            );
            assert!(
                err < 1e-4,
                "{}/{}: {err:e}",
                method.name(),
                integrator.name()
            );
            assert!(tr.stats.max_phi < 1e-5, "{}", tr.stats.max_phi);
        }
    }
    assert_eq!(runs, 6 * 4 - 3, "ECS runs on the BDF only");
}
