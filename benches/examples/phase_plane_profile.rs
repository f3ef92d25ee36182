//! Profiling driver for the phase-plane solver: Huang's case 2(b) and a planar 3-link arm line
//! (the two cases of `benches/benches/planning.rs`), repeated `N` times (first argument).
//! `cargo run --release -p contour-benches --example phase_plane_profile -- 20`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use contour::planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour::planning::{AccelerationLimits, PathDynamics};
use contour_papers::huang::ch6_2_planning as rep;
use std::time::Instant;

fn main() {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10);
    let (_, path) = rep::huang_paths().unwrap();
    let t0 = Instant::now();
    let mut tf = 0.0;
    for _ in 0..reps {
        tf = rep::solve_on(&path, PhasePlaneConfig::default())
            .unwrap()
            .total_time;
    }
    let dt = t0.elapsed().as_secs_f64() / reps as f64;
    println!(
        "huang case 2(b): t_f = {tf:.12} s, {:.3} ms/solve",
        dt * 1e3
    );

    let (arm, jp, limits) = contour_benches::planar3_line::problem().unwrap();
    let dynamics = PathDynamics::new(&arm, &jp).unwrap();
    let acc = AccelerationLimits::new(&dynamics, &limits);
    let t0 = Instant::now();
    let mut sw = 0;
    for _ in 0..reps {
        let sol = PhasePlane::new(&acc, PhasePlaneConfig::default())
            .solve()
            .unwrap();
        tf = sol.total_time;
        sw = sol.switch_count();
    }
    let dt = t0.elapsed().as_secs_f64() / reps as f64;
    println!(
        "planar3 line: t_f = {tf:.12} s, {sw} switches, {:.3} ms/solve",
        dt * 1e3
    );
}
