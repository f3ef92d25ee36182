//! Rank, not rows: the redundant four-bar (`RedundantFourBar`, the `four-bar` of the scenario
//! registry: N = 3 coordinates, L = 3 rows of rank 2, one degree of freedom) runs with every
//! method and both GGL forms, and each follows the projector method's motion.
//!
//! * direct and Baumgarte take the unique `q̈` and the minimum-norm `λ` of the rank-revealing
//!   KKT solve;
//! * perturbation projects by the SVD of `(J T)ᵀ` (no skinny QR of a square `J`);
//! * parametrization integrates `N − r = 1` chart coordinate on the 2 independent rows;
//! * GGL (block-diagonal, full) drops the redundant row once, at the start; its multiplier
//!   form keeps every row and takes its least-norm Newton solve.

use contour_model::models::RedundantFourBar;
use contour_projection::{
    BaumgarteGains, EcsConfig, EcsForm, ErrorControl, Integrator, Method, ProjectionError,
    Simulation, Trajectory,
};

fn run(method: Method, integrator: Integrator) -> Result<Trajectory, ProjectionError> {
    let fb = RedundantFourBar::default();
    let (q, qd) = fb.state(1.0, 0.0).unwrap();
    let times: Vec<f64> = (0..=10).map(|k| 0.1 * k as f64).collect();
    Simulation::new(&fb, &q, &qd, 0.0, 1.0)
        .method(method)
        .integrator(integrator)
        .error_control(ErrorControl::absolute(1e-8))
        .output_times(times)
        .run()
}

#[test]
fn the_redundant_four_bar_runs_with_every_method() {
    let reference = run(Method::Projector(Default::default()), Integrator::dopri5()).unwrap();
    let mut methods: Vec<Method> = Method::every(BaumgarteGains::critical(10.0).unwrap()).into();
    for form in [EcsForm::Full, EcsForm::Multipliers] {
        methods.push(Method::ExactStabilization(EcsConfig { form }));
    }
    for m in methods {
        let integrator = if m.name() == "exact_stabilization" {
            Integrator::bdf()
        } else {
            Integrator::dopri5()
        };
        let tr = run(m.clone(), integrator).unwrap_or_else(|e| panic!("{}: {e}", m.name()));
        let d =
            tr.q.iter()
                .zip(&reference.q)
                .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
                .fold(0.0f64, f64::max);
        eprintln!(
            "{:?}: {} steps, max |q - q_projector| {d:.1e}, max |phi| {:.1e}",
            m, tr.stats.steps, tr.stats.max_phi
        );
        assert!(d < 1e-5, "{}: {d:e}", m.name());
    }
}

/// A pendulum whose one row is given twice (N = 2, L = 2 rows of rank 1): the methods that
/// count free coordinates run it on the constraint.
#[test]
fn duplicated_rows_of_a_pendulum_run() {
    use contour_model::Mechanism;
    use faer::MatMut;
    let p = contour_model::models::Pendulum::default();
    struct Twice(contour_model::models::Pendulum);
    impl Mechanism for Twice {
        fn name(&self) -> &str {
            "pendulum, row twice"
        }
        fn dof(&self) -> usize {
            2
        }
        fn n_constraints(&self) -> usize {
            2
        }
        fn mass_matrix(&self, q: &[f64], m: MatMut<'_, f64>) {
            self.0.mass_matrix(q, m)
        }
        fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
            self.0.bias_forces(q, qd, h)
        }
        fn applied_forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
            self.0.applied_forces(t, q, qd, u)
        }
        fn constraints(&self, t: f64, q: &[f64], phi: &mut [f64]) {
            self.0.constraints(t, q, &mut phi[..1]);
            phi[1] = phi[0];
        }
        fn constraint_jacobian(&self, t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
            self.0
                .constraint_jacobian(t, q, j.as_mut().subrows_mut(0, 1));
            for k in 0..2 {
                j[(1, k)] = j[(0, k)];
            }
        }
        fn constraint_accel_bias(&self, t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
            self.0.constraint_accel_bias(t, q, qd, &mut rho[..1]);
            rho[1] = rho[0];
        }
    }
    let (q, qd) = p.state(0.5, 0.0);
    let m = Twice(p);
    for method in [
        Method::Perturbation(Default::default()),
        Method::Parametrization(Default::default()),
        Method::Direct,
        Method::ExactStabilization(Default::default()),
    ] {
        let integrator = if method.name() == "exact_stabilization" {
            Integrator::bdf()
        } else {
            Integrator::dopri5()
        };
        let tr = Simulation::new(&m, &q, &qd, 0.0, 0.5)
            .method(method.clone())
            .integrator(integrator)
            .error_control(ErrorControl::absolute(1e-8))
            .run()
            .unwrap_or_else(|e| panic!("{}: {e}", method.name()));
        assert!(tr.stats.max_phi < 1e-6, "{}: {:?}", method.name(), tr.stats);
    }
}
