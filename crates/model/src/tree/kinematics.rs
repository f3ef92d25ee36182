//! Forward kinematics of a [`KinematicTree`] (RBDA Table 5.1's first lines in one common
//! frame): `X_up`, `⁰X_i`, the world motion subspaces and inertias, body velocities and
//! velocity-product accelerations, and the point and orientation queries on them.

use super::data::TreeData;
use super::kinematic_tree::BodyInertia;
use super::KinematicTree;
use crate::spatial::{add3, cross, Motion, SpatialInertia, Transform, Vec3};
use crate::ModelError;

impl KinematicTree {
    /// Forward kinematics into `ws`: `X_up`, `⁰X_i`, `⁰X_i⁻¹ S_i`, and, when
    /// `qd` is given, the velocities `v_i = v_λ + ⁰S_i q̇_i` and the velocity-product
    /// accelerations `a_i = a_λ + v_i × ⁰S_i q̇_i` (q̈ = 0, no gravity) in world coordinates
    /// (RBDA Table 5.1's first lines in one common frame, as in [`KinematicTree::rnea`]: no
    /// joint transform), which give `J̇ q̇` for body points.
    pub(crate) fn kinematics(&self, ws: &mut TreeData, q: &[f64], qd: Option<&[f64]>) {
        self.up_transforms(ws, q);
        if !ws.x0_ok {
            // `prev` is `⁰X_{i−1}` in registers: in a chain (`λ(i) = i − 1`) the parent's
            // transform is not read back from the store just made.
            let mut prev = Transform::IDENTITY;
            for i in 0..self.n_bodies() {
                let x0 = match self.parent[i] {
                    Some(p) if p + 1 == i => ws.xup[i].compose(&prev),
                    Some(p) => ws.xup[i].compose(&ws.x0[p]),
                    None => ws.xup[i],
                };
                ws.s_world[i] = self.joint_model[i].subspace_in(&x0);
                ws.x0[i] = x0;
                prev = x0;
            }
            ws.x0_ok = true;
            ws.iw_ok = false;
        }
        if let Some(qd) = qd {
            for i in 0..self.n_bodies() {
                let vj = self.qi(i, qd) * ws.s_world[i];
                let (vp, ap) = match self.parent[i] {
                    Some(p) => (ws.v[p], ws.a[p]),
                    None => (Motion::ZERO, Motion::ZERO),
                };
                let v = vp + vj;
                ws.a[i] = ap + v.cross_motion(&vj);
                ws.v[i] = v;
            }
        }
    }

    /// `X_up(i) = X_J(q_i) X_T(i)` for every body into `ws` (the first line of RBDA Tables 5.1,
    /// 6.2 and 7.1), unless `ws` already holds them for this `q`, bit for bit: CRBA, RNEA, ABA
    /// and the closures' kinematics at one state then share one pass over the joints (one
    /// `sin_cos` per revolute joint per state instead of one per algorithm). The values are
    /// the same either way; `add_body` invalidates the cache.
    pub(crate) fn up_transforms(&self, ws: &mut TreeData, q: &[f64]) {
        let same = ws.xup_ok
            && ws.q_key.len() <= q.len()
            && ws
                .q_key
                .iter()
                .zip(q)
                .all(|(a, b)| a.to_bits() == b.to_bits());
        if same {
            return;
        }
        if self.multi {
            self.up_transforms_multi(ws, q);
        } else {
            for i in 0..self.n_bodies() {
                ws.xup[i] = self.joint_model[i].up_transform(self.qi(i, q), &self.x_tree[i]);
            }
        }
        for (k, v) in ws.q_key.iter_mut().zip(q) {
            *k = *v;
        }
        ws.xup_ok = true;
        ws.x0_ok = false;
    }

    /// The body inertias in world coordinates, `⁰I_i = ⁰X_iᵀ I_i ⁰X_i` (RBDA (2.66) with
    /// `⁰X_i`), into `ws.iw` after the forward kinematics, unless `ws` holds them for this `q`:
    /// CRBA and RNEA at one state transform each body's inertia once, from its form about the
    /// centre of mass ([`CentroidalInertia::transform_transpose`]: `⁰c = ⁰r + Eᵀ c`,
    /// `⁰I_c = Eᵀ I_c E`, then the parallel-axis term).
    pub(super) fn world_inertias(&self, ws: &mut TreeData, q: &[f64]) {
        self.kinematics(ws, q, None);
        if !ws.iw_ok {
            for i in 0..self.n_bodies() {
                let x = &ws.x0[i];
                ws.iw[i] = match &self.centroidal[i] {
                    BodyInertia::Zero => SpatialInertia::default(),
                    BodyInertia::About(c) => c.transform_transpose(x),
                    BodyInertia::General => self.inertia[i].transform_transpose(x),
                };
            }
            ws.iw_ok = true;
        }
    }

    /// World position `r + Eᵀ p` of body point `p`.
    pub(crate) fn ws_point_position(&self, ws: &TreeData, body: usize, p: &Vec3) -> Vec3 {
        ws.x0[body].inv_apply_point(p)
    }

    /// World rotation `R = Eᵀ` of body `body` (columns: body axes in world coordinates).
    pub(crate) fn ws_rotation(&self, ws: &TreeData, body: usize) -> crate::spatial::Mat3 {
        crate::spatial::mat3_transpose(&ws.x0[body].rot)
    }

    /// World velocity of body point `p`: `v_O + ω × P` with the world spatial velocity
    /// `[ω; v_O]` of `kinematics` and `P` the point's world position.
    pub(crate) fn ws_point_velocity(&self, ws: &TreeData, body: usize, p: &Vec3) -> Vec3 {
        let v = &ws.v[body];
        let pw = self.ws_point_position(ws, body, p);
        add3(&v.lin, &cross(&v.ang, &pw))
    }

    /// `J̇ q̇` of body point `p` (world): `a_O + ω̇ × P + ω × (v_O + ω × P)` with the world
    /// velocity-product accelerations of `kinematics` and `P` the point's world position.
    pub(crate) fn ws_point_accel_bias(&self, ws: &TreeData, body: usize, p: &Vec3) -> Vec3 {
        let (v, a) = (&ws.v[body], &ws.a[body]);
        let pw = self.ws_point_position(ws, body, p);
        let vp = add3(&v.lin, &cross(&v.ang, &pw));
        add3(&add3(&a.lin, &cross(&a.ang, &pw)), &cross(&v.ang, &vp))
    }

    /// World angular velocity of `body`.
    pub(crate) fn ws_angular_velocity(&self, ws: &TreeData, body: usize) -> Vec3 {
        ws.v[body].ang
    }

    /// World angular `J̇ q̇` of `body` (the velocity-product part of `ω̇`).
    pub(crate) fn ws_angular_accel_bias(&self, ws: &TreeData, body: usize) -> Vec3 {
        ws.a[body].ang
    }

    /// The shared frame of the queries below: checks `q` (and `q̇`) and `body`, runs the
    /// forward kinematics (with velocities when `qd` is given) and reads the workspace.
    pub(super) fn query<R>(
        &self,
        q: &[f64],
        qd: Option<&[f64]>,
        body: usize,
        read: impl FnOnce(&TreeData) -> R,
    ) -> Result<R, ModelError> {
        self.check_q(q)?;
        if let Some(qd) = qd {
            self.require_nq_eq_nv("a velocity query of a kinematic tree")?;
            self.check_qd(qd)?;
        }
        self.check_body(body)?;
        Ok(self.with_data(|ws| {
            self.kinematics(ws, q, qd);
            read(ws)
        }))
    }

    /// `⁰X_body`: the transform from the base (world) frame to `body`'s frame.
    pub fn body_transform(&self, q: &[f64], body: usize) -> Result<Transform, ModelError> {
        self.query(q, None, body, |ws| ws.x0[body])
    }

    /// World position of the point with body coordinates `p` \[m\].
    pub fn point_position(&self, q: &[f64], body: usize, p: Vec3) -> Result<Vec3, ModelError> {
        self.query(q, None, body, |ws| self.ws_point_position(ws, body, &p))
    }

    /// World velocity `J_p(q) q̇` of body point `p` \[m/s\].
    pub fn point_velocity(
        &self,
        q: &[f64],
        qd: &[f64],
        body: usize,
        p: Vec3,
    ) -> Result<Vec3, ModelError> {
        self.query(q, Some(qd), body, |ws| self.ws_point_velocity(ws, body, &p))
    }

    /// `J̇_p q̇`: the world acceleration of body point `p` when `q̈ = 0` \[m/s²\].
    pub fn point_accel_bias(
        &self,
        q: &[f64],
        qd: &[f64],
        body: usize,
        p: Vec3,
    ) -> Result<Vec3, ModelError> {
        self.query(q, Some(qd), body, |ws| {
            self.ws_point_accel_bias(ws, body, &p)
        })
    }

    /// World angular velocity `ω` and angular `J̇_ω q̇` of `body`.
    pub fn angular_velocity_and_bias(
        &self,
        q: &[f64],
        qd: &[f64],
        body: usize,
    ) -> Result<(Vec3, Vec3), ModelError> {
        self.query(q, Some(qd), body, |ws| {
            (
                self.ws_angular_velocity(ws, body),
                self.ws_angular_accel_bias(ws, body),
            )
        })
    }
}
