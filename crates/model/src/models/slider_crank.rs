//! Planar slider-crank in absolute link angles plus the slider position.

use crate::Mechanism;
use faer::MatMut;

/// Planar slider-crank: crank (uniform bar, length r, mass m1) pivoting at the
/// origin, connecting rod (uniform bar, length l, mass m2) from the crank tip
/// to a slider (point mass m3) that moves on the x axis.
///
/// Coordinates (absolute, measured from the +x axis, counter-clockwise):
/// `q = (θ, ψ, s)` = (crank angle \[rad\], rod angle \[rad\], slider position \[m\]).
/// Gravity acts along −y. With `c = m2 r l / 2`, `A = m1 r²/3 + m2 r²`, `B = m2 l²/3`:
///
/// ```text
/// M = [[A, c cos(θ−ψ), 0], [c cos(θ−ψ), B, 0], [0, 0, m3]]
/// h = (c sin(θ−ψ) ψ̇² + g r (m1/2 + m2) cos θ,  −c sin(θ−ψ) θ̇² + g m2 (l/2) cos ψ,  0)
/// u = (τ, 0, f_s)
/// φ = (r cos θ + l cos ψ − s,  r sin θ + l sin ψ)          (loop closure)
/// J = [[−r sin θ, −l sin ψ, −1], [r cos θ, l cos ψ, 0]]
/// ρ = (−r cos θ θ̇² − l cos ψ ψ̇²,  −r sin θ θ̇² − l sin ψ ψ̇²)
/// V = g (m1 (r/2) sin θ + m2 (r sin θ + (l/2) sin ψ))
/// ```
///
/// J has full rank 2 whenever `cos ψ ≠ 0`, i.e. always when `r < l`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SliderCrank {
    /// Crank length r \[m\] (nominal 0.1).
    pub crank_length: f64,
    /// Connecting-rod length l \[m\] (nominal 0.3).
    pub rod_length: f64,
    /// Crank mass m1 \[kg\] (uniform bar; nominal 1).
    pub crank_mass: f64,
    /// Connecting-rod mass m2 \[kg\] (uniform bar; nominal 1).
    pub rod_mass: f64,
    /// Slider mass m3 \[kg\] (nominal 0.5).
    pub slider_mass: f64,
    /// Gravitational acceleration g along −y \[m/s²\] (nominal 9.81; 0 switches gravity off).
    pub gravity: f64,
    /// Constant driving torque τ on the crank \[N·m\] (nominal 1).
    pub torque: f64,
    /// Constant force f_s on the slider along +x \[N\] (nominal 0).
    pub slider_force: f64,
}

impl Default for SliderCrank {
    fn default() -> Self {
        Self {
            crank_length: 0.1,
            rod_length: 0.3,
            crank_mass: 1.0,
            rod_mass: 1.0,
            slider_mass: 0.5,
            gravity: 9.81,
            torque: 1.0,
            slider_force: 0.0,
        }
    }
}

impl SliderCrank {
    /// The consistent state for crank angle θ and crank rate θ̇:
    /// `ψ = −asin(r sin θ / l)`, `s = r cos θ + l cos ψ`,
    /// `ψ̇ = −r cos θ θ̇ / (l cos ψ)`, `ṡ = −r sin θ θ̇ − l sin ψ ψ̇`.
    /// Requires `r < l` (otherwise `asin` may return NaN).
    pub fn state(&self, theta: f64, theta_dot: f64) -> ([f64; 3], [f64; 3]) {
        let (r, l) = (self.crank_length, self.rod_length);
        let (s1, c1) = theta.sin_cos();
        let psi = (-r * s1 / l).asin();
        let (sp, cp) = psi.sin_cos();
        let x = r * c1 + l * cp;
        let psi_dot = -r * c1 * theta_dot / (l * cp);
        let x_dot = -r * s1 * theta_dot - l * sp * psi_dot;
        ([theta, psi, x], [theta_dot, psi_dot, x_dot])
    }
}

impl SliderCrank {
    /// The state `q = (θ, −θ, 2r cos θ)`, `q̇ = (1, −1, −2r sin θ) θ̇` of the moving branch of
    /// the isosceles slider-crank (`r = l`). Its closure has a second branch, `ψ = θ + π`,
    /// `s = 0` (crank and rod folded over, the slider held at the pivot); the two cross where
    /// both links are vertical (`θ = ±π/2`, `s = 0`), a singular configuration: `J` has rank 1
    /// there. Errors with [`crate::ModelError::InvalidParameter`] unless `r = l`.
    pub fn isosceles_state(
        &self,
        theta: f64,
        theta_dot: f64,
    ) -> Result<([f64; 3], [f64; 3]), crate::ModelError> {
        self.check_isosceles()?;
        let r = self.crank_length;
        let (s1, c1) = theta.sin_cos();
        Ok((
            [theta, -theta, 2.0 * r * c1],
            [theta_dot, -theta_dot, -2.0 * r * s1 * theta_dot],
        ))
    }

    /// `θ̈` on the moving branch of the isosceles slider-crank ([`Self::isosceles_state`]):
    /// Lagrange's equation on the branch, `q̇ = T θ̇`, `T = (1, −1, −2r sin θ)`,
    /// `Tᵀ M T θ̈ = −Tᵀ(M Ṫ θ̇ + h − u)` with `Ṫ θ̇ = (0, 0, −2r cos θ θ̇²)`. It uses `M`, `h`
    /// and `u` only (no constraint Jacobian, no multiplier) and is smooth through `θ = ±π/2`.
    /// Assumes `r = l` (checked by [`Self::isosceles_reduced_solution`]).
    pub fn isosceles_reduced_acceleration(&self, theta: f64, theta_dot: f64) -> f64 {
        let r = self.crank_length;
        let (s1, c1) = theta.sin_cos();
        let (q, qd) = (
            [theta, -theta, 2.0 * r * c1],
            [theta_dot, -theta_dot, -2.0 * r * s1 * theta_dot],
        );
        let t = [1.0, -1.0, -2.0 * r * s1];
        let tdot_w = [0.0, 0.0, -2.0 * r * c1 * theta_dot * theta_dot];
        let mut mb = [0.0; 9];
        self.mass_matrix(&q, MatMut::from_column_major_slice_mut(&mut mb, 3, 3));
        let (mut h, mut u) = ([0.0; 3], [0.0; 3]);
        self.bias_forces(&q, &qd, &mut h);
        self.applied_forces(0.0, &q, &qd, &mut u);
        let (mut mtt, mut rhs) = (0.0, 0.0);
        for i in 0..3 {
            let (mut mt, mut md) = (0.0, 0.0);
            for k in 0..3 {
                mt += mb[i + 3 * k] * t[k];
                md += mb[i + 3 * k] * tdot_w[k];
            }
            mtt += t[i] * mt;
            rhs -= t[i] * (md + h[i] - u[i]);
        }
        rhs / mtt
    }

    /// `(θ, θ̇)` of the moving branch of the isosceles slider-crank at the sorted `times`
    /// (from `t = 0` at `(theta0, omega0)`), by the classical fourth-order Runge–Kutta method on
    /// [`Self::isosceles_reduced_acceleration`] with `steps_per_unit` fixed steps per second:
    /// an independent witness for runs through the crossing at `θ = ±π/2`. Errors with
    /// [`crate::ModelError::InvalidParameter`] unless `r = l`.
    pub fn isosceles_reduced_solution(
        &self,
        theta0: f64,
        omega0: f64,
        times: &[f64],
        steps_per_unit: usize,
    ) -> Result<Vec<(f64, f64)>, crate::ModelError> {
        self.check_isosceles()?;
        Ok(super::rk4_reduced(
            |th, w| self.isosceles_reduced_acceleration(th, w),
            theta0,
            omega0,
            times,
            steps_per_unit,
        ))
    }

    fn check_isosceles(&self) -> Result<(), crate::ModelError> {
        if self.crank_length == self.rod_length {
            Ok(())
        } else {
            Err(crate::ModelError::InvalidParameter {
                what: "slider_crank.rod_length (must equal crank_length on the isosceles branch)",
                value: self.rod_length,
            })
        }
    }
}

impl Mechanism for SliderCrank {
    fn validate(&self) -> Result<(), crate::ModelError> {
        crate::validate::check_positive_parameter("slider_crank.crank_length", self.crank_length)?;
        crate::validate::check_positive_parameter("slider_crank.rod_length", self.rod_length)?;
        crate::validate::check_positive_parameter("slider_crank.crank_mass", self.crank_mass)?;
        crate::validate::check_positive_parameter("slider_crank.rod_mass", self.rod_mass)?;
        crate::validate::check_positive_parameter("slider_crank.slider_mass", self.slider_mass)?;
        crate::validate::check_finite_parameter("slider_crank.gravity", self.gravity)?;
        crate::validate::check_finite_parameter("slider_crank.torque", self.torque)?;
        crate::validate::check_finite_parameter("slider_crank.slider_force", self.slider_force)?;
        Ok(())
    }
    fn name(&self) -> &str {
        "slider-crank"
    }
    fn dof(&self) -> usize {
        3
    }
    fn n_constraints(&self) -> usize {
        2
    }
    fn mass_matrix(&self, q: &[f64], mut m: MatMut<'_, f64>) {
        let (r, l) = (self.crank_length, self.rod_length);
        let (m1, m2) = (self.crank_mass, self.rod_mass);
        let c = 0.5 * m2 * r * l * (q[0] - q[1]).cos();
        m.fill(0.0);
        m[(0, 0)] = m1 * r * r / 3.0 + m2 * r * r;
        m[(0, 1)] = c;
        m[(1, 0)] = c;
        m[(1, 1)] = m2 * l * l / 3.0;
        m[(2, 2)] = self.slider_mass;
    }
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        let (r, l) = (self.crank_length, self.rod_length);
        let (m1, m2, g) = (self.crank_mass, self.rod_mass, self.gravity);
        let cs = 0.5 * m2 * r * l * (q[0] - q[1]).sin();
        h[0] = cs * qd[1] * qd[1] + g * r * (0.5 * m1 + m2) * q[0].cos();
        h[1] = -cs * qd[0] * qd[0] + g * m2 * 0.5 * l * q[1].cos();
        h[2] = 0.0;
    }
    fn applied_forces(&self, _t: f64, _q: &[f64], _qd: &[f64], u: &mut [f64]) {
        u[0] = self.torque;
        u[1] = 0.0;
        u[2] = self.slider_force;
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        let (r, l) = (self.crank_length, self.rod_length);
        phi[0] = r * q[0].cos() + l * q[1].cos() - q[2];
        phi[1] = r * q[0].sin() + l * q[1].sin();
    }
    fn constraint_jacobian(&self, _t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        let (r, l) = (self.crank_length, self.rod_length);
        let (s1, c1) = q[0].sin_cos();
        let (s2, c2) = q[1].sin_cos();
        j[(0, 0)] = -r * s1;
        j[(0, 1)] = -l * s2;
        j[(0, 2)] = -1.0;
        j[(1, 0)] = r * c1;
        j[(1, 1)] = l * c2;
        j[(1, 2)] = 0.0;
    }
    fn constraint_accel_bias(&self, _t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        let (r, l) = (self.crank_length, self.rod_length);
        let (s1, c1) = q[0].sin_cos();
        let (s2, c2) = q[1].sin_cos();
        let (w1, w2) = (qd[0] * qd[0], qd[1] * qd[1]);
        rho[0] = -r * c1 * w1 - l * c2 * w2;
        rho[1] = -r * s1 * w1 - l * s2 * w2;
    }
    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> Option<f64> {
        let (r, l) = (self.crank_length, self.rod_length);
        let (m1, m2) = (self.crank_mass, self.rod_mass);
        let a = m1 * r * r / 3.0 + m2 * r * r;
        let b = m2 * l * l / 3.0;
        let c = 0.5 * m2 * r * l * (q[0] - q[1]).cos();
        Some(
            0.5 * (a * qd[0] * qd[0] + 2.0 * c * qd[0] * qd[1] + b * qd[1] * qd[1])
                + 0.5 * self.slider_mass * qd[2] * qd[2],
        )
    }
    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        let (r, l) = (self.crank_length, self.rod_length);
        let (m1, m2) = (self.crank_mass, self.rod_mass);
        Some(
            self.gravity
                * (m1 * 0.5 * r * q[0].sin() + m2 * (r * q[0].sin() + 0.5 * l * q[1].sin())),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{constraint_residuals, ConstrainedDynamics};
    use contour_linalg::{numerical_rank, DEFAULT_RANK_RTOL};
    use faer::Mat;

    #[test]
    fn state_is_consistent_and_jacobian_has_rank_two() {
        let sc = SliderCrank::default();
        for k in 0..12 {
            let theta = k as f64 * 0.55 - 3.0;
            let (q, qd) = sc.state(theta, 2.5);
            let (p, v) = constraint_residuals(&sc, 0.0, &q, &qd).unwrap();
            assert!(p <= 1e-16 && v <= 1e-15, "{p:e} {v:e}");
            let mut j = Mat::<f64>::zeros(2, 3);
            sc.constraint_jacobian(0.0, &q, j.as_mut());
            assert_eq!(
                numerical_rank(j.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap(),
                2
            );
        }
    }

    #[test]
    fn the_isosceles_branch_satisfies_the_closure_and_keeps_its_energy() {
        let sc = SliderCrank {
            crank_length: 0.2,
            rod_length: 0.2,
            torque: 0.0,
            ..Default::default()
        };
        assert!(SliderCrank::default().isosceles_state(0.0, 1.0).is_err());
        let times: Vec<f64> = (0..=100).map(|k| 0.05 * k as f64).collect();
        let sol = sc
            .isosceles_reduced_solution(0.0, 12.0, &times, 10_000)
            .unwrap();
        let energy = |q: &[f64; 3], qd: &[f64; 3]| {
            sc.kinetic_energy(q, qd).unwrap() + sc.potential_energy(q).unwrap()
        };
        let (q0, qd0) = sc.isosceles_state(0.0, 12.0).unwrap();
        let e0 = energy(&q0, &qd0);
        let mut crossings = 0;
        for w in sol.windows(2) {
            // the crank turns over: θ passes π/2 + kπ, where J has rank 1
            let sheet =
                |th: f64| ((th - std::f64::consts::FRAC_PI_2) / std::f64::consts::PI).floor();
            crossings += usize::from(sheet(w[0].0) != sheet(w[1].0));
        }
        assert!(crossings >= 2, "{crossings}");
        for &(th, w) in &sol {
            let (q, qd) = sc.isosceles_state(th, w).unwrap();
            let (p, v) = constraint_residuals(&sc, 0.0, &q, &qd).unwrap();
            assert!(p <= 1e-15 && v <= 1e-14, "{p:e} {v:e}");
            assert!(
                (energy(&q, &qd) - e0).abs() <= 1e-9 * e0,
                "{}",
                energy(&q, &qd) - e0
            );
        }
    }

    #[test]
    fn power_balance_holds_along_constrained_motion() {
        // dE/dt = q̇ᵀu (constraint forces do no work): central difference of
        // E(q + s q̇, q̇ + s q̈) against τ θ̇ + f_s ṡ.
        let sc = SliderCrank {
            slider_force: -2.0,
            ..Default::default()
        };
        let mut d = ConstrainedDynamics::new(&sc);
        for k in 0..8 {
            let (q, qd) = sc.state(-2.0 + 0.6 * k as f64, 3.0 - k as f64);
            let (mut qdd, mut lambda) = ([0.0; 3], [0.0; 2]);
            d.accelerations(&sc, 0.0, &q, &qd, &mut qdd, &mut lambda)
                .unwrap();
            let e = |s: f64| {
                let qs: Vec<f64> = (0..3).map(|i| q[i] + s * qd[i]).collect();
                let vs: Vec<f64> = (0..3).map(|i| qd[i] + s * qdd[i]).collect();
                sc.kinetic_energy(&qs, &vs).unwrap() + sc.potential_energy(&qs).unwrap()
            };
            let s = 1e-5;
            let de = (e(s) - e(-s)) / (2.0 * s);
            let power = sc.torque * qd[0] + sc.slider_force * qd[2];
            assert!(
                (de - power).abs() < 1e-7 * (1.0 + power.abs()),
                "{de} vs {power}"
            );
        }
    }
}
