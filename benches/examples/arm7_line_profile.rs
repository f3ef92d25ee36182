//! Profiling driver for the arm7 line under its URDF limits (the problem of the bench
//! `arm7_line_urdf_limits`): phase plane and TOPP-RA at N = 1000, timed as the fastest of many
//! batches ([`contour_benches::min_time_us`]). First argument: `pp`, `toppra` or `both`
//! (default); second: repetitions of a plain loop for `perf record` instead of the timing.
//! `cargo run --release -p contour-benches --example arm7_line_profile -- both`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use contour::planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour::planning::toppra::{Toppra, ToppraConfig};
use contour::planning::{AccelerationLimits, BoxLimits, JointVelocityLimits, PathDynamics};
use contour_benches::{arm7_line::problem, min_time_us};

fn main() {
    let what = std::env::args().nth(1).unwrap_or_else(|| "both".into());
    let reps: Option<usize> = std::env::args().nth(2).and_then(|a| a.parse().ok());
    let (arm, jp, limits) = problem().unwrap();
    let dynamics = PathDynamics::new(&arm, &jp).unwrap();
    let torque = BoxLimits::from_effort(&limits.effort);
    let vel = JointVelocityLimits::new(limits.velocity.clone());
    let acc = AccelerationLimits::new(&dynamics, &torque)
        .with_constraint(&vel)
        .unwrap();
    let pp = || {
        PhasePlane::new(&acc, PhasePlaneConfig::default())
            .solve()
            .unwrap()
            .total_time
    };
    let tr = || {
        Toppra::new(
            &acc,
            ToppraConfig {
                intervals: 1000,
                ..ToppraConfig::default()
            },
        )
        .solve()
        .unwrap()
        .total_time
    };
    let run = |name: &str, f: &dyn Fn() -> f64| match reps {
        Some(n) => {
            let mut t = 0.0;
            for _ in 0..n {
                t = f();
            }
            println!("{name}: {t:.12} s ({n} runs)");
        }
        None => {
            let t = f();
            let us = min_time_us(f);
            println!("{name}: {t:.12} s in {:.3} ms", us * 1e-3);
        }
    };
    if what == "pp" || what == "both" {
        run("phase plane", &pp);
    }
    if what == "toppra" || what == "both" {
        run("toppra N = 1000", &tr);
    }
}
