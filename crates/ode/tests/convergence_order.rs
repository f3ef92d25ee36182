//! Measured convergence orders on problems with exact solutions (constant-step halving,
//! `log₂` of the error ratio) must lie within ±0.3 of the theory: RKG 4, DOPRI5 5, ABM at
//! fixed order k: k + 1 (PECE with local extrapolation); the implicit methods are in
//! `implicit_methods.rs` (BDF k: k, Huang's BDF2: 2, SIRK: 3).

use contour_ode::verification::{abm_order, dopri_order, rkg_order};

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
