//! Time-optimal path parameterization by reachability analysis (TOPP-RA, Pham & Pham,
//! IEEE T-RO 2018), an algorithm independent of the phase-plane search, used as a cross-check.
//!
//! On a grid `s_0 < … < s_N` with `x_i = ṡ²(s_i)` and `u_i = s̈` constant on `[s_i, s_{i+1}]`:
//!
//! ```text
//! x_{i+1} = x_i + 2 Δ_i u_i
//! T^min ≤ a(s_i) u_i + b(s_i) x_i + c(s_i) ≤ T^max          (T = a s̈ + b ṡ² + c, (4.3.24))
//! K_N = {0};  K_i = { x ≥ 0 : ∃u, constraints at i, x + 2Δ_i u ∈ K_{i+1} }   (backward pass)
//! x_0 = 0;  u_i = max{u : constraints at i, x_i + 2Δ_i u ∈ K_{i+1}}            (forward pass)
//! ```
//!
//! Each K_i comes from two 2-variable LPs (solved exactly by vertex enumeration). The grid
//! includes every segment breakpoint; interval i uses the segment that starts at s_i; at a
//! corner of the joint path (B discontinuous) the set is {0}, as in the phase plane.
//! Assumptions: `r(s, ṡ) = b(s) ṡ² + c(s)` (true when h is quadratic in q̇: Coriolis,
//! centripetal, gravity), and torque limits evaluated at ṡ = 0. The discretization is first
//! order: the time converges like O(Δ) to the phase-plane answer.

use crate::error::PlanningError;
use crate::joint_path::JointPath;
use crate::limits::{AccelerationLimits, TorqueLimits, ZERO_INERTIA_TOL};
use crate::validation::{self, checked_speed_cap};
use contour_model::Mechanism;
use std::sync::Arc;

/// Options of [`Toppra`].
#[derive(Clone)]
pub struct ToppraConfig {
    /// Grid intervals per unit of s (default 2000; at least 4 per segment piece).
    pub intervals: usize,
    /// Parameters where the motion must be at rest (as for the phase plane).
    pub rest_points: Vec<f64>,
    /// Optional speed cap ṡ ≤ cap(s).
    pub speed_cap: Option<Arc<dyn Fn(f64) -> f64 + Send + Sync>>,
    /// Path-versus-constraint check before solving, as for the phase plane (default `Some(1e-9)`).
    pub feasibility_tol: Option<f64>,
}

impl Default for ToppraConfig {
    fn default() -> Self {
        Self {
            intervals: 2000,
            rest_points: Vec::new(),
            speed_cap: None,
            feasibility_tol: Some(1e-9),
        }
    }
}

impl ToppraConfig {
    /// Checks the configuration before any work is done ([`Toppra::solve`] calls it):
    /// `intervals ≥ 1`, `feasibility_tol` finite and ≥ 0, rest points finite. The grid size
    /// (`intervals × path length`, at most [`validation::MAX_TOPPRA_GRID`]) is checked by
    /// `solve`, which knows the path; the speed cap where it is evaluated.
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
}

/// Grid, x = ṡ² at the grid points, s̈ on the intervals.
type Grid = (Vec<f64>, Vec<f64>, Vec<f64>);

/// Half-plane `p·(u, x) ≤ q`.
#[derive(Clone, Copy)]
struct Half {
    pu: f64,
    px: f64,
    q: f64,
}

const BIG: f64 = 1e12;

/// min and max of x over the polygon ∩ halfplanes (None when empty).
fn lp_x_range(hs: &[Half]) -> Option<(f64, f64)> {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    let n = hs.len();
    for i in 0..n {
        for j in (i + 1)..n {
            let (a, b) = (hs[i], hs[j]);
            let det = a.pu * b.px - a.px * b.pu;
            if det.abs() < 1e-300 {
                continue;
            }
            let u = (a.q * b.px - a.px * b.q) / det;
            let x = (a.pu * b.q - a.q * b.pu) / det;
            if !(u.is_finite() && x.is_finite()) {
                continue;
            }
            let ok = hs.iter().all(|h| {
                h.pu * u + h.px * x
                    <= h.q + 1e-9 * (1.0 + h.q.abs() + (h.pu * u).abs() + (h.px * x).abs())
            });
            if ok {
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
    }
    if lo <= hi {
        Some((lo.max(0.0), hi))
    } else {
        None
    }
}

/// TOPP-RA solver.
pub struct Toppra<'l, 'a, M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits + ?Sized> {
    lim: &'l AccelerationLimits<'a, M, P, L>,
    cfg: ToppraConfig,
}

struct Coeff {
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    cap2: f64,
}

impl<'l, 'a, M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits + ?Sized>
    Toppra<'l, 'a, M, P, L>
{
    /// A solver with the given configuration.
    pub fn new(lim: &'l AccelerationLimits<'a, M, P, L>, cfg: ToppraConfig) -> Self {
        Self { lim, cfg }
    }

    fn coeff(&self, seg: usize, s: f64) -> Result<Coeff, PlanningError> {
        // the phase plane's checks, so that both solvers reject the same inputs with the same
        // variants (limits' length, NaN/∞ limits, inverted limits, M B = 0)
        self.lim.bounds(seg, s, 0.0)?;
        let d = self.lim.dynamics();
        let n = d.dof();
        let mut a = vec![0.0; n];
        let mut c = vec![0.0; n];
        let mut r1 = vec![0.0; n];
        d.coefficients(seg, s, 0.0, &mut a, &mut c)?;
        d.coefficients(seg, s, 1.0, &mut a, &mut r1)?;
        let b: Vec<f64> = r1.iter().zip(&c).map(|(r, c)| r - c).collect();
        let mut lo = vec![0.0; n];
        let mut hi = vec![0.0; n];
        self.lim.torque_limits().limits(s, 0.0, &mut lo, &mut hi);
        for j in 0..n {
            if lo[j].is_nan() || hi[j].is_nan() || lo[j] > hi[j] {
                return Err(PlanningError::InvertedTorqueLimits {
                    joint: j,
                    s,
                    lower: lo[j],
                    upper: hi[j],
                });
            }
        }
        let amax = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for v in a.iter_mut() {
            if v.abs() <= ZERO_INERTIA_TOL * amax {
                *v = 0.0;
            }
        }
        let cap2 = match &self.cfg.speed_cap {
            Some(f) => checked_speed_cap(f(s))?.powi(2),
            None => BIG,
        };
        Ok(Coeff {
            a,
            b,
            c,
            lo,
            hi,
            cap2: cap2.min(BIG),
        })
    }

    fn halves(k: &Coeff, dlt: f64, next: (f64, f64)) -> Vec<Half> {
        let mut hs = Vec::with_capacity(2 * k.a.len() + 6);
        for j in 0..k.a.len() {
            hs.push(Half {
                pu: k.a[j],
                px: k.b[j],
                q: k.hi[j] - k.c[j],
            });
            hs.push(Half {
                pu: -k.a[j],
                px: -k.b[j],
                q: -(k.lo[j] - k.c[j]),
            });
        }
        hs.push(Half {
            pu: 2.0 * dlt,
            px: 1.0,
            q: next.1,
        });
        hs.push(Half {
            pu: -2.0 * dlt,
            px: -1.0,
            q: -next.0,
        });
        hs.push(Half {
            pu: 0.0,
            px: -1.0,
            q: 0.0,
        });
        hs.push(Half {
            pu: 0.0,
            px: 1.0,
            q: k.cap2,
        });
        hs.push(Half {
            pu: 1.0,
            px: 0.0,
            q: BIG,
        });
        hs.push(Half {
            pu: -1.0,
            px: 0.0,
            q: BIG,
        });
        hs
    }

    fn piece(&self, s_a: f64, s_b: f64) -> Result<Grid, PlanningError> {
        let path = self.lim.dynamics().joint_path().path();
        // grid: breakpoints inside plus uniform subdivision of each sub-interval
        let mut knots = vec![s_a];
        for b in path.breakpoints() {
            if b > s_a && b < s_b {
                knots.push(b);
            }
        }
        knots.push(s_b);
        // corners of the joint path (B jumps): the motion must be at rest there, (4.3.8)
        let jp = self.lim.dynamics().joint_path();
        let nq = jp.dof();
        let (mut q, mut bl, mut br, mut bb) =
            (vec![0.0; nq], vec![0.0; nq], vec![0.0; nq], vec![0.0; nq]);
        let mut corners = Vec::new();
        for &b in &knots[1..knots.len() - 1] {
            jp.eval(path.locate_left(b), b, &mut q, &mut bl, &mut bb)?;
            jp.eval(path.locate(b), b, &mut q, &mut br, &mut bb)?;
            let nb = bl.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
            if bl.iter().zip(&br).any(|(l, r)| (l - r).abs() > 1e-8 * nb) {
                corners.push(b);
            }
        }
        let mut grid = Vec::new();
        for w in knots.windows(2) {
            let m = ((self.cfg.intervals as f64 * (w[1] - w[0])).round() as usize).max(4);
            for k in 0..m {
                grid.push(w[0] + (w[1] - w[0]) * k as f64 / m as f64);
            }
        }
        grid.push(s_b);
        let n = grid.len() - 1;
        let coeffs: Vec<Coeff> = (0..n)
            .map(|i| self.coeff(path.locate(grid[i]), grid[i]))
            .collect::<Result<_, _>>()?;
        // backward pass: controllable sets
        let mut k_sets = vec![(0.0, 0.0); n + 1];
        for i in (0..n).rev() {
            let dlt = grid[i + 1] - grid[i];
            let hs = Self::halves(&coeffs[i], dlt, k_sets[i + 1]);
            match lp_x_range(&hs) {
                Some(r) if corners.contains(&grid[i]) && r.0 <= 1e-12 => k_sets[i] = (0.0, 0.0),
                Some(r) if !corners.contains(&grid[i]) => k_sets[i] = r,
                _ => return Err(PlanningError::EmptyAdmissibleRegion { s: grid[i] }),
            }
        }
        if k_sets[0].0 > 1e-12 {
            return Err(PlanningError::EmptyAdmissibleRegion { s: s_a });
        }
        // forward pass: greedy maximal acceleration inside the controllable sets
        let mut x = vec![0.0; n + 1];
        let mut u = vec![0.0; n];
        for i in 0..n {
            let k = &coeffs[i];
            let dlt = grid[i + 1] - grid[i];
            let mut ulo = (k_sets[i + 1].0 - x[i]) / (2.0 * dlt);
            let mut uhi = (k_sets[i + 1].1 - x[i]) / (2.0 * dlt);
            for j in 0..k.a.len() {
                let lo = k.lo[j] - k.c[j] - k.b[j] * x[i];
                let hi = k.hi[j] - k.c[j] - k.b[j] * x[i];
                if k.a[j] > 0.0 {
                    ulo = ulo.max(lo / k.a[j]);
                    uhi = uhi.min(hi / k.a[j]);
                } else if k.a[j] < 0.0 {
                    ulo = ulo.max(hi / k.a[j]);
                    uhi = uhi.min(lo / k.a[j]);
                }
            }
            let _ = ulo;
            u[i] = uhi;
            x[i + 1] = (x[i] + 2.0 * dlt * uhi).clamp(k_sets[i + 1].0, k_sets[i + 1].1);
            u[i] = (x[i + 1] - x[i]) / (2.0 * dlt);
        }
        Ok((grid, x, u))
    }

    /// Solves on the whole path, split at the rest points.
    ///
    /// Errors: the configuration's ([`ToppraConfig::validate`]), a grid above
    /// [`validation::MAX_TOPPRA_GRID`] ([`PlanningError::WorkCap`]), limits that do not fit
    /// the joint count ([`PlanningError::DimensionMismatch`]); the same variants as the phase
    /// plane for a degenerate path or bad limits, and
    /// [`PlanningError::EmptyAdmissibleRegion`] where the only admissible motion stays at rest
    /// (zero limits, a zero speed cap: an infinite time is not a solution).
    pub fn solve(&self) -> Result<ToppraSolution, PlanningError> {
        self.cfg.validate()?;
        self.lim
            .torque_limits()
            .check_dof(self.lim.dynamics().dof())?;
        let path = self.lim.dynamics().joint_path().path();
        let work = self.cfg.intervals as f64 * (path.s_end() - path.s_start());
        if work.is_nan() || work > validation::MAX_TOPPRA_GRID {
            return Err(PlanningError::WorkCap {
                name: "intervals",
                value: self.cfg.intervals as f64,
                cap: "intervals * path length <= 1e6",
            });
        }
        if let Some(tol) = self.cfg.feasibility_tol {
            self.lim.dynamics().check_feasible(200, tol)?;
        }
        let mut cuts = vec![path.s_start()];
        let mut rp = self.cfg.rest_points.clone();
        rp.sort_by(|a, b| a.total_cmp(b));
        for v in rp {
            if !(v > path.s_start() && v < path.s_end()) {
                return Err(PlanningError::OutOfRange {
                    s: v,
                    start: path.s_start(),
                    end: path.s_end(),
                });
            }
            cuts.push(v);
        }
        cuts.push(path.s_end());
        let mut sol = ToppraSolution {
            s: Vec::new(),
            sd: Vec::new(),
            sdd: Vec::new(),
            total_time: 0.0,
            piece_times: Vec::new(),
        };
        for w in cuts.windows(2) {
            let (g, x, u) = self.piece(w[0], w[1])?;
            let mut t = 0.0;
            for i in 0..u.len() {
                let den = x[i].sqrt() + x[i + 1].sqrt();
                t += 2.0 * (g[i + 1] - g[i]) / den;
                if !t.is_finite() {
                    // the profile stays at rest on [s_i, s_{i+1}]
                    return Err(PlanningError::EmptyAdmissibleRegion { s: g[i] });
                }
            }
            sol.piece_times.push(t);
            sol.total_time += t;
            sol.s.extend(g);
            sol.sd.extend(x.iter().map(|v| v.sqrt()));
            sol.sdd.extend(u);
        }
        Ok(sol)
    }
}
