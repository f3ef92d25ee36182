//! Joint models (RBDA Table 4.1; spatial_v2 `jcalc`).

use crate::spatial::{
    add3, cross, dot, mat3_mul, mat3_transpose, mat3_tvec, rotation_about, scale3, Mat3, Motion,
    Transform, Vec3,
};
use crate::ModelError;

/// A joint connecting a body to its parent.
///
/// | variant | `X_J(q)` | `S` |
/// |---|---|---|
/// | `Revolute { axis: a }` | `rot(R(a, q)ᵀ)` | `[a; 0]` |
/// | `Prismatic { axis: a }` | `xlt(a q)` | `[0; a]` |
/// | `Fixed` | `1` | (none: 0 degrees of freedom) |
///
/// The axis is a unit vector in the joint (= child body) frame; since the
/// joint rotates or slides along it, `S` is constant and `Ṡ = 0` (`c_J = 0`).
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
            Self::Fixed => *x_tree,
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
            Self::Fixed => Motion::ZERO,
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

    /// Number of coordinates (1, or 0 for [`Joint::Fixed`]).
    pub fn dof(&self) -> usize {
        match self {
            Joint::Fixed => 0,
            _ => 1,
        }
    }

    /// Joint transform `X_J(q)` (predecessor → successor frame).
    #[inline]
    pub fn transform(&self, q: f64) -> Transform {
        match self {
            Joint::Revolute { axis } => {
                Transform::rotation(mat3_transpose(&rotation_about(axis, q)))
            }
            Joint::Prismatic { axis } => Transform::translation(scale3(q, axis)),
            Joint::Fixed => Transform::IDENTITY,
        }
    }

    /// Motion subspace `S` (zero for [`Joint::Fixed`]).
    #[inline]
    pub fn motion_subspace(&self) -> Motion {
        match self {
            Joint::Revolute { axis } => Motion::new(*axis, [0.0; 3]),
            Joint::Prismatic { axis } => Motion::new([0.0; 3], *axis),
            Joint::Fixed => Motion::ZERO,
        }
    }
}
