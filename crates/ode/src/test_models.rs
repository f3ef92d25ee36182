//! Reference problems with exact solutions, shared by tests, benches and `contour-papers`.
//!
//! Each explicit model implements [`OdeRhs`] and [`ExactSolution`]; the stiff problems
//! ([`VanDerPol`], [`Robertson`]) have no closed-form solution; the DAEs ([`Index1Dae`],
//! [`PendulumGgl`]) implement [`DaeResidual`].

use crate::error::RhsError;
use crate::problem::{DaeResidual, OdeRhs};

/// A problem whose exact solution is known.
pub trait ExactSolution: OdeRhs {
    /// Initial time `t₀`.
    fn t0(&self) -> f64;
    /// Initial state `y(t₀)`.
    fn y0(&self) -> Vec<f64>;
    /// Writes the exact `y(t)`.
    fn exact(&self, t: f64, y: &mut [f64]);
}

/// `y' = −λ y`, `y(0) = 1`, exact `y = e^{−λt}`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExponentialDecay {
    /// Rate `λ` (1/s).
    pub lambda: f64,
}

impl OdeRhs for ExponentialDecay {
    fn dim(&self) -> usize {
        1
    }
    fn eval(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = -self.lambda * y[0];
        Ok(())
    }
}

impl ExactSolution for ExponentialDecay {
    fn t0(&self) -> f64 {
        0.0
    }
    fn y0(&self) -> Vec<f64> {
        vec![1.0]
    }
    fn exact(&self, t: f64, y: &mut [f64]) {
        y[0] = (-self.lambda * t).exp();
    }
}

/// `x'' = −ω² x` as `y = (x, v)`, `y(0) = (1, 0)`, exact `x = cos ωt`, `v = −ω sin ωt`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HarmonicOscillator {
    /// Angular frequency `ω` (rad/s).
    pub omega: f64,
}

impl OdeRhs for HarmonicOscillator {
    fn dim(&self) -> usize {
        2
    }
    fn eval(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = y[1];
        dy[1] = -self.omega * self.omega * y[0];
        Ok(())
    }
}

impl ExactSolution for HarmonicOscillator {
    fn t0(&self) -> f64 {
        0.0
    }
    fn y0(&self) -> Vec<f64> {
        vec![1.0, 0.0]
    }
    fn exact(&self, t: f64, y: &mut [f64]) {
        let (s, c) = (self.omega * t).sin_cos();
        y[0] = c;
        y[1] = -self.omega * s;
    }
}

/// Kepler two-body problem `q'' = −q/|q|³`, `y = (q₁, q₂, p₁, p₂)`, started at pericentre:
/// `q(0) = (1 − e, 0)`, `p(0) = (0, sqrt((1+e)/(1−e)))`; period `2π`.
///
/// Exact solution: the eccentric anomaly `E` solves Kepler's equation `E − e sin E = t`
/// (by Newton), then `q = (cos E − e, sqrt(1−e²) sin E)`,
/// `p = (−sin E, sqrt(1−e²) cos E)/(1 − e cos E)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Kepler {
    /// Eccentricity `0 ≤ e < 1`.
    pub e: f64,
}

impl Kepler {
    /// The period `2π`.
    pub const PERIOD: f64 = 2.0 * std::f64::consts::PI;

    /// Solves `E − e sin E = M` by Newton's method from `E₀ = M + e sin M` (to ~1 ulp).
    pub fn eccentric_anomaly(&self, m: f64) -> f64 {
        let e = self.e;
        let mut ea = m + e * m.sin();
        for _ in 0..50 {
            let d = (ea - e * ea.sin() - m) / (1.0 - e * ea.cos());
            ea -= d;
            if d.abs() <= 1e-16 * ea.abs().max(1.0) {
                break;
            }
        }
        ea
    }
}

impl OdeRhs for Kepler {
    fn dim(&self) -> usize {
        4
    }
    fn eval(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        let r2 = y[0] * y[0] + y[1] * y[1];
        if r2 == 0.0 {
            return Err(RhsError::Failed);
        }
        let r3 = r2 * r2.sqrt();
        dy[0] = y[2];
        dy[1] = y[3];
        dy[2] = -y[0] / r3;
        dy[3] = -y[1] / r3;
        Ok(())
    }
}

impl ExactSolution for Kepler {
    fn t0(&self) -> f64 {
        0.0
    }
    fn y0(&self) -> Vec<f64> {
        vec![
            1.0 - self.e,
            0.0,
            0.0,
            ((1.0 + self.e) / (1.0 - self.e)).sqrt(),
        ]
    }
    fn exact(&self, t: f64, y: &mut [f64]) {
        let e = self.e;
        let ea = self.eccentric_anomaly(t);
        let (s, c) = ea.sin_cos();
        let b = (1.0 - e * e).sqrt();
        let d = 1.0 - e * c;
        y[0] = c - e;
        y[1] = b * s;
        y[2] = -s / d;
        y[3] = b * c / d;
    }
}

/// A body falling under gravity: `y = (height, velocity)`, `y' = (v, −g)`,
/// `y(0) = (h₀, v₀)`; impact (`height = 0`) at `t* = (v₀ + sqrt(v₀² + 2 g h₀))/g`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FallingBody {
    /// Gravitational acceleration `g` (m/s²).
    pub g: f64,
    /// Initial height `h₀` (m).
    pub h0: f64,
    /// Initial upward velocity `v₀` (m/s).
    pub v0: f64,
}

impl FallingBody {
    /// Exact impact time `t*`.
    pub fn impact_time(&self) -> f64 {
        (self.v0 + (self.v0 * self.v0 + 2.0 * self.g * self.h0).sqrt()) / self.g
    }
}

impl OdeRhs for FallingBody {
    fn dim(&self) -> usize {
        2
    }
    fn eval(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = y[1];
        dy[1] = -self.g;
        Ok(())
    }
}

impl ExactSolution for FallingBody {
    fn t0(&self) -> f64 {
        0.0
    }
    fn y0(&self) -> Vec<f64> {
        vec![self.h0, self.v0]
    }
    fn exact(&self, t: f64, y: &mut [f64]) {
        y[0] = self.h0 + self.v0 * t - 0.5 * self.g * t * t;
        y[1] = self.v0 - self.g * t;
    }
}

/// A non-autonomous problem `y' = y cos t`, `y(0) = 1`, exact `y = e^{sin t}`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TimeDependent;

impl OdeRhs for TimeDependent {
    fn dim(&self) -> usize {
        1
    }
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = y[0] * t.cos();
        Ok(())
    }
}

impl ExactSolution for TimeDependent {
    fn t0(&self) -> f64 {
        0.0
    }
    fn y0(&self) -> Vec<f64> {
        vec![1.0]
    }
    fn exact(&self, t: f64, y: &mut [f64]) {
        y[0] = t.sin().exp();
    }
}

/// `y' = y²`, `y(0) = 1`: exact `y = 1/(1 − t)`, which blows up at `t = 1`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BlowUp;

impl OdeRhs for BlowUp {
    fn dim(&self) -> usize {
        1
    }
    fn eval(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = y[0] * y[0];
        Ok(())
    }
}

impl ExactSolution for BlowUp {
    fn t0(&self) -> f64 {
        0.0
    }
    fn y0(&self) -> Vec<f64> {
        vec![1.0]
    }
    fn exact(&self, t: f64, y: &mut [f64]) {
        y[0] = 1.0 / (1.0 - t);
    }
}

/// Van der Pol's oscillator `y₁' = y₂`, `y₂' = μ(1 − y₁²)y₂ − y₁`, `y(0) = (2, 0)`; stiff
/// for large `μ` (relaxation period ≈ (3 − 2 ln 2)·μ ≈ 1614 for `μ = 1000`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VanDerPol {
    /// Stiffness parameter `μ`.
    pub mu: f64,
}

impl VanDerPol {
    /// Initial state `(2, 0)`.
    pub fn y0(&self) -> Vec<f64> {
        vec![2.0, 0.0]
    }
}

impl OdeRhs for VanDerPol {
    fn dim(&self) -> usize {
        2
    }
    fn eval(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        dy[0] = y[1];
        dy[1] = self.mu * (1.0 - y[0] * y[0]) * y[1] - y[0];
        Ok(())
    }
}

/// Robertson's chemical kinetics (stiff):
/// `y₁' = −0.04y₁ + 10⁴y₂y₃`, `y₂' = 0.04y₁ − 10⁴y₂y₃ − 3·10⁷y₂²`, `y₃' = 3·10⁷y₂²`,
/// `y(0) = (1, 0, 0)`; `y₁ + y₂ + y₃ = 1` is conserved.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Robertson;

impl Robertson {
    /// Initial state `(1, 0, 0)`.
    pub fn y0(&self) -> Vec<f64> {
        vec![1.0, 0.0, 0.0]
    }
}

impl OdeRhs for Robertson {
    fn dim(&self) -> usize {
        3
    }
    fn eval(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        let a = 0.04 * y[0];
        let b = 1e4 * y[1] * y[2];
        let c = 3e7 * y[1] * y[1];
        dy[0] = -a + b;
        dy[1] = a - b - c;
        dy[2] = c;
        Ok(())
    }
}

/// A nonlinear semi-explicit index-1 DAE with exact solution, `y = (u, z)`:
/// `u' = −u + z`, `0 = z − u² − g(t)`, `g = cos t − sin t − cos²t`;
/// exact `u = cos t`, `z = cos t − sin t`. Residual `F = (u' + u − z, z − u² − g(t))`;
/// `z` is algebraic.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Index1Dae;

impl Index1Dae {
    /// Exact `(u, z)` at `t`.
    pub fn exact(&self, t: f64, y: &mut [f64]) {
        let (s, c) = t.sin_cos();
        y[0] = c;
        y[1] = c - s;
    }
    /// Exact `(u', z')` at `t`.
    pub fn exact_derivative(&self, t: f64, yp: &mut [f64]) {
        let (s, c) = t.sin_cos();
        yp[0] = -s;
        yp[1] = -s - c;
    }
    /// Algebraic components: `[false, true]`.
    pub fn algebraic(&self) -> Vec<bool> {
        vec![false, true]
    }
}

impl DaeResidual for Index1Dae {
    fn dim(&self) -> usize {
        2
    }
    fn residual(&mut self, t: f64, y: &[f64], yp: &[f64], r: &mut [f64]) -> Result<(), RhsError> {
        let (s, c) = t.sin_cos();
        let g = c - s - c * c;
        r[0] = yp[0] + y[0] - y[1];
        r[1] = y[1] - y[0] * y[0] - g;
        Ok(())
    }
}

/// The planar pendulum (unit mass, unit length, gravity `g`) in the stabilized index-2 form
/// of Gear, Gupta & Leimkuhler (GGL), `y = (x, y, u, w, λ, μ)`:
///
/// `q' = v − Gᵀμ`, `v' = −(0, g) − Gᵀλ`, `0 = φ = (x² + y² − 1)/2`, `0 = G v = xu + yw`,
/// `G = ∂φ/∂q = (x, y)`. The residual is
/// `F = (x' − u + xμ, y' − w + yμ, u' + xλ, w' + g + yλ, φ, xu + yw)`;
/// `λ`, `μ` are algebraic (and must be excluded from the error test: index 2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PendulumGgl {
    /// Gravitational acceleration (m/s²).
    pub g: f64,
}

impl PendulumGgl {
    /// Consistent state at rest at angle `θ₀` from the downward vertical:
    /// `q = (sin θ₀, −cos θ₀)`, `v = 0`, `λ = g cos θ₀`, `μ = 0`.
    pub fn y0(&self, theta0: f64) -> Vec<f64> {
        let (s, c) = theta0.sin_cos();
        vec![s, -c, 0.0, 0.0, self.g * c, 0.0]
    }
    /// Consistent derivative at the state of [`PendulumGgl::y0`]:
    /// `y' = (0, 0, −xλ, −g − yλ, 0, 0)`.
    pub fn yp0(&self, theta0: f64) -> Vec<f64> {
        let y = self.y0(theta0);
        vec![0.0, 0.0, -y[0] * y[4], -self.g - y[1] * y[4], 0.0, 0.0]
    }
    /// Algebraic components `λ`, `μ`.
    pub fn algebraic(&self) -> Vec<bool> {
        vec![false, false, false, false, true, true]
    }
    /// Position constraint `φ = (x² + y² − 1)/2`.
    pub fn phi(&self, y: &[f64]) -> f64 {
        0.5 * (y[0] * y[0] + y[1] * y[1] - 1.0)
    }
    /// Energy `(u² + w²)/2 + g·y` (conserved by the exact solution).
    pub fn energy(&self, y: &[f64]) -> f64 {
        0.5 * (y[2] * y[2] + y[3] * y[3]) + self.g * y[1]
    }
}

impl DaeResidual for PendulumGgl {
    fn dim(&self) -> usize {
        6
    }
    fn residual(&mut self, _t: f64, y: &[f64], yp: &[f64], r: &mut [f64]) -> Result<(), RhsError> {
        let (x, yy, u, w, lam, mu) = (y[0], y[1], y[2], y[3], y[4], y[5]);
        r[0] = yp[0] - u + x * mu;
        r[1] = yp[1] - w + yy * mu;
        r[2] = yp[2] + x * lam;
        r[3] = yp[3] + self.g + yy * lam;
        r[4] = 0.5 * (x * x + yy * yy - 1.0);
        r[5] = x * u + yy * w;
        Ok(())
    }
}

/// Max-norm distance between two vectors.
pub fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact solutions satisfy their equations (central differences, error O(δ²)).
    #[test]
    fn exact_solutions_satisfy_the_equations() {
        fn check<P: ExactSolution>(mut p: P, t: f64) {
            let n = p.dim();
            let (mut ya, mut yb, mut y, mut dy) =
                (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            let d = 1e-5;
            p.exact(t + d, &mut ya);
            p.exact(t - d, &mut yb);
            p.exact(t, &mut y);
            p.eval(t, &y, &mut dy).unwrap();
            for i in 0..n {
                let fd = (ya[i] - yb[i]) / (2.0 * d);
                assert!(
                    (fd - dy[i]).abs() < 1e-8 * (1.0 + dy[i].abs()),
                    "component {i}: {fd} vs {}",
                    dy[i]
                );
            }
            let mut y0 = vec![0.0; n];
            p.exact(p.t0(), &mut y0);
            assert!(max_abs_diff(&y0, &p.y0()) < 1e-15);
        }
        check(ExponentialDecay { lambda: 0.7 }, 0.9);
        check(HarmonicOscillator { omega: 2.0 }, 1.3);
        check(Kepler { e: 0.5 }, 2.1);
        check(Kepler { e: 0.5 }, 9.7);
        check(
            FallingBody {
                g: 9.81,
                h0: 10.0,
                v0: 1.0,
            },
            0.4,
        );
        check(TimeDependent, 2.5);
        check(BlowUp, 0.5);
        // The DAE models: the exact / consistent data have zero residual.
        let mut r = [0.0; 6];
        let (mut y, mut yp) = ([0.0; 2], [0.0; 2]);
        Index1Dae.exact(0.7, &mut y);
        Index1Dae.exact_derivative(0.7, &mut yp);
        Index1Dae.residual(0.7, &y, &yp, &mut r[..2]).unwrap();
        assert!(r[..2].iter().all(|v| v.abs() < 1e-15), "{r:?}");
        let mut pend = PendulumGgl { g: 9.81 };
        let (y6, yp6) = (pend.y0(0.6), pend.yp0(0.6));
        pend.residual(0.0, &y6, &yp6, &mut r).unwrap();
        assert!(r.iter().all(|v| v.abs() < 1e-15), "{r:?}");
        let fb = FallingBody {
            g: 9.81,
            h0: 10.0,
            v0: 1.0,
        };
        let mut y = [0.0; 2];
        fb.exact(fb.impact_time(), &mut y);
        assert!(y[0].abs() < 1e-13);
    }
}
