//! The general path of the recursive algorithms, for trees with joints of several degrees of
//! freedom or `nq ≠ nv` (free-flyer, spherical, planar, unbounded revolute): RBDA Tables 5.1,
//! 6.2 and 7.1 in body coordinates, body `i`'s joint reading `q[idx_q..idx_q + nq_i]` and
//! `v[idx_v..idx_v + nv_i]` (Pinocchio's `idx_q`/`idx_v`), `S_i` its `nv_i` columns and
//! `c_J = 0` (every kind's `S` is constant in the child frame):
//!
//! ```text
//! v_i = X_up v_λ + S_i v_i,   a_i = X_up a_λ + S_i a_i + v_i × S_i v_i,   a_0 = −a_g   (5.7), Table 5.1
//! f_i = I_i a_i + v_i ×* I_i v_i,   τ_i = S_iᵀ f_i,   f_λ += X_upᵀ f_i              Table 5.1
//! I^c_λ += X_upᵀ I^c_i X_up,  H_ii = S_iᵀ I^c_i S_i,  H_ji = S_jᵀ F (F ← X_upᵀ F up the tree)  Table 6.2
//! U_i = I^A_i S_i,  D_i = S_iᵀ U_i = L Lᵀ,  I^a = I^A − (U L⁻ᵀ)(U L⁻ᵀ)ᵀ,
//! p^a = p^A + I^a c_i + U D⁻¹ u,  q̈_i = D⁻¹ (u − Uᵀ a')                           Table 7.1
//! ```
//!
//! Trees whose joints all have one degree of freedom (or none) keep the world-frame forms of
//! `rnea.rs`, `crba.rs`, `aba.rs` bit for bit; this file is used only when
//! [`KinematicTree::nq`] or a joint's `nv` says otherwise.

use super::crba::Triangles;
use super::data::TreeData;
use super::joint::JointModel;
use super::KinematicTree;
use crate::spatial::{ArticulatedInertia, Force, Motion, Transform};
use crate::ModelError;
use faer::MatMut;

impl KinematicTree {
    /// `X_up(i)` of every body into `ws.xup` (out of line: the 1-dof trees' passes stay as
    /// they are compiled without this path).
    #[inline(never)]
    pub(super) fn up_transforms_multi(&self, ws: &mut TreeData, q: &[f64]) {
        for i in 0..self.n_bodies() {
            ws.xup[i] = self.up_transform_multi(i, q);
        }
    }

    /// `X_up(i) = X_J(q_i) X_tree(i)` of body `i` reading its joint's `nq_i` coordinates.
    #[inline]
    pub(super) fn up_transform_multi(&self, i: usize, q: &[f64]) -> Transform {
        let x_tree = &self.x_tree[i];
        match self.joint_model[i] {
            JointModel::Fixed => *x_tree,
            JointModel::Multi => {
                let (iq, nq) = (self.idx_q[i], self.joint[i].nq());
                self.joint[i]
                    .with_kind(|k| k.transform(&q[iq..iq + nq]))
                    .unwrap_or(Transform::IDENTITY)
                    .compose(x_tree)
            }
            m => m.up_transform(q[self.idx_q[i]], x_tree),
        }
    }

    /// `S_i v` for body `i`'s block of `v`.
    #[inline]
    pub(super) fn joint_motion(&self, i: usize, v: &[f64]) -> Motion {
        let (iv, nv) = (self.idx_v[i], self.joint[i].nv());
        self.s_cols[iv..iv + nv]
            .iter()
            .zip(&v[iv..iv + nv])
            .fold(Motion::ZERO, |acc, (s, x)| acc + *x * *s)
    }

    /// Body velocities `v_i` (body coordinates) into `ws.v`.
    pub(super) fn velocities_multi(&self, ws: &mut TreeData, q: &[f64], v: &[f64]) {
        self.up_transforms(ws, q);
        for i in 0..self.n_bodies() {
            let vj = self.joint_motion(i, v);
            ws.v[i] = match self.parent[i] {
                Some(p) => ws.xup[i].apply_motion(&ws.v[p]) + vj,
                None => vj,
            };
        }
    }

    /// RNEA in body coordinates (RBDA Table 5.1): `τ = M a + h` (`a = 0` when `None`).
    #[inline(never)]
    pub(super) fn rnea_multi(
        &self,
        ws: &mut TreeData,
        q: &[f64],
        v: &[f64],
        a: Option<&[f64]>,
        tau: &mut [f64],
    ) {
        let a_root = Motion::new([0.0; 3], self.gravity.map(|g| -g));
        self.up_transforms(ws, q);
        for i in 0..self.n_bodies() {
            let x = &ws.xup[i];
            let vj = self.joint_motion(i, v);
            let (vp, ap) = match self.parent[i] {
                Some(p) => (x.apply_motion(&ws.v[p]), x.apply_motion(&ws.a[p])),
                None => (Motion::ZERO, x.apply_motion(&a_root)),
            };
            let vi = vp + vj;
            let mut ai = ap + vi.cross_motion(&vj);
            if let Some(a) = a {
                ai += self.joint_motion(i, a);
            }
            let inertia = &self.inertia[i];
            ws.f[i] = inertia.apply(&ai) + vi.cross_force(&inertia.apply(&vi));
            ws.v[i] = vi;
            ws.a[i] = ai;
        }
        for i in (0..self.n_bodies()).rev() {
            let (iv, nv) = (self.idx_v[i], self.joint[i].nv());
            let f = ws.f[i];
            for (t, s) in tau[iv..iv + nv].iter_mut().zip(&self.s_cols[iv..iv + nv]) {
                *t = s.dot(&f);
            }
            if let Some(p) = self.parent[i] {
                let fp = ws.xup[i].transpose_apply_force(&f);
                ws.f[p] += fp;
            }
        }
    }

    /// CRBA in body coordinates (RBDA Table 6.2) into `m` (zeros off the ancestor pairs).
    #[inline(never)]
    pub(super) fn crba_multi(
        &self,
        ws: &mut TreeData,
        q: &[f64],
        mut m: MatMut<'_, f64>,
        fill: Triangles,
    ) {
        self.up_transforms(ws, q);
        let n = self.dof;
        for c in 0..n {
            let rows = if fill == Triangles::Both { n } else { c + 1 };
            for r in 0..rows {
                m[(r, c)] = 0.0;
            }
        }
        for i in 0..self.n_bodies() {
            ws.ic[i] = self.inertia[i];
        }
        for i in (0..self.n_bodies()).rev() {
            let (iv, nv) = (self.idx_v[i], self.joint[i].nv());
            for k in 0..nv {
                let mut f = ws.ic[i].apply(&self.s_cols[iv + k]);
                for k2 in 0..nv {
                    m[(iv + k2, iv + k)] = self.s_cols[iv + k2].dot(&f);
                }
                let mut j = i;
                while let Some(p) = self.parent[j] {
                    f = ws.xup[j].transpose_apply_force(&f);
                    j = p;
                    let (jv, njv) = (self.idx_v[j], self.joint[j].nv());
                    for k2 in 0..njv {
                        let h = self.s_cols[jv + k2].dot(&f);
                        m[(jv + k2, iv + k)] = h;
                        if fill == Triangles::Both {
                            m[(iv + k, jv + k2)] = h;
                        }
                    }
                }
            }
            if let Some(p) = self.parent[i] {
                let moved = ws.ic[i].transform_transpose(&ws.xup[i]);
                ws.ic[p] += moved;
            }
        }
    }

    /// ABA in body coordinates (RBDA Table 7.1) with `nv_i × nv_i` blocks `D_i` factored by
    /// Cholesky. Errors: [`ModelError::MassMatrixNotPositiveDefinite`] with the velocity index
    /// and the pivot when a `D_i` is not positive definite.
    #[inline(never)]
    pub(super) fn aba_multi(
        &self,
        ws: &mut TreeData,
        q: &[f64],
        v: &[f64],
        tau: &[f64],
        qdd: &mut [f64],
    ) -> Result<(), ModelError> {
        let nb = self.n_bodies();
        self.up_transforms(ws, q);
        for i in 0..nb {
            let vj = self.joint_motion(i, v);
            let vp = match self.parent[i] {
                Some(p) => ws.xup[i].apply_motion(&ws.v[p]),
                None => Motion::ZERO,
            };
            let vi = vp + vj;
            ws.v[i] = vi;
            ws.c[i] = vi.cross_motion(&vj);
            let inertia = &self.inertia[i];
            ws.ia[i] = ArticulatedInertia::from(inertia);
            ws.pa[i] = vi.cross_force(&inertia.apply(&vi));
        }
        for i in (0..nb).rev() {
            let (iv, nv) = (self.idx_v[i], self.joint[i].nv());
            let (mut ia, mut pa) = (ws.ia[i], ws.pa[i]);
            if nv > 0 {
                let s = &self.s_cols[iv..iv + nv];
                let mut u = [Force::ZERO; 6];
                let mut l = [[0.0; 6]; 6];
                let mut w = [Force::ZERO; 6];
                for k in 0..nv {
                    u[k] = ia.apply(&s[k]);
                    ws.v_rhs[iv + k] = tau[iv + k] - s[k].dot(&pa);
                }
                // D = Sᵀ U = L Lᵀ, W = U L⁻ᵀ (U = W Lᵀ, column by column)
                for k in 0..nv {
                    for j in 0..=k {
                        let mut d = s[k].dot(&u[j]);
                        for r in 0..j {
                            d -= l[k][r] * l[j][r];
                        }
                        if j == k {
                            if d.is_nan() || d <= 0.0 {
                                return Err(ModelError::MassMatrixNotPositiveDefinite {
                                    index: iv + k,
                                    pivot: d,
                                });
                            }
                            l[k][k] = d.sqrt();
                        } else {
                            l[k][j] = d / l[j][j];
                        }
                    }
                    let mut wk = u[k];
                    for r in 0..k {
                        wk = wk - l[k][r] * w[r];
                    }
                    w[k] = (1.0 / l[k][k]) * wk;
                }
                let x = chol_solve(&l, nv, &ws.v_rhs[iv..iv + nv]);
                for k in 0..nv {
                    ia = ia.sub_outer(&w[k], 1.0);
                    ws.v_u[iv + k] = u[k];
                    ws.v_l[iv + k] = l[k];
                }
                pa += ia.apply(&ws.c[i]);
                for k in 0..nv {
                    pa += x[k] * u[k];
                }
            }
            if let Some(p) = self.parent[i] {
                let ia_p = ia.transform_transpose(&ws.xup[i]);
                ws.ia[p].add_assign(&ia_p);
                let pp = ws.xup[i].transpose_apply_force(&pa);
                ws.pa[p] += pp;
            }
        }
        let a_root = Motion::new([0.0; 3], self.gravity.map(|g| -g));
        for i in 0..nb {
            let ap = match self.parent[i] {
                Some(p) => ws.xup[i].apply_motion(&ws.a[p]),
                None => ws.xup[i].apply_motion(&a_root),
            };
            let mut a = ap + ws.c[i];
            let (iv, nv) = (self.idx_v[i], self.joint[i].nv());
            if nv > 0 {
                let mut rhs = [0.0; 6];
                let mut l = [[0.0; 6]; 6];
                for k in 0..nv {
                    rhs[k] = ws.v_rhs[iv + k] - a.dot(&ws.v_u[iv + k]);
                    l[k] = ws.v_l[iv + k];
                }
                let x = chol_solve(&l, nv, &rhs[..nv]);
                for k in 0..nv {
                    qdd[iv + k] = x[k];
                    a += x[k] * self.s_cols[iv + k];
                }
            }
            ws.a[i] = a;
        }
        Ok(())
    }
}

/// `x = (L Lᵀ)⁻¹ b` for the lower-triangular `L` (`n ≤ 6`).
fn chol_solve(l: &[[f64; 6]; 6], n: usize, b: &[f64]) -> [f64; 6] {
    let mut y = [0.0; 6];
    for k in 0..n {
        let mut s = b[k];
        for r in 0..k {
            s -= l[k][r] * y[r];
        }
        y[k] = s / l[k][k];
    }
    for k in (0..n).rev() {
        let mut s = y[k];
        for r in k + 1..n {
            s -= l[r][k] * y[r];
        }
        y[k] = s / l[k][k];
    }
    y
}
