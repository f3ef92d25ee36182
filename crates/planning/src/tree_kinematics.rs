//! Cartesian paths for a kinematic tree's end effector: the world position of a point on one
//! body, restricted to as many coordinates as the tree has joints (x, y for a planar 2-link
//! arm; x, y, z for a 3-joint arm), as a square [`Kinematics`] map for [`IkJointPath`] — so a
//! [`crate::Path`] of lines and arcs in the workspace becomes a joint path q = Q(s) with
//! `J B = P′`, `J B̄ = P″ − J̇ B` (Huang (4.3.2)).
//!
//! The inverse is Newton's ([`IkJointPath`]) from a guess taken from a table solved once along
//! the path by continuation from a given start configuration ([`TreePointKinematics::along`]):
//! the nearest tabulated point's configuration, so the branch (elbow up or down) chosen at the
//! start is kept along the whole path.
//!
//! Redundant arms (more joints than task coordinates, e.g. a 7-joint arm's tip position):
//! [`redundant_joint_path`] resolves the redundancy by minimum joint motion — at knots along the
//! Cartesian path, Newton with minimum-norm steps `δq = Jᵀ(J Jᵀ)⁻¹ r` from the previous knot's
//! solution (the continuation stays on the branch of `q_start`) — and returns the C² joint
//! spline through the knots ([`crate::cubic_spline`]) with its measured task-space deviation.

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
        check_point(tree, body, &axes)?;
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
                path.eval_on(si, s, &mut p, &mut dp, &mut ddp)?;
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

/// `body` is one of `tree`'s and every task axis is x, y or z (0, 1, 2).
fn check_point(tree: &KinematicTree, body: usize, axes: &[usize]) -> Result<(), PlanningError> {
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
    Ok(())
}

/// The joint path of a redundant arm along a Cartesian path ([`redundant_joint_path`]).
#[derive(Clone, Debug)]
pub struct RedundantJointPath {
    /// The C² joint spline q = P(σ) through the knots (for [`crate::CartesianJointPath`]).
    pub path: Path,
    /// The inverse-kinematics solutions at the knots.
    pub knots: Vec<Vec<f64>>,
    /// Largest distance `‖H(P(σ)) − p(s*)‖∞` \[m\] of the spline's point at the midpoints
    /// between knots from its foot point `p(s*)` on the Cartesian path (at the knots it is on
    /// the path to 1e-13).
    pub max_task_deviation: f64,
}

/// A Cartesian path (`path`, dimension `m = axes.len()` < N) for the point `point` of `body` of
/// a redundant tree, as a joint path: minimum-norm inverse kinematics at `knots_per_segment + 1`
/// points of every segment, continued from `q_start` (which must place the point at the path's
/// start, up to Newton's reach), then a natural C² spline through the knots. Segments that meet
/// at a corner are rounded by the spline: plan each smooth piece on its own when that matters
/// (the deviation is reported).
///
/// Errors: [`PlanningError::DimensionMismatch`] (`axes` not fewer than the joints, `q_start`,
/// the path's dimension), [`PlanningError::InvalidParameter`] (an axis > 2, a body out of
/// range, fewer than 2 knots per segment), [`PlanningError::InverseKinematics`] where Newton
/// fails (out of reach, or `J Jᵀ` singular: a singular configuration).
pub fn redundant_joint_path(
    tree: &KinematicTree,
    body: usize,
    point: [f64; 3],
    axes: &[usize],
    path: &Path,
    q_start: &[f64],
    knots_per_segment: usize,
) -> Result<RedundantJointPath, PlanningError> {
    let (n, m) = (tree.dof(), axes.len());
    if m >= n || path.dim() != m || q_start.len() != n {
        return Err(PlanningError::DimensionMismatch {
            what: "task axes < joints = q_start, path dimension = task axes",
            expected: if q_start.len() != n { n } else { m },
            found: if q_start.len() != n {
                q_start.len()
            } else {
                path.dim()
            },
        });
    }
    check_point(tree, body, axes)?;
    if knots_per_segment < 2 {
        return Err(PlanningError::InvalidParameter {
            name: "knots_per_segment",
            value: knots_per_segment as f64,
            expected: ">= 2",
        });
    }
    let task = |q: &[f64], out: &mut [f64]| -> Result<(), PlanningError> {
        let x = tree
            .point_position(q, body, point)
            .map_err(|_| PlanningError::NonFinite {
                what: "point position",
            })?;
        for (k, &a) in axes.iter().enumerate() {
            out[k] = x[a];
        }
        Ok(())
    };
    let mut q = q_start.to_vec();
    let (mut p, mut dp, mut ddp, mut h) = (vec![0.0; m], vec![0.0; m], vec![0.0; m], vec![0.0; m]);
    let (mut full, mut j) = (Mat::<f64>::zeros(3, n), Mat::<f64>::zeros(m, n));
    let mut knots: Vec<Vec<f64>> = Vec::new();
    let mut knot_s: Vec<(usize, f64)> = Vec::new();
    for (si, seg) in path.segments().iter().enumerate() {
        // a segment's first point is the previous segment's last
        let first = if si == 0 { 0 } else { 1 };
        for k in first..=knots_per_segment {
            let s = seg.s_start + (seg.s_end - seg.s_start) * k as f64 / knots_per_segment as f64;
            path.eval_on(si, s, &mut p, &mut dp, &mut ddp)?;
            let scale = 1.0 + p.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            let mut res = f64::INFINITY;
            for _ in 0..50 {
                task(&q, &mut h)?;
                res = (0..m).fold(0.0f64, |a, i| a.max((p[i] - h[i]).abs()));
                if res <= 1e-13 * scale {
                    break;
                }
                tree.point_jacobian(&q, body, point, full.as_mut())
                    .map_err(|_| PlanningError::NonFinite {
                        what: "point Jacobian",
                    })?;
                for (r, &a) in axes.iter().enumerate() {
                    for c in 0..n {
                        j[(r, c)] = full[(a, c)];
                    }
                }
                // minimum-norm step: δq = Jᵀ (J Jᵀ)⁻¹ (p − H(q))
                let jjt = &j * j.transpose();
                let rhs = Mat::from_fn(m, 1, |i, _| p[i] - h[i]);
                let Ok(llt) = jjt.llt(faer::Side::Lower) else {
                    return Err(PlanningError::InverseKinematics { s, residual: res });
                };
                let dq = j.transpose() * llt.solve(&rhs);
                for i in 0..n {
                    q[i] += dq[(i, 0)];
                }
            }
            if res.is_nan() || res > 1e-10 * scale {
                return Err(PlanningError::InverseKinematics { s, residual: res });
            }
            knots.push(q.clone());
            knot_s.push((si, s));
        }
    }
    // Clamped ends with slopes dq/dσ from the cubic through the first (last) four knots in
    // the spline's own chord-length parameter σ: a natural end (q'' = 0) would cost O(h²) of
    // task deviation there, these slopes keep the spline's O(h⁴).
    let ends = end_slopes(&knots).map_or(crate::spline::SplineEnds::Natural, |(start, end)| {
        crate::spline::SplineEnds::Clamped { start, end }
    });
    let spline = crate::spline::cubic_spline(&knots, ends)?;
    // The deviation between knots: the spline's midpoint against its foot point on the
    // Cartesian path (Newton on (p(s) − x)·p′(s) = 0 from the parameter midpoint; the spline's
    // chord-length parameter does not match s, so the distance, not p(s_mid), is compared).
    let (mut qm, mut b, mut bb) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut dev = 0.0f64;
    for (k, seg) in spline.segments().iter().enumerate() {
        let (si, s0) = knot_s[k];
        let (sj, s1) = knot_s[k + 1];
        spline.eval_on(k, 0.5 * (seg.s_start + seg.s_end), &mut qm, &mut b, &mut bb)?;
        task(&qm, &mut h)?;
        // both knots lie on segment `sj` (a segment's first knot is the previous one's last)
        let c = &path.segments()[sj];
        let lo = if si == sj { s0 } else { c.s_start };
        let mut sm = 0.5 * (lo + s1);
        for _ in 0..8 {
            path.eval_on(sj, sm, &mut p, &mut dp, &mut ddp)?;
            let (mut g, mut gg) = (0.0, 0.0);
            for i in 0..m {
                g += (p[i] - h[i]) * dp[i];
                gg += dp[i] * dp[i] + (p[i] - h[i]) * ddp[i];
            }
            if gg <= 0.0 {
                break;
            }
            sm = (sm - g / gg).clamp(lo, s1);
        }
        path.eval_on(sj, sm, &mut p, &mut dp, &mut ddp)?;
        dev = dev.max((0..m).fold(0.0f64, |a, i| a.max((p[i] - h[i]).abs())));
    }
    Ok(RedundantJointPath {
        path: spline,
        knots,
        max_task_deviation: dev,
    })
}

/// dq/dσ at both ends of the knots in the normalized chord-length parameter σ of
/// [`crate::cubic_spline`], from the derivative of the cubic interpolating the four end knots
/// (`None` with fewer than four knots or a zero chord).
#[allow(clippy::type_complexity)]
fn end_slopes(knots: &[Vec<f64>]) -> Option<(Vec<f64>, Vec<f64>)> {
    let n = knots.len();
    if n < 4 {
        return None;
    }
    let mut sigma = vec![0.0; n];
    for k in 1..n {
        let d: f64 = knots[k]
            .iter()
            .zip(&knots[k - 1])
            .map(|(a, b)| (a - b) * (a - b))
            .sum();
        sigma[k] = sigma[k - 1] + d.sqrt();
    }
    let total = sigma[n - 1];
    if total <= 0.0 {
        return None;
    }
    // d/dx of the Lagrange cubic through (x_i, y_i), i = 0..4, at x = x[at]
    let slope = |idx: [usize; 4], at: usize| -> Vec<f64> {
        let x: Vec<f64> = idx.iter().map(|&i| sigma[i] / total).collect();
        let w: Vec<f64> = (0..4)
            .map(|j| {
                if j == at {
                    (0..4)
                        .filter(|&k| k != j)
                        .map(|k| 1.0 / (x[j] - x[k]))
                        .sum()
                } else {
                    let num: f64 = (0..4)
                        .filter(|&k| k != j && k != at)
                        .map(|k| x[at] - x[k])
                        .product();
                    let den: f64 = (0..4).filter(|&k| k != j).map(|k| x[j] - x[k]).product();
                    num / den
                }
            })
            .collect();
        (0..knots[0].len())
            .map(|c| (0..4).map(|j| w[j] * knots[idx[j]][c]).sum())
            .collect()
    };
    Some((
        slope([0, 1, 2, 3], 0),
        slope([n - 4, n - 3, n - 2, n - 1], 3),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::joint_path::JointPath;
    use crate::path::{Segment, SegmentKind, Shape};

    /// Minimum time of `jp` under `|τ| ≤ effort` by the phase plane and by TOPP-RA.
    fn both_solvers<P: JointPath>(tree: &KinematicTree, jp: &P, effort: &[f64]) -> (f64, f64) {
        let d = crate::PathDynamics::new(tree, jp).unwrap();
        let lim = crate::BoxLimits::from_effort(effort);
        let acc = crate::AccelerationLimits::new(&d, &lim);
        let pp = crate::phase_plane::PhasePlane::new(&acc, Default::default())
            .solve()
            .unwrap()
            .total_time;
        let tr = crate::toppra::Toppra::new(&acc, Default::default())
            .solve()
            .unwrap()
            .total_time;
        (pp, tr)
    }

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
        let (pp, tr) = both_solvers(&arm, &jp, &[20.0, 8.0]);
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

    /// The Panda's flange (7 joints) along a 3-D Cartesian line, redundancy resolved by
    /// minimum joint motion: the knots are on the line to 1e-12, the spline between them
    /// within 1e-6 m, its deviation falls like h⁴ (doubling the knots divides it by ≥ 8), and
    /// the phase plane plans the result (TOPP-RA within 2e-3 above it). Bad input is typed.
    #[test]
    fn a_redundant_arm_follows_a_cartesian_line() {
        let panda = contour_model::models::panda_arm();
        let body = panda.n_bodies() - 1;
        let point = [0.0, 0.0, 0.107];
        let q0 = [0.0, -0.3, 0.0, -2.2, 0.0, 2.0, 0.8];
        let a = panda.point_position(&q0, body, point).unwrap();
        let b = [a[0] + 0.1, a[1] + 0.15, a[2] - 0.1];
        let line = Path::new(vec![Segment {
            s_start: 0.0,
            s_end: 1.0,
            shape: Shape::Line {
                start: a.to_vec(),
                end: b.to_vec(),
            },
            kind: SegmentKind::Unconstrained,
        }])
        .unwrap();
        let axes = [0, 1, 2];
        let coarse = redundant_joint_path(&panda, body, point, &axes, &line, &q0, 20).unwrap();
        let fine = redundant_joint_path(&panda, body, point, &axes, &line, &q0, 40).unwrap();
        for (k, q) in fine.knots.iter().enumerate() {
            let x = panda.point_position(q, body, point).unwrap();
            let s = k as f64 / 40.0;
            for i in 0..3 {
                assert!((x[i] - (a[i] + (b[i] - a[i]) * s)).abs() < 1e-12);
            }
        }
        let (dc, df) = (coarse.max_task_deviation, fine.max_task_deviation);
        assert!(df < 1e-6 && df < dc / 8.0, "deviation {dc:e} -> {df:e}");
        // minimum joint motion: the knots move little per step (no flip of the null space)
        let step = fine.knots.windows(2).fold(0.0f64, |m, w| {
            m.max(
                w[0].iter()
                    .zip(&w[1])
                    .fold(0.0f64, |a, (x, y)| a.max((x - y).abs())),
            )
        });
        assert!(step < 0.05, "largest joint step between knots {step}");
        let jp = crate::CartesianJointPath::new(fine.path.clone());
        let effort = [87.0, 87.0, 87.0, 87.0, 12.0, 12.0, 12.0];
        let (pp, tr) = both_solvers(&panda, &jp, &effort);
        assert!(
            pp > 0.0 && tr >= pp * (1.0 - 1e-9) && tr < pp * (1.0 + 2e-3),
            "{pp} {tr}"
        );
        eprintln!("panda line: deviation {dc:.2e} (20 knots) -> {df:.2e} (40); T {pp:.6} s, TOPP-RA {tr:.6} s");
        // bad input
        assert!(matches!(
            redundant_joint_path(&panda, body, point, &axes, &line, &q0[..6], 20),
            Err(PlanningError::DimensionMismatch { .. })
        ));
        assert!(matches!(
            redundant_joint_path(&panda, body, point, &[0, 1, 3], &line, &q0, 20),
            Err(PlanningError::InvalidParameter { .. })
        ));
        let far = Path::new(vec![Segment {
            s_start: 0.0,
            s_end: 1.0,
            shape: Shape::Line {
                start: a.to_vec(),
                end: vec![a[0] + 3.0, a[1], a[2]],
            },
            kind: SegmentKind::Unconstrained,
        }])
        .unwrap();
        assert!(matches!(
            redundant_joint_path(&panda, body, point, &axes, &far, &q0, 20),
            Err(PlanningError::InverseKinematics { .. })
        ));
    }
}
