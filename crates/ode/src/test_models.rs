//! Reference problems with exact solutions, shared by tests, benches and the reproduction
//! tables.
//!
//! Each model implements [`OdeRhs`] and [`ExactSolution`].

use crate::error::RhsError;
use crate::problem::OdeRhs;

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
