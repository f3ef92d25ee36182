//! Memory of a long run in each recording mode: the planar pendulum (Cartesian, one rod
//! constraint), the direct method, Runge–Kutta–Gill at the constant step `h = 1e-4` s, for
//! `N` steps, with outputs at the end only or at every step, recorded in full, outputs only,
//! or streamed to a sink (the last row kept, or CSV into `/dev/null`).
//!
//! Each configuration runs in a process of its own (this binary calls itself), which reads its
//! resident set (`VmRSS` of `/proc/self/status`) before the run, its peak (`VmHWM`) over the
//! run and its resident set after the trajectory is dropped. Linux only (reads `/proc`).
//!
//! ```text
//! cargo run -p contour-benches --bin long_run_memory -- 1000000          # every mode, 1e6 steps
//! cargo run -p contour-benches --bin long_run_memory -- 10000000         # 1e7 (≈ 1 min per mode)
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use contour::model::models::Pendulum;
use contour::ode::{GillMode, RungeKuttaGillConfig};
use contour::projection::{CsvSink, Integrator, LastRowSink, Method, Recording, Simulation};
use std::sync::{Arc, Mutex};

/// `VmRSS` and `VmHWM` of this process \[MB\].
fn rss_hwm() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<f64>().ok())
            .map_or(f64::NAN, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

const H: f64 = 1e-4;
const MODES: [&str; 6] = [
    "full/end",
    "full/every",
    "outputs_only/end",
    "outputs_only/every",
    "stream_last/every",
    "stream_csv/every",
];

/// One configuration in this process: prints `mode steps rss_before peak rss_after_drop rows`.
fn run_one(mode: &str, steps: usize) {
    let p = Pendulum::default();
    let (q0, qd0) = p.state(1.0, 0.0);
    let t_end = steps as f64 * H;
    let every = mode.ends_with("/every");
    let last = Arc::new(Mutex::new(LastRowSink::default()));
    let csv = Arc::new(Mutex::new(CsvSink::new(
        std::fs::File::create("/dev/null").unwrap(),
    )));
    let recording = match mode.split('/').next().unwrap() {
        "full" => Recording::Full,
        "outputs_only" => Recording::OutputsOnly,
        "stream_last" => Recording::stream(last.clone()),
        _ => Recording::stream(csv.clone()),
    };
    let sim = Simulation::new(&p, &q0, &qd0, 0.0, t_end)
        .method(Method::Direct)
        .integrator(Integrator::RungeKuttaGill(RungeKuttaGillConfig {
            mode: GillMode::Fixed { h: H },
            ..RungeKuttaGillConfig::default()
        }))
        .max_steps(steps + 10)
        .output_times(if every { Vec::new() } else { vec![t_end] })
        .recording(recording);
    let (before, _) = rss_hwm();
    let tr = sim.run().unwrap();
    let (_, peak) = rss_hwm();
    let kept = tr.times.len();
    let done = tr.stats.steps;
    drop(tr);
    let (after, _) = rss_hwm();
    let streamed = last.lock().unwrap().rows + csv.lock().unwrap().rows();
    println!("{mode} {done} {before:.1} {peak:.1} {after:.1} {kept} {streamed}");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let steps: usize = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    if let Some(mode) = args.get(2) {
        run_one(mode, steps);
        return;
    }
    let exe = std::env::current_exe().unwrap();
    println!("| mode / outputs | steps | RSS before [MB] | peak RSS [MB] | peak − before [MB] | RSS after drop [MB] | rows kept | rows streamed |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for mode in MODES {
        let out = std::process::Command::new(&exe)
            .arg(steps.to_string())
            .arg(mode)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let v: Vec<&str> = text.split_whitespace().collect();
        if v.len() < 7 {
            println!(
                "| {mode} | failed: {} |",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            continue;
        }
        let (before, peak): (f64, f64) = (v[2].parse().unwrap(), v[3].parse().unwrap());
        println!(
            "| {} | {} | {:.1} | {:.1} | {:.1} | {} | {} | {} |",
            v[0],
            v[1],
            before,
            peak,
            peak - before,
            v[4],
            v[5],
            v[6]
        );
    }
}
