//! `gamma_q` (FDgq) as a method of the driver: planar2g with every explicit integrator, the
//! energy balance of papers/004 (work done by τ = [1; 0] equals the kinetic energy) and typed
//! errors. (The agreement with the implicit row `φ = q₂ − 2 sin q₁` is tested in
//! `contour-papers`, `tests/featherstone.rs`.)

use contour_model::models::Planar2g;
use contour_model::Mechanism;
use contour_projection::{ErrorControl, Integrator, ProjectionError, Simulation};

#[test]
fn planar2g_energy_balance_with_every_integrator() {
    let p = Planar2g::default();
    for integ in [Integrator::dopri5(), Integrator::abm(), Integrator::rkg()] {
        let tr = Simulation::new(&p, &[0.0; 2], &[0.0; 2], 0.0, 5.0)
            .explicit(&p)
            .integrator(Integrator::dopri5())
            .error_control(ErrorControl::absolute(1e-8))
            .integrator(integ.clone())
            .error_control(ErrorControl::absolute(1e-10))
            .output_times(vec![2.5, 5.0])
            .run()
            .unwrap();
        assert_eq!(tr.method, "explicit_gamma_q");
        assert_eq!(tr.times, vec![2.5, 5.0]);
        let (q, qd) = (&tr.x_final[..2], &tr.x_final[2..]);
        let ke = p.kinetic_energy(q, qd).unwrap();
        let rel = (q[0] - ke).abs() / ke;
        assert!(q[0] > 0.5, "{q:?}");
        assert!(rel <= 1e-7, "{}: energy balance {rel:e}", integ.name());
        assert!(
            tr.stats.max_phi <= 1e-8,
            "{}: {:e}",
            integ.name(),
            tr.stats.max_phi
        );
        assert!(tr.stats.f_evals > tr.stats.steps);
    }
}

#[test]
fn explicit_errors() {
    let p = Planar2g::default();
    let sim = |q: &[f64], qd: &[f64]| {
        Simulation::new(&p, q, qd, 0.0, 1.0)
            .explicit(&p)
            .integrator(Integrator::dopri5())
            .error_control(ErrorControl::absolute(1e-8))
            .run()
    };
    assert!(matches!(
        sim(&[0.0], &[0.0, 0.0]),
        Err(ProjectionError::DimensionMismatch { what: "q0", .. })
    ));
    assert!(matches!(
        sim(&[0.0, f64::NAN], &[0.0, 0.0]),
        Err(ProjectionError::Model(
            contour_model::ModelError::NonFinite {
                what: "q0",
                index: 1
            }
        ))
    ));
    assert!(matches!(
        Simulation::new(&p, &[0.0; 2], &[0.0; 2], 1.0, 0.5)
            .explicit(&p)
            .integrator(Integrator::dopri5())
            .error_control(ErrorControl::absolute(1e-8))
            .run(),
        Err(ProjectionError::InvalidTimeSpan { .. })
    ));
    assert!(matches!(
        Simulation::new(&p, &[0.0; 2], &[0.0; 2], 0.0, 1.0)
            .explicit(&p)
            .integrator(Integrator::dopri5())
            .error_control(ErrorControl::absolute(1e-8))
            .integrator(Integrator::Bdf(Default::default()))
            .run(),
        Err(ProjectionError::UnsupportedIntegrator { .. })
    ));
    assert!(matches!(
        Simulation::new(&p, &[0.0; 2], &[0.0; 2], 0.0, 1.0)
            .explicit(&p)
            .integrator(Integrator::dopri5())
            .error_control(ErrorControl::absolute(1e-8))
            .error_control(ErrorControl::absolute(-1.0))
            .run(),
        Err(ProjectionError::InvalidTolerance { .. })
    ));
    assert!(matches!(
        Simulation::new(&p, &[0.0; 2], &[0.0; 2], 0.0, 10.0)
            .explicit(&p)
            .integrator(Integrator::dopri5())
            .error_control(ErrorControl::absolute(1e-8))
            .max_steps(3)
            .run()
            .map_err(ProjectionError::into_cause),
        Err(ProjectionError::TooManySteps { max_steps: 3, .. })
    ));
    // an inconsistent start is pulled onto the constraint by gstab (T_stab = 0.1 s)
    let tr = Simulation::new(&p, &[0.0, 0.05], &[0.0; 2], 0.0, 2.0)
        .explicit(&p)
        .integrator(Integrator::dopri5())
        .error_control(ErrorControl::absolute(1e-8))
        .run()
        .unwrap();
    assert!(tr.stats.initial_phi > 0.04);
    let last = *tr.step_phi.last().unwrap();
    assert!(last < 1e-6, "{last:e}");
}
