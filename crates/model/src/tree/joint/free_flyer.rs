//! Free-flyer joint, `q = (x, y, z, qx, qy, qz, qw)` on SE(3), `v = (v, ω)` (linear first) in
//! the successor frame (Pinocchio's `JointModelFreeFlyer`): `X_J = (R(q)ᵀ, p)`, `S = 1`
//! (columns ordered linear, angular); `integrate` is `M(q) exp([v; ω] dt)` with the
//! quaternion's sign kept on the side of `q` and renormalized to first order, `difference`
//! is `log(M(q0)⁻¹ M(q1))` (Sola (170)–(174)). No gimbal lock: `M` is regular at every `q`.

use super::lie::{
    exp3, first_order_normalize, log3, quat_at, quat_conj, quat_frame, quat_mul, quat_to_matrix,
    random_quat, se3_v, se3_v_inv,
};
use super::{e_angular, e_linear, JointKind};
use crate::rng::SplitMix64;
use crate::spatial::{add3, mat3_tvec, mat3_vec, sub3, Motion, Transform};

/// A floating joint: nq 7, nv 6; limits bound the translation only.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FreeFlyer;

impl JointKind for FreeFlyer {
    fn nq(&self) -> usize {
        7
    }
    fn nv(&self) -> usize {
        6
    }
    fn transform(&self, q: &[f64]) -> Transform {
        Transform {
            rot: quat_frame(&q[3..]),
            trans: [q[0], q[1], q[2]],
        }
    }
    fn motion_subspace(&self, s: &mut [Motion]) {
        for k in 0..3 {
            s[k] = e_linear(k);
            s[k + 3] = e_angular(k);
        }
    }
    fn integrate(&self, q: &[f64], v: &[f64], dt: f64, out: &mut [f64]) {
        let q0 = quat_at(&q[3..]);
        let lin = [v[0] * dt, v[1] * dt, v[2] * dt];
        let w = [v[3] * dt, v[4] * dt, v[5] * dt];
        // p1 = p0 + R0 V(ω) v
        let p = add3(
            &[q[0], q[1], q[2]],
            &mat3_vec(&quat_to_matrix(&q0), &se3_v(&w, &lin)),
        );
        let mut r = quat_mul(&q0, &exp3(&w));
        if r.iter().zip(&q0).map(|(a, b)| a * b).sum::<f64>() < 0.0 {
            r = r.map(|c| -c);
        }
        first_order_normalize(&mut r);
        out[..3].copy_from_slice(&p);
        out[3..7].copy_from_slice(&r);
    }
    fn difference(&self, q0: &[f64], q1: &[f64], out: &mut [f64]) {
        let (a, b) = (quat_at(&q0[3..]), quat_at(&q1[3..]));
        let w = log3(&quat_mul(&quat_conj(&a), &b));
        // translation of M0⁻¹ M1: R0ᵀ (p1 − p0)
        let p = mat3_tvec(
            &quat_to_matrix(&a),
            &sub3(&[q1[0], q1[1], q1[2]], &[q0[0], q0[1], q0[2]]),
        );
        let lin = se3_v_inv(&w, &p);
        out[..3].copy_from_slice(&lin);
        out[3..6].copy_from_slice(&w);
    }
    fn neutral(&self, out: &mut [f64]) {
        out[..7].copy_from_slice(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
    }
    fn n_bounded(&self) -> usize {
        3
    }
    fn random_unbounded(&self, rng: &mut SplitMix64, out: &mut [f64]) {
        random_quat(rng, out);
    }
}
