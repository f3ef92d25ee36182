//! Up-front checks of the solvers' configurations and the caps on work they enforce.
//!
//! Every numeric field of [`crate::phase_plane::PhasePlaneConfig`] and
//! [`crate::toppra::ToppraConfig`] is checked before any work is done, with an error that names
//! the field and its value ([`PlanningError::InvalidParameter`]); numbers that would make the
//! work unbounded (a tiny step fraction, a huge grid) are refused with
//! [`PlanningError::WorkCap`] naming the cap.

use crate::error::PlanningError;

/// Smallest accepted `PhasePlaneConfig::max_step_fraction`: at most 10⁵ forced steps per
/// integrated curve (the default 1/100 forces 100).
pub const MIN_STEP_FRACTION: f64 = 1e-5;

/// Largest accepted `PhasePlaneConfig::mvc_grid` (grid points per segment; default 1000).
pub const MAX_MVC_GRID: usize = 1_000_000;

/// Largest accepted TOPP-RA grid (`ToppraConfig::intervals`, the total over the whole path;
/// default 2000): each interval costs two inverse-dynamics calls and two LPs.
pub const MAX_TOPPRA_GRID: f64 = 1e6;

/// Smallest accepted relative tolerance (below it the step control only meets round-off).
pub const MIN_RTOL: f64 = 1e-15;

/// `value` must lie in `[lo, hi]` (NaN fails).
pub(crate) fn in_range(
    name: &'static str,
    value: f64,
    lo: f64,
    hi: f64,
    expected: &'static str,
) -> Result<(), PlanningError> {
    if value >= lo && value <= hi {
        Ok(())
    } else {
        Err(PlanningError::InvalidParameter {
            name,
            value,
            expected,
        })
    }
}

/// An optional feasibility tolerance must be finite and ≥ 0.
pub(crate) fn feasibility_tol(tol: Option<f64>) -> Result<(), PlanningError> {
    match tol {
        Some(t) => in_range("feasibility_tol", t, 0.0, f64::MAX, "finite and >= 0"),
        None => Ok(()),
    }
}

/// A value of the speed cap must be finite-or-+∞ and ≥ 0 (NaN and negative caps are errors).
pub(crate) fn checked_speed_cap(v: f64) -> Result<f64, PlanningError> {
    if v >= 0.0 {
        Ok(v)
    } else {
        Err(PlanningError::InvalidParameter {
            name: "speed_cap",
            value: v,
            expected: ">= 0 (not NaN)",
        })
    }
}

/// The cuts of a path `[s0, s1]` at its rest points: `s0`, the rest points in increasing
/// order, `s1`.
///
/// Errors: [`PlanningError::NonFinite`] for a NaN/∞ rest point, [`PlanningError::OutOfRange`]
/// for one not strictly inside `(s0, s1)`.
pub(crate) fn rest_cuts(rest_points: &[f64], s0: f64, s1: f64) -> Result<Vec<f64>, PlanningError> {
    if rest_points.iter().any(|v| !v.is_finite()) {
        return Err(PlanningError::NonFinite {
            what: "rest points",
        });
    }
    let mut cuts = Vec::with_capacity(rest_points.len() + 2);
    cuts.push(s0);
    let mut rp = rest_points.to_vec();
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
    Ok(cuts)
}
