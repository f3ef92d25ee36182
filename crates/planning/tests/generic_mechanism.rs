//! The planner on mechanisms other than Huang's robot: a planar 3-link arm with gravity and
//! Coriolis terms (joint-space path) and a 2-link arm driven along a workspace line through
//! inverse kinematics. Inverse dynamics against finite differences of q(t) = Q(s(t)); the
//! phase plane against TOPP-RA; the torques of the optimal motion within their limits.

use crate::common;

use common::{PlanarArm, TwoLinkKinematics};
use contour_model::Mechanism;
use contour_planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour_planning::toppra::{Toppra, ToppraConfig};
use contour_planning::*;
use faer::Mat;

fn joint_line(a: &[f64], b: &[f64]) -> CartesianJointPath {
    let seg = Segment::line(a, b, 0.0, 1.0);
    CartesianJointPath::new(Path::new(vec![seg]).unwrap())
}

/// The tip of the arm's first two links on a workspace line from `a` to `b` (elbow-down).
fn workspace_line(arm: &PlanarArm, a: &[f64], b: &[f64]) -> IkJointPath<TwoLinkKinematics> {
    let kin = TwoLinkKinematics {
        l1: arm.lengths[0],
        l2: arm.lengths[1],
    };
    let seg = Segment::line(a, b, 0.0, 1.0);
    IkJointPath::new(Path::new(vec![seg]).unwrap(), kin).unwrap()
}

/// T from (4.3.6) against M q̈ + h with q̇, q̈ from central differences of Q(s(t)).
fn check_inverse_dynamics<M: Mechanism, P: JointPath>(mech: &M, jp: &P, tol: f64) {
    let n = mech.dof();
    let d = PathDynamics::new(mech, jp).unwrap();
    let hist = RestToRestHistory::new(0.0, 0.7, 1.5, 2.0, 0.3, 0.6).unwrap();
    let q_of = |t: f64| {
        let (s, _, _) = hist.state(t);
        let (mut q, mut b, mut bb) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        jp.eval(jp.path().locate(s), s, &mut q, &mut b, &mut bb)
            .unwrap();
        q
    };
    let h = 1e-4;
    for &t in &[0.2, 0.45, 1.0, 1.3, 1.8] {
        let (s, sd, sdd) = hist.state(t);
        let (qm, q0, qp) = (q_of(t - h), q_of(t), q_of(t + h));
        let qd: Vec<f64> = (0..n).map(|i| (qp[i] - qm[i]) / (2.0 * h)).collect();
        let qdd: Vec<f64> = (0..n)
            .map(|i| (qp[i] - 2.0 * q0[i] + qm[i]) / (h * h))
            .collect();
        let mut m = Mat::<f64>::zeros(n, n);
        mech.mass_matrix(&q0, m.as_mut());
        let mut bias = vec![0.0; n];
        mech.bias_forces(&q0, &qd, &mut bias);
        let mut tau = vec![0.0; n];
        d.torque(s, sd, sdd, &mut tau).unwrap();
        for i in 0..n {
            let fd: f64 = (0..n).map(|j| m[(i, j)] * qdd[j]).sum::<f64>() + bias[i];
            assert!(
                (fd - tau[i]).abs() < tol * (1.0 + fd.abs()),
                "t = {t}, joint {i}: fd {fd} vs {}",
                tau[i]
            );
        }
    }
}

#[test]
fn inverse_dynamics_matches_finite_differences_3_link() {
    let arm = PlanarArm::new(3);
    let jp = joint_line(&[0.2, 0.3, -0.2], &[1.2, -0.5, 0.6]);
    check_inverse_dynamics(&arm, &jp, 1e-5);
}

#[test]
fn inverse_dynamics_matches_finite_differences_ik_path() {
    let arm = PlanarArm::new(2);
    let jp = workspace_line(&arm, &[1.2, 0.3], &[0.4, 1.1]);
    check_inverse_dynamics(&arm, &jp, 1e-5);
}

fn compare_algorithms<M: Mechanism, P: JointPath>(mech: &M, jp: &P, lim: &BoxLimits) -> (f64, f64) {
    let d = PathDynamics::new(mech, jp).unwrap();
    let acc = AccelerationLimits::new(&d, lim);
    let pp = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    for tau in &pp.torques {
        for i in 0..tau.len() {
            let slack = 1e-6 * (1.0 + lim.upper[i].abs());
            assert!(
                tau[i] >= lim.lower[i] - slack && tau[i] <= lim.upper[i] + slack,
                "torque {i} = {} outside limits",
                tau[i]
            );
        }
    }
    // s(t) is monotone and ends at rest
    assert!(pp
        .samples
        .windows(2)
        .all(|w| w[1].s >= w[0].s && w[1].t >= w[0].t));
    assert!(pp.samples.last().unwrap().sd < 1e-6);
    let tr = Toppra::new(
        &acc,
        ToppraConfig {
            intervals: 4000,
            ..ToppraConfig::default()
        },
    )
    .solve()
    .unwrap();
    let rel = (tr.total_time - pp.total_time).abs() / pp.total_time;
    assert!(
        rel < 5e-3,
        "phase plane {} vs TOPP-RA {}",
        pp.total_time,
        tr.total_time
    );
    println!(
        "phase plane {} TOPP-RA {} rel {rel:.2e} switches {:?}",
        pp.total_time, tr.total_time, pp.switching_points
    );
    (pp.total_time, tr.total_time)
}

#[test]
fn phase_plane_agrees_with_toppra_3_link_arm_with_gravity() {
    let arm = PlanarArm::new(3);
    let jp = joint_line(&[0.2, 0.3, -0.2], &[1.2, -0.5, 0.6]);
    let lim = BoxLimits {
        lower: vec![-100.0, -60.0, -30.0],
        upper: vec![100.0, 60.0, 30.0],
    };
    let (pp, tr) = compare_algorithms(&arm, &jp, &lim);
    assert!(pp > 0.0 && tr > 0.0);
}

#[test]
fn phase_plane_agrees_with_toppra_2_link_workspace_line() {
    let arm = PlanarArm::new(2);
    let jp = workspace_line(&arm, &[1.2, 0.3], &[0.4, 1.1]);
    let lim = BoxLimits {
        lower: vec![-60.0, -25.0],
        upper: vec![60.0, 25.0],
    };
    compare_algorithms(&arm, &jp, &lim);
}

#[test]
fn gravity_that_cannot_be_held_empties_the_admissible_region() {
    let arm = PlanarArm::new(3);
    let jp = joint_line(&[0.2, 0.3, -0.2], &[1.2, -0.5, 0.6]);
    let lim = BoxLimits::symmetric(3, 5.0); // joint 1 needs ≈ 60 N·m just to hold the arm
    let d = PathDynamics::new(&arm, &jp).unwrap();
    let acc = AccelerationLimits::new(&d, &lim);
    let pp = PhasePlane::new(&acc, PhasePlaneConfig::default()).solve();
    let tr = Toppra::new(&acc, ToppraConfig::default()).solve();
    for err in [pp.err(), tr.err()] {
        assert!(
            matches!(err, Some(PlanningError::EmptyAdmissibleRegion { .. })),
            "{err:?}"
        );
    }
}

/// A curved joint-space path of the 3-link arm whose maximum-velocity curve has zero-inertia
/// points (a_i = Σ_j M_ij B_j changes sign): the switching points are found there, and the
/// phase plane agrees with TOPP-RA.
#[test]
fn zero_inertia_switching_points_3_link_arm() {
    let arm = PlanarArm::new(3);
    let (a, b, c, k) = ([0.2, 0.3, -0.2], [1.0, -0.8, 0.8], [1.0, 2.0, -1.5], 3.0);
    let coefficients = (0..3)
        .map(|i| vec![a[i], b[i], k * c[i], -k * c[i]])
        .collect();
    let seg = Segment {
        s_start: 0.0,
        s_end: 1.0,
        shape: Shape::Polynomial { coefficients },
        kind: SegmentKind::Unconstrained,
    };
    let jp = CartesianJointPath::new(Path::new(vec![seg]).unwrap());
    let lim = BoxLimits {
        lower: vec![-100.0, -60.0, -8.0],
        upper: vec![100.0, 60.0, 8.0],
    };
    let d = PathDynamics::new(&arm, &jp).unwrap();
    let acc = AccelerationLimits::new(&d, &lim);
    let pp = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    let kinds: Vec<_> = pp.switching_points.iter().map(|w| w.kind).collect();
    assert!(
        kinds.contains(&contour_planning::phase_plane::SwitchKind::ZeroInertia),
        "{kinds:?}"
    );
    compare_algorithms(&arm, &jp, &lim);
}

/// A 2-link arm sweeping a horizontal line close to its base: the Coriolis and centripetal
/// terms create a maximum-velocity curve with a smooth dip, and the optimal profile has a
/// tangent switching point on it (β changes sign, Huang step (4)) between two intersections.
#[test]
fn tangent_switching_point_2_link_arm() {
    let mut arm = PlanarArm::new(2);
    arm.gravity = 0.0;
    let jp = workspace_line(&arm, &[1.2, 0.35], &[-1.2, 0.35]);
    let lim = BoxLimits {
        lower: vec![-10.0, -3.0],
        upper: vec![10.0, 3.0],
    };
    let d = PathDynamics::new(&arm, &jp).unwrap();
    let acc = AccelerationLimits::new(&d, &lim);
    let pp = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    let kinds: Vec<_> = pp.switching_points.iter().map(|w| w.kind).collect();
    use contour_planning::phase_plane::SwitchKind::{Intersection, Tangent};
    assert_eq!(kinds, vec![Intersection, Tangent, Intersection]);
    // the tangent point lies on the MVC: ṡ equals α(s) there (to the grid's resolution)
    let sw = pp.switching_points[1];
    let alpha = pp
        .mvc
        .iter()
        .min_by(|a, b| (a.0 - sw.s).abs().total_cmp(&(b.0 - sw.s).abs()))
        .unwrap()
        .1;
    assert!((sw.sd - alpha).abs() < 1e-2 * alpha, "{} vs {alpha}", sw.sd);
    compare_algorithms(&arm, &jp, &lim);
}
