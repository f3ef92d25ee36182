//! Joint velocity limits `|q̇_i| ≤ q̇max_i`: with `q̇ = B ṡ` (Huang (4.3.2)) a first-order
//! bound on the path speed, `B_i² ṡ² − q̇max_i² ≤ 0` — rows with a = 0.

use super::{positive_per_joint, PathConstraint, PathPoint};
use crate::error::PlanningError;

/// `|q̇_i| ≤ max_i` for every joint (`f64::INFINITY` for a joint without a limit), e.g. the
/// `velocity` of a URDF `<limit>`.
#[derive(Clone, Debug, PartialEq)]
pub struct JointVelocityLimits {
    /// q̇max per joint \[rad/s or m/s\].
    pub max: Vec<f64>,
}

impl JointVelocityLimits {
    /// Limits from a vector (checked against the joint count by [`PathConstraint::check_dof`]).
    pub fn new(max: Vec<f64>) -> Self {
        Self { max }
    }
}

impl PathConstraint for JointVelocityLimits {
    fn rows(&self) -> usize {
        self.max.len()
    }

    fn eval(&self, p: &PathPoint<'_>, a: &mut [f64], b: &mut [f64], c: &mut [f64]) {
        for i in 0..self.max.len().min(p.b.len()) {
            // B_i² ṡ² − q̇max_i² ≤ 0; a joint without a limit gives 0 ≤ 0… written as −1 ≤ 0
            a[i] = 0.0;
            if self.max[i].is_finite() {
                b[i] = p.b[i] * p.b[i];
                c[i] = -self.max[i] * self.max[i];
            } else {
                b[i] = 0.0;
                c[i] = -1.0;
            }
        }
    }

    fn check_dof(&self, n: usize) -> Result<(), PlanningError> {
        positive_per_joint("joint velocity limits", &self.max, n)
    }
}
