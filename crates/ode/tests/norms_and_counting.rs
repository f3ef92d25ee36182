//! Error norms, component weights, tolerance limits and honest evaluation counts.
//!
//! * `‖e‖_max ≥ ‖e‖_rms`, so the max-norm run is at least as strict: it never needs fewer
//!   steps (up to a few from step-selection dynamics) and is at least as accurate.
//! * A zero component weight removes the component from the error test: fewer steps.
//! * Evaluation counts: ABM `2·steps + rejected + 1`; DOPRI5 `6·(steps + rejected) + 2`;
//!   RKG doubling `11·steps + 10·rejected + 1`; RKG fixed `4·steps + 1`.
//! * ABM near the precision limit: rtol = atol = 1e-14 switches on S&G's round-off control
//!   and still integrates; 1e-17 is below the floor f64 can meet and is refused before any
//!   step (`ToleranceBelowFloor`).

use contour_ode::test_models::{ExactSolution, HarmonicOscillator, Kepler};
use contour_ode::verification::global_error;
use contour_ode::*;

fn kepler<S: Advance<Kepler>>(mut s: S) -> (f64, Stats) {
    let mut p = Kepler { e: 0.5 };
    global_error(&mut s, &mut p, 2.0 * Kepler::PERIOD).unwrap()
}

#[test]
fn max_norm_is_stricter_and_weights_exclude_components() {
    let y0 = Kepler { e: 0.5 }.y0();
    let l2 = Tolerances::new(1e-8, 1e-8);
    let mx = l2.clone().with_norm(ErrorNorm::Max);
    let pos_only = l2.clone().with_weights(vec![1.0, 1.0, 0.0, 0.0]);
    let runs = [
        (
            "abm",
            kepler(AdamsBashforthMoulton::new(0.0, &y0, l2.clone(), AbmConfig::default()).unwrap()),
            kepler(AdamsBashforthMoulton::new(0.0, &y0, mx.clone(), AbmConfig::default()).unwrap()),
            kepler(
                AdamsBashforthMoulton::new(0.0, &y0, pos_only.clone(), AbmConfig::default())
                    .unwrap(),
            ),
        ),
        (
            "dopri5",
            kepler(
                DormandPrince54::new(0.0, &y0, l2.clone(), DormandPrinceConfig::default()).unwrap(),
            ),
            kepler(
                DormandPrince54::new(0.0, &y0, mx.clone(), DormandPrinceConfig::default()).unwrap(),
            ),
            kepler(
                DormandPrince54::new(0.0, &y0, pos_only.clone(), DormandPrinceConfig::default())
                    .unwrap(),
            ),
        ),
        (
            "rkg",
            kepler(
                RungeKuttaGill::new(0.0, &y0, l2.clone(), RungeKuttaGillConfig::default()).unwrap(),
            ),
            kepler(
                RungeKuttaGill::new(0.0, &y0, mx.clone(), RungeKuttaGillConfig::default()).unwrap(),
            ),
            kepler(
                RungeKuttaGill::new(0.0, &y0, pos_only.clone(), RungeKuttaGillConfig::default())
                    .unwrap(),
            ),
        ),
    ];
    for (name, a, b, c) in runs {
        println!(
            "{name}: l2 {:.2e}/{} max {:.2e}/{} pos-only {:.2e}/{}",
            a.0, a.1.steps, b.0, b.1.steps, c.0, c.1.steps
        );
        assert!(
            b.1.steps + 3 >= a.1.steps,
            "{name}: max norm took fewer steps"
        );
        assert!(b.0 <= 2.0 * a.0, "{name}: max norm less accurate");
        assert!(
            c.1.steps < a.1.steps,
            "{name}: excluding components should save steps"
        );
    }
}

#[test]
fn evaluation_counts_are_honest() {
    let y0 = Kepler { e: 0.5 }.y0();
    let tol = Tolerances::new(1e-7, 1e-7);
    let (_, s) =
        kepler(AdamsBashforthMoulton::new(0.0, &y0, tol.clone(), AbmConfig::default()).unwrap());
    assert_eq!(s.f_evals, 2 * s.steps + s.rejected_steps + 1);
    let (_, s) = kepler(
        DormandPrince54::new(0.0, &y0, tol.clone(), DormandPrinceConfig::default()).unwrap(),
    );
    assert_eq!(s.f_evals, 6 * (s.steps + s.rejected_steps) + 2);
    let (_, s) = kepler(
        RungeKuttaGill::new(0.0, &y0, tol.clone(), RungeKuttaGillConfig::default()).unwrap(),
    );
    assert!(s.rejected_steps > 0);
    assert_eq!(s.f_evals, 11 * s.steps + 10 * s.rejected_steps + 1);
    let cfg = RungeKuttaGillConfig {
        mode: GillMode::Fixed { h: 0.01 },
        ..Default::default()
    };
    let (_, s) = kepler(RungeKuttaGill::new(0.0, &y0, tol, cfg).unwrap());
    assert_eq!(s.f_evals, 4 * s.steps + 1);
}

#[test]
fn abm_near_the_precision_limit() {
    let p = HarmonicOscillator { omega: 1.0 };
    let mut f = p;
    let mut s = AdamsBashforthMoulton::new(
        0.0,
        &p.y0(),
        Tolerances::new(1e-14, 1e-14),
        AbmConfig::default(),
    )
    .unwrap();
    let (err, st) = global_error(&mut s, &mut f, 10.0).unwrap();
    println!("abm tol 1e-14: error {err:.2e}, {st:?}");
    assert!(err < 1e-11, "error {err}");
    // below the floor f64 can meet: refused before any step
    let e = AdamsBashforthMoulton::new(
        0.0,
        &p.y0(),
        Tolerances::new(1e-17, 1e-17),
        AbmConfig::default(),
    )
    .unwrap_err();
    assert!(
        matches!(e, OdeError::ToleranceBelowFloor { which: "rtol", floor, .. } if floor == 1e-14),
        "{e:?}"
    );
}
