//! Bad input and infeasible problems return typed errors.

use contour_model::models::HuangCartesianRobot;
use contour_planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour_planning::toppra::{Toppra, ToppraConfig};
use contour_planning::*;

/// `assert!(matches!(value, pattern), "{value:?}")`: the failure prints what came instead.
macro_rules! assert_variant {
    ($value:expr, $($pattern:tt)+) => {{
        let value = $value;
        assert!(matches!(value, $($pattern)+), "{value:?}");
    }};
}

fn line(a: [f64; 2], b: [f64; 2], s0: f64, s1: f64) -> Segment {
    Segment::line(&a, &b, s0, s1)
}

#[test]
fn non_monotone_parameter() {
    let err = Path::new(vec![line([0.0, 0.0], [1.0, 0.0], 0.5, 0.2)]).unwrap_err();
    assert_variant!(err, PlanningError::NonMonotonePath { index: 0, .. });
    let err = Path::new(vec![
        line([0.0, 0.0], [1.0, 0.0], 0.0, 0.5),
        line([1.0, 0.0], [2.0, 0.0], 0.6, 1.0),
    ])
    .unwrap_err();
    assert_variant!(err, PlanningError::NonMonotonePath { index: 1, .. });
    let err = Path::new(vec![
        line([0.0, 0.0], [1.0, 0.0], 0.0, 0.5),
        line([1.0, 0.1], [2.0, 0.0], 0.5, 1.0),
    ])
    .unwrap_err();
    assert_variant!(err, PlanningError::DiscontinuousPath { .. });
    let err = Path::new(vec![line([0.0, f64::NAN], [1.0, 0.0], 0.0, 1.0)]).unwrap_err();
    assert_variant!(err, PlanningError::NonFinite { .. });
    let err = Path::new(vec![]).unwrap_err();
    assert_variant!(err, PlanningError::DimensionMismatch { .. });
}

#[test]
fn unconstrained_segment_through_the_obstacle() {
    let robot = HuangCartesianRobot::default();
    // straight through the circle x² + (y − 1.5)² ≥ 0.25
    let jp =
        CartesianJointPath::new(Path::new(vec![line([-1.0, 1.5], [1.0, 1.5], 0.0, 1.0)]).unwrap());
    let d = PathDynamics::new(&robot, &jp).unwrap();
    let err = d.check_feasible(100, 1e-9).unwrap_err();
    assert_variant!(err, PlanningError::PathViolatesConstraint { row: 0, phi, .. } if phi < 0.0);
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
    assert_variant!(
        d.check_feasible(10, 1e-9),
        Err(PlanningError::PathLeavesConstraint { row: 0, .. })
    );
    seg.kind = SegmentKind::Constrained {
        row: 3,
        force: ContactForce::Constant(1.0),
    };
    let jp = CartesianJointPath::new(Path::new(vec![seg]).unwrap());
    assert_variant!(
        PathDynamics::new(&robot, &jp).err(),
        Some(PlanningError::BadConstraintRow { row: 3, rows: 1 })
    );
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
    assert_variant!(err, PlanningError::InvertedTorqueLimits { joint: 1, .. });
    let err = Toppra::new(&acc, ToppraConfig::default())
        .solve()
        .unwrap_err();
    assert_variant!(err, PlanningError::InvertedTorqueLimits { joint: 1, .. });
    assert_variant!(
        acc.bounds(0, 0.5, f64::NAN),
        Err(PlanningError::NonFinite { .. })
    );
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
    assert_variant!(err, PlanningError::EmptyAdmissibleRegion { .. });
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
    assert_variant!(err, PlanningError::OutOfRange { .. });
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
    assert_variant!(
        acc.bounds(0, 0.5, 0.1),
        Err(PlanningError::InvalidParameter {
            name: "torque limit",
            ..
        })
    );
    let mut task = ContourTask::huang();
    task.contact_force = f64::INFINITY;
    assert_variant!(
        task.discontinuous_slope_path(),
        Err(PlanningError::NonFinite { .. })
    );
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
    assert_variant!(
        acc.bounds(1, 0.5, 0.1),
        Err(PlanningError::NonFinite { .. })
    );
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
    assert_variant!(err, PlanningError::PathViolatesConstraint { row: 0, .. });
    let err = Toppra::new(&acc, ToppraConfig::default())
        .solve()
        .unwrap_err();
    assert_variant!(err, PlanningError::PathViolatesConstraint { row: 0, .. });
}

// ---- bad input never panics, never hangs, never returns a wrong Ok ----

use std::sync::Arc;

/// Huang's Cartesian robot on a free straight line away from the obstacle.
fn free_line() -> CartesianJointPath {
    CartesianJointPath::new(Path::new(vec![line([2.0, 0.0], [3.0, 0.5], 0.0, 1.0)]).unwrap())
}

/// Runs both solvers on the same input and returns their errors.
fn both<L: TorqueLimits>(
    jp: &CartesianJointPath,
    lim: &L,
    pp: PhasePlaneConfig,
    tr: ToppraConfig,
) -> (Result<f64, PlanningError>, Result<f64, PlanningError>) {
    let robot = HuangCartesianRobot::default();
    let d = PathDynamics::new(&robot, jp).unwrap();
    let acc = AccelerationLimits::new(&d, lim);
    let a = PhasePlane::new(&acc, pp).solve().map(|s| s.total_time);
    let b = Toppra::new(&acc, tr).solve().map(|s| s.total_time);
    (a, b)
}

fn unwrap_both(
    r: (Result<f64, PlanningError>, Result<f64, PlanningError>),
) -> (PlanningError, PlanningError) {
    (r.0.unwrap_err(), r.1.unwrap_err())
}

fn cap(v: f64) -> Option<Arc<dyn Fn(f64) -> f64 + Send + Sync>> {
    Some(Arc::new(move |_s| v))
}

/// Used to panic in `copy_from_slice` (limits for 3 joints on a 2-joint robot).
#[test]
fn box_limits_of_the_wrong_length_are_a_dimension_mismatch() {
    let jp = free_line();
    for lim in [
        BoxLimits::symmetric(3, 1.0),
        BoxLimits::symmetric(1, 1.0),
        BoxLimits {
            lower: vec![-1.0, -1.0],
            upper: vec![1.0],
        },
    ] {
        let (a, b) = unwrap_both(both(
            &jp,
            &lim,
            PhasePlaneConfig::default(),
            ToppraConfig::default(),
        ));
        for e in [a, b] {
            assert_variant!(e, PlanningError::DimensionMismatch { .. });
        }
        let robot = HuangCartesianRobot::default();
        let d = PathDynamics::new(&robot, &jp).unwrap();
        let acc = AccelerationLimits::new(&d, &lim);
        assert_variant!(
            acc.bounds(0, 0.5, 0.1),
            Err(PlanningError::DimensionMismatch { .. })
        );
    }
}

/// Used to hang: a step fraction of 0 or 1e-9, 1e8 TOPP-RA intervals.
#[test]
fn unbounded_work_is_refused_with_the_cap() {
    let jp = free_line();
    let lim = BoxLimits::symmetric(2, 1.0);
    for (f, zero) in [(0.0, true), (1e-9, false), (-1.0, true), (f64::NAN, true)] {
        let e = both(
            &jp,
            &lim,
            PhasePlaneConfig {
                max_step_fraction: f,
                ..PhasePlaneConfig::default()
            },
            ToppraConfig::default(),
        )
        .0
        .unwrap_err();
        if zero {
            assert_variant!(
                e,
                PlanningError::InvalidParameter {
                    name: "max_step_fraction",
                    ..
                }
            );
        } else {
            assert_variant!(
                e,
                PlanningError::WorkCap {
                    name: "max_step_fraction",
                    ..
                }
            );
        }
    }
    let robot = HuangCartesianRobot::default();
    let d = PathDynamics::new(&robot, &jp).unwrap();
    let acc = AccelerationLimits::new(&d, &lim);
    for (n, cap) in [(100_000_000, true), (0, false)] {
        let e = Toppra::new(
            &acc,
            ToppraConfig {
                intervals: n,
                ..ToppraConfig::default()
            },
        )
        .solve()
        .unwrap_err();
        if cap {
            assert_variant!(
                e,
                PlanningError::WorkCap {
                    name: "intervals",
                    ..
                }
            );
        } else {
            assert_variant!(
                e,
                PlanningError::InvalidParameter {
                    name: "intervals",
                    ..
                }
            );
        }
    }
    let e = PhasePlane::new(
        &acc,
        PhasePlaneConfig {
            mvc_grid: 100_000_000,
            ..PhasePlaneConfig::default()
        },
    )
    .solve()
    .unwrap_err();
    assert_variant!(
        e,
        PlanningError::WorkCap {
            name: "mvc_grid",
            ..
        }
    );
}

/// `speed_cap = -1` used to give Ok (T = 1.1) and NaN was ignored by both solvers.
#[test]
fn negative_or_nan_speed_cap_is_an_invalid_parameter() {
    let jp = free_line();
    let lim = BoxLimits::symmetric(2, 1.0);
    for v in [-1.0, f64::NAN, f64::NEG_INFINITY] {
        let (a, b) = unwrap_both(both(
            &jp,
            &lim,
            PhasePlaneConfig {
                speed_cap: cap(v),
                ..PhasePlaneConfig::default()
            },
            ToppraConfig {
                speed_cap: cap(v),
                ..ToppraConfig::default()
            },
        ));
        for e in [a, b] {
            assert!(
                matches!(
                    e,
                    PlanningError::InvalidParameter {
                        name: "speed_cap",
                        ..
                    }
                ),
                "cap {v}: {e:?}"
            );
        }
    }
}

/// TOPP-RA used to return Ok with T = ∞ (zero limits, zero speed cap) or T = 1.5e-6 (a
/// zero-length path) where the phase plane gives typed errors: both now agree.
#[test]
fn both_solvers_reject_the_same_inputs_with_the_same_variants() {
    let jp = free_line();
    let unit = BoxLimits::symmetric(2, 1.0);
    // zero limits: no motion can start
    let (a, b) = unwrap_both(both(
        &jp,
        &BoxLimits::symmetric(2, 0.0),
        PhasePlaneConfig::default(),
        ToppraConfig::default(),
    ));
    assert_variant!(a, PlanningError::EmptyAdmissibleRegion { .. });
    assert_variant!(b, PlanningError::EmptyAdmissibleRegion { .. });
    // a zero speed cap
    let (a, b) = unwrap_both(both(
        &jp,
        &unit,
        PhasePlaneConfig {
            speed_cap: cap(0.0),
            ..PhasePlaneConfig::default()
        },
        ToppraConfig {
            speed_cap: cap(0.0),
            ..ToppraConfig::default()
        },
    ));
    assert_variant!(a, PlanningError::EmptyAdmissibleRegion { .. });
    assert_variant!(b, PlanningError::EmptyAdmissibleRegion { .. });
    // a zero-length path (start = end: B = 0)
    let point =
        CartesianJointPath::new(Path::new(vec![line([2.0, 0.0], [2.0, 0.0], 0.0, 1.0)]).unwrap());
    let (a, b) = unwrap_both(both(
        &point,
        &unit,
        PhasePlaneConfig::default(),
        ToppraConfig::default(),
    ));
    assert_variant!(a, PlanningError::DegenerateTangent { .. });
    assert_variant!(b, PlanningError::DegenerateTangent { .. });
    // infinite torque limits are no limit: nothing bounds s̈ where the path moves
    let inf = BoxLimits::symmetric(2, f64::INFINITY);
    let (a, b) = unwrap_both(both(
        &jp,
        &inf,
        PhasePlaneConfig::default(),
        ToppraConfig::default(),
    ));
    for e in [a, b] {
        assert_variant!(e, PlanningError::UnboundedAcceleration { .. });
    }
}

/// Misleading errors: `rtol = NaN` or `rtol = atol = 0` reported a step-size underflow,
/// `admissibility_tol = -1` was accepted then "blocked at s = 0", `mvc_grid = 0` accepted.
#[test]
fn every_config_field_is_validated_up_front() {
    let jp = free_line();
    let lim = BoxLimits::symmetric(2, 1.0);
    let d0 = PhasePlaneConfig::default;
    let cases: Vec<(&str, PhasePlaneConfig)> = vec![
        (
            "rtol",
            PhasePlaneConfig {
                rtol: f64::NAN,
                ..d0()
            },
        ),
        (
            "rtol",
            PhasePlaneConfig {
                rtol: 0.0,
                atol: 0.0,
                ..d0()
            },
        ),
        ("rtol", PhasePlaneConfig { rtol: 2.0, ..d0() }),
        ("atol", PhasePlaneConfig { atol: -1.0, ..d0() }),
        (
            "atol",
            PhasePlaneConfig {
                atol: f64::INFINITY,
                ..d0()
            },
        ),
        (
            "admissibility_tol",
            PhasePlaneConfig {
                admissibility_tol: -1.0,
                ..d0()
            },
        ),
        (
            "admissibility_tol",
            PhasePlaneConfig {
                admissibility_tol: f64::NAN,
                ..d0()
            },
        ),
        (
            "max_step_fraction",
            PhasePlaneConfig {
                max_step_fraction: 2.0,
                ..d0()
            },
        ),
        (
            "mvc_grid",
            PhasePlaneConfig {
                mvc_grid: 0,
                ..d0()
            },
        ),
        (
            "feasibility_tol",
            PhasePlaneConfig {
                feasibility_tol: Some(f64::NAN),
                ..d0()
            },
        ),
        (
            "feasibility_tol",
            PhasePlaneConfig {
                feasibility_tol: Some(-1.0),
                ..d0()
            },
        ),
    ];
    for (name, cfg) in cases {
        let e = both(&jp, &lim, cfg, ToppraConfig::default()).0.unwrap_err();
        assert!(
            matches!(e, PlanningError::InvalidParameter { name: n, .. } if n == name),
            "{name}: {e:?}"
        );
    }
    let e = both(
        &jp,
        &lim,
        d0(),
        ToppraConfig {
            feasibility_tol: Some(f64::NAN),
            ..ToppraConfig::default()
        },
    )
    .1
    .unwrap_err();
    assert_variant!(
        e,
        PlanningError::InvalidParameter {
            name: "feasibility_tol",
            ..
        }
    );
}

/// Limits that are NaN only between grid points (where only TOPP-RA's check after the solve
/// evaluates them): the check refuses the profile instead of reading the NaN violation as 0
/// (`f64::max(NaN, 0) = 0`).
#[test]
fn a_nan_seen_only_by_the_check_after_the_solve_is_an_error() {
    let jp = free_line();
    let robot = HuangCartesianRobot::default();
    let d = PathDynamics::new(&robot, &jp).unwrap();
    // grid points s = k/10 (fract 0 or 1 − ε) have limits ±50; midpoints (fract 1/2) NaN
    let nan_between = FnLimits(|s: f64, _sd: f64, lo: &mut [f64], hi: &mut [f64]| {
        let between = ((s * 10.0).fract() - 0.5).abs() < 0.25;
        let v = if between { f64::NAN } else { 50.0 };
        lo.fill(-v);
        hi.fill(v);
    });
    let cfg = ToppraConfig {
        intervals: 10,
        feasibility_tol: None,
        ..ToppraConfig::default()
    };
    let acc = AccelerationLimits::new(&d, &nan_between);
    let err = Toppra::new(&acc, cfg.clone()).solve().unwrap_err();
    assert_variant!(err, PlanningError::LimitViolated { relative, .. } if relative.is_nan());
    // the same limits finite everywhere: the solve succeeds (the NaN is what fails it)
    let finite = FnLimits(|_s: f64, _sd: f64, lo: &mut [f64], hi: &mut [f64]| {
        lo.fill(-50.0);
        hi.fill(50.0);
    });
    let acc = AccelerationLimits::new(&d, &finite);
    let t = Toppra::new(&acc, cfg).solve().unwrap().total_time;
    assert!(t.is_finite() && t > 0.0, "{t}");
}

/// Row counts that would allocate without bound are refused up front: `FnConstraint::new` and
/// `with_constraint` above `MAX_CONSTRAINT_ROWS`, and a TOPP-RA solve whose stored
/// coefficients would exceed `MAX_TOPPRA_COEFFICIENTS`.
#[test]
fn absurd_row_counts_are_work_caps() {
    let rows = |_p: &PathPoint<'_>, a: &mut [f64], b: &mut [f64], c: &mut [f64]| {
        a.fill(0.0);
        b.fill(0.0);
        c.fill(-1.0);
    };
    for n in [usize::MAX, constraints::MAX_CONSTRAINT_ROWS + 1] {
        let e = FnConstraint::new(n, rows).map(|_| ()).unwrap_err();
        assert_variant!(
            e,
            PlanningError::WorkCap {
                name: "constraint rows",
                ..
            }
        );
    }
    assert!(FnConstraint::new(constraints::MAX_CONSTRAINT_ROWS, rows).is_ok());
    let jp = free_line();
    let robot = HuangCartesianRobot::default();
    let d = PathDynamics::new(&robot, &jp).unwrap();
    let lim = BoxLimits::symmetric(2, 50.0);
    let literal = FnConstraint {
        rows: usize::MAX,
        f: rows,
    };
    let e = AccelerationLimits::new(&d, &lim)
        .with_constraint(&literal)
        .map(|_| ())
        .unwrap_err();
    assert_variant!(
        e,
        PlanningError::WorkCap {
            name: "constraint rows",
            ..
        }
    );
    // two constraints of 60 000 rows each: each fits, their sum does not
    let half = FnConstraint::new(60_000, rows).unwrap();
    let e = AccelerationLimits::new(&d, &lim)
        .with_constraint(&half)
        .and_then(|a| a.with_constraint(&half))
        .map(|_| ())
        .unwrap_err();
    assert_variant!(
        e,
        PlanningError::WorkCap {
            name: "constraint rows",
            ..
        }
    );
    // 20 000 rows (within the row cap) on the default grid of 2000 intervals: 2.4e8 stored
    // coefficients, refused before anything is allocated
    let many = FnConstraint::new(20_000, rows).unwrap();
    let acc = AccelerationLimits::new(&d, &lim)
        .with_constraint(&many)
        .unwrap();
    let e = Toppra::new(&acc, ToppraConfig::default())
        .solve()
        .unwrap_err();
    assert_variant!(e, PlanningError::WorkCap { value, .. } if value > toppra::MAX_TOPPRA_COEFFICIENTS);
}
