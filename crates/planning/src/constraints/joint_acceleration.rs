//! Joint acceleration limits `q̈min_i ≤ q̈_i ≤ q̈max_i` with `q̈ = B s̈ + B̄ ṡ²` (Huang
//! (4.3.2)): two rows per joint, `±(B_i s̈ + B̄_i ṡ²) ∓ limit ≤ 0`.

use super::{positive_per_joint, PathConstraint, PathPoint};
use crate::error::PlanningError;

/// `−max_i ≤ q̈_i ≤ max_i` (symmetric, `f64::INFINITY` for no limit).
#[derive(Clone, Debug, PartialEq)]
pub struct JointAccelerationLimits {
    /// q̈max per joint \[rad/s² or m/s²\].
    pub max: Vec<f64>,
}

impl JointAccelerationLimits {
    /// Symmetric limits from a vector.
    pub fn new(max: Vec<f64>) -> Self {
        Self { max }
    }
}

impl PathConstraint for JointAccelerationLimits {
    fn rows(&self) -> usize {
        2 * self.max.len()
    }

    fn eval(&self, p: &PathPoint<'_>, a: &mut [f64], b: &mut [f64], c: &mut [f64]) {
        for i in 0..self.max.len().min(p.b.len()) {
            let (k, l) = (2 * i, 2 * i + 1);
            if self.max[i].is_finite() {
                // B_i s̈ + B̄_i ṡ² − max ≤ 0 and −B_i s̈ − B̄_i ṡ² − max ≤ 0
                a[k] = p.b[i];
                b[k] = p.bbar[i];
                c[k] = -self.max[i];
                a[l] = -p.b[i];
                b[l] = -p.bbar[i];
                c[l] = -self.max[i];
            } else {
                for r in [k, l] {
                    a[r] = 0.0;
                    b[r] = 0.0;
                    c[r] = -1.0;
                }
            }
        }
    }

    fn check_dof(&self, n: usize) -> Result<(), PlanningError> {
        positive_per_joint("joint acceleration limits", &self.max, n)
    }
}
