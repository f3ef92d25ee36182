//! Closed forms for each limit kind: joint velocity, joint acceleration,
//! torque, combined, and user rows a s̈ + b ṡ² + c ≤ 0; rows with a zero coefficient.

use crate::common;

use common::{line_of_length, point_mass};
use contour_model::models::HuangCartesianRobot;
use contour_planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour_planning::toppra::{Toppra, ToppraConfig};
use contour_planning::*;

fn solve_both<L: TorqueLimits>(
    acc: &AccelerationLimits<'_, HuangCartesianRobot, CartesianJointPath, L>,
) -> (f64, f64) {
    let pp = PhasePlane::new(acc, PhasePlaneConfig::default())
        .solve()
        .unwrap()
        .total_time;
    let tr = Toppra::new(
        acc,
        ToppraConfig {
            intervals: 4000,
            ..ToppraConfig::default()
        },
    )
    .solve()
    .unwrap()
    .total_time;
    (pp, tr)
}

/// Trapezoid: |q̇| ≤ v, |q̈| ≤ a on a line of length L: T = L/v + v/a (L ≥ v²/a).
#[test]
fn velocity_and_acceleration_limits_give_the_trapezoid() {
    for &(len, v, a) in &[(1.0, 0.5, 1.0), (3.0, 1.2, 2.0), (0.8, 0.3, 0.25)] {
        let r = point_mass(1.0);
        let jp = line_of_length(len);
        let d = PathDynamics::new(&r, &jp).unwrap();
        let vel = JointVelocityLimits::new(vec![v, v]);
        let acc_l = JointAccelerationLimits::new(vec![a, a]);
        let acc = AccelerationLimits::new(&d, &NoTorqueLimits)
            .with_constraint(&vel)
            .unwrap()
            .with_constraint(&acc_l)
            .unwrap();
        let exact = len / v + v / a;
        let (pp, tr) = solve_both(&acc);
        assert!(
            (pp - exact).abs() < 1e-7 * exact,
            "phase plane {pp} vs {exact}"
        );
        assert!(
            tr >= exact * (1.0 - 1e-9) && tr < exact * (1.0 + 2e-3),
            "TOPP-RA {tr} vs {exact}"
        );
    }
}

/// Torque |F| ≤ f with m and a velocity limit v: T = L/v + m v/f; with the velocity limit off
/// (+∞) the bang–bang 2 √(m L / f).
#[test]
fn torque_and_velocity_limits_combine() {
    let (m, len, f, v) = (2.0, 1.5, 3.0, 0.9);
    let r = point_mass(m);
    let jp = line_of_length(len);
    let d = PathDynamics::new(&r, &jp).unwrap();
    let box_l = BoxLimits::symmetric(2, f);
    let vel = JointVelocityLimits::new(vec![v, f64::INFINITY]);
    let acc = AccelerationLimits::new(&d, &box_l)
        .with_constraint(&vel)
        .unwrap();
    let exact = len / v + m * v / f;
    let (pp, tr) = solve_both(&acc);
    assert!((pp - exact).abs() < 1e-7 * exact, "{pp} vs {exact}");
    assert!((tr - exact).abs() < 2e-3 * exact, "{tr} vs {exact}");
    let free = JointVelocityLimits::new(vec![f64::INFINITY; 2]);
    let acc = AccelerationLimits::new(&d, &box_l)
        .with_constraint(&free)
        .unwrap();
    let exact = 2.0 * (m * len / f).sqrt();
    let (pp, _) = solve_both(&acc);
    assert!((pp - exact).abs() < 1e-8 * exact, "{pp} vs {exact}");
}

/// User rows: the trapezoid again, written as four rows of the general form
/// (±L s̈ − a ≤ 0, L² ṡ² − v² ≤ 0 twice); the same time as the typed limits.
#[test]
fn general_rows_reproduce_the_typed_limits() {
    let (len, v, a) = (2.0, 0.7, 1.3);
    let r = point_mass(1.0);
    let jp = line_of_length(len);
    let d = PathDynamics::new(&r, &jp).unwrap();
    let rows = FnConstraint {
        rows: 3,
        f: move |p: &PathPoint<'_>, ra: &mut [f64], rb: &mut [f64], rc: &mut [f64]| {
            let bx = p.b[0];
            ra.copy_from_slice(&[bx, -bx, 0.0]);
            rb.copy_from_slice(&[0.0, 0.0, bx * bx]);
            rc.copy_from_slice(&[-a, -a, -v * v]);
        },
    };
    let acc = AccelerationLimits::new(&d, &NoTorqueLimits)
        .with_constraint(&rows)
        .unwrap();
    let exact = len / v + v / a;
    let (pp, tr) = solve_both(&acc);
    assert!((pp - exact).abs() < 1e-7 * exact, "{pp} vs {exact}");
    assert!((tr - exact).abs() < 2e-3 * exact, "{tr} vs {exact}");
}

/// A parabola x(s) = 2 + (s − ½)², y = s: at s = ½ joint x has B_x = 0 (zero coefficient of
/// s̈ in its acceleration rows), so |q̈_x| = |B̄_x| ṡ² = 2 ṡ² ≤ a bounds the speed there:
/// ṡ² ≤ a/2, without a division by B_x.
#[test]
fn zero_coefficient_rows_bound_the_speed_without_division() {
    let seg = Segment {
        s_start: 0.0,
        s_end: 1.0,
        shape: Shape::Polynomial {
            coefficients: vec![vec![2.25, -1.0, 1.0], vec![0.0, 1.0, 0.0]],
        },
        kind: SegmentKind::Unconstrained,
    };
    let jp = CartesianJointPath::new(Path::new(vec![seg]).unwrap());
    let r = point_mass(1.0);
    let d = PathDynamics::new(&r, &jp).unwrap();
    let a = 0.8;
    let acc_l = JointAccelerationLimits::new(vec![a, 1.0]);
    let acc = AccelerationLimits::new(&d, &NoTorqueLimits)
        .with_constraint(&acc_l)
        .unwrap();
    let xs = a / 2.0;
    for (sd2, ok) in [(xs * (1.0 - 1e-9), true), (xs * (1.0 + 1e-9), false)] {
        let b = acc.bounds(0, 0.5, sd2.sqrt()).unwrap();
        assert_eq!(b.admissible(0.0), ok, "{sd2}: {b:?}");
        assert!(b.lower.is_finite() || b.lower == f64::NEG_INFINITY);
    }
    // the solvers run through it and keep |q̈_x| ≤ a
    let sol = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    let x_half = sol
        .samples
        .iter()
        .min_by(|p, q| (p.s - 0.5).abs().total_cmp(&(q.s - 0.5).abs()))
        .unwrap();
    assert!(x_half.sd * x_half.sd <= xs * (1.0 + 1e-6), "{x_half:?}");
    let tr = Toppra::new(&acc, ToppraConfig::default()).solve().unwrap();
    assert!((tr.total_time - sol.total_time).abs() < 3e-3 * sol.total_time);
}

#[test]
fn bad_limits_are_typed_errors() {
    let r = point_mass(1.0);
    let jp = line_of_length(1.0);
    let d = PathDynamics::new(&r, &jp).unwrap();
    for v in [
        vec![1.0],
        vec![1.0, 0.0],
        vec![1.0, f64::NAN],
        vec![-1.0, 1.0],
    ] {
        let vel = JointVelocityLimits::new(v);
        assert!(AccelerationLimits::new(&d, &NoTorqueLimits)
            .with_constraint(&vel)
            .is_err());
    }
    let nan_rows = FnConstraint {
        rows: 1,
        f: |_p: &PathPoint<'_>, a: &mut [f64], b: &mut [f64], c: &mut [f64]| {
            a[0] = f64::NAN;
            b[0] = 0.0;
            c[0] = 0.0;
        },
    };
    let acc = AccelerationLimits::new(&d, &NoTorqueLimits)
        .with_constraint(&nan_rows)
        .unwrap();
    assert!(matches!(
        acc.bounds(0, 0.5, 0.1),
        Err(PlanningError::NonFinite { .. })
    ));
}

/// Acceleration limits alone, |q̈| ≤ a on a line of length L: bang–bang, T = 2 √(L / a); an
/// infinite velocity limit beside them changes nothing.
#[test]
fn acceleration_limits_alone_give_bang_bang() {
    for &(len, a) in &[(1.0, 1.0), (3.0, 2.0), (0.8, 0.25)] {
        let r = point_mass(1.0);
        let jp = line_of_length(len);
        let d = PathDynamics::new(&r, &jp).unwrap();
        let acc_l = JointAccelerationLimits::new(vec![a, f64::INFINITY]);
        let free = JointVelocityLimits::new(vec![f64::INFINITY; 2]);
        let exact = 2.0 * (len / a).sqrt();
        for with_free in [false, true] {
            let mut acc = AccelerationLimits::new(&d, &NoTorqueLimits)
                .with_constraint(&acc_l)
                .unwrap();
            if with_free {
                acc = acc.with_constraint(&free).unwrap();
            }
            let (pp, tr) = solve_both(&acc);
            assert!(
                (pp - exact).abs() < 1e-7 * exact,
                "phase plane {pp} vs {exact}"
            );
            assert!(
                tr >= exact * (1.0 - 1e-9) && tr < exact * (1.0 + 2e-3),
                "TOPP-RA {tr} vs {exact}"
            );
        }
    }
}

/// Velocity limits alone leave s̈ unbounded (the infimum L/v is approached by ever larger
/// accelerations and never attained): both solvers name that, not the path's tangent, and an
/// infinite torque or acceleration limit is no limit either.
#[test]
fn velocity_limits_alone_are_diagnosed_as_unbounded_acceleration() {
    let r = point_mass(1.0);
    let jp = line_of_length(1.0);
    let d = PathDynamics::new(&r, &jp).unwrap();
    let vel = JointVelocityLimits::new(vec![0.5, 0.5]);
    let no_acc = JointAccelerationLimits::new(vec![f64::INFINITY; 2]);
    let no_torque = BoxLimits::symmetric(2, f64::INFINITY);
    fn check<L: TorqueLimits>(
        acc: &AccelerationLimits<'_, HuangCartesianRobot, CartesianJointPath, L>,
    ) {
        let pp = PhasePlane::new(acc, PhasePlaneConfig::default()).solve();
        assert!(
            matches!(pp, Err(PlanningError::UnboundedAcceleration { .. })),
            "phase plane: {pp:?}"
        );
        let tr = Toppra::new(acc, ToppraConfig::default()).solve();
        assert!(
            matches!(tr, Err(PlanningError::UnboundedAcceleration { .. })),
            "TOPP-RA: {:?}",
            tr.map(|t| t.total_time)
        );
    }
    check(
        &AccelerationLimits::new(&d, &NoTorqueLimits)
            .with_constraint(&vel)
            .unwrap(),
    );
    check(
        &AccelerationLimits::new(&d, &NoTorqueLimits)
            .with_constraint(&vel)
            .unwrap()
            .with_constraint(&no_acc)
            .unwrap(),
    );
    check(
        &AccelerationLimits::new(&d, &no_torque)
            .with_constraint(&vel)
            .unwrap(),
    );
}

/// An infinite torque limit on one joint is no limit on it: the other joint's limit alone
/// gives the bang–bang time 2 √(m L / f) of a line along that joint.
#[test]
fn an_infinite_torque_limit_is_no_limit() {
    let (m, len, f) = (2.0, 1.5, 3.0);
    let r = point_mass(m);
    let jp = line_of_length(len);
    let d = PathDynamics::new(&r, &jp).unwrap();
    let lim = BoxLimits::from_effort(&[f, f64::INFINITY]);
    let acc = AccelerationLimits::new(&d, &lim);
    let exact = 2.0 * (m * len / f).sqrt();
    let (pp, tr) = solve_both(&acc);
    assert!(
        (pp - exact).abs() < 1e-7 * exact,
        "phase plane {pp} vs {exact}"
    );
    assert!(
        tr >= exact * (1.0 - 1e-9) && tr < exact * (1.0 + 2e-3),
        "TOPP-RA {tr} vs {exact}"
    );
}
