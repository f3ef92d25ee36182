//! Unbounded revolute joint, `q = (cos θ, sin θ)` on SO(2) (Pinocchio's
//! `JointModelRevoluteUnbounded`, `RUBX`…): `X_J = rot(R(a, θ)ᵀ)` with `(cos θ, sin θ)` read
//! from `q` as given, `S = [a; 0]`; `integrate` multiplies by `exp(θ̇ dt)` and renormalizes to
//! first order, `difference` is `atan2` of `R(q0)ᵀ R(q1)` (Sola (122)–(125)).

use super::lie::random_circle;
use super::JointKind;
use crate::rng::SplitMix64;
use crate::spatial::{Motion, Transform, Vec3};

/// Rotation about the unit `axis`, with `q = (cos θ, sin θ)`: nq 2, nv 1, no limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RevoluteUnbounded {
    /// Unit axis (successor coordinates).
    pub axis: Vec3,
}

/// `R(a, θ)` from `(c, s)` (Rodrigues, as [`crate::spatial::rotation_about`]).
pub(crate) fn rotation_cs(u: &Vec3, c: f64, s: f64) -> crate::spatial::Mat3 {
    let t = 1.0 - c;
    let [x, y, z] = *u;
    [
        [c + t * x * x, t * x * y - s * z, t * x * z + s * y],
        [t * x * y + s * z, c + t * y * y, t * y * z - s * x],
        [t * x * z - s * y, t * y * z + s * x, c + t * z * z],
    ]
}

impl JointKind for RevoluteUnbounded {
    fn nq(&self) -> usize {
        2
    }
    fn nv(&self) -> usize {
        1
    }
    fn transform(&self, q: &[f64]) -> Transform {
        Transform::rotation(crate::spatial::mat3_transpose(&rotation_cs(
            &self.axis, q[0], q[1],
        )))
    }
    fn motion_subspace(&self, s: &mut [Motion]) {
        s[0] = Motion::new(self.axis, [0.0; 3]);
    }
    fn integrate(&self, q: &[f64], v: &[f64], dt: f64, out: &mut [f64]) {
        let (ca, sa) = (q[0], q[1]);
        let (sw, cw) = (v[0] * dt).sin_cos();
        let (c, s) = (cw * ca - sw * sa, sw * ca + cw * sa);
        // first-order renormalization, (3 − |z|²)/2 (Pinocchio's SO(2) integrate)
        let k = (3.0 - (c * c + s * s)) / 2.0;
        out[0] = k * c;
        out[1] = k * s;
    }
    fn difference(&self, q0: &[f64], q1: &[f64], out: &mut [f64]) {
        let cos = q0[0] * q1[0] + q0[1] * q1[1];
        let sin = q0[0] * q1[1] - q0[1] * q1[0];
        out[0] = sin.atan2(cos);
    }
    fn neutral(&self, out: &mut [f64]) {
        out[0] = 1.0;
        out[1] = 0.0;
    }
    fn n_bounded(&self) -> usize {
        0
    }
    fn random_unbounded(&self, rng: &mut SplitMix64, out: &mut [f64]) {
        random_circle(rng, out);
    }
}
