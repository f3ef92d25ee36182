//! The car axis problem (Hairer & Wanner, *Solving ODEs II*, section VII.1; IVP test set,
//! problem "caraxis"): an index-3 system with a **time-dependent** constraint. The left wheel
//! `(x_l, y_l)` and the right wheel `(x_r, y_r)` are joined by an axle of length `L`; the left
//! wheel rolls on the ground, and the right wheel's spring is fixed to a point that is carried
//! over a bumpy road, `(x_b, y_b) = (√(L² − y_b²), r sin ωt)`; the left wheel stays on the line
//! through the origin and that point:
//!
//! ```text
//! k q̈ = (L₀ − L_l) (x_l, y_l)/L_l ⊕ (L₀ − L_r) (x_r − x_b, y_r − y_b)/L_r − k g e_y + Jᵀλ
//! φ₁ = x_b(t) x_l + y_b(t) y_l,      φ₂ = (x_l − x_r)² + (y_l − y_r)² − L²
//! ```
//!
//! with `L_l = |(x_l, y_l)|`, `L_r = |(x_r − x_b, y_r − y_b)|`, `k = m ε²/2`. The springs
//! depend on `t` through the bump, so they are applied forces `u(t, q)` (`h = 0`).

use faer::MatMut;

use crate::Mechanism;

/// The car axis with the test set's data: `ε = 0.01`, `m = 10`, `L = 1`, `L₀ = 0.5`,
/// `r = 0.1`, `ω = 10`, `g = 9.8`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CarAxis {
    /// Stiffness parameter ε (the mass of each wheel is `k = m ε²/2`).
    pub eps: f64,
    /// Mass parameter m.
    pub mass: f64,
    /// Axle length L \[m\].
    pub axle: f64,
    /// Spring rest length L₀ \[m\].
    pub rest_length: f64,
    /// Bump amplitude r \[m\].
    pub bump: f64,
    /// Bump frequency ω \[rad/s\].
    pub omega: f64,
    /// Gravity g \[m/s²\].
    pub gravity: f64,
}

impl Default for CarAxis {
    fn default() -> Self {
        Self {
            eps: 1e-2,
            mass: 10.0,
            axle: 1.0,
            rest_length: 0.5,
            bump: 0.1,
            omega: 10.0,
            gravity: 9.8,
        }
    }
}

/// The test set's consistent initial state: `q₀ = (0, L₀, L, L₀)`, `q̇₀ = (−L₀/L, 0, −L₀/L, 0)`.
pub const CAR_AXIS_Q0: [f64; 4] = [0.0, 0.5, 1.0, 0.5];
/// See [`CAR_AXIS_Q0`].
pub const CAR_AXIS_QD0: [f64; 4] = [-0.5, 0.0, -0.5, 0.0];

impl CarAxis {
    /// Wheel mass `k = m ε²/2`.
    pub fn k(&self) -> f64 {
        self.mass * self.eps * self.eps / 2.0
    }

    /// The bump point and its first two time derivatives: `(x_b, y_b)`, `(ẋ_b, ẏ_b)`,
    /// `(ẍ_b, ÿ_b)`, from `x_b² + y_b² = L²`.
    fn bump_point(&self, t: f64) -> ([f64; 2], [f64; 2], [f64; 2]) {
        let (s, c) = (self.omega * t).sin_cos();
        let yb = self.bump * s;
        let ybd = self.bump * self.omega * c;
        let ybdd = -self.bump * self.omega * self.omega * s;
        let xb = (self.axle * self.axle - yb * yb).sqrt();
        let xbd = -yb * ybd / xb;
        let xbdd = -(xbd * xbd + ybd * ybd + yb * ybdd) / xb;
        ([xb, yb], [xbd, ybd], [xbdd, ybdd])
    }
}

impl Mechanism for CarAxis {
    fn name(&self) -> &str {
        "car-axis"
    }
    fn dof(&self) -> usize {
        4
    }
    fn n_constraints(&self) -> usize {
        2
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        m.fill(0.0);
        for i in 0..4 {
            m[(i, i)] = self.k();
        }
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        h.fill(0.0);
    }
    fn applied_forces(&self, t: f64, q: &[f64], _qd: &[f64], u: &mut [f64]) {
        let ([xb, yb], _, _) = self.bump_point(t);
        let ll = q[0].hypot(q[1]);
        let (dx, dy) = (q[2] - xb, q[3] - yb);
        let lr = dx.hypot(dy);
        let kg = self.k() * self.gravity;
        u[0] = (self.rest_length - ll) * q[0] / ll;
        u[1] = (self.rest_length - ll) * q[1] / ll - kg;
        u[2] = (self.rest_length - lr) * dx / lr;
        u[3] = (self.rest_length - lr) * dy / lr - kg;
    }
    fn constraints(&self, t: f64, q: &[f64], phi: &mut [f64]) {
        let ([xb, yb], _, _) = self.bump_point(t);
        let (dx, dy) = (q[0] - q[2], q[1] - q[3]);
        phi[0] = xb * q[0] + yb * q[1];
        phi[1] = dx * dx + dy * dy - self.axle * self.axle;
    }
    fn constraint_jacobian(&self, t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        let ([xb, yb], _, _) = self.bump_point(t);
        let (dx, dy) = (q[0] - q[2], q[1] - q[3]);
        let rows = [
            [xb, yb, 0.0, 0.0],
            [2.0 * dx, 2.0 * dy, -2.0 * dx, -2.0 * dy],
        ];
        for (r, row) in rows.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                j[(r, c)] = *v;
            }
        }
    }
    /// `b₁ = ẋ_b x_l + ẏ_b y_l`, `b₂ = 0`.
    fn constraint_rate_bias(&self, t: f64, q: &[f64], b: &mut [f64]) {
        let (_, [xbd, ybd], _) = self.bump_point(t);
        b[0] = xbd * q[0] + ybd * q[1];
        b[1] = 0.0;
    }
    /// `ρ₁ = 2(ẋ_b u_l + ẏ_b v_l) + ẍ_b x_l + ÿ_b y_l` (`J̇q̇ + ∂b/∂q q̇ + ∂b/∂t`),
    /// `ρ₂ = 2((u_l − u_r)² + (v_l − v_r)²)`.
    fn constraint_accel_bias(&self, t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        let (_, [xbd, ybd], [xbdd, ybdd]) = self.bump_point(t);
        rho[0] = 2.0 * (xbd * qd[0] + ybd * qd[1]) + xbdd * q[0] + ybdd * q[1];
        let (du, dv) = (qd[0] - qd[2], qd[1] - qd[3]);
        rho[1] = 2.0 * (du * du + dv * dv);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{check_accel_bias, check_jacobian, check_rate_bias};

    /// J, b and ρ against finite differences at a few times and states; the initial state
    /// is consistent.
    #[test]
    fn derivatives_and_initial_state() {
        let c = CarAxis::default();
        for t in [0.0, 0.13, 1.7] {
            let q = [0.05, 0.48, 1.02, 0.47];
            let qd = [-0.4, 0.2, -0.6, 0.1];
            assert!(check_jacobian(&c, t, &q).unwrap() < 1e-8);
            assert!(check_rate_bias(&c, t, &q).unwrap() < 1e-8);
            assert!(check_accel_bias(&c, t, &q, &qd).unwrap() < 1e-6);
        }
        let (mut phi, mut b) = ([1.0; 2], [1.0; 2]);
        c.constraints(0.0, &CAR_AXIS_Q0, &mut phi);
        let mut j = faer::Mat::<f64>::zeros(2, 4);
        c.constraint_jacobian(0.0, &CAR_AXIS_Q0, j.as_mut());
        c.constraint_rate_bias(0.0, &CAR_AXIS_Q0, &mut b);
        for r in 0..2 {
            let v: f64 = (0..4).map(|k| j[(r, k)] * CAR_AXIS_QD0[k]).sum::<f64>() + b[r];
            assert!(phi[r].abs() < 1e-15 && v.abs() < 1e-15, "{phi:?} {v}");
        }
    }
}
