//! Unilateral contact: a ball thrown into a corner bounces off a wall and a floor, loses energy
//! at every impact (restitution e = 0.8), settles on the floor, slides and stops by friction. Two unilateral rows
//! φ ≥ 0, λ ≥ 0, λφ = 0; the event-located scheme finds every impact, entry and exit exactly.
//!
//! `cargo run -p contour --example bouncing_contact [OUT_DIR]` writes `ball_events.csv`.

use contour::prelude::*;

/// A point mass in the plane, q = (x, y), with a floor y ≥ 0 and a wall x ≤ 1.
struct BallInCorner {
    mass: f64,
}

impl Mechanism for BallInCorner {
    fn name(&self) -> &str {
        "ball-in-corner"
    }
    fn dof(&self) -> usize {
        2
    }
    fn n_constraints(&self) -> usize {
        2
    }
    fn constraint_kind(&self, _row: usize) -> ConstraintKind {
        ConstraintKind::Unilateral
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        m.fill(0.0);
        m[(0, 0)] = self.mass;
        m[(1, 1)] = self.mass;
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        h.copy_from_slice(&[0.0, self.mass * 9.81]);
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        phi.copy_from_slice(&[q[1], 1.0 - q[0]]); // floor, wall
    }
    fn constraint_jacobian(&self, _t: f64, _q: &[f64], mut j: MatMut<'_, f64>) {
        j.fill(0.0);
        j[(0, 1)] = 1.0;
        j[(1, 0)] = -1.0;
    }
    fn constraint_accel_bias(&self, _t: f64, _q: &[f64], _qd: &[f64], rho: &mut [f64]) {
        rho.fill(0.0); // J is constant
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ball = BallInCorner { mass: 0.2 };
    let mut cfg = ContactConfig::new(6.0, Scheme::default());
    cfg.restitution = 0.8;
    cfg.friction = 0.3; // Coulomb μ on a closed row: the ball slides, then sticks
    cfg.zeno_interval = 1e-3; // impacts closer than 1 ms: an accumulation, contact persists
    let tr = simulate_contact(&ball, 0.0, &[0.0, 1.0], &[1.5, 2.0], cfg)?;

    println!(
        "{:>10}  {:<18} {:>4} {:>12} {:>12}",
        "t [s]", "event", "row", "impulse", "J qd after"
    );
    let n = tr.events.len();
    for (k, e) in tr.events.iter().enumerate() {
        if n > 12 && (8..n - 4).contains(&k) {
            if k == 8 {
                println!("{:>10}  ... {} more events ...", "", n - 12);
            }
            continue;
        }
        println!(
            "{:>10.6}  {:<18} {:>4} {:>12} {:>12}",
            e.t,
            e.kind.name(),
            e.row.map_or("-".into(), |r| r.to_string()),
            e.impulse.map_or("-".into(), |x| format!("{x:.6}")),
            e.normal_velocity_after
                .map_or("-".into(), |v| format!("{v:.6}")),
        );
    }
    let last = tr.q.last().ok_or("no output")?;
    println!(
        "{} events, {} steps; at t = 6 s the ball is at ({:.4}, {:.2e})",
        tr.events.len(),
        tr.stats.steps,
        last[0],
        last[1]
    );

    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| std::env::temp_dir().join("contour-examples"), Into::into);
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("ball_events.csv");
    tr.write_events_csv(std::fs::File::create(&path)?)?;
    println!("wrote {}", path.display());
    Ok(())
}
