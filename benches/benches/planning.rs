//! Minimum-time parameterization of Huang's case 2(b) (continuous-slope path, |F| ≤ 1 N):
//! the phase-plane method (adaptive integration in s, switching points on the maximum-velocity
//! curve) against TOPP-RA on 100 and 1000 grid intervals. Each bench prints the total time it
//! finds, so speed and accuracy are read together.
//! The same two algorithms on a joint-space line for spatial_v2's planar 3-link arm with gravity
//! (torque limits ±(80, 40, 15) N·m), and on a joint-space line of the 7-joint SSRMS-like arm
//! (±500 N·m on every joint, zero gravity).
//! `cargo bench -p contour-benches --bench planning`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use std::hint::black_box;

use contour::planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour::planning::toppra::{Toppra, ToppraConfig};
use contour::planning::{AccelerationLimits, BoxLimits, PathDynamics};
use contour_papers::huang::ch6_2_planning as rep;
use criterion::{criterion_group, criterion_main, Criterion};

fn huang_case2b(c: &mut Criterion) {
    let (_, path) = rep::huang_paths().unwrap();
    let reference = rep::solve_on(&path, PhasePlaneConfig::default())
        .unwrap()
        .total_time;
    let mut group = c.benchmark_group("min_time_huang_case2b");
    group.sample_size(20);
    println!("phase_plane: total time {reference:.7} s");
    group.bench_function("phase_plane", |b| {
        b.iter(|| {
            black_box(
                rep::solve_on(&path, PhasePlaneConfig::default())
                    .unwrap()
                    .total_time,
            )
        })
    });
    for n in [100usize, 1000] {
        let t = rep::huang_toppra(true, false, n).unwrap().total_time;
        println!(
            "toppra_{n}: total time {t:.7} s (relative difference {:+.2e})",
            (t - reference) / reference
        );
        group.bench_function(format!("toppra_{n}"), |b| {
            b.iter(|| black_box(rep::huang_toppra(true, false, n).unwrap().total_time))
        });
    }
    group.finish();
}

fn planar3_line(c: &mut Criterion) {
    let (arm, jp, limits) = contour_benches::planar3_line::problem().unwrap();
    let dynamics = PathDynamics::new(&arm, &jp).unwrap();
    let acc = AccelerationLimits::new(&dynamics, &limits);
    let reference = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap()
        .total_time;
    println!("planar3 phase_plane: total time {reference:.7} s");
    let mut group = c.benchmark_group("min_time_planar3_line");
    group.sample_size(20);
    group.bench_function("phase_plane", |b| {
        b.iter(|| {
            black_box(
                PhasePlane::new(&acc, PhasePlaneConfig::default())
                    .solve()
                    .unwrap()
                    .total_time,
            )
        })
    });
    for n in [100usize, 1000] {
        let cfg = || ToppraConfig {
            intervals: n,
            ..ToppraConfig::default()
        };
        let t = Toppra::new(&acc, cfg()).solve().unwrap().total_time;
        println!(
            "planar3 toppra_{n}: total time {t:.7} s (relative difference {:+.2e})",
            (t - reference) / reference
        );
        group.bench_function(format!("toppra_{n}"), |b| {
            b.iter(|| black_box(Toppra::new(&acc, cfg()).solve().unwrap().total_time))
        });
    }
    group.finish();
}

/// The 7-joint SSRMS-like arm (zero gravity) along a joint-space line from its initial pose.
fn arm7_line(c: &mut Criterion) {
    let (arm, jp, limits) = contour_benches::arm7_line::torque_only_problem().unwrap();
    let dynamics = PathDynamics::new(&arm, &jp).unwrap();
    let acc = AccelerationLimits::new(&dynamics, &limits);
    let reference = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap()
        .total_time;
    println!("arm7 phase_plane: total time {reference:.7} s");
    let mut group = c.benchmark_group("min_time_arm7_line");
    group.sample_size(10);
    group.bench_function("phase_plane", |b| {
        b.iter(|| {
            black_box(
                PhasePlane::new(&acc, PhasePlaneConfig::default())
                    .solve()
                    .unwrap()
                    .total_time,
            )
        })
    });
    for n in [100usize, 1000] {
        let cfg = || ToppraConfig {
            intervals: n,
            ..ToppraConfig::default()
        };
        let t = Toppra::new(&acc, cfg()).solve().unwrap().total_time;
        println!(
            "arm7 toppra_{n}: total time {t:.7} s (relative difference {:+.2e})",
            (t - reference) / reference
        );
        group.bench_function(format!("toppra_{n}"), |b| {
            b.iter(|| black_box(Toppra::new(&acc, cfg()).solve().unwrap().total_time))
        });
    }
    group.finish();
}

/// The arm7 line under the limits of its URDF (effort ±1000 N·m, velocity 0.07 rad/s): the
/// phase plane against TOPP-RA at N = 100 / 1000, with the wall-time and error
/// ratios printed (the toppra peer: `benches/peers/toppra_arm7_line.py`).
fn arm7_line_urdf_limits(c: &mut Criterion) {
    use contour::planning::JointVelocityLimits;
    use contour_benches::arm7_line::problem;
    let (arm, jp, limits) = problem().unwrap();
    let dynamics = PathDynamics::new(&arm, &jp).unwrap();
    let torque = BoxLimits::from_effort(&limits.effort);
    let vel = JointVelocityLimits::new(limits.velocity.clone());
    let acc = AccelerationLimits::new(&dynamics, &torque)
        .with_constraint(&vel)
        .unwrap();
    let tight = PhasePlaneConfig {
        rtol: 1e-13,
        atol: 1e-16,
        max_step_fraction: 1.0 / 20000.0,
        mvc_grid: 16000,
        ..PhasePlaneConfig::default()
    };
    let exact = PhasePlane::new(&acc, tight).solve().unwrap().total_time;
    // the fastest of many batches (the machine is shared: the least-disturbed batch measures
    // the code), in seconds
    let fastest = |f: &dyn Fn() -> f64| contour_benches::min_time_us(f) * 1e-6;
    let pp = || {
        PhasePlane::new(&acc, PhasePlaneConfig::default())
            .solve()
            .unwrap()
            .total_time
    };
    let t_pp = pp();
    let w_pp = fastest(&pp);
    println!(
        "arm7 urdf limits phase_plane: {t_pp:.9} s (error {:.1e} vs the tight witness {exact:.9}) in {:.2} ms",
        (t_pp - exact).abs() / exact,
        w_pp * 1e3
    );
    let mut group = c.benchmark_group("min_time_arm7_line_urdf_limits");
    group.sample_size(10);
    group.bench_function("phase_plane", |b| b.iter(|| black_box(pp())));
    let acc = &acc;
    for n in [100usize, 1000] {
        let tr = move || {
            Toppra::new(
                acc,
                ToppraConfig {
                    intervals: n,
                    ..ToppraConfig::default()
                },
            )
            .solve()
            .unwrap()
            .total_time
        };
        let t = tr();
        let w = fastest(&tr);
        println!(
            "arm7 urdf limits toppra_{n}: {t:.9} s (error {:.1e}) in {:.2} ms; phase plane / toppra wall time {:.2}, error ratio {:.1e}",
            (t - exact).abs() / exact,
            w * 1e3,
            w_pp / w,
            ((t_pp - exact).abs() / exact) / ((t - exact).abs() / exact)
        );
        group.bench_function(format!("toppra_{n}"), |b| b.iter(|| black_box(tr())));
    }
    group.finish();
}

criterion_group!(
    benches,
    huang_case2b,
    planar3_line,
    arm7_line,
    arm7_line_urdf_limits
);
criterion_main!(benches);
