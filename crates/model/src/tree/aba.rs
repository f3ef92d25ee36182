//! Forward dynamics of a kinematic tree by Featherstone's articulated-body algorithm,
//! O(n) (RBDA Table 7.1, spatial_v2 `FDab`), for joints with one degree of freedom (or none):
//!
//! ```text
//! pass 1 (i = 1 … n):  X_up(i) = X_J(q_i) X_tree(i),  v_i = X_up v_λ(i) + S_i q̇_i,
//!                      c_i = v_i × S_i q̇_i (c_J = 0),  I^A_i = I_i,  p^A_i = v_i ×* I_i v_i
//! pass 2 (i = n … 1):  U_i = I^A_i S_i,  D_i = S_iᵀ U_i,  u_i = τ_i − S_iᵀ p^A_i,
//!                      I^a = I^A_i − U_i D_i⁻¹ U_iᵀ,  p^a = p^A_i + I^a c_i + U_i D_i⁻¹ u_i,
//!                      I^A_λ(i) += X_upᵀ I^a X_up,  p^A_λ(i) += X_upᵀ p^a
//! pass 3 (i = 1 … n):  a'_i = X_up a_λ(i) + c_i  (a_0 = −a_g),
//!                      q̈_i = (u_i − U_iᵀ a'_i) / D_i,  a_i = a'_i + S_i q̈_i
//! ```
//!
//! A fixed joint (`S = 0`) passes its body's articulated inertia and bias force on to the
//! parent unchanged (`I^a = I^A`, `p^a = p^A`, `a_i = a'_i`).

use super::data::TreeData;
use super::KinematicTree;
use crate::spatial::{ArticulatedInertia, Motion};
use crate::validate::{check_finite, check_len};
use crate::ModelError;

impl KinematicTree {
    /// Forward dynamics `q̈ = M(q)⁻¹ (τ − h(q, q̇))` by the articulated-body algorithm
    /// (RBDA Table 7.1), O(n) and without forming `M`; gravity included as in
    /// [`crate::Mechanism::bias_forces`]. Agrees with CRBA + Cholesky to round-off. No
    /// allocation.
    ///
    /// Errors: [`ModelError::DimensionMismatch`] and [`ModelError::NonFinite`] for `q`, `q̇`,
    /// `τ`, `q̈`; [`ModelError::MassMatrixNotPositiveDefinite`] when an articulated pivot
    /// `D_i = S_iᵀ I^A_i S_i` is not positive (a massless subtree: `M` is singular), with the
    /// coordinate index and the pivot; [`ModelError::NonFinite`] with `what = "qdd"` when
    /// finite arguments overflow (`τ = f64::MAX`).
    pub fn forward_dynamics(
        &self,
        q: &[f64],
        qd: &[f64],
        tau: &[f64],
        qdd: &mut [f64],
    ) -> Result<(), ModelError> {
        self.with_data(|ws| self.forward_dynamics_with(ws, q, qd, tau, qdd))
    }

    /// [`KinematicTree::forward_dynamics`] on a caller-owned workspace (Pinocchio's
    /// `aba(model, data, q, v, τ)`). Errors as there, and
    /// [`ModelError::DimensionMismatch`] for `data` of another tree's sizes.
    pub fn forward_dynamics_with(
        &self,
        data: &mut TreeData,
        q: &[f64],
        qd: &[f64],
        tau: &[f64],
        qdd: &mut [f64],
    ) -> Result<(), ModelError> {
        self.check_q(q)?;
        self.check_qd(qd)?;
        check_len("tau", tau, self.dof)?;
        check_finite("tau", tau)?;
        check_len("qdd", qdd, self.dof)?;
        self.adopt(data)?;
        self.aba(data, q, qd, tau, qdd)?;
        check_finite("qdd", qdd)
    }

    /// The three passes of RBDA Table 7.1 into `qdd` (inputs already checked).
    pub(crate) fn aba(
        &self,
        ws: &mut TreeData,
        q: &[f64],
        qd: &[f64],
        tau: &[f64],
        qdd: &mut [f64],
    ) -> Result<(), ModelError> {
        if self.multi {
            return self.aba_multi(ws, q, qd, tau, qdd);
        }
        if let (Some(l), Some(d)) = (self.lumped(), ws.lumped.as_deref_mut()) {
            return l.aba(d, q, qd, tau, qdd);
        }
        let nb = self.n_bodies();
        // pass 1: velocities, velocity-product accelerations c_i (kept in ws.a), I^A, p^A
        self.up_transforms(ws, q);
        for i in 0..nb {
            let s = self.joint[i].motion_subspace();
            let vj = self.qi(i, qd) * s;
            let vp = match self.parent[i] {
                Some(p) => ws.xup[i].apply_motion(&ws.v[p]),
                None => Motion::ZERO,
            };
            ws.v[i] = vp + vj;
            ws.a[i] = ws.v[i].cross_motion(&vj); // c_i
            let inertia = &self.inertia[i];
            ws.ia[i] = ArticulatedInertia::from(inertia);
            ws.pa[i] = ws.v[i].cross_force(&inertia.apply(&ws.v[i]));
        }
        // pass 2: articulated inertias and bias forces, leaves to root
        for i in (0..nb).rev() {
            let (ia, mut pa) = (ws.ia[i], ws.pa[i]);
            let ia_a = match self.q_index[i] {
                Some(k) => {
                    let s = self.joint[i].motion_subspace();
                    let u = ia.apply(&s);
                    let d = s.dot(&u);
                    if d.is_nan() || d <= 0.0 {
                        return Err(ModelError::MassMatrixNotPositiveDefinite {
                            index: k,
                            pivot: d,
                        });
                    }
                    let ui = tau[k] - s.dot(&pa);
                    ws.uu[i] = u;
                    ws.du[i] = [d, ui];
                    let ia_a = ia.sub_outer(&u, d);
                    // p^a = p^A + I^a c + U D⁻¹ u
                    pa = pa + ia_a.apply(&ws.a[i]) + (ui / d) * u;
                    ia_a
                }
                None => ia,
            };
            if let Some(p) = self.parent[i] {
                let ia_p = ia_a.transform_transpose(&ws.xup[i]);
                ws.ia[p].add_assign(&ia_p);
                let pp = ws.xup[i].transpose_apply_force(&pa);
                ws.pa[p] += pp;
            }
        }
        // pass 3: accelerations, root to leaves (a_0 = −a_g)
        let a_root = Motion::new(
            [0.0; 3],
            [-self.gravity[0], -self.gravity[1], -self.gravity[2]],
        );
        for i in 0..nb {
            let ap = match self.parent[i] {
                Some(p) => ws.xup[i].apply_motion(&ws.a[p]),
                None => ws.xup[i].apply_motion(&a_root),
            };
            let mut a = ap + ws.a[i];
            if let Some(k) = self.q_index[i] {
                let [d, ui] = ws.du[i];
                let qddk = (ui - a.dot(&ws.uu[i])) / d;
                qdd[k] = qddk;
                a += qddk * self.joint[i].motion_subspace();
            }
            ws.a[i] = a;
        }
        Ok(())
    }
}
