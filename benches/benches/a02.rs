//! MBS benchmark A02 (the N four-bar in natural coordinates, `NFourBar`) at N = 10, 40, 100,
//! 400 loops (2N + 2 coordinates, 2N + 1 rows): one criterion group `a02_evaluation` with the
//! ids `<what>_<N>`:
//!
//! * `accelerations_<N>` — one [`ConstrainedDynamics::accelerations`] at a regular
//!   configuration (the dense range-space fast path);
//! * `singular_<N>` — the same at the flat position (θ = 0, rank N + 1): the rank-revealing
//!   solve (SVD of `L⁻¹Jᵀ`);
//! * `projector_<N>` — Kövecses' accelerations (29)–(31) ([`ProjectionDynamics`]) at the
//!   regular configuration;
//!
//! and a group `a02_run` with a whole run (20 s, projector method + ABM, τ = 1e-6, the 401
//! outputs of A02) at N = 10. The dense kernels are O(N³) per evaluation; the sparse
//! path the issue asks for is not built yet, so these are the dense numbers.
//! `cargo bench -p contour-benches --bench a02`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use std::f64::consts::FRAC_PI_2;
use std::hint::black_box;

use contour::model::models::NFourBar;
use contour::model::{ConstrainedDynamics, Mechanism};
use contour::projection::{
    ErrorControl, Integrator, Method, ProjectionDynamics, ProjectorConfig, Simulation,
};
use criterion::{criterion_group, criterion_main, Criterion};

fn evaluation(c: &mut Criterion) {
    let mut g = c.benchmark_group("a02_evaluation");
    g.sample_size(10);
    for n in [10usize, 40, 100, 400] {
        let p = NFourBar::new(n);
        let (q, qd) = p.state(0.7, -3.0);
        let (qs, qds) = p.state(0.0, -3.0);
        let (mut qdd, mut lambda) = (vec![0.0; p.dof()], vec![0.0; p.n_constraints()]);
        let mut d = ConstrainedDynamics::new(&p);
        g.bench_function(format!("accelerations_{n}"), |b| {
            b.iter(|| {
                d.accelerations(&p, 0.0, &q, &qd, &mut qdd, &mut lambda)
                    .unwrap();
                black_box(qdd[0])
            })
        });
        g.bench_function(format!("singular_{n}"), |b| {
            b.iter(|| {
                d.accelerations(&p, 0.0, &qs, &qds, &mut qdd, &mut lambda)
                    .unwrap();
                black_box(qdd[0])
            })
        });
        let mut pd = ProjectionDynamics::new(&p, 1e-6).unwrap();
        g.bench_function(format!("projector_{n}"), |b| {
            b.iter(|| {
                pd.accelerations(&p, 0.0, &q, &qd, &mut qdd, &mut lambda)
                    .unwrap();
                black_box(qdd[0])
            })
        });
    }
    g.finish();
    let mut g = c.benchmark_group("a02_run");
    g.sample_size(10);
    {
        let n = 10usize;
        let p = NFourBar::new(n);
        let (q0, qd0) = p.state(FRAC_PI_2, -1.0);
        let times: Vec<f64> = (0..=400).map(|k| 0.05 * k as f64).collect();
        g.bench_function(format!("projector_abm_{n}"), |b| {
            b.iter(|| {
                let tr = Simulation::new(&p, &q0, &qd0, 0.0, 20.0)
                    .method(Method::Projector(ProjectorConfig::default()))
                    .integrator(Integrator::abm())
                    .error_control(ErrorControl::absolute(1e-6))
                    .output_times(times.clone())
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
