//! Body-point, angular-velocity and frame Jacobians of a [`KinematicTree`], for every joint
//! kind (`nv` columns, one per velocity coordinate, also when `nq ≠ nv`): the column of
//! velocity coordinate `k` of an ancestor joint `i` is `s_lin + s_ang × P` (point) or `s_ang`
//! (angular), with `⁰S_k = ⁰X_i⁻¹ S_k = [s_ang; s_lin]` the joint's column in world
//! coordinates and `P` the world point (RBDA (5.7) summed over the ancestors):
//!
//! ```text
//! ṗ = Σ_k (s_lin,k + s_ang,k × P) v_k,      ω = Σ_k s_ang,k v_k
//! p̈ = J_p v̇ + J̇_p v,   J̇_p v = a_O + ω̇ × P + ω × ṗ   with   a_i = a_λ + v_i × ⁰S_i v_i  (v̇ = 0)
//! ```
//!
//! The frame Jacobian is Pinocchio's `getFrameJacobian(…, LOCAL_WORLD_ALIGNED)`: rows
//! `[ṗ; ω]` (linear first) of a frame at body point `p` with the world's axes.

use super::data::TreeData;
use super::joint::JointModel;
use super::kinematic_tree::check_mat;
use super::KinematicTree;
use crate::spatial::{add3, cross, dot, Motion, Transform, Vec3};
use crate::ModelError;
use faer::MatMut;

impl KinematicTree {
    /// `J[row0 + r, k] += sign · (J_p)_{r k}` for the point Jacobian
    /// `J_p = ∂(world position of p)/∂q`: column `k` of an ancestor joint is
    /// `s_lin + s_ang × P` with `⁰S = [s_ang; s_lin]` and `P` the world point.
    pub(crate) fn ws_add_point_jacobian(
        &self,
        ws: &TreeData,
        body: usize,
        p: &Vec3,
        sign: f64,
        j: &mut MatMut<'_, f64>,
        row0: usize,
    ) {
        self.ws_add_point_jacobian_axes(ws, body, p, sign, j, row0, &[0, 1, 2]);
    }

    /// [`KinematicTree::ws_add_point_jacobian`] for the world axes `axes` only: row
    /// `row0 + m` receives axis `axes[m]` (a planar closure keeps x and y).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn ws_add_point_jacobian_axes(
        &self,
        ws: &TreeData,
        body: usize,
        p: &Vec3,
        sign: f64,
        j: &mut MatMut<'_, f64>,
        row0: usize,
        axes: &[usize],
    ) {
        let pw = self.ws_point_position(ws, body, p);
        let mut b = Some(body);
        while let Some(i) = b {
            for k in self.idx_v[i]..self.idx_v[i] + self.joint[i].nv() {
                let s = self.ws_world_column(ws, i, k);
                let col = add3(&s.lin, &cross(&s.ang, &pw));
                for (m, &r) in axes.iter().enumerate() {
                    j[(row0 + m, k)] += sign * col[r];
                }
            }
            b = self.parent[i];
        }
    }

    /// `J[row, k] += sign · w · (J_ω)_{·k}` for the angular-velocity Jacobian
    /// `J_ω` of `body` (world coordinates).
    pub(crate) fn ws_add_angular_jacobian(
        &self,
        ws: &TreeData,
        body: usize,
        w: &Vec3,
        sign: f64,
        j: &mut MatMut<'_, f64>,
        row: usize,
    ) {
        let mut b = Some(body);
        while let Some(i) = b {
            for k in self.idx_v[i]..self.idx_v[i] + self.joint[i].nv() {
                j[(row, k)] += sign * dot(w, &self.ws_world_column(ws, i, k).ang);
            }
            b = self.parent[i];
        }
    }

    /// Column `k` of body `i`'s joint in world coordinates, `⁰S_k = ⁰X_i⁻¹ S_k` (after the
    /// forward kinematics: a one-dof joint's is `ws.s_world[i]`).
    #[inline]
    fn ws_world_column(&self, ws: &TreeData, i: usize, k: usize) -> Motion {
        match self.joint_model[i] {
            JointModel::Multi => ws.x0[i].inv_apply_motion(&self.s_cols[k]),
            _ => ws.s_world[i],
        }
    }

    /// World body velocities `v_i = v_λ + Σ_k ⁰S_k v_k` and velocity-product accelerations
    /// `a_i = a_λ + v_i × Σ_k ⁰S_k v_k` (RBDA (5.7) and Table 5.1 with `v̇ = 0`, no gravity)
    /// into `ws.v`, `ws.a`, for every joint kind, after the forward kinematics at `q`.
    fn ws_velocities_world(&self, ws: &mut TreeData, v: &[f64]) {
        for i in 0..self.n_bodies() {
            let mut vj = Motion::ZERO;
            for k in self.idx_v[i]..self.idx_v[i] + self.joint[i].nv() {
                vj += v[k] * self.ws_world_column(ws, i, k);
            }
            let (vp, ap) = match self.parent[i] {
                Some(p) => (ws.v[p], ws.a[p]),
                None => (Motion::ZERO, Motion::ZERO),
            };
            let vi = vp + vj;
            ws.a[i] = ap + vi.cross_motion(&vj);
            ws.v[i] = vi;
        }
    }

    /// `⁰X_body`, the transform from the world frame to `body`'s frame, on a caller-owned
    /// workspace (the world pose of a body point `p` is `⁰X_body.inv_apply_point(p)`).
    ///
    /// Errors: [`ModelError::DimensionMismatch`], [`ModelError::NonFinite`] for `q`;
    /// [`ModelError::UnknownBody`].
    pub fn body_transform_with(
        &self,
        data: &mut TreeData,
        q: &[f64],
        body: usize,
    ) -> Result<Transform, ModelError> {
        self.check_q(q)?;
        self.check_body(body)?;
        self.adopt(data)?;
        self.kinematics(data, q, None);
        Ok(data.x0[body])
    }

    /// Frame Jacobian `J = [J_p; J_ω]` (6×nv, Pinocchio's `LOCAL_WORLD_ALIGNED`) of the frame
    /// at body point `p` \[m\] of `body` into `j` on a caller-owned workspace: `J v = [ṗ; ω]`
    /// in world coordinates. Every joint kind, `nq ≠ nv` included.
    ///
    /// Errors: [`ModelError::DimensionMismatch`] for `q` and `j`'s shape,
    /// [`ModelError::NonFinite`], [`ModelError::UnknownBody`].
    pub fn frame_jacobian_with(
        &self,
        data: &mut TreeData,
        q: &[f64],
        body: usize,
        p: Vec3,
        mut j: MatMut<'_, f64>,
    ) -> Result<(), ModelError> {
        self.check_q(q)?;
        self.check_body(body)?;
        check_mat("frame jacobian", &j, 6, self.dof)?;
        self.adopt(data)?;
        self.kinematics(data, q, None);
        j.fill(0.0);
        self.ws_add_point_jacobian(data, body, &p, 1.0, &mut j, 0);
        for r in 0..3 {
            let mut e = [0.0; 3];
            e[r] = 1.0;
            self.ws_add_angular_jacobian(data, body, &e, 1.0, &mut j, 3 + r);
        }
        Ok(())
    }

    /// Point Jacobian `J_p` (3×nv, `J_p v` the world velocity of body point `p` \[m\]) into
    /// `j` on a caller-owned workspace; every joint kind. Errors as
    /// [`KinematicTree::frame_jacobian_with`].
    pub fn point_jacobian_with(
        &self,
        data: &mut TreeData,
        q: &[f64],
        body: usize,
        p: Vec3,
        mut j: MatMut<'_, f64>,
    ) -> Result<(), ModelError> {
        self.check_q(q)?;
        self.check_body(body)?;
        check_mat("point jacobian", &j, 3, self.dof)?;
        self.adopt(data)?;
        self.kinematics(data, q, None);
        j.fill(0.0);
        self.ws_add_point_jacobian(data, body, &p, 1.0, &mut j, 0);
        Ok(())
    }

    /// [`KinematicTree::frame_jacobian_with`] on a workspace of the tree's pool.
    pub fn frame_jacobian(
        &self,
        q: &[f64],
        body: usize,
        p: Vec3,
        j: MatMut<'_, f64>,
    ) -> Result<(), ModelError> {
        self.with_data(|ws| self.frame_jacobian_with(ws, q, body, p, j))
    }

    /// The frame velocity `J v = [ṗ; ω]` and the acceleration bias `J̇ v = [p̈; ω̇]` at `v̇ = 0`
    /// (world coordinates, linear first) of the frame at body point `p` of `body`, for every
    /// joint kind, on a caller-owned workspace: `ṗ = v_O + ω × P`,
    /// `J̇_p v = a_O + ω̇ × P + ω × ṗ` (the classical acceleration of a point from the spatial
    /// one, RBDA (2.36)).
    ///
    /// Errors: [`ModelError::DimensionMismatch`] and [`ModelError::NonFinite`] for `q`, `v`;
    /// [`ModelError::UnknownBody`].
    pub fn frame_velocity_and_bias_with(
        &self,
        data: &mut TreeData,
        q: &[f64],
        v: &[f64],
        body: usize,
        p: Vec3,
    ) -> Result<([f64; 6], [f64; 6]), ModelError> {
        self.check_q(q)?;
        self.check_qd(v)?;
        self.check_body(body)?;
        self.adopt(data)?;
        self.kinematics(data, q, None);
        self.ws_velocities_world(data, v);
        let pd = self.ws_point_velocity(data, body, &p);
        let pdd = self.ws_point_accel_bias(data, body, &p);
        let (w, wd) = (data.v[body].ang, data.a[body].ang);
        Ok((
            [pd[0], pd[1], pd[2], w[0], w[1], w[2]],
            [pdd[0], pdd[1], pdd[2], wd[0], wd[1], wd[2]],
        ))
    }

    /// Point Jacobian `J_p` (3×nv, `J_p v` the world velocity of body point `p`) into `j`;
    /// every joint kind (for `nq = nv` trees `J_p = ∂(world position of p)/∂q`).
    pub fn point_jacobian(
        &self,
        q: &[f64],
        body: usize,
        p: Vec3,
        j: MatMut<'_, f64>,
    ) -> Result<(), ModelError> {
        self.jacobian_query("point jacobian", q, body, j, |ws, j| {
            self.ws_add_point_jacobian(ws, body, &p, 1.0, j, 0);
        })
    }

    /// Angular-velocity Jacobian `J_ω` of `body` (3×nv, world coordinates) into `j`.
    pub fn angular_jacobian(
        &self,
        q: &[f64],
        body: usize,
        j: MatMut<'_, f64>,
    ) -> Result<(), ModelError> {
        self.jacobian_query("angular jacobian", q, body, j, |ws, j| {
            for r in 0..3 {
                let mut e = [0.0; 3];
                e[r] = 1.0;
                self.ws_add_angular_jacobian(ws, body, &e, 1.0, j, r);
            }
        })
    }

    /// The shared frame of the 3×N Jacobian queries: checks `q`, `body` and the shape of `j`,
    /// runs the forward kinematics, zeroes `j` and lets `add` accumulate into it.
    pub(super) fn jacobian_query(
        &self,
        what: &'static str,
        q: &[f64],
        body: usize,
        mut j: MatMut<'_, f64>,
        add: impl FnOnce(&TreeData, &mut MatMut<'_, f64>),
    ) -> Result<(), ModelError> {
        self.check_q(q)?;
        self.check_body(body)?;
        check_mat(what, &j, 3, self.dof)?;
        self.with_data(|ws| {
            self.kinematics(ws, q, None);
            j.fill(0.0);
            add(ws, &mut j);
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;
    use crate::spatial::{rotation_about, SpatialInertia};
    use crate::tree::Joint;
    use faer::Mat;

    /// A free-flyer base with a spherical arm, a revolute forearm below it and a fixed tool
    /// on it, and a prismatic leg on the base: every kind of column at once.
    fn floating_tree() -> KinematicTree {
        let mut t = KinematicTree::new("floating");
        let inertia = |m: f64, c: Vec3| {
            SpatialInertia::from_mass_com_inertia(
                m,
                c,
                [[0.02, 0.001, 0.0], [0.001, 0.03, 0.002], [0.0, 0.002, 0.04]],
            )
        };
        let tilt = |r: Vec3, a: f64| Transform::from_pose(&rotation_about(&[0.6, 0.0, 0.8], a), r);
        let base = t
            .add_body(
                "base",
                None,
                Joint::FreeFlyer,
                Transform::IDENTITY,
                inertia(3.0, [0.01, 0.0, 0.02]),
            )
            .unwrap();
        let arm = t
            .add_body(
                "arm",
                Some(base),
                Joint::Spherical,
                tilt([0.2, 0.1, 0.0], 0.4),
                inertia(1.0, [0.0, 0.0, -0.1]),
            )
            .unwrap();
        let fore = t
            .add_body(
                "forearm",
                Some(arm),
                Joint::revolute([0.2, 1.0, 0.1]).unwrap(),
                tilt([0.0, 0.0, -0.3], -0.7),
                inertia(0.5, [0.05, 0.0, -0.1]),
            )
            .unwrap();
        t.add_body(
            "tool",
            Some(fore),
            Joint::Fixed,
            tilt([0.0, 0.1, -0.2], 1.1),
            inertia(0.2, [0.0; 3]),
        )
        .unwrap();
        t.add_body(
            "leg",
            Some(base),
            Joint::prismatic([0.0, 0.3, 1.0]).unwrap(),
            tilt([-0.2, 0.0, -0.1], 0.2),
            inertia(0.7, [0.0, 0.0, -0.2]),
        )
        .unwrap();
        t
    }

    fn random_state(t: &KinematicTree, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut rng = SplitMix64::new(seed);
        let mut q0 = vec![0.0; t.nq()];
        t.neutral(&mut q0).unwrap();
        let dq = rng.vector(t.nv(), -1.0, 1.0);
        let mut q = vec![0.0; t.nq()];
        t.integrate(&q0, &dq, 1.0, &mut q).unwrap();
        (q, rng.vector(t.nv(), -1.5, 1.5))
    }

    /// World position of body point `p` and world angular velocity... of the frame along
    /// `t ↦ q ⊕ v t` (at constant `v`).
    fn along(t: &KinematicTree, q: &[f64], v: &[f64], s: f64, body: usize, p: Vec3) -> Vec3 {
        let mut qs = vec![0.0; t.nq()];
        t.integrate(q, v, s, &mut qs).unwrap();
        t.point_position(&qs, body, p).unwrap()
    }

    #[test]
    fn frame_jacobian_is_the_derivative_along_integrate_for_every_joint_kind() {
        let t = floating_tree();
        assert_ne!(t.nq(), t.nv());
        let mut data = t.data();
        let p = [0.05, -0.02, 0.1];
        let eps = 1e-5;
        for seed in 0..5 {
            let (q, v) = random_state(&t, seed);
            for body in 0..t.n_bodies() {
                let mut j = Mat::<f64>::zeros(6, t.nv());
                t.frame_jacobian_with(&mut data, &q, body, p, j.as_mut())
                    .unwrap();
                let jv: Vec<f64> = (0..6)
                    .map(|r| (0..t.nv()).map(|c| j[(r, c)] * v[c]).sum())
                    .collect();
                // ṗ by central differences of the point along q ⊕ v s
                let (xp, xm) = (
                    along(&t, &q, &v, eps, body, p),
                    along(&t, &q, &v, -eps, body, p),
                );
                for r in 0..3 {
                    let fd = (xp[r] - xm[r]) / (2.0 * eps);
                    assert!(
                        (jv[r] - fd).abs() < 1e-8,
                        "body {body} row {r}: {} vs {fd}",
                        jv[r]
                    );
                }
                // ω by the rotation's derivative: (R(s) − R(−s)) R(0)ᵀ / 2s = [ω]×
                let rot = |s: f64| {
                    let mut qs = vec![0.0; t.nq()];
                    t.integrate(&q, &v, s, &mut qs).unwrap();
                    crate::spatial::mat3_transpose(&t.body_transform(&qs, body).unwrap().rot)
                };
                let (rp, rm, r0) = (rot(eps), rot(-eps), rot(0.0));
                let d = |a: usize, b: usize| {
                    (0..3)
                        .map(|k| (rp[a][k] - rm[a][k]) * r0[b][k])
                        .sum::<f64>()
                        / (2.0 * eps)
                };
                let w = [d(2, 1), d(0, 2), d(1, 0)];
                for r in 0..3 {
                    assert!((jv[3 + r] - w[r]).abs() < 1e-8, "body {body} ω{r}");
                }
                // the velocity query agrees with J v
                let (vel, _) = t
                    .frame_velocity_and_bias_with(&mut data, &q, &v, body, p)
                    .unwrap();
                for r in 0..6 {
                    assert!((vel[r] - jv[r]).abs() < 1e-12);
                }
            }
        }
    }

    #[test]
    fn acceleration_bias_is_the_derivative_of_j_v_along_integrate() {
        let t = floating_tree();
        let mut data = t.data();
        let p = [-0.03, 0.04, 0.08];
        let eps = 1e-5;
        for seed in 10..14 {
            let (q, v) = random_state(&t, seed);
            for body in 0..t.n_bodies() {
                let (_, bias) = t
                    .frame_velocity_and_bias_with(&mut data, &q, &v, body, p)
                    .unwrap();
                let vel_at = |s: f64, data: &mut TreeData| {
                    let mut qs = vec![0.0; t.nq()];
                    t.integrate(&q, &v, s, &mut qs).unwrap();
                    t.frame_velocity_and_bias_with(data, &qs, &v, body, p)
                        .unwrap()
                        .0
                };
                let (a, b) = (vel_at(eps, &mut data), vel_at(-eps, &mut data));
                for r in 0..6 {
                    let fd = (a[r] - b[r]) / (2.0 * eps);
                    assert!(
                        (bias[r] - fd).abs() < 1e-7,
                        "seed {seed} body {body} row {r}: {} vs {fd}",
                        bias[r]
                    );
                }
            }
        }
    }

    #[test]
    fn frame_jacobian_refuses_a_matrix_of_q_width() {
        let t = floating_tree();
        let (q, _) = random_state(&t, 1);
        let mut j = Mat::<f64>::zeros(6, t.nq());
        assert!(matches!(
            t.frame_jacobian(&q, 0, [0.0; 3], j.as_mut()),
            Err(ModelError::DimensionMismatch { .. })
        ));
        let mut j = Mat::<f64>::zeros(6, t.nv());
        assert!(matches!(
            t.frame_jacobian(&q, 9, [0.0; 3], j.as_mut()),
            Err(ModelError::UnknownBody { .. })
        ));
    }
}
