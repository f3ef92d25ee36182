//! See a planar closed loop move: the slider-crank of `contour::model::models`, released from
//! rest with the crank at 0.3 rad and no driving torque, swinging under gravity for 4 s
//! (mass-weighted projector method), written as one self-contained HTML page. The rod is drawn from the crank side
//! (θ, ψ) and the slider from its own coordinate s: a constraint drift would open a gap
//! between them.
//!
//! `cargo run -p contour --example animate_mechanism [OUT_DIR]` writes
//! `animate_mechanism.html`.

use contour::model::models::SliderCrank;
use contour::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // r = 0.1 m, l = 0.3 m, gravity along −y; no torque on the crank.
    let crank = SliderCrank {
        torque: 0.0,
        ..SliderCrank::default()
    };
    let (q0, qd0) = crank.state(0.3, 0.0);
    let traj = Simulation::new(&crank, &q0, &qd0, 0.0, 4.0)
        .method(Method::Projector(ProjectorConfig::default()))
        .integrator(Integrator::dopri5())
        .error_control(ErrorControl::absolute(1e-8))
        .output_times((0..=4000).map(|k| k as f64 * 1e-3).collect())
        .run()?;
    println!(
        "{} steps, max |phi| = {:.1e}; crank angle at t = 4 s: {:.3} rad",
        traj.stats.steps,
        traj.stats.max_phi,
        traj.q.last().ok_or("no output")?[0]
    );

    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| std::env::temp_dir().join("contour-examples"), Into::into);
    std::fs::create_dir_all(&dir)?;
    let out = dir.join("animate_mechanism.html");
    let page = contour::animation(&crank, &traj)
        .title("Slider-crank swinging under gravity")
        .trace(1) // the crank pin's circle
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
