//! The contact simulator returns the workspace's one result type: a
//! `contour_trajectory::Trajectory` (outputs, events, mapped statistics) inside
//! `ContactTrajectory`, written as JSON and CSV like every other simulation.

use contour_contact::test_models::BouncingBall;
use contour_contact::{simulate, ContactConfig, EventKind, HuangSchemeConfig, Scheme};
use contour_trajectory::Trajectory;

fn bouncing(scheme: Scheme) -> contour_contact::ContactTrajectory {
    let mut cfg = ContactConfig::new(1.0, scheme);
    cfg.restitution = 0.5;
    simulate(&BouncingBall::default(), 0.0, &[1.0], &[0.0], cfg).unwrap()
}

#[test]
fn statistics_names_and_states_are_mapped() {
    for (scheme, names) in [
        (Scheme::default(), ("modern", "dopri5")),
        (
            Scheme::Huang(HuangSchemeConfig::default()),
            ("huang", "rkg+bdf2"),
        ),
    ] {
        let tr = bouncing(scheme);
        let s = &tr.trajectory.stats;
        assert_eq!((tr.method.as_str(), tr.integrator.as_str()), names);
        assert_eq!(tr.scheme(), names.0);
        assert!(tr.stats.steps > 10);
        assert_eq!(s.steps as u64, tr.stats.steps);
        assert_eq!(s.f_evals as u64, tr.stats.evals);
        assert_eq!(s.output_evals, tr.times.len());
        assert_eq!(s.restarts as u64 + 1, tr.stats.segments);
        assert_eq!(tr.x_initial, vec![1.0, 0.0]);
        let (q, qd) = (tr.q.last().unwrap(), tr.qd.last().unwrap());
        assert_eq!(tr.x_final, vec![q[0], qd[0]]);
        assert_eq!(*tr.times.last().unwrap(), 1.0);
        assert!(tr.events_of(EventKind::Impact).count() >= 1);
    }
}

#[test]
fn events_carry_the_values_of_their_kind() {
    let tr = bouncing(Scheme::default());
    // impacts at t1 = sqrt(2/g) and t1 + 2·e·sqrt(2/g): ξ = (1 + e)·sqrt(2 g h)
    let t1 = (2.0f64 / 9.81).sqrt();
    let imp: Vec<_> = tr.events_of(EventKind::Impact).collect();
    assert!((imp[0].t - t1).abs() < 1e-9);
    assert_eq!(imp[0].row, Some(0));
    let v = (2.0f64 * 9.81).sqrt();
    assert!((imp[0].impulse.unwrap() - 1.5 * v).abs() < 1e-8);
    assert!((imp[0].normal_velocity_before.unwrap() + v).abs() < 1e-8);
    assert!((imp[0].normal_velocity_after.unwrap() - 0.5 * v).abs() < 1e-8);
    assert!((imp[0].energy_loss.unwrap() - 0.5 * (1.0 - 0.25) * v * v).abs() < 1e-8);
    for e in &tr.events {
        assert_eq!((e.q.len(), e.qd.len()), (1, 1));
        match e.kind {
            EventKind::Impact => assert!(e.impulse.is_some() && e.energy_loss.is_some()),
            EventKind::Entry | EventKind::Exit => {
                assert!(e.row.is_some() && e.impulse.is_none() && e.energy_loss.is_none());
                assert_eq!(e.normal_velocity_before, e.normal_velocity_after);
            }
            _ => assert!(e.impulse.is_none()),
        }
    }
}

#[test]
fn the_trajectory_is_written_as_json_and_csv() {
    let tr = bouncing(Scheme::default());
    let mut json = Vec::new();
    tr.write_json(&mut json).unwrap();
    let back = Trajectory::read_json(json.as_slice()).unwrap();
    assert_eq!(back.events.len(), tr.events.len());
    assert_eq!(back.stats, tr.trajectory.stats);
    for (a, b) in back.events.iter().zip(&tr.events) {
        assert_eq!((a.kind, a.row), (b.kind, b.row));
        assert!((a.t - b.t).abs() <= 2.0 * f64::EPSILON * b.t);
    }
    let mut csv = Vec::new();
    tr.write_csv(&mut csv).unwrap();
    let csv = String::from_utf8(csv).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "t,q0,qd0,lambda0");
    assert_eq!(lines.len(), tr.times.len() + 1);
    let last: Vec<f64> = lines[lines.len() - 1]
        .split(',')
        .map(|x| x.parse().unwrap())
        .collect();
    let k = tr.times.len() - 1;
    assert_eq!(
        last,
        vec![tr.times[k], tr.q[k][0], tr.qd[k][0], tr.lambda[k][0]]
    );
    let mut ev = Vec::new();
    tr.write_events_csv(&mut ev).unwrap();
    let ev = String::from_utf8(ev).unwrap();
    let lines: Vec<&str> = ev.lines().collect();
    assert_eq!(lines.len(), tr.events.len() + 1);
    assert!(lines[0].ends_with(",q0,qd0"));
    let first_impact = lines
        .iter()
        .find(|l| l.split(',').nth(1) == Some("Impact"))
        .unwrap();
    let cells: Vec<&str> = first_impact.split(',').collect();
    assert_eq!(cells[2], "0");
    let xi: f64 = cells[3].parse().unwrap();
    assert_eq!(
        xi,
        tr.events_of(EventKind::Impact)
            .next()
            .unwrap()
            .impulse
            .unwrap()
    );
}
