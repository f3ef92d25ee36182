//! TOPP-RA evaluates speed-dependent limits (`FnLimits`) at the ṡ of its grid: evaluated at
//! ṡ = 0 they give a time *below* the true minimum, silently. Case: a unit point mass going once around a circle
//! of radius R = 1 with ‖acceleration‖₂ ≤ A = 1, rest to rest. On the unrolled circle (a line
//! of length 2π, s = arc length, ṡ = speed) the normal acceleration ṡ²/R leaves the tangential
//! force |F_t| ≤ √(1 − ṡ⁴), and ṡ ≤ 1. The exact minimum (lemniscate integrals):
//! T = 2 ∫₀¹ dv/√(1 − v⁴) + (2π − 2 ∫₀¹ v dv/√(1 − v⁴)) = 2·1.3110287771… + 2π − π/2
//!   = 7.3344465… s; the old TOPP-RA gave 2π + 1 = 7.28319 s.

use crate::common;

use common::point_mass;
use contour_planning::phase_plane::{PhasePlane, PhasePlaneConfig};
use contour_planning::toppra::{Toppra, ToppraConfig};
use contour_planning::*;
use std::sync::Arc;

fn unrolled_circle() -> CartesianJointPath {
    let seg = Segment::line(
        &[2.0, 0.0],
        &[2.0 + 2.0 * std::f64::consts::PI, 0.0],
        0.0,
        2.0 * std::f64::consts::PI,
    );
    CartesianJointPath::new(Path::new(vec![seg]).unwrap())
}

/// |F_x| ≤ √(1 − ṡ⁴) for ṡ ≤ 1; inverted (inadmissible) above; F_y free within ±1.
fn friction_circle(_s: f64, sd: f64, lo: &mut [f64], hi: &mut [f64]) {
    let v4 = sd.powi(4);
    if v4 <= 1.0 {
        let b = (1.0 - v4).sqrt();
        lo[0] = -b;
        hi[0] = b;
    } else {
        lo[0] = 1.0;
        hi[0] = -1.0;
    }
    lo[1] = -1.0;
    hi[1] = 1.0;
}

/// ∫₀¹ dv/√(1−v⁴) = Γ(1/4)²/(4√(2π)) (the lemniscate constant ϖ/2), ∫₀¹ v dv/√(1−v⁴) = π/4.
fn exact_time() -> f64 {
    // Γ(1/4) = 3.625609908221908311930685155867672002995…
    let g = 3.625_609_908_221_908_f64;
    let k = g * g / (4.0 * (2.0 * std::f64::consts::PI).sqrt());
    2.0 * k + 2.0 * std::f64::consts::PI - std::f64::consts::FRAC_PI_2
}

#[test]
fn exact_minimum_is_the_lemniscate_value() {
    assert!(
        (exact_time() - 7.334_446_5).abs() < 1e-7,
        "{}",
        exact_time()
    );
}

#[test]
fn toppra_honours_speed_dependent_limits() {
    let r = point_mass(1.0);
    let jp = unrolled_circle();
    let d = PathDynamics::new(&r, &jp).unwrap();
    let lim = FnLimits(friction_circle);
    let acc = AccelerationLimits::new(&d, &lim);
    let exact = exact_time();
    for (n, cap) in [(200usize, false), (2000, false), (2000, true)] {
        let cfg = ToppraConfig {
            intervals: n,
            speed_cap: cap
                .then(|| Arc::new(|_s: f64| 1.0) as Arc<dyn Fn(f64) -> f64 + Send + Sync>),
            ..ToppraConfig::default()
        };
        let sol = Toppra::new(&acc, cfg).solve().unwrap();
        assert_eq!(sol.sdd.len(), n, "intervals is the total");
        eprintln!(
            "N = {n} cap {cap}: T = {:.9} rel {:.3e} viol {:.3e}",
            sol.total_time,
            (sol.total_time - exact) / exact,
            sol.max_violation
        );
        // never below the truth (the old 2π + 1 was 7e-3 below), converging like O(1/N)
        let rel = (sol.total_time - exact) / exact;
        assert!(
            rel > -1e-9 && rel < 0.5 / n as f64,
            "N = {n}: {} vs {exact} ({rel:e})",
            sol.total_time
        );
        assert!(sol.sd.iter().all(|v| *v <= 1.0 + 1e-12));
        assert!(sol.max_violation <= 1e-7, "{}", sol.max_violation);
    }
}

#[test]
fn phase_plane_reaches_the_exact_minimum() {
    let r = point_mass(1.0);
    let jp = unrolled_circle();
    let d = PathDynamics::new(&r, &jp).unwrap();
    let lim = FnLimits(friction_circle);
    let acc = AccelerationLimits::new(&d, &lim);
    let sol = PhasePlane::new(&acc, PhasePlaneConfig::default())
        .solve()
        .unwrap();
    let exact = exact_time();
    eprintln!(
        "phase plane: {:.10} rel {:.2e}",
        sol.total_time,
        (sol.total_time - exact) / exact
    );
    assert!(
        ((sol.total_time - exact) / exact).abs() < 1e-7,
        "{} vs {exact}",
        sol.total_time
    );
}

/// Limits that depend on ṡ but claim not to: the check after the solve refuses the result.
struct Liar;
impl TorqueLimits for Liar {
    fn limits(&self, s: f64, sd: f64, lo: &mut [f64], hi: &mut [f64]) {
        friction_circle(s, sd.min(0.999), lo, hi)
    }
    fn depends_on_speed(&self) -> bool {
        false
    }
}

#[test]
fn a_profile_that_breaks_the_limits_is_an_error() {
    let r = point_mass(1.0);
    let jp = unrolled_circle();
    let d = PathDynamics::new(&r, &jp).unwrap();
    let acc = AccelerationLimits::new(&d, &Liar);
    let cfg = ToppraConfig {
        intervals: 500,
        speed_cap: Some(Arc::new(|_s: f64| 1.0)),
        ..ToppraConfig::default()
    };
    let e = Toppra::new(&acc, cfg).solve().unwrap_err();
    assert!(
        matches!(e, PlanningError::LimitViolated { joint: 0, .. }),
        "{e:?}"
    );
}
