//! Minimum-time parameterization of Huang's case 2(b) (continuous-slope path, |F| ≤ 1 N):
//! the phase-plane method (adaptive integration in s, switching points on the maximum-velocity
//! curve) against TOPP-RA on 100 and 1000 grid intervals. Each bench prints the total time it
//! finds, so speed and accuracy are read together.
//! `cargo bench -p contour-benches --bench planning`.

use std::hint::black_box;

use contour::planning::phase_plane::PhasePlaneConfig;
use contour::planning::reproduction as rep;
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

criterion_group!(benches, huang_case2b);
criterion_main!(benches);
