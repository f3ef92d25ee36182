//! Behaviour witnesses of the phase plane and TOPP-RA: each test checks a closed form, a rule
//! the documentation states, a typed error it promises, or the other algorithm. Cases: a point
//! mass (m = 1) on a line of length 1, so that s̈ is the force on the moving axis and the other
//! axis has zero inertia (M B = 0), under limits chosen to reach one branch of the solvers
//! (speed-dependent limits with a zero-inertia joint, rest inadmissible inside a band of s, a
//! corner, a rising speed cap to slide along, a joint that reverses).

use crate::common;

use common::{line_of_length, point_mass};
use contour_planning::phase_plane::{
    MinimumTimeSolution, PhasePlane, PhasePlaneConfig, PhaseSample, SwitchKind,
};
use contour_planning::toppra::{Toppra, ToppraConfig};
use contour_planning::*;
use std::sync::Arc;

/// TOPP-RA on 1000 intervals of `acc` (a macro: the limits' types vary from test to test).
macro_rules! toppra_fine {
    ($acc:expr) => {
        Toppra::new(
            &$acc,
            ToppraConfig {
                intervals: 1000,
                ..ToppraConfig::default()
            },
        )
        .solve()
    };
}

/// The speed cap ṡ ≤ 1 with |s̈| ≤ 4 on the unit line: T = L/c + c/a = 1.25 (within the grid's
/// 2e-3) and no grid speed above the cap.
fn assert_speed_cap_time(total_time: f64, sd: &[f64]) {
    assert!(
        (total_time - 1.25).abs() < 2e-3 * 1.25,
        "TOPP-RA {total_time} vs 1.25"
    );
    assert!(sd.iter().all(|v| *v <= 1.0 + 1e-9));
}

/// Bang–bang with |F| ≤ 4 on a unit line: s̈ = ±4, T = 2 √(L/4) = 1, s = 2 t² up to t = ½ and
/// s = 1 − 2 (T − t)² after it (Huang Theorem 4.3.4 with one intersection switch).
#[test]
fn state_at_follows_the_bang_bang_law_for_an_acceleration_other_than_one() {
    let r = point_mass(1.0);
    let jp = line_of_length(1.0);
    let d = PathDynamics::new(&r, &jp).unwrap();
    let lim = BoxLimits::symmetric(2, 4.0);
    let acc = AccelerationLimits::new(&d, &lim);
    let sol = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    assert!((sol.total_time - 1.0).abs() < 1e-9, "{}", sol.total_time);
    for &t in &[0.05, 0.2, 0.37, 0.49] {
        let (s, sd, sdd) = sol.state_at(t).unwrap();
        assert!(
            (s - 2.0 * t * t).abs() < 1e-9
                && (sd - 4.0 * t).abs() < 1e-8
                && (sdd - 4.0).abs() < 1e-8,
            "t = {t}: ({s}, {sd}, {sdd})"
        );
    }
    for &t in &[0.55, 0.8, 0.97] {
        let (s, sd, sdd) = sol.state_at(t).unwrap();
        let tr = 1.0 - t;
        assert!(
            (s - (1.0 - 2.0 * tr * tr)).abs() < 1e-9
                && (sd - 4.0 * tr).abs() < 1e-8
                && (sdd + 4.0).abs() < 1e-8,
            "t = {t}: ({s}, {sd}, {sdd})"
        );
    }
}

/// `time_at_s` where the interpolant of x = ṡ² between two samples dips below zero (the
/// documented fall-back to the chord rule): the time to cover a distance is never less than
/// the distance over the largest speed on it, t(s) − t(s₀) ≥ (s − s₀)/max ṡ.
#[test]
fn time_at_s_is_at_least_the_distance_over_the_top_speed_where_the_interpolant_dips_below_rest() {
    // x(s) = (s − ¼)² − δ² on [0, 1] (a quadratic: the cubic Hermite of its end values and
    // slopes is itself), negative only on |s − ¼| < δ
    let delta: f64 = 1e-3;
    let x = |s: f64| (s - 0.25).powi(2) - delta * delta;
    let dx = |s: f64| 2.0 * (s - 0.25);
    let sample = |t: f64, s: f64| PhaseSample {
        t,
        s,
        sd: x(s).sqrt(),
        sdd: 0.5 * dx(s),
        dense: 0.0,
        segment: 0,
    };
    let sol = MinimumTimeSolution {
        samples: vec![sample(0.0, 0.0), sample(10.0, 1.0)],
        torques: vec![vec![0.0; 2]; 2],
        switching_points: Vec::new(),
        total_time: 10.0,
        piece_times: vec![10.0],
        mvc: Vec::new(),
    };
    // (the chord rule's points are (s − s₀)/256 apart, wider than the dip: never two of them
    // at rest in a row)
    for &s in &[0.5, 0.6, 0.9] {
        let t = sol.time_at_s(s).unwrap();
        // max of √x on [0, s] is at an end of the interval (x is convex)
        let top = x(0.0).max(x(s)).sqrt();
        assert!(t.is_finite() && t >= s / top, "t({s}) = {t} < {}", s / top);
    }
}

/// |F_x| ≤ 4 and a zero-inertia y axis whose lower limit rises with speed, ṡ − 1 ≤ F_y ≤ 1:
/// with F_y = 0 that is the speed cap ṡ ≤ 1 (Huang (4.3.32), a condition on ṡ alone). Closed form
/// with a cap c and s̈ bound a: T = L/c + c/a = 1.25.
#[test]
fn a_zero_inertia_joint_whose_limits_shrink_with_speed_caps_the_speed() {
    let r = point_mass(1.0);
    let jp = line_of_length(1.0);
    let d = PathDynamics::new(&r, &jp).unwrap();
    let lim = FnLimits(|_s: f64, sd: f64, lo: &mut [f64], hi: &mut [f64]| {
        lo[0] = -4.0;
        hi[0] = 4.0;
        lo[1] = sd - 1.0;
        hi[1] = 1.0;
    });
    let acc = AccelerationLimits::new(&d, &lim);
    let sol = toppra_fine!(acc).unwrap();
    assert_speed_cap_time(sol.total_time, &sol.sd);
}

/// The same speed cap written as limits that close on both sides, ṡ − 1 ≤ F_y ≤ 1 − ṡ (both
/// zero at the cap): the solve admits ṡ within its round-off tolerance of the cap (1e-12), and
/// the check judges that overshoot against the limits' own scale, not against limits that have
/// shrunk to the overshoot's size. T = 1.25 as above.
#[test]
fn limits_that_close_at_the_binding_speed_are_met_within_round_off() {
    let r = point_mass(1.0);
    let jp = line_of_length(1.0);
    let d = PathDynamics::new(&r, &jp).unwrap();
    let lim = FnLimits(|_s: f64, sd: f64, lo: &mut [f64], hi: &mut [f64]| {
        lo[0] = -4.0;
        hi[0] = 4.0;
        lo[1] = sd - 1.0;
        hi[1] = 1.0 - sd;
    });
    let acc = AccelerationLimits::new(&d, &lim);
    let sol = toppra_fine!(acc).unwrap();
    assert_speed_cap_time(sol.total_time, &sol.sd);
}

/// Joint velocity limits |q̇_x| ≤ 1 (rows with a zero s̈ coefficient) under speed-dependent
/// limits |F| ≤ 4: the cap ṡ ≤ 1, T = 1.25 as above.
#[test]
fn joint_velocity_rows_cap_the_speed_under_speed_dependent_limits() {
    let r = point_mass(1.0);
    let jp = line_of_length(1.0);
    let d = PathDynamics::new(&r, &jp).unwrap();
    let lim = FnLimits(|_s: f64, _sd: f64, lo: &mut [f64], hi: &mut [f64]| {
        lo.fill(-4.0);
        hi.fill(4.0);
    });
    let vel = JointVelocityLimits::new(vec![1.0, f64::INFINITY]);
    let acc = AccelerationLimits::new(&d, &lim)
        .with_constraint(&vel)
        .unwrap();
    let sol = toppra_fine!(acc).unwrap();
    assert_speed_cap_time(sol.total_time, &sol.sd);
}

/// Rest is inadmissible for 0.3 < s < 0.7 (ṡ ≥ ½ there) but the bang–bang motion of |F| ≤ 4
/// crosses that band at ṡ ≥ √2.4: the band does not bind, T = 1, and every grid point of the
/// band has a controllable set that excludes rest.
#[test]
fn a_band_where_rest_is_inadmissible_is_crossed_at_speed() {
    let r = point_mass(1.0);
    let jp = line_of_length(1.0);
    let d = PathDynamics::new(&r, &jp).unwrap();
    // zero-inertia y limits that exclude rest in the band: F_y = 0 must lie in [½ − ṡ, 1]
    let lim = FnLimits(|s: f64, sd: f64, lo: &mut [f64], hi: &mut [f64]| {
        lo[0] = -4.0;
        hi[0] = 4.0;
        lo[1] = if s > 0.3 && s < 0.7 { 0.5 - sd } else { -1.0 };
        hi[1] = 1.0;
    });
    let acc = AccelerationLimits::new(&d, &lim);
    let sol = toppra_fine!(acc).unwrap();
    assert!(
        (sol.total_time - 1.0).abs() < 2e-3,
        "TOPP-RA {} vs 1",
        sol.total_time
    );
    for (s, sd) in sol.s.iter().zip(&sol.sd) {
        if *s > 0.3 && *s < 0.7 {
            assert!(*sd >= 0.5, "ṡ({s}) = {sd}");
        }
    }
}

/// A corner at s = ½ (x then y) forces rest there (Huang (4.3.8)), and rest is inadmissible
/// just after it (ṡ ≥ ½ for ½ < s < 0.7): no motion leaves the corner, and TOPP-RA says so at
/// the corner.
#[test]
fn a_corner_whose_controllable_set_excludes_rest_is_refused() {
    let r = point_mass(1.0);
    let path = Path::new(vec![
        Segment::line(&[2.0, 0.0], &[2.5, 0.0], 0.0, 0.5),
        Segment::line(&[2.5, 0.0], &[2.5, 0.5], 0.5, 1.0),
    ])
    .unwrap();
    let jp = CartesianJointPath::new(path);
    let d = PathDynamics::new(&r, &jp).unwrap();
    // on the second segment the x axis has zero inertia: the same limits with the axes swapped
    let lim = FnLimits(|s: f64, sd: f64, lo: &mut [f64], hi: &mut [f64]| {
        let band = s > 0.5 && s < 0.7;
        lo[1] = -4.0;
        hi[1] = 4.0;
        lo[0] = if band { 0.5 - sd } else { -4.0 };
        hi[0] = 4.0;
    });
    let acc = AccelerationLimits::new(&d, &lim);
    let e = Toppra::new(
        &acc,
        ToppraConfig {
            intervals: 1000,
            ..ToppraConfig::default()
        },
    )
    .solve()
    .unwrap_err();
    assert!(
        matches!(e, PlanningError::EmptyAdmissibleRegion { s } if s == 0.5),
        "{e:?}"
    );
}

/// `violation_tol` is the largest accepted violation between the grid points: a solve whose
/// largest violation equals it exactly is accepted (the same solve, run again with the
/// tolerance set to the violation it reported).
#[test]
fn a_violation_equal_to_the_tolerance_is_accepted() {
    let arm = common::PlanarArm::new(2);
    let jp = common::joint_line(&[0.2, -0.4], &[1.4, 0.9]);
    let d = PathDynamics::new(&arm, &jp).unwrap();
    let lim = BoxLimits::symmetric(2, 60.0);
    let acc = AccelerationLimits::new(&d, &lim);
    let cfg = |tol: f64| ToppraConfig {
        intervals: 40,
        violation_tol: tol,
        ..ToppraConfig::default()
    };
    let first = Toppra::new(&acc, cfg(1e-2)).solve().unwrap();
    let v = first.max_violation;
    // a violation between the grid points (the grid points are held to 1e-9)
    assert!(v > 1e-8 && v < 1e-2, "{v:e}");
    let again = Toppra::new(&acc, cfg(v)).solve().unwrap();
    assert_eq!(again.max_violation, v);
    // and just below it, refused
    let e = Toppra::new(&acc, cfg(v * (1.0 - 1e-12)))
        .solve()
        .unwrap_err();
    assert!(matches!(e, PlanningError::LimitViolated { .. }), "{e:?}");
}

/// The grid intervals are shared among the pieces between breakpoints by the largest
/// remainder ([`ToppraConfig::intervals`]): the split is the integer split nearest to the
/// proportional shares, found here by enumerating every split.
#[test]
fn the_grid_is_shared_by_the_largest_remainder() {
    let r = point_mass(1.0);
    // three collinear segments of lengths 0.26, 0.33, 0.41 (no corner)
    let knots = [0.0, 0.26, 0.59, 1.0];
    let segs = knots
        .windows(2)
        .map(|w| Segment::line(&[2.0 + w[0], 0.0], &[2.0 + w[1], 0.0], w[0], w[1]))
        .collect();
    let jp = CartesianJointPath::new(Path::new(segs).unwrap());
    let d = PathDynamics::new(&r, &jp).unwrap();
    let lim = BoxLimits::symmetric(2, 1.0);
    let acc = AccelerationLimits::new(&d, &lim);
    for total in [10usize, 17, 23] {
        let sol = Toppra::new(
            &acc,
            ToppraConfig {
                intervals: total,
                ..ToppraConfig::default()
            },
        )
        .solve()
        .unwrap();
        let got: Vec<usize> = knots
            .windows(2)
            .map(|w| {
                sol.s
                    .windows(2)
                    .filter(|g| g[0] >= w[0] - 1e-12 && g[1] <= w[1] + 1e-12)
                    .count()
            })
            .collect();
        // every split with at least one interval per piece, the one nearest to the shares
        let share: Vec<f64> = knots
            .windows(2)
            .map(|w| total as f64 * (w[1] - w[0]))
            .collect();
        let mut best = (f64::INFINITY, vec![]);
        for a in 1..total {
            for b in 1..total - a {
                let c = [a, b, total - a - b];
                let dev = c
                    .iter()
                    .zip(&share)
                    .fold(0.0f64, |m, (c, s)| m.max((*c as f64 - s).abs()));
                if dev < best.0 - 1e-12 {
                    best = (dev, c.to_vec());
                }
            }
        }
        assert_eq!(got, best.1, "{total} intervals, shares {share:?}");
    }
}

/// A speed cap that rises and bends, c(s) = ½ + ¼ sin(π s), under |F| ≤ 4: the profile
/// slides along it (|c c′| ≤ 0.6 < 4), where s̈ = ½ x′ = c c′ with x = c² (Huang 4.3.3.3,
/// step 3). The samples on the slide carry the s̈ of the boundary: the entry (a switching
/// point appears once per side) a one-sided secant over the next step h (Taylor: error
/// |x″| h/4), every other node the central difference over its neighbours at h₁ behind and
/// h₂ ahead (error |x″ (h₂ − h₁)/4 + x‴ (h₁² − h₁h₂ + h₂²)/12|, second order); each within
/// twice its Taylor bound (plus 1e-9 for the boundary's own bracket, 1e-15 relative over h).
#[test]
fn a_slide_along_a_bending_speed_cap_carries_the_boundary_acceleration() {
    let r = point_mass(1.0);
    let jp = line_of_length(1.0);
    let d = PathDynamics::new(&r, &jp).unwrap();
    let lim = BoxLimits::symmetric(2, 4.0);
    let acc = AccelerationLimits::new(&d, &lim);
    let pi = std::f64::consts::PI;
    let cap = move |s: f64| 0.5 + 0.25 * (pi * s).sin();
    // c, c′, c″, c‴ and x″ = 2 (c′² + c c″), x‴ = 2 (3 c′ c″ + c c‴)
    let derivs = move |s: f64| {
        let (sn, cs) = (pi * s).sin_cos();
        let (c, c1, c2, c3) = (
            cap(s),
            0.25 * pi * cs,
            -0.25 * pi * pi * sn,
            -0.25 * pi * pi * pi * cs,
        );
        (
            c * c1,
            2.0 * (c1 * c1 + c * c2),
            2.0 * (3.0 * c1 * c2 + c * c3),
        )
    };
    let sol = PhasePlane::new(
        &acc,
        PhasePlaneConfig {
            speed_cap: Some(Arc::new(cap)),
            ..PhasePlaneConfig::default()
        },
    )
    .solve()
    .unwrap();
    let on_cap = |p: &PhaseSample| (p.sd - cap(p.s)).abs() <= 1e-7 * cap(p.s);
    let smp = &sol.samples;
    let (mut entries, mut inner, mut worst) = (0, 0, 0.0f64);
    for i in 1..smp.len() - 1 {
        let (p, prev, next) = (&smp[i], &smp[i - 1], &smp[i + 1]);
        if !(on_cap(p) && on_cap(next) && next.s > p.s) {
            continue;
        }
        let (u, x2, x3) = derivs(p.s);
        let err = (p.sdd - u).abs();
        let h2 = next.s - p.s;
        if prev.s == p.s {
            entries += 1;
            let x2max = (0..=100)
                .map(|k| derivs(p.s + h2 * k as f64 / 100.0).1.abs())
                .fold(0.0, f64::max);
            let bound = x2max * h2 / 4.0;
            assert!(
                err <= 2.0 * bound + 1e-9,
                "entry s = {}: s̈ {} vs c c′ {u} (bound {bound:e})",
                p.s,
                p.sdd
            );
        } else if on_cap(prev) {
            inner += 1;
            let h1 = p.s - prev.s;
            // x‴ at its largest over [s − h₁, s + h₂] (the Taylor remainder's)
            let x3max = (0..=100)
                .map(|k| derivs(prev.s + (h1 + h2) * k as f64 / 100.0).2.abs())
                .fold(x3.abs(), f64::max);
            let bound = (x2 * (h2 - h1) / 4.0).abs() + x3max * (h1 * h1 - h1 * h2 + h2 * h2) / 12.0;
            assert!(
                err <= 2.0 * bound + 1e-9,
                "s = {}: s̈ {} vs c c′ {u}, error {err:e} above twice {bound:e}",
                p.s,
                p.sdd
            );
            worst = worst.max(err / (bound + 1e-9));
        }
    }
    eprintln!("slide: {entries} entry, {inner} inner samples, largest error/bound {worst:.3}");
    assert!(
        entries == 1 && inner > 100,
        "{entries} entries, {inner} inner samples"
    );
}

/// q = (2 + s, 4 (s − s_r)²) with s_r = 0.4567 (between the points of the MVC scan): the y
/// joint reverses at s_r, where the s̈ coefficient B_y of its acceleration rows
/// B_y s̈ + B̄_y ṡ² ≤ 1 changes sign — a zero-inertia point of the rows, where ṡ² ≤ 1/B̄_y = 1/8
/// alone. The phase plane switches there (kind ZeroInertia), and its time agrees with
/// TOPP-RA's.
#[test]
fn a_joint_acceleration_row_whose_coefficient_reverses_gives_a_zero_inertia_switch() {
    let r = point_mass(1.0);
    let (k, sr) = (4.0, 0.4567);
    let seg = Segment {
        s_start: 0.0,
        s_end: 1.0,
        shape: Shape::Polynomial {
            coefficients: vec![vec![2.0, 1.0], vec![k * sr * sr, -2.0 * k * sr, k]],
        },
        kind: SegmentKind::Unconstrained,
    };
    let jp = CartesianJointPath::new(Path::new(vec![seg]).unwrap());
    let d = PathDynamics::new(&r, &jp).unwrap();
    let rows = JointAccelerationLimits::new(vec![1.0, 1.0]);
    let acc = AccelerationLimits::new(&d, &NoTorqueLimits)
        .with_constraint(&rows)
        .unwrap();
    let pp = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    let zi: Vec<_> = pp
        .switching_points
        .iter()
        .filter(|w| w.kind == SwitchKind::ZeroInertia)
        .collect();
    assert!(
        zi.iter().any(|w| (w.s - sr).abs() < 1e-9),
        "{:?}",
        pp.switching_points
    );
    let tr = Toppra::new(
        &acc,
        ToppraConfig {
            intervals: 2000,
            ..ToppraConfig::default()
        },
    )
    .solve()
    .unwrap();
    eprintln!("phase plane {} TOPP-RA {}", pp.total_time, tr.total_time);
    assert!(
        (pp.total_time - tr.total_time).abs() < 2e-3 * pp.total_time,
        "phase plane {} vs TOPP-RA {}",
        pp.total_time,
        tr.total_time
    );
}

/// A speed cap that falls to zero at a breakpoint, ṡ ≤ √(2 |s − ½|), with |F| ≤ 4 on two
/// collinear segments: the motion comes to rest at s = ½ by sliding down the cap (s̈ = −1 from
/// s = 0.1, where the maximum-acceleration curve x = 8 s meets x = 1 − 2 s) and leaves it the
/// mirror way: T = 2 (√0.05 + √0.8) = √5.
#[test]
fn a_speed_cap_that_vanishes_at_a_breakpoint_brings_the_motion_to_rest_there() {
    let r = point_mass(1.0);
    let path = Path::new(vec![
        Segment::line(&[2.0, 0.0], &[2.5, 0.0], 0.0, 0.5),
        Segment::line(&[2.5, 0.0], &[3.0, 0.0], 0.5, 1.0),
    ])
    .unwrap();
    let jp = CartesianJointPath::new(path);
    let d = PathDynamics::new(&r, &jp).unwrap();
    let lim = BoxLimits::symmetric(2, 4.0);
    let acc = AccelerationLimits::new(&d, &lim);
    let sol = PhasePlane::new(
        &acc,
        PhasePlaneConfig {
            speed_cap: Some(Arc::new(|s: f64| (2.0 * (s - 0.5).abs()).sqrt())),
            ..PhasePlaneConfig::default()
        },
    )
    .solve()
    .unwrap();
    let exact = 5f64.sqrt();
    assert!(
        (sol.total_time - exact).abs() < 1e-6 * exact,
        "T = {} vs {exact}",
        sol.total_time
    );
}

/// Joint velocity limits |q̇_x| ≤ 1 on x = 2 + s + 10 s³ (B_x = 1 + 30 s²: the cap ṡ ≤ 1/B_x
/// falls from 1 to 1/31) under speed-dependent limits |F| ≤ 4: the controllable sets hold the
/// rows, so the profile slows down for the falling cap in time; TOPP-RA's time agrees with the
/// phase plane's (which takes the rows as its speed cap) and the profile stays under the cap.
#[test]
fn a_falling_joint_velocity_cap_is_met_under_speed_dependent_limits() {
    let r = point_mass(1.0);
    let seg = Segment {
        s_start: 0.0,
        s_end: 1.0,
        shape: Shape::Polynomial {
            coefficients: vec![vec![2.0, 1.0, 0.0, 10.0], vec![0.0]],
        },
        kind: SegmentKind::Unconstrained,
    };
    let jp = CartesianJointPath::new(Path::new(vec![seg]).unwrap());
    let d = PathDynamics::new(&r, &jp).unwrap();
    let lim = FnLimits(|_s: f64, _sd: f64, lo: &mut [f64], hi: &mut [f64]| {
        lo.fill(-4.0);
        hi.fill(4.0);
    });
    let vel = JointVelocityLimits::new(vec![1.0, f64::INFINITY]);
    let acc = AccelerationLimits::new(&d, &lim)
        .with_constraint(&vel)
        .unwrap();
    let pp = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    let tr = Toppra::new(
        &acc,
        ToppraConfig {
            intervals: 2000,
            ..ToppraConfig::default()
        },
    )
    .solve()
    .unwrap();
    eprintln!("phase plane {} TOPP-RA {}", pp.total_time, tr.total_time);
    assert!(
        (pp.total_time - tr.total_time).abs() < 2e-3 * pp.total_time,
        "phase plane {} vs TOPP-RA {}",
        pp.total_time,
        tr.total_time
    );
    for (s, sd) in tr.s.iter().zip(&tr.sd) {
        assert!(*sd * (1.0 + 30.0 * s * s) <= 1.0 + 1e-9, "ṡ({s}) = {sd}");
    }
}

/// Limits that admit only rest at the breakpoint s = ½ of two collinear segments (a stop line:
/// the zero-inertia y axis must push with F_y ≥ 1 there at any ṡ > 0; |F_x| ≤ 4): the MVC is
/// zero there from the left and from the right, and the motion stops at s = ½ — two bang–bang
/// halves, T = 2 · 2 √(½ / 4) = √2, as with a rest point at ½.
#[test]
fn limits_that_admit_only_rest_at_a_breakpoint_stop_the_motion_there() {
    let r = point_mass(1.0);
    let path = Path::new(vec![
        Segment::line(&[2.0, 0.0], &[2.5, 0.0], 0.0, 0.5),
        Segment::line(&[2.5, 0.0], &[3.0, 0.0], 0.5, 1.0),
    ])
    .unwrap();
    let jp = CartesianJointPath::new(path);
    let d = PathDynamics::new(&r, &jp).unwrap();
    let lim = FnLimits(|s: f64, sd: f64, lo: &mut [f64], hi: &mut [f64]| {
        lo[0] = -4.0;
        hi[0] = 4.0;
        lo[1] = if s == 0.5 && sd > 0.0 { 1.0 } else { -1.0 };
        hi[1] = 1.0;
    });
    let acc = AccelerationLimits::new(&d, &lim);
    let sol = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    let exact = 2f64.sqrt();
    eprintln!("T = {} vs {exact}", sol.total_time);
    assert!(
        (sol.total_time - exact).abs() < 1e-6 * exact,
        "T = {} vs {exact}",
        sol.total_time
    );
}
