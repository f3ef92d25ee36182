//! Time-optimal path parameterization by reachability analysis (TOPP-RA, Pham & Pham,
//! IEEE T-RO 2018), an algorithm independent of the phase-plane search, used as a cross-check.
//!
//! On a grid `s_0 < … < s_N` with `x_i = ṡ²(s_i)` and `u_i = s̈` constant on `[s_i, s_{i+1}]`:
//!
//! ```text
//! x_{i+1} = x_i + 2 Δ_i u_i
//! T^min ≤ a(s_i) u_i + b(s_i) x_i + c(s_i) ≤ T^max                 (T = a s̈ + b ṡ² + c, (4.3.24))
//! T^min ≤ a(s_{i+1}) u_i + b(s_{i+1}) x_{i+1} + c(s_{i+1}) ≤ T^max  (interpolation, speed-free limits)
//! K_N = {0};  K_i = { x ≥ 0 : ∃u, constraints at i, x + 2Δ_i u ∈ K_{i+1} }   (backward pass)
//! x_0 = 0;  u_i = max{u : constraints at i, x_i + 2Δ_i u ∈ K_{i+1}}            (forward pass)
//! ```
//!
//! * **Limits that do not depend on ṡ** ([`TorqueLimits::depends_on_speed`] `false`): the
//!   constraints are linear in (u, x); each K_i comes from two 2-variable LPs solved exactly
//!   (the ends of the x-range by Newton's iteration on the gap between the bounds on u, which
//!   lands on the Fourier–Motzkin bound of the active pair; the full elimination of u as the
//!   fallback), with the constraints imposed at both ends of every interval
//!   (toppra's "interpolation" discretization), so the profile breaks the limits between grid
//!   points only at second order in Δ.
//! * **Limits that depend on ṡ** (`FnLimits`, a motor's torque–speed line, a friction-circle
//!   cap): the constraints at s_i are evaluated at the candidate ṡ = √x itself — for a fixed x
//!   the admissible u form an interval — and K_i is found by a search in x (a doubling, a
//!   golden-section search for a feasible x, bisection of both ends). Nothing is linearised at
//!   ṡ = 0 (which gave times below the true minimum).
//!
//! **Every solve is checked** against the true limits: the inverse dynamics T(s, ṡ, s̈) of the
//! profile at every grid point (both ends of every interval) must meet the limits to 1e-9
//! relative, and at every interval's midpoint to [`ToppraConfig::violation_tol`]; otherwise
//! the result is refused ([`PlanningError::LimitViolated`]). The largest relative violation
//! found is returned ([`ToppraSolution::max_violation`]).
//!
//! The grid includes every segment breakpoint and rest point; interval i uses the segment that
//! starts at s_i; at a corner of the joint path (B discontinuous) the set is {0}, as in the
//! phase plane. Assumption: `r(s, ṡ) = b(s) ṡ² + c(s)` (true when h is quadratic in q̇:
//! Coriolis, centripetal, gravity) — the check catches a mechanism for which it is false. The
//! discretization is first order: the time converges like O(Δ) to the phase-plane answer.

use crate::error::PlanningError;
use crate::joint_path::JointPath;
use crate::limits::{AccelerationLimits, TorqueLimits, ZERO_INERTIA_TOL};
use crate::validation::{self, checked_speed_cap};
use contour_model::Mechanism;
use std::sync::Arc;

/// Largest number of path coefficients a TOPP-RA solve stores, `(6 dof + 3 rows + 1)` per grid
/// point (`rows` those added with [`crate::AccelerationLimits::with_constraint`]): 1e8 numbers,
/// 0.8 GB. The default grid of 2000 intervals allows about 8000 rows on a 6-joint arm.
pub const MAX_TOPPRA_COEFFICIENTS: f64 = 1e8;

/// Options of [`Toppra`].
#[derive(Clone)]
pub struct ToppraConfig {
    /// Total number of grid intervals over the whole path (default 2000). They are shared
    /// among the pieces between breakpoints and rest points in proportion to their length,
    /// at least one each (so `intervals` must be at least the number of pieces), by the
    /// largest remainder: each piece gets the whole part of its share, and the intervals left
    /// over go one each to the pieces with the largest fractional parts.
    pub intervals: usize,
    /// Parameters where the motion must be at rest (as for the phase plane).
    pub rest_points: Vec<f64>,
    /// Optional speed cap ṡ ≤ cap(s).
    pub speed_cap: Option<Arc<dyn Fn(f64) -> f64 + Send + Sync>>,
    /// Path-versus-constraint check before solving, as for the phase plane (default `Some(1e-9)`).
    pub feasibility_tol: Option<f64>,
    /// Largest accepted violation of a limit between the grid points (the midpoints of the
    /// intervals and, for speed-dependent limits, the right ends), relative to the size of the
    /// limit (default 1e-2; at the grid points the check is 1e-9). TOPP-RA imposes the limits
    /// at grid points only: between them a profile is feasible up to the discretization
    /// error, O(Δ²) for speed-free limits, O(Δ) for speed-dependent ones.
    pub violation_tol: f64,
}

impl Default for ToppraConfig {
    fn default() -> Self {
        Self {
            intervals: 2000,
            rest_points: Vec::new(),
            speed_cap: None,
            feasibility_tol: Some(1e-9),
            violation_tol: 1e-2,
        }
    }
}

/// Relative violation accepted at the grid points, where the limits are imposed exactly.
pub const GRID_VIOLATION_TOL: f64 = 1e-9;

/// The round-off slack of a joint's limits `lo ≤ T ≤ hi` in the solve and its check,
/// `1e-12 (1 + |lo| + |hi|)` (absolute): the solve accepts a torque within it of a limit (a
/// zero-inertia joint's condition on `ṡ²` alone, Huang (4.3.32), and the right end of an
/// interval), and the check does not count it as a violation. Without it a limit that closes
/// to zero at the binding speed (`ṡ − 1 ≤ T ≤ 1 − ṡ`) turns an overshoot of 1e-12 into a
/// relative violation of 1.
/// An infinite limit ("no limit" on its side) adds no slack.
fn limit_slack(lo: f64, hi: f64) -> f64 {
    1e-12 * (1.0 + finite_abs(lo) + finite_abs(hi))
}

/// `|v|` for a finite `v`, 0 for ±∞ (a side without a limit has no size).
fn finite_abs(v: f64) -> f64 {
    if v.is_finite() {
        v.abs()
    } else {
        0.0
    }
}

impl ToppraConfig {
    /// Checks the configuration before any work is done ([`Toppra::solve`] calls it):
    /// `intervals ≥ 1`, `feasibility_tol` finite and ≥ 0, `violation_tol` in \[1e-12, 1\],
    /// rest points finite. The grid size (at most [`validation::MAX_TOPPRA_GRID`]) and the
    /// number of pieces are checked by `solve`, which knows the path; the speed cap where it
    /// is evaluated.
    ///
    /// Errors: [`PlanningError::InvalidParameter`], [`PlanningError::NonFinite`].
    pub fn validate(&self) -> Result<(), PlanningError> {
        if self.intervals == 0 {
            return Err(PlanningError::InvalidParameter {
                name: "intervals",
                value: 0.0,
                expected: ">= 1",
            });
        }
        validation::feasibility_tol(self.feasibility_tol)?;
        validation::in_range(
            "violation_tol",
            self.violation_tol,
            1e-12,
            1.0,
            "in [1e-12, 1]",
        )?;
        if self.rest_points.iter().any(|v| !v.is_finite()) {
            return Err(PlanningError::NonFinite {
                what: "rest points",
            });
        }
        Ok(())
    }
}

/// Result of TOPP-RA.
#[derive(Clone, Debug)]
pub struct ToppraSolution {
    /// Grid.
    pub s: Vec<f64>,
    /// ṡ at the grid points.
    pub sd: Vec<f64>,
    /// s̈ on each interval (one fewer than the grid points).
    pub sdd: Vec<f64>,
    /// Total time \[s\].
    pub total_time: f64,
    /// Times of the pieces between rest points.
    pub piece_times: Vec<f64>,
    /// Largest violation of a limit found by the check after the solve (grid points and
    /// midpoints), relative to the size of the limit (0 when the profile is feasible there).
    pub max_violation: f64,
}

/// One solved piece: grid, x = ṡ² at the grid points, s̈ on the intervals, and what the check
/// reuses (the coefficients, the segment of each interval, the slot of each right end).
struct Piece {
    grid: Vec<f64>,
    x: Vec<f64>,
    u: Vec<f64>,
    st: Coeffs,
    segs: Vec<usize>,
    right_slot: Vec<usize>,
}

/// Half-plane `p·(u, x) ≤ q`.
#[derive(Clone, Copy)]
struct Half {
    pu: f64,
    px: f64,
    q: f64,
}

const BIG: f64 = 1e12;

/// A bound on u of a half-plane with `pu ≠ 0`: `u ≤ c − d x` (upper) or `u ≥ c − d x`.
#[derive(Clone, Copy)]
struct Line {
    c: f64,
    d: f64,
    upper: bool,
}

/// The tightest upper bound U(x) = min (c − d x) and lower bound L(x) = max (c − d x) on u at
/// `x`, with the lines that attain them.
fn envelope(lines: &[Line], x: f64) -> (f64, usize, f64, usize) {
    let (mut up, mut iu, mut low, mut il) = (f64::INFINITY, 0, f64::NEG_INFINITY, 0);
    for (k, l) in lines.iter().enumerate() {
        let v = l.c - l.d * x;
        if l.upper {
            if v < up {
                (up, iu) = (v, k);
            }
        } else if v > low {
            (low, il) = (v, k);
        }
    }
    (up, iu, low, il)
}

/// min and max of x over the polygon ∩ halfplanes (None when empty).
///
/// The feasible x are those where the gap U(x) − L(x) between the tightest upper and lower
/// bounds on u is ≥ 0; the gap is concave and piecewise linear, so Newton's iteration on it
/// from an end of the x-only range (rows with `pu = 0`) steps to the root of the active pair
/// of lines and ends, after a few steps, on the root of the pair that bounds x: the same
/// pair, and the same arithmetic, `(c_i − c_j)/(d_i − d_j)`, that the Fourier–Motzkin
/// elimination of u over every pair ([`lp_x_range_fm`], O(P·N)) takes its bound from — the
/// result equals it up to round-off in near-ties. An infeasible polygon, a stall, parallel
/// active lines or NaN hand the problem to the elimination (so "empty" is decided as before).
/// `lines` is scratch (no allocation once it has grown).
fn lp_x_range(hs: &[Half], lines: &mut Vec<Line>) -> Option<(f64, f64)> {
    lp_x_range_newton(hs, lines).or_else(|| lp_x_range_fm(hs))
}

/// The x-range of [`lp_x_range`] by Newton's iteration alone: `None` where it cannot tell (an
/// x-only row that is violated outright, an empty or unbounded x-only range, no end found,
/// ends that cross), which [`lp_x_range`] hands to the elimination.
fn lp_x_range_newton(hs: &[Half], lines: &mut Vec<Line>) -> Option<(f64, f64)> {
    let mut lo0 = f64::NEG_INFINITY;
    let mut hi0 = f64::INFINITY;
    lines.clear();
    for h in hs {
        if h.pu == 0.0 {
            // px x ≤ q, as the elimination's `bound(−px, q)`
            if h.px > 0.0 {
                hi0 = hi0.min(h.q / h.px);
            } else if h.px < 0.0 {
                lo0 = lo0.max(h.q / h.px);
            } else if h.q < -1e-9 * (1.0 + h.q.abs()) {
                return None;
            }
        } else {
            lines.push(Line {
                c: h.q / h.pu,
                d: h.px / h.pu,
                upper: h.pu > 0.0,
            });
        }
    }
    let lo0 = lo0.max(0.0);
    if lo0 > hi0 || !hi0.is_finite() {
        return None;
    }
    // the largest feasible x: from hi0 down; the smallest: from lo0 up to it
    let hi = newton_end(lines, hi0, lo0, true)?;
    match newton_end(lines, lo0, hi, false) {
        Some(lo) if lo <= hi => Some((lo, hi)),
        _ => None,
    }
}

/// One end of the feasible x of [`lp_x_range`]: Newton's iteration on the gap from `x0`
/// (downward from the top of the x-only range when `down`, else upward), never past `limit`.
/// `None` when it cannot tell (infeasible, parallel active lines, NaN, no end in 64 steps).
fn newton_end(lines: &[Line], x0: f64, limit: f64, down: bool) -> Option<f64> {
    let mut x = x0;
    for _ in 0..64 {
        let (up, iu, low, il) = envelope(lines, x);
        let gap = up - low;
        if gap >= 0.0 {
            return Some(x);
        }
        let (ui, lj) = (lines[iu], lines[il]);
        // the active pair (i, j) bounds x by (c_i − c_j) + x (d_j − d_i) ≥ 0: its root, the
        // elimination's bound of that pair, is an end when the slope points the right way
        let (alpha, beta) = (lj.d - ui.d, ui.c - lj.c);
        let next = if (down && alpha < 0.0) || (!down && alpha > 0.0) {
            -beta / alpha
        } else {
            f64::NAN
        };
        let (ahead, within, stall) = if down {
            (next < x, next >= limit, next >= x)
        } else {
            (next > x, next <= limit, next <= x)
        };
        if ahead && within {
            x = next;
        } else if stall && gap >= -1e-12 * (up.abs() + low.abs()) {
            // round-off at the root
            return Some(x);
        } else {
            return None;
        }
    }
    None
}

/// min and max of x over the polygon ∩ halfplanes (None when empty), by Fourier–Motzkin
/// elimination of u: every pair of an upper bound on u (`pu > 0`) and a lower bound
/// (`pu < 0`) gives a condition `α x + β ≥ 0`, rows without u bound x directly. Exact (no
/// iteration), O(P·N) for P upper and N lower bounds on u (vertex enumeration was O(H³)).
fn lp_x_range_fm(hs: &[Half]) -> Option<(f64, f64)> {
    let mut lo = f64::NEG_INFINITY;
    let mut hi = f64::INFINITY;
    let mut bound = |alpha: f64, beta: f64| -> bool {
        // α x + β ≥ 0
        if alpha > 0.0 {
            lo = lo.max(-beta / alpha);
        } else if alpha < 0.0 {
            hi = hi.min(beta / -alpha);
        } else if beta < -1e-9 * (1.0 + beta.abs()) {
            return false;
        }
        true
    };
    for h in hs {
        if h.pu == 0.0 && !bound(-h.px, h.q) {
            return None;
        }
    }
    for i in hs.iter().filter(|h| h.pu > 0.0) {
        // u ≤ (q_i − px_i x)/pu_i
        let (ci, di) = (i.q / i.pu, i.px / i.pu);
        for j in hs.iter().filter(|h| h.pu < 0.0) {
            // u ≥ (q_j − px_j x)/pu_j: (q_i/pu_i − q_j/pu_j) + x (px_j/pu_j − px_i/pu_i) ≥ 0
            if !bound(j.px / j.pu - di, ci - j.q / j.pu) {
                return None;
            }
        }
    }
    let lo = lo.max(0.0);
    if lo <= hi {
        Some((lo, hi))
    } else if lo - hi <= 1e-9 * (1.0 + lo.abs() + hi.abs()) {
        let m = 0.5 * (lo + hi);
        Some((m, m))
    } else {
        None
    }
}

/// TOPP-RA solver.
pub struct Toppra<'l, 'a, M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits + ?Sized> {
    lim: &'l AccelerationLimits<'a, M, P, L>,
    cfg: ToppraConfig,
}

/// `T = a s̈ + b ṡ² + c` and the limits (at ṡ = 0) at one point of one segment: a view of
/// one slot of [`Coeffs`].
#[derive(Clone, Copy)]
struct Coeff<'c> {
    a: &'c [f64],
    b: &'c [f64],
    c: &'c [f64],
    lo: &'c [f64],
    hi: &'c [f64],
    cap2: f64,
    /// Added rows a u + b x + c ≤ 0 ([`crate::constraints`]).
    ra: &'c [f64],
    rb: &'c [f64],
    rc: &'c [f64],
}

/// The coefficients of every point of a piece in flat arrays (slot k at `k n .. (k + 1) n`
/// for the N joints, `k r .. (k + 1) r` for the r added rows): allocated once per piece,
/// nothing per grid point.
struct Coeffs {
    n: usize,
    r: usize,
    a: Vec<f64>,
    /// `a = M B` before the zero-inertia rounding (the check's T at a second s̈).
    a_raw: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    cap2: Vec<f64>,
    ra: Vec<f64>,
    rb: Vec<f64>,
    rc: Vec<f64>,
}

impl Coeffs {
    fn new(n: usize, r: usize, slots: usize) -> Self {
        Self {
            n,
            r,
            a: vec![0.0; n * slots],
            a_raw: vec![0.0; n * slots],
            b: vec![0.0; n * slots],
            c: vec![0.0; n * slots],
            lo: vec![0.0; n * slots],
            hi: vec![0.0; n * slots],
            cap2: vec![0.0; slots],
            ra: vec![0.0; r * slots],
            rb: vec![0.0; r * slots],
            rc: vec![0.0; r * slots],
        }
    }

    fn at(&self, k: usize) -> Coeff<'_> {
        let (j, r) = (k * self.n..(k + 1) * self.n, k * self.r..(k + 1) * self.r);
        Coeff {
            a: &self.a[j.clone()],
            b: &self.b[j.clone()],
            c: &self.c[j.clone()],
            lo: &self.lo[j.clone()],
            hi: &self.hi[j],
            cap2: self.cap2[k],
            ra: &self.ra[r.clone()],
            rb: &self.rb[r.clone()],
            rc: &self.rc[r],
        }
    }
}

/// The admissible s̈ at one grid point for a given x = ṡ², intersected with the s̈ that reach
/// `next` (an interval; empty when `lo > hi`). `lo`, `hi` are the torque limits at ṡ = √x.
fn u_range(k: Coeff<'_>, lo: &[f64], hi: &[f64], x: f64, dlt: f64, next: (f64, f64)) -> (f64, f64) {
    let mut ul = (next.0 - x) / (2.0 * dlt);
    let mut uh = (next.1 - x) / (2.0 * dlt);
    if x > k.cap2 {
        return (1.0, -1.0);
    }
    for j in 0..k.a.len() {
        let l = lo[j] - k.c[j] - k.b[j] * x;
        let h = hi[j] - k.c[j] - k.b[j] * x;
        if k.a[j] > 0.0 {
            ul = ul.max(l / k.a[j]);
            uh = uh.min(h / k.a[j]);
        } else if k.a[j] < 0.0 {
            ul = ul.max(h / k.a[j]);
            uh = uh.min(l / k.a[j]);
        } else {
            // zero inertia: a condition on x alone, Huang (4.3.32)
            let tol = limit_slack(lo[j], hi[j]);
            if l > tol || h < -tol {
                return (1.0, -1.0);
            }
        }
    }
    for r in 0..k.ra.len() {
        // added rows a u + b x + c ≤ 0; a = 0 is a condition on x alone
        let rest = k.rb[r] * x + k.rc[r];
        if k.ra[r] > 0.0 {
            uh = uh.min(-rest / k.ra[r]);
        } else if k.ra[r] < 0.0 {
            ul = ul.max(-rest / k.ra[r]);
        } else if rest > 1e-12 * ((k.rb[r] * x).abs() + k.rc[r].abs()) {
            return (1.0, -1.0);
        }
    }
    (ul, uh)
}

impl<'l, 'a, M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits + ?Sized>
    Toppra<'l, 'a, M, P, L>
{
    /// A solver with the given configuration.
    pub fn new(lim: &'l AccelerationLimits<'a, M, P, L>, cfg: ToppraConfig) -> Self {
        Self { lim, cfg }
    }

    /// Fills slot `k` of `st` with the coefficients at `(seg, s)`: the phase plane's checks,
    /// so that both solvers reject the same inputs with the same variants (limits' length,
    /// NaN/∞ limits, inverted limits, M B = 0), and a = M B, b, c of T = a s̈ + b ṡ² + c
    /// (Huang (4.3.24)) from one evaluation of the path terms
    /// ([`PathDynamics::path_coefficients`](crate::PathDynamics)). No allocation.
    fn coeff(&self, seg: usize, s: f64, st: &mut Coeffs, k: usize) -> Result<(), PlanningError> {
        let (n, nr) = (st.n, st.r);
        let j = k * n..(k + 1) * n;
        let a = &mut st.a[j.clone()];
        let c = &mut st.c[j.clone()];
        let b = &mut st.b[j.clone()];
        let (lo, hi) = (&mut st.lo[j.clone()], &mut st.hi[j.clone()]);
        if self.lim.torque_limits().is_unlimited() {
            // no torque rows: −1 ≤ 0 ≤ 1 (the checks of `bounds` still run)
            let bounds = self.lim.bounds_coefficients(seg, s, a, c)?;
            check_bounded(self.lim, seg, s, bounds)?;
            a.fill(0.0);
            b.fill(0.0);
            c.fill(0.0);
            lo.fill(-1.0);
            hi.fill(1.0);
            st.a_raw[j].fill(0.0);
        } else {
            let bounds = self.lim.bounds_path_coefficients(seg, s, a, b, c)?;
            check_bounded(self.lim, seg, s, bounds)?;
            self.lim.torque_limits().limits(s, 0.0, lo, hi);
            st.a_raw[j].copy_from_slice(a);
            let amax = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            for v in a.iter_mut() {
                if v.abs() <= ZERO_INERTIA_TOL * amax {
                    *v = 0.0;
                }
            }
        }
        let rr = k * nr..(k + 1) * nr;
        let (ra, rb, rc) = (
            &mut st.ra[rr.clone()],
            &mut st.rb[rr.clone()],
            &mut st.rc[rr],
        );
        self.lim.rows_at(seg, s, |a, b, c| {
            ra.copy_from_slice(a);
            rb.copy_from_slice(b);
            rc.copy_from_slice(c);
        })?;
        let cap2 = match &self.cfg.speed_cap {
            Some(f) => checked_speed_cap(f(s))?.powi(2),
            None => BIG,
        };
        st.cap2[k] = cap2.min(BIG);
        Ok(())
    }

    /// Constraints at s_i (`k`) and, with `kr`, at s_{i+1} with x_{i+1} = x + 2Δu, as
    /// half-planes in (u, x) (speed-free limits).
    fn halves(hs: &mut Vec<Half>, k: Coeff<'_>, kr: Coeff<'_>, dlt: f64, next: (f64, f64)) {
        hs.clear();
        for j in 0..k.a.len() {
            // an infinite torque limit (no limit on that side) gives no half-plane
            let mut push = |h: Half| {
                if h.q != f64::INFINITY {
                    hs.push(h);
                }
            };
            // a u + b x + c ≤ T^max, −(a u + b x + c) ≤ −T^min  (4.3.24)
            push(Half {
                pu: k.a[j],
                px: k.b[j],
                q: k.hi[j] - k.c[j],
            });
            push(Half {
                pu: -k.a[j],
                px: -k.b[j],
                q: -(k.lo[j] - k.c[j]),
            });
            // at s_{i+1}: a' u + b' (x + 2Δu) + c' within the limits
            let pu = kr.a[j] + 2.0 * dlt * kr.b[j];
            push(Half {
                pu,
                px: kr.b[j],
                q: kr.hi[j] - kr.c[j],
            });
            push(Half {
                pu: -pu,
                px: -kr.b[j],
                q: -(kr.lo[j] - kr.c[j]),
            });
        }
        for r in 0..k.ra.len() {
            // added rows at s_i: a u + b x ≤ −c; at s_{i+1}: (a' + 2Δb') u + b' x ≤ −c'
            hs.push(Half {
                pu: k.ra[r],
                px: k.rb[r],
                q: -k.rc[r],
            });
            hs.push(Half {
                pu: kr.ra[r] + 2.0 * dlt * kr.rb[r],
                px: kr.rb[r],
                q: -kr.rc[r],
            });
        }
        let tail = [
            (2.0 * dlt, 1.0, next.1),
            (-2.0 * dlt, -1.0, -next.0),
            (0.0, -1.0, 0.0),
            (0.0, 1.0, k.cap2),
            (1.0, 0.0, BIG),
            (-1.0, 0.0, BIG),
        ];
        for (pu, px, q) in tail {
            hs.push(Half { pu, px, q });
        }
    }

    /// K_i for speed-dependent limits: the x ≥ 0 for which the admissible s̈ at ṡ = √x meet
    /// the s̈ that reach `next` (assumed an interval; found by doubling, a golden-section
    /// search for a feasible x, and bisection of both ends to round-off).
    fn k_set_search(
        &self,
        k: Coeff<'_>,
        s: f64,
        dlt: f64,
        next: (f64, f64),
        lo: &mut [f64],
        hi: &mut [f64],
    ) -> Option<(f64, f64)> {
        let lim = self.lim.torque_limits();
        let mut g = |x: f64| -> f64 {
            lim.limits(s, x.max(0.0).sqrt(), lo, hi);
            if lo.iter().chain(hi.iter()).any(|v| v.is_nan()) {
                return -1.0;
            }
            let (a, b) = u_range(k, lo, hi, x, dlt, next);
            b - a
        };
        let cap = k.cap2;
        let mut top = (2.0 * next.1).max(1e-6).min(cap);
        let mut top_ok = false;
        for _ in 0..200 {
            if g(top) < 0.0 {
                break;
            }
            if top >= cap {
                top_ok = true;
                break;
            }
            top = (2.0 * top).min(cap);
        }
        // a feasible x: 0, or the maximiser of the margin on [0, top]
        let g0 = g(0.0);
        let xf = if g0 >= 0.0 {
            0.0
        } else if top_ok {
            top
        } else {
            let phi = 0.5 * (5f64.sqrt() - 1.0);
            let (mut a, mut b) = (0.0, top);
            let mut best = (f64::NEG_INFINITY, 0.0);
            for _ in 0..100 {
                let x1 = b - phi * (b - a);
                let x2 = a + phi * (b - a);
                let (g1, g2) = (g(x1), g(x2));
                for (gv, xv) in [(g1, x1), (g2, x2)] {
                    if gv > best.0 {
                        best = (gv, xv);
                    }
                }
                if g1 >= g2 {
                    b = x2;
                } else {
                    a = x1;
                }
                if best.0 >= 0.0 || b - a <= 1e-15 * b {
                    break;
                }
            }
            if best.0 < 0.0 {
                return None;
            }
            best.1
        };
        let upper = if top_ok {
            top
        } else {
            let (mut a, mut b) = (xf, top);
            while b - a > 1e-15 * b && b - a > 1e-300 {
                let m = 0.5 * (a + b);
                if m <= a || m >= b {
                    break;
                }
                if g(m) >= 0.0 {
                    a = m;
                } else {
                    b = m;
                }
            }
            a
        };
        let lower = if g0 >= 0.0 {
            0.0
        } else {
            let (mut a, mut b) = (0.0, xf);
            while b - a > 1e-15 * b {
                let m = 0.5 * (a + b);
                if m <= a || m >= b {
                    break;
                }
                if g(m) >= 0.0 {
                    b = m;
                } else {
                    a = m;
                }
            }
            b
        };
        Some((lower, upper))
    }

    /// One piece between rest points on the grid `grid` (breakpoints included).
    fn piece(&self, grid: Vec<f64>) -> Result<Piece, PlanningError> {
        let path = self.lim.dynamics().joint_path().path();
        let jp = self.lim.dynamics().joint_path();
        let nq = jp.dof();
        let n = grid.len() - 1;
        let (s_a, s_b) = (grid[0], grid[n]);
        // corners of the joint path (B jumps): the motion must be at rest there, (4.3.8)
        let (mut q, mut bl, mut br, mut bb) =
            (vec![0.0; nq], vec![0.0; nq], vec![0.0; nq], vec![0.0; nq]);
        let mut corners = Vec::new();
        for b in path.breakpoints() {
            if b > s_a && b < s_b {
                jp.eval(path.locate_left(b), b, &mut q, &mut bl, &mut bb)?;
                jp.eval(path.locate(b), b, &mut q, &mut br, &mut bb)?;
                let nb = bl.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
                if bl.iter().zip(&br).any(|(l, r)| (l - r).abs() > 1e-8 * nb) {
                    corners.push(b);
                }
            }
        }
        let speed = self.lim.torque_limits().depends_on_speed();
        // coefficients at the left end of each interval, and at its right end on the same
        // segment (equal to the next left end except at breakpoints)
        let segs: Vec<usize> = (0..n).map(|i| path.locate(grid[i])).collect();
        // slot i: the left end of interval i; the right end is the next left end (slot i + 1)
        // except at breakpoints, where it has a slot of its own after the n + 1 grid points
        let mut right_slot = vec![0usize; n];
        let mut extra = n + 1;
        for i in 0..n {
            right_slot[i] = if i + 1 < n && segs[i + 1] == segs[i] {
                i + 1
            } else {
                extra += 1;
                extra - 1
            };
        }
        let mut st = Coeffs::new(self.lim.dynamics().dof(), self.lim.n_rows(), extra);
        for i in 0..n {
            self.coeff(segs[i], grid[i], &mut st, i)?;
        }
        for i in 0..n {
            if right_slot[i] != i + 1 {
                self.coeff(segs[i], grid[i + 1], &mut st, right_slot[i])?;
            }
        }
        let left = |i: usize| st.at(i);
        let right = |i: usize| st.at(right_slot[i]);
        let nj = self.lim.dynamics().dof();
        let (mut lo, mut hi) = (vec![0.0; nj], vec![0.0; nj]);
        let mut hs = Vec::with_capacity(4 * nj + 6);
        let mut lines = Vec::with_capacity(4 * nj + 6);
        // backward pass: controllable sets
        let mut k_sets = vec![(0.0, 0.0); n + 1];
        for i in (0..n).rev() {
            let dlt = grid[i + 1] - grid[i];
            let r = if speed {
                self.k_set_search(left(i), grid[i], dlt, k_sets[i + 1], &mut lo, &mut hi)
            } else {
                Self::halves(&mut hs, left(i), right(i), dlt, k_sets[i + 1]);
                lp_x_range(&hs, &mut lines)
            };
            match r {
                Some(r) if corners.contains(&grid[i]) && r.0 <= 1e-12 => k_sets[i] = (0.0, 0.0),
                Some(r) if !corners.contains(&grid[i]) => k_sets[i] = r,
                _ => return Err(PlanningError::EmptyAdmissibleRegion { s: grid[i] }),
            }
        }
        if k_sets[0].0 > 1e-12 {
            return Err(PlanningError::EmptyAdmissibleRegion { s: s_a });
        }
        // forward pass: greedy maximal acceleration inside the controllable sets
        let mut x = vec![0.0f64; n + 1];
        let mut u = vec![0.0; n];
        for i in 0..n {
            let k = left(i);
            let dlt = grid[i + 1] - grid[i];
            let uhi = if speed {
                let lim = self.lim.torque_limits();
                lim.limits(grid[i], x[i].sqrt(), &mut lo, &mut hi);
                let (ul, uh) = u_range(k, &lo, &hi, x[i], dlt, k_sets[i + 1]);
                // the largest u whose right end (s_{i+1}, x_i + 2Δu) meets the limits too, by
                // bisection (the collocation error shrinks from O(Δ) to round-off where the
                // speed grows)
                let kr = right(i);
                let mut ok = |uu: f64| -> bool {
                    let xr = (x[i] + 2.0 * dlt * uu).max(0.0);
                    lim.limits(grid[i + 1], xr.sqrt(), &mut lo, &mut hi);
                    (0..nj).all(|j| {
                        let t = kr.a[j] * uu + kr.b[j] * xr + kr.c[j];
                        let tol = limit_slack(lo[j], hi[j]);
                        t <= hi[j] + tol && t >= lo[j] - tol
                    }) && (0..kr.ra.len()).all(|r| {
                        let v = kr.ra[r] * uu + kr.rb[r] * xr + kr.rc[r];
                        v <= 1e-12
                            * ((kr.ra[r] * uu).abs() + (kr.rb[r] * xr).abs() + kr.rc[r].abs())
                    })
                };
                if ul >= uh || ok(uh) || !ok(ul) {
                    uh
                } else {
                    let (mut a, mut b) = (ul, uh);
                    for _ in 0..100 {
                        let m = 0.5 * (a + b);
                        if m <= a || m >= b {
                            break;
                        }
                        if ok(m) {
                            a = m;
                        } else {
                            b = m;
                        }
                    }
                    a
                }
            } else {
                let (_, mut uh) = u_range(k, k.lo, k.hi, x[i], dlt, k_sets[i + 1]);
                // the same limits at s_{i+1}: (a' + 2Δb') u ≤ T^max − c' − b' x, and ≥ T^min …
                let kr = right(i);
                for j in 0..nj {
                    let pu = kr.a[j] + 2.0 * dlt * kr.b[j];
                    let l = kr.lo[j] - kr.c[j] - kr.b[j] * x[i];
                    let h = kr.hi[j] - kr.c[j] - kr.b[j] * x[i];
                    if pu > 0.0 {
                        uh = uh.min(h / pu);
                    } else if pu < 0.0 {
                        uh = uh.min(l / pu);
                    }
                }
                for r in 0..kr.ra.len() {
                    let pu = kr.ra[r] + 2.0 * dlt * kr.rb[r];
                    if pu > 0.0 {
                        uh = uh.min(-(kr.rc[r] + kr.rb[r] * x[i]) / pu);
                    }
                }
                uh
            };
            x[i + 1] = (x[i] + 2.0 * dlt * uhi).clamp(k_sets[i + 1].0, k_sets[i + 1].1);
            u[i] = (x[i + 1] - x[i]) / (2.0 * dlt);
        }
        Ok(Piece {
            grid,
            x,
            u,
            st,
            segs,
            right_slot,
        })
    }

    /// The check after the solve: T(s, ṡ, s̈) of the profile against the true limits at
    /// (s, ṡ) at both ends and the midpoint of every interval (and ṡ against the speed cap).
    /// Returns the largest relative violation; errors when a grid point breaks a limit by more
    /// than [`GRID_VIOLATION_TOL`] or a midpoint by more than `violation_tol`.
    ///
    /// T is the inverse dynamics of the mechanism at (Q(s), B ṡ, B s̈ + B̄ ṡ²), one pass per
    /// point ([`PathDynamics::torque_one_pass`](crate::PathDynamics)); a grid point is the right end of one
    /// interval and the left end of the next (same state, another s̈): its second T is the
    /// first plus `a (s̈' − s̈)` with a = M B of the solve (T is affine in s̈ exactly). The
    /// added rows at grid points are those of the solve (the same evaluation). A NaN
    /// violation is an error, never read as 0, and a non-finite `ṡ²` or `s̈` is
    /// [`PlanningError::NonFinite`].
    fn check(&self, p: &Piece) -> Result<f64, PlanningError> {
        let (g, x, u) = (&p.grid, &p.x, &p.u);
        let d = self.lim.dynamics();
        let lim = self.lim.torque_limits();
        let n = d.dof();
        let (mut tau, mut lo, mut hi) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        // T of the last grid point checked, with its (segment, s, ṡ) and s̈
        let mut ct = vec![0.0; n];
        let mut cu = 0.0;
        let mut ckey: Option<(usize, u64, u64)> = None;
        let mut worst = 0.0f64;
        for i in 0..u.len() {
            let seg = p.segs[i];
            let xm = 0.5 * (x[i] + x[i + 1]);
            let sm = 0.5 * (g[i] + g[i + 1]);
            // left end, midpoint, right end (in this order, so that the right end's T serves
            // the next interval's left end)
            for (s, xv, tol, slot) in [
                (g[i], x[i], GRID_VIOLATION_TOL, Some(i)),
                (sm, xm, self.cfg.violation_tol, None),
                (
                    g[i + 1],
                    x[i + 1],
                    GRID_VIOLATION_TOL,
                    Some(p.right_slot[i]),
                ),
            ] {
                // speed-dependent limits are imposed at s_i only (collocation): the right end
                // is checked with the midpoint tolerance
                let tol = if lim.depends_on_speed() && s == g[i + 1] {
                    self.cfg.violation_tol
                } else {
                    tol
                };
                if !(xv.is_finite() && u[i].is_finite()) {
                    return Err(PlanningError::NonFinite {
                        what: "TOPP-RA profile (sdot^2, sddot)",
                    });
                }
                let sd = positive_part(xv).sqrt();
                if let Some(f) = &self.cfg.speed_cap {
                    let c = checked_speed_cap(f(s))?;
                    let v = positive_part(sd - c) / c.max(1e-300);
                    if v.is_nan() || v > tol {
                        return Err(PlanningError::LimitViolated {
                            joint: usize::MAX,
                            s,
                            relative: v,
                        });
                    }
                    worst = worst.max(v);
                }
                // the added rows a s̈ + b ṡ² + c ≤ 0, relative to |a s̈| + |b ṡ²| + |c|
                let row_violation = |ra: &[f64], rb: &[f64], rc: &[f64]| {
                    (0..ra.len()).fold(0.0f64, |m, r| {
                        let v = ra[r] * u[i] + rb[r] * xv + rc[r];
                        let scale = (ra[r] * u[i]).abs() + (rb[r] * xv).abs() + rc[r].abs();
                        nan_max(m, positive_part(v) / scale.max(1e-300))
                    })
                };
                let rows = match slot {
                    Some(k) => {
                        let c = p.st.at(k);
                        row_violation(c.ra, c.rb, c.rc)
                    }
                    None => self.lim.rows_at(seg, s, row_violation)?,
                };
                if rows.is_nan() || rows > tol {
                    return Err(PlanningError::LimitViolated {
                        joint: usize::MAX,
                        s,
                        relative: rows,
                    });
                }
                worst = worst.max(rows);
                if lim.is_unlimited() {
                    continue;
                }
                match slot {
                    Some(k) => {
                        let key = (seg, s.to_bits(), sd.to_bits());
                        if ckey == Some(key) {
                            // T(s̈) = T(s̈_c) + a (s̈ − s̈_c)
                            let a = &p.st.a_raw[k * n..(k + 1) * n];
                            for j in 0..n {
                                tau[j] = ct[j] + a[j] * (u[i] - cu);
                            }
                        } else {
                            d.torque_one_pass(seg, s, sd, u[i], &mut tau)?;
                            ct.copy_from_slice(&tau);
                            cu = u[i];
                            ckey = Some(key);
                        }
                    }
                    None => d.torque_one_pass(seg, s, sd, u[i], &mut tau)?,
                }
                lim.limits(s, sd, &mut lo, &mut hi);
                // the largest limit, the scale of a joint whose limits are both zero (computed
                // only for such a joint)
                let big = || {
                    lo.iter()
                        .chain(hi.iter())
                        .fold(0.0f64, |m, v| m.max(v.abs()))
                };
                for j in 0..n {
                    let scale = finite_abs(lo[j]).max(finite_abs(hi[j]));
                    let scale = if scale > 0.0 {
                        scale
                    } else {
                        big().max(1e-300)
                    };
                    // the round-off slack the solve admits by construction is not a violation
                    // (it decides a limit that closes to zero at the binding speed)
                    let excess = nan_max(tau[j] - hi[j], lo[j] - tau[j]);
                    let v = positive_part(excess - limit_slack(lo[j], hi[j])) / scale;
                    if v.is_nan() || v > tol {
                        return Err(PlanningError::LimitViolated {
                            joint: j,
                            s,
                            relative: v,
                        });
                    }
                    worst = worst.max(v);
                }
            }
        }
        Ok(worst)
    }

    /// Solves on the whole path, split at the rest points.
    ///
    /// Errors: the configuration's ([`ToppraConfig::validate`]), a grid above
    /// [`validation::MAX_TOPPRA_GRID`] or more stored coefficients than
    /// [`MAX_TOPPRA_COEFFICIENTS`] ([`PlanningError::WorkCap`]), fewer intervals than
    /// pieces between breakpoints and rest points ([`PlanningError::InvalidParameter`]), limits
    /// that do not fit the joint count ([`PlanningError::DimensionMismatch`]); the same
    /// variants as the phase plane for a degenerate path or bad limits;
    /// [`PlanningError::EmptyAdmissibleRegion`] where the only admissible motion stays at rest
    /// (zero limits, a zero speed cap: an infinite time is not a solution); and
    /// [`PlanningError::LimitViolated`] when the profile fails the check after the solve.
    pub fn solve(&self) -> Result<ToppraSolution, PlanningError> {
        self.cfg.validate()?;
        self.lim
            .torque_limits()
            .check_dof(self.lim.dynamics().dof())?;
        let path = self.lim.dynamics().joint_path().path();
        if self.cfg.intervals as f64 > validation::MAX_TOPPRA_GRID {
            return Err(PlanningError::WorkCap {
                name: "intervals",
                value: self.cfg.intervals as f64,
                cap: "intervals <= 1e6",
            });
        }
        // the solve stores (6 dof + 3 rows + 1) coefficients per grid point (at most
        // 2 intervals + 2 points with the breakpoints' right ends)
        let per_point =
            6.0 * self.lim.dynamics().dof() as f64 + 3.0 * self.lim.n_rows() as f64 + 1.0;
        let coefficients = per_point * (2.0 * self.cfg.intervals as f64 + 2.0);
        if coefficients > MAX_TOPPRA_COEFFICIENTS {
            return Err(PlanningError::WorkCap {
                name: "TOPP-RA coefficients (6 dof + 3 rows + 1) x grid points",
                value: coefficients,
                cap: "<= 1e8 (MAX_TOPPRA_COEFFICIENTS)",
            });
        }
        if let Some(tol) = self.cfg.feasibility_tol {
            self.lim.dynamics().check_feasible(200, tol)?;
        }
        let (s0, s1) = (path.s_start(), path.s_end());
        let cuts = validation::rest_cuts(&self.cfg.rest_points, s0, s1)?;
        // knots: rest points and breakpoints; the total number of intervals is shared among
        // the knot intervals in proportion to their length (largest remainder, at least 1)
        let mut knots = cuts.clone();
        knots.extend(path.breakpoints());
        knots.sort_by(|a, b| a.total_cmp(b));
        knots.dedup();
        let pieces = knots.len() - 1;
        let total = self.cfg.intervals;
        if total < pieces {
            return Err(PlanningError::InvalidParameter {
                name: "intervals",
                value: total as f64,
                expected: ">= number of pieces between breakpoints and rest points",
            });
        }
        let len = s1 - s0;
        let share: Vec<f64> = knots
            .windows(2)
            .map(|w| total as f64 * (w[1] - w[0]) / len)
            .collect();
        let mut counts: Vec<usize> = share.iter().map(|v| (v.floor() as usize).max(1)).collect();
        while counts.iter().sum::<usize>() < total {
            // largest remainder
            let k = (0..pieces)
                .max_by(|&a, &b| {
                    (share[a] - counts[a] as f64).total_cmp(&(share[b] - counts[b] as f64))
                })
                .unwrap_or(0);
            counts[k] += 1;
        }
        while counts.iter().sum::<usize>() > total {
            let k = (0..pieces)
                .filter(|&k| counts[k] > 1)
                .min_by(|&a, &b| {
                    (share[a] - counts[a] as f64).total_cmp(&(share[b] - counts[b] as f64))
                })
                .unwrap_or(0);
            counts[k] -= 1;
        }
        let mut sol = ToppraSolution {
            s: Vec::new(),
            sd: Vec::new(),
            sdd: Vec::new(),
            total_time: 0.0,
            piece_times: Vec::new(),
            max_violation: 0.0,
        };
        for w in cuts.windows(2) {
            let mut grid = Vec::new();
            for (k, kw) in knots.windows(2).enumerate() {
                if kw[0] >= w[0] && kw[1] <= w[1] {
                    let m = counts[k];
                    for j in 0..m {
                        grid.push(kw[0] + (kw[1] - kw[0]) * j as f64 / m as f64);
                    }
                }
            }
            grid.push(w[1]);
            let p = self.piece(grid)?;
            let (g, x, u) = (&p.grid, &p.x, &p.u);
            let mut t = 0.0;
            for i in 0..u.len() {
                let den = x[i].sqrt() + x[i + 1].sqrt();
                t += 2.0 * (g[i + 1] - g[i]) / den;
                if !t.is_finite() {
                    // the profile stays at rest on [s_i, s_{i+1}]
                    return Err(PlanningError::EmptyAdmissibleRegion { s: g[i] });
                }
            }
            sol.max_violation = sol.max_violation.max(self.check(&p)?);
            sol.piece_times.push(t);
            sol.total_time += t;
            sol.s.extend(g);
            sol.sd.extend(x.iter().map(|v| v.sqrt()));
            sol.sdd.extend(u);
        }
        Ok(sol)
    }
}

/// [`PlanningError::UnboundedAcceleration`] (or [`PlanningError::DegenerateTangent`] where
/// B = 0) when no limit bounds s̈ at rest at `(seg, s)`: TOPP-RA's profile would jump in one
/// grid interval, a time that depends on the grid, where the phase plane has no extremal.
fn check_bounded<M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits + ?Sized>(
    lim: &AccelerationLimits<'_, M, P, L>,
    seg: usize,
    s: f64,
    bounds: crate::limits::AccelBounds,
) -> Result<(), PlanningError> {
    if bounds.lower.is_finite() && bounds.upper.is_finite() {
        Ok(())
    } else {
        Err(lim.unbounded_error(seg, s))
    }
}

/// `max(v, 0)` that keeps a NaN (`f64::max(NaN, 0)` is 0, which would pass a NaN violation
/// as none).
fn positive_part(v: f64) -> f64 {
    if v < 0.0 {
        0.0
    } else {
        v
    }
}

/// `max(m, v)` that keeps a NaN of either operand (`f64::max` returns the other one).
fn nan_max(m: f64, v: f64) -> f64 {
    if m.is_nan() || v.is_nan() {
        f64::NAN
    } else {
        m.max(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random polygons of TOPP-RA's shape: 7 joints' limits at one point, the reach of the
    /// next set over Δ = 0.01, x ≥ 0, a cap x ≤ 3, |u| ≤ BIG.
    fn random_polygons(count: usize) -> Vec<Vec<Half>> {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        (0..count)
            .map(|_| {
                let mut hs = Vec::new();
                for _ in 0..7 {
                    let (a, b, lim) = (rnd(), 0.3 * rnd(), 1.0 + rnd().abs());
                    let c = 0.5 * rnd();
                    hs.push(Half {
                        pu: a,
                        px: b,
                        q: lim - c,
                    });
                    hs.push(Half {
                        pu: -a,
                        px: -b,
                        q: lim + c,
                    });
                }
                let dlt = 0.01;
                let n0 = 4.0 * rnd().abs();
                let next = (n0, n0 + rnd().abs());
                for (pu, px, q) in [
                    (2.0 * dlt, 1.0, next.1),
                    (-2.0 * dlt, -1.0, -next.0),
                    (0.0, -1.0, 0.0),
                    (0.0, 1.0, 3.0),
                    (1.0, 0.0, BIG),
                    (-1.0, 0.0, BIG),
                ] {
                    hs.push(Half { pu, px, q });
                }
                hs
            })
            .collect()
    }

    /// Newton's iteration on the gap gives the x-range of the elimination over every pair, to
    /// round-off, on random polygons of TOPP-RA's shape (feasible and empty ones).
    #[test]
    fn lp_x_range_matches_the_elimination() {
        let mut lines = Vec::new();
        let (mut some, mut none) = (0, 0);
        for hs in random_polygons(20000) {
            let fast = lp_x_range(&hs, &mut lines);
            let fm = lp_x_range_fm(&hs);
            match (fast, fm) {
                (Some(f), Some(e)) => {
                    some += 1;
                    for (v, w) in [(f.0, e.0), (f.1, e.1)] {
                        assert!((v - w).abs() <= 1e-12 * (1.0 + w.abs()), "{f:?} vs {e:?}");
                    }
                }
                (None, None) => none += 1,
                _ => panic!("{fast:?} vs {fm:?}"),
            }
        }
        assert!(some > 1000 && none > 1000, "{some} feasible, {none} empty");
    }

    /// Newton's iteration decides the x-range of a feasible polygon by itself (the
    /// elimination is its fall-back): from the top of the x-only range down and from its
    /// bottom up, it lands on the elimination's ends, in all but a few near-ties per
    /// thousand.
    #[test]
    fn newton_alone_finds_both_ends_of_a_feasible_range() {
        let mut lines = Vec::new();
        let (mut feasible, mut decided) = (0, 0);
        for hs in random_polygons(20000) {
            let Some(e) = lp_x_range_fm(&hs) else {
                continue;
            };
            feasible += 1;
            if let Some(f) = lp_x_range_newton(&hs, &mut lines) {
                decided += 1;
                for (v, w) in [(f.0, e.0), (f.1, e.1)] {
                    assert!((v - w).abs() <= 1e-12 * (1.0 + w.abs()), "{f:?} vs {e:?}");
                }
            }
        }
        eprintln!("Newton decided {decided} of {feasible} feasible ranges");
        // the few left to the elimination: near-ties of the active lines (a stall)
        assert!(
            feasible > 1000 && 1000 * decided >= 999 * feasible,
            "{decided} of {feasible}"
        );
    }

    /// A range that is empty by round-off only (bounds that cross by 1e-13, within the
    /// elimination's 1e-9 relative allowance) is the point midway between the ends.
    #[test]
    fn a_range_empty_by_round_off_is_the_point_between_its_ends() {
        // x ≤ 1 and x ≥ 1 + 1e-13 (rows without u), u free within ±1
        let hs = [
            Half {
                pu: 0.0,
                px: 1.0,
                q: 1.0,
            },
            Half {
                pu: 0.0,
                px: -1.0,
                q: -(1.0 + 1e-13),
            },
            Half {
                pu: 1.0,
                px: 0.0,
                q: 1.0,
            },
            Half {
                pu: -1.0,
                px: 0.0,
                q: 1.0,
            },
        ];
        let (lo, hi) = lp_x_range_fm(&hs).unwrap();
        assert!(lo == hi && (lo - 1.0).abs() <= 1e-13, "({lo}, {hi})");
        // the same through the solver's entry point (Newton cannot tell, the elimination does)
        let (lo, hi) = lp_x_range(&hs, &mut Vec::new()).unwrap();
        assert!(lo == hi && (lo - 1.0).abs() <= 1e-13, "({lo}, {hi})");
    }
}
