//! Workspace paths p = P(s), s ∈ [s_start, s_end], built from segments (Huang 4.2).
//!
//! Each [`Segment`] covers `[s_a, s_b]` and is a straight line, a circular arc or a
//! polynomial; it is marked [`SegmentKind::Unconstrained`] or
//! [`SegmentKind::Constrained`] with the prescribed contact force Λ(s) of Huang (4.3.3).
//! P is continuous (4.2.1 (ii)); P′ and P″ may jump at breakpoints (4.2.1 (iii)), so every
//! evaluation names the segment it uses.

use crate::error::PlanningError;
use std::sync::Arc;

/// Geometry of one segment.
#[derive(Clone, Debug)]
pub enum Shape {
    /// Straight line `P(s) = start + (end − start)(s − s_a)/(s_b − s_a)`.
    Line {
        /// Point at `s_a`.
        start: Vec<f64>,
        /// Point at `s_b`.
        end: Vec<f64>,
    },
    /// Circular arc `P(s) = c + r (cos θ u + sin θ v)`, θ linear in s from `theta_start`
    /// at `s_a` to `theta_end` at `s_b` (u, v orthonormal; counter-clockwise in the (u, v)
    /// plane when `theta_end > theta_start`).
    Arc {
        /// Centre c.
        center: Vec<f64>,
        /// First in-plane unit vector u.
        u: Vec<f64>,
        /// Second in-plane unit vector v (orthogonal to u).
        v: Vec<f64>,
        /// Radius r.
        radius: f64,
        /// θ at `s_a` \[rad\].
        theta_start: f64,
        /// θ at `s_b` \[rad\].
        theta_end: f64,
    },
    /// Polynomial in the **global** parameter s, `P_k(s) = Σ_i coefficients[k][i] sⁱ`
    /// (as Huang writes (6.2.6): `x(s) = d1 s² + d2 s + d3` ↦ `[d3, d2, d1]`).
    Polynomial {
        /// One ascending coefficient list per coordinate.
        coefficients: Vec<Vec<f64>>,
    },
    /// Another segment re-parameterized by its arc length (built by
    /// [`Path::reparameterize_by_arc_length`]): `P̃(σ) = P(s(σ))` with
    /// `σ − σ_a = c ∫_{s_a}^{s} |P′| ds`, so `P̃′ = t / c`, `P̃″ = (P″ − t (t·P″)) / (|P′| c)²`,
    /// `t = P′/|P′|` (c = 1: unit speed, normality (4.2.6) with M = I).
    ArcLength {
        /// The original segment (its own parameter range).
        inner: Box<Segment>,
        /// Knots `s_k` of the original parameter.
        knots: Vec<f64>,
        /// Arc length from the inner start to each knot (Gauss–Legendre).
        lengths: Vec<f64>,
        /// Scale c of the new parameter (1, or 1/L to map the whole path onto \[0, 1\]).
        scale: f64,
    },
}

const GL_X: [f64; 5] = [
    -0.906_179_845_938_664,
    -0.538_469_310_105_683,
    0.0,
    0.538_469_310_105_683,
    0.906_179_845_938_664,
];
const GL_W: [f64; 5] = [
    0.236_926_885_056_189,
    0.478_628_670_499_366,
    0.568_888_888_888_889,
    0.478_628_670_499_366,
    0.236_926_885_056_189,
];

/// ∫_a^b |P′| ds on one segment (5-point Gauss–Legendre; scratch buffers overwritten).
fn speed_integral(
    seg: &Segment,
    a: f64,
    b: f64,
    p: &mut [f64],
    dp: &mut [f64],
    ddp: &mut [f64],
) -> f64 {
    let (mid, half) = (0.5 * (a + b), 0.5 * (b - a));
    let mut total = 0.0;
    for (x, w) in GL_X.iter().zip(GL_W) {
        seg.eval_in(mid + half * x, p, dp, ddp);
        total += half * w * dp.iter().map(|v| v * v).sum::<f64>().sqrt();
    }
    total
}

/// `P`, `P′`, `P″` all finite, else [`PlanningError::NonFinite`] naming the first that is not.
fn finite_point(p: &[f64], dp: &[f64], ddp: &[f64]) -> Result<(), PlanningError> {
    match [("P(s)", p), ("P'(s)", dp), ("P''(s)", ddp)]
        .iter()
        .find(|(_, v)| v.iter().any(|x| !x.is_finite()))
    {
        Some((what, _)) => Err(PlanningError::NonFinite { what }),
        None => Ok(()),
    }
}

/// Prescribed contact force Λ(s) on a constrained segment, Huang (4.3.3).
#[derive(Clone)]
pub enum ContactForce {
    /// Constant Λ (Huang (6.2.10): Λ = 1).
    Constant(f64),
    /// Λ(s) as a function of the path parameter.
    Function(Arc<dyn Fn(f64) -> f64 + Send + Sync>),
}

impl ContactForce {
    /// Λ(s).
    pub fn value(&self, s: f64) -> f64 {
        match self {
            ContactForce::Constant(c) => *c,
            ContactForce::Function(f) => f(s),
        }
    }
}

impl std::fmt::Debug for ContactForce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ContactForce::Constant(c) => write!(f, "Constant({c})"),
            ContactForce::Function(_) => write!(f, "Function(..)"),
        }
    }
}

/// Whether the mechanism is in contact on a segment, Huang (4.3.4): u(s) = 1 on constrained
/// segments, 0 elsewhere.
#[derive(Clone, Debug)]
pub enum SegmentKind {
    /// Free motion: unilateral rows must satisfy φ ≥ 0 (4.2.8), (4.2.10); no contact force.
    Unconstrained,
    /// Motion on constraint row `row` (φ_row = 0, (4.2.9)) with the prescribed multiplier
    /// λ_row = Λ(s), entering the dynamics as `J_rowᵀ Λ(s)` (4.3.5).
    Constrained {
        /// Constraint row of the mechanism.
        row: usize,
        /// Prescribed multiplier Λ(s).
        force: ContactForce,
    },
}

/// One segment of a path on `[s_start, s_end]`.
#[derive(Clone, Debug)]
pub struct Segment {
    /// Parameter at the start.
    pub s_start: f64,
    /// Parameter at the end (> `s_start`).
    pub s_end: f64,
    /// Geometry.
    pub shape: Shape,
    /// Contact status.
    pub kind: SegmentKind,
}

impl Segment {
    /// Dimension of the points of this segment.
    pub fn dim(&self) -> usize {
        match &self.shape {
            Shape::Line { start, .. } => start.len(),
            Shape::Arc { center, .. } => center.len(),
            Shape::Polynomial { coefficients } => coefficients.len(),
            Shape::ArcLength { inner, .. } => inner.dim(),
        }
    }

    /// Evaluates `P(s)`, `P′(s)`, `P″(s)` of this segment's formula, also outside its
    /// interval (the explicit one-sided extension; [`Path::eval_on`] refuses it).
    ///
    /// Errors: `p`, `dp`, `ddp` not of length [`Segment::dim`]
    /// ([`PlanningError::DimensionMismatch`] naming the buffer), a non-finite `s` or result
    /// ([`PlanningError::NonFinite`]).
    pub fn eval(
        &self,
        s: f64,
        p: &mut [f64],
        dp: &mut [f64],
        ddp: &mut [f64],
    ) -> Result<(), PlanningError> {
        let dim = self.dim();
        for (what, v) in [("p", &*p), ("dp", &*dp), ("ddp", &*ddp)] {
            if v.len() != dim {
                return Err(PlanningError::DimensionMismatch {
                    what,
                    expected: dim,
                    found: v.len(),
                });
            }
        }
        if !s.is_finite() {
            return Err(PlanningError::NonFinite { what: "s" });
        }
        self.eval_in(s, p, dp, ddp);
        finite_point(p, dp, ddp)
    }

    /// [`Segment::eval`] without the checks (buffers of length [`Segment::dim`]).
    pub(crate) fn eval_in(&self, s: f64, p: &mut [f64], dp: &mut [f64], ddp: &mut [f64]) {
        let len = self.s_end - self.s_start;
        match &self.shape {
            Shape::Line { start, end } => {
                let tau = (s - self.s_start) / len;
                for k in 0..start.len() {
                    let d = end[k] - start[k];
                    p[k] = start[k] + d * tau;
                    dp[k] = d / len;
                    ddp[k] = 0.0;
                }
            }
            Shape::Arc {
                center,
                u,
                v,
                radius,
                theta_start,
                theta_end,
            } => {
                let w = (theta_end - theta_start) / len; // dθ/ds
                let th = theta_start + w * (s - self.s_start);
                let (sn, cs) = th.sin_cos();
                for k in 0..center.len() {
                    p[k] = center[k] + radius * (cs * u[k] + sn * v[k]);
                    dp[k] = radius * w * (-sn * u[k] + cs * v[k]);
                    ddp[k] = -radius * w * w * (cs * u[k] + sn * v[k]);
                }
            }
            Shape::Polynomial { coefficients } => {
                for (k, c) in coefficients.iter().enumerate() {
                    // Horner for P, P′, P″
                    let (mut a0, mut a1, mut a2) = (0.0, 0.0, 0.0);
                    for &ci in c.iter().rev() {
                        a2 = a2 * s + 2.0 * a1;
                        a1 = a1 * s + a0;
                        a0 = a0 * s + ci;
                    }
                    p[k] = a0;
                    dp[k] = a1;
                    ddp[k] = a2;
                }
            }
            Shape::ArcLength {
                inner,
                knots,
                lengths,
                scale,
            } => {
                // σ' = arc length from the inner start; find s(σ') by Newton from the knots
                let target = (s - self.s_start) / scale;
                let m = lengths.len() - 1;
                let k = lengths.partition_point(|l| *l <= target).clamp(1, m) - 1;
                let (l0, l1) = (lengths[k], lengths[k + 1]);
                let mut u = if l1 > l0 {
                    knots[k] + (knots[k + 1] - knots[k]) * (target - l0) / (l1 - l0)
                } else {
                    knots[k]
                };
                for _ in 0..8 {
                    let sigma = l0 + speed_integral(inner, knots[k], u, p, dp, ddp);
                    inner.eval_in(u, p, dp, ddp);
                    let sp = dp.iter().map(|v| v * v).sum::<f64>().sqrt();
                    if sp <= 0.0 {
                        break;
                    }
                    let du = (sigma - target) / sp;
                    u -= du;
                    if du.abs() <= 1e-15 * (1.0 + u.abs()) {
                        break;
                    }
                }
                inner.eval_in(u, p, dp, ddp);
                let sp = dp.iter().map(|v| v * v).sum::<f64>().sqrt();
                let tdd: f64 =
                    dp.iter().zip(ddp.iter()).map(|(a, b)| a * b).sum::<f64>() / (sp * sp);
                for k in 0..p.len() {
                    // P̃″ = (P″ − P′ (P′·P″)/|P′|²) / (|P′| c)²,  P̃′ = P′ / (|P′| c)
                    ddp[k] = (ddp[k] - dp[k] * tdd) / (sp * sp * scale * scale);
                    dp[k] /= sp * scale;
                }
            }
        }
    }

    /// An unconstrained straight line from `start` at `s_start` to `end` at `s_end`
    /// ([`Shape::Line`]); [`Path::new`] checks the lengths, finiteness and ordering.
    ///
    /// ```
    /// use contour_planning::{Path, Segment};
    /// let path = Path::new(vec![
    ///     Segment::line(&[0.0, 0.0], &[1.0, 0.0], 0.0, 1.0),
    ///     Segment::line(&[1.0, 0.0], &[1.0, 2.0], 1.0, 3.0),
    /// ])?;
    /// assert_eq!(path.point(2.0)?, vec![1.0, 1.0]);
    /// # Ok::<(), contour_planning::PlanningError>(())
    /// ```
    pub fn line(start: &[f64], end: &[f64], s_start: f64, s_end: f64) -> Segment {
        Segment {
            s_start,
            s_end,
            shape: Shape::Line {
                start: start.to_vec(),
                end: end.to_vec(),
            },
            kind: SegmentKind::Unconstrained,
        }
    }

    /// `true` on a constrained segment.
    pub fn is_constrained(&self) -> bool {
        matches!(self.kind, SegmentKind::Constrained { .. })
    }
}

/// A piecewise path `p = P(s)` (Huang (4.2.3)).
#[derive(Clone, Debug)]
pub struct Path {
    dim: usize,
    segments: Vec<Segment>,
}

/// Tolerance on the continuity of P at breakpoints, relative to the path's size.
const CONTINUITY_TOL: f64 = 1e-9;

/// Largest number of samples per segment [`Path::normality_residual`] accepts.
pub const MAX_SAMPLES_PER_SEGMENT: usize = 1_000_000;

/// Round-off allowance of the parameter range checks, relative to the size of the interval's
/// end points: a parameter computed as `s_a + (s_b − s_a)·k/m` may land a few units of
/// round-off outside `[s_a, s_b]`; anything further is extrapolation.
const RANGE_TOL: f64 = 1e-12;

impl Path {
    /// Builds a path from contiguous segments.
    ///
    /// Errors: empty list or mixed dimensions ([`PlanningError::DimensionMismatch`]),
    /// non-finite data ([`PlanningError::NonFinite`]), `s_end ≤ s_start` or a gap/overlap
    /// between consecutive segments ([`PlanningError::NonMonotonePath`]), a jump of P at a
    /// breakpoint ([`PlanningError::DiscontinuousPath`]), a degenerate arc
    /// ([`PlanningError::DegenerateGeometry`]).
    pub fn new(segments: Vec<Segment>) -> Result<Self, PlanningError> {
        if segments.is_empty() {
            return Err(PlanningError::DimensionMismatch {
                what: "segments",
                expected: 1,
                found: 0,
            });
        }
        let dim = segments[0].dim();
        let mut scale = 1.0f64;
        for (i, seg) in segments.iter().enumerate() {
            if seg.dim() != dim {
                return Err(PlanningError::DimensionMismatch {
                    what: "segment point",
                    expected: dim,
                    found: seg.dim(),
                });
            }
            let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
            let ok = seg.s_start.is_finite()
                && seg.s_end.is_finite()
                && match &seg.shape {
                    Shape::Line { start, end } => finite(start) && finite(end),
                    Shape::Arc {
                        center,
                        u,
                        v,
                        radius,
                        theta_start,
                        theta_end,
                    } => {
                        finite(center)
                            && finite(u)
                            && finite(v)
                            && radius.is_finite()
                            && theta_start.is_finite()
                            && theta_end.is_finite()
                    }
                    Shape::Polynomial { coefficients } => coefficients.iter().all(|c| finite(c)),
                    Shape::ArcLength {
                        knots,
                        lengths,
                        scale,
                        ..
                    } => {
                        finite(knots)
                            && finite(lengths)
                            && scale.is_finite()
                            && *scale > 0.0
                            && lengths.len() == knots.len()
                            && knots.len() >= 2
                    }
                };
            if !ok {
                return Err(PlanningError::NonFinite {
                    what: "segment data",
                });
            }
            if let Shape::Line { end, .. } = &seg.shape {
                if end.len() != dim {
                    return Err(PlanningError::DimensionMismatch {
                        what: "line end",
                        expected: dim,
                        found: end.len(),
                    });
                }
            }
            if let Shape::Arc { u, v, radius, .. } = &seg.shape {
                if u.len() != dim || v.len() != dim {
                    return Err(PlanningError::DimensionMismatch {
                        what: "arc plane vector",
                        expected: dim,
                        found: u.len().min(v.len()),
                    });
                }
                let uu: f64 = u.iter().map(|x| x * x).sum();
                let vv: f64 = v.iter().map(|x| x * x).sum();
                let uv: f64 = u.iter().zip(v).map(|(a, b)| a * b).sum();
                if *radius <= 0.0
                    || (uu - 1.0).abs() > 1e-9
                    || (vv - 1.0).abs() > 1e-9
                    || uv.abs() > 1e-9
                {
                    return Err(PlanningError::DegenerateGeometry {
                        what: "arc needs r > 0 and orthonormal u, v",
                    });
                }
            }
            if seg.s_end <= seg.s_start {
                return Err(PlanningError::NonMonotonePath {
                    index: i,
                    s: seg.s_start,
                });
            }
            if i > 0 {
                let prev = &segments[i - 1];
                let tol = 1e-12 * (1.0 + prev.s_end.abs());
                if (seg.s_start - prev.s_end).abs() > tol {
                    return Err(PlanningError::NonMonotonePath {
                        index: i,
                        s: seg.s_start,
                    });
                }
            }
            let mut p = vec![0.0; dim];
            let mut d = vec![0.0; dim];
            let mut dd = vec![0.0; dim];
            seg.eval_in(seg.s_start, &mut p, &mut d, &mut dd);
            scale = scale.max(p.iter().fold(0.0f64, |m, x| m.max(x.abs())));
        }
        let mut pa = vec![0.0; dim];
        let mut pb = vec![0.0; dim];
        let mut d = vec![0.0; dim];
        let mut dd = vec![0.0; dim];
        for w in segments.windows(2) {
            w[0].eval_in(w[0].s_end, &mut pa, &mut d, &mut dd);
            w[1].eval_in(w[1].s_start, &mut pb, &mut d, &mut dd);
            let jump = pa
                .iter()
                .zip(&pb)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>()
                .sqrt();
            if jump > CONTINUITY_TOL * scale {
                return Err(PlanningError::DiscontinuousPath {
                    s: w[1].s_start,
                    jump,
                });
            }
        }
        Ok(Self { dim, segments })
    }

    /// Dimension n of the points p.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The segments.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Start of the parameter range.
    pub fn s_start(&self) -> f64 {
        self.segments[0].s_start
    }

    /// End of the parameter range.
    pub fn s_end(&self) -> f64 {
        self.segments[self.segments.len() - 1].s_end
    }

    /// Interior breakpoints `s_1 < … < s_{k−1}` between segments.
    pub fn breakpoints(&self) -> Vec<f64> {
        self.segments[1..].iter().map(|s| s.s_start).collect()
    }

    /// Index of the segment used at `s` approached from the right (breakpoints belong to
    /// the segment they start; the path end belongs to the last segment).
    pub fn locate(&self, s: f64) -> usize {
        match self.segments.iter().position(|g| s < g.s_end) {
            Some(i) => i,
            None => self.segments.len() - 1,
        }
    }

    /// Index of the segment used at `s` approached from the left (breakpoints belong to
    /// the segment they end).
    pub fn locate_left(&self, s: f64) -> usize {
        match self.segments.iter().position(|g| s <= g.s_end) {
            Some(i) => i,
            None => self.segments.len() - 1,
        }
    }

    /// `seg` is a segment index and `s` a finite parameter on that segment's interval
    /// `[s_a, s_b]` (up to the round-off allowance `1e-12·(|s_a| + |s_b| + s_b − s_a)`).
    ///
    /// Errors: [`PlanningError::SegmentIndex`], [`PlanningError::NonFinite`] (`"s"`),
    /// [`PlanningError::OutOfRange`] (the segment's interval in the message).
    pub fn check_on(&self, seg: usize, s: f64) -> Result<(), PlanningError> {
        let Some(g) = self.segments.get(seg) else {
            return Err(PlanningError::SegmentIndex {
                index: seg,
                len: self.segments.len(),
            });
        };
        if !s.is_finite() {
            return Err(PlanningError::NonFinite { what: "s" });
        }
        let slack = RANGE_TOL * (g.s_start.abs() + g.s_end.abs() + (g.s_end - g.s_start));
        if s < g.s_start - slack || s > g.s_end + slack {
            return Err(PlanningError::OutOfRange {
                s,
                start: g.s_start,
                end: g.s_end,
            });
        }
        Ok(())
    }

    /// `P(s)`, `P′(s)`, `P″(s)` from segment `seg`, with `s` on that segment's interval
    /// (a one-sided extension beyond it is asked for explicitly with [`Segment::eval`]).
    ///
    /// Errors: those of [`Path::check_on`]; `p`, `dp`, `ddp` not of length [`Path::dim`]
    /// ([`PlanningError::DimensionMismatch`] naming the buffer).
    pub fn eval_on(
        &self,
        seg: usize,
        s: f64,
        p: &mut [f64],
        dp: &mut [f64],
        ddp: &mut [f64],
    ) -> Result<(), PlanningError> {
        self.check_on(seg, s)?;
        for (what, v) in [("p", &*p), ("dp", &*dp), ("ddp", &*ddp)] {
            if v.len() != self.dim {
                return Err(PlanningError::DimensionMismatch {
                    what,
                    expected: self.dim,
                    found: v.len(),
                });
            }
        }
        self.segments[seg].eval_in(s, p, dp, ddp);
        finite_point(p, dp, ddp)
    }

    /// `P(s)` (right-continuous choice of segment) for `s ∈ [s_start, s_end]`.
    ///
    /// Errors: a non-finite `s` or one outside the path ([`PlanningError::OutOfRange`]: no
    /// silent extrapolation; [`Segment::eval`] extends a segment's formula on request).
    pub fn point(&self, s: f64) -> Result<Vec<f64>, PlanningError> {
        self.check_s(s)?;
        let mut p = vec![0.0; self.dim];
        let mut d = vec![0.0; self.dim];
        let mut dd = vec![0.0; self.dim];
        self.eval_on(self.locate(s), s, &mut p, &mut d, &mut dd)?;
        Ok(p)
    }

    /// `s` is finite and inside `[s_start, s_end]` (up to the round-off allowance of
    /// [`Path::check_on`]).
    ///
    /// Errors: [`PlanningError::NonFinite`] (`"s"`), [`PlanningError::OutOfRange`].
    pub fn check_s(&self, s: f64) -> Result<(), PlanningError> {
        if !s.is_finite() {
            return Err(PlanningError::NonFinite { what: "s" });
        }
        let (a, b) = (self.s_start(), self.s_end());
        let slack = RANGE_TOL * (a.abs() + b.abs() + (b - a));
        if s < a - slack || s > b + slack {
            return Err(PlanningError::OutOfRange {
                s,
                start: a,
                end: b,
            });
        }
        Ok(())
    }

    /// The same geometric path re-parameterized by Euclidean arc length, Huang (4.2.4)–(4.2.6):
    /// `s ∈ [0, L]` (`normalize = false`, then P′ᵀP′ = 1) or `s ∈ [0, 1]` (`normalize = true`,
    /// P′ᵀP′ = L²). Lines and arcs keep their shape with a rescaled range; other segments
    /// become [`Shape::ArcLength`]. Kinds and contact forces are kept (a `Function` force is
    /// still evaluated at the new parameter).
    ///
    /// Errors: [`PlanningError::DegenerateTangent`] when P′ vanishes on a segment.
    pub fn reparameterize_by_arc_length(&self, normalize: bool) -> Result<Path, PlanningError> {
        let n = self.dim;
        let (mut p, mut dp, mut ddp) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let knots_per_segment = 64;
        let mut parts = Vec::with_capacity(self.segments.len());
        let mut total = 0.0;
        for seg in &self.segments {
            let knots: Vec<f64> = (0..=knots_per_segment)
                .map(|k| {
                    seg.s_start + (seg.s_end - seg.s_start) * k as f64 / knots_per_segment as f64
                })
                .collect();
            let mut lengths = vec![0.0; knots.len()];
            for k in 1..knots.len() {
                lengths[k] = lengths[k - 1]
                    + 4.0f64.recip()
                        * (0..4)
                            .map(|j| {
                                let a = knots[k - 1] + (knots[k] - knots[k - 1]) * j as f64 / 4.0;
                                let b =
                                    knots[k - 1] + (knots[k] - knots[k - 1]) * (j + 1) as f64 / 4.0;
                                4.0 * speed_integral(seg, a, b, &mut p, &mut dp, &mut ddp)
                            })
                            .sum::<f64>();
            }
            for &u in &knots {
                seg.eval_in(u, &mut p, &mut dp, &mut ddp);
                if dp.iter().map(|v| v * v).sum::<f64>() <= 0.0 {
                    return Err(PlanningError::DegenerateTangent { s: u });
                }
            }
            total += lengths[knots.len() - 1];
            parts.push((knots, lengths));
        }
        let scale = if normalize { 1.0 / total } else { 1.0 };
        let mut start = 0.0;
        let mut out = Vec::with_capacity(self.segments.len());
        for (seg, (knots, lengths)) in self.segments.iter().zip(parts) {
            let len = lengths[lengths.len() - 1] * scale;
            let end = start + len;
            let shape = match &seg.shape {
                Shape::Line { .. } | Shape::Arc { .. } => seg.shape.clone(),
                _ => Shape::ArcLength {
                    inner: Box::new(seg.clone()),
                    knots,
                    lengths,
                    scale,
                },
            };
            out.push(Segment {
                s_start: start,
                s_end: end,
                shape,
                kind: seg.kind.clone(),
            });
            start = end;
        }
        Path::new(out)
    }

    /// Largest deviation from the Euclidean normality condition `P′ᵀP′ = 1`, Huang (4.2.6)
    /// with M = I, over `n` samples per segment (both ends included; at least 2).
    ///
    /// Errors: [`PlanningError::WorkCap`] for `n` above [`MAX_SAMPLES_PER_SEGMENT`].
    pub fn normality_residual(&self, n: usize) -> Result<f64, PlanningError> {
        if n > MAX_SAMPLES_PER_SEGMENT {
            return Err(PlanningError::WorkCap {
                name: "n",
                value: n as f64,
                cap: "samples per segment <= 1e6",
            });
        }
        Ok(self.normality_residual_in(n))
    }

    /// [`Path::normality_residual`] without the cap on `n`.
    pub(crate) fn normality_residual_in(&self, n: usize) -> f64 {
        let n = n.max(2);
        let mut p = vec![0.0; self.dim];
        let mut d = vec![0.0; self.dim];
        let mut dd = vec![0.0; self.dim];
        let mut worst = 0.0f64;
        for seg in &self.segments {
            for k in 0..n {
                let s = seg.s_start + (seg.s_end - seg.s_start) * k as f64 / (n - 1) as f64;
                seg.eval_in(s, &mut p, &mut d, &mut dd);
                let nn: f64 = d.iter().map(|x| x * x).sum();
                worst = worst.max((nn - 1.0).abs());
            }
        }
        worst
    }

    /// Total Euclidean arc length ∫ |P′| ds (Gauss–Legendre, 5 points on 64 panels per segment).
    pub fn arc_length(&self) -> f64 {
        const X: [f64; 5] = [
            -0.906_179_845_938_664,
            -0.538_469_310_105_683,
            0.0,
            0.538_469_310_105_683,
            0.906_179_845_938_664,
        ];
        const W: [f64; 5] = [
            0.236_926_885_056_189,
            0.478_628_670_499_366,
            0.568_888_888_888_889,
            0.478_628_670_499_366,
            0.236_926_885_056_189,
        ];
        let mut p = vec![0.0; self.dim];
        let mut d = vec![0.0; self.dim];
        let mut dd = vec![0.0; self.dim];
        let mut total = 0.0;
        for seg in &self.segments {
            let panels = 64;
            let h = (seg.s_end - seg.s_start) / panels as f64;
            for k in 0..panels {
                let mid = seg.s_start + (k as f64 + 0.5) * h;
                for (x, w) in X.iter().zip(W) {
                    seg.eval_in(mid + 0.5 * h * x, &mut p, &mut d, &mut dd);
                    total += 0.5 * h * w * d.iter().map(|v| v * v).sum::<f64>().sqrt();
                }
            }
        }
        total
    }
}
