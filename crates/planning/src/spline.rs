//! C² cubic splines through joint-space waypoints, as a [`Path`] of polynomial segments (one
//! cubic per pair of waypoints) for a [`crate::CartesianJointPath`] (q = P(s)).
//!
//! The parameter is the cumulative chord length in joint space, normalized to `s ∈ [0, 1]`
//! (`s_k = Σ_{j<k} ‖q_{j+1} − q_j‖ / Σ ‖…‖`); the minimum time does not depend on the
//! parameterization, the shape between waypoints does (chord length avoids the loops of a
//! uniform parameter when waypoints are unevenly spaced). On `[s_k, s_{k+1}]`, `h_k = s_{k+1} − s_k`,
//! with the second derivatives `m_k` at the knots (the classical moment form),
//!
//! ```text
//! q(s) = m_k (s_{k+1} − s)³/(6h_k) + m_{k+1} (s − s_k)³/(6h_k)
//!        + (q_k/h_k − m_k h_k/6)(s_{k+1} − s) + (q_{k+1}/h_k − m_{k+1} h_k/6)(s − s_k)
//! h_{k−1} m_{k−1} + 2(h_{k−1} + h_k) m_k + h_k m_{k+1} = 6((q_{k+1} − q_k)/h_k − (q_k − q_{k−1})/h_{k−1})
//! ```
//!
//! closed by `m_0 = m_n = 0` ([`SplineEnds::Natural`]) or by given end slopes dq/ds
//! ([`SplineEnds::Clamped`]). The tridiagonal system is solved by the Thomas algorithm
//! (diagonally dominant, no pivoting needed).

use crate::error::PlanningError;
use crate::path::{Path, Segment, SegmentKind, Shape};

/// End conditions of [`cubic_spline`].
#[derive(Clone, Debug, PartialEq)]
pub enum SplineEnds {
    /// Zero second derivative at both ends.
    Natural,
    /// Given first derivatives dq/ds at the ends (in the normalized parameter s ∈ \[0, 1\]).
    /// They must not vanish: a zero tangent B = 0 leaves s̈ undetermined for the planner
    /// (the motion starts and ends at rest anyway).
    Clamped {
        /// dq/ds at s = 0.
        start: Vec<f64>,
        /// dq/ds at s = 1.
        end: Vec<f64>,
    },
}

/// The C² cubic spline through `waypoints` (at least 2, all of one dimension, consecutive
/// ones distinct) as a path on `[0, 1]` with one polynomial segment per pair.
///
/// Errors: [`PlanningError::DimensionMismatch`], [`PlanningError::NonFinite`],
/// [`PlanningError::DegenerateGeometry`] (fewer than 2 waypoints, two equal consecutive
/// waypoints, a zero clamped slope).
pub fn cubic_spline(waypoints: &[Vec<f64>], ends: SplineEnds) -> Result<Path, PlanningError> {
    let n = waypoints.len();
    if n < 2 {
        return Err(PlanningError::DegenerateGeometry {
            what: "a spline needs at least 2 waypoints",
        });
    }
    let dim = waypoints[0].len();
    if dim == 0 {
        return Err(PlanningError::DegenerateGeometry {
            what: "waypoints of dimension 0",
        });
    }
    for w in waypoints {
        if w.len() != dim {
            return Err(PlanningError::DimensionMismatch {
                what: "waypoint",
                expected: dim,
                found: w.len(),
            });
        }
        if w.iter().any(|v| !v.is_finite()) {
            return Err(PlanningError::NonFinite { what: "waypoint" });
        }
    }
    // chord-length knots
    let mut knots = vec![0.0; n];
    for k in 1..n {
        let d = waypoints[k]
            .iter()
            .zip(&waypoints[k - 1])
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt();
        if d == 0.0 {
            return Err(PlanningError::DegenerateGeometry {
                what: "two consecutive waypoints are equal",
            });
        }
        knots[k] = knots[k - 1] + d;
    }
    let total = knots[n - 1];
    for v in knots.iter_mut() {
        *v /= total;
    }
    knots[n - 1] = 1.0;
    let (start, end) = match &ends {
        SplineEnds::Natural => (None, None),
        SplineEnds::Clamped { start, end } => {
            for v in [start, end] {
                if v.len() != dim {
                    return Err(PlanningError::DimensionMismatch {
                        what: "clamped slope",
                        expected: dim,
                        found: v.len(),
                    });
                }
                if v.iter().any(|x| !x.is_finite()) {
                    return Err(PlanningError::NonFinite {
                        what: "clamped slope",
                    });
                }
                if v.iter().all(|x| *x == 0.0) {
                    return Err(PlanningError::DegenerateGeometry {
                        what: "zero clamped slope (the path tangent would vanish)",
                    });
                }
            }
            (Some(start), Some(end))
        }
    };
    let h: Vec<f64> = knots.windows(2).map(|w| w[1] - w[0]).collect();
    // moments m[k][d], one tridiagonal solve per dimension
    let mut m = vec![vec![0.0; dim]; n];
    let (mut sub, mut diag, mut sup, mut rhs) =
        (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    for d in 0..dim {
        let q = |k: usize| waypoints[k][d];
        for k in 1..n - 1 {
            sub[k] = h[k - 1];
            diag[k] = 2.0 * (h[k - 1] + h[k]);
            sup[k] = h[k];
            rhs[k] = 6.0 * ((q(k + 1) - q(k)) / h[k] - (q(k) - q(k - 1)) / h[k - 1]);
        }
        match (start, end) {
            (Some(a), Some(b)) => {
                // 2h_0 m_0 + h_0 m_1 = 6((q_1 − q_0)/h_0 − q′_0), and at the end
                diag[0] = 2.0 * h[0];
                sup[0] = h[0];
                rhs[0] = 6.0 * ((q(1) - q(0)) / h[0] - a[d]);
                sub[n - 1] = h[n - 2];
                diag[n - 1] = 2.0 * h[n - 2];
                rhs[n - 1] = 6.0 * (b[d] - (q(n - 1) - q(n - 2)) / h[n - 2]);
            }
            _ => {
                diag[0] = 1.0;
                sup[0] = 0.0;
                rhs[0] = 0.0;
                sub[n - 1] = 0.0;
                diag[n - 1] = 1.0;
                rhs[n - 1] = 0.0;
            }
        }
        // Thomas algorithm
        let mut c = vec![0.0; n];
        let mut r = vec![0.0; n];
        c[0] = sup[0] / diag[0];
        r[0] = rhs[0] / diag[0];
        for k in 1..n {
            let den = diag[k] - sub[k] * c[k - 1];
            c[k] = if k + 1 < n { sup[k] / den } else { 0.0 };
            r[k] = (rhs[k] - sub[k] * r[k - 1]) / den;
        }
        m[n - 1][d] = r[n - 1];
        for k in (0..n - 1).rev() {
            m[k][d] = r[k] - c[k] * m[k + 1][d];
        }
    }
    // each piece as a polynomial in the global s (ascending powers)
    let mut segs = Vec::with_capacity(n - 1);
    for k in 0..n - 1 {
        let (s0, s1, hk) = (knots[k], knots[k + 1], h[k]);
        let mut coefficients = Vec::with_capacity(dim);
        for d in 0..dim {
            let (m0, m1) = (m[k][d], m[k + 1][d]);
            let a = waypoints[k][d] / hk - m0 * hk / 6.0;
            let b = waypoints[k + 1][d] / hk - m1 * hk / 6.0;
            // m0 (s1 − s)³/(6h) + m1 (s − s0)³/(6h) + a (s1 − s) + b (s − s0)
            let (p0, p1) = (m0 / (6.0 * hk), m1 / (6.0 * hk));
            let c0 = p0 * s1 * s1 * s1 - p1 * s0 * s0 * s0 + a * s1 - b * s0;
            let c1 = -3.0 * p0 * s1 * s1 + 3.0 * p1 * s0 * s0 - a + b;
            let c2 = 3.0 * p0 * s1 - 3.0 * p1 * s0;
            let c3 = -p0 + p1;
            coefficients.push(vec![c0, c1, c2, c3]);
        }
        segs.push(Segment {
            s_start: s0,
            s_end: s1,
            shape: Shape::Polynomial { coefficients },
            kind: SegmentKind::Unconstrained,
        });
    }
    Path::new(segs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(p: &Path, seg: usize, s: f64, dim: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let (mut a, mut b, mut c) = (vec![0.0; dim], vec![0.0; dim], vec![0.0; dim]);
        p.eval_on(seg, s, &mut a, &mut b, &mut c).unwrap();
        (a, b, c)
    }

    fn waypoints() -> Vec<Vec<f64>> {
        vec![
            vec![0.0, 0.5, -1.0],
            vec![0.4, 0.9, -0.7],
            vec![1.1, 0.6, -0.2],
            vec![1.3, -0.2, 0.4],
            vec![0.9, -0.5, 1.0],
        ]
    }

    /// Interpolates, C² at every knot, natural ends have q″ = 0.
    #[test]
    fn natural_spline_interpolates_and_is_c2() {
        let w = waypoints();
        let p = cubic_spline(&w, SplineEnds::Natural).unwrap();
        assert_eq!(p.segments().len(), 4);
        for (k, seg) in p.segments().iter().enumerate() {
            let (a, _, _) = eval(&p, k, seg.s_start, 3);
            let (b, _, _) = eval(&p, k, seg.s_end, 3);
            for d in 0..3 {
                assert!((a[d] - w[k][d]).abs() < 1e-13 && (b[d] - w[k + 1][d]).abs() < 1e-13);
            }
        }
        for k in 1..4 {
            let s = p.segments()[k].s_start;
            let (l, r) = (eval(&p, k - 1, s, 3), eval(&p, k, s, 3));
            for d in 0..3 {
                assert!((l.1[d] - r.1[d]).abs() < 1e-11, "q' jump at knot {k}");
                assert!((l.2[d] - r.2[d]).abs() < 1e-9, "q'' jump at knot {k}");
            }
        }
        let (_, _, dd0) = eval(&p, 0, 0.0, 3);
        let (_, _, dd1) = eval(&p, 3, 1.0, 3);
        assert!(dd0.iter().chain(&dd1).all(|v| v.abs() < 1e-10));
    }

    /// Unevenly spaced points on a line give the line itself, q = q0 + s (q_n − q0), with
    /// the clamped slope (q_n − q0); and clamped slopes are met on curved data, still C².
    #[test]
    fn clamped_spline_meets_its_slopes_and_reproduces_a_line() {
        let (q0, q1) = ([0.2, -1.0, 0.5], [1.4, 0.6, -0.3]);
        let line: Vec<Vec<f64>> = [0.0, 0.1, 0.35, 0.6, 1.0]
            .iter()
            .map(|&t| (0..3).map(|d| q0[d] + t * (q1[d] - q0[d])).collect())
            .collect();
        let slope: Vec<f64> = (0..3).map(|d| q1[d] - q0[d]).collect();
        let p = cubic_spline(
            &line,
            SplineEnds::Clamped {
                start: slope.clone(),
                end: slope.clone(),
            },
        )
        .unwrap();
        for (k, seg) in p.segments().iter().enumerate() {
            for s in [seg.s_start, 0.3 * seg.s_start + 0.7 * seg.s_end] {
                let (q, dq, ddq) = eval(&p, k, s, 3);
                for d in 0..3 {
                    assert!((q[d] - (q0[d] + s * slope[d])).abs() < 1e-13);
                    assert!((dq[d] - slope[d]).abs() < 1e-12 && ddq[d].abs() < 1e-10);
                }
            }
        }
        let w = waypoints();
        let (a, b) = (vec![1.0, -0.5, 2.0], vec![0.3, 0.0, -1.0]);
        let p = cubic_spline(
            &w,
            SplineEnds::Clamped {
                start: a.clone(),
                end: b.clone(),
            },
        )
        .unwrap();
        let (_, d0, _) = eval(&p, 0, 0.0, 3);
        let (_, d1, _) = eval(&p, 3, 1.0, 3);
        for d in 0..3 {
            assert!((d0[d] - a[d]).abs() < 1e-11 && (d1[d] - b[d]).abs() < 1e-11);
        }
        for k in 1..4 {
            let s = p.segments()[k].s_start;
            let (l, r) = (eval(&p, k - 1, s, 3), eval(&p, k, s, 3));
            for d in 0..3 {
                assert!((l.1[d] - r.1[d]).abs() < 1e-11 && (l.2[d] - r.2[d]).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn bad_waypoints_are_typed_errors() {
        assert!(matches!(
            cubic_spline(&[vec![0.0]], SplineEnds::Natural),
            Err(PlanningError::DegenerateGeometry { .. })
        ));
        assert!(matches!(
            cubic_spline(&[vec![0.0, 1.0], vec![0.0]], SplineEnds::Natural),
            Err(PlanningError::DimensionMismatch { .. })
        ));
        assert!(matches!(
            cubic_spline(&[vec![0.0], vec![f64::NAN]], SplineEnds::Natural),
            Err(PlanningError::NonFinite { .. })
        ));
        assert!(matches!(
            cubic_spline(&[vec![0.0], vec![0.0]], SplineEnds::Natural),
            Err(PlanningError::DegenerateGeometry { .. })
        ));
        assert!(matches!(
            cubic_spline(
                &[vec![0.0], vec![1.0]],
                SplineEnds::Clamped {
                    start: vec![0.0],
                    end: vec![1.0]
                }
            ),
            Err(PlanningError::DegenerateGeometry { .. })
        ));
    }
}
