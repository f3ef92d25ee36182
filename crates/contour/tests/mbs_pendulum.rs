//! MBS benchmark A01, the simple pendulum, through the public API: the Cartesian pendulum
//! (x, y, one row) from the horizontal at rest, 10 s, against the reduced equation
//! `θ̈ = −(g/ℓ) sin θ` integrated by fixed-step RK4 (an independent formulation, no code of the
//! constrained solvers).

use contour::model::models::Pendulum;
use contour::prelude::*;

/// Largest distance of the mass from the reduced solution over the outputs, and the energy
/// drift, for one method and integrator at `tau`.
fn a01_error(method: Method, integrator: Integrator, tau: f64) -> (f64, f64, Trajectory) {
    let p = Pendulum::a01();
    let (q0, qd0) = p.a01_initial_state();
    let times: Vec<f64> = (0..=100).map(|k| 0.1 * k as f64).collect();
    let tr = Simulation::new(&p, &q0, &qd0, 0.0, 10.0)
        .method(method)
        .integrator(integrator)
        .error_control(ErrorControl::absolute(tau))
        .output_times(times.clone())
        .run()
        .unwrap();
    let reference = p.reduced_solution(-std::f64::consts::FRAC_PI_2, 0.0, &times, 20_000);
    let err =
        tr.q.iter()
            .zip(&reference)
            .fold(0.0f64, |e, (q, &(th, _))| {
                let (x, y) = (th.sin(), -th.cos());
                e.max((q[0] - x).hypot(q[1] - y))
            });
    let drift = tr.stats.energy_drift.unwrap_or(f64::NAN);
    (err, drift, tr)
}

#[test]
fn a01_pendulum_follows_the_reduced_solution() {
    for (method, integrator, tol) in [
        (Method::Direct, Integrator::dopri5(), 1e-6),
        (
            Method::Projector(ProjectorConfig::default()),
            Integrator::dopri5(),
            1e-7,
        ),
        (
            Method::Projector(ProjectorConfig::default()),
            Integrator::abm(),
            1e-7,
        ),
    ] {
        let name = format!("{}/{}", method.name(), integrator.name());
        let (err, drift, tr) = a01_error(method, integrator, 1e-10);
        eprintln!(
            "A01 {name}: max |r - r_ref| {err:.1e} m, energy drift {drift:.1e} J, {} steps",
            tr.stats.steps
        );
        assert!(err < tol, "{name}: {err:e}");
        assert!(drift.abs() < 1e-6, "{name}: {drift:e}");
    }
}
