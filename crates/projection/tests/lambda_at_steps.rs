//! λ after every accepted step, not only at the output times (`Simulation::lambda_at_steps`):
//! one row per step, equal to the output λ where outputs are the steps, and equal to the
//! pendulum's closed-form tension at the final step.

use contour_model::models::Pendulum;
use contour_projection::{ErrorControl, Integrator, Method, PerturbationConfig, Simulation};

#[test]
fn lambda_is_recorded_at_every_accepted_step() {
    let p = Pendulum::default();
    let (q, qd) = p.state(0.8, 0.0);
    let run = |outputs: Vec<f64>, at_steps: bool| {
        Simulation::new(&p, &q, &qd, 0.0, 2.0)
            .method(Method::Perturbation(PerturbationConfig::default()))
            .integrator(Integrator::dopri5())
            .error_control(ErrorControl::absolute(1e-9))
            .output_times(outputs)
            .lambda_at_steps(at_steps)
            .run()
            .unwrap()
    };
    // outputs at three times only: still one λ row per accepted step
    let tr = run(vec![0.5, 1.0, 2.0], true);
    assert_eq!(tr.lambda.len(), 3);
    assert_eq!(tr.step_lambda.len(), tr.step_times.len());
    assert!(tr.step_lambda.len() > 20, "{}", tr.step_lambda.len());
    // at the last step (t = 2, also an output) both agree, and equal m (g y − |q̇|²) / (2 l²)
    let (last_out, last_step) = (&tr.lambda[2], tr.step_lambda.last().unwrap());
    assert!((last_out[0] - last_step[0]).abs() <= 1e-12 * last_out[0].abs());
    let (x, v) = tr.x_final.split_at(2);
    let tension =
        p.mass * (p.gravity * x[1] - (v[0] * v[0] + v[1] * v[1])) / (2.0 * p.length * p.length);
    assert!(
        (last_step[0] - tension).abs() <= 1e-10 * tension.abs(),
        "{last_step:?} vs {tension}"
    );
    // off by default
    assert!(run(vec![1.0], false).step_lambda.is_empty());
}
