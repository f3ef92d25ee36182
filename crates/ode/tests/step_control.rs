//! Step-size control observed from outside, for every adaptive stepper: a maximum step (from
//! the configuration and from `set_max_step`) bounds every accepted step, the proposed next
//! step is the one taken, a problem shifted far from t = 0 reaches its end time exactly, and a
//! tolerance the state's growth makes unattainable is reported as such (Shampine & Gordon,
//! block 0 of STEP: `0.5·ε < 2u‖y‖` means the tolerance is below round-off).

use contour_ode::{
    AbmConfig, AdamsBashforthMoulton, Advance, Bdf, BdfConfig, DormandPrince54,
    DormandPrinceConfig, OdeAsDae, OdeError, OdeRhs, RhsError, Stepper, Tolerances,
};

/// `y' = a·y` (decay for a < 0, growth for a > 0), two identical components.
#[derive(Clone, Copy)]
struct Linear(f64);

impl OdeRhs for Linear {
    fn dim(&self) -> usize {
        2
    }
    fn eval(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = self.0 * y[0];
        dy[1] = self.0 * y[1];
        Ok(())
    }
}

fn abm(t0: f64, y0: &[f64], tol: Tolerances, h_max: f64) -> AdamsBashforthMoulton {
    let cfg = AbmConfig {
        h_max,
        ..Default::default()
    };
    AdamsBashforthMoulton::new(t0, y0, tol, cfg).unwrap()
}

fn dopri(t0: f64, y0: &[f64], h_max: f64) -> DormandPrince54 {
    let cfg = DormandPrinceConfig {
        h_max,
        ..Default::default()
    };
    DormandPrince54::new(t0, y0, Tolerances::new(1e-6, 1e-6), cfg).unwrap()
}

fn bdf(t0: f64, y0: &[f64], h_max: f64) -> Bdf {
    let cfg = BdfConfig {
        h_max,
        ..Default::default()
    };
    Bdf::new(t0, y0, Tolerances::new(1e-6, 1e-6), cfg).unwrap()
}

/// Steps to `t_end` and returns the largest accepted step.
fn largest_step<F, S: Advance<F>>(s: &mut S, f: &mut F, t_end: f64) -> f64 {
    s.set_t_stop(Some(t_end));
    let mut largest: f64 = 0.0;
    while s.t() < t_end {
        s.step(f).unwrap();
        largest = largest.max(s.t() - s.t_prev());
    }
    largest
}

/// A slow solution (‖f₀‖ small against the tolerance) asks for steps far above 1e-3, so the
/// bound is what limits them; the first step included (S&G's starting step
/// ¼·sqrt(ε/‖f₀‖) applies only when it is below the bounded step).
#[test]
fn a_maximum_step_bounds_every_accepted_step() {
    let h_max = 1e-3;
    let y0 = [1.0, 1.0];
    let slow = Linear(-1e-3);
    let tol = Tolerances::new(1e-6, 1e-6);
    let mut f = slow;
    let got = [
        (
            "abm",
            largest_step(&mut abm(0.0, &y0, tol.clone(), h_max), &mut f, 0.05),
        ),
        (
            "dopri5",
            largest_step(&mut dopri(0.0, &y0, h_max), &mut f, 0.05),
        ),
        (
            "bdf",
            largest_step(&mut bdf(0.0, &y0, h_max), &mut OdeAsDae::new(slow), 0.05),
        ),
    ];
    for (name, largest) in got {
        assert!(
            largest <= h_max * (1.0 + 1e-12),
            "{name}: a step of {largest:e} > h_max = {h_max:e}"
        );
    }
    // The same bound set after construction, through the trait.
    let mut a = abm(0.0, &y0, tol, f64::INFINITY);
    a.set_max_step(h_max);
    let mut d = dopri(0.0, &y0, f64::INFINITY);
    d.set_max_step(h_max);
    let mut b = bdf(0.0, &y0, f64::INFINITY);
    b.set_max_step(h_max);
    let got = [
        ("abm", largest_step(&mut a, &mut f, 0.05)),
        ("dopri5", largest_step(&mut d, &mut f, 0.05)),
        ("bdf", largest_step(&mut b, &mut OdeAsDae::new(slow), 0.05)),
    ];
    for (name, largest) in got {
        assert!(
            largest <= h_max * (1.0 + 1e-12),
            "{name}: after set_max_step({h_max:e}), a step of {largest:e}"
        );
    }
}

/// Steps `s` to `t_end` after its starting step; after each step that needed no rejection
/// and met no bound, checks the size taken against `proposed` read before the step. Returns
/// the number of steps checked.
fn check_proposals<F, S: Advance<F>>(
    name: &str,
    s: &mut S,
    f: &mut F,
    t_end: f64,
    proposed: impl Fn(&S) -> f64,
) -> usize {
    s.set_t_stop(Some(t_end));
    s.step(f).unwrap(); // the starting step is chosen by the start-up rule, not proposed
    let mut checked = 0;
    while s.t() < t_end {
        let h = proposed(s);
        let rejected = s.stats().rejected_steps;
        s.step(f).unwrap();
        if s.stats().rejected_steps == rejected && s.t() < t_end {
            let taken = s.t() - s.t_prev();
            assert!(
                (taken - h).abs() <= 1e-12 * h.abs(),
                "{name}: proposed {h:e}, took {taken:e} at t = {:e}",
                s.t()
            );
            checked += 1;
        }
    }
    checked
}

/// Every adaptive stepper's proposed next step (`h_next`) is the step it takes when that
/// step needs no rejection and meets no bound.
#[test]
fn the_proposed_step_is_the_step_taken() {
    use contour_ode::{RungeKuttaGill, RungeKuttaGillConfig};
    let mut f = Linear(-1.0);
    let y0 = [1.0, 1.0];
    let tol = Tolerances::new(1e-8, 1e-8);
    let mut a = abm(0.0, &y0, tol.clone(), f64::INFINITY);
    let n_abm = check_proposals("abm", &mut a, &mut f, 30.0, |s| s.h_next());
    let mut d = dopri(0.0, &y0, f64::INFINITY);
    let n_dopri = check_proposals("dopri5", &mut d, &mut f, 30.0, |s| s.h_next());
    let mut g = RungeKuttaGill::new(0.0, &y0, tol, RungeKuttaGillConfig::default()).unwrap();
    let n_rkg = check_proposals("rkg", &mut g, &mut f, 30.0, |s| s.h_next());
    let mut b = bdf(0.0, &y0, f64::INFINITY);
    let n_bdf = check_proposals("bdf", &mut b, &mut OdeAsDae::new(f), 30.0, |s| s.h_next());
    for (name, n) in [
        ("abm", n_abm),
        ("dopri5", n_dopri),
        ("rkg", n_rkg),
        ("bdf", n_bdf),
    ] {
        assert!(n >= 10, "{name}: only {n} steps without a rejection");
    }
}

/// Far from t = 0 the round-off of t is large (4u·|t| ≈ 1e-7 at 1e8): the last step must
/// land on the end time (within that round-off, as DE's STEP does) instead of leaving a
/// remainder smaller than the smallest step allowed there. Steps bounded by `h_max = span/n`
/// make the last remainder differ from `h_max` by the round-off of t, the case that matters.
#[test]
fn a_problem_far_from_t0_reaches_its_end() {
    let mut f = Linear(-1.0);
    for t0 in [1e6, 1e7, 1e8, 3.3e8] {
        for span in [0.7, 1.0, 2.9, 5.3, 10.1] {
            for n in [0, 7, 10, 13] {
                let h_max = if n == 0 {
                    f64::INFINITY
                } else {
                    span / n as f64
                };
                reaches_its_end(&mut f, t0, span, h_max);
            }
        }
    }
}

fn reaches_its_end(f: &mut Linear, t0: f64, span: f64, h_max: f64) {
    let t_end = t0 + span;
    let y0 = [1.0, 1.0];
    for name in ["abm", "dopri5", "bdf"] {
        let result = match name {
            "abm" => {
                let mut s = abm(t0, &y0, Tolerances::new(1e-8, 1e-8), h_max);
                s.set_t_stop(Some(t_end));
                let mut r = Ok(());
                while s.t() < t_end && r.is_ok() {
                    r = s.step(f).map(|_| ());
                }
                r.map(|()| (s.t(), s.y()[0]))
            }
            "dopri5" => {
                let mut s = dopri(t0, &y0, h_max);
                s.set_t_stop(Some(t_end));
                let mut r = Ok(());
                while s.t() < t_end && r.is_ok() {
                    r = s.step(f).map(|_| ());
                }
                r.map(|()| (s.t(), s.y()[0]))
            }
            _ => {
                let mut s = bdf(t0, &y0, h_max);
                let mut g = OdeAsDae::new(*f);
                s.set_t_stop(Some(t_end));
                let mut r = Ok(());
                while s.t() < t_end && r.is_ok() {
                    r = s.step(&mut g).map(|_| ());
                }
                r.map(|()| (s.t(), s.y()[0]))
            }
        };
        let case = format!("{name} from t0 = {t0:e} over {span} (h_max {h_max:e})");
        let (t, y) = result.unwrap_or_else(|e| panic!("{case}: {e}"));
        assert_eq!(t, t_end, "{case}");
        let exact = (-(t_end - t0)).exp();
        assert!(
            (y - exact).abs() <= 1e-6,
            "{case}: y = {y:e}, exact {exact:e}"
        );
    }
}

/// A pure absolute tolerance at its floor (1e-15·|y₀|) is attainable at the start; once
/// `y' = y` has grown the state by 1e4, 2u‖y‖_w exceeds ½ and the ABM must say the tolerance
/// is too small (with the factor), not fail later on a vanishing step or return a result.
#[test]
fn a_tolerance_outgrown_by_the_state_is_reported() {
    let mut f = Linear(1.0);
    let y0 = [1.0, 1.0];
    let mut s = abm(0.0, &y0, Tolerances::new(0.0, 1e-14), f64::INFINITY);
    let t_end = 20.0;
    s.set_t_stop(Some(t_end));
    let err = loop {
        match s.step(&mut f) {
            Ok(_) if s.t() < t_end => {}
            Ok(_) => panic!("reached t = {t_end} with atol = 1e-14 and |y| = e^20"),
            Err(e) => break e,
        }
    };
    match err {
        OdeError::ToleranceTooSmall { t, factor } => {
            assert!(t > 2.0 && t < 20.0, "reported at t = {t}");
            assert!(factor > 1.0, "factor {factor}");
        }
        other => panic!("expected ToleranceTooSmall, got {other}"),
    }
}

/// A state replaced right after a restart (before any step of the new start) is a new initial
/// value: the run continues bit for bit as a fresh stepper started from it.
#[test]
fn a_replacement_before_the_first_step_is_a_new_start() {
    let mut f = Linear(-1.0);
    let tol = Tolerances::new(1e-9, 1e-9);
    let y_new = [0.75, -0.5];
    let mut replaced = abm(0.0, &[1.0, 1.0], tol.clone(), f64::INFINITY);
    replaced.set_t_stop(Some(2.0));
    while replaced.t() < 2.0 {
        replaced.step(&mut f).unwrap();
    }
    replaced.restart(&mut f, 2.0, &[1.0, 1.0]).unwrap();
    replaced.replace_y(&mut f, &y_new).unwrap();
    let before = replaced.stats().steps; // statistics are kept across a restart
    let mut fresh = abm(2.0, &y_new, tol, f64::INFINITY);
    for s in [&mut replaced, &mut fresh] {
        s.set_t_stop(Some(5.0));
        while s.t() < 5.0 {
            s.step(&mut f).unwrap();
        }
    }
    assert_eq!(replaced.y(), fresh.y());
    assert_eq!(replaced.stats().steps - before, fresh.stats().steps);
}

/// The BDF's interpolated derivative (DASSL's DDATRP) is the derivative of its interpolated
/// state: inside each step of `y' = −y` at τ = 1e-10, `dense_derivative(t)` equals
/// `−dense(t)` and the exact `−e^{−t}` to the interpolant's accuracy, at the step's ends and
/// in between (orders 1 … 5 all occur on the way).
#[test]
fn the_bdf_interpolated_derivative_is_the_derivative_of_the_state() {
    let mut f = OdeAsDae::new(Linear(-1.0));
    let cfg = BdfConfig::default();
    let mut s = Bdf::new(0.0, &[1.0, 1.0], Tolerances::new(1e-10, 1e-10), cfg).unwrap();
    s.set_t_stop(Some(3.0));
    let (mut y, mut yd) = ([0.0; 2], [0.0; 2]);
    let mut worst: f64 = 0.0;
    let mut checked = 0;
    while s.t() < 3.0 {
        s.step(&mut f).unwrap();
        let (a, b) = (s.t_prev(), s.t());
        for theta in [0.0, 0.25, 0.5, 0.9, 1.0] {
            let t = a + theta * (b - a);
            s.dense(t, &mut y).unwrap();
            s.dense_derivative(t, &mut yd).unwrap();
            let exact = -(-t).exp();
            worst = worst.max((yd[0] + y[0]).abs()).max((yd[0] - exact).abs());
            checked += 1;
        }
    }
    println!("BDF dense derivative: worst deviation {worst:e} over {checked} points");
    assert!(checked > 50);
    assert!(worst < 1e-6, "dense derivative off by {worst:e}");
}

/// A BDF history at constant step `h` needs `h > 0`: zero and negative steps are refused with
/// the argument named.
#[test]
fn a_bdf_history_needs_a_positive_step() {
    for h in [0.0, -0.1, f64::NAN] {
        let mut s = bdf(0.0, &[1.0, 1.0], f64::INFINITY);
        let (y0, y1) = ([1.0, 1.0], [1.1, 1.1]);
        match s.start_with_history(h, &[&y0, &y1]) {
            Err(OdeError::InvalidParameter { name: "h", .. }) => {}
            other => panic!("h = {h}: expected InvalidParameter for h, got {other:?}"),
        }
    }
}

/// DASSL's starting step h₀ = min(0.001·|t_end − t₀|, 0.5/‖y'₀‖): a slow solution at a loose
/// tolerance (‖y'₀‖ ≈ 0.5) starts with 0.001·span, not with the much larger 0.5/‖y'₀‖.
#[test]
fn the_bdf_starting_step_follows_dassl() {
    let mut f = OdeAsDae::new(Linear(-1e-3));
    let cfg = BdfConfig::default();
    let mut s = Bdf::new(0.0, &[1.0, 1.0], Tolerances::new(1e-3, 1e-3), cfg).unwrap();
    let span = 10.0;
    s.set_t_stop(Some(span));
    s.step(&mut f).unwrap();
    let first = s.t() - s.t_prev();
    assert_eq!(s.stats().rejected_steps, 0);
    assert!(
        first <= 0.001 * span * (1.0 + 1e-12),
        "first step {first:e} > 0.001·span"
    );
}

/// `y' = −y` as a DAE and Huang's singly-implicit RK on it, h = 0.01, with the exact `y'₀`.
fn sirk_on_decay() -> (OdeAsDae<Linear>, contour_ode::SinglyImplicitRk) {
    use contour_ode::{SinglyImplicitRk, SirkConfig};
    let cfg = SirkConfig {
        h: 0.01,
        initial_derivative: Some(vec![-1.0, -1.0]),
        ..Default::default()
    };
    let s = SinglyImplicitRk::new(0.0, &[1.0, 1.0], Tolerances::new(1e-10, 1e-10), cfg).unwrap();
    (OdeAsDae::new(Linear(-1.0)), s)
}

/// The singly-implicit RK's dense output (the quadratic through `yₙ₋₁`, `Y₁`, `yₙ`) meets the
/// step's end points exactly and the exact solution of `y' = −y` inside the step to the
/// quadratic's accuracy (h = 0.01: O(h³) ≈ 1e-6 at most).
#[test]
fn the_sirk_dense_output_interpolates_the_step() {
    let (mut f, mut s) = sirk_on_decay();
    let mut out = [0.0; 2];
    let mut worst: f64 = 0.0;
    for _ in 0..100 {
        let y_prev = s.y()[0];
        s.step(&mut f).unwrap();
        let (a, b) = (s.t_prev(), s.t());
        s.dense(a, &mut out).unwrap();
        assert!((out[0] - y_prev).abs() <= 1e-15, "dense at t_prev");
        s.dense(b, &mut out).unwrap();
        assert!((out[0] - s.y()[0]).abs() <= 1e-15, "dense at t");
        for theta in [0.2, 0.5, 0.7] {
            let t = a + theta * (b - a);
            s.dense(t, &mut out).unwrap();
            worst = worst.max((out[0] - (-t).exp()).abs());
        }
    }
    assert!(worst < 1e-6, "SIRK dense output off by {worst:e}");
}

/// The singly-implicit RK's step can be changed between steps (`set_step`): the next step has
/// the new size, and a zero, negative or non-finite size is refused with the argument named.
#[test]
fn the_sirk_step_can_be_changed_and_must_be_positive() {
    let (mut f, mut s) = sirk_on_decay();
    s.step(&mut f).unwrap();
    s.set_step(0.025).unwrap();
    s.step(&mut f).unwrap();
    assert!(
        (s.t() - s.t_prev() - 0.025).abs() <= 1e-15,
        "step {}",
        s.t() - s.t_prev()
    );
    for h in [0.0, -0.01, f64::NAN, f64::INFINITY] {
        match s.set_step(h) {
            Err(OdeError::InvalidParameter { name: "h", .. }) => {}
            other => panic!("set_step({h}): expected InvalidParameter for h, got {other:?}"),
        }
    }
}
