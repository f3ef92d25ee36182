//! Bad input outside the per-crate bad-input tables, through the public API: overflowing
//! dynamics (an ill-conditioned `M` under `u = 1e300`, with and without a constraint row; a
//! tree under `τ = f64::MAX` or `q̇ = 1e200`), tolerances below what `f64` resolves, and the
//! length of the numbers in the messages. Prints `| case | result |` rows; a case that returns
//! `Ok` prints its values.
//!
//! ```text
//! cargo run -p contour-benches --bin bad_input_probe
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use contour::model::models::Pendulum;
use contour::model::tree::KinematicTree;
use contour::model::{ConstrainedDynamics, Mechanism};
use contour::projection::{ErrorControl, Simulation};

/// `M = diag(1, 1e-300)`, `u = (1e300, 1e300)`, `rows` constraint rows `q₀ = 0`.
struct Stiff(usize);

impl Mechanism for Stiff {
    fn name(&self) -> &str {
        "stiff"
    }
    fn dof(&self) -> usize {
        2
    }
    fn n_constraints(&self) -> usize {
        self.0
    }
    fn mass_matrix(&self, _q: &[f64], mut m: faer::MatMut<'_, f64>) {
        m.fill(0.0);
        m[(0, 0)] = 1.0;
        m[(1, 1)] = 1e-300;
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        h.fill(0.0);
    }
    fn applied_forces(&self, _t: f64, _q: &[f64], _qd: &[f64], u: &mut [f64]) {
        u.fill(1e300);
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        phi.fill(q[0]);
    }
    fn constraint_jacobian(&self, _t: f64, _q: &[f64], mut j: faer::MatMut<'_, f64>) {
        j.fill(0.0);
        if self.0 > 0 {
            j[(0, 0)] = 1.0;
        }
    }
    fn constraint_accel_bias(&self, _t: f64, _q: &[f64], _qd: &[f64], rho: &mut [f64]) {
        rho.fill(0.0);
    }
}

fn row<T: std::fmt::Debug, E: std::fmt::Display>(case: &str, r: Result<T, E>) {
    match r {
        Ok(v) => println!("| {case} | Ok({v:?}) |"),
        Err(e) => println!("| {case} | {e} |"),
    }
}

fn main() {
    println!("| case | result |");
    println!("|---|---|");
    for l in [0usize, 1] {
        let m = Stiff(l);
        let mut d = ConstrainedDynamics::new(&m);
        let (mut qdd, mut lam) = ([0.0; 2], vec![0.0; l]);
        let r = d
            .accelerations(&m, 0.0, &[0.0; 2], &[0.0; 2], &mut qdd, &mut lam)
            .map(|()| qdd);
        row(
            &format!("M = diag(1, 1e-300), u = 1e300, {l} constraint row(s): accelerations"),
            r,
        );
    }
    let m = Stiff(1);
    let mut d = ConstrainedDynamics::new(&m);
    let mut qdd = [0.0; 2];
    let r = d
        .unconstrained_accelerations(&m, 0.0, &[0.0; 2], &[0.0; 2], &mut qdd)
        .map(|()| qdd);
    row("the same: unconstrained_accelerations", r);
    let tree = KinematicTree::planar_with_gravity(3, 9.81);
    let mut out = [0.0; 3];
    let r = tree
        .forward_dynamics(&[0.1; 3], &[0.0; 3], &[f64::MAX; 3], &mut out)
        .map(|()| out);
    row("planar 3-link tree: forward_dynamics(tau = f64::MAX)", r);
    let r = tree
        .inverse_dynamics(&[0.1; 3], &[1e200; 3], &[0.0; 3], &mut out)
        .map(|()| out);
    row("planar 3-link tree: inverse_dynamics(qd = 1e200)", r);
    let p = Pendulum::default();
    let (q0, qd0) = p.state(1.0, 0.0);
    for (case, ec) in [
        (
            "pendulum run, ErrorControl::absolute(1e-100)",
            ErrorControl::absolute(1e-100),
        ),
        (
            "pendulum run, ErrorControl::absolute(1e-300)",
            ErrorControl::absolute(1e-300),
        ),
    ] {
        let r = Simulation::new(&p, &q0, &qd0, 0.0, 1.0)
            .error_control(ec)
            .run()
            .map(|tr| tr.stats.steps);
        row(case, r);
    }
    let r = Simulation::new(&p, &q0, &qd0, 0.0, -1e-300)
        .run()
        .map(|tr| tr.stats.steps);
    row("pendulum run on [0, -1e-300]", r);
}
