//! Closed-form witnesses of the minimum-time solvers: a point mass on a straight line under a
//! force bound, T = 2 √(m L / F); the same with a speed cap; with a velocity-dependent bound.

use crate::common;

use common::{line_of_length, point_mass};
use contour_planning::phase_plane::{PhasePlane, PhasePlaneConfig, SwitchKind};
use contour_planning::toppra::{Toppra, ToppraConfig};
use contour_planning::*;
use std::sync::Arc;

/// TOPP-RA's time within `rel` of the closed form `exact`.
fn toppra_within<L: TorqueLimits>(
    acc: &AccelerationLimits<'_, contour_model::models::HuangCartesianRobot, CartesianJointPath, L>,
    cfg: ToppraConfig,
    exact: f64,
    rel: f64,
) {
    let t = Toppra::new(acc, cfg).solve().unwrap().total_time;
    assert!((t - exact).abs() < rel * exact, "TOPP-RA {t} vs {exact}");
}

#[test]
fn point_mass_force_bound() {
    for &(m, len, f) in &[(1.0, 1.0, 1.0), (2.5, 0.7, 3.0), (0.3, 4.0, 0.2)] {
        let r = point_mass(m);
        let jp = line_of_length(len);
        let d = PathDynamics::new(&r, &jp).unwrap();
        let lim = BoxLimits::symmetric(2, f);
        let acc = AccelerationLimits::new(&d, &lim);
        let sol = PhasePlane::new(&acc, PhasePlaneConfig::default())
            .solve()
            .unwrap();
        let exact = 2.0 * (m * len / f).sqrt();
        assert!(
            (sol.total_time - exact).abs() < 1e-9 * exact,
            "T = {} vs {exact}",
            sol.total_time
        );
        assert_eq!(sol.switch_count(), 1);
        assert_eq!(sol.switching_points[0].kind, SwitchKind::Intersection);
        assert!((sol.switching_points[0].s - 0.5).abs() < 1e-9);
        assert!((sol.switching_points[0].t - exact / 2.0).abs() < 1e-9 * exact);
        // torques on the bound
        for tau in &sol.torques {
            assert!((tau[0].abs() - f).abs() < 1e-7 * f && tau[1].abs() < 1e-12);
        }
        toppra_within(
            &acc,
            ToppraConfig {
                intervals: 2000,
                ..ToppraConfig::default()
            },
            exact,
            5e-3,
        );
    }
}

#[test]
fn point_mass_with_speed_cap() {
    let (m, len, f) = (1.0, 1.0, 1.0);
    let a = f / (m * len); // s̈ bound in s units
    let cap = 0.5; // ṡ ≤ 0.5 (reached at s = 0.125)
    let exact = 1.0 / cap + cap / a;
    let r = point_mass(m);
    let jp = line_of_length(len);
    let d = PathDynamics::new(&r, &jp).unwrap();
    let lim = BoxLimits::symmetric(2, f);
    let acc = AccelerationLimits::new(&d, &lim);
    let cfg = PhasePlaneConfig {
        speed_cap: Some(Arc::new(move |_s| cap)),
        ..PhasePlaneConfig::default()
    };
    let sol = PhasePlane::new(&acc, cfg).solve().unwrap();
    assert!(
        (sol.total_time - exact).abs() < 1e-6 * exact,
        "T = {} vs {exact}",
        sol.total_time
    );
    assert!(sol.samples.iter().all(|p| p.sd <= cap * (1.0 + 1e-9)));
    let kinds: Vec<_> = sol.switching_points.iter().map(|p| p.kind).collect();
    assert!(kinds.contains(&SwitchKind::BoundaryEntry), "{kinds:?}");
    toppra_within(
        &acc,
        ToppraConfig {
            intervals: 4000,
            speed_cap: Some(Arc::new(move |_s| cap)),
            ..ToppraConfig::default()
        },
        exact,
        5e-3,
    );
}

/// The phase plane's profile of a unit point mass along a line of length 1 under the motor-line
/// bound |F| ≤ F0 − k ṡ.
fn motor_line_profile(f0: f64, k: f64) -> phase_plane::MinimumTimeSolution {
    let r = point_mass(1.0);
    let jp = line_of_length(1.0);
    let d = PathDynamics::new(&r, &jp).unwrap();
    let lim = FnLimits(move |_s: f64, sd: f64, lo: &mut [f64], hi: &mut [f64]| {
        let b = f0 - k * sd.abs();
        lo.fill(-b);
        hi.fill(b);
    });
    let acc = AccelerationLimits::new(&d, &lim);
    PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap()
}

/// |F| ≤ F0 − k v (a motor line), L = 1, m = 1: ṡ' = ±(F0 − k ṡ), symmetric in s about 1/2;
/// the accelerating half obeys s(t) = (F0/k)(t − (1 − e^{−k t})/k).
#[test]
fn point_mass_with_speed_dependent_bound() {
    let (f0, k) = (1.0, 0.8);
    let s_of = |t: f64| (f0 / k) * (t - (1.0 - (-k * t).exp()) / k);
    let sd_of = |t: f64| (f0 / k) * (1.0 - (-k * t).exp());
    let mut t = 1.0;
    for _ in 0..60 {
        t -= (s_of(t) - 0.5) / sd_of(t);
    }
    let exact = 2.0 * t;
    let sol = motor_line_profile(f0, k);
    assert!(
        (sol.total_time - exact).abs() < 1e-7 * exact,
        "T = {} vs {exact}",
        sol.total_time
    );
}

/// Property: for any mass, length, direction and bound, the phase plane returns
/// T = 2 √(m L max(|cos a|, |sin a|) / F) (the axis with the larger share saturates).
#[test]
fn point_mass_property() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let cfg = Config {
        cases: 32,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(cfg, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    runner
        .run(
            &(0.1f64..5.0, 0.1f64..5.0, 0.1f64..5.0, -1.5f64..1.5),
            |(m, len, f, a)| {
                let (c, s) = (a.cos(), a.sin());
                let seg = Segment::line(&[2.0, 0.0], &[2.0 + len * c, len * s], 0.0, 1.0);
                let jp = CartesianJointPath::new(Path::new(vec![seg]).unwrap());
                let r = point_mass(m);
                let d = PathDynamics::new(&r, &jp).unwrap();
                let lim = BoxLimits::symmetric(2, f);
                let acc = AccelerationLimits::new(&d, &lim);
                let sol = PhasePlane::new(&acc, PhasePlaneConfig::default())
                    .solve()
                    .unwrap();
                let exact = 2.0 * (m * len * c.abs().max(s.abs()) / f).sqrt();
                prop_assert!(
                    (sol.total_time - exact).abs() < 1e-8 * exact,
                    "T = {} vs {}",
                    sol.total_time,
                    exact
                );
                Ok(())
            },
        )
        .unwrap();
}

/// s(t) of the bang–bang solution: s = ½ a t² up to T/2.
#[test]
fn state_at_follows_the_bang_bang_law() {
    let r = point_mass(1.0);
    let jp = line_of_length(1.0);
    let d = PathDynamics::new(&r, &jp).unwrap();
    let lim = BoxLimits::symmetric(2, 1.0);
    let acc = AccelerationLimits::new(&d, &lim);
    let sol = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    for &t in &[0.1, 0.5, 0.9] {
        let (s, sd, sdd) = sol.state_at(t).unwrap();
        assert!(
            (s - 0.5 * t * t).abs() < 1e-9 && (sd - t).abs() < 1e-9 && (sdd - 1.0).abs() < 1e-9,
            "{t}: {s} {sd} {sdd}"
        );
        assert!((sol.time_at_s(0.5 * t * t).unwrap() - t).abs() < 1e-9);
    }
    let (s, sd, _) = sol.state_at(sol.total_time).unwrap();
    assert!((s - 1.0).abs() < 1e-9 && sd < 1e-6);
}

/// (4.3.25): a joint with Σ_j M_ij B_j < 0 swaps its limits. Moving in −x with
/// −1 ≤ F_x ≤ 2: F_x = −s̈ L, so −2/L ≤ s̈ ≤ 1/L.
#[test]
fn negative_inertia_coefficient_swaps_the_limits() {
    let r = point_mass(1.0);
    let seg = Segment::line(&[3.0, 0.0], &[2.0, 0.0], 0.0, 1.0);
    let jp = CartesianJointPath::new(Path::new(vec![seg]).unwrap());
    let d = PathDynamics::new(&r, &jp).unwrap();
    let lim = BoxLimits {
        lower: vec![-1.0, -1.0],
        upper: vec![2.0, 1.0],
    };
    let acc = AccelerationLimits::new(&d, &lim);
    let b = acc.bounds(0, 0.3, 0.7).unwrap();
    assert!(
        (b.lower + 2.0).abs() < 1e-15 && (b.upper - 1.0).abs() < 1e-15,
        "{b:?}"
    );
    // rest to rest: accelerate at 1, decelerate at 2: T = √(2L(1/1 + 1/2)) = √3
    let sol = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    assert!(
        (sol.total_time - 3f64.sqrt()).abs() < 1e-9,
        "{}",
        sol.total_time
    );
}

/// Inside each sample interval the time is the quadrature of `ds/√x(s)` over the Hermite
/// interpolant of `x = ṡ²`: at every s of the accelerating half it matches the closed form
/// `s(t) = (F0/k)(t − (1 − e^{−k t})/k)` of the motor-line bound to the profile's accuracy.
#[test]
fn time_at_s_follows_the_closed_form_inside_every_interval() {
    let (f0, k) = (1.0, 0.8);
    let s_of = |t: f64| (f0 / k) * (t - (1.0 - (-k * t).exp()) / k);
    let sd_of = |t: f64| (f0 / k) * (1.0 - (-k * t).exp());
    let t_of = |s: f64| {
        let mut t = (2.0 * s / f0).sqrt();
        for _ in 0..60 {
            t -= (s_of(t) - s) / sd_of(t);
        }
        t
    };
    let sol = motor_line_profile(f0, k);
    let mut worst = 0.0f64;
    for j in 1..500 {
        let s = 0.5 * j as f64 / 500.0;
        let t = sol.time_at_s(s).unwrap();
        worst = worst.max((t - t_of(s)).abs());
    }
    assert!(worst < 1e-9, "max |t(s) − t_exact(s)| = {worst:e}");
}
