//! Test models shared by the model crate's integration tests.

use contour_model::Mechanism;
use faer::MatMut;

/// A point mass on the unit circle, `φ = x² + y² − 1`, under gravity 9.81 in −y, whose mass
/// matrix is `diag(1, m11)`: `m11 = 1` is a plain pendulum, a tiny `m11` an ill-conditioned
/// one, a negative or NaN `m11` a broken one.
pub struct DiagPendulum {
    /// The second diagonal entry of M.
    pub m11: f64,
}

impl Mechanism for DiagPendulum {
    fn name(&self) -> &str {
        "diag(1, m11) pendulum"
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
        m[(1, 1)] = self.m11;
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        h[0] = 0.0;
        h[1] = 9.81;
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        phi[0] = q[0] * q[0] + q[1] * q[1] - 1.0;
    }
    fn constraint_jacobian(&self, _t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        j[(0, 0)] = 2.0 * q[0];
        j[(0, 1)] = 2.0 * q[1];
    }
    fn constraint_accel_bias(&self, _t: f64, _q: &[f64], qd: &[f64], rho: &mut [f64]) {
        rho[0] = 2.0 * (qd[0] * qd[0] + qd[1] * qd[1]);
    }
}
