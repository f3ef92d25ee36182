//! Minimum-time motion along a path by the phase-plane method, Huang 4.3.3.3 (after
//! Bobrow, Dubowsky & Gibson and Shin & McKay).
//!
//! In the (s, ṡ) plane the admissible region Ψ = {h(s, ṡ) ≤ γ(s, ṡ)} (4.3.50) is bounded above
//! by the maximum-velocity curve (MVC) ṡ = α(s). The time-optimal s̈ is always γ or h:
//!
//! 1. integrate the maximum-acceleration curve `dṡ/ds = γ/ṡ` (4.3.48) forward from the start;
//! 2. where it leaves Ψ, search along the MVC for the next **switching point** — a point where
//!    β = (slope of the extremal) − α′ changes sign (Huang step (4)), a discontinuity of α
//!    (segment breakpoints, with right/left limits), a zero-inertia point (Σ_j M_ij B_j = 0);
//!    integrate the maximum-deceleration curve `dṡ/ds = h/ṡ` (4.3.49) backward from it until it
//!    meets the profile (step (5)); continue forward from the switching point (step (6));
//! 3. on stretches of the MVC that are velocity constraints (a speed cap, a zero-inertia
//!    joint) the profile may slide along the boundary while h ≤ αα′ ≤ γ;
//! 4. finally integrate the maximum-deceleration curve backward from the end until it meets
//!    the profile (steps (2)–(3)).
//!
//! All curves are integrated in x = ṡ² (`dx/ds = 2 s̈`, regular at rest) with the adaptive
//! Dormand–Prince 5(4) pair of `integrate.rs`; leaving Ψ, meeting another curve and
//! stalling (ṡ → 0 under maximum acceleration) are located by bisection on the step's Hermite
//! interpolant. A corner of the path (B discontinuous at a breakpoint) forces ṡ = 0 there
//! (impact avoidance (4.3.8) / Corollary 4.3.2).
//!
//! **Rest points** split the problem (Theorem 4.3.4, case 1: ṡ(t1) = ṡ(t2) = 0 → three
//! independent problems); without them the whole path is one problem (case 2).
//!
//! Assumption: at every s the admissible speeds form an interval `[0, α(s)]` (true for
//! torque limits independent of ṡ and T quadratic in ṡ); the MVC is bracketed in ṡ to 1e-15
//! relative, the probes placed by a safeguarded secant on the margin γ − h (`mvc_x`).
//!
//! Cost: nearly all the time goes into evaluating h and γ (one inverse-dynamics call each);
//! [`PathDynamics`] keeps everything that depends on s alone for the last s, and
//! [`AccelerationLimits`] remembers its last result, so that the many ṡ probed at one s
//! (MVC search) cost one bias-force evaluation each and the repeated end state of a
//! Runge–Kutta step (last stage, then admissibility test) costs nothing.

use crate::dynamics::PathDynamics;
use crate::error::PlanningError;
use crate::integrate::{dopri_step, hermite, next_step};
use crate::joint_path::JointPath;
use crate::limits::{AccelBounds, AccelerationLimits, TorqueLimits};
use crate::path::Path;
use contour_model::Mechanism;
use serde::Serialize;
use std::sync::Arc;

/// Options of the phase-plane solver (defaults in [`Default`]).
#[derive(Clone)]
pub struct PhasePlaneConfig {
    /// Relative tolerance of the integration in s (default 1e-10).
    pub rtol: f64,
    /// Absolute tolerance on x = ṡ² (default 1e-13).
    pub atol: f64,
    /// Largest step in s as a fraction of the piece length (default 1/400).
    pub max_step_fraction: f64,
    /// Grid points per segment for the MVC and the switching-point search (default 1000).
    pub mvc_grid: usize,
    /// Parameters where the motion must come to rest (Theorem 4.3.4 case 1; default none).
    pub rest_points: Vec<f64>,
    /// Optional speed cap ṡ ≤ cap(s) (a pure velocity constraint; default none).
    pub speed_cap: Option<Arc<dyn Fn(f64) -> f64 + Send + Sync>>,
    /// Tolerance of the admissibility test h ≤ γ + tol·(1 + |h| + |γ|) (default 1e-9).
    pub admissibility_tol: f64,
    /// Before solving, check the path against the constraints (φ ≥ −tol on free segments,
    /// |φ| ≤ tol on constrained ones, 200 samples per segment,
    /// [`PathDynamics::check_feasible`]); `None` skips the check (default `Some(1e-9)`).
    pub feasibility_tol: Option<f64>,
}

impl Default for PhasePlaneConfig {
    fn default() -> Self {
        Self {
            rtol: 1e-10,
            atol: 1e-13,
            max_step_fraction: 1.0 / 400.0,
            mvc_grid: 1000,
            rest_points: Vec::new(),
            speed_cap: None,
            admissibility_tol: 1e-9,
            feasibility_tol: Some(1e-9),
        }
    }
}

/// What kind of switch happens at a switching point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SwitchKind {
    /// Maximum acceleration meets a maximum-deceleration curve (points A, C of Huang Fig. 4.1).
    Intersection,
    /// Tangency with the MVC where β changes sign (point B of Fig. 4.1), including cusps.
    Tangent,
    /// A discontinuity of the MVC at a segment breakpoint (right/left limits).
    Discontinuity,
    /// A zero-inertia (singular) point, Σ_j M_ij B_j = 0 for some joint i.
    ZeroInertia,
    /// The profile starts to slide along a velocity-type boundary (speed cap).
    BoundaryEntry,
    /// The profile leaves a velocity-type boundary.
    BoundaryExit,
}

/// A switching point of the optimal profile.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SwitchingPoint {
    /// Path parameter.
    pub s: f64,
    /// Path speed ṡ there.
    pub sd: f64,
    /// Time.
    pub t: f64,
    /// Kind.
    pub kind: SwitchKind,
}

/// One sample of the optimal motion.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PhaseSample {
    /// Time \[s\].
    pub t: f64,
    /// Path parameter.
    pub s: f64,
    /// ṡ.
    pub sd: f64,
    /// s̈ (the one-sided value on the piece that starts here).
    pub sdd: f64,
    /// Segment used.
    pub segment: usize,
}

/// Result of the phase-plane method.
#[derive(Clone, Debug, Serialize)]
pub struct MinimumTimeSolution {
    /// Samples along the profile (increasing s; a switching point appears twice, once per side).
    pub samples: Vec<PhaseSample>,
    /// Joint forces T at each sample, Huang (4.3.6).
    pub torques: Vec<Vec<f64>>,
    /// Switching points in order of s.
    pub switching_points: Vec<SwitchingPoint>,
    /// Minimum traversal time t_f \[s\].
    pub total_time: f64,
    /// Times of the independent pieces between rest points (τ1, τ2, τ3 of Huang 6.2.2).
    pub piece_times: Vec<f64>,
    /// The maximum-velocity curve (s, α(s)) on the search grid (α = ∞ where unbounded).
    pub mvc: Vec<(f64, f64)>,
}

impl MinimumTimeSolution {
    /// Time at which the profile reaches `s` (Hermite interpolation of x = ṡ² between samples).
    pub fn time_at_s(&self, s: f64) -> f64 {
        let n = self.samples.len();
        let idx = self.samples.partition_point(|p| p.s <= s);
        if idx == 0 {
            return self.samples[0].t;
        }
        if idx >= n {
            return self.samples[n - 1].t;
        }
        let a = &self.samples[idx - 1];
        let b = &self.samples[idx];
        a.t + interval_time(
            a.s,
            a.sd * a.sd,
            2.0 * a.sdd,
            b.s,
            b.sd * b.sd,
            2.0 * b.sdd,
            s,
        )
    }

    /// `(s, ṡ, s̈)` at time `t`, with s̈ taken constant between consecutive samples
    /// (clamped to the ends).
    pub fn state_at(&self, t: f64) -> (f64, f64, f64) {
        let n = self.samples.len();
        let idx = self.samples.partition_point(|p| p.t <= t);
        if idx == 0 {
            let p = &self.samples[0];
            return (p.s, p.sd, p.sdd);
        }
        if idx >= n {
            let p = &self.samples[n - 1];
            return (p.s, p.sd, p.sdd);
        }
        let a = &self.samples[idx - 1];
        let b = &self.samples[idx];
        let tau = t - a.t;
        let s = (a.s + a.sd * tau + 0.5 * a.sdd * tau * tau).clamp(a.s, b.s);
        (s, (a.sd + a.sdd * tau).max(0.0), a.sdd)
    }

    /// Number of switching points.
    pub fn switch_count(&self) -> usize {
        self.switching_points.len()
    }
}

/// ∫ ds/√x from s0 to `upto` on one Hermite interval, 32 sub-intervals of the rule
/// 2δ/(√x_j + √x_{j+1}) (exact when x is linear in s, i.e. s̈ constant).
fn interval_time(s0: f64, x0: f64, f0: f64, s1: f64, x1: f64, f1: f64, upto: f64) -> f64 {
    let m = 32;
    let end = upto.min(s1);
    if end <= s0 {
        return 0.0;
    }
    let d = (end - s0) / m as f64;
    let mut t = 0.0;
    let mut prev = x0.max(0.0).sqrt();
    for j in 1..=m {
        let s = s0 + d * j as f64;
        let x = if j == m && end == s1 {
            x1
        } else {
            hermite(s0, x0, f0, s1, x1, f1, s)
        };
        let cur = x.max(0.0).sqrt();
        let den = prev + cur;
        if den > 0.0 {
            t += 2.0 * d / den;
        } else {
            return f64::INFINITY;
        }
        prev = cur;
    }
    t
}

#[derive(Clone, Copy, Debug)]
struct Node {
    s: f64,
    x: f64,
    /// s̈ on the piece that starts (forward order) at this node.
    u: f64,
    seg: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    End,
    Mvc,
    Stall,
    Cross,
}

#[derive(Clone, Copy, Debug)]
struct Candidate {
    s: f64,
    x: f64,
    kind: SwitchKind,
    seg_left: usize,
    seg_right: usize,
}

#[derive(Clone, Copy, Debug)]
struct Switch {
    s: f64,
    x: f64,
    kind: SwitchKind,
}

/// Hermite value of a monotone-in-s node list at `s` (None outside its range).
fn profile_x(nodes: &[Node], s: f64) -> Option<(f64, f64)> {
    let n = nodes.len();
    if n == 0 {
        return None;
    }
    let idx = nodes.partition_point(|p| p.s <= s);
    if idx == 0 {
        return None;
    }
    if idx >= n {
        let last = &nodes[n - 1];
        return if s == last.s {
            Some((last.x, last.u))
        } else {
            None
        };
    }
    let a = &nodes[idx - 1];
    let b = &nodes[idx];
    let x = hermite(a.s, a.x, 2.0 * a.u, b.s, b.x, 2.0 * b.u, s);
    // slope of the Hermite interpolant (for the s̈ at a cut)
    let e = 1e-7 * (b.s - a.s);
    let sp = (s + e).min(b.s);
    let sm = (s - e).max(a.s);
    let xp = hermite(a.s, a.x, 2.0 * a.u, b.s, b.x, 2.0 * b.u, sp);
    let xm = hermite(a.s, a.x, 2.0 * a.u, b.s, b.x, 2.0 * b.u, sm);
    let u = if sp > sm {
        0.5 * (xp - xm) / (sp - sm)
    } else {
        a.u
    };
    Some((x, u))
}

/// The phase-plane solver for one mechanism, path and set of torque limits.
pub struct PhasePlane<
    'l,
    'a,
    M: Mechanism + ?Sized,
    P: JointPath + ?Sized,
    L: TorqueLimits + ?Sized,
> {
    lim: &'l AccelerationLimits<'a, M, P, L>,
    cfg: PhasePlaneConfig,
}

struct Piece {
    nodes: Vec<Node>,
    switches: Vec<Switch>,
    mvc: Vec<(f64, f64)>,
}

impl<'l, 'a, M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits + ?Sized>
    PhasePlane<'l, 'a, M, P, L>
{
    /// A solver with the given configuration.
    pub fn new(lim: &'l AccelerationLimits<'a, M, P, L>, cfg: PhasePlaneConfig) -> Self {
        Self { lim, cfg }
    }

    fn path(&self) -> &Path {
        self.lim.dynamics().joint_path().path()
    }

    fn dynamics(&self) -> &PathDynamics<'a, M, P> {
        self.lim.dynamics()
    }

    fn bounds(&self, seg: usize, s: f64, x: f64) -> Result<AccelBounds, PlanningError> {
        self.lim.bounds(seg, s, x.max(0.0).sqrt())
    }

    fn cap2(&self, s: f64) -> f64 {
        match &self.cfg.speed_cap {
            Some(c) => {
                let v = c(s);
                v * v
            }
            None => f64::INFINITY,
        }
    }

    fn admissible_b(&self, b: &AccelBounds) -> bool {
        let tol = self.cfg.admissibility_tol
            * (1.0 + b.lower.abs().min(1e300) + b.upper.abs().min(1e300));
        b.admissible(tol)
    }

    fn admissible(&self, seg: usize, s: f64, x: f64) -> Result<bool, PlanningError> {
        let c = self.cap2(s);
        if x > c * (1.0 + 1e-12) + 1e-300 {
            return Ok(false);
        }
        let b = self.bounds(seg, s, x)?;
        Ok(self.admissible_b(&b))
    }

    /// Admissibility of `(s, ṡ)` (exactly [`Self::admissible`] at `x = ṡ²`) and a margin that
    /// is ≥ 0 where admissible: `γ + tol − h` capped by the speed-cap slack (NaN where a
    /// zero-inertia condition fails, so the margin carries no information there). For T
    /// quadratic in ṡ the margin is piecewise linear and concave in x = ṡ².
    fn probe(&self, seg: usize, s: f64, sd: f64) -> Result<(bool, f64), PlanningError> {
        let x = sd * sd;
        let c = self.cap2(s) * (1.0 + 1e-12) + 1e-300;
        if x > c {
            return Ok((false, c - x));
        }
        let b = self.bounds(seg, s, x)?;
        let ok = self.admissible_b(&b);
        let tol = self.cfg.admissibility_tol
            * (1.0 + b.lower.abs().min(1e300) + b.upper.abs().min(1e300));
        let g = (b.upper + tol - b.lower).min(c - x);
        Ok((ok, if b.singular_ok { g } else { f64::NAN }))
    }

    /// α(s)² on segment `seg` (−1 when even ṡ = 0 is inadmissible, +∞ when unbounded, i.e.
    /// admissible at ṡ = 2²³).
    ///
    /// The admissible speeds are assumed to be `[0, α]`. A bracket `lo < α ≤ hi` (lo
    /// admissible, hi not) is found and shrunk to `hi − lo ≤ 1e-15 hi`, as plain bisection
    /// would, but the probes are placed on the margin `m(x)` of [`Self::probe`] in x = ṡ²
    /// (piecewise linear and concave for T quadratic in ṡ and fixed limits):
    /// * bracketing: `near·(1 ± 10⁻³)` when a guess is given ([`Self::mvc_x_near`]), else
    ///   upward from ṡ = 1: the zero of the line through the last two admissible probes when
    ///   the margin decreases (at or beyond the root for a concave margin), else doubling;
    /// * shrinking: the zero of the line through the two nearest inadmissible probes (it
    ///   stays right of the root for a concave margin and is exact on a linear piece), else
    ///   regula falsi with the Illinois modification;
    /// * every probe at least `0.4e-15 hi` inside the bracket, so that a probe next to the root
    ///   closes it, and bisection when the bracket stops halving or no margin is available.
    ///
    /// About 5 evaluations of the bounds instead of 50–60 for plain bisection; the result
    /// differs from bisection's only inside the final bracket (≤ 1e-15 relative).
    fn mvc_x(&self, seg: usize, s: f64) -> Result<f64, PlanningError> {
        self.mvc_x_near(seg, s, f64::NAN)
    }

    /// [`Self::mvc_x`] with a guess `near` of α (e.g. α at a neighbouring s; NaN for none):
    /// the bracket is first tried as `near·(1 ± 10⁻³)`. The result obeys the same bracket
    /// criterion whatever the guess.
    fn mvc_x_near(&self, seg: usize, s: f64, near: f64) -> Result<f64, PlanningError> {
        const TOP: f64 = 8_388_608.0; // 2²³: admissible there → unbounded (α = ∞)
        const EPS: f64 = 1e-3;
        let (ok0, g0) = self.probe(seg, s, 0.0)?;
        if !ok0 {
            return Ok(-1.0);
        }
        let (mut lo, mut glo) = (0.0f64, g0);
        let mut hi = 1.0f64;
        let mut ghi = f64::NAN;
        let mut extrapolate = true;
        let mut extrapolated = false;
        let mut bracketed = false;
        if near.is_finite() && near > 0.0 && near * (1.0 + EPS) < TOP {
            let up = near * (1.0 + EPS);
            let (ok, g) = self.probe(seg, s, up)?;
            if ok {
                (lo, glo) = (up, g);
                hi = (2.0 * up).min(TOP);
            } else {
                (hi, ghi) = (up, g);
                let down = near * (1.0 - EPS);
                let (ok, g) = self.probe(seg, s, down)?;
                if ok {
                    (lo, glo) = (down, g);
                } else {
                    (hi, ghi) = (down, g);
                }
                bracketed = true;
            }
        }
        // upward until an inadmissible probe (skipped when the guess bracketed α)
        while !bracketed {
            let (ok, g) = self.probe(seg, s, hi)?;
            if !ok {
                ghi = g;
                bracketed = true;
                continue;
            }
            if hi >= TOP {
                return Ok(f64::INFINITY);
            }
            let mut next = 2.0 * hi;
            // an extrapolated probe that turned out admissible: the margin is not concave
            if extrapolated {
                extrapolate = false;
            }
            extrapolated = false;
            // the line through (lo², m(lo)) and (hi², m(hi)) meets zero at or beyond the root
            if extrapolate && g.is_finite() && glo.is_finite() && g < glo && g >= 0.0 {
                let (xl, xh) = (lo * lo, hi * hi);
                let xr = xh + g * ((xh - xl) / (glo - g));
                let r = xr.sqrt() * (1.0 + 1e-12);
                if r > hi && r.is_finite() {
                    next = r;
                    extrapolated = true;
                }
            }
            lo = hi;
            glo = g;
            hi = next.min(TOP);
        }
        // (x, m) of the second-nearest inadmissible probe (the nearest is hi)
        let mut r2: Option<(f64, f64)> = None;
        // margins at lo and hi as weighted by the Illinois rule (halved when an end is kept
        // twice); glo, ghi stay the true margins
        let (mut wlo, mut whi) = (glo, ghi);
        // +1 when lo was kept by the last probe, −1 when hi was
        let mut kept = 0i8;
        let mut stalls = 0usize;
        for _ in 0..200 {
            let width = hi - lo;
            if width <= 1e-15 * hi {
                break;
            }
            let delta = 0.4e-15 * hi;
            let (xl, xh) = (lo * lo, hi * hi);
            let mut est = f64::NAN;
            if stalls < 2 {
                if let Some((x2, g2)) = r2 {
                    // the line through the two nearest inadmissible probes
                    let slope = (ghi - g2) / (xh - x2);
                    if slope < 0.0 && slope.is_finite() {
                        est = xh - ghi / slope;
                    }
                }
                if !(est > xl && est < xh) && wlo >= 0.0 && whi < 0.0 && (wlo - whi).is_finite() {
                    // regula falsi (Illinois)
                    est = xl + wlo * ((xh - xl) / (wlo - whi));
                }
            } else {
                stalls = 0;
            }
            let m = if est.is_finite() && est >= 0.0 {
                est.sqrt().clamp(lo + delta, hi - delta)
            } else {
                0.5 * (lo + hi)
            };
            let (ok, g) = self.probe(seg, s, m)?;
            if ok {
                (lo, wlo) = (m, g);
                if kept == -1 {
                    whi *= 0.5;
                }
                kept = -1;
            } else {
                r2 = Some((xh, ghi));
                (hi, ghi, whi) = (m, g, g);
                if kept == 1 {
                    wlo *= 0.5;
                }
                kept = 1;
            }
            if hi - lo > 0.5 * width {
                stalls += 1;
            } else {
                stalls = 0;
            }
        }
        Ok(lo * lo)
    }

    /// Whether `(s, ṡ)` lies in the admissible region Ψ (4.3.50) (segment chosen from the
    /// right at breakpoints; the speed cap included) — for drawing the inadmissible region.
    pub fn is_admissible(&self, s: f64, sd: f64) -> Result<bool, PlanningError> {
        self.admissible(self.path().locate(s), s, sd * sd)
    }

    /// The maximum-velocity curve α(s) (right limit at breakpoints; +∞ where unbounded).
    ///
    /// Errors: [`PlanningError::EmptyAdmissibleRegion`] when even ṡ = 0 is inadmissible at s.
    pub fn max_velocity(&self, s: f64) -> Result<f64, PlanningError> {
        let x = self.mvc_x(self.path().locate(s), s)?;
        if x < 0.0 {
            return Err(PlanningError::EmptyAdmissibleRegion { s });
        }
        Ok(x.sqrt())
    }

    fn rate(&self, seg: usize, s: f64, x: f64, decel: bool) -> Result<f64, PlanningError> {
        let b = self.bounds(seg, s, x)?;
        let u = if decel { b.lower } else { b.upper };
        if !u.is_finite() {
            return Err(PlanningError::DegenerateTangent { s });
        }
        Ok(u)
    }

    /// Integrates an extremal (max acceleration, or max deceleration when `decel`) forward or
    /// backward from (s0, x0) on segment `seg0` within [s_a, s_b]; stops at the end, when it
    /// leaves Ψ (MVC), stalls (x → 0) or crosses `reference`.
    #[allow(clippy::too_many_arguments)]
    fn integrate(
        &self,
        forward: bool,
        decel: bool,
        s0: f64,
        x0: f64,
        seg0: usize,
        span: (f64, f64),
        bp_mvc: &[(f64, f64)],
        reference: Option<&[Node]>,
    ) -> Result<(Vec<Node>, Stop), PlanningError> {
        let (s_a, s_b) = span;
        let path = self.path();
        let dir = if forward { 1.0 } else { -1.0 };
        let h_max = self.cfg.max_step_fraction * (s_b - s_a);
        let mut seg = seg0;
        let (mut s, mut x) = (s0, x0);
        let mut u = self.rate(seg, s, x, decel)?;
        let mut nodes = vec![Node { s, x, u, seg }];
        // at rest the curve must move in its direction
        if x <= 0.0 && u * dir <= 0.0 && forward != decel {
            return Ok((nodes, Stop::Stall));
        }
        let eps_d = |x: f64| 1e-13 * (1.0 + x.abs());
        let mut init_sign: Option<bool> = None;
        if let Some(r) = reference {
            if let Some((xr, _)) = profile_x(r, s) {
                let d = x - xr;
                if d.abs() > eps_d(x) {
                    init_sign = Some(d > 0.0);
                }
            }
        }
        let mut h = dir * h_max * 0.05;
        let mut rejects = 0usize;
        loop {
            let limit = if forward {
                path.segments()[seg].s_end.min(s_b)
            } else {
                path.segments()[seg].s_start.max(s_a)
            };
            if (limit - s) * dir <= 0.0 {
                let at_end = if forward { limit >= s_b } else { limit <= s_a };
                if at_end {
                    return Ok((nodes, Stop::End));
                }
                // crossing an interior breakpoint
                let nseg = if forward { seg + 1 } else { seg - 1 };
                let xb = bp_mvc
                    .iter()
                    .find(|(sb, _)| (sb - s).abs() <= 1e-12 * (1.0 + s.abs()))
                    .map(|(_, v)| *v)
                    .unwrap_or(f64::INFINITY);
                if x > xb * (1.0 + 1e-9) + 1e-14 || !self.admissible(nseg, s, x)? {
                    return Ok((nodes, Stop::Mvc));
                }
                seg = nseg;
                u = self.rate(seg, s, x, decel)?;
                nodes.push(Node { s, x, u, seg });
                continue;
            }
            let rem = limit - s;
            let mut hh = h;
            let mut snap = false;
            if hh.abs() >= rem.abs() {
                hh = rem;
                snap = true;
            }
            let mut f = |ss: f64, xx: f64| -> Result<f64, PlanningError> {
                Ok(2.0 * self.rate(seg, ss, xx, decel)?)
            };
            let r = dopri_step(&mut f, s, x, 2.0 * u, hh)?;
            let tol = self.cfg.atol + self.cfg.rtol * x.abs().max(r.x.abs());
            let ratio = r.err.abs() / tol;
            if ratio.is_nan() || ratio > 1.0 {
                h = next_step(hh, if ratio.is_finite() { ratio } else { 1e10 });
                rejects += 1;
                if h.abs() < 1e-14 * (1.0 + s.abs()) || rejects > 100_000 {
                    return Err(PlanningError::StepSizeTooSmall { s, h });
                }
                continue;
            }
            let s_new = if snap { limit } else { s + hh };
            let x_new = r.x;
            let u_new = 0.5 * r.f;
            let (sa, xa, fa) = (s, x, 2.0 * u);
            let (sb, xb, fb) = (s_new, x_new, r.f);
            let herm = |q: f64| hermite(sa, xa, fa, sb, xb, fb, q);
            // events: the first (in the direction of motion) wins
            let mut event: Option<(f64, Stop)> = None;
            let closer = |e: &Option<(f64, Stop)>, q: f64| match e {
                None => true,
                Some((q0, _)) => (q - q0) * dir < 0.0,
            };
            let bisect =
                |pred: &dyn Fn(f64) -> Result<bool, PlanningError>| -> Result<f64, PlanningError> {
                    // pred(sa) false, pred(sb) true → first s where it becomes true
                    let (mut lo, mut hi) = (sa, sb);
                    for _ in 0..80 {
                        let mid = 0.5 * (lo + hi);
                        if pred(mid)? {
                            hi = mid;
                        } else {
                            lo = mid;
                        }
                        if (hi - lo).abs() <= 1e-15 * (1.0 + sa.abs()) {
                            break;
                        }
                    }
                    Ok(lo)
                };
            if x_new < 0.0 {
                let q = bisect(&|q| Ok(herm(q) < 0.0))?;
                event = Some((q, Stop::Stall));
            }
            if !self.admissible(seg, s_new, x_new.max(0.0))? {
                let q = bisect(&|q| Ok(!self.admissible(seg, q, herm(q).max(0.0))?))?;
                if closer(&event, q) {
                    event = Some((q, Stop::Mvc));
                }
            }
            if let Some(rf) = reference {
                if let Some((xr, _)) = profile_x(rf, s_new) {
                    let d = x_new - xr;
                    match init_sign {
                        None => {
                            if d.abs() > eps_d(x_new) {
                                // first comparison inside the reference: decide by the start
                                let prev = profile_x(rf, s).map(|(v, _)| x - v);
                                match prev {
                                    Some(dp) if dp.abs() > eps_d(x) && (dp > 0.0) != (d > 0.0) => {
                                        let pos = dp > 0.0;
                                        let q = bisect(&|q| {
                                            Ok(profile_x(rf, q)
                                                .map(|(v, _)| (herm(q) - v > 0.0) != pos)
                                                .unwrap_or(false))
                                        })?;
                                        if closer(&event, q) {
                                            event = Some((q, Stop::Cross));
                                        }
                                    }
                                    _ => init_sign = Some(d > 0.0),
                                }
                            }
                        }
                        Some(pos) => {
                            if (d > 0.0) != pos || d == 0.0 {
                                let q = bisect(&|q| {
                                    Ok(profile_x(rf, q)
                                        .map(|(v, _)| {
                                            let dd = herm(q) - v;
                                            (dd > 0.0) != pos || dd == 0.0
                                        })
                                        .unwrap_or(false))
                                })?;
                                if closer(&event, q) {
                                    event = Some((q, Stop::Cross));
                                }
                            }
                        }
                    }
                }
            }
            if let Some((q, stop)) = event {
                let xq = herm(q).max(0.0);
                let uq = self.rate(seg, q, xq, decel)?;
                nodes.push(Node {
                    s: q,
                    x: xq,
                    u: uq,
                    seg,
                });
                return Ok((nodes, stop));
            }
            s = s_new;
            x = x_new;
            u = u_new;
            nodes.push(Node { s, x, u, seg });
            h = next_step(hh, ratio);
            if h.abs() > h_max {
                h = dir * h_max;
            }
        }
    }

    /// Candidate switching points on the MVC of [s_a, s_b] and the MVC samples.
    #[allow(clippy::type_complexity)]
    fn candidates(
        &self,
        s_a: f64,
        s_b: f64,
    ) -> Result<(Vec<Candidate>, Vec<(f64, f64)>, Vec<(f64, f64)>), PlanningError> {
        let path = self.path();
        let n = self.cfg.mvc_grid.max(10);
        let mut cands = Vec::new();
        let mut samples = Vec::new();
        let dof = self.dynamics().dof();
        let mut a = vec![0.0; dof];
        let mut r = vec![0.0; dof];
        let mut a_prev = vec![0.0; dof];
        for (si, seg) in path.segments().iter().enumerate() {
            let lo = seg.s_start.max(s_a);
            let hi = seg.s_end.min(s_b);
            if hi <= lo {
                continue;
            }
            let len = hi - lo;
            let g: Vec<f64> = (0..=n).map(|k| lo + len * k as f64 / n as f64).collect();
            let mut xs = Vec::with_capacity(n + 1);
            // h(s, α) just below the MVC, evaluated while the dynamics at s are cached (an error
            // is kept, and raised only where the σ below needs the value)
            let mut h_mvc = Vec::with_capacity(n + 1);
            for &s in &g {
                let near = xs.last().map_or(f64::NAN, |x: &f64| x.sqrt());
                let x = self.mvc_x_near(si, s, near)?;
                if x < 0.0 {
                    return Err(PlanningError::EmptyAdmissibleRegion { s });
                }
                xs.push(x);
                samples.push((s, x.sqrt()));
                h_mvc.push(if x.is_finite() {
                    self.bounds(si, s, x * (1.0 - 1e-9)).map(|b| b.lower)
                } else {
                    Ok(f64::NAN)
                });
            }
            // β-type function σ(s) = h(s, α) − α α′ (u of the extremal minus the MVC's s̈)
            let sigma_at = |s: f64| -> Result<f64, PlanningError> {
                let d = 1e-6 * len;
                let sp = (s + d).min(hi);
                let sm = (s - d).max(lo);
                // x0 last: the bounds at (s, x0) below reuse the dynamics cached at s
                let xp = self.mvc_x(si, sp)?;
                let xm = self.mvc_x_near(si, sm, xp.sqrt())?;
                let x0 = self.mvc_x_near(si, s, xp.sqrt())?;
                if !(xp.is_finite() && xm.is_finite() && x0.is_finite()) {
                    return Ok(f64::NAN);
                }
                let umvc = 0.5 * (xp - xm) / (sp - sm);
                let b = self.bounds(si, s, x0 * (1.0 - 1e-9))?;
                Ok(b.lower - umvc)
            };
            let mut sig = Vec::with_capacity(n + 1);
            for k in 0..=n {
                let (km, kp) = (k.saturating_sub(1), (k + 1).min(n));
                if !(xs[km].is_finite() && xs[kp].is_finite() && xs[k].is_finite()) {
                    sig.push(f64::NAN);
                    continue;
                }
                let umvc = 0.5 * (xs[kp] - xs[km]) / (g[kp] - g[km]);
                let lower = std::mem::replace(&mut h_mvc[k], Ok(f64::NAN))?;
                sig.push(lower - umvc);
            }
            for k in 0..n {
                if sig[k] > 0.0 && sig[k + 1] <= 0.0 {
                    let (mut l, mut h) = (g[k], g[k + 1]);
                    for _ in 0..50 {
                        let m = 0.5 * (l + h);
                        let v = sigma_at(m)?;
                        if v > 0.0 {
                            l = m;
                        } else {
                            h = m;
                        }
                    }
                    let x = self.mvc_x(si, h)?;
                    if x.is_finite() {
                        cands.push(Candidate {
                            s: h,
                            x: x * (1.0 - 1e-7),
                            kind: SwitchKind::Tangent,
                            seg_left: si,
                            seg_right: si,
                        });
                    }
                }
            }
            // zero-inertia points: a_i = Σ_j M_ij B_j changes sign
            for (k, &s) in g.iter().enumerate() {
                self.dynamics().coefficients(si, s, 0.0, &mut a, &mut r)?;
                if k > 0 {
                    for i in 0..dof {
                        if a_prev[i] != 0.0 && (a[i] == 0.0 || (a[i] > 0.0) != (a_prev[i] > 0.0)) {
                            let (mut l, mut h) = (g[k - 1], s);
                            let sl = a_prev[i] > 0.0;
                            for _ in 0..60 {
                                let m = 0.5 * (l + h);
                                self.dynamics().coefficients(si, m, 0.0, &mut a, &mut r)?;
                                if (a[i] > 0.0) == sl && a[i] != 0.0 {
                                    l = m;
                                } else {
                                    h = m;
                                }
                            }
                            let x = self.mvc_x(si, h)?;
                            if x.is_finite() {
                                cands.push(Candidate {
                                    s: h,
                                    x: x * (1.0 - 1e-7),
                                    kind: SwitchKind::ZeroInertia,
                                    seg_left: si,
                                    seg_right: si,
                                });
                            }
                            self.dynamics().coefficients(si, s, 0.0, &mut a, &mut r)?;
                        }
                    }
                }
                a_prev.copy_from_slice(&a);
            }
        }
        // breakpoints: MVC limits from both sides, zero at a corner of the joint path
        let mut bp = Vec::new();
        let jp = self.dynamics().joint_path();
        let nq = dof;
        let (mut q, mut bl, mut br, mut bb) =
            (vec![0.0; nq], vec![0.0; nq], vec![0.0; nq], vec![0.0; nq]);
        for (si, seg) in path.segments().iter().enumerate().skip(1) {
            let sd = seg.s_start;
            if sd <= s_a || sd >= s_b {
                continue;
            }
            jp.eval(si - 1, sd, &mut q, &mut bl, &mut bb)?;
            jp.eval(si, sd, &mut q, &mut br, &mut bb)?;
            let nb = bl.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
            let jump = bl
                .iter()
                .zip(&br)
                .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            let xl = self.mvc_x(si - 1, sd)?;
            let xr = self.mvc_x(si, sd)?;
            if xl < 0.0 || xr < 0.0 {
                return Err(PlanningError::EmptyAdmissibleRegion { s: sd });
            }
            let xd = if jump > 1e-8 * nb { 0.0 } else { xl.min(xr) };
            bp.push((sd, xd));
            if xd.is_finite() {
                cands.push(Candidate {
                    s: sd,
                    x: xd * (1.0 - 1e-7),
                    kind: SwitchKind::Discontinuity,
                    seg_left: si - 1,
                    seg_right: si,
                });
            }
        }
        cands.sort_by(|p, q| p.s.total_cmp(&q.s));
        // a sign change of β at a zero-inertia point (a cusp of the MVC) is that point
        let zi: Vec<f64> = cands
            .iter()
            .filter(|c| c.kind == SwitchKind::ZeroInertia)
            .map(|c| c.s)
            .collect();
        let near = |s: f64| zi.iter().any(|z| (z - s).abs() <= 1e-5 * (s_b - s_a));
        cands.retain(|c| !(c.kind == SwitchKind::Tangent && near(c.s)));
        Ok((cands, samples, bp))
    }

    fn truncate(prof: &mut Vec<Node>, switches: &mut Vec<Switch>, s: f64, x: f64) {
        let (_, u) = profile_x(prof, s).unwrap_or((x, 0.0));
        let seg = prof[prof.partition_point(|p| p.s <= s).saturating_sub(1)].seg;
        let keep = prof.partition_point(|p| p.s < s);
        prof.truncate(keep);
        prof.push(Node { s, x, u, seg });
        switches.retain(|w| w.s <= s);
    }

    /// Slides along a velocity-type stretch of the MVC from `hit`; returns the last node and
    /// whether the profile must decelerate harder than possible there (a new hit).
    fn slide(
        &self,
        prof: &mut Vec<Node>,
        hit: Node,
        s_b: f64,
    ) -> Result<Option<(Node, bool)>, PlanningError> {
        let path = self.path();
        let seg = hit.seg;
        let end = path.segments()[seg].s_end.min(s_b);
        let ds = (s_b - prof[0].s) / (4.0 * self.cfg.mvc_grid.max(10) as f64);
        let mut cur = hit;
        let mut moved = false;
        let mut blocked = false;
        let mut first = true;
        while cur.s < end {
            let sn = (cur.s + ds).min(end);
            let xn = self.mvc_x_near(seg, sn, cur.x.sqrt())?;
            if !xn.is_finite() {
                break;
            }
            let xn = xn * (1.0 - 1e-10);
            let ureq = 0.5 * (xn - cur.x) / (sn - cur.s);
            let b = self.bounds(seg, sn, xn)?;
            let tol = 1e-7 * (1.0 + b.lower.abs() + b.upper.abs());
            if !b.singular_ok || ureq > b.upper + tol {
                break;
            }
            if ureq < b.lower - tol {
                blocked = true;
                break;
            }
            if first {
                // a duplicate of the hit node starts the sliding piece
                prof.push(Node { u: ureq, ..hit });
                first = false;
            }
            cur = Node {
                s: sn,
                x: xn,
                u: ureq,
                seg,
            };
            prof.push(cur);
            moved = true;
        }
        Ok(if moved { Some((cur, blocked)) } else { None })
    }

    fn solve_piece(&self, s_a: f64, s_b: f64) -> Result<Piece, PlanningError> {
        let path = self.path();
        let (cands, mvc, bp) = self.candidates(s_a, s_b)?;
        let span = (s_a, s_b);
        let mut prof: Vec<Node> = Vec::new();
        let mut switches: Vec<Switch> = Vec::new();
        let (mut s, mut x, mut seg) = (s_a, 0.0, path.locate(s_a));
        let mut last_c = f64::NEG_INFINITY;
        let mut iterations = 0;
        // C_f: the final maximum-deceleration curve from (s_b, 0), Huang step (2)
        let (mut cf, cf_stop) = self.integrate(
            false,
            true,
            s_b,
            0.0,
            path.locate_left(s_b),
            span,
            &bp,
            None,
        )?;
        if cf_stop == Stop::Stall {
            return Err(PlanningError::EmptyAdmissibleRegion {
                s: cf.last().unwrap().s,
            });
        }
        cf.reverse();
        let mut joined = false;
        'outer: loop {
            iterations += 1;
            if iterations > 10_000 {
                return Err(PlanningError::NoSwitchingPoint { s });
            }
            let (nodes, stop) = self.integrate(true, false, s, x, seg, span, &bp, Some(&cf))?;
            prof.extend(nodes);
            let mut hit = *prof.last().unwrap();
            match stop {
                Stop::End => break,
                Stop::Stall => return Err(PlanningError::EmptyAdmissibleRegion { s: hit.s }),
                Stop::Cross => {
                    // steps (3)/(6): the accelerating curve meets C_f
                    let idx = cf.partition_point(|p| p.s <= hit.s);
                    let cseg = cf[idx.saturating_sub(1)].seg;
                    let u = self.rate(cseg, hit.s, hit.x, true)?;
                    switches.push(Switch {
                        s: hit.s,
                        x: hit.x,
                        kind: SwitchKind::Intersection,
                    });
                    prof.push(Node {
                        s: hit.s,
                        x: hit.x,
                        u,
                        seg: cseg,
                    });
                    prof.extend(cf[idx..].iter().copied());
                    joined = true;
                    break;
                }
                Stop::Mvc => {}
            }
            // velocity-type boundary: slide along it
            if let Some((end, blocked)) = self.slide(&mut prof, hit, s_b)? {
                switches.push(Switch {
                    s: hit.s,
                    x: hit.x,
                    kind: SwitchKind::BoundaryEntry,
                });
                if !blocked {
                    switches.push(Switch {
                        s: end.s,
                        x: end.x,
                        kind: SwitchKind::BoundaryExit,
                    });
                    if end.s >= s_b {
                        break;
                    }
                    s = end.s;
                    x = end.x * (1.0 - 1e-9);
                    seg = end.seg;
                    continue;
                }
                hit = end;
            }
            for c in cands
                .iter()
                .filter(|c| c.s >= hit.s - 1e-12 && c.s > last_c + 1e-12)
            {
                let (bn, bstop) =
                    self.integrate(false, true, c.s, c.x, c.seg_left, span, &bp, Some(&prof))?;
                if bstop != Stop::Cross {
                    continue;
                }
                let cut = *bn.last().unwrap();
                Self::truncate(&mut prof, &mut switches, cut.s, cut.x);
                switches.push(Switch {
                    s: cut.s,
                    x: cut.x,
                    kind: SwitchKind::Intersection,
                });
                prof.extend(bn.iter().rev().copied());
                switches.push(Switch {
                    s: c.s,
                    x: c.x,
                    kind: c.kind,
                });
                s = c.s;
                x = c.x;
                seg = c.seg_right;
                last_c = c.s;
                if s >= s_b {
                    break 'outer;
                }
                continue 'outer;
            }
            return Err(PlanningError::NoSwitchingPoint { s: hit.s });
        }
        // final maximum-deceleration curve from (s_b, 0), if C_f was not met on the way
        let (bn, bstop) = if joined {
            (Vec::new(), Stop::End)
        } else {
            self.integrate(
                false,
                true,
                s_b,
                0.0,
                path.locate_left(s_b),
                span,
                &bp,
                Some(&prof),
            )?
        };
        match bstop {
            _ if joined => {}
            Stop::Cross => {
                let cut = *bn.last().unwrap();
                Self::truncate(&mut prof, &mut switches, cut.s, cut.x);
                switches.push(Switch {
                    s: cut.s,
                    x: cut.x,
                    kind: SwitchKind::Intersection,
                });
                prof.extend(bn.iter().rev().copied());
            }
            Stop::Stall => {
                return Err(PlanningError::EmptyAdmissibleRegion {
                    s: bn.last().unwrap().s,
                })
            }
            Stop::Mvc => {
                return Err(PlanningError::NoSwitchingPoint {
                    s: bn.last().unwrap().s,
                })
            }
            Stop::End => return Err(PlanningError::EmptyAdmissibleRegion { s: s_a }),
        }
        // remove zero-length duplicates with identical data, keep order
        prof.dedup_by(|b, a| a.s == b.s && a.x == b.x && a.u == b.u);
        let _ = seg;
        Ok(Piece {
            nodes: prof,
            switches,
            mvc,
        })
    }

    /// Solves the minimum-time problem on the whole path, split at the configured rest
    /// points (Theorem 4.3.4).
    pub fn solve(&self) -> Result<MinimumTimeSolution, PlanningError> {
        if let Some(tol) = self.cfg.feasibility_tol {
            self.dynamics().check_feasible(200, tol)?;
        }
        let path = self.path();
        let (s0, s1) = (path.s_start(), path.s_end());
        let mut cuts = vec![s0];
        let mut rp = self.cfg.rest_points.clone();
        if rp.iter().any(|v| !v.is_finite()) {
            return Err(PlanningError::NonFinite {
                what: "rest points",
            });
        }
        rp.sort_by(|a, b| a.total_cmp(b));
        for v in rp {
            if v <= s0 || v >= s1 {
                return Err(PlanningError::OutOfRange {
                    s: v,
                    start: s0,
                    end: s1,
                });
            }
            cuts.push(v);
        }
        cuts.push(s1);
        let mut samples = Vec::new();
        let mut torques = Vec::new();
        let mut switching_points = Vec::new();
        let mut piece_times = Vec::new();
        let mut mvc = Vec::new();
        let mut t0 = 0.0;
        let n = self.dynamics().dof();
        for w in cuts.windows(2) {
            let piece = self.solve_piece(w[0], w[1])?;
            mvc.extend(piece.mvc);
            let nodes = &piece.nodes;
            let mut times = vec![t0; nodes.len()];
            for k in 1..nodes.len() {
                let (a, b) = (&nodes[k - 1], &nodes[k]);
                times[k] = times[k - 1]
                    + if b.s > a.s {
                        interval_time(a.s, a.x, 2.0 * a.u, b.s, b.x, 2.0 * b.u, b.s)
                    } else {
                        0.0
                    };
            }
            let t_end = *times.last().unwrap();
            piece_times.push(t_end - t0);
            for (k, nd) in nodes.iter().enumerate() {
                let mut tau = vec![0.0; n];
                self.dynamics()
                    .inverse_dynamics(nd.seg, nd.s, nd.x.sqrt(), nd.u, &mut tau)?;
                samples.push(PhaseSample {
                    t: times[k],
                    s: nd.s,
                    sd: nd.x.sqrt(),
                    sdd: nd.u,
                    segment: nd.seg,
                });
                torques.push(tau);
            }
            for sw in &piece.switches {
                let idx = nodes.partition_point(|p| p.s < sw.s).min(nodes.len() - 1);
                switching_points.push(SwitchingPoint {
                    s: sw.s,
                    sd: sw.x.max(0.0).sqrt(),
                    t: times[idx],
                    kind: sw.kind,
                });
            }
            t0 = t_end;
        }
        Ok(MinimumTimeSolution {
            samples,
            torques,
            switching_points,
            total_time: t0,
            piece_times,
            mvc,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::joint_path::CartesianJointPath;
    use crate::limits::{BoxLimits, FnLimits};
    use crate::path::{Segment, SegmentKind, Shape};
    use contour_model::models::HuangCartesianRobot;
    use contour_model::tree::KinematicTree;

    /// α² by plain bisection in ṡ (doubling from 1, then halving to `hi − lo ≤ 1e-15 hi`).
    fn mvc_bisection<M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits + ?Sized>(
        pp: &PhasePlane<'_, '_, M, P, L>,
        seg: usize,
        s: f64,
    ) -> f64 {
        let adm = |sd: f64| pp.admissible(seg, s, sd * sd).unwrap();
        if !adm(0.0) {
            return -1.0;
        }
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        while adm(hi) {
            lo = hi;
            hi *= 2.0;
            if hi > 1e7 {
                return f64::INFINITY;
            }
        }
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if adm(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
            if hi - lo <= 1e-15 * hi {
                break;
            }
        }
        lo * lo
    }

    /// The secant-placed search against bisection at `samples` points of every segment, with
    /// no guess and with good, high, low and absurd guesses: same bracket criterion, so the two
    /// agree to a few 1e-15 and the result is admissible while ṡ·(1 + 1e-15)⁻¹… is not.
    fn check_mvc<M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits + ?Sized>(
        pp: &PhasePlane<'_, '_, M, P, L>,
        samples: usize,
    ) -> usize {
        let path = pp.path();
        let mut finite = 0;
        for (si, seg) in path.segments().iter().enumerate() {
            for k in 0..=samples {
                let s = seg.s_start + (seg.s_end - seg.s_start) * k as f64 / samples as f64;
                let reference = mvc_bisection(pp, si, s);
                let guesses = [f64::NAN, 1.0, 1.0005, 0.9995, 1.3, 0.2, 1e-9, 1e9];
                for g in guesses {
                    let near = if g.is_nan() || reference <= 0.0 || !reference.is_finite() {
                        g
                    } else {
                        g * reference.sqrt()
                    };
                    let x = pp.mvc_x_near(si, s, near).unwrap();
                    if !reference.is_finite() || reference < 0.0 {
                        assert_eq!(x, reference, "s = {s}, guess {near}");
                        continue;
                    }
                    assert!(
                        (x - reference).abs() <= 6e-15 * reference,
                        "s = {s}, guess {near}: {x} vs bisection {reference}"
                    );
                    let sd = x.sqrt();
                    assert!(pp.admissible(si, s, sd * sd).unwrap(), "s = {s}");
                    let above = sd / (1.0 - 1.5e-15);
                    assert!(!pp.admissible(si, s, above * above).unwrap(), "s = {s}");
                }
                if reference.is_finite() {
                    finite += 1;
                }
            }
        }
        finite
    }

    fn line3(start: [f64; 3], end: [f64; 3]) -> CartesianJointPath {
        let seg = Segment {
            s_start: 0.0,
            s_end: 1.0,
            shape: Shape::Line {
                start: start.to_vec(),
                end: end.to_vec(),
            },
            kind: SegmentKind::Unconstrained,
        };
        CartesianJointPath::new(Path::new(vec![seg]).unwrap())
    }

    #[test]
    fn mvc_search_matches_bisection_on_huang_path() {
        // zero-inertia cusps, a constrained arc and jumps at the breakpoints
        let cp = crate::ContourTask::huang().continuous_slope_path().unwrap();
        let robot = HuangCartesianRobot::default();
        let jp = CartesianJointPath::new(cp.path.clone());
        let d = PathDynamics::new(&robot, &jp).unwrap();
        let lim = BoxLimits::symmetric(2, 1.0);
        let acc = AccelerationLimits::new(&d, &lim);
        let pp = PhasePlane::new(&acc, PhasePlaneConfig::default());
        let finite = check_mvc(&pp, 60);
        assert!(finite > 20, "{finite} finite MVC values");
        // right at the zero-inertia cusp of the first segment (x joint, s = −d2/(2 d1))
        let c = |name: &str| cp.coefficients.iter().find(|p| p.0 == name).unwrap().1;
        let s_zi = -c("d2") / (2.0 * c("d1"));
        for ds in [0.0, 1e-9, -1e-9, 1e-6] {
            let s = s_zi + ds;
            let seg = jp.path().locate(s);
            let x = pp.mvc_x(seg, s).unwrap();
            let r = mvc_bisection(&pp, seg, s);
            assert!((x - r).abs() <= 6e-15 * r, "s = {s}: {x} vs {r}");
        }
    }

    #[test]
    fn mvc_search_matches_bisection_on_planar_arm_with_cap_and_speed_limits() {
        let arm = KinematicTree::planar_with_gravity(3, 9.81);
        let jp = line3([0.2, 0.3, -0.2], [1.2, -0.5, 0.6]);
        let d = PathDynamics::new(&arm, &jp).unwrap();
        let lim = BoxLimits {
            lower: vec![-80.0, -40.0, -15.0],
            upper: vec![80.0, 40.0, 15.0],
        };
        let acc = AccelerationLimits::new(&d, &lim);
        let pp = PhasePlane::new(&acc, PhasePlaneConfig::default());
        assert_eq!(check_mvc(&pp, 40), 41);
        // a speed cap that binds on part of the path
        let capped = PhasePlane::new(
            &acc,
            PhasePlaneConfig {
                speed_cap: Some(Arc::new(|s: f64| 8.0 + 12.0 * s)),
                ..PhasePlaneConfig::default()
            },
        );
        assert_eq!(check_mvc(&capped, 40), 41);
        // torque–speed lines: T_max = 80 − 4 ṡ etc. (margin no longer piecewise linear in ṡ²)
        let motor = FnLimits(|_s: f64, sd: f64, lo: &mut [f64], hi: &mut [f64]| {
            for (i, b) in [80.0, 40.0, 15.0].iter().enumerate() {
                hi[i] = b - 0.3 * b * sd / 10.0;
                lo[i] = -hi[i];
            }
        });
        let acc2 = AccelerationLimits::new(&d, &motor);
        let pp2 = PhasePlane::new(&acc2, PhasePlaneConfig::default());
        assert_eq!(check_mvc(&pp2, 40), 41);
    }

    #[test]
    fn mvc_search_reports_unbounded_and_empty() {
        // a straight line for Huang's Cartesian robot: T = M B s̈ with no velocity terms, so
        // h ≤ γ at every ṡ (α = ∞); and limits that exclude even rest (α² = −1)
        let robot = HuangCartesianRobot::default();
        let seg = Segment {
            s_start: 0.0,
            s_end: 1.0,
            shape: Shape::Line {
                start: vec![0.3, 0.2],
                end: vec![0.5, 0.4],
            },
            kind: SegmentKind::Unconstrained,
        };
        let jp = CartesianJointPath::new(Path::new(vec![seg]).unwrap());
        let d = PathDynamics::new(&robot, &jp).unwrap();
        let lim = BoxLimits::symmetric(2, 1.0);
        let acc = AccelerationLimits::new(&d, &lim);
        let pp = PhasePlane::new(&acc, PhasePlaneConfig::default());
        for near in [f64::NAN, 3.0, 1e8] {
            assert_eq!(pp.mvc_x_near(0, 0.4, near).unwrap(), f64::INFINITY);
        }
        // B ∝ (1, 1): s̈ ≥ 0.9/a from x, s̈ ≤ −0.9/a from y
        let shifted = BoxLimits {
            lower: vec![0.9, -1.0],
            upper: vec![1.0, -0.9],
        };
        let acc2 = AccelerationLimits::new(&d, &shifted);
        let pp2 = PhasePlane::new(&acc2, PhasePlaneConfig::default());
        for near in [f64::NAN, 3.0] {
            assert_eq!(pp2.mvc_x_near(0, 0.4, near).unwrap(), -1.0);
        }
    }
}
