//! Seeded fuzz of the dense output and of the integrators' set-up: every method, a random
//! number of steps (0–3), buffers of random lengths (0–5) and output times inside the step,
//! far outside it, NaN and ±∞; then constructors and short runs with random tolerances
//! (down to 1e-320), step bounds (down to 1e-300) and initial states (NaN, ±∞, ±1e300). Every
//! call must return without panicking, and an `Ok` must carry only finite numbers. The
//! counts are printed (`--nocapture`).

use contour_ode::*;

/// SplitMix64 (Steele, Lea & Flood 2014), the seeded generator of the workspace's fuzz tests
/// (`contour_model::testing::SplitMix64`; contour-ode does not depend on contour-model).
struct SplitMix64(u64);

impl SplitMix64 {
    fn new(seed: u64) -> Self {
        Self(seed)
    }
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

fn pick(rng: &mut SplitMix64, n: usize) -> usize {
    (rng.next_u64() % n.max(1) as u64) as usize
}

/// Counts of the outcomes.
#[derive(Default, Debug)]
struct Tally {
    calls: usize,
    ok: usize,
    err: usize,
}

impl Tally {
    fn record<T>(&mut self, r: &Result<T, OdeError>) -> bool {
        self.calls += 1;
        if r.is_ok() {
            self.ok += 1;
        } else {
            self.err += 1;
        }
        r.is_ok()
    }
}

fn oscillator() -> FnRhs<impl FnMut(f64, &[f64], &mut [f64])> {
    FnRhs::new(3, |_t, y: &[f64], dy: &mut [f64]| {
        dy[0] = y[1];
        dy[1] = -y[0];
        dy[2] = -0.5 * y[2];
    })
}

/// A time relative to the last step `[t_prev, t]`.
fn time(rng: &mut SplitMix64, t_prev: f64, t: f64) -> f64 {
    match pick(rng, 10) {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => f64::NEG_INFINITY,
        3 => 1e300,
        4 => t + 1e6 * (t - t_prev + 1.0),
        _ => rng.uniform(t_prev, t),
    }
}

fn dense_rounds<S: Stepper + Advance<F>, F>(
    rng: &mut SplitMix64,
    t: &mut Tally,
    mut s: S,
    f: &mut F,
) {
    for _ in 0..pick(rng, 4) {
        if s.step(f).is_err() {
            return;
        }
    }
    for _ in 0..5 {
        let len = if rng.unit() < 0.5 { 3 } else { pick(rng, 6) };
        let mut out = vec![0.0; len];
        let to = time(rng, s.t_prev(), s.t());
        if t.record(&s.dense(to, &mut out)) {
            assert!(out.iter().all(|v| v.is_finite()), "{out:?} at {to}");
        }
    }
}

#[test]
fn dense_output_never_panics_nor_returns_non_finite_ok() {
    let mut rng = SplitMix64::new(0xde05e);
    let mut t = Tally::default();
    let y0 = [1.0, 0.0, 2.0];
    let tol = Tolerances::new(1e-8, 1e-8);
    for round in 0..400 {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut f = oscillator();
            match round % 6 {
                0 => dense_rounds(
                    &mut rng,
                    &mut t,
                    AdamsBashforthMoulton::new(0.0, &y0, tol.clone(), AbmConfig::default())
                        .unwrap(),
                    &mut f,
                ),
                1 => dense_rounds(
                    &mut rng,
                    &mut t,
                    RungeKuttaGill::new(0.0, &y0, tol.clone(), RungeKuttaGillConfig::default())
                        .unwrap(),
                    &mut f,
                ),
                2 => dense_rounds(
                    &mut rng,
                    &mut t,
                    DormandPrince54::new(0.0, &y0, tol.clone(), DormandPrinceConfig::default())
                        .unwrap(),
                    &mut f,
                ),
                3 => dense_rounds(
                    &mut rng,
                    &mut t,
                    Bdf::new(0.0, &y0, tol.clone(), BdfConfig::default()).unwrap(),
                    &mut OdeAsDae::new(f),
                ),
                4 => dense_rounds(
                    &mut rng,
                    &mut t,
                    HuangBdf2::new(0.0, &y0, tol.clone(), HuangBdf2Config::default()).unwrap(),
                    &mut OdeAsDae::new(f),
                ),
                _ => dense_rounds(
                    &mut rng,
                    &mut t,
                    SinglyImplicitRk::new(0.0, &y0, tol.clone(), SirkConfig::default()).unwrap(),
                    &mut OdeAsDae::new(f),
                ),
            }
        }));
        assert!(r.is_ok(), "round {round} panicked");
    }
    println!("ode dense-output fuzz: {t:?}");
    assert!(t.ok > 300 && t.err > 300, "{t:?}");
}

/// A state component: mostly moderate, sometimes not a number or extreme.
fn component(rng: &mut SplitMix64) -> f64 {
    match pick(rng, 12) {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => 1e300,
        3 => 1e-300,
        _ => rng.uniform(-2.0, 2.0),
    }
}

#[test]
fn set_up_and_short_runs_never_panic_nor_return_non_finite_ok() {
    let mut rng = SplitMix64::new(0x70_1e5);
    let mut t = Tally::default();
    for round in 0..300 {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let y0: Vec<f64> = (0..3).map(|_| component(&mut rng)).collect();
            let rtol = if rng.unit() < 0.3 {
                0.0
            } else {
                10f64.powf(rng.uniform(-18.0, -3.0))
            };
            let atol = 10f64.powf(if rng.unit() < 0.2 {
                rng.uniform(-320.0, -3.0)
            } else {
                rng.uniform(-40.0, -3.0)
            });
            let tol = Tolerances::new(rtol, atol);
            let h_max = if rng.unit() < 0.5 {
                f64::INFINITY
            } else {
                10f64.powf(rng.uniform(-300.0, 0.0))
            };
            let t_end = if rng.unit() < 0.8 { 1.0 } else { 20.0 };
            let mut f = oscillator();
            let sol = match round % 3 {
                0 => {
                    let cfg = DormandPrinceConfig {
                        h_max,
                        ..DormandPrinceConfig::default()
                    };
                    DormandPrince54::new(0.0, &y0, tol, cfg)
                        .and_then(|mut s| integrate_to(&mut s, &mut f, t_end))
                }
                1 => {
                    let cfg = AbmConfig {
                        h_max,
                        ..AbmConfig::default()
                    };
                    AdamsBashforthMoulton::new(0.0, &y0, tol, cfg)
                        .and_then(|mut s| integrate_to(&mut s, &mut f, t_end))
                }
                _ => {
                    let cfg = RungeKuttaGillConfig {
                        h_max,
                        ..RungeKuttaGillConfig::default()
                    };
                    RungeKuttaGill::new(0.0, &y0, tol, cfg)
                        .and_then(|mut s| integrate_to(&mut s, &mut f, t_end))
                }
            };
            if t.record(&sol) {
                let sol = sol.unwrap();
                assert!(
                    sol.y.iter().all(|y| y.iter().all(|v| v.is_finite())),
                    "round {round}"
                );
            }
        }));
        assert!(r.is_ok(), "round {round} panicked");
    }
    println!("ode set-up fuzz: {t:?}");
    assert!(t.ok > 20 && t.err > 100, "{t:?}");
}
