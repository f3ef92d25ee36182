//! A straight line of a robot arm's tool in Cartesian space, orientation held, as a joint path
//! `q = Q(s)` for the phase-plane and TOPP-RA planners.
//!
//! The task is the tool point's world position `x(q)` and the tool frame's orientation
//! `R(q)`: `x(Q(s)) = p₀ + s (p₁ − p₀)`, `R(Q(s)) = R₀` for `s ∈ [0, 1]`. With the 6×N task
//! Jacobian `J = [J_p; J_ω]` (point and angular Jacobians, world coordinates), the task
//! velocity along the path is `v = (p₁ − p₀, 0)` and, differentiating `J B = v` as in Huang
//! (4.3.2), `J B̄ = −J̇ B` (a straight line at constant orientation has no task acceleration).
//!
//! * **Six joints** (`J` square, e.g. a UR5): `Q(s)` is the inverse kinematics solution on the
//!   branch of `q_start`, `B = J⁻¹ v`, `B̄ = −J⁻¹ (J̇ B)` with `J̇ B` from the tree's bias
//!   terms (exact).
//! * **More than six joints** (e.g. a 7-joint Panda): the redundancy is resolved by
//!   minimum-norm velocities, `Q′ = J⁺ v` with `J⁺ = Jᵀ (J Jᵀ)⁻¹` (Whitney's resolved-rate
//!   control): `Q(s)` is the flow of that equation from `q_start`. Its derivative is
//!   `B̄ = J̇ᵀ y − Jᵀ (J Jᵀ)⁻¹ (J̇ B + J J̇ᵀ y)` with `y = (J Jᵀ)⁻¹ v`; `J̇ B` comes from the
//!   tree and the full `J̇ = dJ/ds` from a central difference of `J` along `B` (relative
//!   error ≈ 1e-10).
//!
//! The flow is tabulated once ([`CartesianLine::new`]): `knots` classical Runge–Kutta steps in
//! s, each followed by a Newton projection onto the task. An evaluation at `s` takes the cubic
//! Hermite interpolant of the two neighbouring knots (values and slopes `B`) as the guess and
//! projects it onto the task by minimum-norm Newton steps `δq = J⁺ r` until the task residual
//! is at round-off, so every `Q(s)` puts the tool on the line and holds the orientation to
//! ≈ 1e-13, and `B(s)` is evaluated at that `Q(s)`. The redundant path follows the flow to the
//! interpolation error (≈ 1e-10 with the default 1000 knots).

use crate::error::PlanningError;
use crate::joint_path::JointPath;
use crate::path::{Path, Segment};
use contour_model::tree::KinematicTree;
use contour_model::Mechanism;
use faer::prelude::*;

/// Runge–Kutta steps of the tabulated flow ([`CartesianLine::new`]).
pub const CARTESIAN_LINE_KNOTS: usize = 1000;

/// Newton iterations of one projection onto the task.
const NEWTON_ITERATIONS: usize = 50;

/// A tool line `p₀ → p₁` of a tree's body point with the body's orientation held, as a joint
/// path (see the module documentation).
#[derive(Clone, Debug)]
pub struct CartesianLine {
    tree: KinematicTree,
    body: usize,
    point: [f64; 3],
    p0: [f64; 3],
    p1: [f64; 3],
    /// Held orientation: the world-to-body coordinate rotation `E₀ = R₀ᵀ`.
    e0: [[f64; 3]; 3],
    /// The tool's line as a 3-D path over `s ∈ [0, 1]`.
    path: Path,
    /// `Q` at `s_k = k / knots`.
    knot_q: Vec<Vec<f64>>,
    /// `B = Q′` at `s_k`.
    knot_b: Vec<Vec<f64>>,
}

impl CartesianLine {
    /// The line from the tool's position `p_start` (default: where `q_start` puts it) to
    /// `p_end` \[m, world\] of the point `point` (body coordinates \[m\]) of body `body`, with
    /// the body's orientation at `q_start` held; the joint path starts at `q_start` (or, when
    /// `p_start` is given, at the inverse kinematics solution of `p_start` nearest to it).
    ///
    /// Errors: [`PlanningError::DimensionMismatch`] (`q_start` not of the tree's N, fewer than
    /// six joints), [`PlanningError::InvalidParameter`] (a body out of range, `p_start` equal
    /// to `p_end`), [`PlanningError::NonFinite`] (a non-finite point, start or end),
    /// [`PlanningError::InverseKinematics`] / [`PlanningError::Singular`] where the arm cannot
    /// follow the line (out of reach, a singular configuration).
    pub fn new(
        tree: KinematicTree,
        body: usize,
        point: [f64; 3],
        q_start: &[f64],
        p_start: Option<[f64; 3]>,
        p_end: [f64; 3],
    ) -> Result<Self, PlanningError> {
        let n = tree.dof();
        if q_start.len() != n {
            return Err(PlanningError::DimensionMismatch {
                what: "q_start",
                expected: n,
                found: q_start.len(),
            });
        }
        if n < 6 {
            return Err(PlanningError::DimensionMismatch {
                what: "joints of an arm holding position and orientation (at least 6)",
                expected: 6,
                found: n,
            });
        }
        if body >= tree.n_bodies() {
            return Err(PlanningError::InvalidParameter {
                name: "body",
                value: body as f64,
                expected: "a body index of the tree",
            });
        }
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        if !finite(&point)
            || !finite(q_start)
            || !finite(&p_end)
            || !p_start.is_none_or(|p| finite(&p))
        {
            return Err(PlanningError::NonFinite {
                what: "tool point, q_start, p_start or p_end",
            });
        }
        let nonfinite = |_| PlanningError::NonFinite { what: "tool pose" };
        let x0 = tree
            .point_position(q_start, body, point)
            .map_err(nonfinite)?;
        let e0 = tree.body_transform(q_start, body).map_err(nonfinite)?.rot;
        let p0 = p_start.unwrap_or(x0);
        let d = [p_end[0] - p0[0], p_end[1] - p0[1], p_end[2] - p0[2]];
        let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        if len <= 1e-12 * (1.0 + p0.iter().fold(0.0f64, |a, x| a.max(x.abs()))) {
            return Err(PlanningError::InvalidParameter {
                name: "p_end",
                value: len,
                expected: "a point other than the line's start",
            });
        }
        let path = Path::new(vec![Segment::line(&p0, &p_end, 0.0, 1.0)])?;
        let mut line = Self {
            tree,
            body,
            point,
            p0,
            p1: p_end,
            e0,
            path,
            knot_q: Vec::with_capacity(CARTESIAN_LINE_KNOTS + 1),
            knot_b: Vec::with_capacity(CARTESIAN_LINE_KNOTS + 1),
        };
        let mut q = q_start.to_vec();
        line.project(0.0, &mut q)?;
        // the flow Q′ = J⁺ v by classical Runge–Kutta, projected onto the task at every knot
        let h = 1.0 / CARTESIAN_LINE_KNOTS as f64;
        let mut b = line.velocity(0.0, &q)?;
        line.knot_q.push(q.clone());
        line.knot_b.push(b.clone());
        let mut y = vec![0.0; n];
        for k in 0..CARTESIAN_LINE_KNOTS {
            let s = k as f64 * h;
            let k1 = b.clone();
            let stage = |c: f64, kk: &[f64], y: &mut [f64]| {
                for i in 0..n {
                    y[i] = q[i] + c * h * kk[i];
                }
            };
            stage(0.5, &k1, &mut y);
            let k2 = line.velocity(s + 0.5 * h, &y)?;
            stage(0.5, &k2, &mut y);
            let k3 = line.velocity(s + 0.5 * h, &y)?;
            stage(1.0, &k3, &mut y);
            let k4 = line.velocity(s + h, &y)?;
            for i in 0..n {
                q[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
            let s1 = (k + 1) as f64 * h;
            line.project(s1, &mut q)?;
            b = line.velocity(s1, &q)?;
            line.knot_q.push(q.clone());
            line.knot_b.push(b.clone());
        }
        Ok(line)
    }

    /// The tree.
    pub fn tree(&self) -> &KinematicTree {
        &self.tree
    }

    /// The tool body's index.
    pub fn body(&self) -> usize {
        self.body
    }

    /// The tool point in body coordinates \[m\].
    pub fn point(&self) -> [f64; 3] {
        self.point
    }

    /// The line's ends `(p₀, p₁)` \[m, world\].
    pub fn ends(&self) -> ([f64; 3], [f64; 3]) {
        (self.p0, self.p1)
    }

    /// The held orientation as the body-to-world rotation matrix `R₀`.
    pub fn orientation(&self) -> [[f64; 3]; 3] {
        transpose(&self.e0)
    }

    /// The task residual at `q` for the line's point at `s`: the largest of the position error
    /// \[m\] and the orientation error \[rad\] (the angle of `R₀ R(q)ᵀ`).
    ///
    /// Errors: [`PlanningError::DimensionMismatch`] for a `q` of the wrong length,
    /// [`PlanningError::NonFinite`] for a non-finite `s` or `q`.
    pub fn task_error(&self, s: f64, q: &[f64]) -> Result<f64, PlanningError> {
        let n = self.tree.dof();
        if q.len() != n {
            return Err(PlanningError::DimensionMismatch {
                what: "q",
                expected: n,
                found: q.len(),
            });
        }
        if !s.is_finite() {
            return Err(PlanningError::NonFinite { what: "s" });
        }
        let r = self.residual(s, q)?;
        let pos = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt();
        let rot = (r[3] * r[3] + r[4] * r[4] + r[5] * r[5]).sqrt();
        Ok(pos.max(rot))
    }

    /// The target position on the line at `s`.
    fn target(&self, s: f64) -> [f64; 3] {
        [0, 1, 2].map(|i| self.p0[i] + s * (self.p1[i] - self.p0[i]))
    }

    /// Task residual `r = (p(s) − x(q), log(R₀ R(q)ᵀ))` (world coordinates).
    fn residual(&self, s: f64, q: &[f64]) -> Result<[f64; 6], PlanningError> {
        let nonfinite = |_| PlanningError::NonFinite { what: "tool pose" };
        let x = self
            .tree
            .point_position(q, self.body, self.point)
            .map_err(nonfinite)?;
        let e = self
            .tree
            .body_transform(q, self.body)
            .map_err(nonfinite)?
            .rot;
        // R₀ R(q)ᵀ = E₀ᵀ E(q): the rotation that takes the current frame to the held one
        let a = mat_mul(&transpose(&self.e0), &e);
        let w = log_so3(&a);
        let p = self.target(s);
        Ok([p[0] - x[0], p[1] - x[1], p[2] - x[2], w[0], w[1], w[2]])
    }

    /// The 6×N task Jacobian `[J_p; J_ω]`.
    fn jacobian(&self, q: &[f64]) -> Result<Mat<f64>, PlanningError> {
        let n = self.tree.dof();
        let nonfinite = |_| PlanningError::NonFinite {
            what: "tool Jacobian",
        };
        let mut j = Mat::<f64>::zeros(6, n);
        self.tree
            .point_jacobian(q, self.body, self.point, j.as_mut().subrows_mut(0, 3))
            .map_err(nonfinite)?;
        self.tree
            .angular_jacobian(q, self.body, j.as_mut().subrows_mut(3, 3))
            .map_err(nonfinite)?;
        Ok(j)
    }

    /// Minimum-norm Newton projection of `q` onto the task at `s`.
    fn project(&self, s: f64, q: &mut [f64]) -> Result<(), PlanningError> {
        let scale = 1.0
            + self
                .p0
                .iter()
                .chain(&self.p1)
                .fold(0.0f64, |a, x| a.max(x.abs()));
        let mut res = f64::INFINITY;
        for _ in 0..NEWTON_ITERATIONS {
            let r = self.residual(s, q)?;
            res = r.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            if res <= 1e-14 * scale {
                return Ok(());
            }
            let j = self.jacobian(q)?;
            let dq = min_norm_solve(&j, &r)
                .ok_or(PlanningError::InverseKinematics { s, residual: res })?;
            for (qi, d) in q.iter_mut().zip(&dq) {
                *qi += d;
            }
        }
        if res.is_nan() || res > 1e-11 * scale {
            return Err(PlanningError::InverseKinematics { s, residual: res });
        }
        Ok(())
    }

    /// `B = J⁺ v` at `q` (v = (p₁ − p₀, 0)).
    fn velocity(&self, s: f64, q: &[f64]) -> Result<Vec<f64>, PlanningError> {
        let j = self.jacobian(q)?;
        min_norm_solve(&j, &self.task_velocity()).ok_or(PlanningError::InverseKinematics {
            s,
            residual: f64::NAN,
        })
    }

    fn task_velocity(&self) -> [f64; 6] {
        [
            self.p1[0] - self.p0[0],
            self.p1[1] - self.p0[1],
            self.p1[2] - self.p0[2],
            0.0,
            0.0,
            0.0,
        ]
    }

    /// `J̇ B`: the task acceleration of `q̈ = 0` at `q̇ = B` (the tree's bias terms).
    fn jdot_b(&self, q: &[f64], b: &[f64]) -> Result<[f64; 6], PlanningError> {
        let nonfinite = |_| PlanningError::NonFinite {
            what: "tool acceleration bias",
        };
        let ap = self
            .tree
            .point_accel_bias(q, b, self.body, self.point)
            .map_err(nonfinite)?;
        let (_, aw) = self
            .tree
            .angular_velocity_and_bias(q, b, self.body)
            .map_err(nonfinite)?;
        Ok([ap[0], ap[1], ap[2], aw[0], aw[1], aw[2]])
    }
}

impl JointPath for CartesianLine {
    fn dof(&self) -> usize {
        self.tree.dof()
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn eval(
        &self,
        seg: usize,
        s: f64,
        q: &mut [f64],
        b: &mut [f64],
        bbar: &mut [f64],
    ) -> Result<(), PlanningError> {
        let n = self.tree.dof();
        for (what, v) in [("q", &*q), ("b", &*b), ("bbar", &*bbar)] {
            if v.len() != n {
                return Err(PlanningError::DimensionMismatch {
                    what,
                    expected: n,
                    found: v.len(),
                });
            }
        }
        self.path.check_on(seg, s)?;
        // guess: the cubic Hermite interpolant of the neighbouring knots
        let m = CARTESIAN_LINE_KNOTS;
        let k = ((s * m as f64).floor() as usize).min(m - 1);
        let h = 1.0 / m as f64;
        let t = (s - k as f64 * h) / h;
        let (h00, h10, h01, h11) = (
            (1.0 + 2.0 * t) * (1.0 - t) * (1.0 - t),
            t * (1.0 - t) * (1.0 - t),
            t * t * (3.0 - 2.0 * t),
            t * t * (t - 1.0),
        );
        let (qa, qb, ba, bb) = (
            &self.knot_q[k],
            &self.knot_q[k + 1],
            &self.knot_b[k],
            &self.knot_b[k + 1],
        );
        for i in 0..n {
            q[i] = h00 * qa[i] + h10 * h * ba[i] + h01 * qb[i] + h11 * h * bb[i];
        }
        self.project(s, q)?;
        let j = self.jacobian(q)?;
        let v = self.task_velocity();
        let sol = min_norm_solve(&j, &v).ok_or(PlanningError::Singular {
            what: "tool Jacobian",
        })?;
        b.copy_from_slice(&sol);
        let jb = self.jdot_b(q, b)?;
        if n == 6 {
            // square: J B̄ = −J̇ B
            let rhs = jb.map(|x| -x);
            let sol = min_norm_solve(&j, &rhs).ok_or(PlanningError::Singular {
                what: "tool Jacobian",
            })?;
            bbar.copy_from_slice(&sol);
        } else {
            // B̄ = J̇ᵀ y − Jᵀ (J Jᵀ)⁻¹ (J̇ B + J J̇ᵀ y), y = (J Jᵀ)⁻¹ v
            let jjt = &j * j.transpose();
            let llt = jjt
                .llt(faer::Side::Lower)
                .map_err(|_| PlanningError::Singular {
                    what: "J Jᵀ of the tool Jacobian",
                })?;
            let y = llt.solve(&Mat::from_fn(6, 1, |i, _| v[i]));
            // J̇ = dJ/ds along B by a central difference
            let eps = 1e-6 / (1.0 + b.iter().fold(0.0f64, |a, x| a.max(x.abs())));
            let shifted = |sign: f64| -> Result<Mat<f64>, PlanningError> {
                let qs: Vec<f64> = (0..n).map(|i| q[i] + sign * eps * b[i]).collect();
                self.jacobian(&qs)
            };
            let jdot = (shifted(1.0)? - shifted(-1.0)?) * Scale(0.5 / eps);
            let jdt_y = jdot.transpose() * &y;
            let rhs = Mat::from_fn(6, 1, |i, _| jb[i]) + &j * &jdt_y;
            let z = llt.solve(&rhs);
            let out = jdt_y - j.transpose() * z;
            for i in 0..n {
                bbar[i] = out[(i, 0)];
            }
        }
        if !(b.iter().chain(bbar.iter()).all(|x| x.is_finite())) {
            return Err(PlanningError::Singular {
                what: "tool Jacobian",
            });
        }
        Ok(())
    }
}

/// `x = J⁺ r`: `J⁻¹ r` for a square `J` (LU), `Jᵀ (J Jᵀ)⁻¹ r` for a wide one (Cholesky);
/// `None` when `J` is singular.
fn min_norm_solve(j: &Mat<f64>, r: &[f64; 6]) -> Option<Vec<f64>> {
    let n = j.ncols();
    let rhs = Mat::from_fn(6, 1, |i, _| r[i]);
    let x = if n == 6 {
        j.partial_piv_lu().solve(&rhs)
    } else {
        let jjt = j * j.transpose();
        let llt = jjt.llt(faer::Side::Lower).ok()?;
        j.transpose() * llt.solve(&rhs)
    };
    let out: Vec<f64> = (0..n).map(|i| x[(i, 0)]).collect();
    out.iter().all(|v| v.is_finite()).then_some(out)
}

fn transpose(a: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    [0, 1, 2].map(|i| [0, 1, 2].map(|j| a[j][i]))
}

fn mat_mul(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    [0, 1, 2].map(|i| [0, 1, 2].map(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum()))
}

/// The rotation vector `θ u` of a rotation matrix (`log` of SO(3)), for angles below π.
fn log_so3(a: &[[f64; 3]; 3]) -> [f64; 3] {
    let v = [
        0.5 * (a[2][1] - a[1][2]),
        0.5 * (a[0][2] - a[2][0]),
        0.5 * (a[1][0] - a[0][1]),
    ];
    let sin = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let cos = 0.5 * (a[0][0] + a[1][1] + a[2][2] - 1.0);
    let theta = sin.atan2(cos);
    let f = if sin < 1e-12 { 1.0 } else { theta / sin };
    v.map(|x| f * x)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::phase_plane::{PhasePlane, PhasePlaneConfig};
    use crate::toppra::{Toppra, ToppraConfig};
    use crate::{AccelerationLimits, JointAccelerationLimits, JointVelocityLimits};
    use crate::{NoTorqueLimits, PathDynamics};

    const UR5: &str = include_str!("../tests/fixtures/ur5_robot.urdf");

    fn ur5_line() -> CartesianLine {
        let arm = KinematicTree::from_urdf_str(UR5).unwrap();
        let tool = arm.body_index("tool0").unwrap();
        let q0 = [0.3, -1.2, 1.5, -1.9, -1.57, 0.2];
        let x = arm.point_position(&q0, tool, [0.0; 3]).unwrap();
        CartesianLine::new(
            arm,
            tool,
            [0.0; 3],
            &q0,
            None,
            [x[0] + 0.15, x[1] - 0.2, x[2] + 0.1],
        )
        .unwrap()
    }

    fn panda_line() -> CartesianLine {
        let arm = contour_model::models::panda_arm();
        let tool = arm.body_index("panda_link8").unwrap();
        let q0 = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785];
        let x = arm.point_position(&q0, tool, [0.0; 3]).unwrap();
        CartesianLine::new(
            arm,
            tool,
            [0.0; 3],
            &q0,
            None,
            [x[0] + 0.2, x[1] + 0.25, x[2] - 0.15],
        )
        .unwrap()
    }

    /// The witnesses, computed from the tree directly (not from the line's own residual): the
    /// tool point on the straight line and the orientation held to 1e-9 at 201 points; B and
    /// B̄ the derivatives of Q and B (central differences); for a redundant arm, B in the row
    /// space of J (minimum norm).
    fn check_line(line: &CartesianLine) {
        let tree = line.tree();
        let n = tree.dof();
        let (p0, p1) = line.ends();
        let e0 = transpose(&line.orientation());
        let eval = |s: f64| {
            let (mut q, mut b, mut bb) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            line.eval(0, s, &mut q, &mut b, &mut bb).unwrap();
            (q, b, bb)
        };
        for k in 0..=200 {
            let s = k as f64 / 200.0;
            let (q, b, bb) = eval(s);
            let x = tree.point_position(&q, line.body(), line.point()).unwrap();
            for i in 0..3 {
                let on_line = p0[i] + s * (p1[i] - p0[i]);
                assert!((x[i] - on_line).abs() <= 1e-9, "s = {s}: x = {x:?}");
            }
            let e = tree.body_transform(&q, line.body()).unwrap().rot;
            for i in 0..3 {
                for j in 0..3 {
                    assert!((e[i][j] - e0[i][j]).abs() <= 1e-9, "orientation at s = {s}");
                }
            }
            if k % 20 == 10 {
                let d = 1e-5;
                let (qp, bp, _) = eval(s + d);
                let (qm, bm, _) = eval(s - d);
                for i in 0..n {
                    let fd = (qp[i] - qm[i]) / (2.0 * d);
                    let fd2 = (bp[i] - bm[i]) / (2.0 * d);
                    assert!(
                        (fd - b[i]).abs() <= 1e-6 * (1.0 + b[i].abs()),
                        "B at s = {s}"
                    );
                    assert!(
                        (fd2 - bb[i]).abs() <= 1e-4 * (1.0 + bb[i].abs()),
                        "B̄ at s = {s}: {fd2} vs {}",
                        bb[i]
                    );
                }
                if n > 6 {
                    // B = Jᵀ y: the part of B outside J's row space is zero
                    let j = line.jacobian(&q).unwrap();
                    let jb: Vec<f64> = (0..6)
                        .map(|r| (0..n).map(|c| j[(r, c)] * b[c]).sum())
                        .collect();
                    let jb: [f64; 6] = jb.try_into().unwrap();
                    let rowspace = min_norm_solve(&j, &jb).unwrap();
                    for i in 0..n {
                        assert!((rowspace[i] - b[i]).abs() <= 1e-9 * (1.0 + b[i].abs()));
                    }
                }
            }
        }
    }

    #[test]
    fn a_ur5_tool_line_is_on_the_line_with_its_orientation_held() {
        check_line(&ur5_line());
    }

    #[test]
    fn a_panda_tool_line_resolves_its_redundancy_by_minimum_norm_rates() {
        check_line(&panda_line());
    }

    /// The phase plane and TOPP-RA (two algorithms) find the same minimum time along the
    /// UR5's tool line under its datasheet speed (±180 °/s) and common acceleration limits.
    #[test]
    fn the_phase_plane_and_toppra_agree_on_a_ur5_tool_line() {
        let line = ur5_line();
        let arm = line.tree().clone();
        let d = PathDynamics::new(&arm, &line).unwrap();
        let v = JointVelocityLimits::new(vec![std::f64::consts::PI; 6]);
        let a = JointAccelerationLimits::new(vec![8.0, 8.0, 8.0, 12.0, 12.0, 12.0]);
        let lim = AccelerationLimits::new(&d, &NoTorqueLimits)
            .with_constraint(&v)
            .unwrap()
            .with_constraint(&a)
            .unwrap();
        let pp = PhasePlane::new(&lim, PhasePlaneConfig::default())
            .solve()
            .unwrap();
        let cfg = ToppraConfig {
            intervals: 1000,
            ..ToppraConfig::default()
        };
        let tp = Toppra::new(&lim, cfg).solve().unwrap();
        let rel = (pp.total_time - tp.total_time).abs() / pp.total_time;
        assert!(
            rel < 1e-3,
            "phase plane {} vs TOPP-RA {}",
            pp.total_time,
            tp.total_time
        );
    }

    #[test]
    fn bad_lines_are_refused() {
        let arm = KinematicTree::from_urdf_str(UR5).unwrap();
        let tool = arm.body_index("tool0").unwrap();
        let q0 = [0.3, -1.2, 1.5, -1.9, -1.57, 0.2];
        let x = arm.point_position(&q0, tool, [0.0; 3]).unwrap();
        let new = |q: &[f64], p_start: Option<[f64; 3]>, p_end: [f64; 3]| {
            CartesianLine::new(arm.clone(), tool, [0.0; 3], q, p_start, p_end)
        };
        assert!(matches!(
            new(&q0[..5], None, [0.0; 3]),
            Err(PlanningError::DimensionMismatch { .. })
        ));
        assert!(matches!(
            new(&q0, None, [f64::NAN, 0.0, 0.0]),
            Err(PlanningError::NonFinite { .. })
        ));
        assert!(matches!(
            new(&q0, None, x),
            Err(PlanningError::InvalidParameter { name: "p_end", .. })
        ));
        // 3 m away: out of the UR5's reach (0.85 m)
        assert!(matches!(
            new(&q0, None, [x[0] + 3.0, x[1], x[2]]),
            Err(PlanningError::InverseKinematics { .. } | PlanningError::Singular { .. })
        ));
        let planar = KinematicTree::planar_with_gravity(3, 9.81);
        assert!(matches!(
            CartesianLine::new(planar, 2, [1.0, 0.0, 0.0], &[0.1; 3], None, [0.5, 0.5, 0.0]),
            Err(PlanningError::DimensionMismatch { .. })
        ));
    }
}
