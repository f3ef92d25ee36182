//! Imports an `n`-link chain URDF built in memory and runs RNEA and ABA on it once: the
//! load time and the peak memory of a long chain (`/usr/bin/time -v` around it gives the
//! peak RSS; results in `benches/results/tree_scaling_2026-11-28.md`).
//!
//! `cargo run -p contour-model --release --example urdf_chain -- 20000 [fixed_every]`
//! (`fixed_every = k > 0`: every k-th joint is fixed, so the dynamics run on the lumped tree).

use contour_model::tree::KinematicTree;
use contour_model::Mechanism;
use std::fmt::Write;
use std::time::Instant;

/// A chain of `n` links hanging from the base link `l0`, 0.1 m apart, revolute about x and y
/// in turn (every `fixed_every`-th joint fixed when `fixed_every > 0`).
fn chain_urdf(n: usize, fixed_every: usize) -> String {
    let mut s = String::with_capacity(n * 480);
    s.push_str("<robot name=\"chain\">\n<link name=\"l0\"/>\n");
    for i in 1..=n {
        let kind = if fixed_every > 0 && i % fixed_every == 0 {
            "fixed"
        } else {
            "revolute"
        };
        let axis = if i % 2 == 0 { "0 1 0" } else { "1 0 0" };
        let _ = writeln!(
            s,
            "<link name=\"l{i}\"><inertial><origin xyz=\"0 0 -0.05\"/><mass value=\"1\"/>\
             <inertia ixx=\"0.001\" ixy=\"0\" ixz=\"0\" iyy=\"0.001\" iyz=\"0\" izz=\"0.0001\"/>\
             </inertial></link>\n<joint name=\"j{i}\" type=\"{kind}\"><parent link=\"l{p}\"/>\
             <child link=\"l{i}\"/><origin xyz=\"0 0 -0.1\"/><axis xyz=\"{axis}\"/>\
             <limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"1\"/></joint>",
            p = i - 1
        );
    }
    s.push_str("</robot>\n");
    s
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let fixed_every: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(0);
    let text = chain_urdf(n, fixed_every);
    let start = Instant::now();
    let tree = match KinematicTree::from_urdf_str(&text) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("import failed: {e}");
            std::process::exit(1);
        }
    };
    let load = start.elapsed().as_secs_f64();
    drop(text);
    let dof = tree.dof();
    let q = vec![0.1; dof];
    let qd = vec![0.2; dof];
    let mut h = vec![0.0; dof];
    let start = Instant::now();
    tree.bias_forces(&q, &qd, &mut h);
    let rnea = start.elapsed().as_secs_f64();
    let mut qdd = vec![0.0; dof];
    let start = Instant::now();
    let aba = tree.forward_dynamics(&q, &qd, &h, &mut qdd);
    let aba_time = start.elapsed().as_secs_f64();
    let finite = aba.is_ok() && h.iter().chain(&qdd).all(|x| x.is_finite());
    println!(
        "links {n}, dof {dof}: load {load:.3} s, first RNEA {rnea:.4} s, first ABA {aba_time:.4} s, finite {finite}"
    );
}
