//! Minimum-time parameterization of Huang's case 2(b) (continuous-slope path, |F| ≤ 1 N):
//! the phase-plane method (adaptive integration in s, switching points on the maximum-velocity
//! curve) against TOPP-RA on 100 and 1000 grid intervals. Each bench prints the total time it
//! finds, so speed and accuracy are read together.
//! The same two algorithms on a joint-space line for spatial_v2's planar 3-link arm with gravity
//! (torque limits ±(80, 40, 15) N·m), and on a joint-space line of the 7-joint SSRMS-like arm
//! (±500 N·m on every joint, zero gravity).
//! `cargo bench -p contour-benches --bench planning`.

use std::hint::black_box;

use contour::model::tree::KinematicTree;
use contour::planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour::planning::toppra::{Toppra, ToppraConfig};
use contour::planning::{
    AccelerationLimits, BoxLimits, CartesianJointPath, Path, PathDynamics, Segment, SegmentKind,
    Shape,
};
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
    let arm = KinematicTree::planar_with_gravity(3, 9.81);
    let seg = Segment {
        s_start: 0.0,
        s_end: 1.0,
        shape: Shape::Line {
            start: vec![0.2, 0.3, -0.2],
            end: vec![1.2, -0.5, 0.6],
        },
        kind: SegmentKind::Unconstrained,
    };
    let jp = CartesianJointPath::new(Path::new(vec![seg]).unwrap());
    let dynamics = PathDynamics::new(&arm, &jp).unwrap();
    let limits = BoxLimits {
        lower: vec![-80.0, -40.0, -15.0],
        upper: vec![80.0, 40.0, 15.0],
    };
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
    let arm = contour::model::models::ssrms_arm();
    let q0 = contour::model::models::arm7_initial_q();
    let q1: Vec<f64> = q0
        .iter()
        .enumerate()
        .map(|(i, q)| q + 0.3 * if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect();
    let seg = Segment {
        s_start: 0.0,
        s_end: 1.0,
        shape: Shape::Line {
            start: q0.to_vec(),
            end: q1,
        },
        kind: SegmentKind::Unconstrained,
    };
    let jp = CartesianJointPath::new(Path::new(vec![seg]).unwrap());
    let dynamics = PathDynamics::new(&arm, &jp).unwrap();
    let limits = BoxLimits {
        lower: vec![-500.0; 7],
        upper: vec![500.0; 7],
    };
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

criterion_group!(benches, huang_case2b, planar3_line, arm7_line);
criterion_main!(benches);
