//! Planar pendulum in Cartesian coordinates (the index-3 textbook DAE).

use crate::Mechanism;
use faer::MatMut;

/// A point mass `m` on a massless rod of length `ℓ` pivoting at the origin,
/// in Cartesian coordinates `q = (x, y)` with `y` pointing up:
///
/// ```text
/// M = m I₂,  h = (0, m g),  φ = x² + y² − ℓ²,  J = 2 (x, y),  ρ = 2 (ẋ² + ẏ²)
/// E = ½ m (ẋ² + ẏ²) + m g y
/// ```
///
/// The multiplier is `λ = −(rod tension)/(2ℓ)`: at rest hanging down,
/// `λ = −m g / (2ℓ)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pendulum {
    /// Rod length ℓ \[m\] (nominal 1).
    pub length: f64,
    /// Point mass m \[kg\] (nominal 1).
    pub mass: f64,
    /// Gravitational acceleration g \[m/s²\], acting along −y (nominal 9.81).
    pub gravity: f64,
}

impl Default for Pendulum {
    fn default() -> Self {
        Self {
            length: 1.0,
            mass: 1.0,
            gravity: 9.81,
        }
    }
}

impl Pendulum {
    /// Consistent state at angle `theta` from the downward vertical with angular rate `omega`:
    /// `q = ℓ (sin θ, −cos θ)`, `q̇ = ℓ ω (cos θ, sin θ)`.
    pub fn state(&self, theta: f64, omega: f64) -> ([f64; 2], [f64; 2]) {
        let (s, c) = theta.sin_cos();
        let l = self.length;
        ([l * s, -l * c], [l * omega * c, l * omega * s])
    }
}

impl Mechanism for Pendulum {
    fn validate(&self) -> Result<(), crate::ModelError> {
        crate::validate::check_positive_parameter("pendulum.length", self.length)?;
        crate::validate::check_positive_parameter("pendulum.mass", self.mass)?;
        crate::validate::check_finite_parameter("pendulum.gravity", self.gravity)?;
        Ok(())
    }
    fn name(&self) -> &str {
        "pendulum"
    }
    fn dof(&self) -> usize {
        2
    }
    fn n_constraints(&self) -> usize {
        1
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        m.fill(0.0);
        m[(0, 0)] = self.mass;
        m[(1, 1)] = self.mass;
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        h[0] = 0.0;
        h[1] = self.mass * self.gravity;
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        phi[0] = q[0] * q[0] + q[1] * q[1] - self.length * self.length;
    }
    fn constraint_jacobian(&self, _t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        j[(0, 0)] = 2.0 * q[0];
        j[(0, 1)] = 2.0 * q[1];
    }
    fn constraint_accel_bias(&self, _t: f64, _q: &[f64], qd: &[f64], rho: &mut [f64]) {
        rho[0] = 2.0 * (qd[0] * qd[0] + qd[1] * qd[1]);
    }
    fn kinetic_energy(&self, _q: &[f64], qd: &[f64]) -> Option<f64> {
        Some(0.5 * self.mass * (qd[0] * qd[0] + qd[1] * qd[1]))
    }
    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        Some(self.mass * self.gravity * q[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{consistent_state, ConsistentStateOptions, ConstrainedDynamics, VelocityMetric};
    use contour_linalg::{numerical_rank, DEFAULT_RANK_RTOL};
    use faer::Mat;

    #[test]
    fn hanging_at_rest_has_zero_acceleration_and_the_weight_as_tension() {
        let p = Pendulum {
            length: 2.0,
            mass: 3.0,
            gravity: 9.81,
        };
        let mut d = ConstrainedDynamics::new(&p);
        let (mut qdd, mut lambda) = ([1.0; 2], [0.0]);
        d.accelerations(&p, 0.0, &[0.0, -2.0], &[0.0, 0.0], &mut qdd, &mut lambda)
            .unwrap();
        assert!(qdd[0].abs() < 1e-15 && qdd[1].abs() < 1e-14, "{qdd:?}");
        let expected = -3.0 * 9.81 / (2.0 * 2.0);
        assert!(
            (lambda[0] - expected).abs() < 1e-14 * expected.abs(),
            "{lambda:?}"
        );
    }

    #[test]
    fn swinging_through_the_bottom_adds_the_centripetal_force() {
        // λ = −(m v²/ℓ + m g)/(2ℓ), ÿ = v²/ℓ
        let p = Pendulum {
            length: 1.5,
            mass: 2.0,
            gravity: 9.81,
        };
        let v = 3.0;
        let mut d = ConstrainedDynamics::new(&p);
        let (mut qdd, mut lambda) = ([0.0; 2], [0.0]);
        d.accelerations(&p, 0.0, &[0.0, -1.5], &[v, 0.0], &mut qdd, &mut lambda)
            .unwrap();
        let lam = -(2.0 * v * v / 1.5 + 2.0 * 9.81) / 3.0;
        assert!(
            (lambda[0] - lam).abs() < 1e-14 * lam.abs(),
            "{lambda:?} vs {lam}"
        );
        assert!((qdd[1] - v * v / 1.5).abs() < 1e-14 * 6.0, "{qdd:?}");
        assert!(qdd[0].abs() < 1e-14);
    }

    #[test]
    fn energy_is_exact_and_jacobian_has_full_rank() {
        let p = Pendulum::default();
        let (q, qd) = p.state(0.7, -1.3);
        let e = p.kinetic_energy(&q, &qd).unwrap() + p.potential_energy(&q).unwrap();
        let exact = 0.5 * 1.3 * 1.3 - 9.81 * 0.7f64.cos();
        assert!((e - exact).abs() < 1e-14, "{e} vs {exact}");
        let mut j = Mat::<f64>::zeros(1, 2);
        p.constraint_jacobian(0.0, &q, j.as_mut());
        assert_eq!(
            numerical_rank(j.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap(),
            1
        );
    }

    #[test]
    fn consistent_state_projects_radially_and_tangentially() {
        let p = Pendulum::default();
        for metric in [VelocityMetric::Euclidean, VelocityMetric::MassWeighted] {
            let opts = ConsistentStateOptions {
                velocity_metric: metric,
                ..Default::default()
            };
            let cs = consistent_state(&p, 0.0, &[0.6, -0.9], &[1.0, 1.0], &opts).unwrap();
            // nearest point of the circle: radial projection
            let r = (0.6f64 * 0.6 + 0.9 * 0.9).sqrt();
            assert!(
                (cs.q[0] - 0.6 / r).abs() < 1e-12 && (cs.q[1] + 0.9 / r).abs() < 1e-12,
                "{:?}",
                cs.q
            );
            assert!(cs.position_residual_after <= 1e-14);
            // tangential part of the guess kept (M = m I: both metrics agree)
            let tng = [0.9 / r, 0.6 / r];
            let keep = tng[0] * 1.0 + tng[1] * 1.0;
            assert!(
                (cs.qd[0] - keep * tng[0]).abs() < 1e-12
                    && (cs.qd[1] - keep * tng[1]).abs() < 1e-12
            );
            assert!(cs.velocity_residual_after <= 1e-14);
        }
    }
}
