//! Load-independent measure of the planning bench (`benches/planning.rs`): solves one of its
//! problems `reps` times with one method, for `valgrind --tool=callgrind` instruction counts
//! (the machine's wall times vary up to 2× run to run; instruction counts do not).
//! Arguments: group (`huang`, `planar3`, `arm7`, `urdf`), method (`pp`, `t100`, `t1000`),
//! repetitions (default 1). Prints the minimum time with all its digits.
//! `valgrind --tool=callgrind target/release/examples/planning_counts urdf t1000 20`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use contour::model::tree::KinematicTree;
use contour::planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour::planning::toppra::{Toppra, ToppraConfig};
use contour::planning::{
    AccelerationLimits, BoxLimits, CartesianJointPath, JointVelocityLimits, PathDynamics,
    TorqueLimits,
};
use contour_papers::huang::ch6_2_planning as rep;

fn run<L: TorqueLimits + ?Sized>(
    acc: &AccelerationLimits<'_, KinematicTree, CartesianJointPath, L>,
    method: &str,
) -> f64 {
    match method {
        "pp" => {
            PhasePlane::new(acc, PhasePlaneConfig::default())
                .solve()
                .unwrap()
                .total_time
        }
        m => {
            let intervals = if m == "t100" { 100 } else { 1000 };
            Toppra::new(
                acc,
                ToppraConfig {
                    intervals,
                    ..ToppraConfig::default()
                },
            )
            .solve()
            .unwrap()
            .total_time
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let group = args.get(1).map_or("urdf", |s| s.as_str());
    let method = args.get(2).map_or("t1000", |s| s.as_str());
    let reps: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(1);
    let mut t = 0.0;
    match group {
        "huang" => {
            let (_, path) = rep::huang_paths().unwrap();
            for _ in 0..reps {
                t = match method {
                    "pp" => {
                        rep::solve_on(&path, PhasePlaneConfig::default())
                            .unwrap()
                            .total_time
                    }
                    "t100" => rep::huang_toppra(true, false, 100).unwrap().total_time,
                    _ => rep::huang_toppra(true, false, 1000).unwrap().total_time,
                };
            }
        }
        "planar3" => {
            let (arm, jp, limits) = contour_benches::planar3_line::problem().unwrap();
            let d = PathDynamics::new(&arm, &jp).unwrap();
            let acc = AccelerationLimits::new(&d, &limits);
            for _ in 0..reps {
                t = run(&acc, method);
            }
        }
        "arm7" => {
            let (arm, jp, limits) = contour_benches::arm7_line::torque_only_problem().unwrap();
            let d = PathDynamics::new(&arm, &jp).unwrap();
            let acc = AccelerationLimits::new(&d, &limits);
            for _ in 0..reps {
                t = run(&acc, method);
            }
        }
        _ => {
            let (arm, jp, limits) = contour_benches::arm7_line::problem().unwrap();
            let d = PathDynamics::new(&arm, &jp).unwrap();
            let torque = BoxLimits::from_effort(&limits.effort);
            let vel = JointVelocityLimits::new(limits.velocity.clone());
            let acc = AccelerationLimits::new(&d, &torque)
                .with_constraint(&vel)
                .unwrap();
            for _ in 0..reps {
                t = run(&acc, method);
            }
        }
    }
    println!("{group} {method}: {t:.17e} s ({reps} runs)");
}
