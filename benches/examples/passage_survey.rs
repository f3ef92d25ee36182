//! Singular passages on a second mechanism: the isosceles slider-crank (crank and rod of equal
//! length r = l = 0.2 m, `SliderCrank`, gravity, no drive). Its closure
//! `φ = (r cos θ + l cos ψ − s, r sin θ + l sin ψ)` has two branches of motion, `ψ = −θ`,
//! `s = 2r cos θ` (the slider moves) and `ψ = θ + π`, `s = 0` (crank and rod folded, the slider
//! at the pivot), which cross where both links are vertical (θ = ±π/2, s = 0): there `J` loses
//! rank (σ₂ = 0) and a run may turn onto the folded branch. Unlike A02's parallelogram the
//! crossing has two different branch tangents through one slider coordinate, and the rank
//! loss is one row of two.
//!
//! The reference is the reduced equation of the moving branch
//! (`SliderCrank::isosceles_reduced_solution`: Lagrange's equation on `q = (θ, −θ, 2r cos θ)`,
//! no constraint Jacobian or multiplier), RK4 at 1e-4 s, checked against 5e-5 s and against its
//! own energy.
//!
//! Two motions over 10 s: `rotating` (θ(0) = 0, θ̇(0) = 12 rad/s: the crank turns over, two
//! passages a revolution, 30 or so in all) and `swinging` (θ(0) = 0 at rest: it swings through
//! the bottom passage θ = −π/2 at its fastest, to θ = −π and back). Every method × integrator at
//! τ = 1e-6 and 1e-9 (absolute), with the default options; a run passes when the slider
//! position s is within 1e-3 m of the reference at the 201 outputs.
//!
//! `cargo run -p contour-benches --example passage_survey [rotating|swinging] [TAU] [continue]`
//! (`continue`: direct and Baumgarte with `PassagePolicy::Continue`)
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use std::time::Instant;

use contour::model::models::SliderCrank;
use contour::prelude::*;
use contour::projection::PassagePolicy;

fn model() -> SliderCrank {
    SliderCrank {
        crank_length: 0.2,
        rod_length: 0.2,
        torque: 0.0,
        ..SliderCrank::default()
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let motion = args.get(1).map_or("rotating", String::as_str);
    let taus: Vec<f64> = match args.get(2) {
        Some(t) => vec![t.parse().unwrap()],
        None => vec![1e-6, 1e-9],
    };
    // `continue`: direct and Baumgarte keep going through a passage (PassagePolicy::Continue)
    let policy = match args.get(3).map(String::as_str) {
        Some("continue") => PassagePolicy::Continue,
        _ => PassagePolicy::Stop,
    };
    let w0 = match motion {
        "rotating" => 12.0,
        "swinging" => 0.0,
        m => panic!("unknown motion {m}"),
    };
    let p = model();
    let r = p.crank_length;
    let (q0, qd0) = p.isosceles_state(0.0, w0).unwrap();
    let span = 10.0;
    let times: Vec<f64> = (0..=200).map(|k| 0.05 * k as f64).collect();
    let exact = p
        .isosceles_reduced_solution(0.0, w0, &times, 10_000)
        .unwrap();
    let finer = p
        .isosceles_reduced_solution(0.0, w0, &times, 20_000)
        .unwrap();
    let energy = |th: f64, w: f64| {
        let (q, qd) = p.isosceles_state(th, w).unwrap();
        p.kinetic_energy(&q, &qd).unwrap() + p.potential_energy(&q).unwrap()
    };
    let e0 = energy(0.0, w0);
    let ref_err = exact
        .iter()
        .zip(&finer)
        .fold(0.0f64, |e, (a, b)| e.max((a.0 - b.0).abs()));
    let ref_drift = exact
        .iter()
        .fold(0.0f64, |e, &(th, w)| e.max((energy(th, w) - e0).abs()));
    // θ crosses π/2 + kπ between two outputs where ⌊(θ − π/2)/π⌋ changes
    let sheet = |th: f64| ((th - std::f64::consts::FRAC_PI_2) / std::f64::consts::PI).floor();
    let passages = exact
        .windows(2)
        .filter(|w| sheet(w[0].0) != sheet(w[1].0))
        .count();
    println!(
        "isosceles slider-crank, {motion}: θ̇(0) = {w0}, {span} s; reference: θ to {ref_err:.1e} \
         (RK4 1e-4 against 5e-5), energy to {ref_drift:.1e} J of {e0:.3} J; {passages} passages"
    );
    println!("| τ | method | integrator | outcome | slider error [m] | energy drift [J] | steps | evaluations (rank-revealing) | time [s] |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for &tau in &taus {
        for method in Method::every(BaumgarteGains::critical(10.0).unwrap()) {
            for integrator in Integrator::every() {
                let (m, i) = (method.name(), integrator.name());
                if m == "exact_stabilization" && i != "bdf" {
                    continue;
                }
                let start = Instant::now();
                let run = Simulation::new(&p, &q0, &qd0, 0.0, span)
                    .method(method.clone())
                    .integrator(integrator)
                    .error_control(ErrorControl::absolute(tau))
                    .output_times(times.clone())
                    .max_steps(400_000)
                    .passage_policy(policy)
                    .run();
                let secs = start.elapsed().as_secs_f64();
                let (tr, err) = match run {
                    Ok(tr) => (tr, None),
                    Err(ProjectionError::Failed(f)) => {
                        let e = format!("error at t = {:.2}: {}", f.t, f.source);
                        (*f.partial, Some(e))
                    }
                    Err(e) => panic!("{e}"),
                };
                let s_err = tr.q.iter().zip(&exact).fold(0.0f64, |e, (q, &(th, _))| {
                    e.max((q[2] - 2.0 * r * th.cos()).abs())
                });
                let outcome = match (&err, s_err) {
                    (Some(e), _) => e.chars().take(110).collect::<String>(),
                    (None, s) if s <= 1e-3 => "pass".into(),
                    (None, _) => "WRONG BRANCH (Ok)".into(),
                };
                let st = &tr.stats;
                println!(
                    "| {tau:.0e} | {m} | {i} | {outcome} | {s_err:.1e} | {:.1e} | {} | {} ({}) | {secs:.2} |",
                    st.energy_drift.unwrap_or(f64::NAN),
                    st.steps,
                    st.f_evals,
                    st.rank_revealing_evals
                );
            }
        }
    }
}
