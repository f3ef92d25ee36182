//! Huang's section 6.3: simulations I–III meet REPRODUCTION.md's tolerances, the chatter of
//! simulation II needs Huang's literal transitions, the figures 6.3.1–6.3.17 are all drawn,
//! and the planned forces of the scenario equal the inverse dynamics of contour-planning.

use contour_papers::huang::ch6_2_planning::huang_kinematic;
use contour_papers::huang::ch6_3_contact::{huang_sim_figures, huang_sim_rows};
use contour_papers::huang::scenario::HuangPlan;

#[test]
fn rows_meet_the_reproduction_tolerances() {
    let rows = huang_sim_rows().unwrap();
    let get = |id: &str| rows.iter().find(|r| r.id == id).unwrap().ours;
    assert!(get("huang/6.3.1/I/max_tracking_error") <= 1e-5);
    assert!(get("huang/6.3.1/I/max_force_error") <= 1e-3);
    let t_a = get("huang/6.3.1/II/t_first_impact");
    assert!(t_a < 1.56 && t_a > 0.5, "{t_a}");
    assert_eq!(get("huang/6.3.1/II/n_impacts"), 2.0);
    assert_eq!(get("huang/6.3.1/II/n_exits"), 2.0);
    for rtol in ["1e-6", "1e-8", "1e-12"] {
        let id = format!("huang/6.3.1/II/chatter/modern_rtol={rtol}/n_events");
        assert_eq!(get(&id), 5.0, "{id}");
    }
    // the chatter needs Huang's literal transitions: none with the complementarity rule
    assert_eq!(
        get("huang/6.3.1/II/chatter/eps=1e-3,non_literal/events_A_to_D"),
        2.0
    );
    assert!(get("huang/6.3.1/II/chatter/eps=1e-3/events_A_to_D") > 10.0);
    assert!(get("huang/6.3.1/II/xi_first_impact") > 0.0);
    let t_f = get("huang/6.3.1/III/t_reversal");
    assert!(t_f > 1.56 && t_f < 5.21, "{t_f}");
    // both schemes agree on the first impact (same MSU trajectory before A)
    let t_a_h = get("huang/6.3.1/II/huang_scheme/t_first_impact");
    assert!((t_a - t_a_h).abs() < 1e-3, "{t_a} {t_a_h}");
}

#[test]
fn figures_are_named_6_3_1_to_6_3_17() {
    let figs = huang_sim_figures().unwrap();
    let names: Vec<_> = figs.iter().map(|f| f.name.clone()).collect();
    let want: Vec<String> = (1..=17).map(|k| format!("fig6.3.{k}")).collect();
    assert_eq!(names, want);
    assert!(figs
        .iter()
        .all(|f| f.series.iter().all(|s| !s.points.is_empty())));
}

#[test]
fn desired_forces_match_the_planning_crate() {
    let plan = HuangPlan::case1a().unwrap();
    let samples = huang_kinematic(1, 70).unwrap();
    for s in samples.iter().filter(|s| {
        (s.t - 1.56).abs() > 1e-9 && (s.t - 5.21).abs() > 1e-9 && s.t > 0.0 && s.t < 7.0
    }) {
        let d = plan.desired(s.t);
        for k in 0..2 {
            assert!(
                (d.force[k] - s.torque[k]).abs() < 1e-9,
                "t = {}: {:?} vs {:?}",
                s.t,
                d.force,
                s.torque
            );
        }
    }
    let d0 = plan.desired(0.0);
    assert!((d0.q[0] - 0.4).abs() < 1e-12 && (d0.q[1] - 0.8).abs() < 1e-12);
}
