//! Planar joint, `q = (x, y, cos θ, sin θ)` on SE(2), `v = (vx, vy, ω)` in the successor frame
//! (Pinocchio's `JointModelPlanar`): motion in the predecessor's x–y plane,
//! `X_J = (R_z(θ)ᵀ, (x, y, 0))`, `S = [e_x lin, e_y lin, e_z ang]`; `integrate` is
//! `M(q) exp(v dt)`, `difference` is `log(M(q0)⁻¹ M(q1))` (Sola (156)–(158)).

use super::lie::{random_circle, se2_v, se2_v_inv_alpha};
use super::{e_angular, e_linear, JointKind};
use crate::rng::SplitMix64;
use crate::spatial::{Motion, Transform};

/// A planar joint: nq 4, nv 3; limits bound `x` and `y`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Planar;

impl JointKind for Planar {
    fn nq(&self) -> usize {
        4
    }
    fn nv(&self) -> usize {
        3
    }
    fn transform(&self, q: &[f64]) -> Transform {
        let (c, s) = (q[2], q[3]);
        // E = R_z(θ)ᵀ
        Transform {
            rot: [[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]],
            trans: [q[0], q[1], 0.0],
        }
    }
    fn motion_subspace(&self, s: &mut [Motion]) {
        s[0] = e_linear(0);
        s[1] = e_linear(1);
        s[2] = e_angular(2);
    }
    fn integrate(&self, q: &[f64], v: &[f64], dt: f64, out: &mut [f64]) {
        let (c0, s0) = (q[2], q[3]);
        let (vx, vy, th) = (v[0] * dt, v[1] * dt, v[2] * dt);
        let (a, b) = se2_v(th);
        // exp: t = V(θ) v, R = R(θ); q1 = (R0 t + t0, R0 R e_x)
        let (tx, ty) = (a * vx - b * vy, b * vx + a * vy);
        let (s, c) = th.sin_cos();
        out[0] = c0 * tx - s0 * ty + q[0];
        out[1] = s0 * tx + c0 * ty + q[1];
        out[2] = c0 * c - s0 * s;
        out[3] = s0 * c + c0 * s;
    }
    fn difference(&self, q0: &[f64], q1: &[f64], out: &mut [f64]) {
        let (c0, s0, c1, s1) = (q0[2], q0[3], q1[2], q1[3]);
        // M0⁻¹ M1 = (R0ᵀ R1, R0ᵀ (t1 − t0))
        let (cos, sin) = (c0 * c1 + s0 * s1, c0 * s1 - s0 * c1);
        let (dx, dy) = (q1[0] - q0[0], q1[1] - q0[1]);
        let (px, py) = (c0 * dx + s0 * dy, -s0 * dx + c0 * dy);
        let th = sin.atan2(cos);
        let alpha = se2_v_inv_alpha(th);
        out[0] = alpha * px + 0.5 * th * py;
        out[1] = alpha * py - 0.5 * th * px;
        out[2] = th;
    }
    fn neutral(&self, out: &mut [f64]) {
        out[..4].copy_from_slice(&[0.0, 0.0, 1.0, 0.0]);
    }
    fn n_bounded(&self) -> usize {
        2
    }
    fn random_unbounded(&self, rng: &mut SplitMix64, out: &mut [f64]) {
        random_circle(rng, out);
    }
}
