//! See a plan: the minimum-time motion of the 7-joint arm of `arm_minimum_time` (its URDF, a
//! joint-space line under the torque limits, the phase-plane method), sampled at 1 kHz and
//! written as one self-contained HTML page: the arm moving, the tip's path dashed, and beside
//! it the phase-plane curve ṡ(s) with a cursor at the current s; the switching points are
//! marked on the time slider.
//!
//! `cargo run -p contour --example animate_plan [OUT_DIR [URDF]]` writes `animate_plan.html`.

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
    arm.set_gravity([0.0; 3]); // a space manipulator
    let n = arm.dof();

    let q0: Vec<f64> = [-26.4, -42.2, -18.6, -93.4, -97.1, 19.1, 52.5_f64]
        .iter()
        .map(|d| d.to_radians())
        .collect();
    let q1: Vec<f64> = (0..n)
        .map(|i| q0[i] + if i % 2 == 0 { 0.3 } else { -0.3 })
        .collect();
    let path = CartesianJointPath::new(Path::new(vec![Segment::line(&q0, &q1, 0.0, 1.0)])?);
    let torque = BoxLimits::symmetric(n, 1000.0);
    let dynamics = PathDynamics::new(&arm, &path)?;
    let limits = AccelerationLimits::new(&dynamics, &torque);
    let plan = PhasePlane::new(&limits, PhasePlaneConfig::default()).solve()?;
    let samples = contour::planning::sample_at_rate(&plan, &limits, 1000.0)?;
    println!(
        "minimum time {:.4} s, {} switching points, {} samples",
        plan.total_time,
        plan.switch_count(),
        samples.t.len()
    );

    let drawing = TreeDrawable::new(&arm);
    std::fs::create_dir_all(&dir)?;
    let out = dir.join("animate_plan.html");
    let page = contour::plan_animation(&drawing, &samples, &plan)
        .trace(arm.n_bodies()) // the tip (the last, fixed body)
        .write_html_file(&out)?;
    println!(
        "wrote {} ({} of {} samples kept, {} kB)",
        out.display(),
        page.frames,
        page.samples,
        page.bytes / 1000
    );
    Ok(())
}
