//! The phase plane's default answer against a tight-tolerance run of the same
//! solver (rtol 1e-13, a 1/20000 step cap, a 16000-point MVC grid: the fine settings under
//! which the adaptive scan and slide reduce to the former fixed ones) and against TOPP-RA at
//! N = 1000, on the benchmark problems: the 7-joint arm's line under the torque and velocity
//! limits of its URDF (a long slide along the joint-velocity boundary, ending at rest) and the
//! planar 3-link arm's line under torque limits (tangent switching points).

use contour_model::models::{arm7_line_endpoints, ssrms_arm, ARM7_URDF};
use contour_model::tree::KinematicTree;
use contour_model::urdf::tree_and_limits_from_urdf_str;
use contour_planning::phase_plane::{MinimumTimeSolution, PhasePlane, PhasePlaneConfig};
use contour_planning::toppra::{Toppra, ToppraConfig};

use crate::common::joint_line;
use contour_planning::{
    AccelerationLimits, BoxLimits, CartesianJointPath, JointVelocityLimits, PathDynamics,
    TorqueLimits,
};

fn tight() -> PhasePlaneConfig {
    PhasePlaneConfig {
        rtol: 1e-13,
        atol: 1e-16,
        max_step_fraction: 1.0 / 20000.0,
        mvc_grid: 16000,
        ..PhasePlaneConfig::default()
    }
}

/// Default and tight phase plane, TOPP-RA at N = 1000: (default, tight, toppra).
fn solve_three<L: TorqueLimits + ?Sized>(
    acc: &AccelerationLimits<'_, KinematicTree, CartesianJointPath, L>,
) -> (MinimumTimeSolution, f64, f64) {
    let pp = PhasePlane::new(acc, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    let reference = PhasePlane::new(acc, tight()).solve().unwrap().total_time;
    let tr = Toppra::new(
        acc,
        ToppraConfig {
            intervals: 1000,
            ..ToppraConfig::default()
        },
    )
    .solve()
    .unwrap()
    .total_time;
    (pp, reference, tr)
}

#[test]
fn arm7_urdf_limits_default_matches_tight_reference() {
    let (q0, q1) = arm7_line_endpoints();
    let jp = joint_line(&q0, &q1);
    let (_, limits) = tree_and_limits_from_urdf_str(ARM7_URDF).unwrap();
    let arm = ssrms_arm();
    let d = PathDynamics::new(&arm, &jp).unwrap();
    let torque = BoxLimits::from_effort(&limits.effort);
    let vel = JointVelocityLimits::new(limits.velocity.clone());
    let acc = AccelerationLimits::new(&d, &torque)
        .with_constraint(&vel)
        .unwrap();
    let (pp, reference, tr) = solve_three(&acc);
    let t = pp.total_time;
    // measured: 6.503256319418 vs 6.503256319418 s (1.5e-13; 2.7e-11 before the time
    // integral was fixed at the rest end); TOPP-RA N = 1000: 6.504053645 s (+1.2e-4)
    assert!(
        (t - reference).abs() <= 1e-9 * reference,
        "{t} vs tight {reference}"
    );
    assert!(tr >= t && (tr - t) <= 3e-4 * t, "toppra {tr} vs {t}");
    // the slide along the velocity boundary takes step-cap steps (413 nodes; 2132 with the
    // former fixed slide step of 1/(4 mvc_grid))
    assert!(pp.samples.len() < 1000, "{} samples", pp.samples.len());
}

#[test]
fn planar3_default_matches_tight_reference() {
    let arm = KinematicTree::planar_with_gravity(3, 9.81);
    let jp = joint_line(&[0.2, 0.3, -0.2], &[1.2, -0.5, 0.6]);
    let d = PathDynamics::new(&arm, &jp).unwrap();
    let lim = BoxLimits {
        lower: vec![-80.0, -40.0, -15.0],
        upper: vec![80.0, 40.0, 15.0],
    };
    let acc = AccelerationLimits::new(&d, &lim);
    let (pp, reference, tr) = solve_three(&acc);
    let t = pp.total_time;
    assert!(
        (t - reference).abs() <= 1e-9 * reference,
        "{t} vs tight {reference}"
    );
    assert!(tr >= t && (tr - t) <= 1e-4 * t, "toppra {tr} vs {t}");
}
