//! Bad input never panics, never hangs, never returns a wrong `Ok`: each case is
//! the input and the error variant it must give (matched on the variant, not the message).

use contour_contact::test_models::BouncingBall;
use contour_contact::{
    simulate, ContactConfig, ContactError, HuangSchemeConfig, ModernConfig, Scheme,
};

fn modern() -> Scheme {
    Scheme::Modern(ModernConfig::default())
}

fn huang() -> Scheme {
    Scheme::Huang(HuangSchemeConfig::default())
}

fn run(cfg: ContactConfig) -> Result<(), ContactError> {
    simulate(&BouncingBall::default(), 0.0, &[1.0], &[0.0], cfg).map(|_| ())
}

/// `output_dt = 1e-300` used to hang: refused with the cap on outputs.
#[test]
fn tiny_output_dt_is_a_work_cap() {
    for scheme in [modern(), huang()] {
        for dt in [1e-300, 1e-9, f64::MIN_POSITIVE] {
            let mut cfg = ContactConfig::new(1.0, scheme);
            cfg.output_dt = Some(dt);
            let e = run(cfg).unwrap_err();
            assert!(
                matches!(
                    e,
                    ContactError::WorkCap {
                        name: "output_dt",
                        ..
                    }
                ),
                "{e:?}"
            );
        }
    }
    // a step size that forces more than 1e7 steps
    let e = run(ContactConfig::new(
        1.0,
        Scheme::Modern(ModernConfig {
            h_max: 1e-300,
            ..ModernConfig::default()
        }),
    ))
    .unwrap_err();
    assert!(
        matches!(e, ContactError::WorkCap { name: "h_max", .. }),
        "{e:?}"
    );
    let e = run(ContactConfig::new(
        1.0,
        Scheme::Huang(HuangSchemeConfig {
            h_free: 1e-12,
            ..HuangSchemeConfig::default()
        }),
    ))
    .unwrap_err();
    assert!(
        matches!(e, ContactError::WorkCap { name: "h_free", .. }),
        "{e:?}"
    );
}

/// `h_max = NaN` used to report "invalid parameter modern tolerances = 1e-12".
#[test]
fn each_modern_tolerance_is_named() {
    let cases = [
        (
            "h_max",
            ModernConfig {
                h_max: f64::NAN,
                ..ModernConfig::default()
            },
        ),
        (
            "h_max",
            ModernConfig {
                h_max: -1.0,
                ..ModernConfig::default()
            },
        ),
        (
            "rtol",
            ModernConfig {
                rtol: f64::NAN,
                ..ModernConfig::default()
            },
        ),
        (
            "rtol",
            ModernConfig {
                rtol: 0.0,
                ..ModernConfig::default()
            },
        ),
        (
            "rtol",
            ModernConfig {
                rtol: 2.0,
                ..ModernConfig::default()
            },
        ),
        (
            "atol",
            ModernConfig {
                atol: f64::INFINITY,
                ..ModernConfig::default()
            },
        ),
        (
            "atol",
            ModernConfig {
                atol: -1e-12,
                ..ModernConfig::default()
            },
        ),
    ];
    for (name, m) in cases {
        let e = run(ContactConfig::new(1.0, Scheme::Modern(m))).unwrap_err();
        assert!(
            matches!(e, ContactError::InvalidParameter { name: n, .. } if n == name),
            "{name}: {e:?}"
        );
    }
    let mut cfg = ContactConfig::new(1.0, modern());
    cfg.contact_tol = f64::INFINITY;
    assert!(matches!(
        run(cfg).unwrap_err(),
        ContactError::InvalidParameter {
            name: "contact_tol",
            ..
        }
    ));
}

/// NaN, unsorted and out-of-span breakpoints used to be accepted.
#[test]
fn bad_breakpoints_are_invalid_parameters() {
    for bp in [
        vec![f64::NAN],
        vec![0.5, 0.2],
        vec![0.5, 0.5],
        vec![1.5],
        vec![-0.1],
        vec![f64::INFINITY],
    ] {
        for scheme in [modern(), huang()] {
            let mut cfg = ContactConfig::new(1.0, scheme);
            cfg.breakpoints = bp.clone();
            let e = run(cfg).unwrap_err();
            assert!(
                matches!(
                    e,
                    ContactError::InvalidParameter {
                        name: "breakpoints",
                        ..
                    }
                ),
                "{bp:?}: {e:?}"
            );
        }
    }
    // sorted breakpoints inside the span are fine
    let mut cfg = ContactConfig::new(1.0, modern());
    cfg.breakpoints = vec![0.2, 0.5];
    run(cfg).unwrap();
}

/// A ball starting 1 m inside the floor: Huang's scheme launched it to 3.41 m (energy
/// created), the modern one snapped it silently. Both now report the initial penetration.
#[test]
fn initial_penetration_is_reported() {
    for scheme in [modern(), huang()] {
        let cfg = ContactConfig::new(1.0, scheme);
        let e = simulate(&BouncingBall::default(), 0.0, &[-1.0], &[0.0], cfg).unwrap_err();
        assert!(
            matches!(e, ContactError::InitialPenetration { row: 0, phi } if phi < -0.99),
            "{e:?}"
        );
        // within contact_tol is touching, not penetrating
        let cfg = ContactConfig::new(0.1, scheme);
        simulate(&BouncingBall::default(), 0.0, &[-1e-10], &[0.0], cfg).unwrap();
    }
}
