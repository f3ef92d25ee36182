//! Built-in models written again in the generic form of [`crate::autodiff`]: the witnesses of
//! the adapter (their `M`, `h`, `J`, `b`, `ρ` equal the hand-written ones to ≤ 1e-13,
//! `tests/autodiff_witness.rs`) and the subjects of the cost bench
//! (`benches/benches/autodiff.rs`).

use crate::autodiff::{AutoDiffModel, Scalar};
use crate::models::{AndrewsSqueezer, Pendulum, RedundantFourBar, SliderCrank};
use crate::Mechanism;

/// [`Pendulum`] as energies and constraints.
#[derive(Debug, Clone, Copy, Default)]
pub struct AdPendulum(pub Pendulum);
impl AutoDiffModel for AdPendulum {
    fn name(&self) -> &str {
        "ad-pendulum"
    }
    fn dof(&self) -> usize {
        2
    }
    fn n_constraints(&self) -> usize {
        1
    }
    fn kinetic_energy<S: Scalar>(&self, _q: &[S], qd: &[S]) -> S {
        (qd[0] * qd[0] + qd[1] * qd[1]) * (0.5 * self.0.mass)
    }
    fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
        q[1] * (self.0.mass * self.0.gravity)
    }
    fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
        phi[0] = q[0] * q[0] + q[1] * q[1] - self.0.length * self.0.length;
    }
}

/// [`SliderCrank`] as energies and constraints (its torque and slider force as applied forces).
#[derive(Debug, Clone, Copy, Default)]
pub struct AdSliderCrank(pub SliderCrank);
impl AutoDiffModel for AdSliderCrank {
    fn name(&self) -> &str {
        "ad-slider-crank"
    }
    fn dof(&self) -> usize {
        3
    }
    fn n_constraints(&self) -> usize {
        2
    }
    fn kinetic_energy<S: Scalar>(&self, q: &[S], qd: &[S]) -> S {
        let p = &self.0;
        let (r, l, m1, m2) = (p.crank_length, p.rod_length, p.crank_mass, p.rod_mass);
        let c = (q[0] - q[1]).cos() * (0.5 * m2 * r * l);
        qd[0] * qd[0] * (0.5 * (m1 * r * r / 3.0 + m2 * r * r))
            + c * qd[0] * qd[1]
            + qd[1] * qd[1] * (0.5 * m2 * l * l / 3.0)
            + qd[2] * qd[2] * (0.5 * p.slider_mass)
    }
    fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
        let p = &self.0;
        let (r, l, m1, m2) = (p.crank_length, p.rod_length, p.crank_mass, p.rod_mass);
        (q[0].sin() * (m1 * 0.5 * r + m2 * r) + q[1].sin() * (m2 * 0.5 * l)) * p.gravity
    }
    fn applied_forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
        self.0.applied_forces(t, q, qd, u)
    }
    fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
        let (r, l) = (self.0.crank_length, self.0.rod_length);
        phi[0] = q[0].cos() * r + q[1].cos() * l - q[2];
        phi[1] = q[0].sin() * r + q[1].sin() * l;
    }
}

/// [`RedundantFourBar`] as energies and constraints (three rows, one redundant).
#[derive(Debug, Clone, Copy, Default)]
pub struct AdFourBar(pub RedundantFourBar);
impl AutoDiffModel for AdFourBar {
    fn name(&self) -> &str {
        "ad-four-bar"
    }
    fn dof(&self) -> usize {
        3
    }
    fn n_constraints(&self) -> usize {
        3
    }
    fn kinetic_energy<S: Scalar>(&self, q: &[S], qd: &[S]) -> S {
        let p = &self.0;
        let (a, b, c) = (p.crank_length, p.coupler_length, p.rocker_length);
        let (m1, m2, m3) = (p.crank_mass, p.coupler_mass, p.rocker_mass);
        let m12 = (q[0] - q[1]).cos() * (0.5 * m2 * a * b);
        qd[0] * qd[0] * (0.5 * (m1 * a * a / 3.0 + m2 * a * a))
            + m12 * qd[0] * qd[1]
            + qd[1] * qd[1] * (0.5 * m2 * b * b / 3.0)
            + qd[2] * qd[2] * (0.5 * m3 * c * c / 3.0)
    }
    fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
        let p = &self.0;
        let (a, b, c) = (p.crank_length, p.coupler_length, p.rocker_length);
        let (m1, m2, m3) = (p.crank_mass, p.coupler_mass, p.rocker_mass);
        (q[0].sin() * (m1 * 0.5 * a + m2 * a)
            + q[1].sin() * (m2 * 0.5 * b)
            + q[2].sin() * (m3 * 0.5 * c))
            * p.gravity
    }
    fn applied_forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
        self.0.applied_forces(t, q, qd, u)
    }
    fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
        let p = &self.0;
        let (a, b, c, d) = (
            p.crank_length,
            p.coupler_length,
            p.rocker_length,
            p.ground_length,
        );
        phi[0] = q[0].cos() * a + q[1].cos() * b - q[2].cos() * c - d;
        phi[1] = q[0].sin() * a + q[1].sin() * b - q[2].sin() * c;
        let (sg, cg) = p.redundant_direction.sin_cos();
        phi[2] = phi[0] * cg + phi[1] * sg;
    }
}

/// [`AndrewsSqueezer`] as its kinetic energy (from the test set's mass matrix (7.8)) and
/// constraints (7.9); the driving torque and the spring stay applied forces. Its `h` from
/// Lagrange's equations is an independent check of the test set's velocity terms.
#[derive(Debug, Clone, Copy, Default)]
pub struct AdAndrews(pub AndrewsSqueezer);

impl AutoDiffModel for AdAndrews {
    fn name(&self) -> &str {
        "ad-andrews"
    }
    fn dof(&self) -> usize {
        7
    }
    fn n_constraints(&self) -> usize {
        6
    }
    fn kinetic_energy<S: Scalar>(&self, q: &[S], qd: &[S]) -> S {
        self.0.kinetic_energy_generic(q, qd)
    }
    fn applied_forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
        self.0.applied_forces(t, q, qd, u)
    }
    fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
        self.0.constraints_generic(q, phi)
    }
}
