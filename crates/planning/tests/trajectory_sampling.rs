//! A C² spline through joint waypoints of a planar 3-link arm with
//! gravity, planned under torque + joint velocity limits, sampled at 1 kHz: the sampled τ stay
//! within the limits (≤ 1e-9 relative), q̇ and q̈ are the derivatives of q (integrating q̈
//! reproduces q̇ and q), and the CSV has one row per sample.

use contour_model::tree::KinematicTree;
use contour_planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour_planning::*;

#[test]
fn spline_plan_sampled_at_1khz_meets_limits_and_integrates_back() {
    let arm = KinematicTree::planar_with_gravity(3, 9.81);
    let waypoints = vec![
        vec![0.0, 0.3, -0.2],
        vec![0.5, 0.1, 0.3],
        vec![0.9, -0.4, 0.6],
        vec![1.2, -0.2, 0.1],
    ];
    let path = cubic_spline(&waypoints, SplineEnds::Natural).unwrap();
    let jp = CartesianJointPath::new(path);
    let d = PathDynamics::new(&arm, &jp).unwrap();
    let torque = BoxLimits::from_effort(&[80.0, 40.0, 15.0]);
    let vel = JointVelocityLimits::new(vec![1.5, 2.0, 2.5]);
    let acc = AccelerationLimits::new(&d, &torque)
        .with_constraint(&vel)
        .unwrap();
    let sol = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    let tr = sample_at_rate(&sol, &acc, 1000.0).unwrap();
    let n = tr.t.len();
    assert_eq!(n, (sol.total_time * 1000.0).floor() as usize + 2);
    assert_eq!(*tr.t.last().unwrap(), sol.total_time);
    // a rate that puts a sample on the final time to round-off adds no second one there
    let k = 997usize;
    let exact = sample_at_rate(&sol, &acc, k as f64 / sol.total_time).unwrap();
    assert_eq!(exact.t.len(), k + 1);
    assert!((exact.t[k] - sol.total_time).abs() <= 1e-12 * sol.total_time);
    // limits: torque within 1e-9 relative, joint speeds within the caps
    let viol = tr.max_torque_violation(&torque);
    assert!(viol <= 1e-9, "torque violation {viol:e}");
    for qd in &tr.qd {
        for (v, cap) in qd.iter().zip([1.5, 2.0, 2.5]) {
            assert!(v.abs() <= cap * (1.0 + 1e-6), "{v} > {cap}");
        }
    }
    // the limits are reached (a minimum-time plan saturates something)
    let peak = tr
        .tau
        .iter()
        .flat_map(|t| t.iter().zip([80.0, 40.0, 15.0]).map(|(a, b)| a.abs() / b))
        .fold(0.0f64, f64::max);
    assert!(peak > 0.999, "{peak}");
    // start and end at rest on the waypoints
    for i in 0..3 {
        assert!((tr.q[0][i] - waypoints[0][i]).abs() < 1e-12);
        assert!((tr.q[n - 1][i] - waypoints[3][i]).abs() < 1e-9);
        assert!(tr.qd[0][i].abs() < 1e-9 && tr.qd[n - 1][i].abs() < 1e-3);
    }
    // q̈ and q̇ are the derivatives of the sampled q̇ and q: per interval, the trapezoid rule
    // closes to O(h³) except on the few intervals where s̈ jumps (switching points, boundary
    // entries and exits); integrating q̇ reproduces q everywhere (a q̈ without its B̄ ṡ² term
    // would miss by ~h·|B̄ ṡ²| on every interval)
    let (mut p, mut ep) = (tr.q[0].clone(), 0.0f64);
    let qdd_max = tr.qdd.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
    let mut jumps = 0;
    for k in 1..n {
        let h = tr.t[k] - tr.t[k - 1];
        let mut local = 0.0f64;
        for i in 0..3 {
            let dv = tr.qd[k][i] - tr.qd[k - 1][i];
            local = local.max((dv - 0.5 * h * (tr.qdd[k - 1][i] + tr.qdd[k][i])).abs());
            p[i] += 0.5 * h * (tr.qd[k - 1][i] + tr.qd[k][i]);
            ep = ep.max((p[i] - tr.q[k][i]).abs());
        }
        // more than 0.1 % of the largest q̈ over one interval: a jump of s̈ (or a wrong q̈)
        if local > 1e-3 * h * qdd_max {
            jumps += 1;
        }
    }
    let allowed = 2 * (sol.switch_count() + 4);
    eprintln!(
        "T = {:.6} s, {n} samples, torque violation {viol:.1e}, {jumps} intervals with a jump in q̈ (allowed {allowed}), |∫q̇ − q| {ep:.1e}",
        sol.total_time
    );
    assert!(jumps <= allowed && ep < 1e-5, "{jumps} {ep:e}");
    // CSV: header + one row per sample, 4 + 4·3 columns
    let mut buf = Vec::new();
    tr.write_csv(&mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), n + 1);
    assert_eq!(lines[0].split(',').count(), 16);
    assert!(lines[0].starts_with("t,s,sd,sdd,q0,q1,q2,qd0"));
    let row: Vec<f64> = lines[5].split(',').map(|x| x.parse().unwrap()).collect();
    assert_eq!(row[0], tr.t[4]);
    assert_eq!(row[4], tr.q[4][0]);
}

#[test]
fn bad_rates_are_typed_errors() {
    let arm = KinematicTree::planar_with_gravity(2, 9.81);
    let path = cubic_spline(&[vec![0.0, 0.0], vec![0.5, 0.2]], SplineEnds::Natural).unwrap();
    let jp = CartesianJointPath::new(path);
    let d = PathDynamics::new(&arm, &jp).unwrap();
    let torque = BoxLimits::symmetric(2, 50.0);
    let acc = AccelerationLimits::new(&d, &torque);
    let sol = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    for r in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e12] {
        assert!(matches!(
            sample_at_rate(&sol, &acc, r),
            Err(PlanningError::InvalidParameter { name: "rate", .. })
        ));
    }
    assert!(matches!(
        sample(&sol, &acc, &[0.1, f64::NAN]),
        Err(PlanningError::NonFinite { .. })
    ));
}
