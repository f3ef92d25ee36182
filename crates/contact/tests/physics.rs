//! Physical facts of unilateral contact: rebound heights, energy lost at impacts, bouncing to
//! rest (Zeno → persistent contact), symmetric impulses of two simultaneous contacts.

use contour_contact::test_models::{BarOnSupports, BouncingBall, WallPendulum};
use contour_contact::{simulate, ContactConfig, EventKind, ModernConfig, Scheme};

fn modern() -> Scheme {
    Scheme::Modern(ModernConfig {
        rtol: 1e-12,
        atol: 1e-14,
        ..ModernConfig::default()
    })
}

#[test]
fn ball_rebound_heights_are_in_ratio_e_squared() {
    let ball = BouncingBall::default();
    for e in [0.9, 0.5, 0.3] {
        let mut cfg = ContactConfig::new(2.5, modern());
        cfg.restitution = e;
        let tr = simulate(&ball, 0.0, &[1.0], &[0.0], cfg).unwrap();
        let impacts: Vec<_> = tr.events_of(EventKind::Impact).collect();
        assert!(impacts.len() >= 3, "e = {e}: {} impacts", impacts.len());
        // first impact: t = sqrt(2h/g), v⁻ = −sqrt(2gh)
        let t1 = (2.0f64 / 9.81).sqrt();
        assert!(
            (impacts[0].t - t1).abs() < 1e-11,
            "{} vs {t1}",
            impacts[0].t
        );
        let heights: Vec<f64> = impacts
            .iter()
            .map(|ev| ev.normal_velocity_after.unwrap().powi(2) / (2.0 * 9.81))
            .collect();
        let h0 = 1.0;
        assert!((heights[0] / h0 - e * e).abs() < 1e-9);
        for k in 1..heights.len().min(6) {
            let ratio = heights[k] / heights[k - 1];
            assert!((ratio - e * e).abs() < 1e-9, "e = {e}, k = {k}: {ratio}");
        }
        // the apex between the first two impacts from the output samples ≈ e² h0
        let apex = tr
            .times
            .iter()
            .zip(&tr.q)
            .filter(|(t, _)| **t > impacts[0].t && **t < impacts[1].t)
            .map(|(_, q)| q[0])
            .fold(0.0f64, f64::max);
        assert!(
            apex <= e * e * h0 + 1e-12 && apex > 0.9 * e * e * h0,
            "{apex}"
        );
    }
}

#[test]
fn plastic_ball_stays_on_the_floor() {
    let ball = BouncingBall::default();
    let tr = simulate(
        &ball,
        0.0,
        &[1.0],
        &[0.0],
        ContactConfig::new(2.0, modern()),
    )
    .unwrap();
    assert_eq!(tr.events_of(EventKind::Impact).count(), 1);
    let imp = tr.events_of(EventKind::Impact).next().unwrap();
    // ξ = −A⁻¹ J q̇⁻ = m sqrt(2 g h)  (Huang (3.3.8))
    assert!((imp.impulse.unwrap() - (2.0f64 * 9.81).sqrt()).abs() < 1e-10);
    assert_eq!(tr.events_of(EventKind::Exit).count(), 0);
    for (t, (q, l)) in tr.times.iter().zip(tr.q.iter().zip(&tr.lambda)) {
        if *t > imp.t + 1e-9 {
            assert!(q[0].abs() < 1e-12, "t = {t}: y = {}", q[0]);
            assert!((l[0] - 9.81).abs() < 1e-9, "λ = {}", l[0]);
        }
    }
}

#[test]
fn bouncing_to_rest_ends_in_persistent_contact() {
    let ball = BouncingBall::default();
    let mut cfg = ContactConfig::new(3.0, modern());
    cfg.restitution = 0.5;
    let tr = simulate(&ball, 0.0, &[1.0], &[0.0], cfg).unwrap();
    let n_imp = tr.events_of(EventKind::Impact).count();
    assert!(n_imp > 5 && n_imp < 60, "{n_imp} impacts");
    assert_eq!(tr.events_of(EventKind::PersistentContact).count(), 1);
    // accumulation time: t∞ = t1 (1 + 2e/(1−e)) = 3 t1 for e = 1/2
    let t1 = (2.0f64 / 9.81).sqrt();
    let pc = tr.events_of(EventKind::PersistentContact).next().unwrap();
    assert!((pc.t - 3.0 * t1).abs() < 1e-5, "{} vs {}", pc.t, 3.0 * t1);
    let last = tr.q.last().unwrap()[0];
    assert!(last.abs() < 1e-12 && tr.qd.last().unwrap()[0].abs() < 1e-12);
}

#[test]
fn pendulum_wall_energy_loss_equals_the_impact_law() {
    let p = WallPendulum::default();
    for e in [0.0, 0.6] {
        let mut cfg = ContactConfig::new(4.0, modern());
        cfg.restitution = e;
        let tr = simulate(&p, 0.0, &[1.0], &[0.0], cfg).unwrap();
        let impacts: Vec<_> = tr.events_of(EventKind::Impact).collect();
        assert!(!impacts.is_empty());
        let e0 = -9.81 * 1.0f64.cos(); // initial energy (at rest at θ = 1)
        let mut energy_before = e0;
        for ev in impacts.iter().take(3) {
            let th = ev.q[0];
            // the impact happens at the wall: sin θ = −d/ℓ
            assert!((th.sin() + 0.5).abs() < 1e-10);
            let jv = ev.normal_velocity_before.unwrap();
            let a = th.cos().powi(2); // A = J M⁻¹ Jᵀ with m = ℓ = 1
            let loss = 0.5 * (1.0 - e * e) * jv * jv / a;
            assert!(
                (ev.energy_loss.unwrap() - loss).abs() < 1e-10 * (1.0 + loss),
                "{:?}",
                ev.energy_loss
            );
            // energy balance across the impact from the states
            let after = 0.5 * ev.qd[0].powi(2) - 9.81 * th.cos();
            assert!(
                (energy_before - after - loss).abs() < 1e-8,
                "{energy_before} {after} {loss}"
            );
            energy_before = after;
        }
    }
}

#[test]
fn bar_falling_flat_gets_symmetric_impulses() {
    let bar = BarOnSupports::default();
    let tr = simulate(
        &bar,
        0.0,
        &[0.0, 0.5, 0.0],
        &[0.0, 0.0, 0.0],
        ContactConfig::new(1.0, modern()),
    )
    .unwrap();
    let imp: Vec<_> = tr.events_of(EventKind::Impact).collect();
    assert_eq!(imp.len(), 2, "{:?}", tr.events);
    let v = (2.0f64 * 9.81 * 0.5).sqrt();
    assert!((imp[0].t - imp[1].t).abs() == 0.0);
    for ev in &imp {
        assert!(
            (ev.impulse.unwrap() - 0.5 * v).abs() < 1e-9,
            "{:?}",
            ev.impulse
        );
    }
    let l = tr.lambda.last().unwrap();
    assert!(
        (l[0] - 0.5 * 9.81).abs() < 1e-9 && (l[1] - 0.5 * 9.81).abs() < 1e-9,
        "{l:?}"
    );
}

#[test]
fn trajectory_round_trips_through_json() {
    let ball = BouncingBall::default();
    let mut cfg = ContactConfig::new(1.0, modern());
    cfg.restitution = 0.5;
    cfg.output_dt = Some(0.1);
    let tr = simulate(&ball, 0.0, &[1.0], &[0.0], cfg).unwrap();
    let json = serde_json::to_string(&tr).unwrap();
    let back: contour_contact::ContactTrajectory = serde_json::from_str(&json).unwrap();
    // serde_json parses floats to within an ulp (no `float_roundtrip` feature)
    assert_eq!(back.events.len(), tr.events.len());
    assert_eq!(back.times.len(), tr.times.len());
    for (a, b) in back.times.iter().zip(&tr.times) {
        assert!((a - b).abs() <= 4.0 * f64::EPSILON * b.abs());
    }
    for (a, b) in back.events.iter().zip(&tr.events) {
        assert_eq!(a.kind, b.kind);
        assert_eq!(a.row, b.row);
        assert_eq!(a.impulse.is_some(), b.impulse.is_some());
        if let (Some(x), Some(y)) = (a.impulse, b.impulse) {
            assert!((x - y).abs() <= 4.0 * f64::EPSILON * y.abs());
        }
    }
    assert_eq!(back.stats, tr.stats);
    assert_eq!(back.trajectory.stats, tr.trajectory.stats);
    // every event has its time and kind; exactly the impacts carry a (positive) impulse
    assert!(back.events.iter().all(|e| e.t.is_finite()
        && (e.kind == EventKind::Impact) == e.impulse.is_some_and(|x| x > 0.0)
        && e.impulse.is_none_or(|x| x > 0.0)));
}
