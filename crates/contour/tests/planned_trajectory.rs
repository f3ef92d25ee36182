//! A planned motion written through the workspace's one result type: the
//! 1 kHz samples of the 7-joint arm's minimum-time line become a `Trajectory` with q̈ and τ
//! columns; the CSV carries them (and parses back to the same numbers), the JSON round-trips,
//! a simulation's CSV keeps its old columns, and a ragged τ row is a typed error.

use contour::model::models::ssrms_arm;
use contour::planning::sample_at_rate;
use contour::prelude::*;
use contour::projection::TrajectoryIoError;

fn planned() -> Trajectory {
    let arm = ssrms_arm();
    let n = arm.dof();
    let q0 = vec![0.1; n];
    let q1: Vec<f64> = (0..n).map(|i| 0.1 + 0.2 * (i as f64 + 1.0).sin()).collect();
    let line = Segment::line(&q0, &q1, 0.0, 1.0);
    let path = CartesianJointPath::new(Path::new(vec![line]).unwrap());
    let torque = BoxLimits::symmetric(n, 1000.0);
    let dynamics = PathDynamics::new(&arm, &path).unwrap();
    let limits = AccelerationLimits::new(&dynamics, &torque);
    let plan = PhasePlane::new(&limits, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    let samples = sample_at_rate(&plan, &limits, 1000.0).unwrap();
    let traj = trajectory_from_plan(&samples);
    assert_eq!(traj.times, samples.t);
    assert_eq!(
        (traj.qdd.to_vecs(), traj.tau.to_vecs()),
        (samples.qdd, samples.tau)
    );
    traj
}

#[test]
fn a_plan_is_a_trajectory_with_accelerations_and_torques() {
    let traj = planned();
    let n = traj.q[0].len();
    assert!(
        traj.times.len() > 100
            && traj
                .tau
                .iter()
                .flatten()
                .all(|t| t.abs() <= 1000.0 * (1.0 + 1e-9))
    );
    let mut buf = Vec::new();
    traj.write_csv(&mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(head.len(), 1 + 4 * n);
    assert_eq!((head[1 + 2 * n], head[1 + 3 * n]), ("qdd0", "tau0"));
    for (k, line) in lines.enumerate() {
        let v: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        assert_eq!(v[0], traj.times[k]);
        assert_eq!(&v[1 + 2 * n..1 + 3 * n], &traj.qdd[k][..]);
        assert_eq!(&v[1 + 3 * n..], &traj.tau[k][..]);
    }
    let mut json = Vec::new();
    traj.write_json(&mut json).unwrap();
    let back = Trajectory::read_json(&json[..]).unwrap();
    assert!(back == traj, "JSON does not read back bit for bit");
    assert_eq!(traj.x_final.len(), 2 * n);
}

#[test]
fn a_simulation_keeps_its_columns_and_ragged_rows_are_errors() {
    let p = contour::model::models::Pendulum::default();
    let (q, qd) = p.state(0.5, 0.0);
    let sim = Simulation::new(&p, &q, &qd, 0.0, 0.1).run().unwrap();
    assert!(sim.qdd.is_empty() && sim.tau.is_empty());
    let mut buf = Vec::new();
    sim.write_csv(&mut buf).unwrap();
    let head = String::from_utf8(buf)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    assert_eq!(head, "t,q0,q1,qd0,qd1,lambda0");
    let mut bad = planned();
    bad.tau = bad
        .tau
        .iter()
        .enumerate()
        .map(|(k, r)| if k == 3 { &r[..r.len() - 1] } else { r })
        .collect();
    assert!(matches!(
        bad.write_csv(Vec::new()),
        Err(TrajectoryIoError::RaggedRows {
            field: "tau",
            index: 3,
            ..
        })
    ));
}
