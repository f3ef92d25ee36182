//! Articulated-body inertias (RBDA §7.1): symmetric 6×6 matrices
//!
//! ```text
//! I^A = [ A   B ]      f = I^A m:  [n; f] = [A ω + B v; Bᵀ ω + C v]
//!       [ Bᵀ  C ]      (A = Aᵀ, C = Cᵀ; for a rigid body A = Ī, B = h×, C = m 1)
//! ```
//!
//! Unlike a [`SpatialInertia`] an articulated inertia has a general `C` block, so it is
//! stored as three 3×3 blocks.

use super::mat3::{mat3_mul, mat3_transpose, mat3_tvec, mat3_vec, skew, Mat3};
use super::{Force, Motion, SpatialInertia, Transform};

/// A symmetric 6×6 articulated-body inertia `[A B; Bᵀ C]` (RBDA §7.1, Table 7.1).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ArticulatedInertia {
    /// Angular–angular block `A` (symmetric).
    pub a: Mat3,
    /// Angular–linear block `B`.
    pub b: Mat3,
    /// Linear–linear block `C` (symmetric).
    pub c: Mat3,
}

impl From<&SpatialInertia> for ArticulatedInertia {
    /// A rigid body's inertia: `A = Ī`, `B = h×`, `C = m 1` (RBDA (2.62)).
    fn from(i: &SpatialInertia) -> Self {
        let m = i.mass;
        Self {
            a: i.ibar,
            b: skew(&i.h),
            c: [[m, 0.0, 0.0], [0.0, m, 0.0], [0.0, 0.0, m]],
        }
    }
}

impl ArticulatedInertia {
    /// `I^A m = [A ω + B v; Bᵀ ω + C v]`.
    #[inline]
    pub fn apply(&self, m: &Motion) -> Force {
        let (w, v) = (&m.ang, &m.lin);
        let aw = mat3_vec(&self.a, w);
        let bv = mat3_vec(&self.b, v);
        let btw = mat3_tvec(&self.b, w);
        let cv = mat3_vec(&self.c, v);
        Force {
            ang: [aw[0] + bv[0], aw[1] + bv[1], aw[2] + bv[2]],
            lin: [btw[0] + cv[0], btw[1] + cv[1], btw[2] + cv[2]],
        }
    }

    /// `I^A − U Uᵀ / d` for a force-like 6-vector `U` (RBDA Table 7.1, `I^a = I^A − U D⁻¹ Uᵀ`).
    #[inline]
    pub fn sub_outer(&self, u: &Force, d: f64) -> Self {
        let mut out = *self;
        let (ua, ul) = (&u.ang, &u.lin);
        for i in 0..3 {
            let (sa, sl) = (ua[i] / d, ul[i] / d);
            for j in 0..3 {
                out.a[i][j] -= sa * ua[j];
                out.b[i][j] -= sa * ul[j];
                out.c[i][j] -= sl * ul[j];
            }
        }
        out
    }

    /// `Xᵀ I^A X` for `X: A → B` and `self` in B-coordinates: the same inertia in A
    /// (RBDA Table 7.1, `I^A_λ(i) += X_upᵀ I^a_i X_up`). With `A', B', C'` the blocks rotated
    /// by `E` (`A' = Eᵀ A E` …) and `X = rot(E) xlt(r)`, `xlt(r) = [1 0; −r× 1]`:
    ///
    /// ```text
    /// C_A = C',   B_A = B' + r× C',   A_A = A' − B' r× + r× B'ᵀ − r× C' r×
    /// ```
    pub fn transform_transpose(&self, x: &Transform) -> Self {
        let e = &x.rot;
        let et = mat3_transpose(e);
        let a1 = mat3_mul(&et, &mat3_mul(&self.a, e));
        let b1 = mat3_mul(&et, &mat3_mul(&self.b, e));
        let c1 = mat3_mul(&et, &mat3_mul(&self.c, e));
        let rx = skew(&x.trans);
        let rc = mat3_mul(&rx, &c1); // r× C'
        let br = mat3_mul(&b1, &rx); // B' r×
        let rcr = mat3_mul(&rc, &rx); // r× C' r×
        let mut a = a1;
        let mut b = b1;
        for i in 0..3 {
            for j in 0..3 {
                // r× B'ᵀ = −(B' r×)ᵀ
                a[i][j] += -br[i][j] - br[j][i] - rcr[i][j];
                b[i][j] += rc[i][j];
            }
        }
        // exact symmetry of the diagonal blocks (symmetric up to rounding)
        let mut c = c1;
        for i in 0..3 {
            for j in 0..i {
                let s = 0.5 * (a[i][j] + a[j][i]);
                a[i][j] = s;
                a[j][i] = s;
                let s = 0.5 * (c[i][j] + c[j][i]);
                c[i][j] = s;
                c[j][i] = s;
            }
        }
        Self { a, b, c }
    }

    /// `self += o`.
    #[inline]
    pub fn add_assign(&mut self, o: &Self) {
        for i in 0..3 {
            for j in 0..3 {
                self.a[i][j] += o.a[i][j];
                self.b[i][j] += o.b[i][j];
                self.c[i][j] += o.c[i][j];
            }
        }
    }

    /// The 6×6 matrix (row-major).
    pub fn to_matrix(&self) -> [[f64; 6]; 6] {
        let mut out = [[0.0; 6]; 6];
        for i in 0..3 {
            for j in 0..3 {
                out[i][j] = self.a[i][j];
                out[i][j + 3] = self.b[i][j];
                out[i + 3][j] = self.b[j][i];
                out[i + 3][j + 3] = self.c[i][j];
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::rpy_to_matrix;

    /// For a rigid body, `Xᵀ I X` of the articulated form equals the rigid-body formula, and
    /// both equal the 6×6 product `Xᵀ I X`.
    #[test]
    fn transform_matches_rigid_body_and_6x6_product() {
        let i = SpatialInertia::from_mass_com_inertia(
            2.5,
            [0.1, -0.3, 0.2],
            [[0.4, 0.01, 0.02], [0.01, 0.3, -0.03], [0.02, -0.03, 0.2]],
        );
        let x = Transform::from_pose(&rpy_to_matrix(&[0.3, -0.7, 1.1]), [0.5, 0.2, -0.4]);
        let art = ArticulatedInertia::from(&i).transform_transpose(&x);
        let rigid = ArticulatedInertia::from(&i.transform_transpose(&x));
        let (xm, im) = (x.to_matrix(), ArticulatedInertia::from(&i).to_matrix());
        let got = art.to_matrix();
        for r in 0..6 {
            for c in 0..6 {
                let mut p = 0.0;
                for k in 0..6 {
                    for l in 0..6 {
                        p += xm[k][r] * im[k][l] * xm[l][c];
                    }
                }
                assert!(
                    (got[r][c] - p).abs() < 1e-14,
                    "({r},{c}): {} vs {p}",
                    got[r][c]
                );
                assert!((got[r][c] - rigid.to_matrix()[r][c]).abs() < 1e-14);
                assert_eq!(got[r][c], got[c][r]);
            }
        }
        // apply = the 6×6 matrix times the vector; sub_outer = I − U Uᵀ / d
        let m = Motion::new([0.3, -1.0, 0.5], [2.0, 0.1, -0.7]);
        let f = art.apply(&m).to_array();
        let ma = m.to_array();
        let u = Force::new([0.2, 0.4, -0.1], [1.0, -0.5, 0.3]);
        let s = art.sub_outer(&u, 2.0).to_matrix();
        let ua = u.to_array();
        for r in 0..6 {
            let p: f64 = (0..6).map(|k| got[r][k] * ma[k]).sum();
            assert!((f[r] - p).abs() < 1e-14);
            for c in 0..6 {
                assert!((s[r][c] - (got[r][c] - ua[r] * ua[c] / 2.0)).abs() < 1e-14);
            }
        }
    }
}
