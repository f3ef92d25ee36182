//! Issue 14, item 5: with a coarse step cap (`max_step_fraction = 1`) the phase plane failed on
//! Huang's case 2(b) with "no switching point found": the backward curve from the first
//! zero-inertia point entered the forward profile's range in one large step, already past
//! their crossing, and took the far side for its starting side. The side is now taken at the
//! edge of the range. Coarse settings are still less accurate (−1.7e-6 here), not wrong.

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
        assert!(rel.abs() < 1e-5, "f = {f}: {rel:e}");
        assert_eq!(sol.switch_count(), 5, "f = {f}");
    }
}
