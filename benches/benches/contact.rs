//! Huang's contour-following simulations (section 6.3) side by side, one criterion group per
//! simulation, ids `<scheme>`:
//!
//! * `huang_sim_I` (no model error) and `huang_sim_II` (circle radius 0.55 m), 0 ≤ t ≤ 7 s,
//!   PD law (6.3.3) around the plan of case 1(a);
//! * `modern`: Dormand–Prince 5(4), rtol 1e-10, events located on the dense output, projection
//!   on constrained segments; `huang`: Runge–Kutta–Gill h = 0.01 s / BDF2 h = 0.01 s with
//!   Baumgarte ρ₁ = 5, ρ₂ = 25, SIRK start, Huang's entry/exit procedures.
//!
//! Before timing, one run prints the accepted steps, evaluations, events and the wall time per
//! step. `cargo bench -p contour-benches --bench contact`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use std::hint::black_box;
use std::time::Instant;

use contour::contact::{ModernConfig, Scheme};
use contour_papers::huang::ch6_3_contact::huang_scheme;
use contour_papers::huang::scenario::{simulate_huang, HuangCase, HuangPlan};
use criterion::{criterion_group, criterion_main, Criterion};

fn huang_sims(c: &mut Criterion) {
    let plan = HuangPlan::case1a().expect("plan");
    for (group, case) in [
        ("huang_sim_I", HuangCase::NoModelError),
        ("huang_sim_II", HuangCase::InexactRadius),
    ] {
        let mut g = c.benchmark_group(group);
        for (id, scheme) in [
            ("modern", Scheme::Modern(ModernConfig::default())),
            ("huang", huang_scheme(0.01)),
        ] {
            let t0 = Instant::now();
            let tr = simulate_huang(&plan, case, scheme, None).expect("simulation");
            let el = t0.elapsed();
            println!(
                "{group}/{id}: {} steps, {} evaluations, {} events, {:.3} ms, {:.2} µs/step",
                tr.stats.steps,
                tr.stats.evals,
                tr.events.len(),
                el.as_secs_f64() * 1e3,
                el.as_secs_f64() * 1e6 / tr.stats.steps as f64
            );
            g.bench_function(id, |b| {
                b.iter(|| black_box(simulate_huang(&plan, case, scheme, None).expect("simulation")))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, huang_sims);
criterion_main!(benches);
