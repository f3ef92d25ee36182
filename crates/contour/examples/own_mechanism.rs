//! Your own mechanism: a double pendulum in Cartesian coordinates, written as its energies and
//! constraints only. `AutoDiff` derives M, h, J, ∂φ/∂t and ρ by dual numbers; a
//! finite-difference check confirms them; the perturbation method keeps both rods' lengths.
//!
//! `cargo run -p contour --example own_mechanism [OUT_DIR]` writes `double_pendulum.csv`.

use contour::model::autodiff::{AutoDiff, AutoDiffModel, Scalar};
use contour::model::testing::{check_accel_bias, check_jacobian};
use contour::prelude::*;

/// Two point masses (1 kg, 0.5 kg) on massless rods (1 m, 0.7 m), q = (x1, y1, x2, y2).
struct DoublePendulum;

impl AutoDiffModel for DoublePendulum {
    fn dof(&self) -> usize {
        4
    }
    fn n_constraints(&self) -> usize {
        2
    }
    fn kinetic_energy<S: Scalar>(&self, _q: &[S], v: &[S]) -> S {
        (v[0] * v[0] + v[1] * v[1]) * 0.5 + (v[2] * v[2] + v[3] * v[3]) * 0.25
    }
    fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
        (q[1] + q[3] * 0.5) * 9.81
    }
    fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
        phi[0] = q[0] * q[0] + q[1] * q[1] - 1.0;
        phi[1] = (q[2] - q[0]) * (q[2] - q[0]) + (q[3] - q[1]) * (q[3] - q[1]) - 0.49;
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dp = AutoDiff::new(DoublePendulum);
    // Both rods horizontal, at rest: a consistent state.
    let (q0, qd0) = ([1.0, 0.0, 1.7, 0.0], [0.0; 4]);

    // An independent witness of the automatic derivatives: central finite differences.
    let (q, qd) = ([0.6, -0.8, 1.1, -1.3], [0.3, 0.2, -0.4, 0.5]);
    let (ej, er) = (
        check_jacobian(&dp, 0.0, &q)?,
        check_accel_bias(&dp, 0.0, &q, &qd)?,
    );
    println!("finite-difference check: J {ej:.1e}, rho {er:.1e}");
    assert!(ej < 1e-6 && er < 1e-6, "a derivative is wrong");

    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| std::env::temp_dir().join("contour-examples"), Into::into);
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("double_pendulum.csv");
    let run = Simulation::new(&dp, &q0, &qd0, 0.0, 10.0)
        .method(Method::Perturbation(PerturbationConfig::default()))
        .integrator(Integrator::dopri5())
        .error_control(ErrorControl::absolute(1e-8))
        .output_times((0..=200).map(|k| 0.05 * k as f64).collect())
        .run();
    let traj = match run {
        Ok(traj) => traj,
        Err(ProjectionError::Failed(failure)) => {
            // A failed run keeps what it computed: save it before reporting the error.
            failure.partial.write_csv(std::fs::File::create(&path)?)?;
            eprintln!(
                "failed at t = {}; the run so far is in {}",
                failure.t,
                path.display()
            );
            return Err(failure.source.into());
        }
        Err(e) => return Err(e.into()),
    };

    let energy = |q: &[f64], qd: &[f64]| -> Option<f64> {
        Some(dp.kinetic_energy(q, qd)? + dp.potential_energy(q)?)
    };
    let (last_q, last_qd) = (
        traj.q.last().ok_or("no output")?,
        traj.qd.last().ok_or("no output")?,
    );
    let drift =
        energy(last_q, last_qd).ok_or("no energy")? - energy(&q0, &qd0).ok_or("no energy")?;
    println!(
        "t = 10 s: {} steps, {} f-evaluations, max |phi| = {:.1e}, energy drift = {drift:.1e} J",
        traj.stats.steps, traj.stats.f_evals, traj.stats.max_phi
    );

    traj.write_csv(std::fs::File::create(&path)?)?;
    println!("wrote {}", path.display());
    Ok(())
}
