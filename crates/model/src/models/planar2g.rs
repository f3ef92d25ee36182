//! [`Planar2g`]: Featherstone's planar(2) with an explicit gear-like constraint, the example of
//! [`crate::explicit`] (FDgq) that the implicit methods can run as well.

use faer::MatMut;

use crate::explicit::{stabilization, ExplicitConstraint};
use crate::tree::KinematicTree;
use crate::Mechanism;

/// spatial_v2's `planar2g` (papers/004, "An Example"): [`KinematicTree::planar`]`(2)`
/// with the gear-like constraint `q₂ = 2 sin q₁`, `y = q₁`, driven by the
/// constant torque `τ = [1; 0]`:
///
/// ```text
/// γ(y) = (y, 2 sin y),  G = (1, 2 cos y),  g = Ġ ẏ = (0, −2 sin y ẏ²),  T_stab = 0.1
/// ```
///
/// As a [`Mechanism`] it is planar(2) with `u = τ` and the equivalent
/// implicit row `φ = q₂ − 2 sin q₁` (`J = (−2 cos q₁, 1)`, `ρ = 2 sin q₁ q̇₁²`),
/// so that implicit methods can run the same system; FDgq ignores that row.
/// The work done by `τ` from rest is `q₁(T) − q₁(0)`, which must equal the
/// kinetic energy.
#[derive(Debug, Clone)]
pub struct Planar2g {
    tree: KinematicTree,
    /// Stabilization time constant `T_stab` \[s\] (0.1 in the paper).
    pub tstab: f64,
    /// Constant joint torques τ \[N·m\] (`[1, 0]` in the paper).
    pub torque: [f64; 2],
}

impl Default for Planar2g {
    fn default() -> Self {
        Self {
            tree: KinematicTree::planar(2),
            tstab: 0.1,
            torque: [1.0, 0.0],
        }
    }
}

impl Planar2g {
    /// The underlying tree, planar(2).
    pub fn tree(&self) -> &KinematicTree {
        &self.tree
    }
}

impl ExplicitConstraint for Planar2g {
    fn n_coordinates(&self) -> usize {
        2
    }
    fn n_independent(&self) -> usize {
        1
    }
    fn gamma_q(
        &self,
        qo: &[f64],
        qdo: &[f64],
        q: &mut [f64],
        qd: &mut [f64],
        mut g: MatMut<'_, f64>,
        gs: &mut [f64],
    ) {
        let y = qo[0];
        let (s, c) = y.sin_cos();
        q[0] = y;
        q[1] = 2.0 * s;
        g[(0, 0)] = 1.0;
        g[(1, 0)] = 2.0 * c;
        let yd = qdo[0];
        qd[0] = yd;
        qd[1] = 2.0 * c * yd;
        gs[0] = 0.0;
        gs[1] = -2.0 * s * yd * yd;
        stabilization(self.tstab, q, qd, qo, qdo, gs);
    }
}

impl Mechanism for Planar2g {
    fn name(&self) -> &str {
        "planar2g"
    }
    fn dof(&self) -> usize {
        2
    }
    fn n_constraints(&self) -> usize {
        1
    }
    fn mass_matrix(&self, q: &[f64], m: MatMut<'_, f64>) {
        self.tree.mass_matrix(q, m)
    }
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        self.tree.bias_forces(q, qd, h)
    }
    fn applied_forces(&self, _t: f64, _q: &[f64], _qd: &[f64], u: &mut [f64]) {
        u.copy_from_slice(&self.torque);
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        phi[0] = q[1] - 2.0 * q[0].sin();
    }
    fn constraint_jacobian(&self, _t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        j[(0, 0)] = -2.0 * q[0].cos();
        j[(0, 1)] = 1.0;
    }
    fn constraint_accel_bias(&self, _t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        rho[0] = 2.0 * q[0].sin() * qd[0] * qd[0];
    }
    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> Option<f64> {
        self.tree.kinetic_energy(q, qd)
    }
    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        self.tree.potential_energy(q)
    }
}
