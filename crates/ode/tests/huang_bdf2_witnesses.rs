//! Huang's constant-step BDF2 (`bdf_huang.rs`) observed from outside, each behaviour checked
//! against an independent witness rather than a count snapshot:
//!
//! * the dense output is the quadratic through the last three accepted points (Huang
//!   (5.2.13)–(5.2.14), the same quadratic the predictor extrapolates): it reproduces the stored
//!   points, it is exact for a quadratic solution, and its slope at `tₙ` is the BDF2 derivative
//!   `(3yₙ − 4yₙ₋₁ + yₙ₋₂)/(2h)` of (5.2.14), which satisfies the equation;
//! * `t_prev` is the start of the last accepted step (the rule of the `Stepper` trait);
//! * the secant (Broyden) corrector on a linear problem: Gay's theorem (Broyden's method ends
//!   on a linear system of dimension `n` in at most `2n` steps) bounds every attempt, the
//!   result is the solution of the BDF2 equation computed directly, and the converged iterate
//!   is within `newton_tol` of it;
//! * a predictor that already solves the equation is accepted after one evaluation;
//! * failed corrector attempts, the starter's included, are counted in the statistics.

use contour_ode::{
    Advance, DaeResidual, HuangBdf2, HuangBdf2Config, HuangStart, OdeError, RhsError,
    SinglyImplicitRk, SirkConfig, Stepper, Tolerances,
};

/// `y' = −y`, two identical components (a smooth, non-polynomial solution `e^{−t}`).
struct Decay;

impl DaeResidual for Decay {
    fn dim(&self) -> usize {
        2
    }
    fn residual(&mut self, _t: f64, y: &[f64], yp: &[f64], r: &mut [f64]) -> Result<(), RhsError> {
        r[0] = yp[0] + y[0];
        r[1] = yp[1] + y[1];
        Ok(())
    }
}

/// `y' = 2t`, `y(0) = 0`: the quadratic `y = t²`, which BDF2 and its quadratic extrapolation
/// reproduce exactly.
struct Parabola;

impl DaeResidual for Parabola {
    fn dim(&self) -> usize {
        1
    }
    fn residual(&mut self, t: f64, _y: &[f64], yp: &[f64], r: &mut [f64]) -> Result<(), RhsError> {
        r[0] = yp[0] - 2.0 * t;
        Ok(())
    }
}

/// `y' = A(t) y` with `A(t) = [[0, 1], [−(1 + c t), −d]]`: linear, time-varying, so the
/// iteration matrix formed at one step is stale at the next and the secant updates do the
/// work.
struct AgingSpring {
    c: f64,
    d: f64,
}

impl AgingSpring {
    fn a(&self, t: f64) -> [[f64; 2]; 2] {
        [[0.0, 1.0], [-(1.0 + self.c * t), -self.d]]
    }
}

impl DaeResidual for AgingSpring {
    fn dim(&self) -> usize {
        2
    }
    fn residual(&mut self, t: f64, y: &[f64], yp: &[f64], r: &mut [f64]) -> Result<(), RhsError> {
        let a = self.a(t);
        r[0] = yp[0] - (a[0][0] * y[0] + a[0][1] * y[1]);
        r[1] = yp[1] - (a[1][0] * y[0] + a[1][1] * y[1]);
        Ok(())
    }
}

/// `y' = y²`, `y(0) = 1`: at `h = 0.6` neither the backward Euler equation
/// `y − 1 = 0.6 y²` nor the singly-implicit RK stage equations have a real solution.
struct Square;

impl DaeResidual for Square {
    fn dim(&self) -> usize {
        1
    }
    fn residual(&mut self, _t: f64, y: &[f64], yp: &[f64], r: &mut [f64]) -> Result<(), RhsError> {
        r[0] = yp[0] - y[0] * y[0];
        Ok(())
    }
}

fn huang(t0: f64, y0: &[f64], tol: Tolerances, cfg: HuangBdf2Config) -> HuangBdf2 {
    HuangBdf2::new(t0, y0, tol, cfg).unwrap()
}

/// The dense output after every step reproduces the stored points `yₙ`, `yₙ₋₁`, `yₙ₋₂` at
/// their times (a quadratic through them, linear after the first step), and its slope at `tₙ`
/// (a central difference, exact for a quadratic) is the BDF2 derivative of (5.2.14), so it
/// satisfies `y' = −y` at `(tₙ, yₙ)` to the corrector's accuracy.
#[test]
fn the_huang_dense_output_interpolates_the_last_three_points() {
    let h = 0.1;
    let t0 = 0.5;
    let cfg = HuangBdf2Config {
        h,
        newton_tol: 1e-3,
        ..Default::default()
    };
    let mut s = huang(t0, &[1.0, 2.0], Tolerances::new(1e-10, 1e-10), cfg);
    let mut past: Vec<(f64, [f64; 2])> = vec![(t0, [1.0, 2.0])];
    let mut out = [0.0; 2];
    let (mut worst_point, mut worst_slope): (f64, f64) = (0.0, 0.0);
    for _ in 0..20 {
        s.step(&mut Decay).unwrap();
        past.push((s.t(), [s.y()[0], s.y()[1]]));
        // The points the interpolant passes through: two after the first step, then three.
        let k = past.len();
        for &(tp, yp) in &past[k.saturating_sub(3)..] {
            s.dense(tp, &mut out).unwrap();
            for l in 0..2 {
                worst_point = worst_point.max((out[l] - yp[l]).abs() / yp[l].abs());
            }
        }
        if k >= 3 {
            // Slope at tₙ: (p(tₙ + h/2) − p(tₙ − h/2))/h, exact for the quadratic p.
            let (mut up, mut down) = ([0.0; 2], [0.0; 2]);
            s.dense(s.t() + 0.5 * h, &mut up).unwrap();
            s.dense(s.t() - 0.5 * h, &mut down).unwrap();
            for l in 0..2 {
                let slope = (up[l] - down[l]) / h;
                // (5.2.14): y'ₙ = (3yₙ − 4yₙ₋₁ + yₙ₋₂)/(2h).
                let bdf2 = (3.0 * past[k - 1].1[l] - 4.0 * past[k - 2].1[l] + past[k - 3].1[l])
                    / (2.0 * h);
                let scale = past[k - 1].1[l].abs();
                worst_slope = worst_slope
                    .max((slope - bdf2).abs() / scale)
                    .max((slope + past[k - 1].1[l]).abs() / scale);
            }
        }
    }
    println!("dense: worst point {worst_point:.2e}, worst slope {worst_slope:.2e}");
    assert!(worst_point < 1e-14, "interpolant misses a stored point by {worst_point:e}");
    assert!(worst_slope < 1e-8, "slope at tₙ off by {worst_slope:e}");
}

/// On `y = t²` (exact for BDF2 and its quadratic extrapolation; the third-order SIRK start is
/// exact for it too) the dense output between and beyond the steps is `t²`.
#[test]
fn the_huang_dense_output_is_exact_for_a_quadratic_solution() {
    let h = 0.1;
    let cfg = HuangBdf2Config {
        h,
        start: HuangStart::SinglyImplicitRk,
        initial_derivative: Some(vec![0.0]),
        ..Default::default()
    };
    let mut s = huang(0.0, &[0.0], Tolerances::new(1e-12, 1e-12), cfg);
    let mut out = [0.0];
    let mut worst: f64 = 0.0;
    s.step(&mut Parabola).unwrap();
    for _ in 0..20 {
        // From the second step on the interpolant is the quadratic through three points.
        s.step(&mut Parabola).unwrap();
        let (a, b) = (s.t_prev(), s.t());
        for theta in [-1.5, -1.0, -0.5, -0.25, 0.0, 0.3, 0.5, 0.9, 1.0, 1.2] {
            let t = a + theta * (b - a);
            s.dense(t, &mut out).unwrap();
            worst = worst.max((out[0] - t * t).abs());
        }
    }
    println!("dense on t²: worst deviation {worst:.2e}");
    assert!(worst < 1e-12, "dense output off t² by {worst:e}");
}

/// `t_prev` is the start of the last accepted step (`t0` before the first step), the
/// `t_prev` the step reports, and `t − h`; after a restart it is the restart time.
#[test]
fn huang_t_prev_is_the_start_of_the_last_step() {
    let t0 = 3.0;
    let h = 0.25;
    let cfg = HuangBdf2Config {
        h,
        ..Default::default()
    };
    let mut s = huang(t0, &[1.0, 1.0], Tolerances::new(1e-8, 1e-8), cfg);
    assert_eq!(s.t_prev(), t0);
    for _ in 0..6 {
        let before = s.t();
        let info = s.step(&mut Decay).unwrap();
        assert_eq!(s.t_prev(), before);
        assert_eq!(info.t_prev, before);
        assert_eq!(s.t() - s.t_prev(), s.h());
    }
    let y = [s.y()[0], s.y()[1]];
    s.restart(&mut Decay, 7.0, &y).unwrap();
    assert_eq!(s.t_prev(), 7.0);
}
