//! Joint models (RBDA Table 4.1; spatial_v2 `jcalc`).

use crate::spatial::{dot, mat3_transpose, rotation_about, scale3, Motion, Transform, Vec3};
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
