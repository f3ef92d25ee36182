//! With a coarse step cap (`max_step_fraction = 1`) the phase plane still finds the switching
//! points of Huang's case 2(b) and its minimum time follows rtol. Two ways to get this wrong:
//! a backward curve from the first zero-inertia point that enters the forward profile's range
//! in one large step, already past their crossing (the side is taken at the edge of the
//! range), and a time t = ∫ ds/ṡ (4.3.47) summed by a fixed chord rule on the interpolant of
//! x = ṡ², O((h/32)²) accurate and uncontrolled on long steps, which returns a time ~1e-6
//! *below* the minimum. The quadrature is exact to round-off (substitution + adaptive
//! Gauss–Legendre), the interpolant is Dormand–Prince's 4th-order dense output, and the step
//! control bounds the interpolant's error as well as the nodes': coarse caps only cost more
//! steps.

use contour::planning::phase_plane::PhasePlaneConfig;
use contour_papers::huang::ch6_2_planning::{huang_paths, solve_on, witness_config};

#[test]
fn coarse_step_cap_still_finds_the_switching_points() {
    let (_, p2) = huang_paths().unwrap();
    let witness = solve_on(&p2, witness_config()).unwrap().total_time;
    for f in [1.0, 0.1] {
        let sol = solve_on(
            &p2,
            PhasePlaneConfig {
                max_step_fraction: f,
                ..PhasePlaneConfig::default()
            },
        )
        .unwrap();
        let rel = (sol.total_time - witness) / witness;
        // measured: −2.4e-9 (f = 1), −2.2e-9 (f = 0.1); a chord-rule quadrature gives ~−1.7e-6
        assert!(rel.abs() < 1e-8, "f = {f}: {rel:e}");
        assert_eq!(sol.switch_count(), 5, "f = {f}");
    }
}

/// The error follows the tolerance on the coarsest cap: rtol 1e-8 → 1e-12 shrinks it by at
/// least 10× (measured −1.5e-8 → −3.7e-10; the fixed chord rule gave −8.7e-6 → −4.0e-7).
#[test]
fn coarse_step_cap_error_follows_the_tolerance() {
    let (_, p2) = huang_paths().unwrap();
    let witness = solve_on(&p2, witness_config()).unwrap().total_time;
    let err = |rtol: f64| {
        let sol = solve_on(
            &p2,
            PhasePlaneConfig {
                max_step_fraction: 1.0,
                rtol,
                atol: rtol * 1e-3,
                ..PhasePlaneConfig::default()
            },
        )
        .unwrap();
        ((sol.total_time - witness) / witness).abs()
    };
    let (coarse, fine) = (err(1e-8), err(1e-12));
    assert!(coarse < 1e-7, "rtol 1e-8: {coarse:e}");
    assert!(
        fine < 1e-9 && fine < 0.1 * coarse,
        "rtol 1e-12: {fine:e} vs {coarse:e}"
    );
}
