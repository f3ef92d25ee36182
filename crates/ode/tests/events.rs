//! Event location: a falling body hits y = 0 at the exact time t* = (v₀ + sqrt(v₀² + 2gh₀))/g;
//! the located time must be within 1e-10 for every method. A bouncing ball (restart with the
//! velocity reversed and scaled by e) checks the restart path against the exact second impact.

use contour_ode::test_models::{ExactSolution, FallingBody};
use contour_ode::*;

fn methods(
    t0: f64,
    y0: &[f64],
    tol: Tolerances,
) -> (AdamsBashforthMoulton, DormandPrince54, RungeKuttaGill) {
    (
        AdamsBashforthMoulton::new(t0, y0, tol.clone(), AbmConfig::default()).unwrap(),
        DormandPrince54::new(t0, y0, tol.clone(), DormandPrinceConfig::default()).unwrap(),
        RungeKuttaGill::new(t0, y0, tol, RungeKuttaGillConfig::default()).unwrap(),
    )
}

fn impact<S: Advance<FallingBody>>(name: &str, mut s: S, body: FallingBody) {
    let mut f = body;
    let mut ground = FnEvent::new(|_t, y: &[f64]| y[0]).with_direction(Direction::Falling);
    let sol = integrate(
        &mut s,
        &mut f,
        10.0,
        &[],
        &mut [&mut ground],
        &DriverOptions::default(),
    )
    .unwrap();
    assert_eq!(sol.termination, Termination::StoppedByEvent(0));
    assert_eq!(sol.events.len(), 1);
    let ev = &sol.events[0];
    let err = (ev.t - body.impact_time()).abs();
    println!(
        "{name}: t_event = {:.15}, error {err:.2e}, steps {}",
        ev.t, sol.stats.steps
    );
    assert!(err <= 1e-10, "{name}: event time error {err}");
    assert_eq!(ev.direction, Direction::Falling);
    assert!(ev.y[0].abs() < 1e-9);
    assert!((ev.y[1] - (body.v0 - body.g * ev.t)).abs() < 1e-8);
    assert_eq!(*sol.t.last().unwrap(), ev.t);
}

#[test]
fn falling_body_impact_time() {
    let body = FallingBody {
        g: 9.81,
        h0: 10.0,
        v0: 1.0,
    };
    let (a, d, r) = methods(0.0, &body.y0(), Tolerances::new(1e-10, 1e-10));
    impact("abm", a, body);
    impact("dopri5", d, body);
    impact("rkg", r, body);
}

/// Restitution: at each impact v ← −e·v and the state is restarted on the ground.
struct Bounce {
    e: f64,
}

impl EventFunction for Bounce {
    fn g(&mut self, _t: f64, y: &[f64]) -> f64 {
        y[0]
    }
    fn direction(&self) -> Direction {
        Direction::Falling
    }
    fn on_event(&mut self, _t: f64, y: &mut [f64]) -> EventAction {
        y[0] = 0.0;
        y[1] *= -self.e;
        EventAction::Restart
    }
}

fn bounce<S: Advance<FallingBody>>(name: &str, mut s: S) {
    let body = FallingBody {
        g: 9.81,
        h0: 10.0,
        v0: 0.0,
    };
    let mut f = body;
    let e = 0.8;
    let t1 = body.impact_time();
    let v1 = body.g * t1;
    // Between impacts the flight time is 2·v/g, the velocity shrinks by e each time.
    let t2 = t1 + 2.0 * e * v1 / body.g;
    let t3 = t2 + 2.0 * e * e * v1 / body.g;
    let mut b = Bounce { e };
    let sol = integrate(
        &mut s,
        &mut f,
        t3 + 0.1,
        &[t3 + 0.1],
        &mut [&mut b],
        &DriverOptions::default(),
    )
    .unwrap();
    assert_eq!(sol.termination, Termination::Reached);
    assert_eq!(
        sol.events.len(),
        3,
        "{name}: {:?}",
        sol.events.iter().map(|e| e.t).collect::<Vec<_>>()
    );
    for (ev, exact) in sol.events.iter().zip([t1, t2, t3]) {
        assert!((ev.t - exact).abs() < 1e-9, "{name}: {} vs {exact}", ev.t);
    }
    assert_eq!(sol.stats.events, 3);
    // Height after the third bounce: exact parabola from the ground with v = e³ v1.
    let v3 = e * e * e * v1;
    let dt = 0.1;
    let h = v3 * dt - 0.5 * body.g * dt * dt;
    assert!(
        (sol.y[0][0] - h).abs() < 1e-8,
        "{name}: {} vs {h}",
        sol.y[0][0]
    );
}

#[test]
fn bouncing_ball_restarts() {
    let body = FallingBody {
        g: 9.81,
        h0: 10.0,
        v0: 0.0,
    };
    let (a, d, r) = methods(0.0, &body.y0(), Tolerances::new(1e-10, 1e-10));
    bounce("abm", a);
    bounce("dopri5", d);
    bounce("rkg", r);
}

#[test]
fn outputs_at_requested_times_follow_the_exact_solution() {
    let p = contour_ode::test_models::Kepler { e: 0.5 };
    let t_out: Vec<f64> = (0..=20).map(|i| 0.3 * i as f64).collect();
    let (a, d, r) = methods(0.0, &p.y0(), Tolerances::new(1e-11, 1e-11));
    fn check<S: Advance<contour_ode::test_models::Kepler>>(
        name: &str,
        mut s: S,
        t_out: &[f64],
        tol: f64,
    ) {
        let mut p = contour_ode::test_models::Kepler { e: 0.5 };
        let sol = integrate(
            &mut s,
            &mut p,
            6.0,
            t_out,
            &mut [],
            &DriverOptions::default(),
        )
        .unwrap();
        assert_eq!(sol.t, t_out);
        let mut ex = [0.0; 4];
        for (t, y) in sol.t.iter().zip(&sol.y) {
            p.exact(*t, &mut ex);
            let err = contour_ode::test_models::max_abs_diff(y, &ex);
            assert!(err < tol, "{name}: t = {t}, error {err}");
        }
    }
    check("abm", a, &t_out, 1e-8);
    check("dopri5", d, &t_out, 1e-8);
    check("rkg", r, &t_out, 1e-7);
}
