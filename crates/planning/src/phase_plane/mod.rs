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
//! Dormand–Prince 5(4) pair of `contour-ode` ([`contour_ode::Tableau::scalar_step`]) under this
//! module's own step control; leaving Ψ, meeting another curve and
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
//! Files: `mvc.rs` the maximum-velocity curve and admissibility; `extremals.rs` the
//! integration of the extremal curves with event location; `switching.rs` the switching-point
//! candidates and profile trimming; `solution.rs` pieces between rest points and the whole path.
//!
//! Cost: nearly all the time goes into evaluating h and γ (one inverse-dynamics call each);
//! [`PathDynamics`] keeps everything that depends on s alone for the last s, and
//! [`AccelerationLimits`] remembers its last result, so that the many ṡ probed at one s
//! (MVC search) cost one bias-force evaluation each and the repeated end state of a
//! Runge–Kutta step (last stage, then admissibility test) costs nothing.

use crate::dynamics::PathDynamics;
use crate::error::PlanningError;
use crate::joint_path::JointPath;
use crate::limits::{AccelBounds, AccelerationLimits, TorqueLimits};
use crate::path::Path;
use crate::validation::{self, checked_speed_cap};
use contour_model::Mechanism;
use contour_ode::{hermite_cubic_scalar as hermite, DORMAND_PRINCE_1980};
use serde::Serialize;
use std::sync::Arc;

mod extremals;
mod mvc;
mod solution;
mod switching;

use extremals::profile_x;

/// Options of the phase-plane solver (defaults in [`Default`]).
#[derive(Clone)]
pub struct PhasePlaneConfig {
    /// Relative tolerance of the integration in s (default 1e-10).
    pub rtol: f64,
    /// Absolute tolerance on x = ṡ² (default 1e-13).
    pub atol: f64,
    /// Largest step in s as a fraction of the piece length (default 1/100).
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
            max_step_fraction: 1.0 / 100.0,
            mvc_grid: 1000,
            rest_points: Vec::new(),
            speed_cap: None,
            admissibility_tol: 1e-9,
            feasibility_tol: Some(1e-9),
        }
    }
}

impl PhasePlaneConfig {
    /// Checks every field before any work is done ([`PhasePlane::solve`] calls it):
    /// `rtol ∈ [1e-15, 1]`, `atol` finite and ≥ 0, `max_step_fraction ∈ (0, 1]` and at least
    /// [`validation::MIN_STEP_FRACTION`], `mvc_grid ∈ [1, MAX_MVC_GRID]`,
    /// `admissibility_tol ∈ [0, 1]`, `feasibility_tol` finite and ≥ 0, rest points finite.
    /// The speed cap is checked where it is evaluated (NaN or negative values are errors).
    ///
    /// Errors: [`PlanningError::InvalidParameter`], [`PlanningError::WorkCap`],
    /// [`PlanningError::NonFinite`] (rest points).
    pub fn validate(&self) -> Result<(), PlanningError> {
        validation::in_range(
            "rtol",
            self.rtol,
            validation::MIN_RTOL,
            1.0,
            "in [1e-15, 1]",
        )?;
        validation::in_range("atol", self.atol, 0.0, f64::MAX, "finite and >= 0")?;
        let f = self.max_step_fraction;
        validation::in_range("max_step_fraction", f, f64::MIN_POSITIVE, 1.0, "in (0, 1]")?;
        if f < validation::MIN_STEP_FRACTION {
            return Err(PlanningError::WorkCap {
                name: "max_step_fraction",
                value: f,
                cap: "max_step_fraction >= 1e-5",
            });
        }
        if self.mvc_grid == 0 {
            return Err(PlanningError::InvalidParameter {
                name: "mvc_grid",
                value: 0.0,
                expected: ">= 1",
            });
        }
        if self.mvc_grid > validation::MAX_MVC_GRID {
            return Err(PlanningError::WorkCap {
                name: "mvc_grid",
                value: self.mvc_grid as f64,
                cap: "mvc_grid <= 1e6",
            });
        }
        validation::in_range(
            "admissibility_tol",
            self.admissibility_tol,
            0.0,
            1.0,
            "in [0, 1]",
        )?;
        validation::feasibility_tol(self.feasibility_tol)?;
        if self.rest_points.iter().any(|v| !v.is_finite()) {
            return Err(PlanningError::NonFinite {
                what: "rest points",
            });
        }
        Ok(())
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
    /// The 4th-order dense-output term of the interval that starts here: between this sample
    /// and the next, x = ṡ² is the cubic Hermite interpolant of (x, 2 s̈) at both ends plus
    /// `θ²(1 − θ)² · dense` ([`contour_ode::ScalarStep::dense`]; 0 where the interval is not
    /// one whole integration step).
    pub dense: f64,
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
    ///
    /// Errors: a non-finite `s` ([`PlanningError::NonFinite`]) or one outside the profile's
    /// `[s_first, s_last]` ([`PlanningError::OutOfRange`]).
    pub fn time_at_s(&self, s: f64) -> Result<f64, PlanningError> {
        let n = self.samples.len();
        let (Some(first), Some(last)) = (self.samples.first(), self.samples.last()) else {
            return Err(PlanningError::NonFinite {
                what: "empty profile",
            });
        };
        if !s.is_finite() {
            return Err(PlanningError::NonFinite { what: "s" });
        }
        if s < first.s || s > last.s {
            return Err(PlanningError::OutOfRange {
                s,
                start: first.s,
                end: last.s,
            });
        }
        let idx = self.samples.partition_point(|p| p.s <= s);
        if idx == 0 {
            return Ok(first.t);
        }
        if idx >= n {
            return Ok(last.t);
        }
        let a = &self.samples[idx - 1];
        let b = &self.samples[idx];
        let t = a.t + XInterval::between(a, b).time(s);
        if t.is_finite() {
            Ok(t)
        } else {
            Err(PlanningError::NonFinite { what: "time at s" })
        }
    }

    /// `(s, ṡ, s̈)` at time `t ∈ [0, total_time]`, with s̈ taken constant between consecutive
    /// samples.
    ///
    /// Errors: a non-finite `t` ([`PlanningError::NonFinite`]) or one outside the profile's
    /// time span ([`PlanningError::OutOfRange`], the times in the message).
    pub fn state_at(&self, t: f64) -> Result<(f64, f64, f64), PlanningError> {
        let n = self.samples.len();
        let (Some(first), Some(last)) = (self.samples.first(), self.samples.last()) else {
            return Err(PlanningError::NonFinite {
                what: "empty profile",
            });
        };
        if !t.is_finite() {
            return Err(PlanningError::NonFinite { what: "t" });
        }
        if t < first.t || t > last.t {
            return Err(PlanningError::OutOfRange {
                s: t,
                start: first.t,
                end: last.t,
            });
        }
        let idx = self.samples.partition_point(|p| p.t <= t);
        if idx == 0 {
            return Ok((first.s, first.sd, first.sdd));
        }
        if idx >= n {
            return Ok((last.s, last.sd, last.sdd));
        }
        let a = &self.samples[idx - 1];
        let b = &self.samples[idx];
        let tau = t - a.t;
        let s = (a.s + a.sd * tau + 0.5 * a.sdd * tau * tau).clamp(a.s, b.s);
        Ok((s, (a.sd + a.sdd * tau).max(0.0), a.sdd))
    }

    /// Number of switching points.
    pub fn switch_count(&self) -> usize {
        self.switching_points.len()
    }
}

/// One interval of the profile in x = ṡ²: the cubic Hermite interpolant through
/// `(s0, x0, f0)`, `(s1, x1, f1)` (f = dx/ds = 2 s̈) plus `θ²(1 − θ)² · dense`,
/// θ = (s − s0)/(s1 − s0) — Dormand–Prince's 4th-order dense output on a whole step
/// ([`contour_ode::ScalarStep::dense`]), the plain cubic Hermite where `dense = 0`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct XInterval {
    pub(crate) s0: f64,
    pub(crate) x0: f64,
    pub(crate) f0: f64,
    pub(crate) s1: f64,
    pub(crate) x1: f64,
    pub(crate) f1: f64,
    pub(crate) dense: f64,
}

impl XInterval {
    /// The interval between two consecutive samples.
    pub(crate) fn between(a: &PhaseSample, b: &PhaseSample) -> Self {
        Self {
            s0: a.s,
            x0: a.sd * a.sd,
            f0: 2.0 * a.sdd,
            s1: b.s,
            x1: b.sd * b.sd,
            f1: 2.0 * b.sdd,
            dense: a.dense,
        }
    }

    /// The interval between two consecutive nodes.
    fn of_nodes(a: &Node, b: &Node) -> Self {
        Self {
            s0: a.s,
            x0: a.x,
            f0: 2.0 * a.u,
            s1: b.s,
            x1: b.x,
            f1: 2.0 * b.u,
            dense: a.d,
        }
    }

    /// x at `s` (`x1` from `s1` on).
    pub(crate) fn x(&self, s: f64) -> f64 {
        if s >= self.s1 {
            return self.x1;
        }
        let h = hermite(self.s0, self.x0, self.f0, self.s1, self.x1, self.f1, s);
        if self.dense == 0.0 {
            return h;
        }
        let th = (s - self.s0) / (self.s1 - self.s0);
        let w = th * (1.0 - th);
        h + w * w * self.dense
    }

    /// dx/ds at `s` (`f1` from `s1` on), the derivative of [`Self::x`] in closed form:
    /// `6θ(1 − θ)(x1 − x0)/Δ + (1 − θ)(1 − 3θ) f0 − θ(2 − 3θ) f1 + 2θ(1 − θ)(1 − 2θ) dense/Δ`,
    /// Δ = s1 − s0 (`f0` at θ = 0, `f1` at θ = 1). A difference quotient of `x` over a small
    /// fraction of Δ would carry the round-off of `x` divided by that fraction.
    pub(crate) fn dx(&self, s: f64) -> f64 {
        if s >= self.s1 {
            return self.f1;
        }
        let dl = self.s1 - self.s0;
        let th = (s - self.s0) / dl;
        let thc = 1.0 - th;
        6.0 * th * thc * (self.x1 - self.x0) / dl + thc * (1.0 - 3.0 * th) * self.f0
            - th * (2.0 - 3.0 * th) * self.f1
            + 2.0 * th * thc * (1.0 - 2.0 * th) * self.dense / dl
    }

    /// x at θ = (s − s0)/(s1 − s0), given θ and 1 − θ separately (so that x next to a rest
    /// end keeps its relative accuracy): the cubic Hermite in the Bernstein-like basis
    /// (1 − θ)²(1 + 2θ) x0 + θ²(1 + 2(1 − θ)) x1 + Δ θ (1 − θ) ((1 − θ) f0 − θ f1), plus
    /// θ²(1 − θ)² · dense (the same polynomial as [`Self::x`], evaluated without cancellation
    /// at either end).
    fn x_theta(&self, th: f64, thc: f64) -> f64 {
        let dl = self.s1 - self.s0;
        let h = thc * thc * (1.0 + 2.0 * th) * self.x0
            + th * th * (1.0 + 2.0 * thc) * self.x1
            + dl * th * thc * (thc * self.f0 - th * self.f1);
        let w = th * thc;
        h + w * w * self.dense
    }

    /// ∫ ds/√x from s0 to `upto` (the time, Huang (4.3.47): t = ∫ ds/ṡ), to about 1e-14
    /// relative.
    ///
    /// The substitution `s = s0 + w (3τ² − 2τ³)`, `ds = 6 w τ (1 − τ) dτ` (w = upto − s0)
    /// cancels the inverse-square-root singularity of a rest point (x = 0 with x′ ≠ 0) at
    /// either end, so the integrand in τ is smooth and an adaptive 5-point Gauss–Legendre
    /// rule (one panel against its two halves) converges to round-off in a few panels. The
    /// former fixed rule (32 chords, exact only for x linear in s, on the cubic Hermite) was
    /// accurate to O((h/32)²) and the cubic to O(h⁴): that held the minimum time to ~1e-7 on
    /// Huang's case 2(b) at any tolerance and put coarse steps 1.7e-6 *below* the truth.
    /// Where x is not positive inside the interval (the interpolant dips below zero next to a
    /// rest point) the chord rule on 256 sub-intervals is used instead (infinite when two
    /// consecutive chord points are at rest).
    pub(crate) fn time(&self, upto: f64) -> f64 {
        let (s0, s1) = (self.s0, self.s1);
        let end = upto.min(s1);
        if end <= s0 {
            return 0.0;
        }
        let w = end - s0;
        let len = s1 - s0;
        let whole_step = end >= s1;
        // the integrand in τ; NaN flags a non-positive x (handled by the chord rule)
        let g = |tau: f64| -> f64 {
            // θ and 1 − θ from τ without cancellation: s − s0 = w τ²(3 − 2τ) and, on the
            // whole interval, s1 − s = w (1 − τ)²(1 + 2τ). Next to a rest end (x1 = 0) x is
            // O(1 − θ); the former evaluation through s = s0 + …, θ = (s − s0)/len and the
            // monomial Hermite basis lost x there to round-off (relative noise O(1) at
            // 1 − τ ≲ 1e-8), and the adaptive rule, never meeting its tolerance in that
            // noise, subdivided down to its depth cap: 1.6e5 rule evaluations on the last
            // interval of the arm7 line, half of the whole solve.
            let d0 = w * tau * tau * (3.0 - 2.0 * tau);
            let th = (d0 / len).min(1.0);
            let thc = if whole_step {
                let c = 1.0 - tau;
                (w * c * c * (1.0 + 2.0 * tau) / len).min(1.0)
            } else {
                (len - d0) / len
            };
            let x = self.x_theta(th, thc);
            if x > 0.0 {
                6.0 * w * tau * (1.0 - tau) / x.sqrt()
            } else {
                f64::NAN
            }
        };
        // a NaN of the first panel already flags a non-positive x (and would make the
        // tolerance NaN, which no panel meets: 2⁵⁰ panels)
        let whole = gauss_legendre5(&g, 0.0, 1.0);
        if whole.is_finite() {
            let t = adaptive_gl(&g, 0.0, 1.0, whole, 1e-14 * whole.abs(), 0);
            if t.is_finite() {
                return t;
            }
        }
        // chord rule 2δ/(√x_j + √x_{j+1}) (exact when x is linear in s)
        let m = 256;
        let d = w / m as f64;
        let mut t = 0.0;
        let mut prev = self.x0.max(0.0).sqrt();
        for j in 1..=m {
            let s = s0 + d * j as f64;
            let x = if j == m && end == s1 {
                self.x1
            } else {
                self.x(s)
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
}

/// 5-point Gauss–Legendre rule on [a, b].
fn gauss_legendre5(g: &dyn Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    const X: [f64; 3] = [0.0, 0.538_469_310_105_683_1, 0.906_179_845_938_664];
    const W: [f64; 3] = [
        0.568_888_888_888_888_9,
        0.478_628_670_499_366_47,
        0.236_926_885_056_189_08,
    ];
    let (c, r) = (0.5 * (a + b), 0.5 * (b - a));
    let mut sum = W[0] * g(c);
    for k in 1..3 {
        sum += W[k] * (g(c - r * X[k]) + g(c + r * X[k]));
    }
    r * sum
}

/// Adaptive Gauss–Legendre: `whole` (the 5-point rule on [a, b]) against the sum over the
/// two halves, recursing into halves whose difference exceeds `tol` (the same absolute `tol`
/// on every level: the rule's error falls by 2¹⁰ per halving, so the few panels it takes add
/// up to a few `tol`, and a tolerance halved per level would fall below round-off); at most
/// 50 levels (a near-rest end, x0 ≪ x′·(s1 − s0), is resolved by halving towards it). A NaN (non-positive x somewhere) propagates.
fn adaptive_gl(g: &dyn Fn(f64) -> f64, a: f64, b: f64, whole: f64, tol: f64, depth: u32) -> f64 {
    let m = 0.5 * (a + b);
    let left = gauss_legendre5(g, a, m);
    let right = gauss_legendre5(g, m, b);
    let both = left + right;
    if !both.is_finite() || (both - whole).abs() <= tol || depth >= 50 {
        return both;
    }
    adaptive_gl(g, a, m, left, tol, depth + 1) + adaptive_gl(g, m, b, right, tol, depth + 1)
}

#[derive(Clone, Copy, Debug)]
struct Node {
    s: f64,
    x: f64,
    /// s̈ on the piece that starts (forward order) at this node.
    u: f64,
    seg: usize,
    /// Dense-output term of the interval that starts (forward order) at this node
    /// ([`XInterval`]; 0: cubic Hermite).
    d: f64,
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::joint_path::CartesianJointPath;
    use crate::limits::{BoxLimits, FnLimits};
    use crate::path::{Segment, SegmentKind, Shape};
    use contour_model::models::HuangCartesianRobot;
    use contour_model::tree::KinematicTree;

    /// `XInterval::dx` against a fourth-order central difference of `XInterval::x` (error
    /// O(δ⁴) with δ = 1e-3 Δ, plus round-off ~1e-13): ends, interior, with and without the
    /// dense term; and its end values are f0 and f1.
    #[test]
    fn interval_slope_is_the_derivative_of_the_interpolant() {
        for dense in [0.0, 0.37, -1.9] {
            let iv = XInterval {
                s0: 0.3,
                x0: 0.8,
                f0: -1.4,
                s1: 0.55,
                x1: 0.2,
                f1: 2.3,
                dense,
            };
            assert_eq!(iv.dx(iv.s0), iv.f0);
            assert!((iv.dx(iv.s1 - 1e-15) - iv.f1).abs() < 1e-12);
            let d = 1e-3 * (iv.s1 - iv.s0);
            for k in 1..20 {
                let s = iv.s0 + (iv.s1 - iv.s0) * k as f64 / 20.0;
                let fd = (iv.x(s - 2.0 * d) - 8.0 * iv.x(s - d) + 8.0 * iv.x(s + d)
                    - iv.x(s + 2.0 * d))
                    / (12.0 * d);
                assert!(
                    (iv.dx(s) - fd).abs() < 1e-9,
                    "s = {s}: {} vs {fd}",
                    iv.dx(s)
                );
            }
        }
    }

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
                    // the search and the bisection agree to round-off: up to 1.2e-14 relative
                    // (measured, the planar arm with cap and speed limits, world-frame RNEA)
                    assert!(
                        (x - reference).abs() <= 2e-14 * reference,
                        "s = {s}, guess {near}: {x} vs bisection {reference}"
                    );
                    let sd = x.sqrt();
                    assert!(pp.admissible(si, s, sd * sd).unwrap(), "s = {s}");
                    // just above the curve is inadmissible: 1e-14 relative in ṡ (≈ 45 ulps; the
                    // torque rows' own round-off reaches 3.4e-15 since the tree evaluates h in
                    // world coordinates, measured on this arm)
                    let above = sd / (1.0 - 1e-14);
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
