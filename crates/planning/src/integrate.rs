//! A scalar embedded Runge–Kutta integrator in the path parameter s.
//!
//! The phase-plane curves are integrated in `x = ṡ²` rather than ṡ:
//! `dx/ds = 2 s̈(s, √x)` is regular at ṡ = 0 where `dṡ/ds = s̈/ṡ` (Huang (4.3.48)) is not.
//! Dormand–Prince 5(4) (Dormand & Prince 1980) with local extrapolation and the standard
//! step-size controller; between accepted steps the solution is represented by the cubic
//! Hermite interpolant of the end values and slopes (used for event location).

use crate::error::PlanningError;

const C2: f64 = 1.0 / 5.0;
const C3: f64 = 3.0 / 10.0;
const C4: f64 = 4.0 / 5.0;
const C5: f64 = 8.0 / 9.0;
const A21: f64 = 1.0 / 5.0;
const A31: f64 = 3.0 / 40.0;
const A32: f64 = 9.0 / 40.0;
const A41: f64 = 44.0 / 45.0;
const A42: f64 = -56.0 / 15.0;
const A43: f64 = 32.0 / 9.0;
const A51: f64 = 19372.0 / 6561.0;
const A52: f64 = -25360.0 / 2187.0;
const A53: f64 = 64448.0 / 6561.0;
const A54: f64 = -212.0 / 729.0;
const A61: f64 = 9017.0 / 3168.0;
const A62: f64 = -355.0 / 33.0;
const A63: f64 = 46732.0 / 5247.0;
const A64: f64 = 49.0 / 176.0;
const A65: f64 = -5103.0 / 18656.0;
const B1: f64 = 35.0 / 384.0;
const B3: f64 = 500.0 / 1113.0;
const B4: f64 = 125.0 / 192.0;
const B5: f64 = -2187.0 / 6784.0;
const B6: f64 = 11.0 / 84.0;
// error coefficients b − b̂
const E1: f64 = 71.0 / 57600.0;
const E3: f64 = -71.0 / 16695.0;
const E4: f64 = 71.0 / 1920.0;
const E5: f64 = -17253.0 / 339200.0;
const E6: f64 = 22.0 / 525.0;
const E7: f64 = -1.0 / 40.0;

/// Result of one attempted step: the 5th-order value, its slope (FSAL) and the error estimate.
pub(crate) struct StepResult {
    pub x: f64,
    pub f: f64,
    pub err: f64,
}

/// One Dormand–Prince 5(4) step of `x' = f(s, x)` from `(s, x)` with slope `f0`, step `h`.
pub(crate) fn dopri_step<F>(
    f: &mut F,
    s: f64,
    x: f64,
    f0: f64,
    h: f64,
) -> Result<StepResult, PlanningError>
where
    F: FnMut(f64, f64) -> Result<f64, PlanningError>,
{
    let k1 = f0;
    let k2 = f(s + C2 * h, x + h * A21 * k1)?;
    let k3 = f(s + C3 * h, x + h * (A31 * k1 + A32 * k2))?;
    let k4 = f(s + C4 * h, x + h * (A41 * k1 + A42 * k2 + A43 * k3))?;
    let k5 = f(
        s + C5 * h,
        x + h * (A51 * k1 + A52 * k2 + A53 * k3 + A54 * k4),
    )?;
    let k6 = f(
        s + h,
        x + h * (A61 * k1 + A62 * k2 + A63 * k3 + A64 * k4 + A65 * k5),
    )?;
    let xn = x + h * (B1 * k1 + B3 * k3 + B4 * k4 + B5 * k5 + B6 * k6);
    let k7 = f(s + h, xn)?;
    let err = h * (E1 * k1 + E3 * k3 + E4 * k4 + E5 * k5 + E6 * k6 + E7 * k7);
    Ok(StepResult { x: xn, f: k7, err })
}

/// Cubic Hermite interpolant on `[s0, s1]` with values `x0, x1` and slopes `f0, f1`.
pub(crate) fn hermite(s0: f64, x0: f64, f0: f64, s1: f64, x1: f64, f1: f64, s: f64) -> f64 {
    let h = s1 - s0;
    if h == 0.0 {
        return x0;
    }
    let t = (s - s0) / h;
    let t2 = t * t;
    let t3 = t2 * t;
    (2.0 * t3 - 3.0 * t2 + 1.0) * x0
        + (t3 - 2.0 * t2 + t) * h * f0
        + (-2.0 * t3 + 3.0 * t2) * x1
        + (t3 - t2) * h * f1
}

/// Step-size controller: new step from the error ratio `r = |err| / tol` (order 5).
pub(crate) fn next_step(h: f64, r: f64) -> f64 {
    let fac = if r == 0.0 {
        5.0
    } else {
        (0.9 * r.powf(-0.2)).clamp(0.2, 5.0)
    };
    h * fac
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dopri_integrates_exponential_to_tolerance() {
        // x' = x, x(0) = 1 on [0, 1] with fixed steps h = 0.05: global error O(h^5)
        let mut f = |_s: f64, x: f64| -> Result<f64, PlanningError> { Ok(x) };
        let (mut s, mut x) = (0.0, 1.0);
        let mut fx = 1.0;
        let h = 0.05;
        for _ in 0..20 {
            let r = dopri_step(&mut f, s, x, fx, h).unwrap();
            s += h;
            x = r.x;
            fx = r.f;
            assert!(r.err.abs() < 1e-8);
        }
        assert!((x - 1f64.exp()).abs() < 1e-9, "x = {x}");
    }

    #[test]
    fn hermite_is_exact_for_cubics() {
        let p = |s: f64| 1.0 + 2.0 * s - s * s + 0.5 * s * s * s;
        let dp = |s: f64| 2.0 - 2.0 * s + 1.5 * s * s;
        let v = hermite(0.3, p(0.3), dp(0.3), 1.1, p(1.1), dp(1.1), 0.77);
        assert!((v - p(0.77)).abs() < 1e-14);
    }
}
