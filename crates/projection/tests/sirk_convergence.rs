//! [`Integrator::Sirk`] through [`Simulation`]: on the Cartesian pendulum (ℓ = 1, released at
//! 1 rad) with the direct method, the error of `q` at t = 1 s against a DOPRI5 reference at
//! τ = 1e-12 falls by 2³ per halving of the constant step (Huang's SIRK is of order 3).

use contour_model::models::Pendulum;
use contour_ode::SirkConfig;
use contour_projection::{ErrorControl, Integrator, Method, Simulation, Trajectory};

fn run(integrator: Integrator, tau: f64) -> Trajectory {
    let p = Pendulum::default();
    let (q, qd) = p.state(1.0, 0.0);
    Simulation::new(&p, &q, &qd, 0.0, 1.0)
        .method(Method::Direct)
        .integrator(integrator)
        .error_control(ErrorControl::absolute(tau))
        .output_times(vec![1.0])
        .run()
        .unwrap()
}

#[test]
fn sirk_is_third_order_through_the_simulation() {
    let reference = run(Integrator::dopri5(), 1e-12);
    let q_ref = reference.q.last().unwrap().to_vec();
    let err = |h: f64| {
        let tr = run(
            Integrator::Sirk(SirkConfig {
                h,
                ..SirkConfig::default()
            }),
            1e-10,
        );
        assert_eq!(tr.integrator, "sirk");
        // constant step: 1/h steps, no rejection
        assert_eq!(tr.stats.steps, (1.0 / h).round() as usize);
        let q = tr.q.last().unwrap();
        q.iter()
            .zip(&q_ref)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    let e = [err(0.02), err(0.01), err(0.005)];
    for w in e.windows(2) {
        let p = (w[0] / w[1]).log2();
        assert!((p - 3.0).abs() < 0.35, "observed order {p:.3} from {e:?}");
    }
    // and it converges to the reference (error constant e/h³ ≈ 14 on this pendulum)
    assert!(e[2] < 1e-5, "{e:?}");
}
