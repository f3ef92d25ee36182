//! The recursive Newton–Euler algorithm on a [`KinematicTree`] (RBDA Table 5.1) in world
//! coordinates: inverse dynamics `τ = M q̈ + h` and the bias forces `h`.

use super::data::TreeData;
use super::KinematicTree;
use crate::spatial::{scale3, Motion};
use crate::validate::{check_finite, check_len};
use crate::ModelError;

impl KinematicTree {
    /// RNEA into `tau` (RBDA Table 5.1): `τ = M q̈ + C q̇ + g-terms`, with `q̈ = 0` when `qdd`
    /// is `None`, gravity included, every quantity in world (base) coordinates — the same
    /// frame and the same `⁰S_i`, `⁰I_i` as [`KinematicTree::crba`], so `M` and `h` at one
    /// state share one forward pass and one inertia transform per body:
    ///
    /// ```text
    /// v_i = v_λ + ⁰S_i q̇_i,   a_i = a_λ + ⁰S_i q̈_i + v_i × ⁰S_i q̇_i   (a_0 = −a_g),
    /// f_i = ⁰I_i a_i + v_i ×* ⁰I_i v_i,   τ_i = ⁰S_iᵀ f_i,   f_λ += f_i,
    /// ```
    ///
    /// Table 5.1's lines with `ⁱX_λ` replaced by the identity of one common frame
    /// (`⁰Ṡ_i = v_i × ⁰S_i` for a subspace fixed in body `i`), as in Pinocchio's
    /// world-frame RNEA. No joint transform in either pass. `ws.v`, `ws.a`, `ws.f` are left
    /// in world coordinates (the closures' kinematics recompute theirs without gravity).
    pub(super) fn rnea(
        &self,
        ws: &mut TreeData,
        q: &[f64],
        qd: &[f64],
        qdd: Option<&[f64]>,
        tau: &mut [f64],
    ) {
        if self.multi {
            return self.rnea_multi(ws, q, qd, qdd, tau);
        }
        if let (Some(l), Some(d)) = (self.lumped(), ws.lumped.as_deref_mut()) {
            return l.rnea(d, q, qd, qdd, tau);
        }
        let a_root = Motion::new([0.0; 3], scale3(-1.0, &self.gravity));
        self.world_inertias(ws, q);
        for i in 0..self.n_bodies() {
            let s = ws.s_world[i];
            let vj = self.qi(i, qd) * s;
            let (vp, ap) = match self.parent[i] {
                Some(p) => (ws.v[p], ws.a[p]),
                None => (Motion::ZERO, a_root),
            };
            let v = vp + vj;
            let mut a = ap + v.cross_motion(&vj);
            if let Some(qdd) = qdd {
                a += self.qi(i, qdd) * s;
            }
            let inertia = &ws.iw[i];
            ws.f[i] = inertia.apply(&a) + v.cross_force(&inertia.apply(&v));
            ws.v[i] = v;
            ws.a[i] = a;
        }
        for i in (0..self.n_bodies()).rev() {
            if let Some(k) = self.q_index[i] {
                tau[k] = ws.s_world[i].dot(&ws.f[i]);
            }
            if let Some(p) = self.parent[i] {
                let fi = ws.f[i];
                ws.f[p] += fi;
            }
        }
    }

    /// Inverse dynamics `τ = RNEA(q, q̇, q̈) = M q̈ + h` (gravity included): see
    /// [`KinematicTree::inverse_dynamics_with`].
    pub fn inverse_dynamics(
        &self,
        q: &[f64],
        qd: &[f64],
        qdd: &[f64],
        tau: &mut [f64],
    ) -> Result<(), ModelError> {
        self.with_data(|ws| self.inverse_dynamics_with(ws, q, qd, qdd, tau))
    }

    /// Inverse dynamics `τ = RNEA(q, q̇, q̈) = M q̈ + h` (gravity included, RBDA Table 5.1)
    /// on a caller-owned workspace (Pinocchio's `rnea(model, data, q, v, a)`).
    ///
    /// Errors: [`ModelError::DimensionMismatch`] and [`ModelError::NonFinite`] for the
    /// arguments and for `data` of another tree's sizes; [`ModelError::NonFinite`] with
    /// `what = "tau"` when finite arguments overflow (`q̇ = 1e200`).
    pub fn inverse_dynamics_with(
        &self,
        data: &mut TreeData,
        q: &[f64],
        qd: &[f64],
        qdd: &[f64],
        tau: &mut [f64],
    ) -> Result<(), ModelError> {
        self.check_q(q)?;
        self.check_qd(qd)?;
        check_len("qdd", qdd, self.dof)?;
        check_finite("qdd", qdd)?;
        check_len("tau", tau, self.dof)?;
        self.adopt(data)?;
        self.rnea(data, q, qd, Some(qdd), tau);
        check_finite("tau", tau)
    }

    /// The bias forces `h(q, q̇) = RNEA(q, q̇, 0)` (gravity included) on a caller-owned
    /// workspace. Errors as [`KinematicTree::inverse_dynamics_with`] (`what = "h"`).
    pub fn bias_forces_with(
        &self,
        data: &mut TreeData,
        q: &[f64],
        qd: &[f64],
        h: &mut [f64],
    ) -> Result<(), ModelError> {
        self.check_q(q)?;
        self.check_qd(qd)?;
        check_len("h", h, self.dof)?;
        self.adopt(data)?;
        self.rnea(data, q, qd, None, h);
        check_finite("h", h)
    }
}
