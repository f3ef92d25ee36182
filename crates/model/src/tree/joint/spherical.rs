//! Spherical (ball) joint, `q = (qx, qy, qz, qw)` a unit quaternion on SO(3), `v = ω` in the
//! successor frame (Pinocchio's `JointModelSpherical`): `X_J = rot(R(q)ᵀ)`, `S = [1; 0]`;
//! `integrate` is `q exp(ω dt)` renormalized to first order, `difference` is
//! `log(q0* q1)` (Sola (101), (105)).

use super::lie::{
    exp3, first_order_normalize, log3, quat_at, quat_conj, quat_frame, quat_mul, random_quat,
};
use super::{e_angular, JointKind};
use crate::rng::SplitMix64;
use crate::spatial::{Motion, Transform};

/// A ball joint: nq 4, nv 3, no limit.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Spherical;

impl JointKind for Spherical {
    fn nq(&self) -> usize {
        4
    }
    fn nv(&self) -> usize {
        3
    }
    fn transform(&self, q: &[f64]) -> Transform {
        Transform::rotation(quat_frame(q))
    }
    fn motion_subspace(&self, s: &mut [Motion]) {
        for (k, col) in s[..3].iter_mut().enumerate() {
            *col = e_angular(k);
        }
    }
    fn integrate(&self, q: &[f64], v: &[f64], dt: f64, out: &mut [f64]) {
        let mut r = quat_mul(&quat_at(q), &exp3(&[v[0] * dt, v[1] * dt, v[2] * dt]));
        first_order_normalize(&mut r);
        out[..4].copy_from_slice(&r);
    }
    fn difference(&self, q0: &[f64], q1: &[f64], out: &mut [f64]) {
        let w = log3(&quat_mul(&quat_conj(&quat_at(q0)), &quat_at(q1)));
        out[..3].copy_from_slice(&w);
    }
    fn neutral(&self, out: &mut [f64]) {
        out[..4].copy_from_slice(&[0.0, 0.0, 0.0, 1.0]);
    }
    fn n_bounded(&self) -> usize {
        0
    }
    fn random_unbounded(&self, rng: &mut SplitMix64, out: &mut [f64]) {
        random_quat(rng, out);
    }
}
