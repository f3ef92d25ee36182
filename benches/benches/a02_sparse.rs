//! The sparse path (`contour_projection::sparse`) on MBS benchmark A02 (`NFourBar`, 2N + 2
//! coordinates, 2N + 1 rows) at N = 10, 40, 100, 400: one criterion group
//! `a02_sparse_evaluation` with the ids `<what>_<N>`:
//!
//! * `accelerations_<N>` — one sparse constrained-acceleration evaluation (Keerthi
//!   (1.1)+(1.4), [`SparseDynamics`]) at a regular configuration (θ = 0.7): numeric `LDLᵀ` of
//!   the regularized KKT matrix and refinement;
//! * `correction_<N>` — one sparse correction (Keerthi (2.16)–(2.17), [`SparseProjection`])
//!   of a state moved ~1e-7 off the manifold;
//!
//! and a group `a02_sparse_run` with the whole A02 run (20 s, perturbation + ABM, τ = 1e-6,
//! 401 outputs) at N = 100 on the sparse path. The dense numbers are the `a02` bench's.
//! `cargo bench -p contour-benches --bench a02_sparse`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use std::f64::consts::FRAC_PI_2;
use std::hint::black_box;

use contour::model::models::NFourBar;
use contour::model::Mechanism;
use contour::projection::sparse::{SparseDynamics, SparseMode, SparseProjection};
use contour::projection::{
    ErrorControl, Integrator, Method, PerturbationConfig, Recording, Simulation,
};
use criterion::{criterion_group, criterion_main, Criterion};

fn evaluation(c: &mut Criterion) {
    let mut g = c.benchmark_group("a02_sparse_evaluation");
    g.sample_size(10);
    for n in [10usize, 40, 100, 400] {
        let p = NFourBar::new(n);
        let pattern = p.sparsity().unwrap();
        let (q, qd) = p.state(0.7, -3.0);
        let mut qdd = vec![0.0; p.dof()];
        let mut d = SparseDynamics::new(&p, &pattern).unwrap();
        g.bench_function(format!("accelerations_{n}"), |b| {
            b.iter(|| {
                assert!(d.accelerations(&p, 0.0, &q, &qd, &mut qdd).unwrap());
                black_box(qdd[0])
            })
        });
        let mut x: Vec<f64> = q.iter().chain(&qd).copied().collect();
        for (k, v) in x.iter_mut().enumerate() {
            *v += 1e-9 * ((7 * k) as f64).sin();
        }
        let mut out = vec![0.0; x.len()];
        let ec = ErrorControl::absolute(1e-6);
        let mut sp = SparseProjection::new(&p, &pattern, ec, &Default::default()).unwrap();
        g.bench_function(format!("correction_{n}"), |b| {
            b.iter(|| {
                let o = sp.project(&p, 0.0, &x, &mut out).unwrap();
                black_box(o.norm)
            })
        });
    }
    g.finish();
    let mut g = c.benchmark_group("a02_sparse_run");
    g.sample_size(10);
    {
        let n = 100usize;
        let p = NFourBar::new(n);
        let (q0, qd0) = p.state(FRAC_PI_2, -1.0);
        let times: Vec<f64> = (0..=400).map(|k| 0.05 * k as f64).collect();
        g.bench_function(format!("perturbation_abm_{n}"), |b| {
            b.iter(|| {
                let tr = Simulation::new(&p, &q0, &qd0, 0.0, 20.0)
                    .method(Method::Perturbation(PerturbationConfig {
                        sparse: SparseMode::Sparse,
                        ..PerturbationConfig::default()
                    }))
                    .integrator(Integrator::abm())
                    .error_control(ErrorControl::absolute(1e-6))
                    .output_times(times.clone())
                    .recording(Recording::OutputsOnly)
                    .run()
                    .unwrap();
                black_box(tr.stats.steps)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, evaluation);
criterion_main!(benches);
