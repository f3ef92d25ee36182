//! The cost of the ambiguous-branch step check of the direct method on MBS benchmark A02
//! (`NFourBar`): the same run with `PassagePolicy::Continue` (no check) and `Stop` (the check
//! at every accepted step), for the hand-written model and the automatic-derivative one
//! (`AutoDiff` of `NFourBarEnergies`, whose mass matrix is the expensive term). 0.6 s from
//! θ = π/2, θ̇ = −1 (before the first passage at t ≈ 0.71 s), τ = 1e-9; best of three runs.
//!
//! `a02_check_cost [N…]` (default N = 1, 4, 10), one row per model × integrator.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tool code: a panic is the report

use std::f64::consts::FRAC_PI_2;
use std::time::Instant;

use contour::model::autodiff::AutoDiff;
use contour::model::models::{NFourBar, NFourBarEnergies};
use contour::prelude::*;
use contour::projection::PassagePolicy;

/// Microseconds per accepted step (best of three) and the step count of one run.
fn per_step<M: Mechanism + ?Sized>(
    m: &M,
    q0: &[f64],
    qd0: &[f64],
    integrator: Integrator,
    policy: PassagePolicy,
) -> (f64, usize) {
    let mut best = f64::INFINITY;
    let mut steps = 0;
    for _ in 0..3 {
        let start = Instant::now();
        let tr = Simulation::new(m, q0, qd0, 0.0, 0.6)
            .method(Method::Direct)
            .integrator(integrator.clone())
            .error_control(ErrorControl::absolute(1e-9))
            .passage_policy(policy)
            .run()
            .unwrap();
        let secs = start.elapsed().as_secs_f64();
        steps = tr.stats.steps;
        best = best.min(secs / steps as f64);
    }
    (best * 1e6, steps)
}

fn main() {
    let ns: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().unwrap())
        .collect();
    let ns = if ns.is_empty() { vec![1, 4, 10] } else { ns };
    println!("| N | model | integrator | steps | µs/step, Continue (no check) | µs/step, Stop (check) | ratio |");
    println!("|---|---|---|---|---|---|---|");
    for n in ns {
        let p = NFourBar::new(n);
        let (q0, qd0) = p.state(FRAC_PI_2, -1.0);
        let ad = AutoDiff::new(NFourBarEnergies { loops: n });
        for (name, integrator) in [("abm", Integrator::abm()), ("dopri5", Integrator::dopri5())] {
            let rows: [(&str, &dyn Mechanism); 2] = [("hand-written", &p), ("autodiff", &ad)];
            for (model, m) in rows {
                let (free, steps) =
                    per_step(m, &q0, &qd0, integrator.clone(), PassagePolicy::Continue);
                let (checked, _) = per_step(m, &q0, &qd0, integrator.clone(), PassagePolicy::Stop);
                println!(
                    "| {n} | {model} | {name} | {steps} | {free:.1} | {checked:.1} | {:.2} |",
                    checked / free
                );
            }
        }
    }
}
