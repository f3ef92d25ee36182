//! The rows `ode/*`: documented ids, every measured order within ±0.3 of the theory, finite
//! stiff and DAE rows, the Kepler rows.

use contour_papers::ode_orders::{dae_rows, kepler_rows, kepler_runs, order_rows, stiff_rows};

#[test]
fn reproduction_rows_have_the_documented_ids() {
    let rows = order_rows().unwrap();
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "ode/order/rkg",
            "ode/order/dopri5",
            "ode/order/abm/k1",
            "ode/order/abm/k2",
            "ode/order/abm/k3",
            "ode/order/abm/k4",
            "ode/order/abm/k5",
            "ode/order/abm/k6",
            "ode/order/bdf/k1",
            "ode/order/bdf/k2",
            "ode/order/bdf/k3",
            "ode/order/bdf/k4",
            "ode/order/bdf/k5",
            "ode/order/bdf2_huang",
            "ode/order/sirk"
        ]
    );
    for r in rows {
        assert_eq!(r.within_tolerance(), Some(true), "{r:?}");
    }
}

#[test]
fn stiff_and_dae_rows_have_the_documented_ids() {
    let stiff = stiff_rows().unwrap();
    let ids: Vec<&str> = stiff.iter().map(|r| r.id.as_str()).collect();
    let mut want = Vec::new();
    for p in ["vdp1000", "robertson"] {
        for q in ["steps", "f_evals", "jacobians", "error"] {
            want.push(format!("ode/stiff/{p}/bdf/{q}"));
        }
    }
    assert_eq!(ids, want);
    assert!(
        stiff.iter().all(|r| r.ours.is_finite() && r.ours >= 0.0),
        "{stiff:?}"
    );
    let dae = dae_rows().unwrap();
    let ids: Vec<&str> = dae.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "ode/dae/index1/bdf/error",
            "ode/dae/pendulum_ggl/bdf/steps",
            "ode/dae/pendulum_ggl/bdf/max_phi_drift"
        ]
    );
    assert!(dae[0].ours < 1e-5 && dae[2].ours < 1e-5, "{dae:?}");
}

#[test]
fn kepler_rows_ids() {
    let rows = kepler_rows(&kepler_runs().unwrap());
    assert_eq!(rows.len(), 2 * 8 * 2);
    assert_eq!(rows[0].id, "ode/kepler/abm/1e-3/nfev");
    assert_eq!(rows[1].id, "ode/kepler/abm/1e-3/error");
    assert_eq!(rows[31].id, "ode/kepler/dopri5/1e-10/error");
    assert!(rows.iter().all(|r| r.ours.is_finite() && r.ours > 0.0));
}
