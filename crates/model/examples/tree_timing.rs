//! Time per call of CRBA (`M`) and RNEA (`h`) for planar(n) and the 7-joint arms.
//!
//! `cargo run -p contour-model --release --example tree_timing`

use contour_model::models::{arm7_initial_q, panda_arm, ssrms_arm};
use contour_model::tree::KinematicTree;
use contour_model::Mechanism;
use faer::Mat;
use std::time::Instant;

fn time(name: &str, t: &KinematicTree, q: &[f64]) {
    let n = t.dof();
    let mut m = Mat::<f64>::zeros(n, n);
    let mut h = vec![0.0; n];
    let qd = vec![0.1; n];
    let reps = (200_000 / (n * n).max(1)).max(2_000);
    let start = Instant::now();
    for _ in 0..reps {
        t.mass_matrix(std::hint::black_box(q), m.as_mut());
    }
    let crba = start.elapsed().as_secs_f64() / reps as f64;
    let start = Instant::now();
    for _ in 0..reps {
        t.bias_forces(std::hint::black_box(q), &qd, &mut h);
    }
    let rnea = start.elapsed().as_secs_f64() / reps as f64;
    println!(
        "{name:>12}: N = {n:>2}, CRBA {:8.3} µs, RNEA {:8.3} µs",
        crba * 1e6,
        rnea * 1e6
    );
}

fn main() {
    for n in [2, 7, 20, 50] {
        time(
            &format!("planar({n})"),
            &KinematicTree::planar(n),
            &vec![0.3; n],
        );
    }
    time("arm7", &ssrms_arm(), &arm7_initial_q());
    time("panda", &panda_arm(), &[0.1; 7]);
}
