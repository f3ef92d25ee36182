//! Direct and Baumgarte runs that creep toward a singular passage of MBS benchmark A02
//! (`NFourBar`, τ = 1e-9): off the constraints their field has a pole at the crossing, the
//! error test shrinks the step with the distance to it, and without the stall check the runs
//! take thousands of steps there (10⁻¹¹ s each at the end) before another guard ends them.
//! With the default `PassagePolicy::Stop` they end with `StalledPassage` within a few hundred
//! steps, at a flat configuration of the exact motion, still on the physical branch.

use std::f64::consts::FRAC_PI_2;

use contour_model::models::NFourBar;
use contour_projection::{
    BaumgarteGains, Integrator, Method, ProjectionError, PASSAGE_STALL_DEPTH,
};

use crate::singular_configurations::{b0_error, run};

/// `σ_min/σ_max` of `J` below which the stall check looks for a stall (GGL's passage band).
const BAND: f64 = 1e-2;

#[test]
fn runs_that_creep_toward_a_passage_end_with_stalled_passage_in_few_steps() {
    let baumgarte = || Method::Baumgarte(BaumgarteGains::critical(10.0).unwrap());
    // without the stall check: 17 643, 48 454, 13 963 and 20 689 steps before the rank guard
    // or the branch check ends them at the same passage
    let cases = [
        (1usize, Method::Direct, Integrator::abm()),
        (1, baumgarte(), Integrator::bdf()),
        (4, Method::Direct, Integrator::bdf()),
        (4, baumgarte(), Integrator::abm()),
    ];
    for (loops, method, integrator) in cases {
        let what = format!("n = {loops}, {} + {}", method.name(), integrator.name());
        let e = run(loops, method, integrator, 1e-9, 20.0, None).unwrap_err();
        let ProjectionError::Failed(f) = &e else {
            panic!("{what}: {e}")
        };
        let steps = f.partial.stats.steps;
        assert!(steps < 1_000, "{what}: {steps} steps: {e}");
        let ProjectionError::StalledPassage {
            t,
            h,
            sigma_ratio,
            method,
        } = f.source
        else {
            panic!("{what}: {e}")
        };
        assert!(
            t >= f.t && t < f.t + 1e-3 && h > 0.0 && h < 1e-3,
            "{what}: {e}"
        );
        assert!(
            sigma_ratio > 0.0 && sigma_ratio <= BAND / PASSAGE_STALL_DEPTH,
            "{what}: {e}"
        );
        assert!(method == "direct" || method == "baumgarte", "{what}");
        // the exact motion (the reduced solution, independent of J) is at a flat position
        // there: every bar horizontal, θ a multiple of π
        let th = NFourBar::new(loops).reduced_solution(FRAC_PI_2, -1.0, &[t], 20_000)[0].0;
        assert!(th.sin().abs() < 1e-2, "{what}: θ = {th} at t = {t}");
        // on the physical branch: B0 on the exact solution
        let b0 = b0_error(loops, &f.partial);
        assert!(b0 < 1e-6, "{what}: B0 error {b0:e}");
        let msg = e.to_string();
        assert!(
            msg.contains("projector (Method::Projector), parametrization, and perturbation with its defaults")
                && msg.contains("PassagePolicy::Continue"),
            "{msg}"
        );
    }
}
