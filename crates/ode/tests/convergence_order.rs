//! Measured convergence orders on problems with exact solutions (constant-step halving,
//! `log₂` of the error ratio) must lie within ±0.3 of the theory: RKG 4, DOPRI5 5, ABM at
//! fixed order k: k + 1 (PECE with local extrapolation); the implicit methods are in
//! `implicit_methods.rs` (BDF k: k, Huang's BDF2: 2, SIRK: 3).

use contour_ode::reproduction::{abm_order, dopri_order, order_rows, rkg_order};

fn assert_order(name: &str, theory: f64, (errors, measured): (Vec<f64>, f64)) {
    println!("{name}: errors {errors:?} → order {measured:.3} (theory {theory})");
    assert!(
        (measured - theory).abs() <= 0.3,
        "{name}: measured {measured}, theory {theory}"
    );
    assert!(
        errors.windows(2).all(|w| w[1] < w[0]),
        "{name}: errors must decrease: {errors:?}"
    );
}

#[test]
fn runge_kutta_gill_is_fourth_order() {
    assert_order("rkg", 4.0, rkg_order().unwrap());
}

#[test]
fn dormand_prince_is_fifth_order() {
    assert_order("dopri5", 5.0, dopri_order().unwrap());
}

#[test]
fn adams_fixed_order_k_is_order_k_plus_one() {
    for k in 1..=6 {
        assert_order(&format!("abm k{k}"), (k + 1) as f64, abm_order(k).unwrap());
    }
}

#[test]
fn reproduction_rows_have_the_documented_ids() {
    let rows = order_rows();
    let ids: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
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
    for (id, theory, measured) in rows {
        assert!(
            (theory - measured).abs() <= 0.3,
            "{id}: {measured} vs {theory}"
        );
    }
}

#[test]
fn stiff_and_dae_rows_have_the_documented_ids() {
    use contour_ode::reproduction::{dae_rows, stiff_rows};
    let stiff = stiff_rows();
    let ids: Vec<&str> = stiff.iter().map(|r| r.0.as_str()).collect();
    let mut want = Vec::new();
    for p in ["vdp1000", "robertson"] {
        for q in ["steps", "f_evals", "jacobians", "error"] {
            want.push(format!("ode/stiff/{p}/bdf/{q}"));
        }
    }
    assert_eq!(ids, want);
    assert!(
        stiff.iter().all(|r| r.1.is_finite() && r.1 >= 0.0),
        "{stiff:?}"
    );
    let dae = dae_rows();
    let ids: Vec<&str> = dae.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        ids,
        [
            "ode/dae/index1/bdf/error",
            "ode/dae/pendulum_ggl/bdf/steps",
            "ode/dae/pendulum_ggl/bdf/max_phi_drift"
        ]
    );
    assert!(dae[0].1 < 1e-5 && dae[2].1 < 1e-5, "{dae:?}");
}
