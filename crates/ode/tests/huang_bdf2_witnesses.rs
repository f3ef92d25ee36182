//! Huang's constant-step BDF2 (`bdf_huang.rs`) observed from outside, each behaviour checked
//! against an independent witness rather than a count snapshot:
//!
//! * the dense output is the quadratic through the last three accepted points (Huang
//!   (5.2.13)–(5.2.14), the quadratic the predictor extrapolates): it reproduces the stored
//!   points, it is exact for a quadratic solution, and its slope at `tₙ` is the BDF2 derivative
//!   `(3yₙ − 4yₙ₋₁ + yₙ₋₂)/(2h)` of (5.2.14), which satisfies the equation;
//! * `t_prev` is the start of the last accepted step (the rule of the `Stepper` trait);
//! * the secant (Broyden) corrector: on a linear problem every attempt ends within `2n + 1`
//!   iterations (Gay's theorem) at the directly solved BDF2 equation; at a double root, where
//!   it converges at a constant rate, it stops within `newton_tol` of the solution (the
//!   geometric-series bound of its convergence test); a predictor that already solves the
//!   equation is accepted after one evaluation;
//! * second order and A-stable damping on the stiff Prothero–Robinson problem;
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
    assert!(
        worst_point < 1e-14,
        "interpolant misses a stored point by {worst_point:e}"
    );
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

/// Solves `(1.5 I − h A) y = rhs` by Cramer's rule: the BDF2 equation (5.2.14) of `y' = A y`
/// at `tₙ₊₁` with `rhs = 2yₙ − yₙ₋₁/2`, the witness for the secant iteration's result.
fn bdf2_solution(a: [[f64; 2]; 2], h: f64, rhs: [f64; 2]) -> [f64; 2] {
    let m = [
        [1.5 - h * a[0][0], -h * a[0][1]],
        [-h * a[1][0], 1.5 - h * a[1][1]],
    ];
    let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    [
        (rhs[0] * m[1][1] - m[0][1] * rhs[1]) / det,
        (m[0][0] * rhs[1] - m[1][0] * rhs[0]) / det,
    ]
}

/// Broyden's method on a linear system of dimension `n` ends in at most `2n` steps (Gay 1979,
/// "Some convergence properties of Broyden's method", SIAM J. Numer. Anal. 16; Kelley 1995,
/// §7.2), one more evaluation confirming the zero update. On `y' = A(t) y` (n = 2) the
/// iteration matrix formed on the second step is stale on every later one, so the secant
/// updates do the work: every step takes at most `2n + 1 = 5` iterations without a failure
/// or a fresh matrix, and its result is the solution of its BDF2 equation, solved directly,
/// to round-off — at the default `newton_tol` as at a tight one.
#[test]
fn the_secant_iteration_ends_within_2n_steps_on_a_linear_problem() {
    let (h, t_end) = (0.05, 2.0);
    for newton_tol in [1e-10, 0.33] {
        let cfg = HuangBdf2Config {
            h,
            newton_tol,
            ..Default::default()
        };
        let mut p = AgingSpring { c: 20.0, d: 0.5 };
        let mut s = huang(0.0, &[1.0, 0.0], Tolerances::new(1e-8, 1e-8), cfg);
        let mut prev = [1.0, 0.0];
        s.step(&mut p).unwrap();
        let (mut worst, mut most) = (0.0f64, 0);
        while s.t() < t_end - 0.5 * h {
            let yn = [s.y()[0], s.y()[1]];
            let it0 = s.stats().newton_iterations;
            s.step(&mut p).unwrap();
            most = most.max(s.stats().newton_iterations - it0);
            let rhs = [2.0 * yn[0] - 0.5 * prev[0], 2.0 * yn[1] - 0.5 * prev[1]];
            let exact = bdf2_solution(p.a(s.t()), h, rhs);
            let scale = exact[0].abs().max(exact[1].abs());
            for l in 0..2 {
                worst = worst.max((s.y()[l] - exact[l]).abs() / scale);
            }
            prev = yn;
        }
        let st = s.stats();
        println!(
            "secant, newton_tol {newton_tol:e}: worst {worst:.2e}, most iterations {most}, {st:?}"
        );
        assert!(
            most <= 5,
            "a step took {most} iterations (Gay: ≤ 2n + 1 = 5)"
        );
        assert_eq!(st.newton_failures, 0, "{st:?}");
        // The matrices of the first (backward Euler) and second (BDF2) formula only.
        assert_eq!(st.jacobian_evals, 2, "{st:?}");
        assert!(worst < 1e-13, "result off the BDF2 solution by {worst:e}");
    }
}

/// Prothero–Robinson, `y' = λ(y − cos t) − sin t`, exact `y = cos t` from `y(0) = 1`.
struct ProtheroRobinson {
    lambda: f64,
}

impl DaeResidual for ProtheroRobinson {
    fn dim(&self) -> usize {
        1
    }
    fn residual(&mut self, t: f64, y: &[f64], yp: &[f64], r: &mut [f64]) -> Result<(), RhsError> {
        r[0] = yp[0] - (self.lambda * (y[0] - t.cos()) - t.sin());
        Ok(())
    }
}

fn prothero_robinson(lambda: f64, y0: f64, h: f64, steps: usize) -> Vec<f64> {
    let cfg = HuangBdf2Config {
        h,
        ..Default::default()
    };
    let mut s = huang(0.0, &[y0], Tolerances::new(1e-12, 1e-12), cfg);
    let mut p = ProtheroRobinson { lambda };
    (0..steps)
        .map(|_| {
            s.step(&mut p).unwrap();
            (s.y()[0] - s.t().cos()).abs()
        })
        .collect()
}

/// BDF2 on a stiff problem: second order at `hλ = −0.2, −0.1` (the error at t = 1 against
/// `cos t` falls by 2² when h halves), and A-stable damping of a transient at `hλ = −10⁴`:
/// the backward Euler start multiplies an initial error of 1 by `R(hλ) = 1/(1 − hλ)` (5.2.15),
/// then the roots of `(3 − 2hλ)ξ² − 4ξ + 1 = 0` (5.2.14), `|ξ| = (3 − 2hλ)^{−1/2} ≈ 0.007`,
/// remove it within a few steps; from the sixth step on the error is that of BDF2 on the
/// smooth solution, `O(h²/|λ|)` (measured 2.8e-11).
#[test]
fn huang_bdf2_is_second_order_and_damps_a_stiff_transient() {
    let e1 = prothero_robinson(-10.0, 1.0, 0.02, 50)[49];
    let e2 = prothero_robinson(-10.0, 1.0, 0.01, 100)[99];
    let order = (e1 / e2).log2();
    println!("Prothero–Robinson λ = −10: errors {e1:.3e}, {e2:.3e} → order {order:.3}");
    assert!(
        (order - 2.0).abs() < 0.2,
        "order {order:.3} ({e1:e}, {e2:e})"
    );
    let errors = prothero_robinson(-1e6, 2.0, 0.01, 100);
    let tail = errors[5..].iter().fold(0.0f64, |m, e| m.max(*e));
    println!("Prothero–Robinson λ = −10⁶ from y₀ = cos 0 + 1: first errors {:?}, worst after 5 steps {tail:.2e}", &errors[..5]);
    let r_be = 1.0 / (1.0 + 1e6 * 0.01);
    assert!(
        (errors[0] - r_be).abs() < 1e-3 * r_be,
        "backward Euler start: {:e}, R(hλ) = {r_be:e}",
        errors[0]
    );
    assert!(tail < 1e-9, "transient not damped: {tail:e}");
}

/// On `y = t²` the quadratic extrapolation (5.2.13)–(5.2.14) is the solution of the BDF2
/// equation, so the corrector's first update is at round-off and ends the iteration: from the
/// third step on, each step costs one secant iteration and one residual evaluation, and the
/// solution stays on `t²`.
#[test]
fn a_predictor_that_solves_the_equation_is_accepted_after_one_evaluation() {
    let cfg = HuangBdf2Config {
        h: 0.1,
        start: HuangStart::SinglyImplicitRk,
        initial_derivative: Some(vec![0.0]),
        ..Default::default()
    };
    let mut s = huang(0.0, &[0.0], Tolerances::new(1e-12, 1e-12), cfg);
    s.step(&mut Parabola).unwrap();
    s.step(&mut Parabola).unwrap();
    for _ in 0..30 {
        let (i0, f0) = (s.stats().newton_iterations, s.stats().f_evals);
        s.step(&mut Parabola).unwrap();
        let (di, df) = (s.stats().newton_iterations - i0, s.stats().f_evals - f0);
        assert_eq!(
            (di, df),
            (1, 1),
            "step to t = {}: {di} iterations, {df} evaluations",
            s.t()
        );
        let t = s.t();
        assert!(
            (s.y()[0] - t * t).abs() <= 1e-14 * t * t,
            "y({t}) = {}",
            s.y()[0]
        );
    }
}

/// An equation with no real solution (`y' = y²` from `y = 1` with `h = 0.6`) is reported as
/// `NoConvergence` after the two attempts of the module's rule (the matrix refreshed once),
/// and both failed attempts are counted.
#[test]
fn both_failed_attempts_of_a_step_are_counted() {
    let cfg = HuangBdf2Config {
        h: 0.6,
        ..Default::default()
    };
    let mut s = huang(0.0, &[1.0], Tolerances::new(1e-8, 1e-8), cfg);
    match s.step(&mut Square) {
        Err(OdeError::NoConvergence { .. }) => {}
        other => panic!("expected NoConvergence, got {other:?}"),
    }
    let st = s.stats();
    assert_eq!(st.factorizations, 2, "{st:?}");
    assert_eq!(st.newton_failures, 2, "{st:?}");
    assert_eq!(st.steps, 0);
}

/// The singly-implicit RK start's work is this stepper's work: after a start that fails
/// (`y' = y²`, `h = 0.6`: the stage equations have no real solution), the statistics are
/// those of the singly-implicit RK alone on the same step, its failure included; a retry
/// with a shorter step then adds the work of that step.
#[test]
fn the_work_of_a_failed_start_is_counted() {
    let tol = Tolerances::new(1e-8, 1e-8);
    let cfg = HuangBdf2Config {
        h: 0.6,
        start: HuangStart::SinglyImplicitRk,
        ..Default::default()
    };
    let mut s = huang(0.0, &[1.0], tol.clone(), cfg);
    let sirk_cfg = SirkConfig {
        h: 0.6,
        ..Default::default()
    };
    let mut alone = SinglyImplicitRk::new(0.0, &[1.0], tol, sirk_cfg).unwrap();
    for stepper in [&mut s as &mut dyn Advance<Square>, &mut alone] {
        match stepper.step(&mut Square) {
            Err(OdeError::NoConvergence { .. }) => {}
            other => panic!("expected NoConvergence, got {other:?}"),
        }
    }
    assert!(alone.stats().newton_failures >= 1, "{:?}", alone.stats());
    assert_eq!(s.stats(), alone.stats());
    for stepper in [&mut s as &mut dyn Advance<Square>, &mut alone] {
        stepper.set_t_stop(Some(0.1));
        stepper.step(&mut Square).unwrap();
    }
    assert_eq!(s.stats(), alone.stats());
}

/// `F = u·|u|` with `u = y' − cos t`: the equation of `y' = cos t` written with a double root.
/// In one dimension Broyden's update is the secant method, which at a double root converges
/// linearly: for `F = u²` it gives `uₘ₊₁ = uₘuₘ₋₁/(uₘ + uₘ₋₁)`, so the ratio `r` of
/// successive errors tends to the root of `r = 1/(1 + r)`, `r = (√5 − 1)/2 ≈ 0.618`.
struct DoubleRootCosine;

impl DaeResidual for DoubleRootCosine {
    fn dim(&self) -> usize {
        1
    }
    fn residual(&mut self, t: f64, _y: &[f64], yp: &[f64], r: &mut [f64]) -> Result<(), RhsError> {
        let u = yp[0] - t.cos();
        r[0] = u * u.abs();
        Ok(())
    }
}

/// The convergence test `ρ/(1−ρ)·‖sₘ‖ ≤ newton_tol` is the geometric-series bound of the
/// error left after an iteration that contracts at the rate `ρ`. At a double root the secant
/// iteration contracts at a constant rate (≈ 0.618, [`DoubleRootCosine`]), so the bound is the
/// remaining error itself: at every step the result's distance from the solution of its BDF2
/// equation, `y = (4yₙ − yₙ₋₁ + 2h cos tₙ₊₁)/3` (5.2.14), in the corrector's weighted norm, is
/// at most `newton_tol` — up to the lag of the measured rate, a geometric mean over the
/// iterations since the second (measured worst: 0.99·newton_tol over 29 steps, 24 iterations a
/// step; with the factor `ρ/(1+ρ)` it would be 4.2·newton_tol).
#[test]
fn the_secant_iteration_stops_within_newton_tol_of_the_solution() {
    let (h, tol, newton_tol) = (0.1, 1e-8, 0.33);
    let cfg = HuangBdf2Config {
        h,
        newton_tol,
        // At the rate 0.618 the predictor's error takes about 25 iterations to remove.
        max_iterations: 40,
        initial_derivative: Some(vec![1.0]),
        ..Default::default()
    };
    let mut s = huang(0.0, &[0.0], Tolerances::new(tol, tol), cfg);
    let mut prev = 0.0;
    s.step(&mut DoubleRootCosine).unwrap();
    let (mut worst, mut steps): (f64, usize) = (0.0, 0);
    while s.t() < 3.0 - 0.5 * h {
        let yn = s.y()[0];
        s.step(&mut DoubleRootCosine).unwrap();
        // (3y − 4yₙ + yₙ₋₁)/(2h) = cos tₙ₊₁, Huang (5.2.14).
        let solution = (4.0 * yn - prev + 2.0 * h * s.t().cos()) / 3.0;
        // The corrector's weights 1/(atol + rtol·|yₙ|), one component.
        let weighted = (s.y()[0] - solution).abs() / (tol + tol * yn.abs());
        worst = worst.max(weighted / newton_tol);
        prev = yn;
        steps += 1;
    }
    let st = s.stats();
    println!("double root: worst error {worst:.3}·newton_tol over {steps} steps, {st:?}");
    assert_eq!(st.newton_failures, 0, "{st:?}");
    assert!(
        st.newton_iterations > 10 * steps,
        "the iteration should be slow here: {st:?}"
    );
    assert!(
        worst <= 1.5,
        "a result {worst:.3}·newton_tol from its BDF2 solution"
    );
}
