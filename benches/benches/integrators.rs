//! Integrators side by side, one criterion group per problem, ids `<method>_<tol>`:
//!
//! * `kepler` (e = 0.5, three periods, `rtol = atol = tol`): ABM (variable order 1–12),
//!   Runge–Kutta–Gill (step doubling) and Dormand–Prince 5(4);
//! * `vdp1000` (Van der Pol μ = 1000 on [0, 3000], `rtol = atol = tol`): the variable-order
//!   BDF (finite-difference Jacobian, LU reused over steps).
//!
//! Each benchmark times a whole integration. Before timing, one run prints the accepted
//! steps, f-evaluations (for BDF: residual evaluations, Jacobian columns included), Jacobians,
//! the error, and the wall time per step and per f-evaluation (mean of 20 runs).
//! `cargo bench -p contour-benches --bench integrators`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use std::hint::black_box;
use std::time::Instant;

use contour::ode::test_models::{max_abs_diff, ExactSolution, Kepler, VanDerPol};
use contour::ode::verification::{max_rel_error, VDP1000_REFERENCE};
use contour::ode::{
    integrate, AbmConfig, AdamsBashforthMoulton, Advance, Bdf, BdfConfig, DormandPrince54,
    DormandPrinceConfig, DriverOptions, OdeAsDae, RungeKuttaGill, RungeKuttaGillConfig, Stats,
    Tolerances,
};
use criterion::{criterion_group, criterion_main, Criterion};

/// Integrates to `t_end`, returns the final state and the statistics.
fn run<S: Advance<F>, F>(mut s: S, f: &mut F, t_end: f64) -> (Vec<f64>, Stats) {
    let sol = integrate(
        &mut s,
        f,
        t_end,
        &[t_end],
        &mut [],
        &DriverOptions::default(),
    )
    .expect("integration failed");
    (sol.y[0].clone(), sol.stats)
}

/// Prints the work counters and the time per step / per f-evaluation of `once`.
fn report(group: &str, id: &str, err: f64, st: &Stats, mut once: impl FnMut()) {
    let reps = 20;
    let t0 = Instant::now();
    for _ in 0..reps {
        once();
    }
    let per_run = t0.elapsed().as_secs_f64() / reps as f64;
    println!(
        "{group}/{id}: steps {} (rejected {}), f-evals {}, jacobians {}, error {err:.2e}; \
         {:.3} µs/step, {:.3} µs/f-eval, {:.1} µs/run",
        st.steps,
        st.rejected_steps,
        st.f_evals,
        st.jacobian_evals,
        1e6 * per_run / st.steps as f64,
        1e6 * per_run / st.f_evals as f64,
        1e6 * per_run
    );
}

fn kepler(c: &mut Criterion) {
    let p = Kepler { e: 0.5 };
    let t_end = 3.0 * Kepler::PERIOD;
    let y0 = p.y0();
    let mut exact = vec![0.0; 4];
    p.exact(t_end, &mut exact);
    let mut group = c.benchmark_group("kepler");
    for tol in [1e-6, 1e-9] {
        let tols = Tolerances::new(tol, tol);
        let abm =
            || AdamsBashforthMoulton::new(0.0, &y0, tols.clone(), AbmConfig::default()).unwrap();
        let rkg = || {
            RungeKuttaGill::new(0.0, &y0, tols.clone(), RungeKuttaGillConfig::default()).unwrap()
        };
        let dop = || {
            DormandPrince54::new(0.0, &y0, tols.clone(), DormandPrinceConfig::default()).unwrap()
        };
        macro_rules! bench {
            ($name:expr, $make:expr) => {{
                let id = format!("{}_{tol:e}", $name);
                let (y, st) = run($make(), &mut Kepler { e: 0.5 }, t_end);
                report("kepler", &id, max_abs_diff(&y, &exact), &st, || {
                    black_box(run($make(), &mut Kepler { e: 0.5 }, t_end));
                });
                group.bench_function(id, |b| {
                    b.iter(|| black_box(run($make(), &mut Kepler { e: 0.5 }, t_end)))
                });
            }};
        }
        bench!("abm", abm);
        bench!("rkg", rkg);
        bench!("dopri5", dop);
    }
    group.finish();
}

fn van_der_pol(c: &mut Criterion) {
    let p = VanDerPol { mu: 1000.0 };
    let t_end = 3000.0;
    let mut group = c.benchmark_group("vdp1000");
    group.sample_size(20);
    for tol in [1e-4, 1e-6, 1e-8] {
        let make = || {
            Bdf::new(
                0.0,
                &p.y0(),
                Tolerances::new(tol, tol),
                BdfConfig::default(),
            )
            .unwrap()
        };
        let id = format!("bdf_{tol:e}");
        let (y, st) = run(make(), &mut OdeAsDae::new(p), t_end);
        report(
            "vdp1000",
            &id,
            max_rel_error(&y, &VDP1000_REFERENCE),
            &st,
            || {
                black_box(run(make(), &mut OdeAsDae::new(p), t_end));
            },
        );
        group.bench_function(id, |b| {
            b.iter(|| black_box(run(make(), &mut OdeAsDae::new(p), t_end)))
        });
    }
    group.finish();
}

criterion_group!(benches, kepler, van_der_pol);
criterion_main!(benches);
