//! The same double pendulum as `own_mechanism`, with every derivative written by hand: the
//! whole `Mechanism` trait (M, h, φ, J, ρ = J̇q̇), checked against finite differences and
//! simulated with the perturbation method. Prefer `own_mechanism` (automatic derivatives)
//! unless you need the last bit of speed.
//!
//! `cargo run -p contour --example hand_written_mechanism [OUT_DIR]` writes
//! `double_pendulum_hand.csv`.

use contour::model::testing::{check_accel_bias, check_jacobian};
use contour::prelude::*;

/// Two point masses on massless rods: q = (x1, y1, x2, y2), φ = (|p1|² − l1², |p2 − p1|² − l2²).
struct DoublePendulum {
    m: [f64; 2],
    l: [f64; 2],
    g: f64,
}

impl Mechanism for DoublePendulum {
    fn name(&self) -> &str {
        "double-pendulum"
    }
    fn dof(&self) -> usize {
        4
    }
    fn n_constraints(&self) -> usize {
        2
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        m.fill(0.0); // M and J do not arrive zeroed
        for i in 0..4 {
            m[(i, i)] = self.m[i / 2];
        }
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        h.copy_from_slice(&[0.0, self.m[0] * self.g, 0.0, self.m[1] * self.g]); // gravity along −y
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        let (dx, dy) = (q[2] - q[0], q[3] - q[1]);
        phi[0] = q[0] * q[0] + q[1] * q[1] - self.l[0] * self.l[0];
        phi[1] = dx * dx + dy * dy - self.l[1] * self.l[1];
    }
    fn constraint_jacobian(&self, _t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        let (dx, dy) = (q[2] - q[0], q[3] - q[1]);
        let rows = [
            [2.0 * q[0], 2.0 * q[1], 0.0, 0.0],
            [-2.0 * dx, -2.0 * dy, 2.0 * dx, 2.0 * dy],
        ];
        for (r, row) in rows.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                j[(r, c)] = *v;
            }
        }
    }
    fn constraint_accel_bias(&self, _t: f64, _q: &[f64], qd: &[f64], rho: &mut [f64]) {
        let (du, dv) = (qd[2] - qd[0], qd[3] - qd[1]); // ρ = J̇ q̇
        rho[0] = 2.0 * (qd[0] * qd[0] + qd[1] * qd[1]);
        rho[1] = 2.0 * (du * du + dv * dv);
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dp = DoublePendulum {
        m: [1.0, 0.5],
        l: [1.0, 0.7],
        g: 9.81,
    };
    // Both rods horizontal, at rest: a consistent state.
    let (q0, qd0) = ([1.0, 0.0, 1.7, 0.0], [0.0; 4]);

    // Trust the derivatives you wrote only after a finite-difference check.
    let (q, qd) = ([0.6, -0.8, 1.1, -1.3], [0.3, 0.2, -0.4, 0.5]);
    let (ej, er) = (
        check_jacobian(&dp, 0.0, &q)?,
        check_accel_bias(&dp, 0.0, &q, &qd)?,
    );
    println!("finite-difference check: J {ej:.1e}, rho {er:.1e}");
    assert!(ej < 1e-6 && er < 1e-6, "a derivative is wrong");

    let traj = Simulation::new(&dp, &q0, &qd0, 0.0, 10.0)
        .method(Method::Perturbation(PerturbationConfig::default()))
        .integrator(Integrator::dopri5())
        .error_control(ErrorControl::absolute(1e-8))
        .output_times((0..=200).map(|k| 0.05 * k as f64).collect())
        .run()?;

    let energy = |q: &[f64], qd: &[f64]| {
        let kin: f64 = (0..4).map(|i| 0.5 * dp.m[i / 2] * qd[i] * qd[i]).sum();
        kin + dp.g * (dp.m[0] * q[1] + dp.m[1] * q[3])
    };
    let (last_q, last_qd) = (
        traj.q.last().ok_or("no output")?,
        traj.qd.last().ok_or("no output")?,
    );
    println!(
        "t = 10 s: {} steps, {} f-evaluations, max |phi| = {:.1e}, energy drift = {:.1e} J",
        traj.stats.steps,
        traj.stats.f_evals,
        traj.stats.max_phi,
        energy(last_q, last_qd) - energy(&q0, &qd0)
    );

    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| std::env::temp_dir().join("contour-examples"), Into::into);
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("double_pendulum_hand.csv");
    traj.write_csv(std::fs::File::create(&path)?)?;
    println!("wrote {}", path.display());
    Ok(())
}
