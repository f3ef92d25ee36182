//! Writes the arm7 line problem of the planning bench for the toppra peer script
//! (`benches/peers/toppra_arm7_line.py`): endpoints, limits, and on a grid of s the mass matrix
//! M(q(s)) and the velocity term h(q(s), B) (q̇ = B ṡ: h(q, B ṡ) = ṡ² h(q, B); zero gravity),
//! plus our own minimum times (phase plane, TOPP-RA at N = 100 / 1000) and wall times.
//!
//! `cargo run --release -p contour-benches --example export_arm7_line -- OUT.json`

use contour::model::Mechanism;
use contour::planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour::planning::toppra::{Toppra, ToppraConfig};
use contour::planning::{AccelerationLimits, BoxLimits, JointVelocityLimits, PathDynamics};
use contour_benches::arm7_line::{endpoints, problem};
use std::time::Instant;

fn median_ms(mut f: impl FnMut()) -> f64 {
    let mut v: Vec<f64> = (0..7)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[3]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "arm7_line.json".into());
    let (arm, jp, limits) = problem()?;
    let (q0, q1) = endpoints();
    let n = arm.dof();
    let d: Vec<f64> = q0.iter().zip(&q1).map(|(a, b)| b - a).collect();
    let grid = 20_000;
    let mut m = faer::Mat::zeros(n, n);
    let mut h = vec![0.0; n];
    let (mut ms, mut hs) = (Vec::new(), Vec::new());
    for k in 0..=grid {
        let s = k as f64 / grid as f64;
        let q: Vec<f64> = (0..n).map(|i| q0[i] + s * d[i]).collect();
        arm.mass_matrix(&q, m.as_mut());
        arm.bias_forces(&q, &d, &mut h);
        ms.push((0..n * n).map(|k| m[(k / n, k % n)]).collect::<Vec<_>>());
        hs.push(h.clone());
    }
    let torque = BoxLimits::from_effort(&limits.effort);
    let vel = JointVelocityLimits::new(limits.velocity.clone());
    let dynamics = PathDynamics::new(&arm, &jp)?;
    let acc = AccelerationLimits::new(&dynamics, &torque).with_constraint(&vel)?;
    let pp = PhasePlane::new(&acc, PhasePlaneConfig::default()).solve()?;
    let pp_ms = median_ms(|| {
        PhasePlane::new(&acc, PhasePlaneConfig::default())
            .solve()
            .map(|s| s.total_time)
            .ok();
    });
    let mut ours = vec![format!(
        "{{\"solver\":\"phase_plane\",\"n\":0,\"time\":{},\"ms\":{pp_ms}}}",
        pp.total_time
    )];
    for k in [100usize, 1000, 10000] {
        let cfg = || ToppraConfig {
            intervals: k,
            ..ToppraConfig::default()
        };
        let t = Toppra::new(&acc, cfg()).solve()?.total_time;
        let ms = median_ms(|| {
            Toppra::new(&acc, cfg()).solve().map(|s| s.total_time).ok();
        });
        ours.push(format!(
            "{{\"solver\":\"contour_toppra\",\"n\":{k},\"time\":{t},\"ms\":{ms}}}"
        ));
        println!("contour TOPP-RA N = {k}: {t:.9} s in {ms:.2} ms");
    }
    println!(
        "contour phase plane: {:.9} s in {pp_ms:.2} ms",
        pp.total_time
    );
    let json = format!(
        "{{\"q0\":{q0:?},\"q1\":{q1:?},\"effort\":{:?},\"velocity\":{:?},\"grid\":{grid},\"M\":{ms:?},\"h\":{hs:?},\"ours\":[{}]}}",
        limits.effort,
        limits.velocity,
        ours.join(",")
    );
    std::fs::write(&out, json)?;
    println!("wrote {out}");
    Ok(())
}
