//! TOPP-RA takes `T = a s̈ + b ṡ² + c` (Huang (4.3.24)) of a kinematic tree from
//! [`Mechanism::fast_path_coefficients`] (three RNEAs sharing one forward kinematics, no mass
//! matrix). The same problems solved through the mass-matrix route (a wrapper that exposes
//! only `M` and `h`) give the same profile to round-off: the tree's path terms change how the
//! coefficients are computed, not what they are.

use contour_model::models::{arm7_line_endpoints, ssrms_arm, ARM7_URDF};
use contour_model::tree::KinematicTree;
use contour_model::urdf::tree_and_limits_from_urdf_str;
use contour_model::Mechanism;
use contour_planning::toppra::{Toppra, ToppraConfig, ToppraSolution};
use contour_planning::{AccelerationLimits, BoxLimits, JointVelocityLimits, PathDynamics};
use faer::MatMut;

use crate::common::joint_line;

/// The tree seen through `M` and `h` only (every other method the trait's default).
struct MassMatrixOnly<'a>(&'a KinematicTree);

impl Mechanism for MassMatrixOnly<'_> {
    fn name(&self) -> &str {
        "mass-matrix-only"
    }
    fn dof(&self) -> usize {
        self.0.dof()
    }
    fn mass_matrix(&self, q: &[f64], m: MatMut<'_, f64>) {
        self.0.mass_matrix(q, m)
    }
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        self.0.bias_forces(q, qd, h)
    }
}

fn config(intervals: usize) -> ToppraConfig {
    ToppraConfig {
        intervals,
        ..ToppraConfig::default()
    }
}

/// Same grid, same profile to `tol` (relative to the largest ṡ), same time to `tol`.
fn assert_same_profile(fast: &ToppraSolution, slow: &ToppraSolution, tol: f64) {
    assert_eq!(fast.s, slow.s);
    let top = slow.sd.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (k, (x, y)) in fast.sd.iter().zip(&slow.sd).enumerate() {
        assert!((x - y).abs() <= tol * top, "sd[{k}]: {x} vs {y}");
    }
    let dt = (fast.total_time - slow.total_time).abs() / slow.total_time;
    println!(
        "total time {:.15} vs {:.15} (relative {dt:.1e})",
        fast.total_time, slow.total_time
    );
    assert!(dt <= tol, "{} vs {}", fast.total_time, slow.total_time);
}

#[test]
fn arm7_urdf_limits_path_terms_equal_mass_matrix_route() {
    let (q0, q1) = arm7_line_endpoints();
    let jp = joint_line(&q0, &q1);
    let (_, limits) = tree_and_limits_from_urdf_str(ARM7_URDF).unwrap();
    let mut arm = ssrms_arm();
    // gravity on, so that c ≠ 0 is exercised too (the benchmark arm has none; a weak field:
    // the space arm's URDF efforts cannot hold it against 0.5 m/s², where both routes end in
    // the same EmptyAdmissibleRegion)
    for g in [[0.0; 3], [0.0, 0.0, -0.05]] {
        arm.set_gravity(g);
        let slow_arm = MassMatrixOnly(&arm);
        let torque = BoxLimits::from_effort(&limits.effort);
        let vel = JointVelocityLimits::new(limits.velocity.clone());
        let d_fast = PathDynamics::new(&arm, &jp).unwrap();
        let d_slow = PathDynamics::new(&slow_arm, &jp).unwrap();
        let acc_fast = AccelerationLimits::new(&d_fast, &torque)
            .with_constraint(&vel)
            .unwrap();
        let acc_slow = AccelerationLimits::new(&d_slow, &torque)
            .with_constraint(&vel)
            .unwrap();
        for n in [100, 1000] {
            let slow = Toppra::new(&acc_slow, config(n)).solve();
            let fast = Toppra::new(&acc_fast, config(n)).solve();
            assert_same_profile(&fast.unwrap(), &slow.unwrap(), 1e-11);
        }
    }
}

#[test]
fn planar3_gravity_path_terms_equal_mass_matrix_route() {
    let arm = KinematicTree::planar_with_gravity(3, 9.81);
    let slow_arm = MassMatrixOnly(&arm);
    let jp = joint_line(&[0.2, 0.3, -0.2], &[1.2, -0.5, 0.6]);
    let lim = BoxLimits {
        lower: vec![-80.0, -40.0, -15.0],
        upper: vec![80.0, 40.0, 15.0],
    };
    let d_fast = PathDynamics::new(&arm, &jp).unwrap();
    let d_slow = PathDynamics::new(&slow_arm, &jp).unwrap();
    let acc_fast = AccelerationLimits::new(&d_fast, &lim);
    let acc_slow = AccelerationLimits::new(&d_slow, &lim);
    for n in [100, 1000] {
        let fast = Toppra::new(&acc_fast, config(n)).solve().unwrap();
        let slow = Toppra::new(&acc_slow, config(n)).solve().unwrap();
        assert_same_profile(&fast, &slow, 1e-11);
    }
}
