//! Plücker coordinate transforms.

use super::mat3::{
    add3, cross, mat3_identity, mat3_mul, mat3_transpose, mat3_tvec, mat3_vec, rotation_about,
    scale3, sub3, Mat3, Vec3,
};
use super::vector::{Force, Motion};

/// A Plücker transform from frame A to frame B, RBDA (2.24):
///
/// ```text
/// X = rot(E) xlt(r) = [E 0; −E r× E],   X m = [E ω; E (v − r × ω)]
/// X* f = [E (n − r × f); E f]
/// ```
///
/// `rot` is the coordinate rotation `E` (A-coordinates → B-coordinates, i.e.
/// the transpose of the active rotation that carries A's axes onto B's), and
/// `trans` is the position `r` of B's origin in A-coordinates
/// (spatial_v2 `plux(E, r)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Coordinate rotation `E` (A → B).
    pub rot: Mat3,
    /// Origin `r` of B in A-coordinates \[m\].
    pub trans: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// The identity transform.
    pub const IDENTITY: Transform = Transform {
        rot: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        trans: [0.0; 3],
    };

    /// `rot(E)`: pure coordinate rotation.
    pub fn rotation(e: Mat3) -> Self {
        Self {
            rot: e,
            trans: [0.0; 3],
        }
    }

    /// `xlt(r)`: pure translation of the origin to `r`.
    pub fn translation(r: Vec3) -> Self {
        Self {
            rot: mat3_identity(),
            trans: r,
        }
    }

    /// Transform to a frame B whose axes are the columns of the active rotation
    /// `r_active` and whose origin is `origin`, both in A-coordinates
    /// (a URDF `<origin>`): `E = Rᵀ`, `r = origin`.
    pub fn from_pose(r_active: &Mat3, origin: Vec3) -> Self {
        Self {
            rot: mat3_transpose(r_active),
            trans: origin,
        }
    }

    /// spatial_v2 `rotx(θ)`: frame B rotated by θ about A's x axis.
    pub fn rot_x(theta: f64) -> Self {
        Self::rotation(mat3_transpose(&rotation_about(&[1.0, 0.0, 0.0], theta)))
    }
    /// spatial_v2 `roty(θ)`.
    pub fn rot_y(theta: f64) -> Self {
        Self::rotation(mat3_transpose(&rotation_about(&[0.0, 1.0, 0.0], theta)))
    }
    /// spatial_v2 `rotz(θ)`.
    pub fn rot_z(theta: f64) -> Self {
        Self::rotation(mat3_transpose(&rotation_about(&[0.0, 0.0, 1.0], theta)))
    }

    /// `X m = [E ω; E (v − r × ω)]`.
    #[inline]
    pub fn apply_motion(&self, m: &Motion) -> Motion {
        Motion {
            ang: mat3_vec(&self.rot, &m.ang),
            lin: mat3_vec(&self.rot, &sub3(&m.lin, &cross(&self.trans, &m.ang))),
        }
    }

    /// `X* f = [E (n − r × f); E f]`.
    #[inline]
    pub fn apply_force(&self, f: &Force) -> Force {
        Force {
            ang: mat3_vec(&self.rot, &sub3(&f.ang, &cross(&self.trans, &f.lin))),
            lin: mat3_vec(&self.rot, &f.lin),
        }
    }

    /// `X⁻¹ m = [Eᵀ ω; Eᵀ v + r × Eᵀ ω]` (B-coordinates back to A).
    #[inline]
    pub fn inv_apply_motion(&self, m: &Motion) -> Motion {
        let w = mat3_tvec(&self.rot, &m.ang);
        Motion {
            ang: w,
            lin: add3(&mat3_tvec(&self.rot, &m.lin), &cross(&self.trans, &w)),
        }
    }

    /// `Xᵀ f = (X*)⁻¹ f = [Eᵀ n + r × Eᵀ f; Eᵀ f]` (a force in B moved to A).
    #[inline]
    pub fn transpose_apply_force(&self, f: &Force) -> Force {
        let fl = mat3_tvec(&self.rot, &f.lin);
        Force {
            ang: add3(&mat3_tvec(&self.rot, &f.ang), &cross(&self.trans, &fl)),
            lin: fl,
        }
    }

    /// Composition `self · rhs` (apply `rhs` first): for `rhs: A → B` and
    /// `self: B → C`, the result maps A → C with `E = E₂E₁`, `r = r₁ + E₁ᵀ r₂`.
    #[inline]
    pub fn compose(&self, rhs: &Transform) -> Transform {
        Transform {
            rot: mat3_mul(&self.rot, &rhs.rot),
            trans: add3(&rhs.trans, &mat3_tvec(&rhs.rot, &self.trans)),
        }
    }

    /// `X⁻¹` (B → A): `E' = Eᵀ`, `r' = −E r`.
    #[inline]
    pub fn inverse(&self) -> Transform {
        Transform {
            rot: mat3_transpose(&self.rot),
            trans: scale3(-1.0, &mat3_vec(&self.rot, &self.trans)),
        }
    }

    /// A point with A-coordinates `p` expressed in B-coordinates: `E (p − r)`.
    #[inline]
    pub fn apply_point(&self, p: &Vec3) -> Vec3 {
        mat3_vec(&self.rot, &sub3(p, &self.trans))
    }

    /// A point with B-coordinates `p` expressed in A-coordinates: `r + Eᵀ p`.
    #[inline]
    pub fn inv_apply_point(&self, p: &Vec3) -> Vec3 {
        add3(&self.trans, &mat3_tvec(&self.rot, p))
    }

    /// The 6×6 motion-transform matrix `[E 0; −E r× E]` (row-major).
    pub fn to_matrix(&self) -> [[f64; 6]; 6] {
        let mut out = [[0.0; 6]; 6];
        for k in 0..6 {
            let mut e = [0.0; 6];
            e[k] = 1.0;
            let col = self.apply_motion(&Motion::from_array(e)).to_array();
            for i in 0..6 {
                out[i][k] = col[i];
            }
        }
        out
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::spatial::rpy_to_matrix;

    pub(crate) fn mat6_mul(a: &[[f64; 6]; 6], b: &[[f64; 6]; 6]) -> [[f64; 6]; 6] {
        let mut c = [[0.0; 6]; 6];
        for i in 0..6 {
            for j in 0..6 {
                c[i][j] = (0..6).map(|k| a[i][k] * b[k][j]).sum();
            }
        }
        c
    }
    pub(crate) fn mat6_t(a: &[[f64; 6]; 6]) -> [[f64; 6]; 6] {
        let mut c = [[0.0; 6]; 6];
        for i in 0..6 {
            for j in 0..6 {
                c[i][j] = a[j][i];
            }
        }
        c
    }
    pub(crate) fn mat6_vec(a: &[[f64; 6]; 6], x: &[f64; 6]) -> [f64; 6] {
        let mut y = [0.0; 6];
        for i in 0..6 {
            y[i] = (0..6).map(|k| a[i][k] * x[k]).sum();
        }
        y
    }
    pub(crate) fn sample() -> Transform {
        Transform::from_pose(&rpy_to_matrix(&[0.3, -0.8, 1.9]), [0.4, -1.1, 0.25])
    }
    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
    }

    #[test]
    fn force_transform_is_the_inverse_transpose_and_preserves_power() {
        let x = sample();
        let xm = x.to_matrix();
        let m = Motion::from_array([0.3, -1.2, 0.7, 2.0, 0.1, -0.4]);
        let f = Force::from_array([0.2, -0.7, 1.3, 0.4, 0.0, 2.0]);
        // X* = X⁻ᵀ  ⇔  (X m)·(X* f) = m·f
        let p0 = m.dot(&f);
        let p1 = x.apply_motion(&m).dot(&x.apply_force(&f));
        assert!((p0 - p1).abs() < 1e-14, "{p0} {p1}");
        // Xᵀ f agrees with the matrix transpose
        let xt_f = mat6_vec(&mat6_t(&xm), &f.to_array());
        assert!(close(&x.transpose_apply_force(&f).to_array(), &xt_f, 1e-14));
        // X* f agrees with the inverse transpose: Xᵀ (X* f) = f
        let back = x.transpose_apply_force(&x.apply_force(&f)).to_array();
        assert!(close(&back, &f.to_array(), 1e-14));
        // X⁻¹ (X m) = m
        let back = x.inv_apply_motion(&x.apply_motion(&m)).to_array();
        assert!(close(&back, &m.to_array(), 1e-14));
        // inverse() matches inv_apply_motion
        assert!(close(
            &x.inverse().apply_motion(&m).to_array(),
            &x.inv_apply_motion(&m).to_array(),
            1e-14
        ));
    }

    #[test]
    fn composition_matches_the_matrix_product_and_cross_products_transform() {
        let a = sample();
        let b = Transform::from_pose(&rpy_to_matrix(&[-1.0, 0.2, 0.5]), [1.0, 0.3, -0.6]);
        let ab = b.compose(&a).to_matrix();
        let prod = mat6_mul(&b.to_matrix(), &a.to_matrix());
        for i in 0..6 {
            assert!(close(&ab[i], &prod[i], 1e-14), "{ab:?}\n{prod:?}");
        }
        // X (m × m') = (X m) × (X m'),  X* (m ×* f) = (X m) ×* (X* f)
        let m = Motion::from_array([0.3, -1.2, 0.7, 2.0, 0.1, -0.4]);
        let m2 = Motion::from_array([1.0, 0.5, -0.2, 0.3, 0.9, -1.1]);
        let f = Force::from_array([0.2, -0.7, 1.3, 0.4, 0.0, 2.0]);
        let l = a.apply_motion(&m.cross_motion(&m2)).to_array();
        let r = a
            .apply_motion(&m)
            .cross_motion(&a.apply_motion(&m2))
            .to_array();
        assert!(close(&l, &r, 1e-13));
        let l = a.apply_force(&m.cross_force(&f)).to_array();
        let r = a
            .apply_motion(&m)
            .cross_force(&a.apply_force(&f))
            .to_array();
        assert!(close(&l, &r, 1e-13));
        // points
        let p = [0.7, -0.2, 1.5];
        let back = a.inv_apply_point(&a.apply_point(&p));
        assert!(close(&back, &p, 1e-15));
    }
}
