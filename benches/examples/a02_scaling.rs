//! How the cost of MBS benchmark A02 (`NFourBar`, N four-bars in natural coordinates,
//! 2N + 2 coordinates, 2N + 1 rows) grows with N on the dense and on the sparse path
//! (`contour_projection::sparse`), and what the automatic-derivative model costs against the
//! hand-written one.
//!
//! * `a02_scaling eval [N…]` — microseconds per constrained-acceleration evaluation (Keerthi
//!   (1.1)+(1.4), regular configuration θ = 0.7) and per correction (Keerthi (2.16)–(2.17), a
//!   state moved off the manifold by ~1e-7), dense and sparse, at N = 10, 40, 100, 400 (or the
//!   N given: `eval 1 2 3 4 5`, the crossover).
//! * `a02_scaling run N dense|sparse [SPAN [hand|autodiff]]` — one run of perturbation + ABM at
//!   τ = 1e-6 from θ = π/2, θ̇ = −1 over SPAN seconds (20: A02), outputs every 0.05 s, of the
//!   hand-written (default) or the automatic-derivative model: wall time, steps,
//!   evaluations (handed to the dense rank-revealing path), sparse fallbacks (evaluations and
//!   corrections the sparse path handed to the dense rank-revealing solve), B0 error against
//!   the exact reduced solution (`NFourBar::reduced_solution`), energy drift.
//! * `a02_scaling autodiff` — the automatic-derivative model (`AutoDiff`) against the
//!   hand-written one at N = 10, 40: `M + h`, `J + ρ`, one sparse evaluation, µs.
//!
//! Build first, then time the binary alone: `cargo build -p contour-benches --example
//! a02_scaling` and `benches/measure-alone target/debug/examples/a02_scaling eval` (the dev profile
//! is opt-level 3).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use std::f64::consts::FRAC_PI_2;
use std::time::Instant;

use contour::model::autodiff::AutoDiff;
use contour::model::models::{NFourBar, NFourBarEnergies};
use contour::prelude::*;
use contour::projection::sparse::{SparseDynamics, SparseMode, SparseProjection};
use contour::projection::{ManifoldProjection, Recording};

/// Fastest mean of 5 batches of `reps` calls, in microseconds.
fn time_us(reps: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..reps {
            f();
        }
        best = best.min(t.elapsed().as_secs_f64() / reps as f64);
    }
    best * 1e6
}

/// A state near the physical branch at θ = 0.7, moved off the manifold by ~1e-7.
fn moved_state(p: &NFourBar) -> Vec<f64> {
    let (q, qd) = p.state(0.7, -3.0);
    let mut x: Vec<f64> = q.iter().chain(&qd).copied().collect();
    for (k, v) in x.iter_mut().enumerate() {
        *v += 1e-7 * ((7 * k) as f64).sin();
    }
    x
}

fn eval(sizes: &[usize]) {
    println!("| N | coordinates | accelerations dense [µs] | accelerations sparse [µs] | correction dense [µs] | correction sparse [µs] |");
    println!("|---|---|---|---|---|---|");
    for &n in sizes {
        let p = NFourBar::new(n);
        let dim = p.dof();
        let pattern = p.sparsity().unwrap();
        let dense_reps = (4_000_000 / (dim * dim * dim)).max(1);
        let sparse_reps = (400_000 / dim).max(1);
        let (q, qd) = p.state(0.7, -3.0);
        let (mut qdd, mut lam) = (vec![0.0; dim], vec![0.0; p.n_constraints()]);
        let mut d = ConstrainedDynamics::new(&p);
        let dense = time_us(dense_reps, || {
            d.accelerations(&p, 0.0, &q, &qd, &mut qdd, &mut lam)
                .unwrap()
        });
        let mut s = SparseDynamics::new(&p, &pattern).unwrap();
        let sparse = time_us(sparse_reps, || {
            assert!(s.accelerations(&p, 0.0, &q, &qd, &mut qdd).unwrap());
        });
        let ec = ErrorControl::absolute(1e-6);
        let x = moved_state(&p);
        let mut out = vec![0.0; 2 * dim];
        let mut dp = ManifoldProjection::new(&p, ec, &Default::default()).unwrap();
        let cd = time_us(dense_reps, || {
            assert!(dp.project(&p, 0.0, &x, &mut out).unwrap().converged);
        });
        let mut sp = SparseProjection::new(&p, &pattern, ec, &Default::default()).unwrap();
        let cs = time_us(sparse_reps / 4, || {
            assert!(sp.project(&p, 0.0, &x, &mut out).unwrap().converged);
        });
        println!("| {n} | {dim} | {dense:.1} | {sparse:.1} | {cd:.1} | {cs:.1} |");
    }
}

fn run(n: usize, mode: &str, span: f64, model: &str) {
    let hand = NFourBar::new(n);
    let ad = AutoDiff::new(NFourBarEnergies { loops: n });
    let p: &dyn Mechanism = match model {
        "hand" => &hand,
        "autodiff" => &ad,
        m => panic!("unknown model {m}"),
    };
    let (q0, qd0) = hand.state(FRAC_PI_2, -1.0);
    let k_end = (span / 0.05).round() as usize;
    let times: Vec<f64> = (0..=k_end).map(|k| 0.05 * k as f64).collect();
    let exact = hand.reduced_solution(FRAC_PI_2, -1.0, &times, 20_000);
    let sparse = match mode {
        "dense" => SparseMode::Dense,
        "sparse" => SparseMode::Sparse,
        m => panic!("unknown mode {m}"),
    };
    let start = Instant::now();
    let r = Simulation::new(p, &q0, &qd0, 0.0, span)
        .method(Method::Perturbation(PerturbationConfig {
            sparse,
            ..PerturbationConfig::default()
        }))
        .integrator(Integrator::abm())
        .error_control(ErrorControl::absolute(1e-6))
        .output_times(times.clone())
        .recording(Recording::OutputsOnly)
        .run();
    let secs = start.elapsed().as_secs_f64();
    let (tr, err) = match r {
        Ok(tr) => (tr, None),
        Err(ProjectionError::Failed(f)) => (
            *f.partial,
            Some(format!("error at t = {:.2}: {}", f.t, f.source)),
        ),
        Err(e) => panic!("{e}"),
    };
    let b0 = tr.q.iter().zip(&exact).fold(0.0f64, |e, (q, &(th, _))| {
        e.max((q[0] - th.cos()).hypot(q[1] - th.sin()))
    });
    let s = &tr.stats;
    println!(
        "| {n} | {model} | {mode} | {span} | {secs:.3} | {} | {} ({}) | {} | {:.1} | {b0:.1e} | {:.1e} | {} |",
        s.steps,
        s.f_evals,
        s.rank_revealing_evals,
        s.sparse_fallbacks,
        1e6 * secs / s.f_evals.max(1) as f64,
        s.energy_drift.unwrap_or(f64::NAN),
        err.unwrap_or_else(|| "ok".into())
    );
}

fn autodiff() {
    println!("| N | M + h hand [µs] | M + h autodiff [µs] | J + ρ hand [µs] | J + ρ autodiff [µs] | sparse evaluation hand [µs] | sparse evaluation autodiff [µs] | ratio |");
    println!("|---|---|---|---|---|---|---|---|");
    for n in [10usize, 40] {
        let p = NFourBar::new(n);
        let ad = AutoDiff::new(NFourBarEnergies { loops: n });
        let (dim, l) = (p.dof(), p.n_constraints());
        let (q, qd) = p.state(0.7, -3.0);
        let mut m = Mat::<f64>::zeros(dim, dim);
        let mut j = Mat::<f64>::zeros(l, dim);
        let (mut h, mut rho) = (vec![0.0; dim], vec![0.0; l]);
        let reps = 20_000 / dim;
        let mh = |mech: &dyn Mechanism, m: &mut Mat<f64>, h: &mut [f64]| {
            time_us(reps, || {
                mech.mass_matrix(&q, m.as_mut());
                mech.bias_forces(&q, &qd, h);
            })
        };
        let (mh_hand, mh_ad) = (mh(&p, &mut m, &mut h), mh(&ad, &mut m, &mut h));
        let mut jr = |mech: &dyn Mechanism| {
            time_us(reps, || {
                mech.constraint_jacobian_and_accel_bias(0.0, &q, &qd, j.as_mut(), &mut rho);
            })
        };
        let (jr_hand, jr_ad) = (jr(&p), jr(&ad));
        let mut qdd = vec![0.0; dim];
        let mut ev = |mech: &dyn Mechanism| {
            let pattern = mech.sparsity().unwrap();
            let mut s = SparseDynamics::new(mech, &pattern).unwrap();
            time_us(reps, || {
                assert!(s.accelerations(mech, 0.0, &q, &qd, &mut qdd).unwrap());
            })
        };
        let (ev_hand, ev_ad) = (ev(&p), ev(&ad));
        println!(
            "| {n} | {mh_hand:.2} | {mh_ad:.2} | {jr_hand:.2} | {jr_ad:.2} | {ev_hand:.2} | {ev_ad:.2} | {:.2} |",
            ev_ad / ev_hand
        );
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    match a.get(1).map(String::as_str) {
        Some("eval") if a.len() > 2 => eval(
            &a[2..]
                .iter()
                .map(|s| s.parse().unwrap())
                .collect::<Vec<_>>(),
        ),
        Some("eval") => eval(&[10, 40, 100, 400]),
        Some("run") => run(
            a[2].parse().unwrap(),
            &a[3],
            a.get(4).map_or(20.0, |s| s.parse().unwrap()),
            a.get(5).map_or("hand", String::as_str),
        ),
        Some("autodiff") => autodiff(),
        _ => eprintln!(
            "usage: a02_scaling eval | run N dense|sparse [SPAN [hand|autodiff]] | autodiff"
        ),
    }
}
