//! Numbers for `cargo xtask reproduce-tables` (REPRODUCTION.md).

use crate::consistent::{consistent_state, ConsistentStateOptions};
use crate::models::{KeerthiRobot, KEERTHI_IC1, KEERTHI_IC2};

/// Residuals of Keerthi's two printed initial conditions before and after
/// [`consistent_state`] (default options: Gauss–Newton minimum-norm steps to
/// `‖φ‖₂ ≤ 1e-14·max(1, ‖q‖∞)`, Euclidean velocity projection; `t = 0`,
/// nominal [`KeerthiRobot`]).
///
/// Ids, for `ic` in `ic1`, `ic2`:
/// `model/keerthi/<ic>/phi_residual_before`, `.../phi_residual_after` (‖φ‖₂ \[mixed m, m²\]),
/// plus extras `.../iterations` and `.../position_change` (‖q − q_g‖₂).
/// A projection failure is reported as NaN (it does not happen for these data).
pub fn keerthi_consistency_rows() -> Vec<(String, f64)> {
    let robot = KeerthiRobot::default();
    let mut rows = Vec::new();
    for (name, ic) in [("ic1", KEERTHI_IC1), ("ic2", KEERTHI_IC2)] {
        let id = |s: &str| format!("model/keerthi/{name}/{s}");
        match consistent_state(
            &robot,
            0.0,
            &ic.q,
            &ic.qd,
            &ConsistentStateOptions::default(),
        ) {
            Ok(cs) => {
                let dq =
                    cs.q.iter()
                        .zip(&ic.q)
                        .map(|(a, b)| (a - b) * (a - b))
                        .sum::<f64>()
                        .sqrt();
                rows.push((id("phi_residual_before"), cs.position_residual_before));
                rows.push((id("phi_residual_after"), cs.position_residual_after));
                rows.push((id("iterations"), cs.iterations as f64));
                rows.push((id("position_change"), dq));
            }
            Err(_) => {
                for s in [
                    "phi_residual_before",
                    "phi_residual_after",
                    "iterations",
                    "position_change",
                ] {
                    rows.push((id(s), f64::NAN));
                }
            }
        }
    }
    rows
}
