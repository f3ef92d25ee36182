//! Built as Huang states it ((6.2.1)–(6.2.3): the arc given, s1 and s2
//! solved from the normality condition), every printed coefficient of (6.2.5) and (6.2.9)
//! equals ours rounded to the digits printed. (b1 of (6.2.15), whose printed sign is wrong, is
//! not a coefficient of these two equations.) And the minimum times of both cases agree with
//! independent witnesses to 1e-7 relative.

use contour::planning::phase_plane::PhasePlaneConfig;
use contour_papers::huang::ch6_2_planning::{
    huang_paths, reported_config, solve_on, straight_rest_to_rest_time, witness_config,
};

/// `ours` rounded to as many decimals as `printed` has equals `printed`.
fn same_digits(name: &str, ours: f64, printed: &str) {
    let decimals = printed.split('.').nth(1).map_or(0, str::len);
    let rounded = format!("{:.*}", decimals, ours);
    let p: f64 = printed.parse().unwrap();
    let back: f64 = rounded.parse().unwrap();
    assert!(
        back == p,
        "{name}: ours {ours} rounds to {rounded}, printed {printed}"
    );
}

#[test]
fn every_printed_coefficient_is_reproduced_to_its_last_digit() {
    let (p1, p2) = huang_paths().unwrap();
    let c625 = [
        ("a1", "-0.7788"),
        ("a2", "0.4"),
        ("a3", "0.6273"),
        ("a4", "0.8"),
        ("c1", "0.0776"),
        ("c2", "0.3224"),
        ("c3", "-0.997"),
        ("c4", "1.797"),
    ];
    same_digits("s1", p1.s1, "0.3464");
    same_digits("s2", p1.s2, "0.6335");
    for (name, printed) in c625 {
        same_digits(name, p1.coefficient(name).unwrap(), printed);
    }
    let c629 = [
        ("d1", "5.036"),
        ("d2", "-2.5231"),
        ("d3", "0.4"),
        ("d4", "-1.0589"),
        ("d5", "0.994"),
        ("d6", "0.8"),
        ("e1", "-1.614"),
        ("e2", "2.7139"),
        ("e3", "-0.7"),
        ("e4", "-4.7475"),
        ("e5", "6.758"),
        ("e6", "-1.2104"),
    ];
    same_digits("s1", p2.s1, "0.3464");
    same_digits("s2", p2.s2, "0.6335");
    for (name, printed) in c629 {
        same_digits(name, p2.coefficient(name).unwrap(), printed);
    }
    // normality exact on the discontinuous-slope path
    assert!(p1.checks.normality_residual <= 1e-12);
}

#[test]
fn minimum_times_agree_with_independent_witnesses() {
    let (p1, _) = huang_paths().unwrap();
    let c = |n: &str| p1.coefficient(n).unwrap();
    let case1 = solve_on(
        &p1,
        PhasePlaneConfig {
            rest_points: vec![p1.s1, p1.s2],
            ..reported_config()
        },
    )
    .unwrap();
    // closed forms on the straight segments (unit speed: max(|a1|, |a3|) is the limiting axis)
    let w1 = straight_rest_to_rest_time(p1.s1, c("a1"), c("a3"), 1.0);
    let w3 = straight_rest_to_rest_time(1.0 - p1.s2, c("c1"), c("c3"), 1.0);
    assert!((case1.piece_times[0] - w1).abs() <= 1e-7 * w1);
    assert!((case1.piece_times[2] - w3).abs() <= 1e-7 * w3);
    // the arc and case 2(b): a second integration at far tighter settings
    let tau2 = solve_on(
        &p1,
        PhasePlaneConfig {
            rest_points: vec![p1.s1, p1.s2],
            ..witness_config()
        },
    )
    .unwrap()
    .piece_times[1];
    let rel1 = (case1.piece_times[1] - tau2) / tau2;
    let (_, p2) = huang_paths().unwrap();
    let case2 = solve_on(&p2, reported_config()).unwrap().total_time;
    let w2 = solve_on(&p2, witness_config()).unwrap().total_time;
    let rel2 = (case2 - w2) / w2;
    println!("tau2 {rel1:.2e}, case 2(b) {rel2:.2e}");
    assert!(
        rel1.abs() <= 1e-7 && rel2.abs() <= 1e-7,
        "{rel1:e} {rel2:e}"
    );
}
