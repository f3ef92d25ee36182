//! Entry and exit procedures: event location vs Huang's interpolation (5.3.6)–(5.3.10), exit on
//! λ = 0 vs Huang's Taylor prediction, tangency (3.3.13), stick–slip, input validation, LCP.

use contour_contact::test_models::BouncingBall;
use contour_contact::{
    simulate, ContactConfig, ContactError, EntryLocation, EventKind, ExitCriterion,
    HuangSchemeConfig, Lcp, ModernConfig, Scheme,
};
use contour_model::{ConstraintKind, Controller, Mechanism, WithController};
use faer::MatMut;

fn modern() -> Scheme {
    Scheme::Modern(ModernConfig {
        rtol: 1e-12,
        atol: 1e-14,
        ..ModernConfig::default()
    })
}

fn huang(entry: EntryLocation, exit: ExitCriterion) -> Scheme {
    Scheme::Huang(HuangSchemeConfig {
        h_free: 0.01,
        h_constrained: 0.01,
        entry,
        exit,
        literal_transitions: false,
        ..HuangSchemeConfig::default()
    })
}

#[test]
fn huang_entry_interpolation_lands_within_eps() {
    let ball = BouncingBall::default();
    let t_exact = (2.0f64 / 9.81).sqrt();
    for (entry, tol) in [
        (EntryLocation::EventLocation, 1e-12),
        (
            EntryLocation::HuangInterpolation { eps: 1e-6 },
            1e-6 / 4.4 + 1e-12,
        ),
    ] {
        let tr = simulate(
            &ball,
            0.0,
            &[1.0],
            &[0.0],
            ContactConfig::new(1.0, huang(entry, ExitCriterion::TaylorPrediction)),
        )
        .unwrap();
        let imp: Vec<_> = tr.events_of(EventKind::Impact).collect();
        assert_eq!(imp.len(), 1, "{entry:?}");
        assert!(
            (imp[0].t - t_exact).abs() <= tol,
            "{entry:?}: {}",
            imp[0].t - t_exact
        );
        // plastic: ξ = m |v⁻| (Huang (5.3.12)); the ball then rests with λ = m g
        assert!((imp[0].impulse.unwrap() - 9.81 * t_exact).abs() < 1e-5);
        let last = tr.lambda.last().unwrap()[0];
        assert!((last - 9.81).abs() < 1e-6, "{last}");
    }
}

/// Lifts the ball with F(t) = m g t: λ = m g (1 − t) reaches zero at t = 1.
struct Lift;
impl Controller for Lift {
    fn forces(&self, t: f64, _q: &[f64], _qd: &[f64], u: &mut [f64]) {
        u[0] += 9.81 * t;
    }
}

#[test]
fn exit_when_the_contact_force_vanishes() {
    let ball = WithController::new(BouncingBall::default(), Lift);
    let tr = simulate(
        &ball,
        0.0,
        &[0.0],
        &[0.0],
        ContactConfig::new(1.5, modern()),
    )
    .unwrap();
    let exits: Vec<_> = tr.events_of(EventKind::Exit).collect();
    assert_eq!(exits.len(), 1);
    assert!((exits[0].t - 1.0).abs() < 1e-12, "{}", exits[0].t);
    // tangency (3.3.13): J q̇ = 0 at the exit
    assert!(exits[0].normal_velocity_after.unwrap().abs() < 1e-12);
    // free flight after: y = g (t−1)³/6
    let y = tr.q.last().unwrap()[0];
    assert!((y - 9.81 * 0.125 / 6.0).abs() < 1e-9, "{y}");
    // Huang's Taylor prediction leaves within one step of the exact time, before it
    let exit_time = |criterion| {
        let cfg = ContactConfig::new(1.5, huang(EntryLocation::EventLocation, criterion));
        let tr = simulate(&ball, 0.0, &[0.0], &[0.0], cfg).unwrap();
        let t = tr.events_of(EventKind::Exit).next().unwrap().t;
        t
    };
    let t = exit_time(ExitCriterion::TaylorPrediction);
    assert!(t <= 1.0 + 1e-9 && t > 0.98, "{t}");
    let t = exit_time(ExitCriterion::ContactForceEvent);
    assert!((t - 1.0).abs() < 1e-6, "{t}");
}

/// A point mass on a floor y ≥ 0 under gravity, q = (x, y), pushed by a constant force.
struct Block {
    push: f64,
}
impl Mechanism for Block {
    fn name(&self) -> &str {
        "block"
    }
    fn dof(&self) -> usize {
        2
    }
    fn n_constraints(&self) -> usize {
        1
    }
    fn constraint_kind(&self, _row: usize) -> ConstraintKind {
        ConstraintKind::Unilateral
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        m.fill(0.0);
        m[(0, 0)] = 1.0;
        m[(1, 1)] = 1.0;
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        h[0] = 0.0;
        h[1] = 9.81;
    }
    fn applied_forces(&self, _t: f64, _q: &[f64], _qd: &[f64], u: &mut [f64]) {
        u[0] = self.push;
        u[1] = 0.0;
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        phi[0] = q[1];
    }
    fn constraint_jacobian(&self, _t: f64, _q: &[f64], mut j: MatMut<'_, f64>) {
        j[(0, 0)] = 0.0;
        j[(0, 1)] = 1.0;
    }
    fn constraint_accel_bias(&self, _t: f64, _q: &[f64], _qd: &[f64], rho: &mut [f64]) {
        rho[0] = 0.0;
    }
}

#[test]
fn sliding_block_stops_and_sticks_then_slips_under_a_large_push() {
    // μ = 0.5, v0 = 1: decelerates at μ g, stops at t = v0/(μ g) after v0²/(2 μ g), then sticks
    let mut cfg = ContactConfig::new(1.0, modern());
    cfg.friction = 0.5;
    let tr = simulate(
        &Block { push: 0.0 },
        0.0,
        &[0.0, 0.0],
        &[1.0, 0.0],
        cfg.clone(),
    )
    .unwrap();
    let stop = 1.0 / (0.5 * 9.81);
    let rev = tr.events_of(EventKind::Reversal).next().unwrap();
    assert!((rev.t - stop).abs() < 1e-10, "{}", rev.t);
    // friction events belong to no row and carry no impulse
    assert!(tr
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Reversal | EventKind::Stick))
        .all(|e| e.row.is_none() && e.impulse.is_none() && e.q.len() == 2));
    assert_eq!(tr.events_of(EventKind::Stick).count(), 1);
    let x = tr.q.last().unwrap()[0];
    assert!((x - 1.0 / (2.0 * 0.5 * 9.81)).abs() < 1e-10, "{x}");
    // a push of 0.6 m g > μ m g: never sticks, accelerates at 0.1 g
    let tr = simulate(
        &Block { push: 0.6 * 9.81 },
        0.0,
        &[0.0, 0.0],
        &[0.0, 0.0],
        cfg,
    )
    .unwrap();
    assert_eq!(tr.events_of(EventKind::Stick).count(), 0);
    let x = tr.q.last().unwrap()[0];
    assert!((x - 0.5 * 0.1 * 9.81).abs() < 1e-9, "{x}");
}

#[test]
fn bad_input_is_a_typed_error() {
    let ball = BouncingBall::default();
    let cfg = ContactConfig::new(1.0, modern());
    assert!(matches!(
        simulate(&ball, 0.0, &[f64::NAN], &[0.0], cfg.clone()),
        Err(ContactError::NonFinite { .. })
    ));
    assert!(matches!(
        simulate(&ball, 0.0, &[1.0, 2.0], &[0.0], cfg.clone()),
        Err(ContactError::DimensionMismatch { .. })
    ));
    let mut bad = cfg.clone();
    bad.restitution = 1.5;
    assert!(matches!(
        simulate(&ball, 0.0, &[1.0], &[0.0], bad),
        Err(ContactError::InvalidParameter {
            name: "restitution",
            ..
        })
    ));
    let pendulum = contour_model::models::Pendulum::default();
    assert!(matches!(
        simulate(&pendulum, 0.0, &[0.0, -1.0], &[0.0, 0.0], cfg),
        Err(ContactError::BilateralRow { row: 0 })
    ));
}

#[test]
fn lcp_solutions_are_complementary_on_random_spd_problems() {
    // deterministic generator (SplitMix64)
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) as f64 / u64::MAX as f64) * 2.0 - 1.0
    };
    let mut lcp = Lcp::new(6);
    for k in 1..=6 {
        for _ in 0..20 {
            let g: Vec<f64> = (0..k * k).map(|_| next()).collect();
            let mut a = vec![0.0; k * k];
            for i in 0..k {
                for j in 0..k {
                    a[i * k + j] = (0..k).map(|p| g[i * k + p] * g[j * k + p]).sum::<f64>()
                        + if i == j { 0.5 } else { 0.0 };
                }
            }
            let b: Vec<f64> = (0..k).map(|_| next()).collect();
            let (mut z, mut w) = (vec![0.0; k], vec![0.0; k]);
            lcp.solve(&a, &b, &mut z, &mut w).unwrap();
            let scale = 64.0 * f64::EPSILON * k as f64;
            for i in 0..k {
                let wi = b[i] + (0..k).map(|j| a[i * k + j] * z[j]).sum::<f64>();
                assert!(z[i] >= 0.0 && wi >= -scale * 10.0, "k={k}");
                assert!((z[i] * wi).abs() < scale * 10.0, "k={k}: {} {}", z[i], wi);
            }
        }
    }
}
