//! Huang's joint forces (6.2.11)–(6.2.13) and (6.2.24)–(6.2.26) come out of the general
//! inverse dynamics (4.3.6) for the Cartesian robot with the contact force Λ = 1 on the arc.

use contour::model::models::HuangCartesianRobot;
use contour::planning::*;
use contour_papers::huang::ch6_2_planning::huang_paths;

#[test]
fn joint_forces_of_the_discontinuous_slope_path() {
    let (cp, _) = huang_paths().unwrap();
    let robot = HuangCartesianRobot::default();
    let jp = CartesianJointPath::new(cp.path.clone());
    let d = PathDynamics::new(&robot, &jp).unwrap();
    let c = |n: &str| cp.coefficient(n).unwrap();
    let (off, w) = cp.arc_angle;
    let mut tau = [0.0; 2];
    for &(s, sd, sdd) in &[
        (0.1, 0.3, 0.7),
        (0.3, 0.0, -1.1),
        (0.4, 0.2, 0.1),
        (0.6, 0.5, -0.3),
        (0.8, 0.4, 0.9),
    ] {
        d.torque(s, sd, sdd, &mut tau).unwrap();
        let want = if s < cp.s1 {
            [c("a1") * sdd, c("a3") * sdd] // (6.2.11)
        } else if s <= cp.s2 {
            // (6.2.12) with θ = ω s + θ_off (the thesis: ω = 2, θ_off = −2, R ω = 1)
            let th = w * s + off;
            let r = 0.5;
            [
                -r * w * th.sin() * sdd - r * w * w * th.cos() * sd * sd - 2.0 * r * th.cos(),
                r * w * th.cos() * sdd - r * w * w * th.sin() * sd * sd - 2.0 * r * th.sin(),
            ]
        } else {
            [c("c1") * sdd, c("c3") * sdd] // (6.2.13)
        };
        assert!(
            (tau[0] - want[0]).abs() < 1e-12 && (tau[1] - want[1]).abs() < 1e-12,
            "s = {s}: {tau:?} vs {want:?}"
        );
        if s > cp.s1 && s < cp.s2 {
            // the printed form (R ω = 1, ω = 2) to the accuracy of ω = 2 (|ω − 2| < 2e-4)
            let th = 2.0 * s - 2.0;
            let printed = [
                -th.sin() * sdd - 2.0 * sd * sd * th.cos() - th.cos(),
                th.cos() * sdd - 2.0 * sd * sd * th.sin() - th.sin(),
            ];
            assert!((tau[0] - printed[0]).abs() < 2e-3 && (tau[1] - printed[1]).abs() < 2e-3);
        }
    }
}

#[test]
fn joint_forces_of_the_continuous_slope_path() {
    let (_, cp) = huang_paths().unwrap();
    let robot = HuangCartesianRobot::default();
    let jp = CartesianJointPath::new(cp.path.clone());
    let d = PathDynamics::new(&robot, &jp).unwrap();
    let c = |n: &str| cp.coefficient(n).unwrap();
    let mut tau = [0.0; 2];
    for &(s, sd, sdd) in &[
        (0.1, 0.3, 0.7),
        (0.25, 0.31, -1.1),
        (0.75, 0.5, -0.3),
        (0.95, 0.1, 0.9),
    ] {
        d.torque(s, sd, sdd, &mut tau).unwrap();
        let (p, q) = if s < cp.s1 { ("d", 0) } else { ("e", 0) };
        let _ = q;
        let k = |i: usize| c(&format!("{p}{i}"));
        // (6.2.24), (6.2.26)
        let want = [
            (2.0 * k(1) * s + k(2)) * sdd + 2.0 * k(1) * sd * sd,
            (2.0 * k(4) * s + k(5)) * sdd + 2.0 * k(4) * sd * sd,
        ];
        assert!(
            (tau[0] - want[0]).abs() < 1e-12 && (tau[1] - want[1]).abs() < 1e-12,
            "s = {s}: {tau:?} vs {want:?}"
        );
    }
}

/// At s = −d2/(2 d1) the x joint has zero inertia (Σ_j M_xj B_j = 0): the limits do not divide
/// by it and turn F_x = 2 d1 ṡ² ∈ [−1, 1] into the speed bound ṡ² ≤ 1/(2 d1).
#[test]
fn zero_inertia_point_is_a_speed_bound() {
    let (_, cp) = huang_paths().unwrap();
    let robot = HuangCartesianRobot::default();
    let jp = CartesianJointPath::new(cp.path.clone());
    let d = PathDynamics::new(&robot, &jp).unwrap();
    let lim = BoxLimits::symmetric(2, 1.0);
    let acc = AccelerationLimits::new(&d, &lim);
    let (d1, d2) = (cp.coefficient("d1").unwrap(), cp.coefficient("d2").unwrap());
    let sz = -d2 / (2.0 * d1);
    let crit = (1.0 / (2.0 * d1)).sqrt();
    let below = acc.bounds(0, sz, 0.99 * crit).unwrap();
    let above = acc.bounds(0, sz, 1.01 * crit).unwrap();
    assert!(below.lower.is_finite() && below.upper.is_finite() && below.admissible(1e-12));
    assert!(!above.singular_ok && !above.admissible(1e-12));
}

/// The kinematic approach: joint forces are linear in t on the free segments (s̈ linear in t,
/// (6.2.11)) and the forces jump at the entry time (Huang's remark on Fig. 6.2.5).
#[test]
fn kinematic_histories_and_their_forces() {
    use contour_papers::huang::ch6_2_planning::huang_kinematic;
    let k1 = huang_kinematic(1, 700).unwrap();
    assert!(k1[0].s.abs() < 1e-14 && (k1.last().unwrap().s - 1.0).abs() < 1e-14);
    // F_x = a1 s̈ is linear in t on [0, t1]: second differences vanish
    for w in k1.windows(3).take(100) {
        assert!((w[0].torque[0] - 2.0 * w[1].torque[0] + w[2].torque[0]).abs() < 1e-12);
    }
    let k2 = huang_kinematic(2, 567).unwrap();
    assert!((k2.last().unwrap().s - 1.0).abs() < 1e-12 && k2.last().unwrap().sd.abs() < 1e-12);
    // constant speed v on the constraint
    let mid = k2.iter().find(|p| p.t > 3.0).unwrap();
    assert!((mid.sd - 0.1014).abs() < 1e-3 && mid.sdd == 0.0);
}

/// Case 1(b), constrained segment: the inadmissible region lies above the MVC only
/// (Huang: "inadmissible region exists only for the constrained motion"), the free segments
/// have none, and the optimal profile stays inside Ψ.
#[test]
fn admissible_region_of_case_1() {
    use contour::planning::phase_plane::{PhasePlane, PhasePlaneConfig};
    use contour_papers::huang::ch6_2_planning::huang_case1;
    let (cp, _) = huang_paths().unwrap();
    let robot = HuangCartesianRobot::default();
    let jp = CartesianJointPath::new(cp.path.clone());
    let d = PathDynamics::new(&robot, &jp).unwrap();
    let lim = BoxLimits::symmetric(2, 1.0);
    let acc = AccelerationLimits::new(&d, &lim);
    let pp = PhasePlane::new(&acc, PhasePlaneConfig::default());
    assert!(
        pp.max_velocity(0.1).unwrap().is_infinite() && pp.max_velocity(0.9).unwrap().is_infinite()
    );
    let a = pp.max_velocity(0.5).unwrap();
    assert!(a.is_finite() && a > 0.0);
    assert!(pp.is_admissible(0.5, 0.99 * a).unwrap() && !pp.is_admissible(0.5, 1.01 * a).unwrap());
    let sol = huang_case1(true).unwrap();
    for p in &sol.samples {
        assert!(
            pp.is_admissible(p.s, p.sd * (1.0 - 1e-6)).unwrap(),
            "s = {}, sd = {}",
            p.s,
            p.sd
        );
    }
}
