//! Behaviours that an error in a method's coefficients breaks, each checked against an exact
//! solution rather than a count:
//!
//! * the convergence order on a non-autonomous problem, `y' = y cos t`, `y = e^{sin t}`: a
//!   stage evaluated at the wrong time (`t + h` for `t + h/2`) is invisible on the autonomous
//!   oscillator of `convergence_order.rs`, and costs at least one order here (ABM evaluates
//!   only at the step points; its error constants are checked in its unit tests);
//! * the variable-order, variable-step ABM and BDF keep the global error of the same problem
//!   within a band of the tolerance over six decades (measured: ABM 0.15 … 4.9 τ, BDF
//!   6.5 … 42 τ: DASSL's local test lets the global error grow over the 10 s);
//! * the BDF's order selection climbs on a smooth solution: at a tight tolerance most steps
//!   are taken at order ≥ 3.

use contour_ode::adams_bashforth_moulton::{AbmConfig, AdamsBashforthMoulton};
use contour_ode::dormand_prince::{DormandPrince54, DormandPrinceConfig};
use contour_ode::driver::integrate_to;
use contour_ode::norm::Tolerances;
use contour_ode::runge_kutta_gill::{GillMode, RungeKuttaGill, RungeKuttaGillConfig};
use contour_ode::stepper::Advance;
use contour_ode::{OdeRhs, RhsError};

/// `y' = y cos t`, `y(0) = 1`, exact `y = e^{sin t}`.
#[derive(Clone, Copy)]
struct CosGrowth;

impl OdeRhs for CosGrowth {
    fn dim(&self) -> usize {
        1
    }
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = y[0] * t.cos();
        Ok(())
    }
}

const T_END: f64 = 10.0;

fn exact() -> f64 {
    T_END.sin().exp()
}

fn error_of<S: Advance<CosGrowth>>(mut s: S) -> f64 {
    let sol = integrate_to(&mut s, &mut CosGrowth, T_END).unwrap();
    (sol.y[0][0] - exact()).abs()
}

/// `log₂` of the ratio of the errors at the two finest of the constant steps `T/n`.
fn order(ns: &[usize], run: impl Fn(f64) -> f64) -> (Vec<f64>, f64) {
    let errors: Vec<f64> = ns.iter().map(|&n| run(T_END / n as f64)).collect();
    let m = errors.len();
    (errors.clone(), (errors[m - 2] / errors[m - 1]).log2())
}

fn assert_order(name: &str, theory: f64, (errors, measured): (Vec<f64>, f64)) {
    println!("{name}: errors {errors:?} → order {measured:.3} (theory {theory})");
    assert!(
        (measured - theory).abs() <= 0.3,
        "{name}: measured order {measured:.3}, theory {theory} (errors {errors:?})"
    );
}

#[test]
fn runge_kutta_gill_is_fourth_order_on_a_non_autonomous_problem() {
    let run = |h: f64| {
        let cfg = RungeKuttaGillConfig {
            mode: GillMode::Fixed { h },
            ..Default::default()
        };
        error_of(RungeKuttaGill::new(0.0, &[1.0], Tolerances::new(1e-6, 1e-6), cfg).unwrap())
    };
    assert_order("RK-Gill", 4.0, order(&[50, 100, 200, 400], run));
}

#[test]
fn dormand_prince_is_fifth_order_on_a_non_autonomous_problem() {
    let run = |h: f64| {
        let cfg = DormandPrinceConfig {
            fixed_step: Some(h),
            ..Default::default()
        };
        error_of(DormandPrince54::new(0.0, &[1.0], Tolerances::new(1e-6, 1e-6), cfg).unwrap())
    };
    assert_order("DOPRI5", 5.0, order(&[50, 100, 200], run));
}

/// Global error / tolerance of the variable-order, variable-step ABM at τ = 1e-4 … 1e-10.
#[test]
fn adams_error_follows_the_tolerance() {
    let mut ratios = Vec::new();
    for p in 4..=10 {
        let tol = 10f64.powi(-p);
        let s = AdamsBashforthMoulton::new(
            0.0,
            &[1.0],
            Tolerances::new(tol, tol),
            AbmConfig::default(),
        )
        .unwrap();
        ratios.push(error_of(s) / tol);
    }
    println!("ABM error/tol at 1e-4 … 1e-10: {ratios:.3?}");
    for (i, r) in ratios.iter().enumerate() {
        assert!(
            (0.01..=10.0).contains(r),
            "ABM at 1e-{}: error/tol = {r:.3} outside [0.01, 10]",
            i + 4
        );
    }
}

/// The variable-order BDF on `OdeAsDae(y' = y cos t)` to `T`: (|error|, share of the
/// accepted steps taken at each order 1 … 5).
fn bdf_run(tol: f64) -> (f64, [f64; 6]) {
    use contour_ode::{Bdf, BdfConfig, OdeAsDae, Stepper};
    let mut s = Bdf::new(0.0, &[1.0], Tolerances::new(tol, tol), BdfConfig::default()).unwrap();
    let mut f = OdeAsDae::new(CosGrowth);
    s.set_t_stop(Some(T_END));
    let mut counts = [0usize; 6];
    while s.t() < T_END {
        s.step(&mut f).unwrap();
        counts[s.order().min(5)] += 1;
    }
    let total: usize = counts.iter().sum();
    let shares = counts.map(|c| c as f64 / total as f64);
    ((s.y()[0] - exact()).abs(), shares)
}

/// Global error / tolerance of the variable-order BDF at τ = 1e-4 … 1e-10.
#[test]
fn bdf_error_follows_the_tolerance() {
    let mut ratios = Vec::new();
    for p in 4..=10 {
        let tol = 10f64.powi(-p);
        ratios.push(bdf_run(tol).0 / tol);
    }
    println!("BDF error/tol at 1e-4 … 1e-10: {ratios:.3?}");
    for (i, r) in ratios.iter().enumerate() {
        assert!(
            (0.1..=100.0).contains(r),
            "BDF at 1e-{}: error/tol = {r:.3} outside [0.1, 100]",
            i + 4
        );
    }
}

/// On a smooth solution at a tight tolerance the order selection climbs: most steps are
/// taken at order ≥ 3 and few at order 1 (DASSL's selection lowers the order only when the
/// lower-order error terms are clearly smaller).
#[test]
fn bdf_order_climbs_on_a_smooth_solution() {
    for tol in [1e-8, 1e-10] {
        let (_, shares) = bdf_run(tol);
        println!("BDF at {tol:e}: share of steps at orders 0…5 {shares:.3?}");
        let high: f64 = shares[3..].iter().sum();
        assert!(
            high >= 0.8,
            "at {tol:e} only {high:.3} of the steps at order ≥ 3"
        );
        assert!(
            shares[1] <= 0.05,
            "at {tol:e} {:.3} of the steps at order 1",
            shares[1]
        );
    }
}

/// The scalar DOPRI5 step that the phase plane runs (`Tableau::scalar_step`) on `y' = y cos t`:
/// fifth order, so its stage times are right (the autonomous exponential of its unit test
/// cannot see them).
#[test]
fn scalar_dormand_prince_step_is_fifth_order_on_a_non_autonomous_problem() {
    use contour_ode::DORMAND_PRINCE_1980;
    let run = |h: f64| {
        let mut f = |t: f64, y: f64| -> Result<f64, ()> { Ok(y * t.cos()) };
        let n = (T_END / h).round() as usize;
        let (mut t, mut y) = (0.0, 1.0);
        let mut fy = 1.0;
        for _ in 0..n {
            let r = DORMAND_PRINCE_1980
                .scalar_step(&mut f, t, y, fy, h)
                .unwrap();
            (t, y, fy) = (t + h, r.y, r.f);
        }
        (y - exact()).abs()
    };
    assert_order("scalar DOPRI5", 5.0, order(&[50, 100, 200], run));
}
