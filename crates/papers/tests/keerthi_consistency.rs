//! The rows `model/keerthi/*`: the printed initial conditions of Keerthi's robot miss the
//! constraints by ≈ 1.2e-4 and ≈ 1.6e-3; `consistent_state` brings both to round-off.

use contour_papers::keerthi::consistency::keerthi_consistency_rows;

#[test]
fn keerthi_rows_have_the_reproduction_ids_and_values() {
    let rows = keerthi_consistency_rows();
    let get = |id: &str| rows.iter().find(|r| r.id == id).map(|r| r.ours).expect(id);
    let b1 = get("model/keerthi/ic1/phi_residual_before");
    let b2 = get("model/keerthi/ic2/phi_residual_before");
    assert!((b1 - 1.1755e-4).abs() < 1e-8, "{b1:e}");
    assert!((b2 - 1.6018e-3).abs() < 1e-7, "{b2:e}");
    assert!(get("model/keerthi/ic1/phi_residual_after") <= 1e-14);
    assert!(get("model/keerthi/ic2/phi_residual_after") <= 1e-14);
    assert_eq!(rows.len(), 8);
}
