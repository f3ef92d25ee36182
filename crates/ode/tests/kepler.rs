//! Kepler two-body problem, e = 0.5, three periods: error vs f-evaluations for ABM and
//! Dormand–Prince at tolerances 1e-3 … 1e-10. Run with `--nocapture` to see the table.
//!
//! Facts checked: errors fall with the tolerance (over two decades, and overall by > 10⁴),
//! PECE costs ≈ 2 evaluations per step, and the variable-order ABM needs clearly fewer
//! f-evaluations than DOPRI5 at 1e-10.

use contour_ode::verification::{kepler_run, KeplerMethod, KEPLER_TOLS};

#[test]
fn work_precision_abm_vs_dopri5() {
    println!(
        "{:>7} {:>8} {:>10} {:>6} {:>8} {:>10} {:>6}",
        "tol", "abm nfev", "abm err", "steps", "dp nfev", "dp err", "steps"
    );
    let mut abm = Vec::new();
    let mut dp = Vec::new();
    for tol in KEPLER_TOLS {
        let a = kepler_run(KeplerMethod::Abm, tol).unwrap();
        let d = kepler_run(KeplerMethod::Dopri5, tol).unwrap();
        println!(
            "{tol:>7.0e} {:>8} {:>10.2e} {:>6} {:>8} {:>10.2e} {:>6}",
            a.1.f_evals, a.0, a.1.steps, d.1.f_evals, d.0, d.1.steps
        );
        // PECE: two evaluations per accepted step, one per rejected attempt, one to start.
        assert_eq!(a.1.f_evals, 2 * a.1.steps + a.1.rejected_steps + 1);
        // DOPRI5 with FSAL: six per attempt, plus the start and the initial-step estimate.
        assert_eq!(d.1.f_evals, 6 * (d.1.steps + d.1.rejected_steps) + 2);
        abm.push(a);
        dp.push(d);
    }
    for errs in [&abm, &dp] {
        for i in 0..errs.len() - 2 {
            assert!(
                errs[i + 2].0 < errs[i].0,
                "error must fall over two decades of tolerance"
            );
        }
        assert!(errs[7].0 < 1e-4 * errs[0].0);
        assert!(errs[7].0 < 1e-6);
    }
    let (na, nd) = (abm[7].1.f_evals, dp[7].1.f_evals);
    assert!(
        2 * na < nd,
        "ABM {na} vs DOPRI5 {nd} f-evaluations at 1e-10"
    );
}
