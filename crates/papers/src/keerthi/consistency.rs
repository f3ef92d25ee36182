//! Source `model`: Keerthi's two printed initial conditions before and after
//! [`consistent_state`] (rows `model/keerthi/<ic>/…`).

use contour::model::models::{KeerthiRobot, KEERTHI_IC1, KEERTHI_IC2};
use contour::model::{consistent_state, ConsistentStateOptions};

use crate::{Row, SourceOutput, SourceResult, Tolerance};

/// Residuals of Keerthi's two printed initial conditions before and after
/// [`consistent_state`] (default options: Gauss–Newton minimum-norm steps to
/// `‖φ‖₂ ≤ 1e-14·max(1, ‖q‖∞)`, Euclidean velocity projection; `t = 0`,
/// nominal [`KeerthiRobot`]).
///
/// Ids, for `ic` in `ic1`, `ic2`:
/// `model/keerthi/<ic>/phi_residual_before`, `.../phi_residual_after` (‖φ‖₂ \[mixed m, m²\]),
/// plus extras `.../iterations` and `.../position_change` (‖q − q_g‖₂).
/// A projection failure is reported as NaN (it does not happen for these data).
pub fn keerthi_consistency_rows() -> Vec<Row> {
    let robot = KeerthiRobot::default();
    let mut rows = Vec::new();
    for (name, ic) in [("ic1", KEERTHI_IC1), ("ic2", KEERTHI_IC2)] {
        let id = |s: &str| format!("model/keerthi/{name}/{s}");
        let (before, after, iterations, dq) = match consistent_state(
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
                (
                    cs.position_residual_before,
                    cs.position_residual_after,
                    cs.iterations as f64,
                    dq,
                )
            }
            Err(_) => (f64::NAN, f64::NAN, f64::NAN, f64::NAN),
        };
        rows.push(Row::value(id("phi_residual_before"), before, "").note(
            "‖φ‖₂ of the initial condition as printed (REPRODUCTION.md: ≈ 1e-4 and ≈ 1.6e-3)",
        ));
        rows.push(
            Row::roundoff(id("phi_residual_after"), after, "", 1e-13)
                .note("‖φ‖₂ after consistent_state (Gauss–Newton with minimum-norm steps); round-off level")
                .tolerance(Tolerance::AtMost(1e-13)),
        );
        rows.push(
            Row::count(id("iterations"), iterations)
                .note("Gauss–Newton iterations of consistent_state"),
        );
        rows.push(
            Row::value(id("position_change"), dq, "")
                .note("‖q − q_printed‖₂ moved by consistent_state"),
        );
    }
    rows
}

/// The rows `model/keerthi/*`.
pub fn source() -> SourceResult {
    Ok(SourceOutput::rows(keerthi_consistency_rows()))
}
