//! Cost of the automatic derivatives (`contour_model::autodiff`) against the hand-written ones,
//! on the slider-crank, the redundant four-bar and Andrews' squeezer (N = 7, L = 6): `J + ρ` (what a constraint method asks per
//! f-evaluation besides φ) and `M + h`, per call. The target is J + ρ within 3× of the
//! hand-written code. `cargo bench -p contour-benches --bench autodiff`.

use std::hint::black_box;

use contour::model::autodiff::witnesses::{AdAndrews, AdFourBar, AdSliderCrank};
use contour::model::autodiff::AutoDiff;
use contour::model::models::{AndrewsSqueezer, RedundantFourBar, SliderCrank, ANDREWS_Q0};
use contour::model::Mechanism;
use criterion::{criterion_group, criterion_main, Criterion};

fn pair<A: Mechanism, H: Mechanism>(
    c: &mut Criterion,
    name: &str,
    ad: &A,
    hand: &H,
    q: &[f64],
    qd: &[f64],
) {
    let (n, l) = (hand.dof(), hand.n_constraints());
    let mut j = faer::Mat::<f64>::zeros(l, n);
    let mut m = faer::Mat::<f64>::zeros(n, n);
    let (mut rho, mut h) = (vec![0.0; l], vec![0.0; n]);
    let mut group = c.benchmark_group(name);
    for (id, mech) in [
        ("hand", hand as &dyn Mechanism),
        ("autodiff", ad as &dyn Mechanism),
    ] {
        group.bench_function(format!("j_rho_{id}"), |b| {
            b.iter(|| {
                mech.constraint_jacobian(0.0, black_box(q), j.as_mut());
                mech.constraint_accel_bias(0.0, black_box(q), black_box(qd), &mut rho);
                black_box((j[(0, 0)], rho[0]))
            })
        });
        group.bench_function(format!("m_h_{id}"), |b| {
            b.iter(|| {
                mech.mass_matrix(black_box(q), m.as_mut());
                mech.bias_forces(black_box(q), black_box(qd), &mut h);
                black_box((m[(0, 0)], h[0]))
            })
        });
    }
    group.finish();
}

fn autodiff(c: &mut Criterion) {
    let sc = SliderCrank::default();
    let (q, qd) = sc.state(0.4, 2.0);
    pair(
        c,
        "autodiff_slider_crank",
        &AutoDiff::new(AdSliderCrank(sc)),
        &sc,
        &q,
        &qd,
    );
    let fb = RedundantFourBar::default();
    if let Some((q, qd)) = fb.state(1.0, 0.5) {
        pair(
            c,
            "autodiff_four_bar",
            &AutoDiff::new(AdFourBar(fb)),
            &fb,
            &q,
            &qd,
        );
    }
    let an = AndrewsSqueezer::default();
    let qd: Vec<f64> = (0..7).map(|i| 10.0 * (i as f64 + 1.0).sin()).collect();
    let ad = AutoDiff::new(AdAndrews(an));
    pair(c, "autodiff_andrews", &ad, &an, &ANDREWS_Q0, &qd);
}

criterion_group!(benches, autodiff);
criterion_main!(benches);
