//! Bad input and infeasible problems return typed errors.

use contour_model::models::HuangCartesianRobot;
use contour_planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour_planning::toppra::{Toppra, ToppraConfig};
use contour_planning::*;

fn line(a: [f64; 2], b: [f64; 2], s0: f64, s1: f64) -> Segment {
    Segment {
        s_start: s0,
        s_end: s1,
        shape: Shape::Line {
            start: a.to_vec(),
            end: b.to_vec(),
        },
        kind: SegmentKind::Unconstrained,
    }
}

#[test]
fn non_monotone_parameter() {
    let err = Path::new(vec![line([0.0, 0.0], [1.0, 0.0], 0.5, 0.2)]).unwrap_err();
    assert!(matches!(
        err,
        PlanningError::NonMonotonePath { index: 0, .. }
    ));
    let err = Path::new(vec![
        line([0.0, 0.0], [1.0, 0.0], 0.0, 0.5),
        line([1.0, 0.0], [2.0, 0.0], 0.6, 1.0),
    ])
    .unwrap_err();
    assert!(matches!(
        err,
        PlanningError::NonMonotonePath { index: 1, .. }
    ));
    let err = Path::new(vec![
        line([0.0, 0.0], [1.0, 0.0], 0.0, 0.5),
        line([1.0, 0.1], [2.0, 0.0], 0.5, 1.0),
    ])
    .unwrap_err();
    assert!(matches!(err, PlanningError::DiscontinuousPath { .. }));
    let err = Path::new(vec![line([0.0, f64::NAN], [1.0, 0.0], 0.0, 1.0)]).unwrap_err();
    assert!(matches!(err, PlanningError::NonFinite { .. }));
    let err = Path::new(vec![]).unwrap_err();
    assert!(matches!(err, PlanningError::DimensionMismatch { .. }));
}

#[test]
fn unconstrained_segment_through_the_obstacle() {
    let robot = HuangCartesianRobot::default();
    // straight through the circle x² + (y − 1.5)² ≥ 0.25
    let jp =
        CartesianJointPath::new(Path::new(vec![line([-1.0, 1.5], [1.0, 1.5], 0.0, 1.0)]).unwrap());
    let d = PathDynamics::new(&robot, &jp).unwrap();
    let err = d.check_feasible(100, 1e-9).unwrap_err();
    assert!(
        matches!(err, PlanningError::PathViolatesConstraint { row: 0, phi, .. } if phi < 0.0),
        "{err:?}"
    );
}

#[test]
fn constrained_segment_off_the_constraint() {
    let robot = HuangCartesianRobot::default();
    let mut seg = line([1.0, 0.0], [2.0, 0.0], 0.0, 1.0);
    seg.kind = SegmentKind::Constrained {
        row: 0,
        force: ContactForce::Constant(1.0),
    };
    let jp = CartesianJointPath::new(Path::new(vec![seg.clone()]).unwrap());
    let d = PathDynamics::new(&robot, &jp).unwrap();
    assert!(matches!(
        d.check_feasible(10, 1e-9),
        Err(PlanningError::PathLeavesConstraint { row: 0, .. })
    ));
    seg.kind = SegmentKind::Constrained {
        row: 3,
        force: ContactForce::Constant(1.0),
    };
    let jp = CartesianJointPath::new(Path::new(vec![seg]).unwrap());
    assert!(matches!(
        PathDynamics::new(&robot, &jp),
        Err(PlanningError::BadConstraintRow { row: 3, rows: 1 })
    ));
}

#[test]
fn inverted_torque_limits() {
    let robot = HuangCartesianRobot::default();
    let jp =
        CartesianJointPath::new(Path::new(vec![line([2.0, 0.0], [3.0, 0.0], 0.0, 1.0)]).unwrap());
    let d = PathDynamics::new(&robot, &jp).unwrap();
    let lim = BoxLimits {
        lower: vec![-1.0, 1.0],
        upper: vec![1.0, -1.0],
    };
    let acc = AccelerationLimits::new(&d, &lim);
    let err = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap_err();
    assert!(
        matches!(err, PlanningError::InvertedTorqueLimits { joint: 1, .. }),
        "{err:?}"
    );
    let err = Toppra::new(&acc, ToppraConfig::default())
        .solve()
        .unwrap_err();
    assert!(
        matches!(err, PlanningError::InvertedTorqueLimits { joint: 1, .. }),
        "{err:?}"
    );
    assert!(matches!(
        acc.bounds(0, 0.5, f64::NAN),
        Err(PlanningError::NonFinite { .. })
    ));
}

/// A contact force of 3 N on Huang's arc needs |F| ≈ 3 N just to press: with |F| ≤ 1 N no
/// motion reaches the end.
#[test]
fn unreachable_end_is_an_empty_admissible_region() {
    let mut task = ContourTask::huang();
    task.contact_force = 3.0;
    let cp = task.discontinuous_slope_path().unwrap();
    let robot = HuangCartesianRobot::default();
    let jp = CartesianJointPath::new(cp.path.clone());
    let d = PathDynamics::new(&robot, &jp).unwrap();
    let lim = BoxLimits::symmetric(2, 1.0);
    let acc = AccelerationLimits::new(&d, &lim);
    let err = PhasePlane::new(
        &acc,
        PhasePlaneConfig {
            rest_points: vec![cp.s1, cp.s2],
            ..PhasePlaneConfig::default()
        },
    )
    .solve()
    .unwrap_err();
    match err {
        PlanningError::EmptyAdmissibleRegion { s } => {
            assert!(s >= cp.s1 - 1e-12 && s <= cp.s2 + 1e-12, "s = {s}")
        }
        e => panic!("{e:?}"),
    }
    let err = Toppra::new(&acc, ToppraConfig::default())
        .solve()
        .unwrap_err();
    assert!(matches!(err, PlanningError::EmptyAdmissibleRegion { .. }));
    // a rest point outside the path
    let err = PhasePlane::new(
        &acc,
        PhasePlaneConfig {
            rest_points: vec![1.5],
            ..PhasePlaneConfig::default()
        },
    )
    .solve()
    .unwrap_err();
    assert!(matches!(err, PlanningError::OutOfRange { .. }));
}

#[test]
fn non_finite_limits_and_forces() {
    let robot = HuangCartesianRobot::default();
    let jp =
        CartesianJointPath::new(Path::new(vec![line([2.0, 0.0], [3.0, 0.0], 0.0, 1.0)]).unwrap());
    let d = PathDynamics::new(&robot, &jp).unwrap();
    let lim = BoxLimits {
        lower: vec![f64::NAN, -1.0],
        upper: vec![1.0, 1.0],
    };
    let acc = AccelerationLimits::new(&d, &lim);
    assert!(matches!(
        acc.bounds(0, 0.5, 0.1),
        Err(PlanningError::NonFinite { .. })
    ));
    let mut task = ContourTask::huang();
    task.contact_force = f64::INFINITY;
    assert!(matches!(
        task.discontinuous_slope_path(),
        Err(PlanningError::NonFinite { .. })
    ));
    // a Λ(s) that returns NaN on the constrained segment
    let cp = ContourTask::huang().discontinuous_slope_path().unwrap();
    let mut segs = cp.path.segments().to_vec();
    segs[1].kind = SegmentKind::Constrained {
        row: 0,
        force: ContactForce::Function(std::sync::Arc::new(|_s| f64::NAN)),
    };
    let jp = CartesianJointPath::new(Path::new(segs).unwrap());
    let d = PathDynamics::new(&robot, &jp).unwrap();
    let lim = BoxLimits::symmetric(2, 1.0);
    let acc = AccelerationLimits::new(&d, &lim);
    assert!(matches!(
        acc.bounds(1, 0.5, 0.1),
        Err(PlanningError::NonFinite { .. })
    ));
}

/// The solvers run the path-versus-constraint check themselves.
#[test]
fn solvers_reject_a_path_through_the_obstacle() {
    let robot = HuangCartesianRobot::default();
    let jp =
        CartesianJointPath::new(Path::new(vec![line([-1.0, 1.5], [1.0, 1.5], 0.0, 1.0)]).unwrap());
    let d = PathDynamics::new(&robot, &jp).unwrap();
    let lim = BoxLimits::symmetric(2, 1.0);
    let acc = AccelerationLimits::new(&d, &lim);
    let err = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap_err();
    assert!(
        matches!(err, PlanningError::PathViolatesConstraint { row: 0, .. }),
        "{err:?}"
    );
    let err = Toppra::new(&acc, ToppraConfig::default())
        .solve()
        .unwrap_err();
    assert!(
        matches!(err, PlanningError::PathViolatesConstraint { row: 0, .. }),
        "{err:?}"
    );
}
