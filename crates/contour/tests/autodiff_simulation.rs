//! Whole simulations of the automatic-derivative witnesses agree with the hand-written models
//! to the integration tolerance: the slider-crank and the redundant four-bar, same
//! method, integrator and τ, compared at the final time.

use contour::model::autodiff::AutoDiff;
use contour::model::models::witnesses::{AdFourBar, AdSliderCrank};
use contour::model::models::{RedundantFourBar, SliderCrank};
use contour::prelude::*;

fn final_state<M: Mechanism>(m: &M, q: &[f64], qd: &[f64], method: Method) -> Vec<f64> {
    Simulation::new(m, q, qd, 0.0, 1.0)
        .method(method)
        .integrator(Integrator::dopri5())
        .error_control(ErrorControl::absolute(1e-9))
        .run()
        .unwrap()
        .x_final
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
}

#[test]
fn slider_crank_simulations_agree() {
    let sc = SliderCrank::default();
    let (q, qd) = sc.state(0.4, 2.0);
    let method = Method::Perturbation(PerturbationConfig::default());
    let hand = final_state(&sc, &q, &qd, method.clone());
    let ad = final_state(&AutoDiff::new(AdSliderCrank(sc)), &q, &qd, method);
    let d = max_diff(&hand, &ad);
    eprintln!("max |x_hand - x_autodiff| at t = 1 s: {d:e}");
    assert!(d < 1e-8, "{d:e}");
}

#[test]
fn redundant_four_bar_simulations_agree() {
    let fb = RedundantFourBar::default();
    let (q, qd) = fb.state(1.0, 0.5).unwrap();
    let method = Method::Projector(ProjectorConfig::default());
    let hand = final_state(&fb, &q, &qd, method.clone());
    let ad = final_state(&AutoDiff::new(AdFourBar(fb)), &q, &qd, method);
    let d = max_diff(&hand, &ad);
    eprintln!("max |x_hand - x_autodiff| at t = 1 s: {d:e}");
    assert!(d < 1e-8, "{d:e}");
}
