//! The per-step cost of the Kövecses–Piedbœuf projector method on the closed-loop 7-joint arm
//! (N = 7, 3 rows), next to the cost of one f-evaluation. One criterion group `kovecses_arm`:
//!
//! * `f_eval_kkt` — one solution of the KKT system (9) (`ConstrainedDynamics`, the direct
//!   method's f-evaluation);
//! * `f_eval_projection` — one evaluation of (29)–(31) (Cholesky of M, SVD of A L⁻ᵀ,
//!   minimum-norm λ);
//! * `filter_eq36_x2` — one velocity filtering (33) + two corrections (36) (the paper's
//!   setting, three projector evaluations);
//! * `filter_eq35_x2` — one filtering + two corrections (35) (one projector evaluation; the
//!   directions of `q_i` come from the previous call's filtering);
//! * `filter_only` — the velocity filtering (33) alone.
//!
//! The corrected state is a copy of a consistent arm state perturbed by 1e-8 (the size of a
//! DOPRI5 local error at τ = 1e-8). `cargo bench -p contour-benches --bench kovecses`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use std::hint::black_box;

use contour::model::models::arm7_initial_q;
use contour::model::ConstrainedDynamics;
use contour::projection::{
    ConfigurationCorrection, ConstraintFilter, ProjectionDynamics, ProjectorConfig,
};
use contour_papers::kovecses::arm_system;
use criterion::{criterion_group, criterion_main, Criterion};

fn bench(c: &mut Criterion) {
    let arm = arm_system();
    let q = arm7_initial_q();
    let qd = [0.02, -0.01, 0.015, 0.0, -0.02, 0.01, 0.03];
    // a consistent state: filter the velocities once
    let mut x: Vec<f64> = q.iter().chain(&qd).copied().collect();
    let mut f0 = ConstraintFilter::new(&arm, &ProjectorConfig::default()).expect("filter");
    f0.set_previous(0.0, &x).expect("state");
    f0.apply(&arm, 0.0, &mut x).expect("filter");
    let x_pert: Vec<f64> = x
        .iter()
        .enumerate()
        .map(|(i, v)| v + 1e-8 * ((i as f64) * 1.3).sin())
        .collect();
    let mut group = c.benchmark_group("kovecses_arm");
    let (mut qdd, mut lam) = ([0.0; 7], [0.0; 3]);
    let mut kkt = ConstrainedDynamics::new(&arm);
    group.bench_function("f_eval_kkt", |b| {
        b.iter(|| {
            kkt.accelerations(&arm, 1.0, black_box(&x[..7]), &x[7..], &mut qdd, &mut lam)
                .expect("kkt")
        })
    });
    let mut pd = ProjectionDynamics::new(&arm, contour::linalg::DEFAULT_RANK_RTOL).expect("pd");
    group.bench_function("f_eval_projection", |b| {
        b.iter(|| {
            pd.accelerations(&arm, 1.0, black_box(&x[..7]), &x[7..], &mut qdd, &mut lam)
                .expect("projection")
        })
    });
    let cases = [
        ("filter_eq36_x2", ProjectorConfig::default()),
        ("filter_eq35_x2", ProjectorConfig::quasi_iterative()),
        (
            "filter_only",
            ProjectorConfig {
                correction: ConfigurationCorrection::Off,
                ..ProjectorConfig::default()
            },
        ),
    ];
    let mut buf = x_pert.clone();
    for (name, cfg) in cases {
        let mut f = ConstraintFilter::new(&arm, &cfg).expect("filter");
        f.set_previous(0.0, &x).expect("state");
        group.bench_function(name, |b| {
            b.iter(|| {
                buf.copy_from_slice(&x_pert);
                f.apply(&arm, 1e-3, black_box(&mut buf)).expect("apply")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
