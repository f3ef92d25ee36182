//! A parallelogram linkage with a redundant middle crank (Kövecses & Piedbœuf's redundant
//! mechanisms): six constraint rows of rank 5 on the motion.

use faer::MatMut;

use crate::Mechanism;

/// A parallelogram linkage with a redundant middle crank: three equal cranks (length `a`,
/// mass `m_c`, uniform bars) pivoting at `(0, 0)`, `(d/2, 0)` and `(d, 0)`, pinned to a coupler
/// (length `d`, mass `m_b`, uniform bar) at its left end, middle and right end. Gravity along −y.
///
/// `q = (θ1, θ2, θ3, x, y, ψ)`: crank angles (left, right, middle) and the coupler's centre
/// and angle. `M = diag(I_c, I_c, I_c, m_b, m_b, m_b d²/12)`, `I_c = m_c a²/3`,
/// `h = g (m_c a/2 cos θ1, m_c a/2 cos θ2, m_c a/2 cos θ3, 0, m_b, 0)`;
///
/// ```text
/// φ0,1 = a(cos θ1, sin θ1) − (x, y) + d/2 (cos ψ, sin ψ)
/// φ2,3 = (d, 0) + a(cos θ2, sin θ2) − (x, y) − d/2 (cos ψ, sin ψ)
/// φ4,5 = (d/2, 0) + a(cos θ3, sin θ3) − (x, y)
/// ```
///
/// Six rows on six coordinates, yet the linkage moves: on the parallelogram motion
/// (`θ1 = θ2 = θ3`, `ψ = 0`) `rank A = 5` — the middle crank is the classic redundant
/// (over-constrained) member. The rank deficiency is configuration-dependent: off the motion
/// by `ε` the sixth singular value is `O(ε)`, so the pseudo-inverse uses the looser cut-off
/// [`RedundantParallelogram::RANK_RTOL`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RedundantParallelogram {
    /// Crank length a \[m\] (0.2).
    pub crank_length: f64,
    /// Coupler length d (also the pivot span) \[m\] (0.5).
    pub coupler_length: f64,
    /// Mass of each crank \[kg\] (1).
    pub crank_mass: f64,
    /// Coupler mass \[kg\] (2).
    pub coupler_mass: f64,
    /// Gravitational acceleration along −y \[m/s²\] (9.81).
    pub gravity: f64,
}

impl Default for RedundantParallelogram {
    fn default() -> Self {
        Self {
            crank_length: 0.2,
            coupler_length: 0.5,
            crank_mass: 1.0,
            coupler_mass: 2.0,
            gravity: 9.81,
        }
    }
}

impl RedundantParallelogram {
    /// Relative rank cut-off for this mechanism: drops singular values below `1e-6 σ_max`
    /// (state errors of the integrator stay far below 1e-6 of the link lengths).
    pub const RANK_RTOL: f64 = 1e-6;

    /// The consistent state with all cranks at angle `theta` and rate `omega`.
    pub fn state(&self, theta: f64, omega: f64) -> ([f64; 6], [f64; 6]) {
        let (a, d) = (self.crank_length, self.coupler_length);
        let (s, c) = theta.sin_cos();
        (
            [theta, theta, theta, 0.5 * d + a * c, a * s, 0.0],
            [omega, omega, omega, -a * s * omega, a * c * omega, 0.0],
        )
    }
}

impl Mechanism for RedundantParallelogram {
    fn validate(&self) -> Result<(), crate::ModelError> {
        crate::validate::check_positive_parameter("parallelogram.crank_length", self.crank_length)?;
        crate::validate::check_positive_parameter(
            "parallelogram.coupler_length",
            self.coupler_length,
        )?;
        crate::validate::check_positive_parameter("parallelogram.crank_mass", self.crank_mass)?;
        crate::validate::check_positive_parameter("parallelogram.coupler_mass", self.coupler_mass)?;
        crate::validate::check_finite_parameter("parallelogram.gravity", self.gravity)?;
        Ok(())
    }
    fn name(&self) -> &str {
        "redundant-parallelogram"
    }
    fn dof(&self) -> usize {
        6
    }
    fn n_constraints(&self) -> usize {
        6
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        let (a, d) = (self.crank_length, self.coupler_length);
        m.fill(0.0);
        let ic = self.crank_mass * a * a / 3.0;
        for i in 0..3 {
            m[(i, i)] = ic;
        }
        m[(3, 3)] = self.coupler_mass;
        m[(4, 4)] = self.coupler_mass;
        m[(5, 5)] = self.coupler_mass * d * d / 12.0;
    }
    fn bias_forces(&self, q: &[f64], _qd: &[f64], h: &mut [f64]) {
        let g = self.gravity;
        let k = g * self.crank_mass * 0.5 * self.crank_length;
        for i in 0..3 {
            h[i] = k * q[i].cos();
        }
        h[3] = 0.0;
        h[4] = g * self.coupler_mass;
        h[5] = 0.0;
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        let (a, d) = (self.crank_length, self.coupler_length);
        let (sp, cp) = q[5].sin_cos();
        let (x, y) = (q[3], q[4]);
        phi[0] = a * q[0].cos() - x + 0.5 * d * cp;
        phi[1] = a * q[0].sin() - y + 0.5 * d * sp;
        phi[2] = d + a * q[1].cos() - x - 0.5 * d * cp;
        phi[3] = a * q[1].sin() - y - 0.5 * d * sp;
        phi[4] = 0.5 * d + a * q[2].cos() - x;
        phi[5] = a * q[2].sin() - y;
    }
    fn constraint_jacobian(&self, _t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        let (a, d) = (self.crank_length, self.coupler_length);
        let (sp, cp) = q[5].sin_cos();
        j.fill(0.0);
        for (k, row) in [(0usize, 0usize), (1, 2), (2, 4)] {
            let (s, c) = q[k].sin_cos();
            j[(row, k)] = -a * s;
            j[(row + 1, k)] = a * c;
            j[(row, 3)] = -1.0;
            j[(row + 1, 4)] = -1.0;
        }
        j[(0, 5)] = -0.5 * d * sp;
        j[(1, 5)] = 0.5 * d * cp;
        j[(2, 5)] = 0.5 * d * sp;
        j[(3, 5)] = -0.5 * d * cp;
    }
    fn constraint_accel_bias(&self, _t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        let (a, d) = (self.crank_length, self.coupler_length);
        let (sp, cp) = q[5].sin_cos();
        let w2 = qd[5] * qd[5];
        for (k, row) in [(0usize, 0usize), (1, 2), (2, 4)] {
            let (s, c) = q[k].sin_cos();
            let t2 = qd[k] * qd[k];
            rho[row] = -a * c * t2;
            rho[row + 1] = -a * s * t2;
        }
        rho[0] -= 0.5 * d * cp * w2;
        rho[1] -= 0.5 * d * sp * w2;
        rho[2] += 0.5 * d * cp * w2;
        rho[3] += 0.5 * d * sp * w2;
    }
    fn kinetic_energy(&self, _q: &[f64], qd: &[f64]) -> Option<f64> {
        let (a, d) = (self.crank_length, self.coupler_length);
        let ic = self.crank_mass * a * a / 3.0;
        let mb = self.coupler_mass;
        Some(
            0.5 * ic * (qd[0] * qd[0] + qd[1] * qd[1] + qd[2] * qd[2])
                + 0.5 * mb * (qd[3] * qd[3] + qd[4] * qd[4])
                + 0.5 * mb * d * d / 12.0 * qd[5] * qd[5],
        )
    }
    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        let k = self.gravity * self.crank_mass * 0.5 * self.crank_length;
        Some(k * (q[0].sin() + q[1].sin() + q[2].sin()) + self.gravity * self.coupler_mass * q[4])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallelogram_model_passes_finite_difference_checks() {
        let p = RedundantParallelogram::default();
        let mut rng = crate::testing::SplitMix64::new(7);
        for _ in 0..10 {
            let q = rng.vector(6, -1.0, 1.0);
            let qd = rng.vector(6, -1.0, 1.0);
            let ej = crate::testing::check_jacobian(&p, 0.0, &q).unwrap();
            let er = crate::testing::check_accel_bias(&p, 0.0, &q, &qd).unwrap();
            assert!(ej < 1e-7 && er < 1e-6, "{ej:e} {er:e}");
        }
        let (q, qd) = p.state(0.4, 0.7);
        let mut phi = [1.0; 6];
        p.constraints(0.0, &q, &mut phi);
        assert!(phi.iter().all(|v| v.abs() < 1e-16), "{phi:?}");
        let (pr, vr) = crate::constraint_residuals(&p, 0.0, &q, &qd).unwrap();
        assert!(pr < 1e-16 && vr < 1e-16);
        let mut j = faer::Mat::zeros(6, 6);
        p.constraint_jacobian(0.0, &q, j.as_mut());
        assert_eq!(
            contour_linalg::numerical_rank(j.as_ref(), 0.0, 1e-10).unwrap(),
            5
        );
    }
}
