//! Revolute joint about a unit axis `a`: `X_J = rot(R(a, θ)ᵀ)`, `S = [a; 0]` (RBDA Table 4.1).

use super::{bounded, JointKind};
use crate::rng::SplitMix64;
use crate::spatial::{mat3_transpose, rotation_about, Motion, Transform, Vec3};
use crate::ModelError;

/// Rotation by `θ` \[rad\] about the unit `axis` (Pinocchio's `JointModelRevolute`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Revolute {
    /// Unit axis (successor coordinates).
    pub axis: Vec3,
}

impl JointKind for Revolute {
    fn nq(&self) -> usize {
        1
    }
    fn nv(&self) -> usize {
        1
    }
    fn transform(&self, q: &[f64]) -> Transform {
        Transform::rotation(mat3_transpose(&rotation_about(&self.axis, q[0])))
    }
    fn motion_subspace(&self, s: &mut [Motion]) {
        s[0] = Motion::new(self.axis, [0.0; 3]);
    }
    fn integrate(&self, q: &[f64], v: &[f64], dt: f64, out: &mut [f64]) {
        out[0] = q[0] + v[0] * dt;
    }
    fn difference(&self, q0: &[f64], q1: &[f64], out: &mut [f64]) {
        out[0] = q1[0] - q0[0];
    }
    fn neutral(&self, out: &mut [f64]) {
        out[0] = 0.0;
    }
    fn random_configuration(
        &self,
        rng: &mut SplitMix64,
        lower: &[f64],
        upper: &[f64],
        out: &mut [f64],
    ) -> Result<(), ModelError> {
        out[0] = bounded(rng, lower[0], upper[0])?;
        Ok(())
    }
}
