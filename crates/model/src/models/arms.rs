//! Two 7-joint arms shipped as URDF files in `crates/model/data/`.
//!
//! * [`ssrms_arm`] (`arm7.urdf`): the SSRMS-like arm simulated by Kövecses &
//!   Piedbœuf (papers/001). The paper prints no data; ours (documented in the
//!   file) are realistic for Canadarm2: seven revolute joints
//!   roll–yaw–pitch / pitch / pitch–yaw–roll; four 200 kg joint housings
//!   (0.6 m, radius 0.25 m), two 420 kg booms (7.1 m, radius 0.19 m), a 160 kg
//!   end effector (1.0 m, radius 0.3 m) — 1,800 kg in all, about 17 m long —
//!   uniform solid cylinders; lateral offsets 0.6 m at shoulder and wrist and
//!   0.5 m at the elbow; a massless `tip` frame 1 m beyond the wrist roll
//!   joint. Gravity is zero (orbit). Initial joint angles
//!   [`ARM7_INITIAL_ANGLES_DEG`].
//! * [`panda_arm`] (`panda.urdf`): the Franka Emika Panda, kinematics from
//!   `franka_description`, inertials identified by Gaz et al. (IEEE RA-L 4(4),
//!   2019); gravity `(0, 0, −9.81)`.

use crate::spatial::Vec3;
use crate::tree::{Closure, ConstrainedTree, KinematicTree};
use crate::Controller;

/// The SSRMS-like arm's URDF text (`data/arm7.urdf`).
pub const ARM7_URDF: &str = include_str!("../../data/arm7.urdf");
/// The Panda's URDF text (`data/panda.urdf`).
pub const PANDA_URDF: &str = include_str!("../../data/panda.urdf");

/// Initial joint angles of the Kövecses–Piedbœuf simulation \[deg\].
pub const ARM7_INITIAL_ANGLES_DEG: [f64; 7] = [-26.4, -42.2, -18.6, -93.4, -97.1, 19.1, 52.5];

/// Name of the arm's massless tip frame (its origin is the tip point).
pub const ARM7_TIP_BODY: &str = "tip";

/// [`ARM7_INITIAL_ANGLES_DEG`] in radians.
pub fn arm7_initial_q() -> [f64; 7] {
    ARM7_INITIAL_ANGLES_DEG.map(f64::to_radians)
}

/// The planning benchmark's joint-space line for the 7-joint arm: from [`arm7_initial_q`] to the
/// same pose with every joint moved by ±0.3 rad (alternating, + on even joints). Shared by the
/// planning bench, its toppra export and the phase-plane accuracy test, so they plan one path.
pub fn arm7_line_endpoints() -> ([f64; 7], [f64; 7]) {
    let q0 = arm7_initial_q();
    let mut q1 = q0;
    for (i, q) in q1.iter_mut().enumerate() {
        *q += if i % 2 == 0 { 0.3 } else { -0.3 };
    }
    (q0, q1)
}

/// The SSRMS-like 7-joint arm (N = 7, 8 bodies including the fixed tip frame),
/// with zero gravity.
///
/// Never panics: the shipped URDF and the closure data are constant and tested
/// (`shipped_arms_load_with_the_documented_structure`).
#[allow(clippy::expect_used)]
pub fn ssrms_arm() -> KinematicTree {
    let mut t =
        KinematicTree::from_urdf_str(ARM7_URDF).expect("the shipped arm7.urdf is valid (tested)");
    t.set_gravity([0.0; 3]);
    t
}

/// The arm with its tip held by a spherical joint (3 position rows,
/// [`Closure::PointAtWorld`]) at the tip's position for
/// [`arm7_initial_q`], so that the initial configuration is consistent.
///
/// Never panics: the shipped URDF and the closure data are constant and tested
/// (`shipped_arms_load_with_the_documented_structure`).
#[allow(clippy::expect_used)]
pub fn ssrms_arm_tip_held() -> ConstrainedTree {
    let t = ssrms_arm();
    let tip = t.body_index(ARM7_TIP_BODY).expect("tip frame exists");
    let c = Closure::point_at_current_position(&t, &arm7_initial_q(), tip, [0.0; 3])
        .expect("valid configuration");
    ConstrainedTree::new(t, vec![c]).expect("valid closure")
}

/// World position of the arm's tip at [`arm7_initial_q`] \[m\].
///
/// Never panics: the shipped URDF and the closure data are constant and tested
/// (`shipped_arms_load_with_the_documented_structure`).
#[allow(clippy::expect_used)]
pub fn arm7_initial_tip() -> Vec3 {
    let t = ssrms_arm();
    let tip = t.body_index(ARM7_TIP_BODY).expect("tip frame exists");
    t.point_position(&arm7_initial_q(), tip, [0.0; 3])
        .expect("valid configuration")
}

/// The Franka Emika Panda (N = 7, 8 bodies including the fixed flange
/// `panda_link8`), gravity `(0, 0, −9.81)` m/s².
///
/// Never panics: the shipped URDF and the closure data are constant and tested
/// (`shipped_arms_load_with_the_documented_structure`).
#[allow(clippy::expect_used)]
pub fn panda_arm() -> KinematicTree {
    KinematicTree::from_urdf_str(PANDA_URDF).expect("the shipped panda.urdf is valid (tested)")
}

/// Our 80 s load case for the arm (the paper's is not printed): joint torques
/// `τ_i(t) = A_i sin(2π t / P_i)` for `0 ≤ t ≤ 80` s and zero afterwards, with
/// `A = (60, 60, 40, 30, 15, 15, 5)` N·m and `P = (40, 32, 27, 23, 19, 16, 13)` s —
/// slow, smooth manoeuvring loads of the order of the SSRMS joint torques.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arm7LoadCase {
    /// Amplitudes `A_i` \[N·m\].
    pub amplitude: [f64; 7],
    /// Periods `P_i` \[s\].
    pub period: [f64; 7],
    /// Duration of the load \[s\] (80).
    pub duration: f64,
}

impl Default for Arm7LoadCase {
    fn default() -> Self {
        Self {
            amplitude: [60.0, 60.0, 40.0, 30.0, 15.0, 15.0, 5.0],
            period: [40.0, 32.0, 27.0, 23.0, 19.0, 16.0, 13.0],
            duration: 80.0,
        }
    }
}

impl Controller for Arm7LoadCase {
    fn forces(&self, t: f64, _q: &[f64], _qd: &[f64], u: &mut [f64]) {
        if !(0.0..=self.duration).contains(&t) {
            return;
        }
        for i in 0..7.min(u.len()) {
            u[i] += self.amplitude[i] * (2.0 * std::f64::consts::PI * t / self.period[i]).sin();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::tests::check_model;
    use crate::spatial::{SpatialInertia, Transform};
    use crate::tree::Joint;
    use crate::Mechanism;
    use contour_linalg::{numerical_rank, DEFAULT_RANK_RTOL};
    use faer::Mat;

    #[test]
    fn shipped_arms_load_with_the_documented_structure() {
        let a = ssrms_arm();
        assert_eq!((a.n_bodies(), a.dof()), (8, 7));
        assert!((a.total_mass() - 1800.0).abs() < 1e-9);
        let tip = a.body_index("tip").unwrap();
        let p = a.point_position(&[0.0; 7], tip, [0.0; 3]).unwrap();
        assert!(
            (p[0]).abs() < 1e-14 && (p[1] - 0.5).abs() < 1e-14 && (p[2] - 16.9).abs() < 1e-12,
            "{p:?}"
        );
        let panda = panda_arm();
        assert_eq!((panda.n_bodies(), panda.dof()), (8, 7));
        // flange at the zero configuration: (0.088, 0, 0.333 + 0.316 + 0.384 − 0.107)
        let f = panda.point_position(&[0.0; 7], 7, [0.0; 3]).unwrap();
        assert!(
            (f[0] - 0.088).abs() < 1e-14 && f[1].abs() < 1e-14 && (f[2] - 0.926).abs() < 1e-14,
            "{f:?}"
        );
    }

    #[test]
    fn arm7_mass_matrix_matches_a_hand_built_tree() {
        // the same data as arm7.urdf, entered through the tree API
        let cyl = |m: f64, r: f64, l: f64, axis: usize, com: [f64; 3]| {
            let (ax, tr) = (0.5 * m * r * r, m * (3.0 * r * r + l * l) / 12.0);
            let mut d = [[tr, 0.0, 0.0], [0.0, tr, 0.0], [0.0, 0.0, tr]];
            d[axis][axis] = ax;
            SpatialInertia::from_mass_com_inertia(m, com, d)
        };
        let mut t = KinematicTree::new("hand-built").with_gravity([0.0; 3]);
        let data = [
            (
                [0.0, 0.0, 0.5],
                Joint::RZ,
                cyl(200.0, 0.25, 0.6, 2, [0.0, 0.0, 0.3]),
            ),
            (
                [0.0, 0.0, 0.6],
                Joint::RX,
                cyl(200.0, 0.25, 0.6, 1, [0.0, 0.3, 0.0]),
            ),
            (
                [0.0, 0.6, 0.0],
                Joint::RY,
                cyl(420.0, 0.19, 7.1, 2, [0.0, 0.0, 3.55]),
            ),
            (
                [0.0, 0.5, 7.1],
                Joint::RY,
                cyl(420.0, 0.19, 7.1, 2, [0.0, 0.0, 3.55]),
            ),
            (
                [0.0, 0.0, 7.1],
                Joint::RY,
                cyl(200.0, 0.25, 0.6, 1, [0.0, -0.3, 0.0]),
            ),
            (
                [0.0, -0.6, 0.0],
                Joint::RX,
                cyl(200.0, 0.25, 0.6, 2, [0.0, 0.0, 0.3]),
            ),
            (
                [0.0, 0.0, 0.6],
                Joint::RZ,
                cyl(160.0, 0.30, 1.0, 2, [0.0, 0.0, 0.5]),
            ),
        ];
        for (k, (r, j, i)) in data.into_iter().enumerate() {
            t.add_body(
                format!("b{k}"),
                k.checked_sub(1),
                j,
                Transform::translation(r),
                i,
            )
            .unwrap();
        }
        let a = ssrms_arm();
        let q = arm7_initial_q();
        let (mut m1, mut m2) = (Mat::zeros(7, 7), Mat::zeros(7, 7));
        a.mass_matrix(&q, m1.as_mut());
        t.mass_matrix(&q, m2.as_mut());
        let scale = m1.norm_max();
        for i in 0..7 {
            for j in 0..7 {
                assert!(
                    (m1[(i, j)] - m2[(i, j)]).abs() <= 1e-12 * scale,
                    "({i},{j})"
                );
            }
        }
    }

    #[test]
    fn arm7_with_its_tip_held_passes_finite_difference_checks() {
        let arm = ssrms_arm_tip_held();
        assert_eq!((arm.dof(), arm.n_constraints()), (7, 3));
        let q0 = arm7_initial_q();
        let mut phi = [1.0; 3];
        arm.constraints(0.0, &q0, &mut phi);
        assert!(phi.iter().all(|x| x.abs() < 1e-14), "{phi:?}");
        let mut j = Mat::zeros(3, 7);
        arm.constraint_jacobian(0.0, &q0, j.as_mut());
        assert_eq!(
            numerical_rank(j.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap(),
            3
        );
        // the model itself (zero gravity): J and ρ against finite differences
        let mut rng = crate::testing::SplitMix64::new(50);
        for _ in 0..15 {
            let q: Vec<f64> = q0.iter().map(|x| x + rng.uniform(-0.5, 0.5)).collect();
            let qd = rng.vector(7, -0.1, 0.1);
            let ej = crate::testing::check_jacobian(&arm, 0.0, &q).unwrap();
            let er = crate::testing::check_accel_bias(&arm, 0.0, &q, &qd).unwrap();
            assert!(ej <= 1e-8 && er <= 1e-6, "{ej:e} {er:e}");
        }
        // the energy check needs a non-zero potential (with V ≡ 0 its ratio
        // |Ṫ + V̇| / (|Ṫ| + |V̇|) is rounding noise over rounding noise): same arm, 1 g
        let c = arm.closures().to_vec();
        let heavy = ConstrainedTree::new(ssrms_arm().with_gravity([0.0, 0.0, -9.81]), c).unwrap();
        check_model(&heavy, 51, 15, |rng| {
            let q = q0.iter().map(|x| x + rng.uniform(-0.5, 0.5)).collect();
            (q, rng.vector(7, -0.1, 0.1))
        });
        let panda = panda_arm();
        check_model(&panda, 52, 15, |rng| {
            (rng.vector(7, -2.5, 2.5), rng.vector(7, -2.0, 2.0))
        });
    }

    #[test]
    fn load_case_is_smooth_and_switches_off_after_80_s() {
        let l = Arm7LoadCase::default();
        let mut u = [0.0; 7];
        l.forces_into(10.0, &[0.0; 7], &[0.0; 7], &mut u);
        assert!((u[0] - 60.0 * (2.0 * std::f64::consts::PI * 10.0 / 40.0).sin()).abs() < 1e-12);
        l.forces_into(80.5, &[0.0; 7], &[0.0; 7], &mut u);
        assert_eq!(u, [0.0; 7]);
    }
}
