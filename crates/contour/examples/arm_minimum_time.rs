//! Minimum-time motion of a 7-joint arm loaded from its URDF: a joint-space line between two
//! poses under the joint torque limits, solved exactly by the phase-plane method (switching
//! points), cross-checked with TOPP-RA, and sampled at a 1 kHz controller rate.
//!
//! `cargo run -p contour --example arm_minimum_time [OUT_DIR [URDF]]` writes `arm7_plan.csv`
//! (`Trajectory::write_csv`: t, q, q̇, q̈, τ). The default URDF is the SSRMS-like arm shipped in `crates/model/data`.

use contour::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir: std::path::PathBuf = args
        .next()
        .map_or_else(|| std::env::temp_dir().join("contour-examples"), Into::into);
    let urdf = args.next().unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../model/data/arm7.urdf").to_string()
    });
    let mut arm = KinematicTree::from_urdf_file(&urdf)?;
    arm.set_gravity([0.0; 3]); // a space manipulator (URDF import assumes ROS's −9.81 z)
    let n = arm.dof();

    // From the stowed pose to a pose 0.3 rad away on every joint, along a straight joint line.
    let q0: Vec<f64> = [-26.4, -42.2, -18.6, -93.4, -97.1, 19.1, 52.5_f64]
        .iter()
        .map(|d| d.to_radians())
        .collect();
    let q1: Vec<f64> = (0..n)
        .map(|i| q0[i] + if i % 2 == 0 { 0.3 } else { -0.3 })
        .collect();
    let line = Segment::line(&q0, &q1, 0.0, 1.0);
    let path = CartesianJointPath::new(Path::new(vec![line])?);

    // |τ_i| ≤ 1000 N·m, the `effort` of the URDF's <limit> tags.
    let torque = BoxLimits::symmetric(n, 1000.0);
    let dynamics = PathDynamics::new(&arm, &path)?;
    let limits = AccelerationLimits::new(&dynamics, &torque);
    let plan = PhasePlane::new(&limits, PhasePlaneConfig::default()).solve()?;
    let cfg = ToppraConfig {
        intervals: 1000,
        ..ToppraConfig::default()
    };
    let check = Toppra::new(&limits, cfg).solve()?;
    println!(
        "minimum time {:.6} s with {} switching points (TOPP-RA, 1000 intervals: {:.6} s)",
        plan.total_time,
        plan.switch_count(),
        check.total_time
    );
    let peak = plan
        .torques
        .iter()
        .flatten()
        .fold(0.0f64, |m, t| m.max(t.abs()));
    println!("largest joint torque along the plan: {peak:.2} N·m (limit 1000)");

    // Sample at 1 kHz: q(t) = Q(s(t)), q̇ = Q′ṡ, q̈ = Q′s̈ + Q″ṡ², τ (inverse dynamics),
    // written through the workspace's one result type.
    let samples = contour::planning::sample_at_rate(&plan, &limits, 1000.0)?;
    let traj = trajectory_from_plan(&samples);
    std::fs::create_dir_all(&dir)?;
    let out = dir.join("arm7_plan.csv");
    traj.write_csv(std::fs::File::create(&out)?)?;
    println!(
        "wrote {} ({} samples at 1 kHz)",
        out.display(),
        traj.times.len()
    );
    Ok(())
}
