//! Limits on the path acceleration from joint torque limits, Huang (4.3.22)–(4.3.32).
//!
//! With `T = a(s) s̈ + r(s, ṡ)` ([`crate::PathDynamics::coefficients`]) and
//! `T_i^min(s, ṡ) ≤ T_i ≤ T_i^max(s, ṡ)` (4.3.23), every joint with `a_i ≠ 0` gives
//!
//! ```text
//! E_1i = T_i^min − r_i,  E_2i = T_i^max − r_i                     (4.3.26)–(4.3.27)
//! h_i = E_1i/|a_i|, γ_i = E_2i/|a_i|  (a_i > 0);   h_i = −E_2i/|a_i|, γ_i = −E_1i/|a_i|  (a_i < 0)
//! h = max_i h_i ≤ s̈ ≤ γ = min_i γ_i                                (4.3.28)–(4.3.32)
//! ```
//!
//! (4.3.29)–(4.3.30) as printed divide E by |a_i| in both branches; the sign must follow
//! a_i, as (4.3.25) shows — we implement (4.3.25).
//! A **zero-inertia** joint (`|a_i| ≤ ε‖a‖∞`, Σ_j M_ij B_j = 0) is not divided by: it does
//! not bound s̈ but demands `T_i^min ≤ r_i(s, ṡ) ≤ T_i^max`, a pure velocity constraint.

use crate::constraints::{PathConstraint, PathPoint};
use crate::dynamics::PathDynamics;
use crate::error::PlanningError;
use crate::joint_path::JointPath;
use contour_model::pool::Pool;
use contour_model::Mechanism;

/// Joint torque limits `T^min(s, ṡ) ≤ T ≤ T^max(s, ṡ)`, Huang (4.3.23).
pub trait TorqueLimits {
    /// Writes the limits at `(s, ṡ)` (`lower` and `upper` have one entry per joint).
    fn limits(&self, s: f64, sd: f64, lower: &mut [f64], upper: &mut [f64]);

    /// Checks that the limits fit a mechanism with `n` joints (default: nothing to check).
    ///
    /// Errors: [`PlanningError::DimensionMismatch`].
    fn check_dof(&self, n: usize) -> Result<(), PlanningError> {
        let _ = n;
        Ok(())
    }

    /// Whether the limits change with ṡ (default `true`, the safe answer).
    ///
    /// TOPP-RA treats limits that do not depend on ṡ as constraints linear in (s̈, ṡ²) and
    /// solves exact 2-variable LPs; limits that do are evaluated at every candidate ṡ (a
    /// search per grid point). Answering `false` for limits that do depend on ṡ is caught by
    /// the check after the solve ([`crate::PlanningError::LimitViolated`]).
    fn depends_on_speed(&self) -> bool {
        true
    }

    /// `true` for [`NoTorqueLimits`]: the torques are not limited at all (default `false`).
    fn is_unlimited(&self) -> bool {
        false
    }
}

/// No torque limits: only the constraints added with
/// [`AccelerationLimits::with_constraint`] bound the motion (joint velocity and acceleration
/// limits alone, say).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NoTorqueLimits;

impl TorqueLimits for NoTorqueLimits {
    fn limits(&self, _s: f64, _sd: f64, lower: &mut [f64], upper: &mut [f64]) {
        lower.fill(f64::NEG_INFINITY);
        upper.fill(f64::INFINITY);
    }
    fn depends_on_speed(&self) -> bool {
        false
    }
    fn is_unlimited(&self) -> bool {
        true
    }
}

/// Constant box limits (Huang (6.2.16): −1 ≤ F_x, F_y ≤ 1).
#[derive(Clone, Debug, PartialEq)]
pub struct BoxLimits {
    /// Lower limits T^min \[N or N·m\].
    pub lower: Vec<f64>,
    /// Upper limits T^max \[N or N·m\].
    pub upper: Vec<f64>,
}

impl BoxLimits {
    /// `−effort_i ≤ T_i ≤ effort_i`, e.g. from a URDF's `<limit effort>`
    /// (`contour_model::urdf::UrdfJointLimits::effort`; `f64::INFINITY` for a joint without
    /// a limit).
    pub fn from_effort(effort: &[f64]) -> Self {
        Self {
            lower: effort.iter().map(|e| -e).collect(),
            upper: effort.to_vec(),
        }
    }

    /// `−bound ≤ T_i ≤ bound` for `n` joints.
    pub fn symmetric(n: usize, bound: f64) -> Self {
        Self {
            lower: vec![-bound; n],
            upper: vec![bound; n],
        }
    }
}

impl TorqueLimits for BoxLimits {
    fn limits(&self, _s: f64, _sd: f64, lower: &mut [f64], upper: &mut [f64]) {
        // lengths are checked by `check_dof`; never panic on a mismatch here
        for (d, v) in lower.iter_mut().zip(&self.lower) {
            *d = *v;
        }
        for (d, v) in upper.iter_mut().zip(&self.upper) {
            *d = *v;
        }
    }

    fn depends_on_speed(&self) -> bool {
        false
    }

    fn check_dof(&self, n: usize) -> Result<(), PlanningError> {
        for (what, v) in [
            ("BoxLimits::lower", &self.lower),
            ("BoxLimits::upper", &self.upper),
        ] {
            if v.len() != n {
                return Err(PlanningError::DimensionMismatch {
                    what,
                    expected: n,
                    found: v.len(),
                });
            }
        }
        Ok(())
    }
}

/// Limits given by a closure `f(s, ṡ, lower, upper)` (e.g. a motor's torque–speed line).
///
/// Treated as speed-dependent ([`TorqueLimits::depends_on_speed`] is `true`).
pub struct FnLimits<F: Fn(f64, f64, &mut [f64], &mut [f64])>(pub F);

impl<F: Fn(f64, f64, &mut [f64], &mut [f64])> TorqueLimits for FnLimits<F> {
    fn limits(&self, s: f64, sd: f64, lower: &mut [f64], upper: &mut [f64]) {
        (self.0)(s, sd, lower, upper)
    }
}

/// The bounds `h(s, ṡ) ≤ s̈ ≤ γ(s, ṡ)` at one state, Huang (4.3.31).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AccelBounds {
    /// h(s, ṡ): the maximum deceleration (4.3.32).
    pub lower: f64,
    /// γ(s, ṡ): the maximum acceleration (4.3.32).
    pub upper: f64,
    /// `false` when a zero-inertia joint's velocity condition `T^min ≤ r_i ≤ T^max` fails, or
    /// when speed-dependent limits have `T^min(s, ṡ) > T^max(s, ṡ)` at this ṡ > 0.
    pub singular_ok: bool,
}

impl AccelBounds {
    /// Admissible (4.3.50): `h ≤ γ` (up to `tol`) and every zero-inertia joint satisfied.
    pub fn admissible(&self, tol: f64) -> bool {
        self.singular_ok && self.lower <= self.upper + tol
    }
}

/// Relative threshold below which `|a_i| / ‖a‖∞` counts as zero inertia.
pub const ZERO_INERTIA_TOL: f64 = 1e-10;

#[derive(Clone)]
struct Scratch {
    a: Vec<f64>,
    r: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// The last result and its `(seg, s, ṡ)` (the phase plane asks for the same state twice:
    /// the last stage of a Runge–Kutta step and the admissibility test at its end).
    last: Option<((usize, u64, u64), AccelBounds)>,
    /// q, B, B̄ of the joint path and the added constraints' rows a, b, c at `rows_key`.
    q: Vec<f64>,
    bq: Vec<f64>,
    bbar: Vec<f64>,
    ra: Vec<f64>,
    rb: Vec<f64>,
    rc: Vec<f64>,
    rows_key: Option<(usize, u64)>,
}

/// Evaluates `h(s, ṡ)` and `γ(s, ṡ)` for a mechanism on a path under torque limits.
pub struct AccelerationLimits<
    'a,
    M: Mechanism + ?Sized,
    P: JointPath + ?Sized,
    L: TorqueLimits + ?Sized,
> {
    dynamics: &'a PathDynamics<'a, M, P>,
    limits: &'a L,
    constraints: Vec<&'a dyn PathConstraint>,
    scratch: Pool<Scratch>,
}

impl<'a, M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits + ?Sized>
    AccelerationLimits<'a, M, P, L>
{
    /// Couples dynamics and limits.
    pub fn new(dynamics: &'a PathDynamics<'a, M, P>, limits: &'a L) -> Self {
        let n = dynamics.dof();
        let scratch = Scratch {
            a: vec![0.0; n],
            r: vec![0.0; n],
            lo: vec![0.0; n],
            hi: vec![0.0; n],
            last: None,
            q: vec![0.0; n],
            bq: vec![0.0; n],
            bbar: vec![0.0; n],
            ra: Vec::new(),
            rb: Vec::new(),
            rc: Vec::new(),
            rows_key: None,
        };
        Self {
            dynamics,
            limits,
            constraints: Vec::new(),
            scratch: Pool::new(scratch),
        }
    }

    /// Adds rows `a s̈ + b ṡ² + c ≤ 0` ([`crate::constraints`]: joint velocity or
    /// acceleration limits, user rows) to the torque limits.
    ///
    /// Errors: the constraint's [`PathConstraint::check_dof`] (wrong length, a limit ≤ 0 or
    /// NaN); [`PlanningError::WorkCap`] for more than
    /// [`crate::constraints::MAX_CONSTRAINT_ROWS`] rows in all.
    pub fn with_constraint(mut self, c: &'a dyn PathConstraint) -> Result<Self, PlanningError> {
        c.check_dof(self.dynamics.dof())?;
        crate::constraints::check_row_count(self.n_rows().saturating_add(c.rows()))?;
        self.constraints.push(c);
        let rows: usize = self.constraints.iter().map(|c| c.rows()).sum();
        let mut w = self.scratch.get().clone();
        w.ra = vec![0.0; rows];
        w.rb = vec![0.0; rows];
        w.rc = vec![0.0; rows];
        w.rows_key = None;
        w.last = None;
        self.scratch = Pool::new(w);
        Ok(self)
    }

    /// Whether rows were added with [`Self::with_constraint`].
    pub fn has_constraints(&self) -> bool {
        !self.constraints.is_empty()
    }

    /// The number of rows added with [`Self::with_constraint`].
    pub(crate) fn n_rows(&self) -> usize {
        self.constraints.iter().map(|c| c.rows()).sum()
    }

    /// Calls `f(a, b, c)` with the added rows at `(seg, s)` (cached for the last `(seg, s)`).
    ///
    /// Errors: the joint path's, [`PlanningError::NonFinite`] for a NaN/∞ coefficient.
    pub fn rows_at<R>(
        &self,
        seg: usize,
        s: f64,
        f: impl FnOnce(&[f64], &[f64], &[f64]) -> R,
    ) -> Result<R, PlanningError> {
        self.dynamics.joint_path().path().check_on(seg, s)?;
        let mut guard = self.scratch.get();
        let w = &mut *guard;
        Self::fill_rows(&self.constraints, self.dynamics, w, seg, s)?;
        Ok(f(&w.ra, &w.rb, &w.rc))
    }

    /// The speed cap ṡ² ≤ min_k(−c_k/b_k) of the added rows with `a_k = 0` and `b_k > 0` at
    /// `(seg, s)` (+∞ without such rows; negative when a row excludes even ṡ = 0) — joint
    /// velocity limits, handed to the phase plane as a speed cap.
    ///
    /// Errors: those of [`Self::rows_at`].
    pub fn velocity_cap2(&self, seg: usize, s: f64) -> Result<f64, PlanningError> {
        self.dynamics.joint_path().path().check_on(seg, s)?;
        if self.constraints.is_empty() {
            return Ok(f64::INFINITY);
        }
        self.rows_at(seg, s, |a, b, c| {
            (0..a.len())
                .filter(|&k| a[k] == 0.0 && b[k] > 0.0)
                .fold(f64::INFINITY, |m, k| m.min(-c[k] / b[k]))
        })
    }

    fn fill_rows(
        constraints: &[&'a dyn PathConstraint],
        dynamics: &PathDynamics<'a, M, P>,
        w: &mut Scratch,
        seg: usize,
        s: f64,
    ) -> Result<(), PlanningError> {
        let key = (seg, s.to_bits());
        if constraints.is_empty() || w.rows_key == Some(key) {
            return Ok(());
        }
        w.rows_key = None;
        dynamics
            .joint_path()
            .eval(seg, s, &mut w.q, &mut w.bq, &mut w.bbar)?;
        let p = PathPoint {
            s,
            segment: seg,
            q: &w.q,
            b: &w.bq,
            bbar: &w.bbar,
        };
        let mut k = 0;
        for c in constraints {
            let m = c.rows();
            c.eval(
                &p,
                &mut w.ra[k..k + m],
                &mut w.rb[k..k + m],
                &mut w.rc[k..k + m],
            );
            k += m;
        }
        if w.ra
            .iter()
            .chain(&w.rb)
            .chain(&w.rc)
            .any(|v| !v.is_finite())
        {
            return Err(PlanningError::NonFinite {
                what: "constraint rows a, b, c",
            });
        }
        w.rows_key = Some(key);
        Ok(())
    }

    /// The error for a bound on s̈ that is infinite at `(seg, s)`: where the path moves
    /// (B ≠ 0) no limit bounds the acceleration ([`PlanningError::UnboundedAcceleration`]:
    /// velocity limits alone); where it stands still (B = 0) the tangent is degenerate
    /// ([`PlanningError::DegenerateTangent`]). Allocates (an error path only).
    pub(crate) fn unbounded_error(&self, seg: usize, s: f64) -> PlanningError {
        let n = self.dynamics.dof();
        let (mut q, mut b, mut bb) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let moves = self
            .dynamics
            .joint_path()
            .eval(seg, s, &mut q, &mut b, &mut bb)
            .is_ok_and(|()| b.iter().any(|v| *v != 0.0));
        if moves {
            PlanningError::UnboundedAcceleration { s }
        } else {
            PlanningError::DegenerateTangent { s }
        }
    }

    /// The path dynamics.
    pub fn dynamics(&self) -> &PathDynamics<'a, M, P> {
        self.dynamics
    }

    /// The torque limits.
    pub fn torque_limits(&self) -> &L {
        self.limits
    }

    /// [`Self::bounds`] at ṡ = 0 (its checks and errors), and the torque coefficients of
    /// that evaluation: `a = M B` and `c = r(s, 0)` (`T = a s̈ + c` at rest), bit for bit
    /// what [`PathDynamics::coefficients`] gives at ṡ = 0 (zeros without torque limits).
    pub(crate) fn bounds_coefficients(
        &self,
        seg: usize,
        s: f64,
        a: &mut [f64],
        c: &mut [f64],
    ) -> Result<AccelBounds, PlanningError> {
        let torque = !self.limits.is_unlimited();
        let mut guard = self.scratch.get();
        let w = &mut *guard;
        if torque {
            // a fresh evaluation (the remembered result would not refresh a and r)
            w.last = None;
        }
        let b = self.bounds_in(w, seg, s, 0.0)?;
        if torque && a.len() == w.a.len() && c.len() == w.r.len() {
            a.copy_from_slice(&w.a);
            c.copy_from_slice(&w.r);
        } else {
            a.fill(0.0);
            c.fill(0.0);
        }
        Ok(b)
    }

    /// `h(s, ṡ)`, `γ(s, ṡ)` on segment `seg`, Huang (4.3.25)–(4.3.32).
    ///
    /// The last result is remembered: asking again for the same `(seg, s, ṡ)` (the last stage
    /// of a Runge–Kutta step and the admissibility test at its end) costs nothing.
    ///
    /// Errors: [`PlanningError::InvertedTorqueLimits`] when `T^min > T^max` at ṡ = 0 (bad
    /// input; at ṡ > 0 crossing limits only make the state inadmissible),
    /// [`PlanningError::InvalidParameter`] (`"torque limit"`) when a limit is NaN, a lower
    /// limit +∞ or an upper limit −∞ (−∞ and +∞ on their own side are "no limit"),
    /// [`PlanningError::DegenerateTangent`] when every joint has zero inertia (M B = 0),
    /// [`PlanningError::DimensionMismatch`] when the limits do not fit the joint count (an
    /// entry the limits leave unwritten is NaN: [`PlanningError::InvalidParameter`]),
    /// [`PlanningError::SegmentIndex`] / [`PlanningError::OutOfRange`] for a `seg` or `s` off
    /// the path ([`crate::Path::check_on`]), [`PlanningError::NonFinite`] for a NaN ṡ.
    pub fn bounds(&self, seg: usize, s: f64, sd: f64) -> Result<AccelBounds, PlanningError> {
        let mut guard = self.scratch.get();
        self.bounds_in(&mut guard, seg, s, sd)
    }

    /// [`Self::bounds`] on the workspace `w` (left holding `a` and `r` of the evaluation).
    fn bounds_in(
        &self,
        w: &mut Scratch,
        seg: usize,
        s: f64,
        sd: f64,
    ) -> Result<AccelBounds, PlanningError> {
        self.dynamics.joint_path().path().check_on(seg, s)?;
        if !sd.is_finite() {
            return Err(PlanningError::NonFinite { what: "s or sdot" });
        }
        let key = (seg, s.to_bits(), sd.to_bits());
        if let Some((k, b)) = w.last {
            if k == key {
                return Ok(b);
            }
        }
        w.last = None;
        self.limits.check_dof(w.a.len())?;
        let torque = !self.limits.is_unlimited();
        if torque {
            self.dynamics.coefficients(seg, s, sd, &mut w.a, &mut w.r)?;
            // an entry the limits leave unwritten stays NaN and is refused below
            w.lo.fill(f64::NAN);
            w.hi.fill(f64::NAN);
            self.limits.limits(s, sd, &mut w.lo, &mut w.hi);
        } else if !s.is_finite() || !sd.is_finite() {
            return Err(PlanningError::NonFinite { what: "s or sdot" });
        }
        let b = self.bounds_from(w, seg, s, sd, torque)?;
        w.last = Some((key, b));
        Ok(b)
    }

    /// [`Self::bounds`] at ṡ = 0 (its checks and errors) from the coefficients of
    /// [`PathDynamics::path_coefficients`]: `T = a s̈ + b ṡ² + c` (Huang (4.3.24)) into `a`,
    /// `b`, `c` (zeros without torque limits), with one evaluation of the mechanism's path
    /// terms (no mass matrix for a [`contour_model::tree::KinematicTree`]). Equal to
    /// [`Self::bounds_coefficients`] followed by [`PathDynamics::speed_coefficient`] up to
    /// round-off (bit for bit for a mechanism without
    /// [`Mechanism::fast_path_coefficients`]). Not remembered (the phase plane's bounds come
    /// from [`PathDynamics::coefficients`]).
    pub(crate) fn bounds_path_coefficients(
        &self,
        seg: usize,
        s: f64,
        a: &mut [f64],
        b: &mut [f64],
        c: &mut [f64],
    ) -> Result<AccelBounds, PlanningError> {
        let mut guard = self.scratch.get();
        let w = &mut *guard;
        w.last = None; // w.a and w.r are overwritten
        self.limits.check_dof(w.a.len())?;
        let torque = !self.limits.is_unlimited();
        if torque {
            // r(s, 0) = c
            self.dynamics
                .path_coefficients(seg, s, &mut w.a, b, &mut w.r)?;
            w.lo.fill(f64::NAN);
            w.hi.fill(f64::NAN);
            self.limits.limits(s, 0.0, &mut w.lo, &mut w.hi);
        } else if !s.is_finite() {
            return Err(PlanningError::NonFinite { what: "s or sdot" });
        }
        let bounds = self.bounds_from(w, seg, s, 0.0, torque)?;
        if torque && a.len() == w.a.len() && c.len() == w.r.len() {
            if b.iter().any(|v| !v.is_finite()) {
                return Err(PlanningError::NonFinite {
                    what: "path dynamics a(s) or r(s, sdot)",
                });
            }
            a.copy_from_slice(&w.a);
            c.copy_from_slice(&w.r);
        } else {
            a.fill(0.0);
            b.fill(0.0);
            c.fill(0.0);
        }
        Ok(bounds)
    }

    /// The checks and the bounds of [`Self::bounds`] from the torque coefficients `w.a`,
    /// `w.r` and limits `w.lo`, `w.hi` at `(seg, s, ṡ)` and the added rows, Huang
    /// (4.3.25)–(4.3.32). Inlined: the phase plane's [`Self::bounds`] keeps its former code.
    #[inline(always)]
    fn bounds_from(
        &self,
        w: &mut Scratch,
        seg: usize,
        s: f64,
        sd: f64,
        torque: bool,
    ) -> Result<AccelBounds, PlanningError> {
        let mut lower = f64::NEG_INFINITY;
        let mut upper = f64::INFINITY;
        let mut singular_ok = true;
        let amax = w.a.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        if torque && (amax.is_nan() || amax <= 0.0) {
            return Err(PlanningError::DegenerateTangent { s });
        }
        // the added rows a s̈ + b ṡ² + c ≤ 0: a > 0 bounds s̈ above, a < 0 below, a = 0 is a
        // velocity condition (never divided by)
        Self::fill_rows(&self.constraints, self.dynamics, w, seg, s)?;
        let x = sd * sd;
        for k in 0..w.ra.len() {
            let (a, rest) = (w.ra[k], w.rb[k] * x + w.rc[k]);
            if a > 0.0 {
                upper = upper.min(-rest / a);
            } else if a < 0.0 {
                lower = lower.max(-rest / a);
            } else if rest > 1e-12 * ((w.rb[k] * x).abs() + w.rc[k].abs()) {
                singular_ok = false;
            }
        }
        for i in 0..if torque { w.a.len() } else { 0 } {
            let (lo, hi) = (w.lo[i], w.hi[i]);
            if lo.is_nan() || hi.is_nan() || lo == f64::INFINITY || hi == f64::NEG_INFINITY {
                // T^min = −∞ and T^max = +∞ are "no limit" on the joint (its h_i, γ_i are
                // ∓∞ below); NaN is an unwritten entry
                return Err(PlanningError::InvalidParameter {
                    name: "torque limit",
                    value: if lo.is_nan() || lo == f64::INFINITY {
                        lo
                    } else {
                        hi
                    },
                    expected: "lower < +inf, upper > -inf (-inf/+inf for no limit), written for every joint",
                });
            }
            if !(w.a[i].is_finite() && w.r[i].is_finite()) {
                return Err(PlanningError::NonFinite {
                    what: "path dynamics a(s) or r(s, sdot)",
                });
            }
            if lo > hi {
                if sd == 0.0 {
                    return Err(PlanningError::InvertedTorqueLimits {
                        joint: i,
                        s,
                        lower: lo,
                        upper: hi,
                    });
                }
                // speed-dependent limits that cross at this ṡ: the state is inadmissible
                singular_ok = false;
            }
            let ai = w.a[i];
            let e1 = lo - w.r[i]; // (4.3.26)
            let e2 = hi - w.r[i]; // (4.3.27)
            if ai.abs() <= ZERO_INERTIA_TOL * amax {
                // zero inertia: 0 ≤ E_2i and E_1i ≤ 0, a condition on ṡ only
                let tol = 1e-12 * (1.0 + lo.abs() + hi.abs());
                if e1 > tol || e2 < -tol {
                    singular_ok = false;
                }
                continue;
            }
            // (4.3.25), (4.3.29)–(4.3.30)
            let (hi_i, gi) = if ai > 0.0 {
                (e1 / ai, e2 / ai)
            } else {
                (e2 / ai, e1 / ai)
            };
            lower = lower.max(hi_i);
            upper = upper.min(gi);
        }
        Ok(AccelBounds {
            lower,
            upper,
            singular_ok,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::joint_path::CartesianJointPath;
    use contour_model::models::HuangCartesianRobot;

    /// The remembered result is returned only for the same `(seg, s, ṡ)`: at the entry of the
    /// arc (same s, other segment) and at another ṡ the bounds are those of a fresh evaluator.
    #[test]
    fn remembered_bounds_are_keyed_by_segment_and_state() {
        let cp = crate::ContourTask::huang().continuous_slope_path().unwrap();
        let robot = HuangCartesianRobot::default();
        let jp = CartesianJointPath::new(cp.path.clone());
        let d = PathDynamics::new(&robot, &jp).unwrap();
        let lim = BoxLimits::symmetric(2, 1.0);
        let acc = AccelerationLimits::new(&d, &lim);
        let fresh = |seg: usize, s: f64, sd: f64| {
            let d = PathDynamics::new(&robot, &jp).unwrap();
            AccelerationLimits::new(&d, &lim)
                .bounds(seg, s, sd)
                .unwrap()
        };
        let s1 = cp.s1;
        let calls = [
            (0, s1, 0.2),
            (0, s1, 0.2),
            (1, s1, 0.2),
            (1, s1, 0.25),
            (0, s1, 0.2),
        ];
        for (seg, s, sd) in calls {
            assert_eq!(acc.bounds(seg, s, sd).unwrap(), fresh(seg, s, sd));
        }
        // the arc's contact force changes the bounds across s1
        assert_ne!(fresh(0, s1, 0.2), fresh(1, s1, 0.2));
    }
}
