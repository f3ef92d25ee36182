//! Property of the correction (3.5)–(3.6): for a state `x = (q, v)` on the manifold and a
//! small perturbation `x̄ = x + δ`, the corrected state has `φ = 0` to round-off and
//! `J q̇ = O(|Δq|·|v|)` (the velocity problem uses `J(q̄)`, Keerthi (3.4)); and the corrected
//! position is no farther from `q̄` than `q` is, up to second order
//! (`‖q* − q̄‖ ≤ ‖q − q̄‖·(1 + 10‖δ‖)`), because `q` is feasible for (3.5) and MNR solves
//! (2.15), a first-order approximation of (2.14) (Theorem 3.1's argument). Deterministic
//! proptest configuration (ChaCha, fixed cases, no persistence).

use contour_model::consistent_state;
use contour_model::models::{KeerthiControlLaw, KeerthiRobot};
use contour_model::WithController;
use contour_projection::{ConstraintMonitor, ErrorControl, ManifoldProjection};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

#[test]
fn correction_is_feasible_and_near_optimal() {
    let sys = WithController::new(KeerthiRobot::default(), KeerthiControlLaw::default());
    let ec = ErrorControl::absolute(1e-4);
    let proj =
        std::cell::RefCell::new(ManifoldProjection::new(&sys, ec, &Default::default()).unwrap());
    let mon = std::cell::RefCell::new(ConstraintMonitor::new(&sys));
    let cfg = Config {
        cases: 64,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(cfg, TestRng::from_seed(RngAlgorithm::ChaCha, &[7u8; 32]));
    let strategy = (
        0.2f64..2.9,
        proptest::collection::vec(-1.0f64..1.0, 3),
        proptest::collection::vec(-1.0f64..1.0, 6),
        1e-7f64..5e-5,
    );
    runner
        .run(&strategy, |(q1, v, dir, size)| {
            // a consistent state near q1 (any guess is projected onto the circle)
            let cs = consistent_state(&sys, 0.0, &[q1, 0.2, 0.2], &v, &Default::default())
                .map_err(|e| TestCaseError::reject(format!("{e}")))?;
            let mut x: Vec<f64> = cs.q.clone();
            x.extend_from_slice(&cs.qd);
            let nrm = dir.iter().map(|d| d * d).sum::<f64>().sqrt().max(1e-3);
            let xbar: Vec<f64> = x
                .iter()
                .zip(&dir)
                .map(|(a, d)| a + size * d / nrm)
                .collect();
            let mut out = vec![0.0; 6];
            let o = proj
                .borrow_mut()
                .project(&sys, 0.0, &xbar, &mut out)
                .unwrap();
            prop_assert!(o.converged);
            let (ph, _) = mon.borrow_mut().violations(&sys, 0.0, &out);
            prop_assert!(ph < 1e-15, "phi {ph:e}");
            let (_, pd) = mon.borrow_mut().violations(&sys, 0.0, &out);
            let vmax = cs.qd.iter().fold(0.0f64, |m, a| m.max(a.abs()));
            prop_assert!(pd <= 10.0 * size * (1.0 + vmax), "J qd {pd:e}");
            // positions: ‖q* − q̄‖₂ vs ‖q − q̄‖₂ (T₁ = τ I for the absolute l2 norm)
            let dist = |a: &[f64], b: &[f64]| {
                a.iter()
                    .zip(b)
                    .map(|(x, y)| (x - y) * (x - y))
                    .sum::<f64>()
                    .sqrt()
            };
            let d_star = dist(&out[..3], &xbar[..3]);
            let d_true = dist(&x[..3], &xbar[..3]);
            prop_assert!(
                d_star <= d_true * (1.0 + 10.0 * size) + 1e-15,
                "{d_star:e} > {d_true:e}"
            );
            prop_assert!(o.norm <= 2.0 * size / 1e-4 * (1.0 + vmax) + 1e-9);
            Ok(())
        })
        .unwrap();
}
