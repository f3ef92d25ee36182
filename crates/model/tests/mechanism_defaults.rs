//! The defaults of `Mechanism`: an unconstrained model implements four methods and nothing
//! else; a constrained model that forgets a constraint method gets a typed non-finite error
//! on the first evaluation, never a silently wrong zero.

use contour_model::{ConstrainedDynamics, Mechanism, ModelError};
use faer::MatMut;

/// A free point mass under gravity: no constraint method written.
struct Falling;

impl Mechanism for Falling {
    fn name(&self) -> &str {
        "falling"
    }
    fn dof(&self) -> usize {
        1
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        m[(0, 0)] = 2.0;
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        h[0] = 2.0 * 9.81;
    }
}

/// One constraint row declared, but `constraints`/`constraint_accel_bias` forgotten.
struct Forgetful;

impl Mechanism for Forgetful {
    fn name(&self) -> &str {
        "forgetful"
    }
    fn dof(&self) -> usize {
        2
    }
    fn n_constraints(&self) -> usize {
        1
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        m.fill(0.0);
        m[(0, 0)] = 1.0;
        m[(1, 1)] = 1.0;
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        h.fill(0.0);
    }
    fn constraint_jacobian(&self, _t: f64, _q: &[f64], mut j: MatMut<'_, f64>) {
        j[(0, 0)] = 1.0;
        j[(0, 1)] = 0.0;
    }
}

#[test]
fn an_unconstrained_model_needs_no_constraint_methods() {
    assert_eq!(Falling.n_constraints(), 0);
    let mut cd = ConstrainedDynamics::new(&Falling);
    let (mut qdd, mut lambda) = ([0.0], [0.0; 0]);
    cd.accelerations(&Falling, 0.0, &[1.0], &[0.0], &mut qdd, &mut lambda)
        .unwrap();
    assert!((qdd[0] + 9.81).abs() < 1e-14, "{qdd:?}");
}

#[test]
fn a_forgotten_constraint_method_is_a_typed_error() {
    let mut phi = [0.0];
    Forgetful.constraints(0.0, &[0.0, 0.0], &mut phi);
    assert!(
        phi[0].is_nan(),
        "the default must not look like a satisfied constraint"
    );
    let mut cd = ConstrainedDynamics::new(&Forgetful);
    let (mut qdd, mut lambda) = ([0.0; 2], [0.0]);
    let err = cd
        .accelerations(
            &Forgetful,
            0.0,
            &[0.0, 0.0],
            &[0.0, 0.0],
            &mut qdd,
            &mut lambda,
        )
        .unwrap_err();
    assert!(matches!(err, ModelError::NonFinite { .. }), "{err:?}");
}
