//! Cartesian paths for a kinematic tree's end effector: the world position of a point on one
//! body, restricted to as many coordinates as the tree has joints (x, y for a planar 2-link
//! arm; x, y, z for a 3-joint arm), as a square [`Kinematics`] map for [`IkJointPath`] — so a
//! [`crate::Path`] of lines and arcs in the workspace becomes a joint path q = Q(s) with
//! `J B = P′`, `J B̄ = P″ − J̇ B` (Huang (4.3.2)).
//!
//! The inverse is Newton's ([`IkJointPath`]) from a guess taken from a table solved once along
//! the path by continuation from a given start configuration ([`TreePointKinematics::along`]):
//! the nearest tabulated point's configuration, so the branch (elbow up or down) chosen at the
//! start is kept along the whole path. Redundant arms (more joints than task coordinates) need
//! a redundancy resolution this map does not provide.

use crate::error::PlanningError;
use crate::joint_path::{IkJointPath, Kinematics};
use crate::path::Path;
use contour_model::tree::KinematicTree;
use contour_model::Mechanism;
use faer::prelude::*;

/// World coordinates `axes` of the point `point` of `body` of a tree (square: one axis per
/// joint), with a continuation table for the inverse.
#[derive(Clone, Debug)]
pub struct TreePointKinematics<'t> {
    tree: &'t KinematicTree,
    body: usize,
    point: [f64; 3],
    axes: Vec<usize>,
    /// (p, q) along the path, from [`Self::along`].
    table: Vec<(Vec<f64>, Vec<f64>)>,
}

impl<'t> TreePointKinematics<'t> {
    /// The map for `body`'s point `point` (body coordinates \[m\]) and world `axes` (0 = x,
    /// 1 = y, 2 = z), with its inverse guesses solved along `path` from `q_start` (which
    /// must place the point at `path`'s start, up to Newton's reach).
    ///
    /// Errors: [`PlanningError::DimensionMismatch`] (axes ≠ joints, `q_start`, path
    /// dimension), [`PlanningError::InvalidParameter`] (an axis > 2, a body out of range),
    /// [`PlanningError::InverseKinematics`] where the continuation fails (out of reach, a
    /// singular configuration).
    pub fn along(
        tree: &'t KinematicTree,
        body: usize,
        point: [f64; 3],
        axes: Vec<usize>,
        path: &Path,
        q_start: &[f64],
    ) -> Result<Self, PlanningError> {
        let n = tree.dof();
        if axes.len() != n {
            return Err(PlanningError::DimensionMismatch {
                what: "task axes vs joints",
                expected: n,
                found: axes.len(),
            });
        }
        if let Some(&a) = axes.iter().find(|&&a| a > 2) {
            return Err(PlanningError::InvalidParameter {
                name: "axes",
                value: a as f64,
                expected: "0, 1 or 2",
            });
        }
        if body >= tree.n_bodies() {
            return Err(PlanningError::InvalidParameter {
                name: "body",
                value: body as f64,
                expected: "< number of bodies",
            });
        }
        if q_start.len() != n || path.dim() != n {
            return Err(PlanningError::DimensionMismatch {
                what: "q_start / path dimension",
                expected: n,
                found: if q_start.len() != n {
                    q_start.len()
                } else {
                    path.dim()
                },
            });
        }
        let mut kin = Self {
            tree,
            body,
            point,
            axes,
            table: Vec::new(),
        };
        // continuation: Newton from the previous solution at 1000 points per segment
        let mut q = q_start.to_vec();
        let (mut p, mut dp, mut ddp) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let (mut h, mut j) = (vec![0.0; n], Mat::<f64>::zeros(n, n));
        let m = 1000;
        for (si, seg) in path.segments().iter().enumerate() {
            for k in 0..=m {
                let s = seg.s_start + (seg.s_end - seg.s_start) * k as f64 / m as f64;
                path.eval_on(si, s, &mut p, &mut dp, &mut ddp);
                let scale = 1.0 + p.iter().fold(0.0f64, |a, x| a.max(x.abs()));
                let mut res = f64::INFINITY;
                for _ in 0..50 {
                    kin.forward(&q, &mut h);
                    res = (0..n).fold(0.0f64, |a, i| a.max((p[i] - h[i]).abs()));
                    if res <= 1e-13 * scale {
                        break;
                    }
                    kin.jacobian(&q, j.as_mut());
                    let rhs = Mat::from_fn(n, 1, |i, _| p[i] - h[i]);
                    let dq = j.partial_piv_lu().solve(&rhs);
                    for i in 0..n {
                        q[i] += dq[(i, 0)];
                    }
                }
                if res.is_nan() || res > 1e-10 * scale {
                    return Err(PlanningError::InverseKinematics { s, residual: res });
                }
                kin.table.push((p.clone(), q.clone()));
            }
        }
        Ok(kin)
    }

    /// The joint path of `path` through this map ([`IkJointPath`]).
    ///
    /// Errors: those of [`IkJointPath::new`].
    pub fn joint_path(self, path: Path) -> Result<IkJointPath<Self>, PlanningError> {
        IkJointPath::new(path, self)
    }
}

impl Kinematics for TreePointKinematics<'_> {
    fn dim(&self) -> usize {
        self.axes.len()
    }

    fn forward(&self, q: &[f64], p: &mut [f64]) {
        match self.tree.point_position(q, self.body, self.point) {
            Ok(x) => {
                for (k, &a) in self.axes.iter().enumerate() {
                    p[k] = x[a];
                }
            }
            Err(_) => p.fill(f64::NAN),
        }
    }

    fn jacobian(&self, q: &[f64], mut j: MatMut<'_, f64>) {
        let n = self.axes.len();
        let mut full = Mat::<f64>::zeros(3, n);
        if self
            .tree
            .point_jacobian(q, self.body, self.point, full.as_mut())
            .is_err()
        {
            j.fill(f64::NAN);
            return;
        }
        for (k, &a) in self.axes.iter().enumerate() {
            for c in 0..n {
                j[(k, c)] = full[(a, c)];
            }
        }
    }

    fn jacobian_dot_qd(&self, q: &[f64], qd: &[f64], out: &mut [f64]) {
        match self.tree.point_accel_bias(q, qd, self.body, self.point) {
            Ok(x) => {
                for (k, &a) in self.axes.iter().enumerate() {
                    out[k] = x[a];
                }
            }
            Err(_) => out.fill(f64::NAN),
        }
    }

    fn inverse_guess(&self, p: &[f64], q: &mut [f64]) {
        // the configuration of the nearest tabulated point
        let best = self.table.iter().min_by(|a, b| {
            let da: f64 = a.0.iter().zip(p).map(|(x, y)| (x - y) * (x - y)).sum();
            let db: f64 = b.0.iter().zip(p).map(|(x, y)| (x - y) * (x - y)).sum();
            da.total_cmp(&db)
        });
        if let Some((_, qt)) = best {
            q.copy_from_slice(qt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::joint_path::JointPath;
    use crate::path::{Segment, SegmentKind, Shape};

    /// A planar 2-link arm's tip along a Cartesian line: the joint path puts the tip on the
    /// line (forward kinematics of Q(s) = P(s)), J B = P′, and B matches a finite difference.
    #[test]
    fn planar_tip_follows_a_cartesian_line() {
        let arm = KinematicTree::planar(2);
        let seg = Segment {
            s_start: 0.0,
            s_end: 1.0,
            shape: Shape::Line {
                start: vec![1.5, 0.5],
                end: vec![0.6, 1.3],
            },
            kind: SegmentKind::Unconstrained,
        };
        let path = Path::new(vec![seg]).unwrap();
        // elbow-down start: solve the 2-link closed form at (1.5, 0.5)
        let (x, y) = (1.5f64, 0.5f64);
        let c2 = (x * x + y * y - 2.0) / 2.0;
        let q2 = c2.acos();
        let q1 = y.atan2(x) - (q2.sin()).atan2(1.0 + q2.cos());
        let kin =
            TreePointKinematics::along(&arm, 1, [1.0, 0.0, 0.0], vec![0, 1], &path, &[q1, q2])
                .unwrap();
        let jp = kin.joint_path(path.clone()).unwrap();
        let (mut q, mut b, mut bb) = ([0.0; 2], [0.0; 2], [0.0; 2]);
        let (mut qp, mut bp, mut bbp) = ([0.0; 2], [0.0; 2], [0.0; 2]);
        for s in [0.0, 0.23, 0.5, 0.91] {
            jp.eval(0, s, &mut q, &mut b, &mut bb).unwrap();
            let tip = arm.point_position(&q, 1, [1.0, 0.0, 0.0]).unwrap();
            let want = [1.5 - 0.9 * s, 0.5 + 0.8 * s];
            assert!((tip[0] - want[0]).abs() < 1e-12 && (tip[1] - want[1]).abs() < 1e-12);
            assert!(q[1] > 0.0, "the elbow stays on its branch");
            let e = 1e-6;
            jp.eval(0, s + e, &mut qp, &mut bp, &mut bbp).unwrap();
            for i in 0..2 {
                assert!(
                    ((qp[i] - q[i]) / e - b[i]).abs() < 1e-5,
                    "B vs finite difference"
                );
                assert!(
                    ((bp[i] - b[i]) / e - bb[i]).abs() < 1e-4,
                    "B̄ vs finite difference"
                );
            }
        }
        // minimum time of the tip's straight line under torque limits: the two solvers agree
        let d = crate::PathDynamics::new(&arm, &jp).unwrap();
        let lim = crate::BoxLimits::from_effort(&[20.0, 8.0]);
        let acc = crate::AccelerationLimits::new(&d, &lim);
        let pp = crate::phase_plane::PhasePlane::new(&acc, Default::default())
            .solve()
            .unwrap()
            .total_time;
        let tr = crate::toppra::Toppra::new(&acc, Default::default())
            .solve()
            .unwrap()
            .total_time;
        assert!(
            tr >= pp * (1.0 - 1e-9) && tr < pp * (1.0 + 2e-3),
            "{pp} {tr}"
        );
        // out of reach: the continuation reports where
        let far = Path::new(vec![Segment {
            s_start: 0.0,
            s_end: 1.0,
            shape: Shape::Line {
                start: vec![1.5, 0.5],
                end: vec![3.0, 0.5],
            },
            kind: SegmentKind::Unconstrained,
        }])
        .unwrap();
        assert!(matches!(
            TreePointKinematics::along(&arm, 1, [1.0, 0.0, 0.0], vec![0, 1], &far, &[q1, q2]),
            Err(PlanningError::InverseKinematics { .. })
        ));
    }
}
