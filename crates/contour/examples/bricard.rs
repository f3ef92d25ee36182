//! MBS benchmark A04 (González, Dopico, Lugrís, Cuadrado 2006): Bricard's mechanism, five rods
//! of 1 m and 1 kg closed by six revolute joints, in natural coordinates (24 coordinates and
//! 24 rows of rank 23 everywhere: Grübler counts no degree of freedom, the mechanism has one).
//! The projector method (mass-weighted pseudo-inverse) runs the permanently redundant rows;
//! the run is checked against the same mechanism in relative joint angles.
//!
//! `cargo run -p contour --example bricard [OUT_DIR]` writes `bricard.csv`.

use contour::model::autodiff::AutoDiff;
use contour::model::models::{Bricard, BricardJointAngles};
use contour::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let times: Vec<f64> = (0..=200).map(|k| 0.05 * k as f64).collect();
    let run = |model: &dyn Mechanism, q0: &[f64], qd0: &[f64]| {
        Simulation::new(model, q0, qd0, 0.0, 10.0)
            .method(Method::Projector(ProjectorConfig::default()))
            .integrator(Integrator::dopri5())
            .error_control(ErrorControl::absolute(1e-9))
            .output_times(times.clone())
            .energy_tolerance(1e-3)
            .run()
    };
    let natural = AutoDiff::new(Bricard::default());
    let (q0, qd0) = Bricard::default().initial_state();
    let traj = run(&natural, &q0, &qd0)?;
    let s = &traj.stats;
    println!(
        "natural coordinates: {} steps, {} evaluations ({} rank-revealing), max |phi| {:.1e}, energy drift {:.1e} J",
        s.steps, s.f_evals, s.rank_revealing_evals, s.max_phi, s.energy_drift.unwrap_or(f64::NAN)
    );

    let angles = BricardJointAngles::default();
    let reference = run(&AutoDiff::new(angles), &[0.0; 5], &[0.0; 5])?;
    let mut worst = 0.0f64;
    for (q, r) in traj.q.iter().zip(&reference.q) {
        let (p, pr) = (Bricard::tracked_point(q), angles.tracked_point(r));
        worst = worst.max((0..3).map(|c| (p[c] - pr[c]).abs()).fold(0.0, f64::max));
    }
    println!("tracked point (1, -1, 0): largest difference to the joint-angle model {worst:.1e} m");
    for t in [1.25, 2.5, 5.0] {
        let k = (t / 0.05f64).round() as usize;
        let p = Bricard::tracked_point(&traj.q[k]);
        println!("  t = {t:>4} s: ({:+.4}, {:+.4}, {:+.4})", p[0], p[1], p[2]);
    }
    assert!(worst < 1e-6, "formulations differ by {worst:e}");

    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| std::env::temp_dir().join("contour-examples"), Into::into);
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("bricard.csv");
    traj.write_csv(std::fs::File::create(&path)?)?;
    println!("wrote {}", path.display());
    Ok(())
}
