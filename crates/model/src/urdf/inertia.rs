//! Checking and repairing a link's rotational inertia `I_c` (about the centre of mass).
//!
//! A tensor that the dynamics can use is symmetric positive semi-definite: the kinetic energy
//! `½ ωᵀ I_c ω` is never negative and the mass matrix stays positive definite. A physical mass
//! distribution also satisfies the triangle inequalities of its principal moments
//! `I_k ≤ I_i + I_j`, but a tensor that breaks them and is positive semi-definite still gives
//! a positive kinetic energy: the dynamics are well defined, only the body is not realizable.

use crate::spatial::Mat3;
use nalgebra::Matrix3;

/// The eigen-decomposition `I = V diag(λ) Vᵀ` of a symmetric tensor, `λ` ascending.
pub(super) struct Principal {
    /// Principal moments, ascending.
    pub(super) moments: [f64; 3],
    vectors: Matrix3<f64>,
}

impl Principal {
    /// The principal moments and axes of the symmetric `i` (finite).
    pub(super) fn of(i: &Mat3) -> Self {
        let m = Matrix3::from_fn(|r, c| i[r][c]);
        let eig = m.symmetric_eigen();
        let mut idx = [0usize, 1, 2];
        idx.sort_by(|&a, &b| eig.eigenvalues[a].total_cmp(&eig.eigenvalues[b]));
        let moments = idx.map(|k| eig.eigenvalues[k]);
        let vectors = Matrix3::from_fn(|r, c| eig.eigenvectors[(r, idx[c])]);
        Self { moments, vectors }
    }

    /// The largest amount by which one principal moment exceeds the sum of the other two
    /// (`≤ 0` when the triangle inequalities hold).
    pub(super) fn triangle_excess(&self) -> f64 {
        let [a, b, c] = self.moments;
        (c - a - b).max(b - a - c).max(a - b - c)
    }

    /// The nearest positive semi-definite tensor in the Frobenius norm: the negative principal
    /// moments set to zero (Higham, "Computing a nearest symmetric positive semidefinite
    /// matrix", 1988, Theorem 2.1).
    pub(super) fn clipped(&self) -> Mat3 {
        let d = Matrix3::from_diagonal(&nalgebra::Vector3::from(self.moments.map(|l| l.max(0.0))));
        let m = self.vectors * d * self.vectors.transpose();
        let mut out = [[0.0; 3]; 3];
        for r in 0..3 {
            for c in 0..3 {
                // symmetric to the last bit
                out[r][c] = 0.5 * (m[(r, c)] + m[(c, r)]);
            }
        }
        out
    }
}

/// The strict check: positive semi-definite and the triangle inequalities, both to a relative
/// round-off of `1e-9` of the trace.
pub(super) fn strictly_valid(i: &Mat3) -> bool {
    let (a, b, c) = (i[0][0], i[1][1], i[2][2]);
    let scale = (a.abs() + b.abs() + c.abs()).max(f64::MIN_POSITIVE);
    let tol = 1e-9 * scale;
    let minors2 = a * b - i[0][1] * i[0][1] >= -tol * scale
        && b * c - i[1][2] * i[1][2] >= -tol * scale
        && a * c - i[0][2] * i[0][2] >= -tol * scale;
    let det = a * (b * c - i[1][2] * i[2][1]) - i[0][1] * (i[1][0] * c - i[1][2] * i[2][0])
        + i[0][2] * (i[1][0] * i[2][1] - b * i[2][0]);
    a >= -tol
        && b >= -tol
        && c >= -tol
        && minors2
        && det >= -tol * scale * scale
        && a + b >= c - tol
        && b + c >= a - tol
        && a + c >= b - tol
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_removes_only_the_negative_moment() {
        // diag(1, 2, −1e-9) rotated about z by 0.3
        let (s, c) = 0.3f64.sin_cos();
        let r = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]];
        let d = [1.0, -1e-9, 2.0];
        let mut i = [[0.0; 3]; 3];
        for a in 0..3 {
            for b in 0..3 {
                i[a][b] = (0..3).map(|k| r[a][k] * d[k] * r[b][k]).sum();
            }
        }
        let p = Principal::of(&i);
        assert!((p.moments[0] + 1e-9).abs() < 1e-15);
        let fixed = Principal::of(&p.clipped());
        assert!(fixed.moments[0].abs() < 1e-15, "{:?}", fixed.moments);
        assert!((fixed.moments[1] - 1.0).abs() < 1e-14);
        assert!((fixed.moments[2] - 2.0).abs() < 1e-14);
        // the triangle excess: 2 − 1 − 0 = 1 > 0
        assert!((fixed.triangle_excess() - 1.0).abs() < 1e-14);
        assert!(!strictly_valid(&i));
    }
}
