//! GGL (exact stabilization, the index-2 DAE on the BDF) at the singular passages of MBS
//! benchmark A02 (`NFourBar`): at τ = 1e-9 the BDF's iteration matrix is numerically singular
//! near the flat position (an equilibrated pivot of order σ³, σ the relative smallest singular
//! value of `J`; module `exact_stabilization`), so the run stops at the first passage with the
//! typed `GglSingularPassage` error, on the physical branch (B0 against the exact reduced
//! solution), instead of a step-size collapse that names no cause; at τ = 1e-6 it passes.
//! GGL's multiplier form (`EcsForm::Multipliers`: least-norm multiplier updates, the
//! constrained velocities' error measured through the positions) passes the passages at
//! τ = 1e-9.

use std::f64::consts::FRAC_PI_2;

use contour_model::models::{NFourBar, SliderCrank};
use contour_ode::OdeError;
use contour_projection::{
    EcsConfig, EcsForm, ErrorControl, Integrator, Method, ProjectionError, Simulation, Trajectory,
};

use crate::singular_configurations::{b0_error, run};

/// A02 with `loops` loops by GGL on the BDF, outputs every 0.05 s.
fn ggl(loops: usize, tau: f64, t_end: f64) -> Result<Trajectory, ProjectionError> {
    let ggl = Method::ExactStabilization(EcsConfig::default());
    run(loops, ggl, Integrator::bdf(), tau, t_end, None)
}

/// N = 4, τ = 1e-9: the run ends at the first flat position (θ = 0, t ≈ 0.7175 by the
/// reduced solution) with `GglSingularPassage`, `J` there at a relative smallest singular
/// value of about 5e-4, the BDF's step collapse as its source, and the trajectory up to there
/// on the physical branch. At τ = 1e-6 the same run passes both passages of 1.5 s.
#[test]
fn ggl_stops_at_the_singular_passage_with_a_typed_error() {
    let e = ggl(4, 1e-9, 1.0).unwrap_err();
    let ProjectionError::Failed(f) = e else {
        panic!("{e}");
    };
    match f.source {
        ProjectionError::GglSingularPassage {
            t,
            sigma_ratio,
            source,
        } => {
            assert!((0.70..0.72).contains(&t), "t = {t}");
            assert!(sigma_ratio > 0.0 && sigma_ratio < 1e-2, "{sigma_ratio:e}");
            assert!(
                matches!(
                    source,
                    OdeError::StepSizeTooSmall { .. }
                        | OdeError::NoConvergence { .. }
                        | OdeError::SingularIterationMatrix { .. }
                ),
                "{source}"
            );
        }
        other => panic!("{other}"),
    }
    // the flat position by the reduced solution: cos θ = 1 between 0.715 and 0.72 s
    let th = NFourBar::new(4).reduced_solution(FRAC_PI_2, -1.0, &[0.715, 0.72], 20_000);
    assert!(th[0].0 > 0.0 && th[1].0 < 0.0, "{th:?}");
    let b0 = b0_error(4, &f.partial);
    assert!(f.partial.times.len() >= 14 && b0 < 1e-6, "{b0:e}");

    let tr = ggl(4, 1e-6, 1.5).unwrap();
    let b0 = b0_error(4, &tr);
    assert!(b0 < 1e-3, "{b0:e}");
}

/// The multiplier form at τ = 1e-9: A02 with N = 1 and 4 loops over 20 s (every flat position
/// of about seven turns), B0 within 2e-5 of the exact reduced solution at the 401 outputs and
/// `φ` held to 1e-9 at every accepted step (no constraint row is left unenforced at the
/// passages); the isosceles slider-crank (one lost row of two at θ = ±π/2) from rest and
/// from w0 = 12 over 10 s, the slider within 1e-5 of its reduced solution.
#[test]
fn the_multiplier_form_passes_the_singular_passages_at_tight_tolerance() {
    let mult = Method::ExactStabilization(EcsConfig {
        form: EcsForm::Multipliers,
    });
    for loops in [1, 4] {
        let tr = run(loops, mult.clone(), Integrator::bdf(), 1e-9, 20.0, None).unwrap();
        assert_eq!(tr.times.len(), 401);
        let b0 = b0_error(loops, &tr);
        assert!(b0 < 2e-5, "N = {loops}: B0 {b0:e}");
        assert!(
            tr.stats.max_phi < 1e-9,
            "N = {loops}: {:e}",
            tr.stats.max_phi
        );
    }
    let p = SliderCrank {
        crank_length: 0.2,
        rod_length: 0.2,
        torque: 0.0,
        ..Default::default()
    };
    let times: Vec<f64> = (0..=200).map(|k| 0.05 * k as f64).collect();
    for w0 in [0.0, 12.0] {
        let (q0, qd0) = p.isosceles_state(0.0, w0).unwrap();
        let tr = Simulation::new(&p, &q0, &qd0, 0.0, 10.0)
            .method(mult.clone())
            .integrator(Integrator::bdf())
            .error_control(ErrorControl::absolute(1e-9))
            .output_times(times.clone())
            .run()
            .unwrap();
        let exact = p
            .isosceles_reduced_solution(0.0, w0, &times, 10_000)
            .unwrap();
        let e = tr.q.iter().zip(&exact).fold(0.0f64, |e, (q, &(th, _))| {
            e.max((q[2] - 2.0 * p.crank_length * th.cos()).abs())
        });
        assert_eq!(tr.times.len(), 201);
        assert!(e < 1e-5, "w0 = {w0}: slider {e:e}");
    }
}
