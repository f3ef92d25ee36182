//! The per-run overhead of the CLI against the library, measured: the 1,000
//! Keerthi runs of `examples/scenarios/sweep_keerthi.toml`, in one process, (a) as the sweep
//! runs them (`contour_cli::sweep::run_one`: the base scenario's TOML table with the run's
//! values set, deserialized, the model built, the method configured, the run summarized)
//! and (b) through the library directly (one model, `Simulation::run`). Alternating rounds;
//! the minimum of each is reported, as this thread's CPU time (Linux
//! `/proc/thread-self/schedstat`, nanoseconds on a CPU: the machine is shared, so wall time
//! mostly measures the other tenants). The final states must agree bit for bit.
//!
//! `cargo run -p contour-cli --example sweep_overhead [ROUNDS]`

use std::path::Path;
use std::time::Instant;

use contour::model::models::{KeerthiControlLaw, KeerthiRobot};
use contour::prelude::*;
use contour_cli::sweep::{run_one, run_seed, SplitMix64, Sweep};

/// Nanoseconds this thread has spent on a CPU (Linux), or wall-clock time elsewhere.
fn cpu_seconds(wall: Instant) -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or_else(|| wall.elapsed().as_secs_f64(), |ns| ns * 1e-9)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let epoch = Instant::now();
    let rounds: usize = std::env::args().nth(1).map_or(Ok(3), |s| s.parse())?;
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenarios/sweep_keerthi.toml");
    let sweep = Sweep::load(&file)?;
    let runs = sweep.len();
    let robot = WithController::new(KeerthiRobot::default(), KeerthiControlLaw::default());
    let outputs: Vec<f64> = (0..=100).map(|k| k as f64 * 0.1).collect();
    let (mut best_cli, mut best_lib) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..rounds {
        let start = cpu_seconds(epoch);
        let rows: Vec<_> = (0..runs).map(|i| run_one(&sweep, i)).collect();
        best_cli = best_cli.min(cpu_seconds(epoch) - start);

        let start = cpu_seconds(epoch);
        let mut finals = Vec::with_capacity(runs);
        for i in 0..runs {
            // The sweep's draw of run i: uniform on [0.286, 0.686).
            let mut rng = SplitMix64::new(run_seed(1, i as u64));
            let theta1 = 0.286 + (0.686 - 0.286) * rng.unit();
            let traj = Simulation::new(&robot, &[theta1, 0.345, 0.162], &[0.0; 3], 0.0, 10.0)
                .method(Method::Perturbation(PerturbationConfig::default()))
                .integrator(Integrator::abm())
                .error_control(ErrorControl::absolute(1e-8))
                .output_times(outputs.clone())
                .make_consistent(ConsistentStateOptions::default())
                .run()?;
            finals.push(traj.x_final);
        }
        best_lib = best_lib.min(cpu_seconds(epoch) - start);
        let same = rows
            .iter()
            .zip(&finals)
            .filter(|(r, x)| r.x_final == **x)
            .count();
        if same != runs {
            return Err(format!("only {same} of {runs} final states agree").into());
        }
    }
    println!("{runs} runs, CPU time, best of {rounds} rounds, final states identical:");
    println!(
        "  CLI path (run_one)  {best_cli:.4} s  {:.1} µs/run",
        1e6 * best_cli / runs as f64
    );
    println!(
        "  library directly    {best_lib:.4} s  {:.1} µs/run",
        1e6 * best_lib / runs as f64
    );
    println!(
        "  overhead per run    {:.1} µs ({:.1} %)",
        1e6 * (best_cli - best_lib) / runs as f64,
        100.0 * (best_cli / best_lib - 1.0)
    );
    Ok(())
}
