//! Prismatic joint along a unit axis `a`: `X_J = xlt(a d)`, `S = [0; a]` (RBDA Table 4.1).

use super::{bounded, JointKind};
use crate::rng::SplitMix64;
use crate::spatial::{scale3, Motion, Transform, Vec3};
use crate::ModelError;

/// Translation by `d` \[m\] along the unit `axis` (Pinocchio's `JointModelPrismatic`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prismatic {
    /// Unit axis (successor coordinates).
    pub axis: Vec3,
}

impl JointKind for Prismatic {
    fn nq(&self) -> usize {
        1
    }
    fn nv(&self) -> usize {
        1
    }
    fn transform(&self, q: &[f64]) -> Transform {
        Transform::translation(scale3(q[0], &self.axis))
    }
    fn motion_subspace(&self, s: &mut [Motion]) {
        s[0] = Motion::new([0.0; 3], self.axis);
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
