//! A trajectory, not only a profile: the minimum-time solution sampled at given times (or at a
//! fixed rate, e.g. a 1 kHz controller) as `t, s, ṡ, s̈, q, q̇, q̈, τ`.
//!
//! At a time t the state on the profile is found from its samples: s by inverting
//! `t(s) = t_a + ∫ ds/√x` on the Hermite interpolant of x = ṡ² between two samples (the
//! rule of [`crate::phase_plane::MinimumTimeSolution::time_at_s`]), ṡ = √x(s), and
//! s̈ = x′(s)/2 clamped into the admissible `[h(s, ṡ), γ(s, ṡ)]` — so the sampled τ meets the
//! limits up to round-off wherever the state is admissible. Then, Huang (4.3.2) and (4.3.6),
//!
//! ```text
//! q = Q(s),  q̇ = B ṡ,  q̈ = B s̈ + B̄ ṡ²,  τ = a(s) s̈ + r(s, ṡ)
//! ```
//!
//! [`SampledTrajectory`] keeps the path parameter (`s`, `ṡ`, `s̈`) beside the state, which the
//! workspace's `Trajectory` (contour-trajectory) has no columns for, so it writes its own CSV
//! and JSON in the same number format (shortest round-trip); `contour::trajectory_from_plan`
//! turns it into a `Trajectory`.

use crate::error::PlanningError;
use crate::joint_path::JointPath;
use crate::limits::{AccelerationLimits, TorqueLimits};
use crate::phase_plane::{MinimumTimeSolution, XInterval};
use contour_model::csv::write_f64;
use contour_model::Mechanism;
use serde::Serialize;
use std::io::Write;

/// A minimum-time motion sampled in time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SampledTrajectory {
    /// Times \[s\].
    pub t: Vec<f64>,
    /// Path parameter s(t).
    pub s: Vec<f64>,
    /// ṡ(t).
    pub sd: Vec<f64>,
    /// s̈(t).
    pub sdd: Vec<f64>,
    /// Joint positions q(t).
    pub q: Vec<Vec<f64>>,
    /// Joint velocities q̇ = B ṡ.
    pub qd: Vec<Vec<f64>>,
    /// Joint accelerations q̈ = B s̈ + B̄ ṡ².
    pub qdd: Vec<Vec<f64>>,
    /// Joint torques τ(s, ṡ, s̈), Huang (4.3.6).
    pub tau: Vec<Vec<f64>>,
}

impl SampledTrajectory {
    /// Writes CSV: header `t,s,sd,sdd,q0..,qd0..,qdd0..,tau0..`, one row per sample, numbers in
    /// their shortest round-trip form.
    pub fn write_csv(&self, w: impl Write) -> std::io::Result<()> {
        let n = self.q.first().map_or(0, Vec::len);
        let mut w = std::io::BufWriter::new(w);
        write!(w, "t,s,sd,sdd")?;
        for name in ["q", "qd", "qdd", "tau"] {
            for i in 0..n {
                write!(w, ",{name}{i}")?;
            }
        }
        writeln!(w)?;
        for k in 0..self.t.len() {
            write_f64(&mut w, self.t[k])?;
            for v in [self.s[k], self.sd[k], self.sdd[k]] {
                write!(w, ",")?;
                write_f64(&mut w, v)?;
            }
            for rows in [&self.q, &self.qd, &self.qdd, &self.tau] {
                for v in &rows[k] {
                    write!(w, ",")?;
                    write_f64(&mut w, *v)?;
                }
            }
            writeln!(w)?;
        }
        w.flush()
    }

    /// Writes the samples as JSON (serde, the field names of this struct).
    pub fn write_json(&self, w: impl Write) -> std::io::Result<()> {
        serde_json::to_writer(w, self).map_err(std::io::Error::other)
    }

    /// Largest violation of the torque limits over the samples, relative to the size of each
    /// joint's limit (0 when every sample is within its limits).
    pub fn max_torque_violation<L: TorqueLimits + ?Sized>(&self, limits: &L) -> f64 {
        let n = self.q.first().map_or(0, Vec::len);
        let (mut lo, mut hi) = (vec![0.0; n], vec![0.0; n]);
        let mut worst = 0.0f64;
        for k in 0..self.t.len() {
            limits.limits(self.s[k], self.sd[k], &mut lo, &mut hi);
            for i in 0..n {
                let scale = lo[i].abs().max(hi[i].abs()).max(1e-300);
                let v = (self.tau[k][i] - hi[i])
                    .max(lo[i] - self.tau[k][i])
                    .max(0.0)
                    / scale;
                worst = worst.max(v);
            }
        }
        worst
    }
}

/// Samples `sol` (solved with `lim`) at `times` (clamped to `[0, total_time]`).
///
/// Errors: [`PlanningError::NonFinite`] for a NaN time, the dynamics' and limits' errors.
pub fn sample<M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits + ?Sized>(
    sol: &MinimumTimeSolution,
    lim: &AccelerationLimits<'_, M, P, L>,
    times: &[f64],
) -> Result<SampledTrajectory, PlanningError> {
    let d = lim.dynamics();
    let jp = d.joint_path();
    let path = jp.path();
    let n = d.dof();
    let mut out = SampledTrajectory::with_capacity(times.len());
    let mut buf = PointBuffers::new(n);
    let smp = &sol.samples;
    if smp.is_empty() {
        return Err(PlanningError::BadHistory {
            what: "empty minimum-time solution",
        });
    }
    for &t in times {
        if t.is_nan() {
            return Err(PlanningError::NonFinite {
                what: "sample time",
            });
        }
        let t = t.clamp(0.0, sol.total_time);
        // the interval [a, b] of samples with a.t ≤ t ≤ b.t and a.s < b.s
        let mut idx = smp
            .partition_point(|p| p.t <= t)
            .clamp(1, smp.len().max(2) - 1);
        while idx + 1 < smp.len() && smp[idx].s <= smp[idx - 1].s {
            idx += 1;
        }
        let (pa, pb) = if smp.len() == 1 {
            (&smp[0], &smp[0])
        } else {
            (&smp[idx - 1], &smp[idx])
        };
        let iv = XInterval::between(pa, pb);
        let (x0, f0) = (iv.x0, iv.f0);
        let (s, x, xp) = if pb.s > pa.s {
            // the samples' own ends where t is at one (x = 0 exactly at a rest end)
            let s = if t >= pb.t {
                pb.s
            } else if t <= pa.t {
                pa.s
            } else {
                invert_time(&iv, pa.sd, pa.sdd, t - pa.t).0
            };
            let x = iv.x(s).max(0.0);
            (s, x, iv.dx(s))
        } else {
            (pa.s, x0, f0)
        };
        let sd = x.sqrt();
        let seg = path.locate(s);
        let bounds = lim.bounds(seg, s, sd)?;
        let mut sdd = 0.5 * xp;
        if bounds.lower <= bounds.upper {
            sdd = sdd.clamp(bounds.lower, bounds.upper);
        }
        out.push_point(d, seg, &mut buf, t, s, sd, sdd)?;
    }
    Ok(out)
}

/// The `s` in `[iv.s0, iv.s1]` where the interval's time `T(s) = ∫ ds/√x` (Huang (4.3.47))
/// reaches `tau`, by Newton's method on `T(s) − tau` (`T′ = 1/√x`, so the step is
/// `(T − tau)·√x`) inside a bracket that every evaluation narrows; a step that leaves the
/// bracket, or one from a point where `x ≤ 0`, is replaced by the bracket's midpoint. The
/// first iterate is the constant-acceleration estimate `s0 + ṡ0 τ + s̈0 τ²/2` from the
/// interval's first sample. `T` increases, so the bracket is kept by the sign of `T − tau`;
/// the iteration returns `s` where the Newton step from it is below its round-off (4 ulp), or
/// the bracket's midpoint where the bracket has no floating-point number inside, after at most
/// 100 evaluations of `T`. Each `T` is an adaptive Gauss–Legendre quadrature: bisection to
/// round-off takes about 50 of them per sample, this iteration 2.5 on average (arm7 line,
/// 20 kHz). Returns `s` and the number of evaluations of `T`.
fn invert_time(iv: &XInterval, sd0: f64, sdd0: f64, tau: f64) -> (f64, usize) {
    let (mut lo, mut hi) = (iv.s0, iv.s1);
    let mut s = iv.s0 + sd0 * tau + 0.5 * sdd0 * tau * tau;
    if !(s > lo && s < hi) {
        s = 0.5 * (lo + hi);
    }
    for evals in 1..=100 {
        let r = iv.time(s) - tau;
        if r == 0.0 {
            return (s, evals);
        }
        if r < 0.0 {
            lo = s;
        } else {
            hi = s;
        }
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            return (mid, evals);
        }
        let x = iv.x(s);
        if x > 0.0 {
            let step = r * x.sqrt();
            if step.abs() <= 4.0 * f64::EPSILON * s.abs().max(iv.s1.abs()) {
                return (s, evals);
            }
            let next = s - step;
            if next > lo && next < hi {
                s = next;
                continue;
            }
        }
        s = mid;
    }
    (0.5 * (lo + hi), 100)
}

/// Scratch of [`SampledTrajectory::push_point`]: `Q`, `B = Q′`, `B̄ = Q″` at one point.
pub(crate) struct PointBuffers {
    q: Vec<f64>,
    b: Vec<f64>,
    bb: Vec<f64>,
}

impl PointBuffers {
    pub(crate) fn new(n: usize) -> Self {
        Self {
            q: vec![0.0; n],
            b: vec![0.0; n],
            bb: vec![0.0; n],
        }
    }
}

impl SampledTrajectory {
    /// An empty trajectory with room for `m` samples.
    pub(crate) fn with_capacity(m: usize) -> Self {
        Self {
            t: Vec::with_capacity(m),
            s: Vec::with_capacity(m),
            sd: Vec::with_capacity(m),
            sdd: Vec::with_capacity(m),
            q: Vec::with_capacity(m),
            qd: Vec::with_capacity(m),
            qdd: Vec::with_capacity(m),
            tau: Vec::with_capacity(m),
        }
    }

    /// Appends the sample at time `t` and path point `(s, ṡ, s̈)` on segment `seg`:
    /// `q = Q(s)`, `q̇ = B ṡ`, `q̈ = B s̈ + B̄ ṡ²` (Huang (4.3.2)) and `τ` by inverse dynamics
    /// (Huang (4.3.6)).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push_point<M: Mechanism + ?Sized, P: JointPath + ?Sized>(
        &mut self,
        d: &crate::PathDynamics<'_, M, P>,
        seg: usize,
        buf: &mut PointBuffers,
        t: f64,
        s: f64,
        sd: f64,
        sdd: f64,
    ) -> Result<(), PlanningError> {
        let PointBuffers { q, b, bb } = buf;
        d.joint_path().eval(seg, s, q, b, bb)?;
        let mut tau = vec![0.0; q.len()];
        d.inverse_dynamics(seg, s, sd, sdd, &mut tau)?;
        self.t.push(t);
        self.s.push(s);
        self.sd.push(sd);
        self.sdd.push(sdd);
        self.q.push(q.clone());
        self.qd.push(b.iter().map(|v| v * sd).collect());
        self.qdd.push(
            b.iter()
                .zip(bb.iter())
                .map(|(bi, bbi)| bi * sdd + bbi * sd * sd)
                .collect(),
        );
        self.tau.push(tau);
        Ok(())
    }
}

/// Samples `sol` at `rate` Hz from t = 0 (k/rate for k = 0, 1, …) and at the final time.
///
/// Errors: [`PlanningError::InvalidParameter`] (`"rate"`) unless `rate > 0` and the sample
/// count is at most 10⁷; the errors of [`sample`].
pub fn sample_at_rate<M: Mechanism + ?Sized, P: JointPath + ?Sized, L: TorqueLimits + ?Sized>(
    sol: &MinimumTimeSolution,
    lim: &AccelerationLimits<'_, M, P, L>,
    rate: f64,
) -> Result<SampledTrajectory, PlanningError> {
    let count = sol.total_time * rate;
    if !(rate > 0.0 && count.is_finite() && count <= 1e7) {
        return Err(PlanningError::InvalidParameter {
            name: "rate",
            value: rate,
            expected: "> 0 with total_time * rate <= 1e7",
        });
    }
    let k = count.floor() as usize;
    let mut times: Vec<f64> = (0..=k).map(|i| i as f64 / rate).collect();
    if sol.total_time - times[k] > 1e-12 * sol.total_time.max(1.0) {
        times.push(sol.total_time);
    }
    sample(sol, lim, &times)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::BoxLimits;

    /// The time inversion on an interval with a rest start (x0 = 0, so `T′ = 1/√x` is
    /// infinite there) and on a regular one, with and without a usable first guess: `T(s)`
    /// meets `tau` to the quadrature's round-off, and the interval's ends come back exactly.
    #[test]
    fn time_inversion_meets_the_time_to_round_off() {
        let rest = XInterval {
            s0: 0.0,
            x0: 0.0,
            f0: 0.8,
            s1: 0.01,
            x1: 0.0081,
            f1: 0.82,
            dense: 1e-4,
        };
        let regular = XInterval {
            s0: 0.4,
            x0: 0.09,
            f0: -0.3,
            s1: 0.43,
            x1: 0.081,
            f1: -0.32,
            dense: 0.0,
        };
        for iv in [rest, regular] {
            let total = iv.time(iv.s1);
            let sd0 = iv.x0.sqrt();
            for k in 1..50 {
                let tau = total * k as f64 / 50.0;
                for (sd, sdd) in [(sd0, 0.5 * iv.f0), (0.0, 0.0), (1e3, -1e3)] {
                    let (s, evals) = invert_time(&iv, sd, sdd, tau);
                    assert!(s > iv.s0 && s < iv.s1);
                    let r = iv.time(s) - tau;
                    assert!(r.abs() <= 1e-13 * total, "tau = {tau}: T(s) - tau = {r:e}");
                    // Newton's convergence: 3-5 evaluations on the regular interval, at most 15
                    // from the rest start (1/√x infinite there); bisection takes about 50
                    assert!(evals <= 20, "tau = {tau}: {evals} evaluations");
                    if iv.x0 > 0.0 && sd == sd0 {
                        // the constant-acceleration first guess leaves Newton 2-3 steps
                        assert!(evals <= 3, "tau = {tau}: {evals} evaluations");
                    }
                }
            }
            // a time at an end, or past it by round-off, gives that end
            let span = iv.s1 - iv.s0;
            for (tau, end) in [(0.0, iv.s0), (total, iv.s1), (total * (1.0 + 1e-12), iv.s1)] {
                let (s, _) = invert_time(&iv, 0.0, 0.0, tau);
                assert!((s - end).abs() <= 1e-9 * span, "tau = {tau}: {s} for {end}");
            }
        }
    }

    /// The violation is the excess over the nearer limit relative to the joint's larger limit
    /// magnitude, the largest over samples and joints, and 0 within the limits.
    #[test]
    fn torque_violation_is_the_relative_excess_over_the_limits() {
        let lim = BoxLimits {
            lower: vec![-2.0, -10.0],
            upper: vec![4.0, 5.0],
        };
        let mut tr = SampledTrajectory::with_capacity(3);
        for tau in [[3.9, -9.0], [4.4, 0.0], [0.0, -11.0]] {
            tr.t.push(0.0);
            tr.s.push(0.0);
            tr.sd.push(0.0);
            tr.sdd.push(0.0);
            tr.q.push(vec![0.0; 2]);
            tr.qd.push(vec![0.0; 2]);
            tr.qdd.push(vec![0.0; 2]);
            tr.tau.push(tau.to_vec());
        }
        // joint 0: 0.4 over 4 (scale 4) = 0.1; joint 1: 1 under -10 (scale 10) = 0.1
        let v = tr.max_torque_violation(&lim);
        assert!((v - 0.1).abs() < 1e-15, "{v}");
        tr.tau[2][1] = -13.0;
        let v = tr.max_torque_violation(&lim);
        assert!((v - 0.3).abs() < 1e-15, "{v}");
        tr.tau = vec![vec![3.9, -9.0]; 3];
        assert_eq!(tr.max_torque_violation(&lim), 0.0);
    }
}
