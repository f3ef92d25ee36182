//! A closed loop built from a kinematic tree: spatial_v2's planar 3-link chain with gravity, its
//! far end pinned to the world — a four-bar linkage. The planar pin gives three rows of which
//! one (z) is identically zero, so `J` is rank-deficient: Kövecses & Piedbœuf's mass-weighted
//! projector method handles such redundant constraints (minimum-norm λ).
//!
//! `cargo run -p contour --example closed_loop [OUT_DIR]` writes `four_bar.csv`.

use contour::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Three unit links (CRBA for M, RNEA for h), gravity 9.81 m/s² along −y.
    let tree = KinematicTree::planar_with_gravity(3, 9.81);
    let q0 = [1.2, -1.0, -1.2];
    // Pin the far end of link 3 (body 2, point (1, 0, 0) in its frame) where it is now.
    let pin = Closure::point_at_current_position(&tree, &q0, 2, [1.0, 0.0, 0.0])?;
    let four_bar = ConstrainedTree::new(tree, vec![pin])?;
    println!(
        "{} coordinates, {} constraint rows",
        four_bar.dof(),
        four_bar.n_constraints()
    );

    // Released from rest with a push on the first joint, made consistent (q̇ projected).
    let traj = Simulation::new(&four_bar, &q0, &[1.0, 0.0, 0.0], 0.0, 5.0)
        .make_consistent(ConsistentStateOptions::default())
        .method(Method::Projector(ProjectorConfig::default()))
        .integrator(Integrator::dopri5())
        .error_control(ErrorControl::absolute(1e-8))
        .output_times((0..=100).map(|k| 0.05 * k as f64).collect())
        .run()?;

    let energy = |q: &[f64], qd: &[f64]| -> Option<f64> {
        Some(four_bar.kinetic_energy(q, qd)? + four_bar.potential_energy(q)?)
    };
    let (e0, e1) = (
        energy(&traj.q[0], &traj.qd[0]).ok_or("no energy")?,
        energy(&traj.q[100], &traj.qd[100]).ok_or("no energy")?,
    );
    println!(
        "t = 5 s: {} steps, max |phi| = {:.1e}, max |J qd| = {:.1e}, energy drift {:.1e} J of {:.3} J",
        traj.stats.steps, traj.stats.max_phi, traj.stats.max_phidot, e1 - e0, e0
    );
    println!("pin force at t = 5 s: lambda = {:.4?} N", &traj.lambda[100]);

    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| std::env::temp_dir().join("contour-examples"), Into::into);
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("four_bar.csv");
    traj.write_csv(std::fs::File::create(&path)?)?;
    println!("wrote {}", path.display());
    Ok(())
}
