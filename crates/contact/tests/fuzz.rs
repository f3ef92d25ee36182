//! Seeded fuzz of the contact entry points: random lengths (0–4), random row indices (0–4),
//! values drawn from finite numbers, NaN, ±∞, ±1e300 and ±1e-300, fed to every
//! [`ContactDynamics`] query and to short simulations with random restitution, ε, tolerances
//! and steps. Every call must return without panicking, and an `Ok` must carry only finite
//! numbers. The counts are printed (`--nocapture`).

use crate::bad_input_table::Corner;
use contour_contact::test_models::BouncingBall;
use contour_contact::{
    simulate, ContactConfig, ContactDynamics, EntryLocation, FrictionMode, HuangSchemeConfig,
    ModernConfig, Scheme,
};
use contour_model::testing::SplitMix64;

fn pick(rng: &mut SplitMix64, n: usize) -> usize {
    (rng.next_u64() % n.max(1) as u64) as usize
}

/// A value: mostly ordinary, sometimes NaN, ±∞ or extreme.
fn value(rng: &mut SplitMix64) -> f64 {
    match pick(rng, 30) {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => f64::NEG_INFINITY,
        3 => 1e300 * if rng.unit() < 0.5 { -1.0 } else { 1.0 },
        4 => 1e-300,
        _ => rng.uniform(-3.0, 3.0),
    }
}

/// A vector of the right length `n` most of the time, else of a random length 0–4.
fn vector(rng: &mut SplitMix64, n: usize) -> Vec<f64> {
    let len = if rng.unit() < 0.85 { n } else { pick(rng, 5) };
    (0..len).map(|_| value(rng)).collect()
}

fn rows(rng: &mut SplitMix64) -> Vec<usize> {
    let len = pick(rng, 4);
    (0..len).map(|_| pick(rng, 4)).collect()
}

/// Counts of the outcomes.
#[derive(Default, Debug)]
struct Tally {
    calls: usize,
    ok: usize,
    err: usize,
}

impl Tally {
    fn record<T>(&mut self, r: &Result<T, contour_contact::ContactError>) {
        self.calls += 1;
        if r.is_ok() {
            self.ok += 1;
        } else {
            self.err += 1;
        }
    }
}

fn finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// 2000 random calls of the `ContactDynamics` queries on the corner mechanism.
#[test]
fn dynamics_queries_never_panic_nor_return_non_finite_ok() {
    let mut rng = SplitMix64::new(0x30c0_17ac);
    let mut t = Tally::default();
    for round in 0..2000 {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let m = Corner {
                mass: if rng.unit() < 0.1 { 1e-300 } else { 1.0 },
                push: value(&mut rng),
            };
            let mut d = ContactDynamics::new(&m);
            let (q, qd) = (vector(&mut rng, 2), vector(&mut rng, 2));
            let e = d.evaluate(&m, if rng.unit() < 0.05 { f64::NAN } else { 0.0 }, &q, &qd);
            t.record(&e);
            let (active, mut qdd, mut lam) =
                (rows(&mut rng), vector(&mut rng, 2), vector(&mut rng, 2));
            let friction = match pick(&mut rng, 3) {
                0 => FrictionMode::None,
                1 => FrictionMode::Slip {
                    mu: value(&mut rng),
                },
                _ => FrictionMode::Stick,
            };
            let qd2 = vector(&mut rng, 2);
            let r = d.accelerations(&active, friction, &qd2, &mut qdd, &mut lam);
            t.record(&r);
            if r.is_ok() {
                assert!(
                    finite(&qdd) && finite(&lam),
                    "round {round}: {qdd:?} {lam:?}"
                );
            }
            let r = d.contact_lcp(&rows(&mut rng), &mut lam);
            t.record(&r);
            if r.is_ok() {
                assert!(finite(&lam), "round {round}: {lam:?}");
            }
            let (rws, ev) = (rows(&mut rng), vector(&mut rng, 2));
            let (mut qd3, mut xi) = (vector(&mut rng, 2), vector(&mut rng, rws.len()));
            let r = d.impact(&rws, &ev, &mut qd3, &mut xi);
            t.record(&r);
            if r.is_ok() {
                assert!(finite(&qd3) && finite(&xi), "round {round}: {qd3:?} {xi:?}");
            }
            let r = d.normal_velocity(pick(&mut rng, 4), &vector(&mut rng, 2));
            t.record(&r);
            if let Ok(w) = r {
                assert!(w.is_finite());
            }
            let r = d.kinetic_energy(&vector(&mut rng, 2));
            t.record(&r);
            if let Ok(k) = r {
                assert!(k.is_finite());
            }
            let act = rows(&mut rng);
            let (mut rv, mut rl) = (vector(&mut rng, 2), vector(&mut rng, act.len()));
            let r = d.index1_residual(
                &act,
                value(&mut rng),
                &vector(&mut rng, 2),
                &vector(&mut rng, 2),
                &vector(&mut rng, act.len()),
                &mut rv,
                &mut rl,
            );
            t.record(&r);
            if r.is_ok() {
                assert!(finite(&rv) && finite(&rl));
            }
            let (mut qp, mut qdp) = (vector(&mut rng, 2), vector(&mut rng, 2));
            let r = d.project(&m, 0.0, &rows(&mut rng), &mut qp, &mut qdp, 3);
            t.record(&r);
            if r.is_ok() {
                assert!(finite(&qp) && finite(&qdp));
            }
        }));
        assert!(r.is_ok(), "round {round} panicked");
    }
    println!("contact dynamics fuzz: {t:?}");
    assert!(t.ok > 100 && t.err > 100, "{t:?}");
}

/// 60 short simulations of the bouncing ball with random configurations.
#[test]
fn simulations_never_panic_nor_return_non_finite_ok() {
    let mut rng = SplitMix64::new(0x5eed_c0de);
    let mut t = Tally::default();
    for round in 0..60 {
        let pos = if rng.unit() < 0.8 {
            rng.uniform(0.0, 0.5)
        } else {
            value(&mut rng)
        };
        let vel = if rng.unit() < 0.8 {
            rng.uniform(-1.0, 1.0)
        } else {
            value(&mut rng)
        };
        let scheme = if rng.unit() < 0.5 {
            let mut m = ModernConfig::default();
            match pick(&mut rng, 4) {
                0 => m.atol = 10f64.powf(rng.uniform(-320.0, -6.0)),
                1 => m.rtol = 10f64.powf(rng.uniform(-18.0, -6.0)),
                2 => m.h_max = value(&mut rng).abs(),
                _ => {}
            }
            Scheme::Modern(m)
        } else {
            let mut h = HuangSchemeConfig::default();
            match pick(&mut rng, 3) {
                0 => {
                    h.entry = EntryLocation::HuangInterpolation {
                        eps: value(&mut rng),
                    }
                }
                1 => {
                    h.h_free = 10f64.powf(rng.uniform(-3.5, 0.0))
                        * if rng.unit() < 0.2 { 1e-9 } else { 1.0 }
                }
                _ => {}
            }
            Scheme::Huang(h)
        };
        let mut cfg = ContactConfig::new(0.5, scheme);
        if rng.unit() < 0.3 {
            cfg.restitution = value(&mut rng);
        } else {
            cfg.restitution = rng.uniform(0.0, 1.0);
        }
        let r = std::panic::catch_unwind(|| {
            simulate(&BouncingBall::default(), 0.0, &[pos], &[vel], cfg)
        });
        let Ok(r) = r else {
            panic!("round {round} panicked");
        };
        t.record(&r);
        if let Ok(tr) = r {
            assert!(finite(&tr.x_final), "round {round}: {:?}", tr.x_final);
            assert!(tr.q.iter().chain(&tr.qd).chain(&tr.lambda).all(finite));
            // the ball never ends below the floor
            assert!(tr.x_final[0] > -1e-6, "round {round}: {:?}", tr.x_final);
        }
    }
    println!("contact simulation fuzz: {t:?}");
    assert!(t.ok > 5 && t.err > 5, "{t:?}");
}
