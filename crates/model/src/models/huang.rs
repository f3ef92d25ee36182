//! Huang's two-degree-of-freedom Cartesian robot against a circular obstacle
//! (Huang thesis, section 6.1, equations (6.1.1)–(6.1.3), friction (6.3.4)).

use crate::{ConstraintKind, Controller, Mechanism};
use faer::MatMut;

/// Cartesian (x, y) robot with unit link masses, no gravity, Coriolis or
/// centrifugal terms (Huang (6.1.1)), whose end effector must stay outside a
/// circle of radius R centred at c (Huang (6.1.2)), one **unilateral** row:
///
/// ```text
/// M = diag(m_x, m_y),  h = 0,  u = (F_x, F_y)
/// φ = (x − c_x)² + (y − c_y)² − R² ≥ 0,   J = 2 (x − c_x, y − c_y),   ρ = 2 (ẋ² + ẏ²)
/// ```
///
/// With unit masses and c = (0, 1.5) this is Huang (6.1.3):
/// `ẍ = F_x + 2xλ`, `ÿ = F_y + 2(y − 1.5)λ`, `λ ≥ 0`, `λ φ = 0`.
/// The joint forces are the input: drive the model through a
/// [`Controller`](crate::Controller) (e.g. the PD law (6.3.3)) or give them
/// explicitly to
/// [`ConstrainedDynamics::contact_force_with_input`](crate::ConstrainedDynamics::contact_force_with_input).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HuangCartesianRobot {
    /// Radius R of the constraint circle \[m\] (nominal 0.5; 0.55 in Huang's simulation II).
    pub radius: f64,
    /// Centre (c_x, c_y) of the constraint circle \[m\] (nominal (0, 1.5)).
    pub center: [f64; 2],
    /// Effective masses (m_x, m_y) of the two prismatic axes \[kg\] (nominal unit masses).
    pub mass: [f64; 2],
    /// Coulomb friction coefficient μ on the circle \[-\] (nominal 0; 0.05 in Huang's simulation III).
    /// Used only by [`HuangCartesianRobot::friction_forces`].
    pub friction: f64,
}

impl Default for HuangCartesianRobot {
    fn default() -> Self {
        Self {
            radius: 0.5,
            center: [0.0, 1.5],
            mass: [1.0, 1.0],
            friction: 0.0,
        }
    }
}

impl HuangCartesianRobot {
    /// Coulomb friction on the circle, Huang (6.3.4):
    /// `f = −μ λ q̇ / ‖q̇‖`, written to `out` (length 2).
    ///
    /// `out = 0` when `λ ≤ 0` (no contact), when the speed is zero (sticking is
    /// not modelled) or when μ = 0. `q` is unused (the law does not depend on the
    /// position) and is kept for a uniform signature.
    pub fn friction_forces(&self, q: &[f64], qd: &[f64], lambda: f64, out: &mut [f64]) {
        let _ = q;
        let speed = (qd[0] * qd[0] + qd[1] * qd[1]).sqrt();
        if lambda <= 0.0 || speed == 0.0 || self.friction == 0.0 || !speed.is_finite() {
            out[0] = 0.0;
            out[1] = 0.0;
            return;
        }
        // Huang (6.3.4)
        let k = -self.friction * lambda / speed;
        out[0] = k * qd[0];
        out[1] = k * qd[1];
    }
}

/// A planned motion at one instant: desired position, velocity and joint
/// forces `(x^d, y^d)`, `(ẋ^d, ẏ^d)`, `(F_x^d, F_y^d)` (from the motion planner).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DesiredMotion {
    /// Desired position \[m\].
    pub q: [f64; 2],
    /// Desired velocity \[m/s\].
    pub qd: [f64; 2],
    /// Desired (feed-forward) joint forces \[N\].
    pub force: [f64; 2],
}

/// Huang's PD tracking law (6.3.3) around a planned motion `reference(t)`:
///
/// ```text
/// F = F^d − k_d (q̇ − q̇^d) − k_p (q − q^d)
/// ```
///
/// with Huang's gains `k_p = 1`, `k_d = 1.5` (undamped natural frequency 1,
/// damping ratio 0.75 for unit masses with the constraint inactive).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HuangPdLaw<R> {
    /// Position gain k_p \[N/m\] (Huang: 1).
    pub kp: f64,
    /// Velocity gain k_d \[N·s/m\] (Huang: 1.5).
    pub kd: f64,
    /// The planned motion, `t ↦ DesiredMotion`.
    pub reference: R,
}

impl<R: Fn(f64) -> DesiredMotion> HuangPdLaw<R> {
    /// The law with Huang's gains `k_p = 1`, `k_d = 1.5`.
    pub fn new(reference: R) -> Self {
        Self {
            kp: 1.0,
            kd: 1.5,
            reference,
        }
    }
}

impl<R: Fn(f64) -> DesiredMotion> Controller for HuangPdLaw<R> {
    fn forces(&self, t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
        let d = (self.reference)(t);
        for i in 0..2 {
            // Huang (6.3.3)
            u[i] += d.force[i] - self.kd * (qd[i] - d.qd[i]) - self.kp * (q[i] - d.q[i]);
        }
    }
}

impl Mechanism for HuangCartesianRobot {
    fn validate(&self) -> Result<(), crate::ModelError> {
        crate::validate::check_positive_parameter("huang.radius", self.radius)?;
        crate::validate::check_positive_parameter("huang.mass[0]", self.mass[0])?;
        crate::validate::check_positive_parameter("huang.mass[1]", self.mass[1])?;
        crate::validate::check_finite_parameter("huang.center[0]", self.center[0])?;
        crate::validate::check_finite_parameter("huang.center[1]", self.center[1])?;
        if !(self.friction >= 0.0 && self.friction.is_finite()) {
            return Err(crate::ModelError::InvalidParameter {
                what: "huang.friction",
                value: self.friction,
            });
        }
        Ok(())
    }
    fn name(&self) -> &str {
        "huang-cartesian-robot"
    }
    fn dof(&self) -> usize {
        2
    }
    fn n_constraints(&self) -> usize {
        1
    }
    fn constraint_kind(&self, _row: usize) -> ConstraintKind {
        ConstraintKind::Unilateral
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        m.fill(0.0);
        m[(0, 0)] = self.mass[0];
        m[(1, 1)] = self.mass[1];
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        // Huang (6.1.1): gravity, centrifugal and Coriolis effects neglected.
        h.fill(0.0);
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        // Huang (6.1.2)
        let dx = q[0] - self.center[0];
        let dy = q[1] - self.center[1];
        phi[0] = dx * dx + dy * dy - self.radius * self.radius;
    }
    fn constraint_jacobian(&self, _t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        j[(0, 0)] = 2.0 * (q[0] - self.center[0]);
        j[(0, 1)] = 2.0 * (q[1] - self.center[1]);
    }
    fn constraint_accel_bias(&self, _t: f64, _q: &[f64], qd: &[f64], rho: &mut [f64]) {
        rho[0] = 2.0 * (qd[0] * qd[0] + qd[1] * qd[1]);
    }
    fn kinetic_energy(&self, _q: &[f64], qd: &[f64]) -> Option<f64> {
        Some(0.5 * (self.mass[0] * qd[0] * qd[0] + self.mass[1] * qd[1] * qd[1]))
    }
    fn potential_energy(&self, _q: &[f64]) -> Option<f64> {
        Some(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ConstrainedDynamics;

    #[test]
    fn row_is_unilateral_and_pushing_into_the_circle_gives_a_positive_multiplier() {
        let r = HuangCartesianRobot::default();
        assert_eq!(r.constraint_kind(0), ConstraintKind::Unilateral);
        // at the bottom of the circle (0, 1), pushing up with F_y = 1:
        // ÿ = F_y + 2(y − 1.5) λ = 1 − λ = 0  =>  λ = 1  (Huang (6.1.3))
        let mut d = ConstrainedDynamics::new(&r);
        let mut lambda = [0.0];
        d.contact_force_with_input(&r, 0.0, &[0.0, 1.0], &[0.0, 0.0], &[0.0, 1.0], &mut lambda)
            .unwrap();
        assert!((lambda[0] - 1.0).abs() < 1e-15, "{lambda:?}");
        let qdd = d.last_contact_accelerations();
        assert!(qdd[0].abs() < 1e-15 && qdd[1].abs() < 1e-15, "{qdd:?}");
        // Huang (2.3.2) by hand: at (R, 1.5) moving with (0, v), F = 0: J = (2R, 0), ρ = 2v²,
        // ẍ = 2Rλ, J q̈ = 4R²λ = −2v²  =>  λ = −v²/(2R²) (negative: the constraint would pull).
        let v = 0.8;
        d.contact_force_with_input(&r, 0.0, &[0.5, 1.5], &[0.0, v], &[0.0, 0.0], &mut lambda)
            .unwrap();
        let expected = -v * v / (2.0 * 0.25);
        assert!(
            (lambda[0] - expected).abs() < 1e-15,
            "{lambda:?} vs {expected}"
        );
    }

    #[test]
    fn pd_law_reproduces_6_3_3() {
        let law = HuangPdLaw::new(|t: f64| DesiredMotion {
            q: [t, 1.0],
            qd: [1.0, 0.0],
            force: [0.5, -0.5],
        });
        let mut u = [0.0; 2];
        law.forces_into(2.0, &[2.5, 0.8], &[0.0, 1.0], &mut u);
        // F_x = 0.5 − 1.5 (0 − 1) − (2.5 − 2) = 1.5;  F_y = −0.5 − 1.5 (1 − 0) − (0.8 − 1) = −1.8
        assert!(
            (u[0] - 1.5).abs() < 1e-15 && (u[1] + 1.8).abs() < 1e-15,
            "{u:?}"
        );
    }

    #[test]
    fn friction_opposes_the_velocity_with_magnitude_mu_lambda() {
        let r = HuangCartesianRobot {
            friction: 0.05,
            ..Default::default()
        };
        let mut f = [9.0; 2];
        r.friction_forces(&[0.0, 1.0], &[3.0, -4.0], 2.0, &mut f);
        // Huang (6.3.4): −μλ q̇/‖q̇‖ = −0.1 (0.6, −0.8)
        assert!(
            (f[0] + 0.06).abs() < 1e-16 && (f[1] - 0.08).abs() < 1e-16,
            "{f:?}"
        );
        r.friction_forces(&[0.0, 1.0], &[3.0, -4.0], 0.0, &mut f);
        assert_eq!(f, [0.0, 0.0]);
        r.friction_forces(&[0.0, 1.0], &[0.0, 0.0], 2.0, &mut f);
        assert_eq!(f, [0.0, 0.0]);
    }
}
