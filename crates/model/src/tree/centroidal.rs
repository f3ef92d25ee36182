//! Centre of mass and centroidal momentum for trees with any joints (Pinocchio's
//! `centerOfMass`, `jacobianCenterOfMass`, `ccrba`): with `⁰X_i` the world → body `i`
//! transform, `I_i` body `i`'s spatial inertia and `I^c_i` its composite inertia
//! (RBDA (6.12): `I^c_λ += X_upᵀ I^c_i X_up`),
//!
//! ```text
//! c = Σ m_i c_i / m                                          (world coordinates)
//! h_O = Σ ⁰X_iᵀ I_i v_i,     h_G = (h_O,lin, h_O,ang − c × h_O,lin)         Orin–Goswami (12)
//! A_g[:, k] = shift_G(⁰X_iᵀ I^c_i S_k)   (k a column of body i's joint)    Orin–Goswami (26)
//! J_com = A_g,lin / m,     ċ = J_com v = h_G,lin / m
//! ```
//!
//! Momenta are ordered (linear; angular about `c`) in world-aligned axes, as Pinocchio's
//! `data.hg` and `data.Ag`. Scratch lives in a [`CentroidalData`] sized once by
//! [`KinematicTree::centroidal_data`]; no call allocates.

use super::KinematicTree;
use crate::spatial::{
    add3, cross, mat3_tvec, scale3, sub3, Force, Motion, SpatialInertia, Transform, Vec3,
};
use crate::ModelError;
use faer::MatMut;

/// Scratch of the centroidal algorithms: one per thread, made by
/// [`KinematicTree::centroidal_data`].
#[derive(Debug, Clone)]
pub struct CentroidalData {
    xup: Vec<Transform>,
    x0: Vec<Transform>,
    ic: Vec<SpatialInertia>,
    vel: Vec<Motion>,
}

impl KinematicTree {
    /// A workspace for [`KinematicTree::com`] and the other centroidal quantities.
    pub fn centroidal_data(&self) -> CentroidalData {
        let n = self.n_bodies();
        CentroidalData {
            xup: vec![Transform::IDENTITY; n],
            x0: vec![Transform::IDENTITY; n],
            ic: vec![SpatialInertia::default(); n],
            vel: vec![Motion::ZERO; n],
        }
    }

    /// Checks `cd` and `q`, fills `X_up` and `⁰X_i`, returns the total mass and the centre
    /// of mass (world coordinates).
    fn placements(&self, cd: &mut CentroidalData, q: &[f64]) -> Result<(f64, Vec3), ModelError> {
        if cd.x0.len() != self.n_bodies() {
            return Err(ModelError::DimensionMismatch {
                what: "centroidal data bodies",
                expected: self.n_bodies(),
                found: cd.x0.len(),
            });
        }
        self.check_q(q)?;
        let (mut m, mut first) = (0.0, [0.0; 3]);
        for i in 0..self.n_bodies() {
            cd.xup[i] = self.up_transform_multi(i, q);
            cd.x0[i] = match self.parent[i] {
                Some(p) => cd.xup[i].compose(&cd.x0[p]),
                None => cd.xup[i],
            };
            // world first moment of body i: m r + Eᵀ h
            let (x, inertia) = (&cd.x0[i], &self.inertia[i]);
            m += inertia.mass;
            first = add3(
                &first,
                &add3(
                    &scale3(inertia.mass, &x.trans),
                    &mat3_tvec(&x.rot, &inertia.h),
                ),
            );
        }
        if !(m > 0.0 && m.is_finite()) {
            return Err(ModelError::InvalidParameter {
                what: "total mass (the centre of mass needs a positive one)",
                value: m,
            });
        }
        Ok((m, scale3(1.0 / m, &first)))
    }

    /// `c(q)` \[m\], the centre of mass in world coordinates (Pinocchio's `centerOfMass`).
    ///
    /// Errors: [`ModelError::DimensionMismatch`] / [`ModelError::NonFinite`] for `q` or a
    /// workspace of another tree; [`ModelError::InvalidParameter`] for a massless tree.
    pub fn com(&self, cd: &mut CentroidalData, q: &[f64]) -> Result<Vec3, ModelError> {
        Ok(self.placements(cd, q)?.1)
    }

    /// `h_G(q, v)` = (linear momentum \[kg·m/s\]; angular momentum about the centre of mass
    /// \[kg·m²/s\]) in world-aligned axes (Pinocchio's `data.hg`), summed body by body.
    ///
    /// Errors: as [`KinematicTree::com`], and for `v`.
    pub fn centroidal_momentum(
        &self,
        cd: &mut CentroidalData,
        q: &[f64],
        v: &[f64],
    ) -> Result<[f64; 6], ModelError> {
        let (_, c) = self.placements(cd, q)?;
        self.check_qd(v)?;
        let mut h_o = Force::ZERO;
        for i in 0..self.n_bodies() {
            let vj = self.joint_motion(i, v);
            cd.vel[i] = match self.parent[i] {
                Some(p) => cd.xup[i].apply_motion(&cd.vel[p]) + vj,
                None => vj,
            };
            h_o += cd.x0[i].transpose_apply_force(&self.inertia[i].apply(&cd.vel[i]));
        }
        Ok(shift_to(&h_o, &c))
    }

    /// `ċ = J_com v` \[m/s\], the velocity of the centre of mass in world coordinates
    /// (Pinocchio's `data.vcom[0]`).
    ///
    /// Errors: as [`KinematicTree::centroidal_momentum`].
    pub fn com_velocity(
        &self,
        cd: &mut CentroidalData,
        q: &[f64],
        v: &[f64],
    ) -> Result<Vec3, ModelError> {
        let h = self.centroidal_momentum(cd, q, v)?;
        let m = self.total_mass();
        Ok([h[0] / m, h[1] / m, h[2] / m])
    }

    /// The centroidal momentum matrix `A_g(q)` (6 × nv, `h_G = A_g v`; Pinocchio's `ccrba`
    /// and `data.Ag`) into `ag`; returns the centre of mass.
    ///
    /// Errors: as [`KinematicTree::com`], and [`ModelError::DimensionMismatch`] for `ag`.
    pub fn centroidal_momentum_matrix(
        &self,
        cd: &mut CentroidalData,
        q: &[f64],
        mut ag: MatMut<'_, f64>,
    ) -> Result<Vec3, ModelError> {
        check_shape("centroidal momentum matrix", &ag, 6, self.dof)?;
        let c = self.columns(cd, q, |k, f| {
            for (r, x) in f.iter().enumerate() {
                ag[(r, k)] = *x;
            }
        })?;
        Ok(c)
    }

    /// The Jacobian of the centre of mass `J_com(q)` (3 × nv, `ċ = J_com v`; Pinocchio's
    /// `jacobianCenterOfMass`) into `j`; returns the centre of mass.
    ///
    /// Errors: as [`KinematicTree::centroidal_momentum_matrix`].
    pub fn com_jacobian(
        &self,
        cd: &mut CentroidalData,
        q: &[f64],
        mut j: MatMut<'_, f64>,
    ) -> Result<Vec3, ModelError> {
        check_shape("centre-of-mass Jacobian", &j, 3, self.dof)?;
        let m = self.total_mass();
        self.columns(cd, q, |k, f| {
            for r in 0..3 {
                j[(r, k)] = f[r] / m;
            }
        })
    }

    /// The columns of `A_g` (Orin–Goswami (26)), each handed to `col(k, column)`.
    fn columns(
        &self,
        cd: &mut CentroidalData,
        q: &[f64],
        mut col: impl FnMut(usize, [f64; 6]),
    ) -> Result<Vec3, ModelError> {
        let (_, c) = self.placements(cd, q)?;
        cd.ic.copy_from_slice(&self.inertia);
        for i in (0..self.n_bodies()).rev() {
            if let Some(p) = self.parent[i] {
                let up = cd.ic[i].transform_transpose(&cd.xup[i]);
                cd.ic[p] += up;
            }
        }
        for i in 0..self.n_bodies() {
            let iv = self.idx_v[i];
            for (k, s) in self.s_cols[iv..iv + self.joint[i].nv()].iter().enumerate() {
                let f = cd.x0[i].transpose_apply_force(&cd.ic[i].apply(s));
                col(iv + k, shift_to(&f, &c));
            }
        }
        Ok(c)
    }
}

/// `(f; n − c × f)`: a force at the world origin as (linear; moment about `c`).
fn shift_to(f: &Force, c: &Vec3) -> [f64; 6] {
    let n = sub3(&f.ang, &cross(c, &f.lin));
    [f.lin[0], f.lin[1], f.lin[2], n[0], n[1], n[2]]
}

fn check_shape(
    what: &'static str,
    m: &MatMut<'_, f64>,
    rows: usize,
    cols: usize,
) -> Result<(), ModelError> {
    for (expected, found) in [(rows, m.nrows()), (cols, m.ncols())] {
        if expected != found {
            return Err(ModelError::DimensionMismatch {
                what,
                expected,
                found,
            });
        }
    }
    Ok(())
}
