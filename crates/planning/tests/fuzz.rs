//! Seeded fuzz of the planning entry points: a two-segment path (a line and a quadratic) and
//! the point mass on it, queried with random segment indices (0–3), parameters drawn from the
//! path, just outside it, NaN, ±∞ and ±1e300, speeds and accelerations of every size, and
//! buffers of random lengths (0–4). Every call must return without panicking, and an `Ok`
//! must carry only finite numbers. The counts are printed (`--nocapture`).

use crate::common::point_mass;
use contour_model::testing::SplitMix64;
use contour_planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour_planning::*;

fn pick(rng: &mut SplitMix64, n: usize) -> usize {
    (rng.next_u64() % n.max(1) as u64) as usize
}

/// A parameter: mostly on the path `[0, 2]`, sometimes just outside it or not a number.
fn param(rng: &mut SplitMix64) -> f64 {
    match pick(rng, 12) {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => f64::NEG_INFINITY,
        3 => 1e300,
        4 => -1e-9,
        5 => 2.0 + 1e-9,
        6 => rng.uniform(-5.0, 5.0),
        _ => rng.uniform(0.0, 2.0),
    }
}

/// A speed or acceleration: mostly moderate, sometimes extreme or not a number.
fn rate(rng: &mut SplitMix64) -> f64 {
    match pick(rng, 10) {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => 1e200,
        3 => f64::MAX,
        _ => rng.uniform(-3.0, 3.0),
    }
}

fn buffer(rng: &mut SplitMix64) -> Vec<f64> {
    vec![0.0; if rng.unit() < 0.7 { 2 } else { pick(rng, 5) }]
}

fn finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// Counts of the outcomes.
#[derive(Default, Debug)]
struct Tally {
    calls: usize,
    ok: usize,
    err: usize,
}

impl Tally {
    fn record<T>(&mut self, r: &Result<T, PlanningError>) -> bool {
        self.calls += 1;
        if r.is_ok() {
            self.ok += 1;
        } else {
            self.err += 1;
        }
        r.is_ok()
    }
}

fn path() -> Path {
    Path::new(vec![
        Segment::line(&[2.0, 0.0], &[3.0, 0.0], 0.0, 1.0),
        Segment {
            s_start: 1.0,
            s_end: 2.0,
            // x = 2 + s, y = (s − 1)²: continuous at s = 1
            shape: Shape::Polynomial {
                coefficients: vec![vec![2.0, 1.0], vec![1.0, -2.0, 1.0]],
            },
            kind: SegmentKind::Unconstrained,
        },
    ])
    .unwrap()
}

#[test]
fn path_dynamics_and_limits_never_panic_nor_return_non_finite_ok() {
    let robot = point_mass(1.0);
    let jp = CartesianJointPath::new(path());
    let d = PathDynamics::new(&robot, &jp).unwrap();
    let lim = BoxLimits::symmetric(2, 1.0);
    let acc = AccelerationLimits::new(&d, &lim);
    let partial = FnLimits(|_s, _sd, lo: &mut [f64], hi: &mut [f64]| {
        lo[0] = -1.0;
        hi[0] = 1.0;
    });
    let acc_partial = AccelerationLimits::new(&d, &partial);
    let mut rng = SplitMix64::new(0x9a7_4f00);
    let mut t = Tally::default();
    for round in 0..2000 {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let (seg, s) = (pick(&mut rng, 4), param(&mut rng));
            let (mut p, mut dp, mut ddp) = (buffer(&mut rng), buffer(&mut rng), buffer(&mut rng));
            if t.record(&jp.path().eval_on(seg, s, &mut p, &mut dp, &mut ddp)) {
                assert!(finite(&p) && finite(&dp) && finite(&ddp), "round {round}");
            }
            let pt = jp.path().point(param(&mut rng));
            if t.record(&pt) {
                assert!(pt.is_ok_and(|pt| finite(&pt)), "round {round}");
            }
            let (mut a, mut r) = (buffer(&mut rng), buffer(&mut rng));
            let (sd, sdd) = (rate(&mut rng), rate(&mut rng));
            if t.record(&d.coefficients(seg, s, sd, &mut a, &mut r)) {
                assert!(finite(&a) && finite(&r), "round {round}: {a:?} {r:?}");
            }
            let mut tau = buffer(&mut rng);
            if t.record(&d.inverse_dynamics(seg, s, sd, sdd, &mut tau)) {
                assert!(finite(&tau), "round {round}: {tau:?}");
            }
            if t.record(&d.torque(s, sd, sdd, &mut tau)) {
                assert!(finite(&tau), "round {round}: {tau:?}");
            }
            if let Ok((phi, jb)) = d.constraint_along(seg, s, pick(&mut rng, 3)) {
                assert!(phi.is_finite() && jb.is_finite());
            }
            let b = acc.bounds(seg, s, sd);
            if t.record(&b) {
                let b = b.unwrap();
                assert!(
                    !b.lower.is_nan() && !b.upper.is_nan(),
                    "round {round}: {b:?}"
                );
            }
            t.record(&acc_partial.bounds(seg, s, sd).map(|_| ()));
            assert!(acc_partial.bounds(0, 0.5, 0.1).is_err());
        }));
        assert!(r.is_ok(), "round {round} panicked");
    }
    println!("planning fuzz (path, dynamics, limits): {t:?}");
    assert!(t.ok > 1000 && t.err > 1000, "{t:?}");
}

#[test]
fn profile_queries_never_panic_nor_return_non_finite_ok() {
    let robot = point_mass(1.0);
    let jp = CartesianJointPath::new(path());
    let d = PathDynamics::new(&robot, &jp).unwrap();
    let lim = BoxLimits::symmetric(2, 1.0);
    let acc = AccelerationLimits::new(&d, &lim);
    let sol = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    let mut rng = SplitMix64::new(0x7a1e);
    let mut t = Tally::default();
    for round in 0..2000 {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let s = param(&mut rng);
            if let Ok(time) = sol.time_at_s(s) {
                assert!(time.is_finite() && (0.0..=sol.total_time).contains(&time));
                t.ok += 1;
            } else {
                t.err += 1;
            }
            let time = param(&mut rng) * sol.total_time;
            if let Ok((s, sd, sdd)) = sol.state_at(time) {
                assert!(s.is_finite() && sd.is_finite() && sdd.is_finite());
                t.ok += 1;
            } else {
                t.err += 1;
            }
            t.calls += 2;
            let times: Vec<f64> = (0..pick(&mut rng, 3)).map(|_| param(&mut rng)).collect();
            if let Ok(st) = sample(&sol, &acc, &times) {
                assert!(st.q.iter().chain(&st.qd).chain(&st.tau).all(|v| finite(v)));
                t.ok += 1;
            } else {
                t.err += 1;
            }
            t.calls += 1;
        }));
        assert!(r.is_ok(), "round {round} panicked");
    }
    println!("planning fuzz (profile queries): {t:?}");
    assert!(t.ok > 500 && t.err > 500, "{t:?}");
}
