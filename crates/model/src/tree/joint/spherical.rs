//! Spherical (ball) joint, `q = (qx, qy, qz, qw)` a unit quaternion on SO(3), `v = ω` in the
//! successor frame (Pinocchio's `JointModelSpherical`): `X_J = rot(R(q)ᵀ)`, `S = [1; 0]`;
//! `integrate` is `q exp(ω dt)` renormalized to first order, `difference` is
//! `log(q0* q1)` (Sola (101), (105)).

use super::lie::{exp3, first_order_normalize, log3, quat_conj, quat_mul, quat_to_matrix, Quat};
use super::JointKind;
use crate::rng::SplitMix64;
use crate::spatial::{mat3_transpose, Motion, Transform};
use crate::ModelError;

/// A ball joint: nq 4, nv 3, no limit.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Spherical;

pub(crate) fn quat(q: &[f64]) -> Quat {
    [q[0], q[1], q[2], q[3]]
}

impl JointKind for Spherical {
    fn nq(&self) -> usize {
        4
    }
    fn nv(&self) -> usize {
        3
    }
    fn transform(&self, q: &[f64]) -> Transform {
        Transform::rotation(mat3_transpose(&quat_to_matrix(&quat(q))))
    }
    fn motion_subspace(&self, s: &mut [Motion]) {
        s[0] = Motion::new([1.0, 0.0, 0.0], [0.0; 3]);
        s[1] = Motion::new([0.0, 1.0, 0.0], [0.0; 3]);
        s[2] = Motion::new([0.0, 0.0, 1.0], [0.0; 3]);
    }
    fn integrate(&self, q: &[f64], v: &[f64], dt: f64, out: &mut [f64]) {
        let mut r = quat_mul(&quat(q), &exp3(&[v[0] * dt, v[1] * dt, v[2] * dt]));
        first_order_normalize(&mut r);
        out[..4].copy_from_slice(&r);
    }
    fn difference(&self, q0: &[f64], q1: &[f64], out: &mut [f64]) {
        let w = log3(&quat_mul(&quat_conj(&quat(q0)), &quat(q1)));
        out[..3].copy_from_slice(&w);
    }
    fn neutral(&self, out: &mut [f64]) {
        out[..4].copy_from_slice(&[0.0, 0.0, 0.0, 1.0]);
    }
    fn random_configuration(
        &self,
        rng: &mut SplitMix64,
        _lower: &[f64],
        _upper: &[f64],
        out: &mut [f64],
    ) -> Result<(), ModelError> {
        let q = super::lie::uniform_quat(rng.unit(), rng.unit(), rng.unit());
        out[..4].copy_from_slice(&q);
        Ok(())
    }
}
