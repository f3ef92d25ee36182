//! Bad input returns typed errors (never a panic).

use contour_model::models::{Pendulum, RedundantFourBar};
use contour_model::Mechanism;
use contour_projection::{
    BaumgarteGains, EcsConfig, ErrorControl, Integrator, Method, NormKind, PerturbationConfig,
    ProjectionError, Simulation,
};
use faer::MatMut;

fn pendulum_sim(p: &Pendulum) -> Simulation<'_, Pendulum> {
    let (q, qd) = p.state(0.5, 0.0);
    Simulation::new(p, &q, &qd, 0.0, 1.0)
}

#[test]
fn negative_baumgarte_gains() {
    assert!(matches!(
        BaumgarteGains::critical(-2.0),
        Err(ProjectionError::InvalidParameter { name: "delta", .. })
    ));
    let p = Pendulum::default();
    let bad = BaumgarteGains {
        alpha: 1.0,
        beta: -4.0,
    };
    assert!(matches!(
        pendulum_sim(&p).method(Method::Baumgarte(bad)).run(),
        Err(ProjectionError::InvalidParameter { name: "beta", .. })
    ));
}

#[test]
fn non_positive_tolerance() {
    let p = Pendulum::default();
    for ec in [
        ErrorControl::absolute(0.0),
        ErrorControl::absolute(-1e-4),
        ErrorControl::absolute(f64::NAN),
        // a tolerance that cannot keep the manifold, and one below f64's reach
        ErrorControl::absolute(1e300),
        ErrorControl::absolute(2.0),
        ErrorControl::absolute(1e-300),
        ErrorControl::mixed(1e-18),
        ErrorControl {
            rtol: -1.0,
            atol: 1e-4,
            norm: NormKind::L2,
        },
    ] {
        for m in [
            Method::Direct,
            Method::Perturbation(PerturbationConfig::default()),
        ] {
            assert!(matches!(
                pendulum_sim(&p).method(m).error_control(ec).run(),
                Err(ProjectionError::InvalidTolerance { .. })
            ));
        }
    }
}

#[test]
fn inconsistent_initial_state() {
    let p = Pendulum::default();
    let r = Simulation::new(&p, &[1.1, 0.0], &[0.0, 0.0], 0.0, 1.0)
        .method(Method::Direct)
        .run();
    match r {
        Err(ProjectionError::InconsistentInitialState {
            position_residual, ..
        }) => assert!((position_residual - 0.21).abs() < 1e-12),
        other => panic!("{other:?}"),
    }
    // velocity not tangent
    let r = Simulation::new(&p, &[1.0, 0.0], &[1.0, 0.0], 0.0, 1.0).run();
    assert!(matches!(
        r,
        Err(ProjectionError::InconsistentInitialState { .. })
    ));
    // fixed by make_consistent
    let tr = Simulation::new(&p, &[1.1, 0.0], &[1.0, 0.5], 0.0, 1.0)
        .make_consistent(Default::default())
        .run()
        .unwrap();
    assert!(tr.stats.initial_phi < 1e-14 && tr.stats.initial_phidot < 1e-14);
}

/// A unit point mass in the plane on the line `φ = s (y − 1) = 0` (`J = [0, s]`): a large or
/// non-finite `s` overflows or poisons the initial residuals.
struct ScaledLine(f64);

impl Mechanism for ScaledLine {
    fn name(&self) -> &str {
        "scaled line"
    }
    fn dof(&self) -> usize {
        2
    }
    fn n_constraints(&self) -> usize {
        1
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        m.fill(0.0);
        m[(0, 0)] = 1.0;
        m[(1, 1)] = 1.0;
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        h.fill(0.0);
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        phi[0] = self.0 * (q[1] - 1.0);
    }
    fn constraint_jacobian(&self, _t: f64, _q: &[f64], mut j: MatMut<'_, f64>) {
        j[(0, 0)] = 0.0;
        j[(0, 1)] = self.0;
    }
    fn constraint_accel_bias(&self, _t: f64, _q: &[f64], _qd: &[f64], rho: &mut [f64]) {
        rho[0] = 0.0;
    }
}

/// The initial check of a run (with the run's constraint monitor) gives what
/// `contour_model::constraint_residuals` gives: its non-finite errors, its overflowed norms as
/// an inconsistent state, and for a consistent start its values as the recorded initial
/// violations.
#[test]
fn initial_check_is_constraint_residuals() {
    let cases = [
        (1.0, [0.0, 1.0], [1.0, 0.0]),           // consistent
        (1e300, [0.0, 2.0], [0.0, 0.0]),         // φ finite, ‖φ‖₂ overflows
        (1e300, [0.0, 1.0], [0.0, 2.0]),         // J q̇ finite, its norm overflows
        (f64::NAN, [0.0, 1.0], [0.0, 0.0]),      // φ NaN
        (f64::INFINITY, [0.0, 2.0], [0.0, 0.0]), // φ infinite
        (f64::INFINITY, [0.0, 1.0], [0.0, 0.0]), // φ = ∞ · 0
    ];
    for (s, q, qd) in cases {
        let m = ScaledLine(s);
        let expected = contour_model::constraint_residuals(&m, 0.0, &q, &qd);
        let got = Simulation::new(&m, &q, &qd, 0.0, 0.1)
            .method(Method::Direct)
            .run();
        match (expected, got) {
            (Err(e), Err(ProjectionError::Model(g))) => assert_eq!(g, e, "s = {s}"),
            (
                Ok((p, v)),
                Err(ProjectionError::InconsistentInitialState {
                    position_residual,
                    velocity_residual,
                    ..
                }),
            ) => {
                assert_eq!(position_residual.to_bits(), p.to_bits(), "s = {s}");
                assert_eq!(velocity_residual.to_bits(), v.to_bits(), "s = {s}");
            }
            (Ok((p, v)), Ok(tr)) => {
                assert_eq!(tr.stats.initial_phi.to_bits(), p.to_bits());
                assert_eq!(tr.stats.initial_phidot.to_bits(), v.to_bits());
            }
            (e, g) => panic!("s = {s}: expected {e:?}, got {g:?}"),
        }
    }
}

#[test]
fn rank_deficient_jacobian() {
    // L = 3 rows of rank 2 on N = 3: the index-1 solve takes the rank-revealing path (every
    // evaluation counted), or refuses on request …
    let fb = RedundantFourBar::default();
    let (q, qd) = fb.state(0.3, 0.5).unwrap();
    let tr = Simulation::new(&fb, &q, &qd, 0.0, 1.0)
        .method(Method::Direct)
        .require_consistent(1e-8)
        .run()
        .unwrap();
    // every evaluation, those of the outputs' λ included
    assert!(
        tr.stats.rank_revealing_evals >= tr.stats.f_evals,
        "{:?}",
        tr.stats
    );
    assert!(tr.stats.max_phi < 1e-4, "{:?}", tr.stats);
    assert!(matches!(
        Simulation::new(&fb, &q, &qd, 0.0, 1.0)
            .method(Method::Direct)
            .require_consistent(1e-8)
            .dynamics(contour_model::DynamicsOptions {
                rank_deficiency: contour_model::RankDeficiency::Error,
                ..Default::default()
            })
            .run()
            .map_err(ProjectionError::into_cause),
        Err(ProjectionError::Model(
            contour_model::ModelError::RankDeficientJacobian { .. }
        ))
    ));
    // … and the projection counts rank, not rows: L = N = 3 rows of rank 2 leave one free
    // coordinate, and the run stays on the constraints
    let tr = Simulation::new(&fb, &q, &qd, 0.0, 1.0)
        .method(Method::Perturbation(PerturbationConfig::default()))
        .require_consistent(1e-8)
        .run()
        .unwrap();
    assert!(tr.stats.max_phi < 1e-6, "{:?}", tr.stats);
}

#[test]
fn unsupported_combinations() {
    let p = Pendulum::default();
    assert!(matches!(
        pendulum_sim(&p)
            .method(Method::ExactStabilization(EcsConfig::default()))
            .integrator(Integrator::abm())
            .run(),
        Err(ProjectionError::UnsupportedIntegrator { .. })
    ));
    // the BDF integrates the explicit ODE of Direct (ẋ − f(x) = 0) but no algebraic part
    assert!(pendulum_sim(&p)
        .method(Method::Direct)
        .integrator(Integrator::bdf())
        .run()
        .is_ok());
    assert!(matches!(
        pendulum_sim(&p)
            .method(Method::Direct)
            .integrator(Integrator::Bdf(
                contour_ode::BdfConfig::default().with_algebraic(vec![false, false, true, false])
            ))
            .run(),
        Err(ProjectionError::Ode(
            contour_ode::OdeError::InvalidParameter {
                name: "algebraic",
                ..
            }
        ))
    ));
    assert!(matches!(
        pendulum_sim(&p)
            .error_control(ErrorControl::absolute(1e-4).with_norm(NormKind::Max))
            .run(),
        Err(ProjectionError::UnsupportedNorm { .. })
    ));
}

#[test]
fn dimensions_and_time_span() {
    let p = Pendulum::default();
    assert!(matches!(
        Simulation::new(&p, &[1.0], &[0.0, 0.0], 0.0, 1.0).run(),
        Err(ProjectionError::DimensionMismatch { what: "q0", .. })
    ));
    assert!(matches!(
        pendulum_sim(&p).output_times(vec![0.5, 0.2]).run(),
        Err(ProjectionError::UnsortedOutputTimes { index: 1, t, previous })
            if t == 0.2 && previous == 0.5
    ));
    assert!(matches!(
        pendulum_sim(&p).output_times(vec![0.5, 1.5]).run(),
        Err(ProjectionError::OutputTimeOutsideSpan { index: 1, t, .. }) if t == 1.5
    ));
    let (q, qd) = p.state(0.5, 0.0);
    assert!(matches!(
        Simulation::new(&p, &q, &qd, 1.0, 1.0).run(),
        Err(ProjectionError::InvalidTimeSpan { .. })
    ));
    assert!(matches!(
        Simulation::new(&p, &[f64::NAN, 0.0], &qd, 0.0, 1.0).run(),
        Err(ProjectionError::Model(_))
    ));
    // a run that stops after it started keeps what it computed
    let e = pendulum_sim(&p).max_steps(3).run().unwrap_err();
    assert!(matches!(
        e.cause(),
        ProjectionError::TooManySteps { max_steps: 3, .. }
    ));
    let part = e.partial().unwrap();
    assert_eq!(part.stats.steps, 3);
    assert_eq!(part.step_times.len(), 3);
}
