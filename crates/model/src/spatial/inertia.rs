//! Spatial inertias.

use super::mat3::{
    add3, cross, dot, mat3_mul, mat3_transpose, mat3_tvec, mat3_vec, scale3, skew, sub3, Mat3, Vec3,
};
use super::transform::Transform;
use super::vector::{Force, Motion};
use std::ops::{Add, AddAssign};

/// A rigid-body spatial inertia in the compact form of RBDA (2.62)
/// (spatial_v2 `mcI(m, c, I_c)`):
///
/// ```text
/// I = [Ī  h×; h×ᵀ  m 1₃],   h = m c,   Ī = I_c + m c× c×ᵀ
/// I [ω; v] = [Ī ω + h × v; m v − h × ω]
/// ```
///
/// `Ī` is the rotational inertia about the frame origin, `h` the first moment
/// of mass. Sums of inertias (composite bodies, massless frames with `m = 0`)
/// are represented exactly.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SpatialInertia {
    /// Mass m \[kg\].
    pub mass: f64,
    /// First moment of mass `h = m c` \[kg·m\].
    pub h: Vec3,
    /// Rotational inertia `Ī` about the frame origin \[kg·m²\] (symmetric).
    pub ibar: Mat3,
}

impl SpatialInertia {
    /// `mcI(m, c, I_c)`: mass `m`, centre of mass `c`, rotational inertia
    /// `I_c` about the centre of mass (all in the body frame).
    pub fn from_mass_com_inertia(mass: f64, com: Vec3, i_c: Mat3) -> Self {
        let cx = skew(&com);
        let cct = mat3_mul(&cx, &mat3_transpose(&cx));
        let mut ibar = i_c;
        for i in 0..3 {
            for j in 0..3 {
                ibar[i][j] += mass * cct[i][j];
            }
        }
        Self {
            mass,
            h: scale3(mass, &com),
            ibar,
        }
    }

    /// Centre of mass `c = h / m` (`None` for a massless body).
    pub fn com(&self) -> Option<Vec3> {
        (self.mass > 0.0).then(|| scale3(1.0 / self.mass, &self.h))
    }

    /// `I m`, RBDA (2.62).
    #[inline]
    pub fn apply(&self, m: &Motion) -> Force {
        Force {
            ang: add3(&mat3_vec(&self.ibar, &m.ang), &cross(&self.h, &m.lin)),
            lin: sub3(&scale3(self.mass, &m.lin), &cross(&self.h, &m.ang)),
        }
    }

    /// Kinetic energy `½ vᵀ I v`.
    #[inline]
    pub fn kinetic_energy(&self, v: &Motion) -> f64 {
        0.5 * v.dot(&self.apply(v))
    }

    /// `Xᵀ I X` for `X: A → B` and `self` expressed in B: the same inertia
    /// expressed in A (the CRBA step `I^c_λ += Xᵀ I^c_i X`, RBDA Table 6.2).
    ///
    /// With `h' = Eᵀh`, `Ī' = Eᵀ Ī E`: `h_A = h' + m r`,
    /// `Ī_A = Ī' − m r×r× − h'×r× − r×h'×`, evaluated with `a×b× = b aᵀ − (a·b) 1` as
    /// `Ī_A = Ī' − m (r rᵀ − (r·r) 1) − (r h'ᵀ + h' rᵀ) + 2 (h'·r) 1` on the upper triangle
    /// (symmetric by construction; `Ī'` from `Ī E` and the upper triangle of `Eᵀ (Ī E)`).
    #[inline]
    pub fn transform_transpose(&self, x: &Transform) -> SpatialInertia {
        let e = &x.rot;
        let hp = mat3_tvec(e, &self.h);
        let ie = mat3_mul(&self.ibar, e);
        let r = &x.trans;
        let m = self.mass;
        let rr = dot(r, r);
        let hr = dot(&hp, r);
        let diag = m * rr + 2.0 * hr;
        let mut ibar = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in i..3 {
                // (Eᵀ Ī E)_ij = Σ_k E_ki (Ī E)_kj
                let ip = e[0][i] * ie[0][j] + e[1][i] * ie[1][j] + e[2][i] * ie[2][j];
                let mut v = ip - m * r[i] * r[j] - (r[i] * hp[j] + hp[i] * r[j]);
                if i == j {
                    v += diag;
                }
                ibar[i][j] = v;
                ibar[j][i] = v;
            }
        }
        SpatialInertia {
            mass: m,
            h: add3(&hp, &scale3(m, r)),
            ibar,
        }
    }

    /// `X* I X⁻¹` for `X: A → B` and `self` expressed in A: the inertia expressed in B.
    pub fn transform(&self, x: &Transform) -> SpatialInertia {
        self.transform_transpose(&x.inverse())
    }

    /// The 6×6 matrix (row-major).
    pub fn to_matrix(&self) -> [[f64; 6]; 6] {
        let mut out = [[0.0; 6]; 6];
        for k in 0..6 {
            let mut e = [0.0; 6];
            e[k] = 1.0;
            let col = self.apply(&Motion::from_array(e)).to_array();
            for i in 0..6 {
                out[i][k] = col[i];
            }
        }
        out
    }

    /// `true` when every entry is finite.
    pub fn is_finite(&self) -> bool {
        self.mass.is_finite()
            && self.h.iter().all(|x| x.is_finite())
            && self.ibar.iter().flatten().all(|x| x.is_finite())
    }
}

/// A rigid-body inertia about its centre of mass, RBDA (2.63): mass `m`, centre of mass `c`
/// and rotational inertia `I_c` about it (Pinocchio's `Inertia`): the constant per-body form
/// from which [`CentroidalInertia::transform_transpose`] forms the inertia in another frame
/// with one congruence of a symmetric 3×3 and one parallel-axis term, RBDA (2.66).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CentroidalInertia {
    /// Mass m \[kg\].
    mass: f64,
    /// Centre of mass `c` \[m\] (the origin when `m = 0`).
    com: Vec3,
    /// `I_c` \[kg·m²\] as `[(xx − zz)/2, (yy − zz)/2, xy, xz, yz, zz]` (see
    /// [`CentroidalInertia::transform_transpose`]).
    l: [f64; 6],
}

impl CentroidalInertia {
    /// `c = h / m`, `I_c = Ī − m c× c×ᵀ` (RBDA (2.63) inverted); a massless inertia keeps
    /// `c = 0`, `I_c = Ī`. `None` for `m = 0` with `h ≠ 0` (not a rigid body: no centre of mass)
    /// and when `c` or `I_c` overflows (`h / m` for a subnormal `m`).
    pub(crate) fn from_spatial(i: &SpatialInertia) -> Option<Self> {
        let m = i.mass;
        let (com, cc) = if m == 0.0 {
            if i.h != [0.0; 3] {
                return None;
            }
            ([0.0; 3], 0.0)
        } else {
            // `h / m`, not `(1 / m) h`: a subnormal mass has an infinite reciprocal
            let c = [i.h[0] / m, i.h[1] / m, i.h[2] / m];
            (c, dot(&c, &c))
        };
        // Ī − m c× c×ᵀ = Ī − m (|c|² 1 − c cᵀ)
        let e = |r: usize, k: usize| {
            let d = if r == k { cc } else { 0.0 };
            i.ibar[r][k] - m * (d - com[r] * com[k])
        };
        let zz = e(2, 2);
        let l = [
            0.5 * (e(0, 0) - zz),
            0.5 * (e(1, 1) - zz),
            e(0, 1),
            e(0, 2),
            e(1, 2),
            zz,
        ];
        let finite = com.iter().chain(&l).all(|v| v.is_finite());
        finite.then_some(Self { mass: m, com, l })
    }

    /// `Xᵀ I X` for `X: A → B` and `self` expressed in B, as a [`SpatialInertia`] in A (the
    /// result of [`SpatialInertia::transform_transpose`], to round-off), RBDA (2.66): with
    /// `X = (E, r)`, the centre of mass in A is `c' = r + Eᵀ c` and the rotational inertia
    /// about it `I_c' = Eᵀ I_c E`, so `h = m c'` and `Ī = I_c' + m (|c'|² 1 − c' c'ᵀ)`
    /// (RBDA (2.63)), evaluated as `Ī_ij = I_c'_ij + (h·c') δ_ij − h_i c'_j` on the upper
    /// triangle and mirrored. `I_c'` takes 69 flops instead of 75 from the splitting of
    /// `I_c − I_zz 1` below (it uses `EᵀE = 1`, so it is exact only to round-off in `E`).
    #[inline]
    pub(crate) fn transform_transpose(&self, x: &Transform) -> SpatialInertia {
        let e = &x.rot;
        // I_c = L Pᵀ + P Lᵀ + I_zz 1 with P = [e_x e_y] and L = [[(xx − zz)/2, 0],
        // [xy, (yy − zz)/2], [xz, yz]] (Pinocchio's `Symmetric3::rotate`), so with EᵀE = 1,
        // Eᵀ I_c E = K Qᵀ + Q Kᵀ + I_zz 1 for K = Eᵀ L and Q = Eᵀ P (rows 0 and 1 of E).
        let [a2, b2, xy, xz, yz, zz] = self.l;
        let (e0, e1, e2) = (&e[0], &e[1], &e[2]);
        let mut k0 = [0.0; 3];
        let mut k1 = [0.0; 3];
        for i in 0..3 {
            k0[i] = e0[i] * a2 + e1[i] * xy + e2[i] * xz;
            k1[i] = e1[i] * b2 + e2[i] * yz;
        }
        let m = self.mass;
        let c = add3(&x.trans, &mat3_tvec(e, &self.com));
        let h = scale3(m, &c);
        let diag = zz + dot(&h, &c);
        let mut ibar = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in i..3 {
                let mut v =
                    (k0[i] * e0[j] + k1[i] * e1[j]) + (e0[i] * k0[j] + e1[i] * k1[j]) - h[i] * c[j];
                if i == j {
                    v += diag;
                }
                ibar[i][j] = v;
                ibar[j][i] = v;
            }
        }
        SpatialInertia { mass: m, h, ibar }
    }
}

impl Add for SpatialInertia {
    type Output = SpatialInertia;
    fn add(self, o: SpatialInertia) -> SpatialInertia {
        let mut ibar = self.ibar;
        for i in 0..3 {
            for j in 0..3 {
                ibar[i][j] += o.ibar[i][j];
            }
        }
        SpatialInertia {
            mass: self.mass + o.mass,
            h: add3(&self.h, &o.h),
            ibar,
        }
    }
}

impl AddAssign for SpatialInertia {
    fn add_assign(&mut self, o: SpatialInertia) {
        *self = *self + o;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::transform::tests::{mat6_mul, mat6_t, sample};

    fn body() -> SpatialInertia {
        SpatialInertia::from_mass_com_inertia(
            2.5,
            [0.3, -0.2, 0.7],
            [[0.4, 0.02, -0.01], [0.02, 0.3, 0.05], [-0.01, 0.05, 0.2]],
        )
    }

    #[test]
    fn matrix_is_symmetric_positive_and_matches_mci() {
        let i = body();
        let m = i.to_matrix();
        for r in 0..6 {
            for c in 0..6 {
                assert!((m[r][c] - m[c][r]).abs() < 1e-15);
            }
        }
        let c = i.com().unwrap();
        assert!((c[0] - 0.3).abs() + (c[1] + 0.2).abs() + (c[2] - 0.7).abs() < 1e-15);
        // lower-left block m c×ᵀ, lower-right m 1
        assert!((m[3][3] - 2.5).abs() < 1e-15 && m[3][4] == 0.0);
        assert!((m[4][0] - (-2.5 * 0.7)).abs() < 1e-15, "{}", m[4][0]);
        let v = Motion::from_array([0.3, -1.2, 0.7, 2.0, 0.1, -0.4]);
        assert!(i.kinetic_energy(&v) > 0.0);
    }

    #[test]
    fn inertia_transform_matches_the_6x6_congruence() {
        let i = body();
        let x = sample();
        let xm = x.to_matrix();
        let expect = mat6_mul(&mat6_t(&xm), &mat6_mul(&i.to_matrix(), &xm));
        let got = i.transform_transpose(&x).to_matrix();
        for r in 0..6 {
            for c in 0..6 {
                assert!(
                    (got[r][c] - expect[r][c]).abs() < 1e-13,
                    "({r},{c}) {} {}",
                    got[r][c],
                    expect[r][c]
                );
            }
        }
        // transform then back is the identity; kinetic energy is frame independent
        let back = i.transform(&x).transform_transpose(&x).to_matrix();
        let orig = i.to_matrix();
        for r in 0..6 {
            for c in 0..6 {
                assert!((back[r][c] - orig[r][c]).abs() < 1e-13);
            }
        }
        let v = Motion::from_array([0.3, -1.2, 0.7, 2.0, 0.1, -0.4]);
        let t_b = i.kinetic_energy(&v);
        let t_a = i
            .transform_transpose(&x)
            .kinetic_energy(&x.inv_apply_motion(&v));
        assert!((t_a - t_b).abs() < 1e-13 * t_b, "{t_a} {t_b}");
    }

    #[test]
    fn centroidal_form_matches_transform_transpose() {
        let x = sample();
        let x2 = Transform::from_pose(
            &crate::spatial::rpy_to_matrix(&[-2.1, 0.4, -0.7]),
            [-3.0, 0.05, 1.7],
        );
        let massless = SpatialInertia {
            mass: 0.0,
            h: [0.0; 3],
            ibar: [[0.3, 0.01, 0.0], [0.01, 0.2, -0.02], [0.0, -0.02, 0.1]],
        };
        let at_origin = SpatialInertia::from_mass_com_inertia(
            1.3,
            [0.0; 3],
            [[0.1, 0.0, 0.0], [0.0, 0.2, 0.0], [0.0, 0.0, 0.3]],
        );
        for i in [body(), massless, at_origin, SpatialInertia::default()] {
            let c = CentroidalInertia::from_spatial(&i).unwrap();
            for x in [x, x2, Transform::IDENTITY] {
                let (got, want) = (c.transform_transpose(&x), i.transform_transpose(&x));
                let scale = want
                    .ibar
                    .iter()
                    .flatten()
                    .fold(want.mass, |a, v| a.max(v.abs()));
                let err = got
                    .ibar
                    .iter()
                    .flatten()
                    .zip(want.ibar.iter().flatten())
                    .chain(got.h.iter().zip(&want.h))
                    .fold(0.0f64, |a, (g, w)| a.max((g - w).abs()));
                assert!(
                    err <= 1e-14 * scale.max(f64::MIN_POSITIVE),
                    "{err:e} {got:?} {want:?}"
                );
                assert_eq!(got.mass, want.mass);
                assert_eq!(got.ibar[0][1], got.ibar[1][0]);
            }
        }
        // a massless inertia with a first moment has no centre of mass
        let odd = SpatialInertia {
            h: [0.1, 0.0, 0.0],
            ..massless
        };
        assert!(CentroidalInertia::from_spatial(&odd).is_none());
    }
}
