//! Huang's claims of sections 5.2.3–5.2.4 (rows `huang/5.2/*`, see
//! `contour_papers::huang::ch5_2_index`) asserted as numbers, and the final-time scan of
//! Keerthi's tables.

use contour_papers::huang::ch5_2_index::{final_time_scan_rows, huang52_rows};
use contour_papers::Row;

fn get(rows: &[Row], id: &str) -> f64 {
    rows.iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("missing row {id}"))
        .ours
}

#[test]
fn huang_claims_5_2() {
    let t = std::time::Instant::now();
    let rows = huang52_rows().unwrap();
    let elapsed = t.elapsed();
    for r in &rows {
        println!("{} | {:?} | {:.4e}", r.id, r.paper, r.ours);
        assert!(r.ours.is_finite(), "{}", r.id);
        assert!(!r.note.is_empty());
    }
    println!("huang52_rows: {elapsed:?}");

    // Claim 1: backward Euler's first step on index 3 — O(1) multiplier error exactly
    // S^-1 rho_0 / 2 when moving, vanishing from rest.
    for case in ["pendulum_moving", "robot_moving"] {
        let pred = get(
            &rows,
            &format!("huang/5.2/be_first_step/{case}/lambda_error_limit_predicted"),
        );
        let e4 = get(
            &rows,
            &format!("huang/5.2/be_first_step/{case}/lambda_error_h1e-4"),
        );
        assert!(pred > 0.5, "{case}: {pred}");
        assert!((e4 - pred).abs() < 0.01 * pred, "{case}: {e4} vs {pred}");
        let o = get(
            &rows,
            &format!("huang/5.2/be_first_step/{case}/lambda_order"),
        );
        assert!(o.abs() < 0.1, "{case}: order {o}");
        let ov = get(&rows, &format!("huang/5.2/be_first_step/{case}/v_order"));
        assert!((ov - 1.0).abs() < 0.3, "{case}: v order {ov}");
    }
    // Pendulum at theta = 1, omega = 2, m = l = 1: S = 4, rho = 8, S^-1 rho/2 = 1.
    let pred = get(
        &rows,
        "huang/5.2/be_first_step/pendulum_moving/lambda_error_limit_predicted",
    );
    assert!((pred - 1.0).abs() < 1e-12, "{pred}");
    for case in ["pendulum_rest", "robot_rest"] {
        let pred = get(
            &rows,
            &format!("huang/5.2/be_first_step/{case}/lambda_error_limit_predicted"),
        );
        assert_eq!(pred, 0.0);
        let o = get(
            &rows,
            &format!("huang/5.2/be_first_step/{case}/lambda_order"),
        );
        assert!(
            o > 1.7,
            "{case}: from rest the error vanishes with h, order {o}"
        );
        assert!(
            get(
                &rows,
                &format!("huang/5.2/be_first_step/{case}/lambda_error_h1e-4")
            ) < 1e-5
        );
    }
    // Claim 2: SIRK start — at least order 2 in q and v, 1 in lambda; BE on index 1.
    for case in ["pendulum_moving", "pendulum_rest"] {
        for (what, min) in [("q", 1.7), ("v", 1.7), ("lambda", 0.7)] {
            let o = get(
                &rows,
                &format!("huang/5.2/sirk_first_step/{case}/{what}_order"),
            );
            assert!(o >= min, "{case} {what}: {o}");
        }
        let e = get(
            &rows,
            &format!("huang/5.2/be_index1_start/{case}/lambda_error_h1e-4"),
        );
        assert!(e < 1e-5, "{case}: {e}");
    }
    // Claim 3: constant steps — order k (k = 1, 2; Huang's BDF2 with both starts; robot).
    for (prefix, k) in [
        ("pendulum/bdf1", 1.0),
        ("pendulum/bdf2", 2.0),
        ("pendulum/huang_bdf2_be", 2.0),
        ("pendulum/huang_bdf2_sirk", 2.0),
        ("robot_ic2/bdf2", 2.0),
    ] {
        for what in ["q", "v", "lambda"] {
            let o = get(
                &rows,
                &format!("huang/5.2/constant_step/{prefix}/{what}_order"),
            );
            assert!((o - k).abs() <= 0.3, "{prefix} {what}: {o} vs {k}");
        }
    }
    // BDF3 from exact starting values: order 3 ...
    for what in ["q", "v", "lambda"] {
        let o = get(
            &rows,
            &format!("huang/5.2/constant_step/pendulum/bdf3_exact_start/{what}_order"),
        );
        assert!((o - 3.0).abs() <= 0.3, "bdf3 exact start {what}: {o}");
    }
    // ... but started by the backward-Euler ramp: order 2, not 3 (start-up error).
    for what in ["q", "v", "lambda"] {
        let o = get(
            &rows,
            &format!("huang/5.2/constant_step/pendulum/bdf3/{what}_order"),
        );
        assert!((o - 2.0).abs() <= 0.4, "bdf3 {what}: {o}");
    }
    // Claim 4: variable steps — lambda loses the order (r = k - 1), BE has an O(1) error.
    let e = get(
        &rows,
        "huang/5.2/variable_step/pendulum/bdf1/lambda_error_smallest_h",
    );
    assert!(e > 0.5, "{e}");
    let o = get(&rows, "huang/5.2/variable_step/pendulum/bdf1/lambda_order");
    assert!(o.abs() <= 0.3, "{o}");
    for k in [2.0f64, 3.0] {
        let o = get(
            &rows,
            &format!("huang/5.2/variable_step/pendulum/bdf{k}/lambda_order"),
        );
        assert!((o - (k - 1.0)).abs() <= 0.3, "bdf{k} lambda: {o}");
    }
    // ... while q keeps order k for k = 1, 2 (better than Gear-Petzold's bound).
    for k in [1.0f64, 2.0] {
        let o = get(
            &rows,
            &format!("huang/5.2/variable_step/pendulum/bdf{k}/q_order"),
        );
        assert!((o - k).abs() <= 0.3, "bdf{k} q: {o}");
    }
    // Claim 5: drift.
    let d = |form: &str, q: &str| get(&rows, &format!("huang/5.2/drift/pendulum/{form}/{q}"));
    assert!(d("index3", "max_phi") < 1e-5);
    assert!(d("index2", "max_phi") > 1e-4 && d("index1", "max_phi") > 1e-4);
    assert!(d("index1_baumgarte", "max_phi") < d("index1", "max_phi"));
    assert!(d("index2", "late_over_early") > 2.0);
    assert!(d("index1_baumgarte", "late_over_early") < 1.5);
    let lin = get(
        &rows,
        "huang/5.2/drift_perturbed/pendulum/index1/phi_over_eps_t",
    );
    assert!((lin - 1.0).abs() < 0.1, "{lin}");
    let damped = get(
        &rows,
        "huang/5.2/drift_perturbed/pendulum/index1_baumgarte/phi_over_eps_t",
    );
    assert!(damped < 0.1, "{damped}");
    let r = |form: &str| get(&rows, &format!("huang/5.2/drift/robot_ic2/{form}/max_phi"));
    assert!(r("index3") < 1e-5 && r("index3") < r("index1_baumgarte"));
    assert!(r("index1_baumgarte") < r("index1") && r("index2") < r("index1"));
}

#[test]
fn final_time_scan() {
    let t = std::time::Instant::now();
    let rows = final_time_scan_rows().unwrap();
    println!("final_time_scan_rows: {:?}", t.elapsed());
    for r in &rows {
        println!("{} | {:?} | {}", r.id, r.paper, r.ours);
        assert!(r.note.contains("not used for the table rows"), "{}", r.id);
    }
    let t_best = get(&rows, "keerthi/extended/final_time_fit/T_best");
    assert!((1.0..=20.0).contains(&t_best));
    assert_eq!((t_best * 2.0).fract(), 0.0);
    // The best T is at least as good as the T = 5 s of the tables.
    let best = get(
        &rows,
        "keerthi/extended/final_time_fit/PERT/deviation_at_T_best",
    );
    let at5 = get(
        &rows,
        "keerthi/extended/final_time_fit/PERT/deviation_at_T5",
    );
    assert!(best <= at5, "{best} vs {at5}");
    // The deviation is recomputable from the N_i rows (the row holds it to 6 digits).
    let n1 = get(&rows, "keerthi/extended/final_time_fit/table4.1/PERT/N_i");
    let n2 = get(&rows, "keerthi/extended/final_time_fit/table4.2/PERT/N_i");
    let dev = (n1 - 33.0).abs() / 33.0 + (n2 - 121.0).abs() / 121.0;
    assert!((dev - best).abs() <= 1e-6 * dev, "{dev} vs {best}");
    assert!(rows
        .iter()
        .any(|r| r.id == "keerthi/extended/final_time_fit/table4.2/ECS/N_i"));
    assert!(rows
        .iter()
        .any(|r| r.id == "keerthi/extended/final_time_fit/table4.1/ICS0/N_i"));
}
