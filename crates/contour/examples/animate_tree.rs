//! See a kinematic tree move: the Franka Emika Panda loaded from its URDF swings freely under
//! gravity from its "ready" pose for 10 s, recorded at 1 kHz, and is written as one
//! self-contained HTML page (links as capsules between joint origins, every link frame and
//! joint axis).
//!
//! `cargo run -p contour --example animate_tree [OUT_DIR [URDF]]` writes `animate_tree.html`;
//! open it in any browser (no network needed).

use contour::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir: std::path::PathBuf = args
        .next()
        .map_or_else(|| std::env::temp_dir().join("contour-examples"), Into::into);
    let urdf = args.next().unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../model/data/panda.urdf").to_string()
    });
    let arm = KinematicTree::from_urdf_file(&urdf)?; // gravity (0, 0, −9.81) m/s²

    let ready = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785];
    let traj = Simulation::new(&arm, &ready, &[0.0; 7], 0.0, 10.0)
        .integrator(Integrator::dopri5())
        .error_control(ErrorControl::mixed(1e-7))
        .output_times((0..=10_000).map(|k| k as f64 * 1e-3).collect())
        .run()?;

    // The drawing: the tree and the URDF's primitive visuals (meshes are named in a note).
    let drawing = TreeDrawable::with_urdf_visuals(&arm, &urdf)?;
    std::fs::create_dir_all(&dir)?;
    let out = dir.join("animate_tree.html");
    let page = contour::animation(&drawing, &traj)
        .title("Panda swinging under gravity (10 s at 1 kHz)")
        .write_html_file(&out)?;
    println!(
        "wrote {} ({} of {} samples kept, {:.2} MB, {} steps)",
        out.display(),
        page.frames,
        page.samples,
        page.bytes as f64 / 1e6,
        traj.stats.steps
    );
    Ok(())
}
