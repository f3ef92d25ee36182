//! The Rust side of `overhead.py`: the same runs and calls as the Python script, timed in
//! Rust, printed as one JSON line (fastest of several runs, seconds per run / per call).
//!
//! `cargo run -p contour-python --example rust_reference` (the dev profile: opt-level 3).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use contour::model::models::{Pendulum, PANDA_URDF};
use contour::prelude::*;

/// The fastest run: on a shared machine, load only ever adds time.
fn fastest(v: Vec<f64>) -> f64 {
    v.into_iter().fold(f64::INFINITY, f64::min)
}

fn time_runs(reps: usize, mut f: impl FnMut()) -> f64 {
    f(); // warm-up
    fastest(
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

fn main() {
    let p = Pendulum::default();
    let (q0, qd0) = p.state(0.5, 0.0);
    let t_eval: Vec<f64> = (0..=1000).map(|k| k as f64 * 0.01).collect();
    let mut steps = 0;
    let pendulum = time_runs(21, || {
        let tr = Simulation::new(&p, &q0, &qd0, 0.0, 10.0)
            .method(Method::Perturbation(PerturbationConfig::default()))
            .integrator(Integrator::dopri5())
            .error_control(ErrorControl::absolute(1e-8))
            .output_times(t_eval.clone())
            .run()
            .unwrap();
        steps = tr.stats.steps;
    });

    // The same run through `&dyn Mechanism`, the way the Python door holds every model.
    let dyn_p: &(dyn Mechanism + Send + Sync) = &p;
    let pendulum_dyn = time_runs(21, || {
        Simulation::new(dyn_p, &q0, &qd0, 0.0, 10.0)
            .method(Method::Perturbation(PerturbationConfig::default()))
            .integrator(Integrator::dopri5())
            .error_control(ErrorControl::absolute(1e-8))
            .output_times(t_eval.clone())
            .run()
            .unwrap();
    });

    let panda = KinematicTree::from_urdf_str(PANDA_URDF).unwrap();
    let q0 = [0.1, -0.2, 0.3, -1.4, 0.5, 1.6, 0.7];
    let arm = time_runs(11, || {
        Simulation::new(&panda, &q0, &[0.0; 7], 0.0, 1.0)
            .method(Method::Direct)
            .integrator(Integrator::dopri5())
            .error_control(ErrorControl::absolute(1e-8))
            .run()
            .unwrap();
    });

    let (q, v, a) = ([0.3; 7], [0.2; 7], [0.1; 7]);
    let mut m = Mat::<f64>::zeros(7, 7);
    let mut tau = [0.0; 7];
    let calls = 20_000;
    let crba = time_runs(5, || {
        for _ in 0..calls {
            panda.mass_matrix(std::hint::black_box(&q), m.as_mut());
        }
    }) / calls as f64;
    let rnea = time_runs(5, || {
        for _ in 0..calls {
            panda
                .inverse_dynamics(std::hint::black_box(&q), &v, &a, &mut tau)
                .unwrap();
        }
    }) / calls as f64;
    println!(
        "{{\"pendulum_run_s\": {pendulum:e}, \"pendulum_steps\": {steps}, \"pendulum_dyn_run_s\": {pendulum_dyn:e}, \"panda_run_s\": {arm:e}, \"crba_call_s\": {crba:e}, \"rnea_call_s\": {rnea:e}}}"
    );
}
