//! Prismatic joint along a unit axis `a`: `X_J = xlt(a d)`, `S = [0; a]` (RBDA Table 4.1);
//! the group operations are those of `ℝ` ([`JointKind`]'s provided methods).

use super::JointKind;
use crate::spatial::{scale3, Motion, Transform, Vec3};

/// Translation by `d` \[m\] along the unit `axis` (Pinocchio's `JointModelPrismatic`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prismatic {
    /// Unit axis (successor coordinates).
    pub axis: Vec3,
}

impl JointKind for Prismatic {
    fn nv(&self) -> usize {
        1
    }
    fn transform(&self, q: &[f64]) -> Transform {
        Transform::translation(scale3(q[0], &self.axis))
    }
    fn motion_subspace(&self, s: &mut [Motion]) {
        s[0] = Motion::new([0.0; 3], self.axis);
    }
}
