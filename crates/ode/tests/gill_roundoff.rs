//! Gill's round-off compensation (Huang (5.3.3), γ carried from step to step): integrating
//! y₀' = 1, y₁' = y₀ with h = 0.001 (not a binary fraction) for 10⁶ steps, the compensated
//! method keeps y₀ = t to the last bit while the uncompensated one (γ₀ = 0 every step) drifts
//! by ~1e-8. Runge–Kutta is exact for this polynomial solution, so all error is round-off.

use contour_ode::*;

fn run(compensate: bool) -> (f64, f64) {
    let mut f = FnRhs::new(2, |_t, y: &[f64], dy: &mut [f64]| {
        dy[0] = 1.0;
        dy[1] = y[0];
    });
    let h = 0.001;
    let mut s = RungeKuttaGill::new(
        0.0,
        &[0.0, 0.0],
        Tolerances::new(1e-6, 1e-6),
        RungeKuttaGillConfig {
            mode: GillMode::Fixed { h },
            compensate,
            ..Default::default()
        },
    )
    .unwrap();
    let n = 1_000_000u64;
    for _ in 0..n {
        s.step(&mut f).unwrap();
    }
    let t = n as f64 * h;
    assert_eq!(s.t(), t);
    ((s.y()[0] - t).abs(), (s.y()[1] - 0.5 * t * t).abs())
}

#[test]
fn compensation_removes_accumulated_roundoff() {
    let (c0, c1) = run(true);
    let (u0, u1) = run(false);
    println!("compensated: {c0:.2e} {c1:.2e}; uncompensated: {u0:.2e} {u1:.2e}");
    // 1000·u ≈ 2.3e-13 is one ulp of y₀ = 1000.
    assert!(
        c0 <= 4.0 * 1000.0 * f64::EPSILON,
        "compensated y0 error {c0}"
    );
    assert!(u0 > 100.0 * c0.max(1000.0 * f64::EPSILON));
    assert!(c1 < 1e-3 * u1, "compensated {c1} vs uncompensated {u1}");
}
