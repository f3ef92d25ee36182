//! Body-point and angular-velocity Jacobians of a [`KinematicTree`]: column `k` of an
//! ancestor joint is `s_lin + s_ang × P` (point) or `s_ang` (angular), with `⁰S = [s_ang; s_lin]`.

use super::data::TreeData;
use super::kinematic_tree::check_mat;
use super::KinematicTree;
use crate::spatial::{add3, cross, dot, Vec3};
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
            if let Some(k) = self.q_index[i] {
                let s = &ws.s_world[i];
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
            if let Some(k) = self.q_index[i] {
                j[(row, k)] += sign * dot(w, &ws.s_world[i].ang);
            }
            b = self.parent[i];
        }
    }

    /// Point Jacobian `J_p = ∂(world position of p)/∂q` (3×N) into `j`.
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

    /// Angular-velocity Jacobian `J_ω` of `body` (3×N, world coordinates) into `j`.
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
        self.require_nq_eq_nv(what)?;
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
