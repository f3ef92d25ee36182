//! Bad input never panics, never hangs, never returns a wrong `Ok`: built-in
//! models with bad parameters, and an ill-conditioned mass matrix whose constrained solve
//! would violate `J q̈ + ρ = 0`.

use crate::common;
use common::DiagPendulum;
use contour_model::models::{
    HuangCartesianRobot, KeerthiRobot, Pendulum, RedundantFourBar, RedundantParallelogram,
    SliderCrank,
};
use contour_model::{ConstrainedDynamics, DynamicsOptions, Mechanism, ModelError};

fn skewed_state() -> ([f64; 2], [f64; 2]) {
    let th = 0.3f64;
    let (s, c) = th.sin_cos();
    ([s, -c], [0.5 * c, 0.5 * s])
}

/// ‖J q̈ + ρ‖ used to be 2.6e-3 at ε = 1e-12 … 3e85 at 1e-100 with an `Ok`: every result is
/// now either accurate or `IllConditioned`.
#[test]
fn ill_conditioned_mass_matrix_is_reported() {
    let (q, qd) = skewed_state();
    let mut reported = 0;
    for eps in [1.0, 1e-3, 1e-8, 1e-12, 1e-14, 1e-16, 1e-50, 1e-100] {
        let mech = DiagPendulum { m11: eps };
        let mut d = ConstrainedDynamics::new(&mech);
        let (mut qdd, mut lam) = ([0.0; 2], [0.0; 1]);
        match d.accelerations(&mech, 0.0, &q, &qd, &mut qdd, &mut lam) {
            Ok(()) => {
                let r = 2.0 * q[0] * qdd[0] + 2.0 * q[1] * qdd[1] + 2.0 * 0.25;
                let scale = (2.0 * q[0] * qdd[0]).abs() + (2.0 * q[1] * qdd[1]).abs() + 0.5;
                println!("eps {eps:e}: Ok, residual {r:e}, scale {scale:e}");
                // the documented bound: about 8 digits on the constraint
                assert!(r.abs() <= 1e-6 * scale, "eps {eps:e}: residual {r:e}");
                assert!(eps > 1e-12, "eps {eps:e} must be reported");
            }
            Err(e) => {
                println!("eps {eps:e}: {e}");
                assert!(
                    matches!(e, ModelError::IllConditioned { .. }),
                    "eps {eps:e}: {e:?}"
                );
                reported += 1;
            }
        }
    }
    assert!(reported >= 5, "{reported}");
    // well conditioned: fine
    let mech = DiagPendulum { m11: 1.0 };
    let mut d = ConstrainedDynamics::new(&mech);
    let (mut qdd, mut lam) = ([0.0; 2], [0.0; 1]);
    d.accelerations(&mech, 0.0, &q, &qd, &mut qdd, &mut lam)
        .unwrap();
}

fn rejected<M: Mechanism>(name: &str, mech: &M) {
    let e = ConstrainedDynamics::with_options(mech, DynamicsOptions::default()).unwrap_err();
    assert!(
        matches!(e, ModelError::InvalidParameter { what, .. } if what.ends_with(name)),
        "{name}: {e:?}"
    );
    assert!(mech.validate().is_err());
}

/// `Pendulum { length: -1 }` (and other bad parameters of the built-in models) used to be
/// accepted: `validate` names the field, `ConstrainedDynamics` calls it.
#[test]
fn bad_model_parameters_are_invalid_parameters() {
    for v in [-1.0, 0.0, f64::NAN, f64::INFINITY] {
        rejected(
            "length",
            &Pendulum {
                length: v,
                ..Pendulum::default()
            },
        );
        rejected(
            "mass",
            &Pendulum {
                mass: v,
                ..Pendulum::default()
            },
        );
        rejected(
            "crank_length",
            &RedundantFourBar {
                crank_length: v,
                ..RedundantFourBar::default()
            },
        );
        rejected(
            "coupler_mass",
            &RedundantParallelogram {
                coupler_mass: v,
                ..RedundantParallelogram::default()
            },
        );
        rejected(
            "rod_length",
            &SliderCrank {
                rod_length: v,
                ..SliderCrank::default()
            },
        );
        rejected(
            "m2",
            &KeerthiRobot {
                m2: v,
                ..KeerthiRobot::default()
            },
        );
        rejected(
            "radius",
            &HuangCartesianRobot {
                radius: v,
                ..HuangCartesianRobot::default()
            },
        );
    }
    rejected(
        "gravity",
        &Pendulum {
            gravity: f64::NAN,
            ..Pendulum::default()
        },
    );
    // `ConstrainedDynamics::new` (infallible) reports it at the first evaluation
    let p = Pendulum {
        length: -1.0,
        ..Pendulum::default()
    };
    let mut d = ConstrainedDynamics::new(&p);
    let (q, qd) = Pendulum::default().state(0.3, 0.0);
    let (mut qdd, mut lam) = ([0.0; 2], [0.0; 1]);
    assert!(matches!(
        d.accelerations(&p, 0.0, &q, &qd, &mut qdd, &mut lam),
        Err(ModelError::InvalidParameter {
            what: "pendulum.length",
            ..
        })
    ));
    assert!(matches!(
        contour_model::consistent_state(&p, 0.0, &q, &qd, &Default::default()),
        Err(ModelError::InvalidParameter { .. })
    ));
    // the defaults are valid
    Pendulum::default().validate().unwrap();
    RedundantFourBar::default().validate().unwrap();
    RedundantParallelogram::default().validate().unwrap();
    SliderCrank::default().validate().unwrap();
    KeerthiRobot::default().validate().unwrap();
    HuangCartesianRobot::default().validate().unwrap();
}
