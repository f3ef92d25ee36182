//! Physical facts of a simulated pendulum, integrated here with a classical
//! RK4 on `(q, q̇)` driven by `ConstrainedDynamics` (the integrators proper live
//! in `contour-ode`): the small-amplitude period and energy conservation, with
//! and without Baumgarte stabilization.

use contour_model::models::Pendulum;
use contour_model::{
    constraint_residuals, Baumgarte, ConstrainedDynamics, DynamicsOptions, Mechanism,
};

fn rk4(p: &Pendulum, d: &mut ConstrainedDynamics, y: &mut [f64; 4], h: f64) {
    let mut f = |y: &[f64; 4]| {
        let (mut qdd, mut lambda) = ([0.0; 2], [0.0; 1]);
        d.accelerations(p, 0.0, &y[..2], &y[2..], &mut qdd, &mut lambda)
            .unwrap();
        [y[2], y[3], qdd[0], qdd[1]]
    };
    let k1 = f(y);
    let k2 = f(&std::array::from_fn(|i| y[i] + 0.5 * h * k1[i]));
    let k3 = f(&std::array::from_fn(|i| y[i] + 0.5 * h * k2[i]));
    let k4 = f(&std::array::from_fn(|i| y[i] + h * k3[i]));
    for i in 0..4 {
        y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }
}

/// Time of the first upward zero crossing of x after start, by linear interpolation.
fn period(p: &Pendulum, options: DynamicsOptions, theta0: f64) -> (f64, f64, f64) {
    let mut d = ConstrainedDynamics::with_options(p, options).unwrap();
    let (q, qd) = p.state(theta0, 0.0);
    let mut y = [q[0], q[1], qd[0], qd[1]];
    let energy = |y: &[f64; 4]| {
        p.kinetic_energy(&y[..2], &y[2..]).unwrap() + p.potential_energy(&y[..2]).unwrap()
    };
    let e0 = energy(&y);
    let h = 1e-3;
    let mut t = 0.0;
    let mut crossings = 0;
    loop {
        let x_old = y[0];
        rk4(p, &mut d, &mut y, h);
        t += h;
        // x starts at ℓ sin θ0 > 0: the second sign change of x is at 3T/4
        if (x_old < 0.0) != (y[0] < 0.0) {
            crossings += 1;
            if crossings == 2 {
                let tc = t - h * y[0] / (y[0] - x_old);
                let (phi, _) = constraint_residuals(p, t, &y[..2], &y[2..]).unwrap();
                return (tc, (energy(&y) - e0).abs() / e0.abs(), phi);
            }
        }
    }
}

#[test]
fn small_oscillations_have_the_textbook_period_and_conserve_energy() {
    let p = Pendulum {
        length: 0.8,
        mass: 1.3,
        gravity: 9.81,
    };
    let theta0 = 0.05;
    // T ≈ 2π √(ℓ/g) (1 + θ0²/16); the second zero crossing of x is at 3T/4
    let t_lin =
        2.0 * std::f64::consts::PI * (p.length / p.gravity).sqrt() * (1.0 + theta0 * theta0 / 16.0);
    for options in [
        DynamicsOptions::default(),
        DynamicsOptions {
            baumgarte: Some(Baumgarte::critical(5.0)),
            ..Default::default()
        },
    ] {
        let (tc, de, phi) = period(&p, options, theta0);
        let t_est = tc * 4.0 / 3.0;
        // measured: relative deviation 2.2e-8 = the next series term 11θ0⁴/3072
        assert!((t_est - t_lin).abs() < 1e-7 * t_lin, "{t_est} vs {t_lin}");
        // measured: 3e-15 (plain), 2e-14 (Baumgarte)
        assert!(de < 1e-12, "relative energy error {de:e}");
        assert!(phi < 1e-12, "constraint residual {phi:e}");
    }
}
