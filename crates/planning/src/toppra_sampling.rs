//! A TOPP-RA profile sampled in time, like the phase plane's ([`crate::sample_at_rate`]):
//! `t, s, ṡ, s̈, q, q̇, q̈, τ` at a fixed rate.
//!
//! TOPP-RA's profile is piecewise constant in s̈ on its grid (Pham & Pham 2018, eq. (3)):
//! on interval i, `x = ṡ²` is linear in s, `u_i = (x_{i+1} − x_i) / (2 Δs_i)` is the
//! acceleration, and the interval takes `Δt_i = 2 Δs_i / (ṡ_i + ṡ_{i+1})`. At a time
//! `τ = t − t_i` into the interval the state is exact for that profile:
//!
//! ```text
//! ṡ = ṡ_i + u_i τ,   s = s_i + ṡ_i τ + u_i τ² / 2,   s̈ = u_i
//! ```
//!
//! then, as for the phase plane, Huang (4.3.2) and (4.3.6): `q = Q(s)`, `q̇ = B ṡ`,
//! `q̈ = B s̈ + B̄ ṡ²`, `τ = a(s) s̈ + r(s, ṡ)`. TOPP-RA enforces the limits at its grid points
//! only, so a sample between them may exceed a limit by the discretization error
//! ([`crate::toppra::ToppraSolution::max_violation`] measures it at the midpoints);
//! s̈ is not clamped, so q, q̇ and q̈ stay the derivatives of one motion.

use crate::error::PlanningError;
use crate::joint_path::JointPath;
use crate::limits::{AccelerationLimits, TorqueLimits};
use crate::sampling::SampledTrajectory;
use crate::toppra::ToppraSolution;
use contour_model::Mechanism;

/// Samples the TOPP-RA profile `sol` (solved with `lim`) at `rate` Hz from t = 0 (k/rate for
/// k = 0, 1, …) and at its final time.
///
/// Errors: [`PlanningError::InvalidParameter`] (`"rate"`) unless `rate > 0` and the sample
/// count is at most 10⁷; [`PlanningError::BadHistory`] for a profile with fewer than two grid
/// points, mismatched lengths, a decreasing grid or an interval that is never left
/// (ṡ = 0 at both ends); the errors of the joint path and the dynamics.
pub fn sample_toppra_at_rate<
    M: Mechanism + ?Sized,
    P: JointPath + ?Sized,
    L: TorqueLimits + ?Sized,
>(
    sol: &ToppraSolution,
    lim: &AccelerationLimits<'_, M, P, L>,
    rate: f64,
) -> Result<SampledTrajectory, PlanningError> {
    let (s, sd) = (&sol.s, &sol.sd);
    if s.len() < 2 || sd.len() != s.len() {
        return Err(PlanningError::BadHistory {
            what: "a TOPP-RA profile needs at least two grid points and one ṡ per point",
        });
    }
    // interval start times: Δt_i = 2 Δs_i / (ṡ_i + ṡ_{i+1})
    let mut t_grid = Vec::with_capacity(s.len());
    t_grid.push(0.0);
    for i in 0..s.len() - 1 {
        let ds = s[i + 1] - s[i];
        let v = sd[i] + sd[i + 1];
        if ds.is_nan() || ds < 0.0 || (ds > 0.0 && v.is_nan()) || (ds > 0.0 && v <= 0.0) {
            return Err(PlanningError::BadHistory {
                what: "a TOPP-RA profile with a decreasing grid or an interval at rest",
            });
        }
        let dt = if ds > 0.0 { 2.0 * ds / v } else { 0.0 };
        t_grid.push(t_grid[i] + dt);
    }
    let total = t_grid[s.len() - 1];
    let count = total * rate;
    if !(rate > 0.0 && count.is_finite() && count <= 1e7) {
        return Err(PlanningError::InvalidParameter {
            name: "rate",
            value: rate,
            expected: "> 0 with total_time * rate <= 1e7",
        });
    }
    let k = count.floor() as usize;
    let mut times: Vec<f64> = (0..=k).map(|i| i as f64 / rate).collect();
    if total - times[k] > 1e-12 * total.max(1.0) {
        times.push(total);
    }

    let d = lim.dynamics();
    let jp = d.joint_path();
    let path = jp.path();
    let n = d.dof();
    let mut out = SampledTrajectory::with_capacity(times.len());
    let mut buf = crate::sampling::PointBuffers::new(n);
    let last = s.len() - 2;
    for &t in &times {
        // interval i with t_i ≤ t ≤ t_{i+1}
        let i = t_grid
            .partition_point(|&ti| ti <= t)
            .saturating_sub(1)
            .min(last);
        let ds = s[i + 1] - s[i];
        let u = if ds > 0.0 {
            (sd[i + 1] * sd[i + 1] - sd[i] * sd[i]) / (2.0 * ds)
        } else {
            0.0
        };
        let tau_t = (t - t_grid[i]).max(0.0);
        let sdot = (sd[i] + u * tau_t).max(0.0);
        let si = (s[i] + sd[i] * tau_t + 0.5 * u * tau_t * tau_t).clamp(s[i], s[i + 1]);
        let seg = path.locate(si);
        out.push_point(d, seg, &mut buf, t, si, sdot, u)?;
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::phase_plane::{PhasePlane, PhasePlaneConfig};
    use crate::toppra::{Toppra, ToppraConfig};
    use crate::{sample_at_rate, BoxLimits, CartesianJointPath, Path, PathDynamics, Segment};
    use contour_model::models::HuangCartesianRobot;

    /// A unit point mass along a unit line under |F| ≤ 1: bang-bang, T = 2 √(m L / F) = 2,
    /// s(t) = t²/2 up to t = 1, then 1 − (2 − t)²/2.
    #[test]
    fn a_sampled_toppra_profile_follows_the_bang_bang_motion_and_the_phase_plane() {
        let r = HuangCartesianRobot {
            mass: [1.0, 1.0],
            ..Default::default()
        };
        let seg = Segment::line(&[2.0, 0.0], &[3.0, 0.0], 0.0, 1.0);
        let jp = CartesianJointPath::new(Path::new(vec![seg]).unwrap());
        let d = PathDynamics::new(&r, &jp).unwrap();
        let box_limits = BoxLimits::symmetric(2, 1.0);
        let lim = AccelerationLimits::new(&d, &box_limits);
        let cfg = ToppraConfig {
            intervals: 1000,
            ..ToppraConfig::default()
        };
        let sol = Toppra::new(&lim, cfg).solve().unwrap();
        let tr = sample_toppra_at_rate(&sol, &lim, 100.0).unwrap();
        let t_end = *tr.t.last().unwrap();
        assert!((t_end - sol.total_time).abs() < 1e-12 * sol.total_time);
        assert!((t_end - 2.0).abs() < 5e-3, "T = {t_end}");
        assert_eq!(tr.t.len(), 201 + usize::from(t_end > 2.0));
        let pp = PhasePlane::new(&lim, PhasePlaneConfig::default())
            .solve()
            .unwrap();
        let pps = sample_at_rate(&pp, &lim, 100.0).unwrap();
        for k in 0..tr.t.len() {
            let t = tr.t[k];
            let exact = if t <= 1.0 {
                0.5 * t * t
            } else {
                1.0 - 0.5 * (2.0 - t).max(0.0).powi(2)
            };
            assert!(
                (tr.s[k] - exact).abs() < 1e-2,
                "s({t}) = {} vs {exact}",
                tr.s[k]
            );
            assert!((tr.q[k][0] - 2.0 - tr.s[k]).abs() < 1e-15);
            if k < pps.t.len() {
                assert!((tr.q[k][0] - pps.q[k][0]).abs() < 1e-2);
            }
            // the torque meets the limit up to the grid's discretization
            assert!(tr.tau[k][0].abs() < 1.0 + 1e-2, "tau = {}", tr.tau[k][0]);
        }
        // q̇ is the derivative of q: central differences inside the samples
        for k in 1..tr.t.len() - 2 {
            let fd = (tr.q[k + 1][0] - tr.q[k - 1][0]) / (tr.t[k + 1] - tr.t[k - 1]);
            assert!((fd - tr.qd[k][0]).abs() < 1e-2, "{fd} vs {}", tr.qd[k][0]);
        }
    }

    #[test]
    fn a_bad_rate_or_profile_is_refused() {
        let r = HuangCartesianRobot::default();
        let seg = Segment::line(&[2.0, 0.0], &[3.0, 0.0], 0.0, 1.0);
        let jp = CartesianJointPath::new(Path::new(vec![seg]).unwrap());
        let d = PathDynamics::new(&r, &jp).unwrap();
        let box_limits = BoxLimits::symmetric(2, 1.0);
        let lim = AccelerationLimits::new(&d, &box_limits);
        let mut sol = ToppraSolution {
            s: vec![0.0, 1.0],
            sd: vec![1.0, 1.0],
            sdd: vec![0.0],
            total_time: 1.0,
            piece_times: vec![1.0],
            max_violation: 0.0,
        };
        for rate in [0.0, -1.0, f64::NAN, 1e12] {
            assert!(matches!(
                sample_toppra_at_rate(&sol, &lim, rate),
                Err(PlanningError::InvalidParameter { name: "rate", .. })
            ));
        }
        sol.sd = vec![0.0, 0.0];
        assert!(matches!(
            sample_toppra_at_rate(&sol, &lim, 10.0),
            Err(PlanningError::BadHistory { .. })
        ));
        sol.s = vec![1.0, 0.0];
        sol.sd = vec![1.0, 1.0];
        assert!(matches!(
            sample_toppra_at_rate(&sol, &lim, 10.0),
            Err(PlanningError::BadHistory { .. })
        ));
    }
}
