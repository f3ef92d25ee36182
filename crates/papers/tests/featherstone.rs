//! Featherstone's `planar2g`: the rows meet REPRODUCTION.md's bounds, and the perturbation
//! method on the implicit row `φ = q₂ − 2 sin q₁` agrees with FDgq to the tolerance.

use contour_papers::featherstone::{
    planar2g_implicit_vs_explicit, planar2g_implicit_vs_explicit_at, planar2g_rows,
};

#[test]
fn rows_meet_the_reproduction_tolerances() {
    let rows = planar2g_rows().unwrap();
    assert_eq!(rows[0].id, "featherstone/planar2g/energy_balance");
    assert!(rows[0].ours <= 1e-8, "{rows:?}");
    assert_eq!(rows[1].id, "featherstone/planar2g/max_constraint_residual");
    assert!(rows[1].ours <= 1e-10, "{rows:?}");
    assert!(rows[2].ours > 1.0, "the arm moved: {rows:?}");
}

#[test]
fn implicit_and_explicit_agree_to_the_tolerance() {
    let d = planar2g_implicit_vs_explicit().unwrap();
    assert!(d <= 1e-7, "{d:e}");
    // and the difference scales with the tolerance (the test can fail)
    let coarse = planar2g_implicit_vs_explicit_at(1e-6).unwrap();
    assert!(coarse > 100.0 * d, "{coarse:e} vs {d:e}");
}
