//! Bad input returns typed errors: non-finite y0, tolerances ≤ 0, wrong dimensions, a failing
//! right-hand side, and step-size underflow on y' = y² (blow-up at t = 1) → StepSizeTooSmall
//! with t close to 1.

use contour_ode::test_models::BlowUp;
use contour_ode::*;

#[test]
fn non_finite_initial_state() {
    let tol = Tolerances::new(1e-6, 1e-6);
    let y0 = [1.0, f64::NAN];
    let want = OdeError::NonFinite {
        what: Quantity::InitialState,
        index: 1,
    };
    assert_eq!(
        AdamsBashforthMoulton::new(0.0, &y0, tol.clone(), AbmConfig::default()).unwrap_err(),
        want
    );
    assert_eq!(
        DormandPrince54::new(0.0, &y0, tol.clone(), DormandPrinceConfig::default()).unwrap_err(),
        want
    );
    assert_eq!(
        RungeKuttaGill::new(0.0, &[f64::INFINITY], tol, RungeKuttaGillConfig::default())
            .unwrap_err(),
        OdeError::NonFinite {
            what: Quantity::InitialState,
            index: 0
        }
    );
}

#[test]
fn non_positive_tolerances() {
    for tol in [
        Tolerances::new(-1e-6, 1e-6),
        Tolerances::new(0.0, 0.0),
        Tolerances::new(1e-6, -1.0),
        Tolerances::new(f64::NAN, 1e-6),
    ] {
        assert!(matches!(
            AdamsBashforthMoulton::new(0.0, &[1.0], tol.clone(), AbmConfig::default()),
            Err(OdeError::InvalidTolerance { .. })
        ));
        assert!(matches!(
            DormandPrince54::new(0.0, &[1.0], tol.clone(), DormandPrinceConfig::default()),
            Err(OdeError::InvalidTolerance { .. })
        ));
        assert!(matches!(
            RungeKuttaGill::new(0.0, &[1.0], tol, RungeKuttaGillConfig::default()),
            Err(OdeError::InvalidTolerance { .. })
        ));
    }
}

#[test]
fn dimension_mismatch_and_rhs_failure() {
    let tol = Tolerances::new(1e-6, 1e-6);
    let mut f3 = FnRhs::new(3, |_t, _y: &[f64], dy: &mut [f64]| dy.fill(0.0));
    let mut s = DormandPrince54::new(
        0.0,
        &[1.0, 2.0],
        tol.clone(),
        DormandPrinceConfig::default(),
    )
    .unwrap();
    assert_eq!(
        s.step(&mut f3).unwrap_err(),
        OdeError::DimensionMismatch {
            expected: 2,
            got: 3
        }
    );
    let mut failing = TryFnRhs::new(1, |t, y: &[f64], dy: &mut [f64]| {
        if t > 0.5 {
            return Err(RhsError::SingularMatrix);
        }
        dy[0] = -y[0];
        Ok(())
    });
    let mut s = AdamsBashforthMoulton::new(0.0, &[1.0], tol, AbmConfig::default()).unwrap();
    let err = integrate(
        &mut s,
        &mut failing,
        1.0,
        &[],
        &mut [],
        &DriverOptions::default(),
    )
    .unwrap_err();
    match err {
        OdeError::RhsFailed { t, source } => {
            assert!(t > 0.5 && t <= 1.0);
            assert_eq!(source, RhsError::SingularMatrix);
        }
        e => panic!("unexpected {e:?}"),
    }
    assert!(matches!(
        integrate(
            &mut s,
            &mut failing,
            -1.0,
            &[],
            &mut [],
            &DriverOptions::default()
        ),
        Err(OdeError::InvalidInterval { .. })
    ));
}

fn blow_up<S: Advance<BlowUp>>(name: &str, mut s: S) {
    let mut f = BlowUp;
    let err = integrate(&mut s, &mut f, 2.0, &[], &mut [], &DriverOptions::default()).unwrap_err();
    match err {
        OdeError::StepSizeTooSmall { t, h } => {
            println!(
                "{name}: StepSizeTooSmall at t = {t}, h = {h:e}, stats {:?}",
                s.stats()
            );
            assert!((t - 1.0).abs() < 1e-3, "{name}: t = {t}");
            assert!(h < 1e-12, "{name}: h = {h}");
        }
        OdeError::ToleranceTooSmall { t, .. } => {
            // Also a legitimate end for S&G's STEP near a singularity (|y| → ∞ makes the
            // relative tolerance unattainable only if rtol < u; not expected here).
            panic!("{name}: tolerance too small at t = {t}");
        }
        e => panic!("{name}: unexpected {e:?}"),
    }
}

#[test]
fn step_size_underflow_on_blow_up() {
    let tol = Tolerances::new(1e-8, 1e-8);
    blow_up(
        "abm",
        AdamsBashforthMoulton::new(0.0, &[1.0], tol.clone(), AbmConfig::default()).unwrap(),
    );
    blow_up(
        "dopri5",
        DormandPrince54::new(0.0, &[1.0], tol.clone(), DormandPrinceConfig::default()).unwrap(),
    );
    blow_up(
        "rkg",
        RungeKuttaGill::new(0.0, &[1.0], tol, RungeKuttaGillConfig::default()).unwrap(),
    );
}

// ---- a right-hand side that returns NaN is named as such by every stepper ----

/// `y' = −y` until `t = 0.3`, then NaN in component `1`.
fn nan_after(t: f64, y: &[f64], dy: &mut [f64]) {
    dy[0] = -y[0];
    dy[1] = if t > 0.3 { f64::NAN } else { -y[1] };
}

fn run_nan<F, S: Advance<F>>(mut s: S, mut f: F) -> Result<f64, OdeError> {
    integrate(&mut s, &mut f, 1.0, &[], &mut [], &DriverOptions::default()).map(|r| r.t[0])
}

fn nan_errors() -> Vec<(&'static str, Result<f64, OdeError>)> {
    let tol = Tolerances::new(1e-8, 1e-8);
    let y0 = [1.0, 1.0];
    let rhs = || FnRhs::new(2, nan_after);
    vec![
        (
            "abm",
            run_nan(
                AdamsBashforthMoulton::new(0.0, &y0, tol.clone(), AbmConfig::default()).unwrap(),
                rhs(),
            ),
        ),
        (
            "dopri5",
            run_nan(
                DormandPrince54::new(0.0, &y0, tol.clone(), DormandPrinceConfig::default())
                    .unwrap(),
                rhs(),
            ),
        ),
        (
            "rkg",
            run_nan(
                RungeKuttaGill::new(0.0, &y0, tol.clone(), RungeKuttaGillConfig::default())
                    .unwrap(),
                rhs(),
            ),
        ),
        (
            "rkg fixed",
            run_nan(
                RungeKuttaGill::new(
                    0.0,
                    &y0,
                    tol.clone(),
                    RungeKuttaGillConfig {
                        mode: GillMode::Fixed { h: 0.01 },
                        ..RungeKuttaGillConfig::default()
                    },
                )
                .unwrap(),
                rhs(),
            ),
        ),
        (
            "bdf",
            run_nan(
                Bdf::new(0.0, &y0, tol.clone(), BdfConfig::default()).unwrap(),
                OdeAsDae::new(rhs()),
            ),
        ),
        (
            "huang bdf2",
            run_nan(
                HuangBdf2::new(
                    0.0,
                    &y0,
                    tol.clone(),
                    HuangBdf2Config {
                        h: 0.01,
                        ..HuangBdf2Config::default()
                    },
                )
                .unwrap(),
                OdeAsDae::new(rhs()),
            ),
        ),
        (
            "sirk",
            run_nan(
                SinglyImplicitRk::new(
                    0.0,
                    &y0,
                    tol,
                    SirkConfig {
                        h: 0.01,
                        ..SirkConfig::default()
                    },
                )
                .unwrap(),
                OdeAsDae::new(rhs()),
            ),
        ),
    ]
}

/// Used to end as `StepSizeTooSmall` at h ≈ 2e-16: now `NonFinite { what: Derivative, .. }`
/// naming the component, for every stepper.
#[test]
fn nan_from_the_right_hand_side_is_named_by_every_stepper() {
    let all = nan_errors();
    for (name, e) in &all {
        println!("{name}: {e:?}");
    }
    for (name, e) in all {
        let e = e.unwrap_err();
        assert!(
            matches!(
                e,
                OdeError::NonFinite {
                    what: Quantity::Derivative,
                    index: 1
                }
            ),
            "{name}: {e:?}"
        );
    }
}

/// A user's own `RhsError` (even `RhsError::NonFinite`) stays `RhsFailed`, distinguishable
/// from a NaN the stepper found.
#[test]
fn user_rhs_error_stays_rhs_failed() {
    let tol = Tolerances::new(1e-8, 1e-8);
    let mut f = TryFnRhs::new(1, |t, y: &[f64], dy: &mut [f64]| {
        if t > 0.3 {
            return Err(RhsError::NonFinite { index: 0 });
        }
        dy[0] = -y[0];
        Ok(())
    });
    let mut s = DormandPrince54::new(0.0, &[1.0], tol, DormandPrinceConfig::default()).unwrap();
    let e = integrate(&mut s, &mut f, 1.0, &[], &mut [], &DriverOptions::default()).unwrap_err();
    assert!(
        matches!(
            e,
            OdeError::RhsFailed {
                source: RhsError::NonFinite { index: 0 },
                ..
            }
        ),
        "{e:?}"
    );
}
