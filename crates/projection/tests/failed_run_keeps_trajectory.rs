//! A model that fails mid-run (NaN in the mass matrix after t = 0.5) ends the run with an error
//! that keeps the time and state of the last accepted step and the trajectory computed so far
//! (ARCHITECTURE.md, "Errors"), for every method of the one driver.

use contour_model::models::Pendulum;
use contour_model::{Mechanism, ModelError};
use contour_projection::{
    EcsConfig, ErrorControl, Integrator, Method, ParametrizationConfig, PerturbationConfig,
    ProjectionError, ProjectorConfig, Simulation,
};
use faer::MatMut;

/// The pendulum, whose mass matrix turns NaN once `q₀ < x_fail` — reached at t ≈ 0.5 s.
struct FailingPendulum {
    inner: Pendulum,
    x_fail: f64,
}

impl Mechanism for FailingPendulum {
    fn name(&self) -> &str {
        "failing pendulum"
    }
    fn dof(&self) -> usize {
        self.inner.dof()
    }
    fn n_constraints(&self) -> usize {
        self.inner.n_constraints()
    }
    fn mass_matrix(&self, q: &[f64], mut m: MatMut<'_, f64>) {
        self.inner.mass_matrix(q, m.as_mut());
        if q[0] < self.x_fail {
            m[(0, 0)] = f64::NAN;
        }
    }
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        self.inner.bias_forces(q, qd, h)
    }
    fn constraints(&self, t: f64, q: &[f64], phi: &mut [f64]) {
        self.inner.constraints(t, q, phi)
    }
    fn constraint_jacobian(&self, t: f64, q: &[f64], j: MatMut<'_, f64>) {
        self.inner.constraint_jacobian(t, q, j)
    }
    fn constraint_accel_bias(&self, t: f64, q: &[f64], qd: &[f64], r: &mut [f64]) {
        self.inner.constraint_accel_bias(t, q, qd, r)
    }
}

/// The time at which the healthy pendulum crosses `q₀ = x_fail`, and that `x_fail`.
fn crossing() -> (f64, f64) {
    let p = Pendulum::default();
    let (q, qd) = p.state(1.0, 0.0);
    let tr = Simulation::new(&p, &q, &qd, 0.0, 0.5)
        .method(Method::Perturbation(PerturbationConfig::default()))
        .integrator(Integrator::dopri5())
        .error_control(ErrorControl::absolute(1e-10))
        .output_times(vec![0.5])
        .run()
        .unwrap();
    (0.5, tr.q[0][0])
}

#[test]
fn nan_after_half_a_second_keeps_the_partial_trajectory() {
    let (t_fail, x_fail) = crossing();
    let p = Pendulum::default();
    let (q, qd) = p.state(1.0, 0.0);
    let fp = FailingPendulum { inner: p, x_fail };
    for (method, integ) in [
        (Method::Direct, Integrator::abm()),
        (
            Method::Perturbation(PerturbationConfig::default()),
            Integrator::dopri5(),
        ),
        (
            Method::Parametrization(ParametrizationConfig::default()),
            Integrator::rkg(),
        ),
        (
            Method::Projector(ProjectorConfig::default()),
            Integrator::dopri5(),
        ),
        (
            Method::ExactStabilization(EcsConfig::default()),
            Integrator::bdf(),
        ),
    ] {
        let name = method.name();
        let e = Simulation::new(&fp, &q, &qd, 0.0, 2.0)
            .method(method)
            .integrator(integ)
            .error_control(ErrorControl::absolute(1e-6))
            .run()
            .unwrap_err();
        let ProjectionError::Failed(f) = &e else {
            panic!("{name}: not a failed run: {e:?}");
        };
        // the last accepted step lies before the NaN region, and close to it
        assert!(
            f.t <= t_fail + 0.05 && f.t > t_fail - 0.1,
            "{name}: t = {}",
            f.t
        );
        assert!(f.q[0] >= x_fail, "{name}: {:?}", f.q);
        assert!(f.q.iter().chain(&f.qd).all(|v| v.is_finite()));
        // the partial trajectory holds the steps before, up to the reported state
        let part = &f.partial;
        assert!(part.stats.steps > 3, "{name}: {} steps", part.stats.steps);
        assert_eq!(part.step_times.len(), part.stats.steps);
        assert_eq!(*part.step_times.last().unwrap(), f.t);
        assert_eq!(part.times.last().copied(), Some(f.t));
        assert_eq!(part.x_final, [f.q.as_slice(), f.qd.as_slice()].concat());
        assert!(part.stats.f_evals > part.stats.steps);
        // the cause names what was wrong
        assert!(
            matches!(
                e.cause(),
                ProjectionError::Model(ModelError::NonFinite { .. })
                    | ProjectionError::Model(ModelError::MassMatrixNotPositiveDefinite { .. })
                    | ProjectionError::Ode(_)
            ),
            "{name}: {:?}",
            e.cause()
        );
        // `?` still works and the message says where
        let msg = e.to_string();
        assert!(msg.contains("simulation failed at t ="), "{msg}");
    }
}

#[test]
fn unsorted_output_times_are_named() {
    let p = Pendulum::default();
    let (q, qd) = p.state(1.0, 0.0);
    let r = Simulation::new(&p, &q, &qd, 0.0, 1.0)
        .output_times(vec![0.1, 0.3, 0.2])
        .run();
    assert!(
        matches!(
            r,
            Err(ProjectionError::UnsortedOutputTimes { index: 2, t, previous })
                if t == 0.2 && previous == 0.3
        ),
        "{r:?}"
    );
    let r = Simulation::new(&p, &q, &qd, 0.0, 1.0)
        .output_times(vec![-0.1])
        .run();
    assert!(
        matches!(
            r,
            Err(ProjectionError::OutputTimeOutsideSpan { index: 0, .. })
        ),
        "{r:?}"
    );
}
