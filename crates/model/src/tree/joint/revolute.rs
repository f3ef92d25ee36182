//! Revolute joint about a unit axis `a`: `X_J = rot(R(a, θ)ᵀ)`, `S = [a; 0]` (RBDA Table 4.1);
//! the group operations are those of `ℝ` ([`JointKind`]'s provided methods).

use super::JointKind;
use crate::spatial::{mat3_transpose, rotation_about, Motion, Transform, Vec3};

/// Rotation by `θ` \[rad\] about the unit `axis` (Pinocchio's `JointModelRevolute`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Revolute {
    /// Unit axis (successor coordinates).
    pub axis: Vec3,
}

impl JointKind for Revolute {
    fn nv(&self) -> usize {
        1
    }
    fn transform(&self, q: &[f64]) -> Transform {
        Transform::rotation(mat3_transpose(&rotation_about(&self.axis, q[0])))
    }
    fn motion_subspace(&self, s: &mut [Motion]) {
        s[0] = Motion::new(self.axis, [0.0; 3]);
    }
}
