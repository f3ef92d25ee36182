//! Cost of the automatic derivatives (`contour_model::autodiff`) against the hand-written ones,
//! on the slider-crank, the redundant four-bar and Andrews' squeezer (N = 7, L = 6): `J + ρ` (what a constraint method asks per
//! f-evaluation besides φ) and `M + h`, per call. The target is J + ρ within 3× of the
//! hand-written code. `cargo bench -p contour-benches --bench autodiff`; after criterion's groups
//! a summary prints, per model, the fastest-of-41-batches time of each side and the ratios
//! (`contour_benches::min_time_us`, robust on a shared machine).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use std::hint::black_box;

use contour::model::autodiff::AutoDiff;
use contour::model::models::witnesses::{AdAndrews, AdFourBar, AdSliderCrank};
use contour::model::models::{AndrewsSqueezer, RedundantFourBar, SliderCrank, ANDREWS_Q0};
use contour::model::Mechanism;
use contour_benches::min_time_us;
use criterion::{criterion_group, criterion_main, Criterion};

/// The two measured operations of `mech` at `(q, q̇)`: `J + ρ` and `M + h`.
struct Ops<'a> {
    mech: &'a dyn Mechanism,
    j: faer::Mat<f64>,
    m: faer::Mat<f64>,
    rho: Vec<f64>,
    h: Vec<f64>,
}

impl<'a> Ops<'a> {
    fn new(mech: &'a dyn Mechanism) -> Self {
        let (n, l) = (mech.dof(), mech.n_constraints());
        Self {
            mech,
            j: faer::Mat::zeros(l, n),
            m: faer::Mat::zeros(n, n),
            rho: vec![0.0; l],
            h: vec![0.0; n],
        }
    }
    fn j_rho(&mut self, q: &[f64], qd: &[f64]) -> (f64, f64) {
        self.mech
            .constraint_jacobian(0.0, black_box(q), self.j.as_mut());
        self.mech
            .constraint_accel_bias(0.0, black_box(q), black_box(qd), &mut self.rho);
        (self.j[(0, 0)], self.rho[0])
    }
    fn m_h(&mut self, q: &[f64], qd: &[f64]) -> (f64, f64) {
        self.mech.mass_matrix(black_box(q), self.m.as_mut());
        self.mech
            .bias_forces(black_box(q), black_box(qd), &mut self.h);
        (self.m[(0, 0)], self.h[0])
    }
}

/// Criterion groups for both sides, then one summary row: µs (fastest of 41 batches) and the
/// automatic/hand ratios.
fn pair(
    c: &mut Criterion,
    name: &str,
    ad: &dyn Mechanism,
    hand: &dyn Mechanism,
    q: &[f64],
    qd: &[f64],
) {
    let mut group = c.benchmark_group(name);
    for (id, mech) in [("hand", hand), ("autodiff", ad)] {
        let mut ops = Ops::new(mech);
        group.bench_function(format!("j_rho_{id}"), |b| b.iter(|| ops.j_rho(q, qd)));
        group.bench_function(format!("m_h_{id}"), |b| b.iter(|| ops.m_h(q, qd)));
    }
    group.finish();
    let (mut h, mut a) = (Ops::new(hand), Ops::new(ad));
    let jh = min_time_us(|| h.j_rho(q, qd));
    let ja = min_time_us(|| a.j_rho(q, qd));
    let mh = min_time_us(|| h.m_h(q, qd));
    let ma = min_time_us(|| a.m_h(q, qd));
    println!(
        "SUMMARY {name}: J + rho hand {jh:.3} us, automatic {ja:.3} us ({:.2}x); \
         M + h hand {mh:.3} us, automatic {ma:.3} us ({:.2}x)",
        ja / jh,
        ma / mh
    );
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
