//! Path construction from conditions, Huang 6.2.1.
//!
//! A planar contour-following task: start at p0, reach the circle
//! `φ(p) = |p − c|² − R² ≥ 0` at p1, follow it counter-clockwise to p2 with a prescribed
//! contact force, leave and return to pf. Two paths are **computed** (nothing printed is
//! typed in):
//!
//! Two ways to place the arc and s1, s2 ([`ArcConstruction`]):
//!
//! * [`ArcConstruction::ArcGiven`] — **Huang's construction as stated** (6.2.1)–(6.2.3): the
//!   arc is parameterized by arc length, `θ(s) = s/R + θ_off` (Huang: `x = 0.5 cos(2s − 2)`,
//!   `y = 1.5 + 0.5 sin(2s − 2)`), and s1, s2 are **solved** so that the normality condition
//!   (4.2.6) holds on the lines too: `|P_arc(s1) − p0| = s1` and `|pf − P_arc(s2)| = 1 − s2`.
//!   The entry and exit points are outputs (Huang's printed p1, p2 are these rounded); the
//!   given p1, p2 only pick the root.
//! * [`ArcConstruction::PointsGiven`] — for users whose entry and exit points are exact data:
//!   p1 and p2 are projected radially onto the circle, s is the arc length divided by the
//!   total length L, so `s1 = L1/L`, `s2 = (L1 + L2)/L`, P(1) = pf, and the normality
//!   condition holds up to `|L² − 1|`.
//!
//! On either, two paths are built:
//!
//! * [`ContourTask::discontinuous_slope_path`] — lines p0→p1, p2→pf and the arc p1→p2, each
//!   with constant speed, Huang (6.2.2)–(6.2.5).
//! * [`ContourTask::continuous_slope_path`] — quadratics joined C¹ to the same arc at the
//!   same s1, s2 (Huang (6.2.6)–(6.2.9)): `P(0) = p0`, `P(s1) = P_arc(s1)`,
//!   `P′(s1) = P′_arc(s1)`, and at the exit `P(s2) = P_arc(s2)`, `P′(s2) = P′_arc(s2)`,
//!   `P(1) = pf`. Equal derivative vectors give the impact-avoidance condition
//!   (4.2.7) `D P′(s1) = 0` and the slope conditions `∂y/∂x(s1⁺) = ∂y/∂x(s1⁻)` of 6.2.1, and
//!   make the speed continuous.

use crate::error::PlanningError;
use crate::path::{ContactForce, Path, Segment, SegmentKind, Shape};

/// Data of a planar contour-following task (Huang 6.1, (6.2.1)).
#[derive(Clone, Debug, PartialEq)]
pub struct ContourTask {
    /// Initial point p0 \[m\].
    pub p0: [f64; 2],
    /// Entry point p1 on the circle \[m\].
    pub p1: [f64; 2],
    /// Exit point p2 on the circle \[m\].
    pub p2: [f64; 2],
    /// Final point pf \[m\].
    pub pf: [f64; 2],
    /// Circle centre c \[m\].
    pub center: [f64; 2],
    /// Circle radius R \[m\].
    pub radius: f64,
    /// Prescribed multiplier Λ on the circle (Huang (6.2.10): 1).
    pub contact_force: f64,
    /// Constraint row of the mechanism that is the circle.
    pub constraint_row: usize,
    /// How the arc and s1, s2 are placed.
    pub construction: ArcConstruction,
}

/// How [`ContourTask`] places the arc and the breakpoints s1, s2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArcConstruction {
    /// Huang (6.2.1)–(6.2.3): the arc angle is `θ(s) = s/R + theta_offset` \[rad\] (unit
    /// speed), s1 and s2 are solved from the normality condition (4.2.6) on the lines,
    /// `|P_arc(s1) − p0| = s1`, `|pf − P_arc(s2)| = 1 − s2`; the given p1, p2 only select
    /// the roots (the nearest ones to `R (atan2(p − c) − theta_offset)`), the entry and exit
    /// points are outputs. Normality holds to round-off on every segment.
    ArcGiven {
        /// θ_off \[rad\] (Huang (6.2.3): −2).
        theta_offset: f64,
    },
    /// The entry and exit points are exact data: projected radially onto the circle, s is the
    /// arc length over the total length L (normality up to |L² − 1|).
    PointsGiven,
}

impl ContourTask {
    /// Huang's task as the thesis constructs it, (6.1.2), (6.2.1) and (6.2.3):
    /// p0 = pf = (0.4, 0.8), circle centre (0, 1.5), R = 0.5, Λ = 1, arc
    /// `θ(s) = 2s − 2` with s1, s2 solved ([`ArcConstruction::ArcGiven`]); the printed
    /// p1 = (0.1303, 1.0173), p2 = (0.3716, 1.1654) select the roots.
    pub fn huang() -> Self {
        Self {
            p0: [0.4, 0.8],
            p1: [0.1303, 1.0173],
            p2: [0.3716, 1.1654],
            pf: [0.4, 0.8],
            center: [0.0, 1.5],
            radius: 0.5,
            contact_force: 1.0,
            constraint_row: 0,
            construction: ArcConstruction::ArcGiven { theta_offset: -2.0 },
        }
    }

    /// Huang's data with the printed p1, p2 taken as exact ([`ArcConstruction::PointsGiven`]).
    pub fn huang_points_given() -> Self {
        Self {
            construction: ArcConstruction::PointsGiven,
            ..Self::huang()
        }
    }
}

/// Checks of the transition conditions at the entry s1 and the exit s2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TransitionChecks {
    /// `D(P(s1)) P′(s1⁻)` with `D = ∂φ/∂p` — impact avoidance (4.2.7), (4.3.10).
    pub impact_avoidance_s1: f64,
    /// `D(P(s2)) P′(s2⁺)` — tangency (4.3.9), (4.3.11).
    pub tangency_s2: f64,
    /// Cosine of the angle between P′(s1⁻) and the circle normal (0 = tangent).
    pub entry_cosine: f64,
    /// Cosine of the angle between P′(s2⁺) and the circle normal (0 = tangent).
    pub exit_cosine: f64,
    /// min φ(P(s)) over the interior of the unconstrained segments (must be > 0, (4.2.8)).
    pub min_clearance: f64,
    /// max |P′ᵀP′ − 1| over the path, (4.2.6).
    pub normality_residual: f64,
}

/// A constructed path with its named coefficients.
#[derive(Clone, Debug)]
pub struct ConstructedPath {
    /// The path (3 segments: free, constrained, free).
    pub path: Path,
    /// Entry parameter s1.
    pub s1: f64,
    /// Exit parameter s2.
    pub s2: f64,
    /// Named coefficients (`a1..a4, c1..c4` or `d1..d6, e1..e6`).
    pub coefficients: Vec<(&'static str, f64)>,
    /// Arc angle θ(s) = ω s + θ_off: the offset θ_off (Huang (6.2.3): −2) and rate ω (2).
    pub arc_angle: (f64, f64),
    /// Total Euclidean length L of the geometric path (before scaling s to \[0, 1\]).
    pub length: f64,
    /// Distances between the given p1, p2 and the entry and exit points of the path (the
    /// radial projection for [`ArcConstruction::PointsGiven`], the solved points for
    /// [`ArcConstruction::ArcGiven`]).
    pub projection: [f64; 2],
    /// The entry and exit points P(s1), P(s2) \[m\].
    pub entry_exit: [[f64; 2]; 2],
    /// Transition checks at s1 and s2.
    pub checks: TransitionChecks,
}

impl ConstructedPath {
    /// Coefficient by name.
    pub fn coefficient(&self, name: &str) -> Option<f64> {
        self.coefficients
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }
}

struct Arc2 {
    p1: [f64; 2],
    p2: [f64; 2],
    th1: f64,
    th2: f64,
    s1: f64,
    s2: f64,
    length: f64,
    projection: [f64; 2],
}

fn finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

impl ContourTask {
    fn validate(&self) -> Result<(), PlanningError> {
        let all = [self.p0, self.p1, self.p2, self.pf, self.center].concat();
        if !finite(&all) || !self.radius.is_finite() || !self.contact_force.is_finite() {
            return Err(PlanningError::NonFinite {
                what: "contour task data",
            });
        }
        if self.radius <= 0.0 {
            return Err(PlanningError::DegenerateGeometry {
                what: "radius must be positive",
            });
        }
        Ok(())
    }

    fn phi(&self, p: &[f64]) -> f64 {
        let dx = p[0] - self.center[0];
        let dy = p[1] - self.center[1];
        dx * dx + dy * dy - self.radius * self.radius
    }

    fn arc(&self) -> Result<Arc2, PlanningError> {
        self.validate()?;
        match self.construction {
            ArcConstruction::PointsGiven => self.arc_points_given(),
            ArcConstruction::ArcGiven { theta_offset } => self.arc_given(theta_offset),
        }
    }

    /// Huang (6.2.1)–(6.2.3): θ(s) = s/R + θ_off, s1 and s2 from the normality condition.
    fn arc_given(&self, theta_offset: f64) -> Result<Arc2, PlanningError> {
        if !theta_offset.is_finite() {
            return Err(PlanningError::NonFinite {
                what: "theta_offset",
            });
        }
        let (c, r) = (self.center, self.radius);
        let point = |s: f64| {
            let th = s / r + theta_offset;
            [c[0] + r * th.cos(), c[1] + r * th.sin()]
        };
        let tangent = |s: f64| {
            let th = s / r + theta_offset;
            [-th.sin(), th.cos()]
        };
        // the root nearest to the given point's angle: s = R (atan2(p − c) − θ_off) mod 2πR
        let guess = |p: [f64; 2]| {
            let th = (p[1] - c[1]).atan2(p[0] - c[0]);
            let per = 2.0 * std::f64::consts::PI * r;
            let s = r * (th - theta_offset);
            s - per * ((s - 0.5) / per).round()
        };
        // f(s) = |P_arc(s) − p| − ℓ(s) with ℓ = s (entry) or 1 − s (exit), Newton from the guess
        let solve = |p: [f64; 2], entry: bool, s0: f64| -> Result<f64, PlanningError> {
            let mut s = s0;
            for _ in 0..100 {
                let a = point(s);
                let t = tangent(s);
                let d = [a[0] - p[0], a[1] - p[1]];
                let n = (d[0] * d[0] + d[1] * d[1]).sqrt();
                if n == 0.0 {
                    break;
                }
                let (f, df) = if entry {
                    (n - s, (d[0] * t[0] + d[1] * t[1]) / n - 1.0)
                } else {
                    (n - (1.0 - s), (d[0] * t[0] + d[1] * t[1]) / n + 1.0)
                };
                if df == 0.0 || !f.is_finite() {
                    break;
                }
                let step = f / df;
                s -= step;
                if step.abs() <= 1e-16 * (1.0 + s.abs()) {
                    let a = point(s);
                    let n = ((a[0] - p[0]).powi(2) + (a[1] - p[1]).powi(2)).sqrt();
                    let res = if entry { n - s } else { n - (1.0 - s) };
                    if res.abs() <= 1e-14 {
                        return Ok(s);
                    }
                    break;
                }
            }
            Err(PlanningError::DegenerateGeometry {
                what: "no s1/s2 satisfies the normality condition near the given entry/exit points",
            })
        };
        for p in [self.p1, self.p2] {
            if ((p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2)).sqrt() < 1e-12 * r {
                return Err(PlanningError::DegenerateGeometry {
                    what: "entry/exit point at the circle centre",
                });
            }
        }
        let s1 = solve(self.p0, true, guess(self.p1))?;
        let s2 = solve(self.pf, false, guess(self.p2))?;
        if !(0.0 < s1 && s1 < s2 && s2 < 1.0) {
            return Err(PlanningError::DegenerateGeometry {
                what: "solved breakpoints not ordered 0 < s1 < s2 < 1",
            });
        }
        let (q1, q2) = (point(s1), point(s2));
        let dist =
            |a: [f64; 2], b: [f64; 2]| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
        Ok(Arc2 {
            p1: q1,
            p2: q2,
            th1: s1 / r + theta_offset,
            th2: s2 / r + theta_offset,
            s1,
            s2,
            length: 1.0,
            projection: [dist(q1, self.p1), dist(q2, self.p2)],
        })
    }

    fn arc_points_given(&self) -> Result<Arc2, PlanningError> {
        let c = self.center;
        let r = self.radius;
        let project = |p: [f64; 2]| -> Result<([f64; 2], f64, f64), PlanningError> {
            let (dx, dy) = (p[0] - c[0], p[1] - c[1]);
            let d = (dx * dx + dy * dy).sqrt();
            if d < 1e-12 * r {
                return Err(PlanningError::DegenerateGeometry {
                    what: "entry/exit point at the circle centre",
                });
            }
            let q = [c[0] + r * dx / d, c[1] + r * dy / d];
            Ok((q, dy.atan2(dx), (d - r).abs()))
        };
        let (q1, th1, e1) = project(self.p1)?;
        let (q2, mut th2, e2) = project(self.p2)?;
        // counter-clockwise from p1 to p2 (Huang 6.1)
        while th2 <= th1 {
            th2 += 2.0 * std::f64::consts::PI;
        }
        let dist =
            |a: [f64; 2], b: [f64; 2]| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
        let l1 = dist(self.p0, q1);
        let l2 = r * (th2 - th1);
        let l3 = dist(q2, self.pf);
        if l1 <= 0.0 || l3 <= 0.0 || l2 <= 0.0 {
            return Err(PlanningError::DegenerateGeometry {
                what: "coincident points",
            });
        }
        let length = l1 + l2 + l3;
        Ok(Arc2 {
            p1: q1,
            p2: q2,
            th1,
            th2,
            s1: l1 / length,
            s2: (l1 + l2) / length,
            length,
            projection: [e1, e2],
        })
    }

    fn arc_segment(&self, a: &Arc2) -> Segment {
        Segment {
            s_start: a.s1,
            s_end: a.s2,
            shape: Shape::Arc {
                center: self.center.to_vec(),
                u: vec![1.0, 0.0],
                v: vec![0.0, 1.0],
                radius: self.radius,
                theta_start: a.th1,
                theta_end: a.th2,
            },
            kind: SegmentKind::Constrained {
                row: self.constraint_row,
                force: ContactForce::Constant(self.contact_force),
            },
        }
    }

    fn checks(&self, path: &Path, s1: f64, s2: f64) -> TransitionChecks {
        let segs = path.segments();
        let mut p = [0.0; 2];
        let mut d = [0.0; 2];
        let mut dd = [0.0; 2];
        let dphi = |p: &[f64; 2], d: &[f64; 2]| {
            let n = [2.0 * (p[0] - self.center[0]), 2.0 * (p[1] - self.center[1])];
            let dot = n[0] * d[0] + n[1] * d[1];
            let cosang =
                dot / ((n[0] * n[0] + n[1] * n[1]).sqrt() * (d[0] * d[0] + d[1] * d[1]).sqrt());
            (dot, cosang)
        };
        segs[0].eval_in(s1, &mut p, &mut d, &mut dd);
        let (ia, ca) = dphi(&p, &d);
        segs[2].eval_in(s2, &mut p, &mut d, &mut dd);
        let (tg, cb) = dphi(&p, &d);
        let mut clearance = f64::INFINITY;
        for seg in [&segs[0], &segs[2]] {
            let n = 2000;
            for k in 1..n {
                let s = seg.s_start + (seg.s_end - seg.s_start) * k as f64 / n as f64;
                seg.eval_in(s, &mut p, &mut d, &mut dd);
                clearance = clearance.min(self.phi(&p));
            }
        }
        TransitionChecks {
            impact_avoidance_s1: ia,
            tangency_s2: tg,
            entry_cosine: ca,
            exit_cosine: cb,
            min_clearance: clearance,
            normality_residual: path.normality_residual_in(200),
        }
    }

    /// The path with discontinuous slopes, Huang (6.2.2)–(6.2.5):
    /// `x = a1 s + a2, y = a3 s + a4` on `[0, s1]`, the arc on `[s1, s2]`,
    /// `x = c1 s + c2, y = c3 s + c4` on `[s2, 1]`.
    pub fn discontinuous_slope_path(&self) -> Result<ConstructedPath, PlanningError> {
        let a = self.arc()?;
        let (s1, s2) = (a.s1, a.s2);
        let path = Path::new(vec![
            Segment {
                s_start: 0.0,
                s_end: s1,
                shape: Shape::Line {
                    start: self.p0.to_vec(),
                    end: a.p1.to_vec(),
                },
                kind: SegmentKind::Unconstrained,
            },
            self.arc_segment(&a),
            Segment {
                s_start: s2,
                s_end: 1.0,
                shape: Shape::Line {
                    start: a.p2.to_vec(),
                    end: self.pf.to_vec(),
                },
                kind: SegmentKind::Unconstrained,
            },
        ])?;
        // x(0) = x0, x(s1) = x1 on the first line; x(s2) = x2, x(1) = xf on the last (6.2.2), (6.2.4)
        let a1 = (a.p1[0] - self.p0[0]) / s1;
        let a3 = (a.p1[1] - self.p0[1]) / s1;
        let c1 = (self.pf[0] - a.p2[0]) / (1.0 - s2);
        let c3 = (self.pf[1] - a.p2[1]) / (1.0 - s2);
        let coefficients = vec![
            ("a1", a1),
            ("a2", self.p0[0]),
            ("a3", a3),
            ("a4", self.p0[1]),
            ("c1", c1),
            ("c2", self.pf[0] - c1),
            ("c3", c3),
            ("c4", self.pf[1] - c3),
        ];
        Ok(self.assemble(&a, path, coefficients))
    }

    /// The constructed path with its arc data and the transition checks (both constructions).
    fn assemble(
        &self,
        a: &Arc2,
        path: Path,
        coefficients: Vec<(&'static str, f64)>,
    ) -> ConstructedPath {
        let (s1, s2) = (a.s1, a.s2);
        let omega = (a.th2 - a.th1) / (s2 - s1);
        let checks = self.checks(&path, s1, s2);
        ConstructedPath {
            path,
            s1,
            s2,
            coefficients,
            arc_angle: (a.th1 - omega * s1, omega),
            length: a.length,
            projection: a.projection,
            entry_exit: [a.p1, a.p2],
            checks,
        }
    }

    /// The path with continuous slope, Huang (6.2.6)–(6.2.9):
    /// `x = d1 s² + d2 s + d3, y = d4 s² + d5 s + d6` on `[0, s1]`, the arc on `[s1, s2]`,
    /// `x = e1 s² + e2 s + e3, y = e4 s² + e5 s + e6` on `[s2, 1]`, joined C¹ to the arc.
    pub fn continuous_slope_path(&self) -> Result<ConstructedPath, PlanningError> {
        let a = self.arc()?;
        let (s1, s2) = (a.s1, a.s2);
        let arc = self.arc_segment(&a);
        let mut x1 = [0.0; 2];
        let mut t1 = [0.0; 2];
        let mut x2 = [0.0; 2];
        let mut t2 = [0.0; 2];
        let mut dd = [0.0; 2];
        arc.eval_in(s1, &mut x1, &mut t1, &mut dd);
        arc.eval_in(s2, &mut x2, &mut t2, &mut dd);
        let mut first = vec![vec![0.0; 3]; 2];
        let mut last = vec![vec![0.0; 3]; 2];
        for k in 0..2 {
            // x(s) = X1 + T1 (s − s1) + d (s − s1)², x(0) = x0  →  d = (x0 − X1 + T1 s1)/s1²
            let d = (self.p0[k] - x1[k] + t1[k] * s1) / (s1 * s1);
            first[k] = vec![x1[k] - t1[k] * s1 + d * s1 * s1, t1[k] - 2.0 * d * s1, d];
            // x(s) = X2 + T2 (s − s2) + e (s − s2)², x(1) = xf  →  e = (xf − X2 − T2 (1 − s2))/(1 − s2)²
            let h = 1.0 - s2;
            let e = (self.pf[k] - x2[k] - t2[k] * h) / (h * h);
            last[k] = vec![x2[k] - t2[k] * s2 + e * s2 * s2, t2[k] - 2.0 * e * s2, e];
        }
        let coefficients = vec![
            ("d1", first[0][2]),
            ("d2", first[0][1]),
            ("d3", first[0][0]),
            ("d4", first[1][2]),
            ("d5", first[1][1]),
            ("d6", first[1][0]),
            ("e1", last[0][2]),
            ("e2", last[0][1]),
            ("e3", last[0][0]),
            ("e4", last[1][2]),
            ("e5", last[1][1]),
            ("e6", last[1][0]),
        ];
        let path = Path::new(vec![
            Segment {
                s_start: 0.0,
                s_end: s1,
                shape: Shape::Polynomial {
                    coefficients: first,
                },
                kind: SegmentKind::Unconstrained,
            },
            arc,
            Segment {
                s_start: s2,
                s_end: 1.0,
                shape: Shape::Polynomial { coefficients: last },
                kind: SegmentKind::Unconstrained,
            },
        ])?;
        Ok(self.assemble(&a, path, coefficients))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(path: &Path, seg: usize, s: f64) -> ([f64; 2], [f64; 2]) {
        let (mut p, mut d, mut dd) = ([0.0; 2], [0.0; 2], [0.0; 2]);
        path.eval_on(seg, s, &mut p, &mut d, &mut dd).unwrap();
        (p, d)
    }

    fn close(a: [f64; 2], b: [f64; 2], tol: f64) -> bool {
        (a[0] - b[0]).abs() <= tol && (a[1] - b[1]).abs() <= tol
    }

    #[test]
    fn discontinuous_slope_path_meets_its_conditions() {
        let task = ContourTask::huang();
        let cp = task.discontinuous_slope_path().unwrap();
        let p = &cp.path;
        assert!(close(eval(p, 0, 0.0).0, task.p0, 1e-15));
        assert!(close(eval(p, 2, 1.0).0, task.pf, 1e-15));
        // entry/exit points within the projection distance of the printed ones
        assert!(
            close(eval(p, 0, cp.s1).0, task.p1, 1e-4) && close(eval(p, 2, cp.s2).0, task.p2, 1e-4)
        );
        // continuity at the breakpoints and φ = 0 on the arc (4.2.9)
        assert!(close(eval(p, 0, cp.s1).0, eval(p, 1, cp.s1).0, 1e-14));
        assert!(close(eval(p, 1, cp.s2).0, eval(p, 2, cp.s2).0, 1e-14));
        for k in 0..=20 {
            let s = cp.s1 + (cp.s2 - cp.s1) * k as f64 / 20.0;
            assert!(task.phi(&eval(p, 1, s).0).abs() < 1e-14);
        }
        // equal speed L on every segment: P′ᵀP′ = L²  (normality up to |L² − 1|)
        for (seg, s) in [(0, 0.1), (1, 0.5), (2, 0.9)] {
            let d = eval(p, seg, s).1;
            let n2 = d[0] * d[0] + d[1] * d[1];
            assert!(
                (n2 - cp.length * cp.length).abs() < 1e-12 * n2,
                "segment {seg}: {n2}"
            );
        }
        assert!((cp.checks.normality_residual - (1.0 - cp.length * cp.length).abs()).abs() < 1e-12);
        // line coefficients reproduce the line
        let (a1, a2, a3, a4) = (
            cp.coefficient("a1").unwrap(),
            cp.coefficient("a2").unwrap(),
            cp.coefficient("a3").unwrap(),
            cp.coefficient("a4").unwrap(),
        );
        let q = eval(p, 0, 0.2).0;
        assert!(close(q, [a1 * 0.2 + a2, a3 * 0.2 + a4], 1e-14));
        let (c1, c2, c3, c4) = (
            cp.coefficient("c1").unwrap(),
            cp.coefficient("c2").unwrap(),
            cp.coefficient("c3").unwrap(),
            cp.coefficient("c4").unwrap(),
        );
        let q = eval(p, 2, 0.8).0;
        assert!(close(q, [c1 * 0.8 + c2, c3 * 0.8 + c4], 1e-14));
        // slope discontinuous: the entry is not tangent (so case 1 must stop there)
        assert!(cp.checks.entry_cosine.abs() > 0.5 && cp.checks.min_clearance > 0.0);
    }

    #[test]
    fn continuous_slope_path_is_c1_and_tangent() {
        let task = ContourTask::huang();
        let cp = task.continuous_slope_path().unwrap();
        let p = &cp.path;
        assert!(close(eval(p, 0, 0.0).0, task.p0, 1e-15));
        assert!(close(eval(p, 2, 1.0).0, task.pf, 1e-14));
        for (l, r, s) in [(0, 1, cp.s1), (1, 2, cp.s2)] {
            let (pl, dl) = eval(p, l, s);
            let (pr, dr) = eval(p, r, s);
            assert!(close(pl, pr, 1e-14) && close(dl, dr, 1e-13), "C1 at {s}");
        }
        // impact avoidance (4.2.7) and tangency (4.3.9)
        assert!(cp.checks.impact_avoidance_s1.abs() < 1e-13 && cp.checks.tangency_s2.abs() < 1e-13);
        assert!(cp.checks.min_clearance > 0.0);
        // the quadratic coefficients reproduce the segments: (d1..d6) on the first,
        // (e1..e6) on the last
        for (name, seg, s, tol) in [("d", 0, 0.17, 1e-14), ("e", 2, 0.81, 1e-13)] {
            let c: Vec<f64> = (1..=6)
                .map(|k| cp.coefficient(&format!("{name}{k}")).unwrap())
                .collect();
            let quad = [
                c[0] * s * s + c[1] * s + c[2],
                c[3] * s * s + c[4] * s + c[5],
            ];
            assert!(close(eval(p, seg, s).0, quad, tol), "{name} at {s}");
        }
    }

    /// Huang (6.2.1)–(6.2.3) as stated: unit speed on every segment (normality ≤ 1e-12), the
    /// printed arc θ = 2s − 2, solved s1, s2 whose points lie within one unit of the last
    /// printed digit (1e-4) of the printed p1, p2 (three of the four coordinates round to the
    /// print; x1 = 0.130245 is printed 0.1303); and the points-given option keeps p1, p2.
    #[test]
    fn arc_given_construction_is_normal_and_reproduces_the_points() {
        let task = ContourTask::huang();
        for cp in [
            task.discontinuous_slope_path().unwrap(),
            task.continuous_slope_path().unwrap(),
        ] {
            assert!((cp.arc_angle.1 - 2.0).abs() < 1e-14);
            assert!((cp.arc_angle.0 + 2.0).abs() < 1e-14);
            assert!(cp.projection[0] <= 1e-4 && cp.projection[1] <= 1e-4);
            let (e, x) = (cp.entry_exit[0], cp.entry_exit[1]);
            assert!(
                close(e, task.p1, 1e-4) && close(x, task.p2, 5e-5),
                "{e:?} {x:?}"
            );
            assert!((e[1] - task.p1[1]).abs() <= 5e-5);
        }
        let cp = task.discontinuous_slope_path().unwrap();
        assert!(
            cp.checks.normality_residual <= 1e-12,
            "{}",
            cp.checks.normality_residual
        );
        for (seg, s) in [
            (0, 0.0),
            (0, cp.s1),
            (1, cp.s1),
            (1, cp.s2),
            (2, cp.s2),
            (2, 1.0),
        ] {
            let d = eval(&cp.path, seg, s).1;
            assert!(
                (d[0] * d[0] + d[1] * d[1] - 1.0).abs() <= 1e-12,
                "{seg} {s}"
            );
        }
        // the arc is (6.2.3) itself
        for s in [cp.s1, 0.5, cp.s2] {
            let p = eval(&cp.path, 1, s).0;
            let q = [
                0.5 * (2.0 * s - 2.0).cos(),
                1.5 + 0.5 * (2.0 * s - 2.0).sin(),
            ];
            assert!(close(p, q, 1e-15), "{s}");
        }
        // points given: the entry is the radial projection of the printed p1, normality off
        let pg = ContourTask::huang_points_given()
            .discontinuous_slope_path()
            .unwrap();
        assert!(pg.checks.normality_residual > 1e-5);
        assert!(close(pg.entry_exit[0], task.p1, 1e-4));
        assert!((pg.s1 - cp.s1).abs() > 1e-6);
    }

    #[test]
    fn bad_task_data_is_rejected() {
        let mut t = ContourTask::huang_points_given();
        t.p2 = t.center;
        assert!(matches!(
            t.continuous_slope_path(),
            Err(PlanningError::DegenerateGeometry { .. })
        ));
        // no root of the normality condition: p0 on the far side, the arc out of reach of
        // unit-speed lines
        let mut t = ContourTask::huang();
        t.p0 = [5.0, 5.0];
        assert!(matches!(
            t.discontinuous_slope_path(),
            Err(PlanningError::DegenerateGeometry { .. })
        ));
        let mut t = ContourTask::huang();
        t.construction = ArcConstruction::ArcGiven {
            theta_offset: f64::NAN,
        };
        assert!(matches!(
            t.discontinuous_slope_path(),
            Err(PlanningError::NonFinite { .. })
        ));
        let mut t = ContourTask::huang();
        t.p1[0] = f64::NAN;
        assert!(matches!(
            t.discontinuous_slope_path(),
            Err(PlanningError::NonFinite { .. })
        ));
        let mut t = ContourTask::huang();
        t.p2 = t.center;
        assert!(matches!(
            t.continuous_slope_path(),
            Err(PlanningError::DegenerateGeometry { .. })
        ));
        let mut t = ContourTask::huang();
        t.radius = -1.0;
        assert!(matches!(
            t.discontinuous_slope_path(),
            Err(PlanningError::DegenerateGeometry { .. })
        ));
    }
}

#[cfg(test)]
mod arc_length_tests {
    use super::*;

    /// The continuous-slope path re-parameterized by arc length satisfies the normality
    /// condition (4.2.6) and describes the same curve.
    #[test]
    fn reparameterized_path_is_normal_and_the_same_curve() {
        let cp = ContourTask::huang().continuous_slope_path().unwrap();
        assert!(cp.checks.normality_residual > 0.1); // quadratics are not arc-length parameterized
        let unit = cp.path.reparameterize_by_arc_length(false).unwrap();
        assert!(
            unit.normality_residual(50).unwrap() < 1e-10,
            "{}",
            unit.normality_residual(50).unwrap()
        );
        let len = unit.s_end();
        assert!((len - cp.path.arc_length()).abs() < 1e-10);
        // same end points and same breakpoints' points
        for (a, b) in [(0.0, 0.0), (1.0, len)] {
            let (pa, pb) = (cp.path.point(a).unwrap(), unit.point(b).unwrap());
            assert!((pa[0] - pb[0]).abs() < 1e-12 && (pa[1] - pb[1]).abs() < 1e-12);
        }
        // a point of the new path lies on the old quadratic: x(s) and y(s) for one s
        let q = unit.point(0.2 * unit.segments()[0].s_end).unwrap();
        let c = |n: &str| cp.coefficient(n).unwrap();
        let (mut lo, mut hi) = (0.0, cp.s1);
        for _ in 0..100 {
            let m = 0.5 * (lo + hi);
            if c("d1") * m * m + c("d2") * m + c("d3") < q[0] {
                hi = m
            } else {
                lo = m
            }
        }
        let y = c("d4") * lo * lo + c("d5") * lo + c("d6");
        assert!((y - q[1]).abs() < 1e-9, "{y} vs {}", q[1]);
        // curvature vector ⟂ tangent
        let (mut p, mut d, mut dd) = ([0.0; 2], [0.0; 2], [0.0; 2]);
        unit.eval_on(
            2,
            unit.segments()[2].s_start + 0.05,
            &mut p,
            &mut d,
            &mut dd,
        )
        .unwrap();
        assert!((d[0] * dd[0] + d[1] * dd[1]).abs() < 1e-9);
        let norm = cp.path.reparameterize_by_arc_length(true).unwrap();
        assert!((norm.s_end() - 1.0).abs() < 1e-14);
    }
}
