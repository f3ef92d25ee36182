//! Unit quaternions `(x, y, z, w)` (Pinocchio's and Eigen's coefficient order) and the
//! exponential and logarithm maps of SO(3), SO(2) and SE(3) the joints integrate and
//! difference with (Sola, Deray & Atchuthan, "A micro Lie theory", 2018, (143)–(146), (170)–(174);
//! Pinocchio's `quaternion::exp3`, `log3`, `exp6`, `log6`).

use crate::rng::SplitMix64;
use crate::spatial::{add3, cross, dot, mat3_transpose, scale3, Mat3, Vec3};

/// A quaternion `(x, y, z, w)`.
pub(crate) type Quat = [f64; 4];

/// `cbrt(ε)`: below this angle the series of the maps replace their closed forms
/// (Pinocchio's `TaylorSeriesExpansion::precision<3>`).
const TAYLOR: f64 = 6.055_454_452_393_343e-6;

/// Hamilton product `a b`.
pub(crate) fn quat_mul(a: &Quat, b: &Quat) -> Quat {
    let (av, aw) = ([a[0], a[1], a[2]], a[3]);
    let (bv, bw) = ([b[0], b[1], b[2]], b[3]);
    let v = add3(&add3(&scale3(aw, &bv), &scale3(bw, &av)), &cross(&av, &bv));
    [v[0], v[1], v[2], aw * bw - dot(&av, &bv)]
}

/// The conjugate `q*` (the inverse of a unit quaternion).
pub(crate) fn quat_conj(q: &Quat) -> Quat {
    [-q[0], -q[1], -q[2], q[3]]
}

/// The rotation matrix `R(q)` (columns: the rotated axes), Eigen's `toRotationMatrix`.
pub(crate) fn quat_to_matrix(q: &Quat) -> Mat3 {
    let [x, y, z, w] = *q;
    let (tx, ty, tz) = (2.0 * x, 2.0 * y, 2.0 * z);
    let (twx, twy, twz) = (tx * w, ty * w, tz * w);
    let (txx, txy, txz) = (tx * x, ty * x, tz * x);
    let (tyy, tyz, tzz) = (ty * y, tz * y, tz * z);
    [
        [1.0 - (tyy + tzz), txy - twz, txz + twy],
        [txy + twz, 1.0 - (txx + tzz), tyz - twx],
        [txz - twy, tyz + twx, 1.0 - (txx + tyy)],
    ]
}

/// `q (3 − |q|²) / 2`: one Newton step towards `|q| = 1` (Pinocchio's `firstOrderNormalize`).
pub(crate) fn first_order_normalize(q: &mut Quat) {
    let n2 = q.iter().map(|c| c * c).sum::<f64>();
    let alpha = (3.0 - n2) / 2.0;
    for c in q.iter_mut() {
        *c *= alpha;
    }
}

/// `exp(ω)` on SO(3) as a unit quaternion: `(sin(θ/2) ω/θ, cos(θ/2))`, `θ = |ω|`
/// (Sola (101)).
pub(crate) fn exp3(w: &Vec3) -> Quat {
    let t2 = dot(w, w);
    let t = t2.sqrt();
    let (s, c) = if t < TAYLOR {
        (0.5 - t2 / 48.0, 1.0 - t2 / 8.0)
    } else {
        let (s, c) = (0.5 * t).sin_cos();
        (s / t, c)
    };
    [s * w[0], s * w[1], s * w[2], c]
}

/// `log(q)` on SO(3): `θ u` with `θ = 2 atan2(|v|, w) ∈ [0, π]` after the sign of `q` is
/// chosen with `w ≥ 0` (Sola (105)).
pub(crate) fn log3(q: &Quat) -> Vec3 {
    let sign = if q[3] >= 0.0 { 1.0 } else { -1.0 };
    let (v, w) = ([sign * q[0], sign * q[1], sign * q[2]], sign * q[3]);
    let n2 = dot(&v, &v);
    let n = n2.sqrt();
    let k = if n < TAYLOR {
        // 2 atan(n/w)/n = (2/w)(1 − n²/(3w²) + …)
        2.0 / w * (1.0 - n2 / (3.0 * w * w))
    } else {
        2.0 * n.atan2(w) / n
    };
    scale3(k, &v)
}

/// `V(ω) v = v + (1 − cos θ)/θ² ω×v + (θ − sin θ)/θ³ ω×(ω×v)`: the translation of
/// `exp([v; ω])` on SE(3) (Sola (172), Pinocchio's `exp6`).
pub(crate) fn se3_v(w: &Vec3, v: &Vec3) -> Vec3 {
    let t2 = dot(w, w);
    let t = t2.sqrt();
    let (alpha_v, alpha_w, alpha_wxv) = if t < TAYLOR {
        (1.0 - t2 / 6.0, 1.0 / 6.0 - t2 / 120.0, 0.5 - t2 / 24.0)
    } else {
        let s = t.sin();
        let av = s / t;
        // 1 − cos θ = 2 sin²(θ/2), without cancellation at small θ
        let h = (0.5 * t).sin();
        (av, (1.0 - av) / t2, 2.0 * h * h / t2)
    };
    add3(
        &add3(&scale3(alpha_v, v), &scale3(alpha_w * dot(w, v), w)),
        &scale3(alpha_wxv, &cross(w, v)),
    )
}

/// `V(ω)⁻¹ p = α p − ½ ω×p + β (ω·p) ω`, `α = θ sin θ / (2(1 − cos θ))`,
/// `β = 1/θ² − sin θ / (2θ(1 − cos θ))`: the linear part of `log` on SE(3) (Sola (173),
/// Pinocchio's `log6`).
pub(crate) fn se3_v_inv(w: &Vec3, p: &Vec3) -> Vec3 {
    let t2 = dot(w, w);
    let t = t2.sqrt();
    let (alpha, beta) = if t < TAYLOR {
        (1.0 - t2 / 12.0 - t2 * t2 / 720.0, 1.0 / 12.0 + t2 / 720.0)
    } else {
        let s = t.sin();
        let h = (0.5 * t).sin();
        let one_minus_c = 2.0 * h * h;
        (
            t * s / (2.0 * one_minus_c),
            1.0 / t2 - s / (2.0 * t * one_minus_c),
        )
    };
    add3(
        &add3(&scale3(alpha, p), &scale3(-0.5, &cross(w, p))),
        &scale3(beta * dot(w, p), w),
    )
}

/// `(sin θ / θ, (1 − cos θ) / θ)` with their series near 0: `V(θ) = [[a, −b], [b, a]]` of
/// `exp` on SE(2) (Sola (156)).
pub(crate) fn se2_v(theta: f64) -> (f64, f64) {
    if theta.abs() < TAYLOR {
        let t2 = theta * theta;
        (1.0 - t2 / 6.0, theta / 2.0 - theta * t2 / 24.0)
    } else {
        let h = (0.5 * theta).sin();
        (theta.sin() / theta, 2.0 * h * h / theta)
    }
}

/// `θ sin θ / (2 (1 − cos θ))` with its series near 0: `V(θ)⁻¹ = [[α, θ/2], [−θ/2, α]]`
/// of `log` on SE(2) (Sola (158)).
pub(crate) fn se2_v_inv_alpha(theta: f64) -> f64 {
    let t = theta.abs();
    if t < TAYLOR {
        let t2 = t * t;
        1.0 - t2 / 12.0 - t2 * t2 / 720.0
    } else {
        let h = (0.5 * t).sin();
        t * t.sin() / (4.0 * h * h)
    }
}

/// A uniformly distributed unit quaternion from three uniform samples in `[0, 1)`
/// (Shoemake, "Uniform random rotations", Graphics Gems III, 1992).
pub(crate) fn uniform_quat(u1: f64, u2: f64, u3: f64) -> Quat {
    let (m1, m2) = ((1.0 - u1).sqrt(), u1.sqrt());
    let (s2, c2) = (std::f64::consts::TAU * u2).sin_cos();
    let (s3, c3) = (std::f64::consts::TAU * u3).sin_cos();
    [m1 * c2, m2 * s3, m2 * c3, m1 * s2]
}

/// A uniform sample on the circle, `(cos θ, sin θ)` into `out[..2]`.
pub(crate) fn random_circle(rng: &mut SplitMix64, out: &mut [f64]) {
    let (s, c) = rng
        .uniform(-std::f64::consts::PI, std::f64::consts::PI)
        .sin_cos();
    out[0] = c;
    out[1] = s;
}

/// A uniform sample on SO(3), a unit quaternion `(x, y, z, w)` into `out[..4]`.
pub(crate) fn random_quat(rng: &mut SplitMix64, out: &mut [f64]) {
    let (u1, u2, u3) = (rng.unit(), rng.unit(), rng.unit());
    out[..4].copy_from_slice(&uniform_quat(u1, u2, u3));
}

/// The quaternion stored in `q[..4]` as `(x, y, z, w)`.
pub(crate) fn quat_at(q: &[f64]) -> Quat {
    [q[0], q[1], q[2], q[3]]
}

/// `E = R(q)ᵀ`, the rotation part of `X_J` for the unit quaternion in `q[..4]`.
pub(crate) fn quat_frame(q: &[f64]) -> Mat3 {
    mat3_transpose(&quat_to_matrix(&quat_at(q)))
}
