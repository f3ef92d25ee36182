//! [`Joint`], the tree's joint value, dispatching to the kinds of this folder, and
//! [`JointModel`], its form with the axis classified for the recursive algorithms
//! (RBDA Table 4.1; spatial_v2 `jcalc`).

use super::{FreeFlyer, JointKind, Planar, Prismatic, Revolute, RevoluteUnbounded, Spherical};
use crate::rng::SplitMix64;
use crate::spatial::{
    add3, cross, dot, mat3_mul, mat3_transpose, mat3_tvec, rotation_about, scale3, Mat3, Motion,
    Transform, Vec3,
};
use crate::tree::configuration::Product;
use crate::validate::check_len;
use crate::ModelError;

/// A joint connecting a body to its parent.
///
/// | variant | nq | nv | `X_J(q)` | `S` |
/// |---|---|---|---|---|
/// | `Revolute { axis: a }` | 1 | 1 | `rot(R(a, q)ᵀ)` | `[a; 0]` |
/// | `Prismatic { axis: a }` | 1 | 1 | `xlt(a q)` | `[0; a]` |
/// | `RevoluteUnbounded { axis: a }` | 2 | 1 | `rot(R(a, θ)ᵀ)`, `q = (cos θ, sin θ)` | `[a; 0]` |
/// | `Spherical` | 4 | 3 | `rot(R(q)ᵀ)`, `q` a unit quaternion | `[1; 0]` |
/// | `FreeFlyer` | 7 | 6 | `(R(q)ᵀ, p)` | `1` (linear, angular) |
/// | `Planar` | 4 | 3 | `(R_z(θ)ᵀ, (x, y, 0))` | `[0 0 e_z; e_x e_y 0]` |
/// | `Fixed` | 0 | 0 | `1` | (none) |
///
/// Axes are unit vectors in the joint (= child body) frame. Every `S` is constant in the
/// child frame, so `Ṡ = 0` (`c_J = 0`); see the kinds in [`super::joint`] for `integrate`
/// and `difference`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Joint {
    /// Rotation by `q` \[rad\] about the unit `axis`.
    Revolute {
        /// Unit axis.
        axis: Vec3,
    },
    /// Translation by `q` \[m\] along the unit `axis`.
    Prismatic {
        /// Unit axis.
        axis: Vec3,
    },
    /// Rotation about the unit `axis` with `q = (cos θ, sin θ)` ([`super::RevoluteUnbounded`]).
    RevoluteUnbounded {
        /// Unit axis.
        axis: Vec3,
    },
    /// A ball joint, `q` a unit quaternion `(qx, qy, qz, qw)` ([`super::Spherical`]).
    Spherical,
    /// A floating joint, `q = (x, y, z, qx, qy, qz, qw)`, `v = (v, ω)` in the child frame
    /// ([`super::FreeFlyer`]).
    FreeFlyer,
    /// Motion in the parent's x–y plane, `q = (x, y, cos θ, sin θ)`, `v = (vx, vy, ω)`
    /// ([`super::Planar`]).
    Planar,
    /// A rigid connection (no coordinate).
    Fixed,
}

/// `Some(k)` when `a` is exactly the coordinate axis `e_k` (every joint of the shipped URDFs,
/// and spatial_v2's `Rx` … `Pz`): the recursive algorithms then take the sparse forms of
/// [`JointModel::up_transform`] and [`JointModel::subspace_in`].
#[inline]
fn unit_axis(a: &Vec3) -> Option<usize> {
    let [x, y, z] = *a;
    if y == 0.0 && z == 0.0 && x == 1.0 {
        Some(0)
    } else if x == 0.0 && z == 0.0 && y == 1.0 {
        Some(1)
    } else if x == 0.0 && y == 0.0 && z == 1.0 {
        Some(2)
    } else {
        None
    }
}

/// `R_K(q)ᵀ E_t` for the coordinate axis `K` and `(s, c) = (sin q, cos q)`: row `K` of `E_t`
/// kept, and with `(i, j) = (K+1, K+2) mod 3`, `E_i = c E_t,i + s E_t,j`,
/// `E_j = c E_t,j − s E_t,i` (a compile-time `K`, so every index is a constant).
#[inline(always)]
fn rotate_rows<const K: usize>(t: &Mat3, (s, c): (f64, f64)) -> Mat3 {
    let (i, j) = ((K + 1) % 3, (K + 2) % 3);
    let mut rot = [[0.0; 3]; 3];
    rot[K] = t[K];
    for col in 0..3 {
        rot[i][col] = c * t[i][col] + s * t[j][col];
        rot[j][col] = c * t[j][col] - s * t[i][col];
    }
    rot
}

/// A [`Joint`] with its axis classified once (when the body is added): the recursive
/// algorithms dispatch on the variant instead of testing the axis against `e_k` per call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum JointModel {
    /// Revolute about the coordinate axis `e_K`.
    RevoluteAxis(usize),
    /// Prismatic along the coordinate axis `e_K`.
    PrismaticAxis(usize),
    /// Revolute about any other unit axis.
    Revolute(Vec3),
    /// Prismatic along any other unit axis.
    Prismatic(Vec3),
    /// A kind with `nq ≠ nv` or `nv > 1` (the general path of the algorithms).
    Multi,
    /// No coordinate.
    Fixed,
}

impl From<&Joint> for JointModel {
    fn from(j: &Joint) -> Self {
        match *j {
            Joint::Revolute { axis } => {
                unit_axis(&axis).map_or(Self::Revolute(axis), Self::RevoluteAxis)
            }
            Joint::Prismatic { axis } => {
                unit_axis(&axis).map_or(Self::Prismatic(axis), Self::PrismaticAxis)
            }
            Joint::Fixed => Self::Fixed,
            Joint::RevoluteUnbounded { .. }
            | Joint::Spherical
            | Joint::FreeFlyer
            | Joint::Planar => Self::Multi,
        }
    }
}

impl JointModel {
    /// `X_up = X_J(q) X_tree` (parent → body: the first line of RBDA Tables 5.1, 6.2 and 7.1,
    /// `X_J` from Table 4.1) without forming `X_J`. With `X_tree = (E_t, r_t)`:
    ///
    /// * revolute about `e_k` (`X_J = rot(R_k(q)ᵀ)`): `r = r_t`, row `k` of `E` is row `k` of
    ///   `E_t`, and with `(i, j) = (k+1, k+2) mod 3`,
    ///   `E_i = c E_t,i + s E_t,j`, `E_j = c E_t,j − s E_t,i` — 12 products instead of Rodrigues
    ///   and a 3×3 product;
    /// * prismatic along `e_k` (`X_J = xlt(q e_k)`): `E = E_t`, `r = r_t + q E_t,k`;
    /// * any other axis: the product `X_J(q) X_tree` of [`Transform::compose`], skipping the
    ///   zero translation of a revolute `X_J` and the identity rotation of a prismatic one.
    ///
    /// Equal to `joint.transform(q).compose(x_tree)` up to round-off in the axis' own diagonal
    /// entry of Rodrigues' formula (`c + (1 − c)`, which is 1 here).
    #[inline(always)]
    pub(crate) fn up_transform(&self, q: f64, x_tree: &Transform) -> Transform {
        let t = &x_tree.rot;
        match *self {
            Self::RevoluteAxis(k) => {
                let sc = q.sin_cos();
                let rot = match k {
                    0 => rotate_rows::<0>(t, sc),
                    1 => rotate_rows::<1>(t, sc),
                    _ => rotate_rows::<2>(t, sc),
                };
                Transform {
                    rot,
                    trans: x_tree.trans,
                }
            }
            Self::Revolute(axis) => Transform {
                rot: mat3_mul(&mat3_transpose(&rotation_about(&axis, q)), t),
                trans: x_tree.trans,
            },
            Self::PrismaticAxis(k) => Transform {
                rot: *t,
                trans: add3(&x_tree.trans, &scale3(q, &t[k])),
            },
            Self::Prismatic(axis) => Transform {
                rot: *t,
                trans: add3(&x_tree.trans, &mat3_tvec(t, &scale3(q, &axis))),
            },
            Self::Fixed | Self::Multi => *x_tree,
        }
    }

    /// `X⁻¹ S` for this joint's `S`, e.g. `⁰S_i = ⁰X_i⁻¹ S_i` (with `X = (E, r)`,
    /// `X⁻¹ [ω; v] = [Eᵀω; Eᵀv + r × Eᵀω]`): for an axis `e_k`, `Eᵀ e_k` is row `k` of `E`, so a
    /// revolute joint gives `[E_k; r × E_k]` and a prismatic one `[0; E_k]` — no product with
    /// `E`.
    #[inline]
    pub(crate) fn subspace_in(&self, x: &Transform) -> Motion {
        match *self {
            Self::RevoluteAxis(k) => {
                let w = x.rot[k];
                Motion::new(w, cross(&x.trans, &w))
            }
            Self::PrismaticAxis(k) => Motion::new([0.0; 3], x.rot[k]),
            Self::Revolute(axis) => x.inv_apply_motion(&Motion::new(axis, [0.0; 3])),
            Self::Prismatic(axis) => x.inv_apply_motion(&Motion::new([0.0; 3], axis)),
            Self::Fixed | Self::Multi => Motion::ZERO,
        }
    }
}

fn unit(what: &'static str, axis: Vec3) -> Result<Vec3, ModelError> {
    let n = dot(&axis, &axis).sqrt();
    if !n.is_finite() || n < 1e-12 {
        return Err(ModelError::InvalidParameter { what, value: n });
    }
    Ok(scale3(1.0 / n, &axis))
}

impl Joint {
    /// Revolute joint about `axis` (normalized); a zero or non-finite axis is
    /// [`ModelError::InvalidParameter`].
    pub fn revolute(axis: Vec3) -> Result<Self, ModelError> {
        Ok(Joint::Revolute {
            axis: unit("revolute axis norm", axis)?,
        })
    }
    /// Prismatic joint along `axis` (normalized).
    pub fn prismatic(axis: Vec3) -> Result<Self, ModelError> {
        Ok(Joint::Prismatic {
            axis: unit("prismatic axis norm", axis)?,
        })
    }
    /// spatial_v2 `Rx`: revolute about x.
    pub const RX: Joint = Joint::Revolute {
        axis: [1.0, 0.0, 0.0],
    };
    /// spatial_v2 `Ry`: revolute about y.
    pub const RY: Joint = Joint::Revolute {
        axis: [0.0, 1.0, 0.0],
    };
    /// spatial_v2 `Rz`, and the planar revolute joint `r` (motion in the x–y plane).
    pub const RZ: Joint = Joint::Revolute {
        axis: [0.0, 0.0, 1.0],
    };
    /// spatial_v2 `Px`, and the planar prismatic joint `px`.
    pub const PX: Joint = Joint::Prismatic {
        axis: [1.0, 0.0, 0.0],
    };
    /// spatial_v2 `Py`, and the planar prismatic joint `py`.
    pub const PY: Joint = Joint::Prismatic {
        axis: [0.0, 1.0, 0.0],
    };
    /// spatial_v2 `Pz`.
    pub const PZ: Joint = Joint::Prismatic {
        axis: [0.0, 0.0, 1.0],
    };

    /// Unbounded revolute joint about `axis` (normalized), `q = (cos θ, sin θ)`.
    pub fn revolute_unbounded(axis: Vec3) -> Result<Self, ModelError> {
        Ok(Joint::RevoluteUnbounded {
            axis: unit("revolute axis norm", axis)?,
        })
    }

    /// Number of velocity coordinates `nv` (degrees of freedom; 0 for [`Joint::Fixed`]).
    pub fn dof(&self) -> usize {
        self.nv()
    }

    /// Number of velocity coordinates `nv`.
    pub fn nv(&self) -> usize {
        self.with_kind(|k| k.nv()).unwrap_or(0)
    }

    /// Number of configuration coordinates `nq`.
    pub fn nq(&self) -> usize {
        self.with_kind(|k| k.nq()).unwrap_or(0)
    }

    /// `f` applied to the joint's kind ([`JointKind`]); `None` for [`Joint::Fixed`].
    #[inline]
    pub fn with_kind<R>(&self, f: impl FnOnce(&dyn JointKind) -> R) -> Option<R> {
        match *self {
            Joint::Revolute { axis } => Some(f(&Revolute { axis })),
            Joint::Prismatic { axis } => Some(f(&Prismatic { axis })),
            Joint::RevoluteUnbounded { axis } => Some(f(&RevoluteUnbounded { axis })),
            Joint::Spherical => Some(f(&Spherical)),
            Joint::FreeFlyer => Some(f(&FreeFlyer)),
            Joint::Planar => Some(f(&Planar)),
            Joint::Fixed => None,
        }
    }

    /// Joint transform `X_J(q)` (predecessor → successor frame) of a joint with one
    /// configuration coordinate; the identity for the others (see [`Joint::transform_q`]).
    #[inline]
    pub fn transform(&self, q: f64) -> Transform {
        match self.nq() {
            1 => self.with_kind(|k| k.transform(&[q])),
            _ => None,
        }
        .unwrap_or(Transform::IDENTITY)
    }

    /// Joint transform `X_J(q)` for the joint's `nq` coordinates.
    ///
    /// Errors: [`ModelError::DimensionMismatch`] when `q.len() ≠ nq`.
    pub fn transform_q(&self, q: &[f64]) -> Result<Transform, ModelError> {
        check_len("joint q", q, self.nq())?;
        Ok(self
            .with_kind(|k| k.transform(q))
            .unwrap_or(Transform::IDENTITY))
    }

    /// Motion subspace `S` of a joint with one degree of freedom (zero for the others; see
    /// [`Joint::motion_subspace_into`]).
    #[inline]
    pub fn motion_subspace(&self) -> Motion {
        let mut s = [Motion::ZERO];
        if self.nv() == 1 {
            self.with_kind(|k| k.motion_subspace(&mut s));
        }
        s[0]
    }

    /// The `nv` columns of `S` into `s[..nv]`.
    ///
    /// Errors: [`ModelError::DimensionMismatch`] when `s` is shorter than `nv`.
    pub fn motion_subspace_into(&self, s: &mut [Motion]) -> Result<(), ModelError> {
        if s.len() < self.nv() {
            return Err(ModelError::DimensionMismatch {
                what: "motion subspace columns",
                expected: self.nv(),
                found: s.len(),
            });
        }
        self.with_kind(|k| k.motion_subspace(s));
        Ok(())
    }

    /// `q ⊕ v dt` into `out` ([`JointKind::integrate`]).
    ///
    /// Errors: [`ModelError::DimensionMismatch`] for lengths other than `nq`, `nv`, `nq`;
    /// [`ModelError::NonFinite`] for `q`, `v` or the result.
    pub fn integrate(
        &self,
        q: &[f64],
        v: &[f64],
        dt: f64,
        out: &mut [f64],
    ) -> Result<(), ModelError> {
        Product::single(self).integrate(q, v, dt, out)
    }

    /// `q1 ⊖ q0` into `out` ([`JointKind::difference`]).
    ///
    /// Errors: [`ModelError::DimensionMismatch`] for lengths other than `nq`, `nq`, `nv`;
    /// [`ModelError::NonFinite`] for `q0`, `q1` or the result.
    pub fn difference(&self, q0: &[f64], q1: &[f64], out: &mut [f64]) -> Result<(), ModelError> {
        Product::single(self).difference(q0, q1, out)
    }

    /// The neutral configuration into `out`.
    ///
    /// Errors: [`ModelError::DimensionMismatch`] when `out.len() ≠ nq`.
    pub fn neutral(&self, out: &mut [f64]) -> Result<(), ModelError> {
        Product::single(self).neutral(out)
    }

    /// A random configuration into `out` ([`JointKind::random_configuration`]).
    ///
    /// Errors: [`ModelError::DimensionMismatch`] for lengths other than `nq`;
    /// [`ModelError::InvalidParameter`] for bounds it needs that are not finite.
    pub fn random_configuration(
        &self,
        rng: &mut SplitMix64,
        lower: &[f64],
        upper: &[f64],
        out: &mut [f64],
    ) -> Result<(), ModelError> {
        Product::single(self).random_configuration(rng, lower, upper, out)
    }
}
