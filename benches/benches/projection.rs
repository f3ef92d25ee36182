//! Constraint-handling methods side by side on Keerthi's robot with the control law (4.5),
//! initial condition 2 (made consistent), τ = 1e-4 in the l2 norm, T = 5 s — the setting of
//! Table 4.2. One criterion group `keerthi_ic2`, ids `<method>_<integrator>`.
//!
//! Each benchmark times a whole simulation (outputs only at T). Before timing, one run prints
//! N_i (accepted steps), N_f (solutions of (1.1)+(1.4)), projections / re-parametrizations,
//! and the wall time per run and per step (mean of 20 runs).
//! `cargo bench -p contour-benches --bench projection`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use std::hint::black_box;
use std::time::Instant;

use contour::projection::Integrator;
use contour_papers::keerthi::{
    run_case, table_method, KEERTHI_FINAL_TIME, KEERTHI_TAU, TABLE_METHODS,
};
use criterion::{criterion_group, criterion_main, Criterion};

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("keerthi_ic2");
    let mut cases: Vec<(&str, Integrator)> = TABLE_METHODS
        .iter()
        .map(|&m| {
            let integ = if m == "ECS" {
                Integrator::Bdf(Default::default())
            } else {
                Integrator::abm()
            };
            (m, integ)
        })
        .collect();
    cases.push(("PERT", Integrator::dopri5()));
    cases.push(("ICS0", Integrator::dopri5()));
    for (name, integ) in cases {
        let method = table_method(name).expect("table method");
        let once = || {
            run_case(
                2,
                method.clone(),
                integ.clone(),
                KEERTHI_TAU,
                KEERTHI_FINAL_TIME,
                vec![KEERTHI_FINAL_TIME],
            )
            .expect("simulation failed")
        };
        let tr = once();
        let reps = 20;
        let t0 = Instant::now();
        for _ in 0..reps {
            black_box(once());
        }
        let per_run = t0.elapsed().as_secs_f64() / reps as f64;
        let s = tr.stats;
        println!(
            "keerthi_ic2/{name}_{}: N_i = {}, N_f = {}, projections = {}, re-parametrizations = {}, Newton (BDF) = {}, {:.1} µs/run, {:.2} µs/step",
            integ.name(),
            s.steps,
            s.f_evals,
            s.projections,
            s.reparametrizations,
            s.newton_iterations,
            per_run * 1e6,
            per_run * 1e6 / s.steps as f64
        );
        group.bench_function(format!("{name}_{}", integ.name()), |b| {
            b.iter(|| black_box(once()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
