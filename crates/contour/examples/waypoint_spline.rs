//! A time-optimal motion of the Franka Panda through joint-space waypoints: a C² cubic spline
//! through four poses, planned under the joint torque (`effort`) and velocity limits read from
//! the URDF's `<limit>` tags, and sampled at a 1 kHz controller rate.
//!
//! `cargo run -p contour --example waypoint_spline [OUT_DIR]` writes `panda_spline.csv`
//! through `Trajectory::write_csv` (t, q0..q6, q̇0..q̇6, q̈0..q̈6, τ0..τ6).

use contour::model::models::PANDA_URDF;
use contour::model::urdf::tree_and_limits_from_urdf_str;
use contour::planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour::planning::{
    cubic_spline, sample_at_rate, AccelerationLimits, BoxLimits, CartesianJointPath,
    JointVelocityLimits, PathDynamics, SplineEnds,
};
use contour::trajectory_from_plan;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir: std::path::PathBuf = std::env::args()
        .nth(1)
        .map_or_else(|| std::env::temp_dir().join("contour-examples"), Into::into);
    let (panda, limits) = tree_and_limits_from_urdf_str(PANDA_URDF)?;

    // Four poses inside the joint ranges, joined by a natural C² spline in joint space.
    let waypoints = vec![
        vec![0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785],
        vec![0.6, -0.3, 0.2, -1.9, 0.3, 1.9, 0.5],
        vec![1.1, 0.1, -0.2, -1.5, -0.2, 2.2, 0.9],
        vec![0.4, 0.4, 0.1, -1.2, 0.1, 1.6, 1.4],
    ];
    let path = CartesianJointPath::new(cubic_spline(&waypoints, SplineEnds::Natural)?);

    // |τ_i| ≤ effort_i and |q̇_i| ≤ velocity_i, both from the URDF.
    let torque = BoxLimits::from_effort(&limits.effort);
    let speed = JointVelocityLimits::new(limits.velocity.clone());
    let dynamics = PathDynamics::new(&panda, &path)?;
    let acc = AccelerationLimits::new(&dynamics, &torque).with_constraint(&speed)?;
    let plan = PhasePlane::new(&acc, PhasePlaneConfig::default()).solve()?;
    println!(
        "minimum time {:.6} s through {} waypoints, {} switching points",
        plan.total_time,
        waypoints.len(),
        plan.switch_count()
    );

    // The controller's view: 1 kHz samples of q, q̇, q̈ and τ.
    let samples = sample_at_rate(&plan, &acc, 1000.0)?;
    let worst = samples.max_torque_violation(&torque);
    let peak_speed = samples
        .qd
        .iter()
        .flat_map(|qd| qd.iter().zip(&limits.velocity).map(|(v, m)| v.abs() / m))
        .fold(0.0f64, f64::max);
    println!(
        "{} samples; torque limits met to {worst:.1e} (relative), peak |q̇|/limit {peak_speed:.4}",
        samples.t.len()
    );
    let inside = samples.q.iter().all(|q| {
        q.iter()
            .zip(limits.lower.iter().zip(&limits.upper))
            .all(|(v, (lo, hi))| v >= lo && v <= hi)
    });
    println!("joint positions within the URDF ranges: {inside}");

    std::fs::create_dir_all(&dir)?;
    let file = dir.join("panda_spline.csv");
    // the workspace's one result type: t, q, q̇, q̈, τ
    trajectory_from_plan(&samples).write_csv(std::fs::File::create(&file)?)?;
    println!("wrote {}", file.display());
    Ok(())
}
