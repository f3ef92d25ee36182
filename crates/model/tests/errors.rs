//! Every error variant of `contour-model` is reachable from bad input and says what and where.

use crate::common;
use common::DiagPendulum;
use contour_model::models::{KeerthiRobot, Pendulum, RedundantFourBar, KEERTHI_IC2};
use contour_model::{
    check_consistent, consistent_state, ConsistentStateOptions, ConstrainedDynamics,
    DynamicsOptions, ModelError,
};

#[test]
fn wrong_dimensions_are_reported_by_name() {
    let p = Pendulum::default();
    let mut d = ConstrainedDynamics::new(&p);
    let (mut qdd, mut lambda) = ([0.0; 2], [0.0; 1]);
    let e = d
        .accelerations(&p, 0.0, &[1.0, 0.0, 0.0], &[0.0; 2], &mut qdd, &mut lambda)
        .unwrap_err();
    assert_eq!(
        e,
        ModelError::DimensionMismatch {
            what: "q",
            expected: 2,
            found: 3
        }
    );
    let e = d
        .accelerations(&p, 0.0, &[1.0, 0.0], &[0.0; 1], &mut qdd, &mut lambda)
        .unwrap_err();
    assert_eq!(
        e,
        ModelError::DimensionMismatch {
            what: "qd",
            expected: 2,
            found: 1
        }
    );
    let mut short = [0.0; 1];
    let e = d
        .accelerations(&p, 0.0, &[1.0, 0.0], &[0.0; 2], &mut short, &mut lambda)
        .unwrap_err();
    assert_eq!(
        e,
        ModelError::DimensionMismatch {
            what: "qdd",
            expected: 2,
            found: 1
        }
    );
    let e = d
        .contact_force_with_input(&p, 0.0, &[1.0, 0.0], &[0.0; 2], &[0.0; 3], &mut lambda)
        .unwrap_err();
    assert_eq!(
        e,
        ModelError::DimensionMismatch {
            what: "u",
            expected: 2,
            found: 3
        }
    );
    let e = consistent_state(
        &p,
        0.0,
        &[1.0],
        &[0.0; 2],
        &ConsistentStateOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        e,
        ModelError::DimensionMismatch {
            what: "q",
            expected: 2,
            found: 1
        }
    );
    assert!(e.to_string().contains("q: expected length 2, found 1"));
}

#[test]
fn non_finite_inputs_and_model_outputs_are_reported() {
    let p = Pendulum::default();
    let mut d = ConstrainedDynamics::new(&p);
    let (mut qdd, mut lambda) = ([0.0; 2], [0.0; 1]);
    let e = d
        .accelerations(&p, 0.0, &[1.0, f64::NAN], &[0.0; 2], &mut qdd, &mut lambda)
        .unwrap_err();
    assert_eq!(
        e,
        ModelError::NonFinite {
            what: "q",
            index: 1
        }
    );
    let e = d
        .accelerations(
            &p,
            0.0,
            &[1.0, 0.0],
            &[f64::INFINITY, 0.0],
            &mut qdd,
            &mut lambda,
        )
        .unwrap_err();
    assert_eq!(
        e,
        ModelError::NonFinite {
            what: "qd",
            index: 0
        }
    );
    let e = d
        .accelerations(&p, f64::NAN, &[1.0, 0.0], &[0.0; 2], &mut qdd, &mut lambda)
        .unwrap_err();
    assert_eq!(
        e,
        ModelError::NonFinite {
            what: "t",
            index: 0
        }
    );
    let b = DiagPendulum { m11: f64::NAN };
    let mut d = ConstrainedDynamics::new(&b);
    let e = d
        .accelerations(&b, 0.0, &[1.0, 0.0], &[0.0; 2], &mut qdd, &mut lambda)
        .unwrap_err();
    assert_eq!(
        e,
        ModelError::NonFinite {
            what: "mass matrix",
            index: 3
        }
    );
}

#[test]
fn indefinite_mass_matrix_is_reported() {
    let b = DiagPendulum { m11: -2.0 };
    let mut d = ConstrainedDynamics::new(&b);
    let (mut qdd, mut lambda) = ([0.0; 2], [0.0; 1]);
    let e = d
        .accelerations(&b, 0.0, &[1.0, 0.0], &[0.0; 2], &mut qdd, &mut lambda)
        .unwrap_err();
    assert!(
        matches!(
            e,
            ModelError::MassMatrixNotPositiveDefinite { index: 1, .. }
        ),
        "{e:?}"
    );
    let e = d
        .unconstrained_accelerations(&b, 0.0, &[1.0, 0.0], &[0.0; 2], &mut qdd)
        .unwrap_err();
    assert!(
        matches!(
            e,
            ModelError::MassMatrixNotPositiveDefinite { index: 1, .. }
        ),
        "{e:?}"
    );
    let e = contour_model::fd::check_mass_matrix(&b, &[1.0, 0.0]).unwrap_err();
    assert!(
        matches!(e, ModelError::MassMatrixNotPositiveDefinite { .. }),
        "{e:?}"
    );
}

#[test]
fn rank_deficient_jacobian_names_the_rank() {
    let fb = RedundantFourBar::default();
    let (q, qd) = fb.state(2.0, 1.0).unwrap();
    let mut d = ConstrainedDynamics::with_options(
        &fb,
        DynamicsOptions {
            rank_deficiency: contour_model::RankDeficiency::Error,
            ..Default::default()
        },
    )
    .unwrap();
    let (mut qdd, mut lambda) = ([0.0; 3], [0.0; 3]);
    let e = d
        .accelerations(&fb, 0.0, &q, &qd, &mut qdd, &mut lambda)
        .unwrap_err();
    assert!(
        matches!(
            e,
            ModelError::RankDeficientJacobian {
                rank: 2,
                rows: 3,
                ..
            }
        ),
        "{e:?}"
    );
    // a singular pendulum configuration (q = 0 makes J = 0): rank 0
    let p = Pendulum::default();
    let mut d = ConstrainedDynamics::with_options(
        &p,
        DynamicsOptions {
            rank_deficiency: contour_model::RankDeficiency::Error,
            ..Default::default()
        },
    )
    .unwrap();
    let (mut qdd, mut lambda) = ([0.0; 2], [0.0; 1]);
    let e = d
        .accelerations(&p, 0.0, &[0.0, 0.0], &[0.0; 2], &mut qdd, &mut lambda)
        .unwrap_err();
    assert!(
        matches!(
            e,
            ModelError::RankDeficientJacobian {
                rank: 0,
                rows: 1,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn projection_failures_are_reported() {
    let robot = KeerthiRobot::default();
    let opts = ConsistentStateOptions {
        max_iterations: 1,
        ..Default::default()
    };
    let e = consistent_state(&robot, 0.0, &KEERTHI_IC2.q, &KEERTHI_IC2.qd, &opts).unwrap_err();
    match e {
        ModelError::NoConvergence {
            iterations,
            residual,
        } => {
            assert_eq!(iterations, 1);
            assert!(residual > 1e-14 && residual < 1e-3, "{residual:e}");
        }
        other => panic!("{other:?}"),
    }
    // the centre of the pendulum is a fixed point of Gauss–Newton (J = 0): no convergence
    let p = Pendulum::default();
    let e = consistent_state(
        &p,
        0.0,
        &[0.0, 0.0],
        &[0.0; 2],
        &ConsistentStateOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(e, ModelError::NoConvergence { iterations: 20, .. }),
        "{e:?}"
    );
    let bad = ConsistentStateOptions {
        tol: -1.0,
        ..Default::default()
    };
    let e = consistent_state(&p, 0.0, &[1.0, 0.0], &[0.0; 2], &bad).unwrap_err();
    assert_eq!(
        e,
        ModelError::InvalidParameter {
            what: "tol",
            value: -1.0
        }
    );
}

#[test]
fn inconsistent_initial_state_is_reported_with_both_residuals() {
    let robot = KeerthiRobot::default();
    let e = check_consistent(&robot, 0.0, &KEERTHI_IC2.q, &[0.1, 0.0, 0.0], 1e-10).unwrap_err();
    match e {
        ModelError::InconsistentInitialState {
            position_residual,
            velocity_residual,
        } => {
            assert!(
                (position_residual - 1.6018e-3).abs() < 1e-7,
                "{position_residual:e}"
            );
            assert!(velocity_residual > 1e-3, "{velocity_residual:e}");
        }
        other => panic!("{other:?}"),
    }
    let cs = consistent_state(
        &robot,
        0.0,
        &KEERTHI_IC2.q,
        &[0.1, 0.0, 0.0],
        &ConsistentStateOptions::default(),
    )
    .unwrap();
    let (p, v) = check_consistent(&robot, 0.0, &cs.q, &cs.qd, 1e-14).unwrap();
    assert!(p <= 1e-14 && v <= 1e-14);
}
