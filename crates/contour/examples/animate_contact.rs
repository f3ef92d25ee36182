//! See contact: the ball of `bouncing_contact` thrown into a corner bounces off the wall and
//! the floor (restitution 0.8), settles, slides and sticks. The page marks every impact,
//! entry, exit and stick on the time slider and draws the floor, the wall and the ball's path.
//! Your own model becomes drawable with four short methods of `Drawable`.
//!
//! `cargo run -p contour --example animate_contact [OUT_DIR]` writes `animate_contact.html`.

use contour::prelude::*;
use contour::viz::{PointKind, Segment, Surface};

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
        rho.fill(0.0);
    }
}

/// The drawing: one point (the ball), no segment, the floor and the wall.
impl Drawable for BallInCorner {
    fn dof(&self) -> usize {
        2
    }
    fn n_points(&self) -> usize {
        1
    }
    fn points(&self, _t: f64, q: &[f64], out: &mut [[f64; 3]]) -> Result<(), VizError> {
        out[0] = [q[0], q[1], 0.0];
        Ok(())
    }
    fn segments(&self) -> Vec<Segment> {
        Vec::new()
    }
    fn point_kinds(&self) -> Vec<PointKind> {
        vec![PointKind::Mass]
    }
    fn surfaces(&self) -> Vec<Surface> {
        vec![
            Surface::line([-3.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
            Surface::line([1.0, 0.0, 0.0], [1.0, 1.4, 0.0]),
        ]
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ball = BallInCorner { mass: 0.2 };
    let mut cfg = ContactConfig::new(6.0, Scheme::default());
    cfg.restitution = 0.8;
    cfg.friction = 0.3;
    cfg.zeno_interval = 1e-3;
    cfg.output_dt = Some(1e-3);
    let tr = simulate_contact(&ball, 0.0, &[0.0, 1.0], &[1.5, 2.0], cfg)?;

    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| std::env::temp_dir().join("contour-examples"), Into::into);
    std::fs::create_dir_all(&dir)?;
    let out = dir.join("animate_contact.html");
    let page = contour::animation(&ball, &tr)
        .title("Ball thrown into a corner (e = 0.8, μ = 0.3)")
        .trace(0)
        .write_html_file(&out)?;
    println!(
        "wrote {} ({} events marked, {} of {} samples kept, {} kB)",
        out.display(),
        tr.events.len(),
        page.frames,
        page.samples,
        page.bytes / 1000
    );
    Ok(())
}
