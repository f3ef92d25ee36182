//! The unified result type written and read back: JSON round trip (events included), the CSV
//! of the outputs (header, one row per output time, values parsed back bit for bit), the CSV of
//! the events, typed errors for ragged data, and the events PERT and PARAM record.

use crate::common;

use common::keerthi_ic2;
use contour_model::models::Pendulum;
use contour_projection::{
    ErrorControl, Event, EventKind, Integrator, Method, ParametrizationConfig, PerturbationConfig,
    Simulation, Trajectory, TrajectoryIoError,
};

/// PERT on the pendulum with an acceptance threshold that forces redone steps (Remark 2.5).
fn pendulum_with_redos() -> Trajectory {
    let p = Pendulum::default();
    let (q, qd) = p.state(1.0, 0.0);
    let cfg = PerturbationConfig {
        accept_factor: 0.02,
        ..Default::default()
    };
    Simulation::new(&p, &q, &qd, 0.0, 2.0)
        .method(Method::Perturbation(cfg))
        .integrator(Integrator::abm())
        .error_control(ErrorControl::absolute(1e-6))
        .run()
        .unwrap()
}

fn close(a: f64, b: f64) -> bool {
    // serde_json's default float parser may miss the last bit
    (a - b).abs() <= 2.0 * f64::EPSILON * b.abs()
}

#[test]
fn pert_records_every_redone_step_as_an_event() {
    let tr = pendulum_with_redos();
    assert!(tr.stats.redone_steps > 0);
    assert_eq!(
        tr.events_of(EventKind::StepRedone).count(),
        tr.stats.redone_steps
    );
    assert_eq!(tr.events.len(), tr.stats.redone_steps);
    for e in &tr.events {
        assert!(e.t >= 0.0 && e.t < 2.0);
        assert_eq!((e.q.len(), e.qd.len()), (2, 2));
        // the restart point is on the circle
        assert!((e.q[0].powi(2) + e.q[1].powi(2) - 1.0).abs() < 1e-14);
        assert!(e.row.is_none() && e.impulse.is_none());
    }
    assert!(tr.events.windows(2).all(|w| w[0].t <= w[1].t));
}

#[test]
fn param_records_every_reparametrization_as_an_event() {
    let tr = keerthi_ic2(
        Method::Parametrization(ParametrizationConfig::default()),
        Integrator::abm(),
        1e-4,
        5.0,
    );
    assert!(tr.stats.reparametrizations > 0);
    assert_eq!(
        tr.events_of(EventKind::Reparametrization).count(),
        tr.stats.reparametrizations
    );
    assert_eq!(tr.events_of(EventKind::StepRedone).count(), 0);
}

#[test]
fn json_round_trip_keeps_outputs_events_and_stats() {
    let mut tr = pendulum_with_redos();
    let mut imp = Event::new(0.5, EventKind::Impact).with_state(&[1.0, -2.0, 3.0, 0.25]);
    imp.row = Some(3);
    imp.impulse = Some(1.25e-3);
    imp.normal_velocity_before = Some(-0.7);
    imp.normal_velocity_after = Some(0.35);
    imp.energy_loss = Some(0.1);
    tr.events.push(imp.clone());
    let mut buf = Vec::new();
    tr.write_json(&mut buf).unwrap();
    let back = Trajectory::read_json(buf.as_slice()).unwrap();
    assert_eq!(back.stats.steps, tr.stats.steps);
    assert_eq!(back.stats.redone_steps, tr.stats.redone_steps);
    assert_eq!(
        (back.method.as_str(), back.integrator.as_str()),
        ("perturbation", "abm")
    );
    assert_eq!(back.times.len(), tr.times.len());
    for k in 0..tr.times.len() {
        assert!(close(back.times[k], tr.times[k]));
        for (a, b) in back.q[k].iter().zip(&tr.q[k]) {
            assert!(close(*a, *b));
        }
        for (a, b) in back.lambda[k].iter().zip(&tr.lambda[k]) {
            assert!(close(*a, *b));
        }
    }
    assert_eq!(back.events.len(), tr.events.len());
    for (a, b) in back.events.iter().zip(&tr.events) {
        assert_eq!((a.kind, a.row), (b.kind, b.row));
        assert!(close(a.t, b.t));
        assert_eq!(a.impulse.is_some(), b.impulse.is_some());
    }
    let last = back.events.last().unwrap();
    assert_eq!(last.row, Some(3));
    assert!(close(last.impulse.unwrap(), 1.25e-3));
    assert!(close(last.energy_loss.unwrap(), 0.1));
    assert_eq!(last.qd, vec![3.0, 0.25]);
    // a trajectory serialized before `events` existed still reads (serde default)
    let mut v: serde_json::Value = serde_json::from_slice(&buf).unwrap();
    v.as_object_mut().unwrap().remove("events");
    let old: Trajectory = serde_json::from_value(v).unwrap();
    assert!(old.events.is_empty());
}

#[test]
fn csv_has_a_header_one_row_per_output_and_exact_values() {
    let tr = pendulum_with_redos();
    let mut buf = Vec::new();
    tr.write_csv(&mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "t,q0,q1,qd0,qd1,lambda0");
    assert_eq!(lines.len(), tr.times.len() + 1);
    assert!(tr.times.len() > 10);
    for (k, line) in lines[1..].iter().enumerate() {
        let v: Vec<f64> = line.split(',').map(|s| s.parse().unwrap()).collect();
        let mut want = vec![tr.times[k]];
        want.extend_from_slice(&tr.q[k]);
        want.extend_from_slice(&tr.qd[k]);
        want.extend_from_slice(&tr.lambda[k]);
        assert_eq!(v.len(), want.len());
        for (a, b) in v.iter().zip(&want) {
            assert_eq!(a.to_bits(), b.to_bits(), "row {k}: {a} vs {b}");
        }
    }
}

#[test]
fn csv_numbers_round_trip_at_every_magnitude() {
    let xs = [
        0.0,
        -0.0,
        1e-300,
        -2.5e-7,
        1e-5,
        0.1,
        1.0 / 3.0,
        -123456.789,
        9.99e15,
        1e16,
        -1.7e308,
        f64::MIN_POSITIVE / 8.0,
    ];
    let tr = Trajectory {
        times: xs.to_vec(),
        q: xs.iter().map(|&x| vec![x]).collect(),
        qd: xs.iter().map(|&x| vec![-x]).collect(),
        lambda: vec![Vec::new(); xs.len()].into(),
        ..Trajectory::new("test", "none")
    };
    let mut buf = Vec::new();
    tr.write_csv(&mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("t,q0,qd0"));
    for (line, &x) in lines.zip(&xs) {
        let v: Vec<f64> = line.split(',').map(|s| s.parse().unwrap()).collect();
        assert_eq!(v[0].to_bits(), x.to_bits(), "{line}");
        assert_eq!(v[2].to_bits(), (-x).to_bits(), "{line}");
        assert!(line.len() < 3 * 26, "{line}");
    }
}

#[test]
fn events_csv_leaves_missing_values_empty() {
    let mut tr = pendulum_with_redos();
    let n_redo = tr.events.len();
    let mut imp = Event::new(0.5, EventKind::Impact).with_state(&[1.0, -2.0, 3.0, 0.25]);
    imp.row = Some(1);
    imp.impulse = Some(0.5);
    tr.events.push(imp);
    tr.events.push(Event::new(0.75, EventKind::Stick));
    let mut buf = Vec::new();
    tr.write_events_csv(&mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "t,kind,row,impulse,normal_velocity_before,normal_velocity_after,energy_loss,q0,q1,qd0,qd1"
    );
    assert_eq!(lines.len(), n_redo + 3);
    assert!(lines[1..=n_redo]
        .iter()
        .all(|l| l.split(',').nth(1) == Some("StepRedone")));
    assert_eq!(lines[n_redo + 1], "0.5,Impact,1,0.5,,,,1,-2,3,0.25");
    assert_eq!(lines[n_redo + 2], "0.75,Stick,,,,,,,,,");
}

#[test]
fn ragged_data_is_a_typed_error() {
    let mut tr = pendulum_with_redos();
    tr.lambda = tr
        .lambda
        .iter()
        .enumerate()
        .map(|(k, r)| {
            if k == 3 {
                [r, &[1.0]].concat()
            } else {
                r.to_vec()
            }
        })
        .collect();
    let r = tr.write_csv(Vec::new());
    assert!(
        matches!(
            r,
            Err(TrajectoryIoError::RaggedRows {
                field: "lambda",
                index: 3,
                expected: 1,
                found: 2
            })
        ),
        "{r:?}"
    );
    tr.lambda.pop();
    let r = tr.write_csv(Vec::new());
    assert!(matches!(
        r,
        Err(TrajectoryIoError::LengthMismatch {
            field: "lambda",
            ..
        })
    ));
    tr.events
        .push(Event::new(0.1, EventKind::Entry).with_state(&[1.0, 2.0]));
    let r = tr.write_events_csv(Vec::new());
    assert!(
        matches!(
            r,
            Err(TrajectoryIoError::RaggedRows {
                field: "event q",
                ..
            })
        ),
        "{r:?}"
    );
}
