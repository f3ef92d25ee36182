//! Reference mechanisms with unilateral rows, shared by the tests and the benches.

use contour_model::{ConstraintKind, Mechanism};
use faer::MatMut;

/// A ball of mass m and radius r above a floor, height `y` (1 DOF), gravity g:
/// `m ÿ = −m g + λ`, `φ = y − r ≥ 0`, `J = 1`, `ρ = 0`, `E = ½ m ẏ² + m g y`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BouncingBall {
    /// Mass \[kg\].
    pub mass: f64,
    /// Radius \[m\].
    pub radius: f64,
    /// Gravity \[m/s²\].
    pub gravity: f64,
}

impl Default for BouncingBall {
    fn default() -> Self {
        Self {
            mass: 1.0,
            radius: 0.0,
            gravity: 9.81,
        }
    }
}

impl Mechanism for BouncingBall {
    fn name(&self) -> &str {
        "bouncing-ball"
    }
    fn dof(&self) -> usize {
        1
    }
    fn n_constraints(&self) -> usize {
        1
    }
    fn constraint_kind(&self, _row: usize) -> ConstraintKind {
        ConstraintKind::Unilateral
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        m[(0, 0)] = self.mass;
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        h[0] = self.mass * self.gravity;
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        phi[0] = q[0] - self.radius;
    }
    fn constraint_jacobian(&self, _t: f64, _q: &[f64], mut j: MatMut<'_, f64>) {
        j[(0, 0)] = 1.0;
    }
    fn constraint_accel_bias(&self, _t: f64, _q: &[f64], _qd: &[f64], rho: &mut [f64]) {
        rho[0] = 0.0;
    }
    fn kinetic_energy(&self, _q: &[f64], qd: &[f64]) -> Option<f64> {
        Some(0.5 * self.mass * qd[0] * qd[0])
    }
    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        Some(self.mass * self.gravity * q[0])
    }
}

/// A pendulum (point mass m on a massless rod ℓ, angle θ from the downward vertical, 1 DOF)
/// swinging against a vertical wall at horizontal distance d to the left of the pivot:
/// `m ℓ² θ̈ + m g ℓ sin θ = ℓ cos θ λ`, `φ = ℓ sin θ + d ≥ 0`, `J = ℓ cos θ`,
/// `ρ = −ℓ sin θ θ̇²`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WallPendulum {
    /// Mass \[kg\].
    pub mass: f64,
    /// Rod length \[m\].
    pub length: f64,
    /// Distance of the wall from the pivot \[m\] (< ℓ).
    pub wall: f64,
    /// Gravity \[m/s²\].
    pub gravity: f64,
}

impl Default for WallPendulum {
    fn default() -> Self {
        Self {
            mass: 1.0,
            length: 1.0,
            wall: 0.5,
            gravity: 9.81,
        }
    }
}

impl Mechanism for WallPendulum {
    fn name(&self) -> &str {
        "wall-pendulum"
    }
    fn dof(&self) -> usize {
        1
    }
    fn n_constraints(&self) -> usize {
        1
    }
    fn constraint_kind(&self, _row: usize) -> ConstraintKind {
        ConstraintKind::Unilateral
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        m[(0, 0)] = self.mass * self.length * self.length;
    }
    fn bias_forces(&self, q: &[f64], _qd: &[f64], h: &mut [f64]) {
        h[0] = self.mass * self.gravity * self.length * q[0].sin();
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        phi[0] = self.length * q[0].sin() + self.wall;
    }
    fn constraint_jacobian(&self, _t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        j[(0, 0)] = self.length * q[0].cos();
    }
    fn constraint_accel_bias(&self, _t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        rho[0] = -self.length * q[0].sin() * qd[0] * qd[0];
    }
    fn kinetic_energy(&self, _q: &[f64], qd: &[f64]) -> Option<f64> {
        Some(0.5 * self.mass * self.length * self.length * qd[0] * qd[0])
    }
    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        Some(-self.mass * self.gravity * self.length * q[0].cos())
    }
}

/// A planar bar (mass m, length L, centroidal inertia m L²/12), `q = (x, y, θ)`, falling onto
/// two point supports at height 0 under its ends: two unilateral rows
/// `φ₁ = y − (L/2) sin θ ≥ 0`, `φ₂ = y + (L/2) sin θ ≥ 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarOnSupports {
    /// Mass \[kg\].
    pub mass: f64,
    /// Length \[m\].
    pub length: f64,
    /// Gravity \[m/s²\].
    pub gravity: f64,
}

impl Default for BarOnSupports {
    fn default() -> Self {
        Self {
            mass: 1.0,
            length: 1.0,
            gravity: 9.81,
        }
    }
}

impl Mechanism for BarOnSupports {
    fn name(&self) -> &str {
        "bar-on-supports"
    }
    fn dof(&self) -> usize {
        3
    }
    fn n_constraints(&self) -> usize {
        2
    }
    fn constraint_kind(&self, _row: usize) -> ConstraintKind {
        ConstraintKind::Unilateral
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        m.fill(0.0);
        m[(0, 0)] = self.mass;
        m[(1, 1)] = self.mass;
        m[(2, 2)] = self.mass * self.length * self.length / 12.0;
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        h[0] = 0.0;
        h[1] = self.mass * self.gravity;
        h[2] = 0.0;
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        let c = 0.5 * self.length * q[2].sin();
        phi[0] = q[1] - c;
        phi[1] = q[1] + c;
    }
    fn constraint_jacobian(&self, _t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        let c = 0.5 * self.length * q[2].cos();
        j[(0, 0)] = 0.0;
        j[(0, 1)] = 1.0;
        j[(0, 2)] = -c;
        j[(1, 0)] = 0.0;
        j[(1, 1)] = 1.0;
        j[(1, 2)] = c;
    }
    fn constraint_accel_bias(&self, _t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        let s = 0.5 * self.length * q[2].sin() * qd[2] * qd[2];
        rho[0] = s;
        rho[1] = -s;
    }
    fn kinetic_energy(&self, _q: &[f64], qd: &[f64]) -> Option<f64> {
        let i = self.mass * self.length * self.length / 12.0;
        Some(0.5 * (self.mass * (qd[0] * qd[0] + qd[1] * qd[1]) + i * qd[2] * qd[2]))
    }
}

/// A Newton's cradle laid flat: `n` equal balls (mass m, diameter d) on a line between two
/// walls at `x = 0` and `x = width`, no gravity, `q = (x₁, …, xₙ)` the centres in order.
/// `n + 1` unilateral rows: the left wall `φ₀ = x₁ − d/2`, the gaps `φᵢ = xᵢ₊₁ − xᵢ − d`
/// (`i = 1 … n−1`) and the right wall `φₙ = width − d/2 − xₙ`; J is constant, `ρ = 0`,
/// `E = ½ m Σ ẋᵢ²`. Balls resting in contact when another arrives make a simultaneous
/// (multi-row) impact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallsBetweenWalls {
    /// Number of balls (≥ 1).
    pub balls: usize,
    /// Mass of each ball \[kg\].
    pub mass: f64,
    /// Diameter \[m\].
    pub diameter: f64,
    /// Distance between the walls \[m\] (> `balls · diameter`).
    pub width: f64,
}

impl Default for BallsBetweenWalls {
    fn default() -> Self {
        Self {
            balls: 3,
            mass: 1.0,
            diameter: 0.1,
            width: 1.0,
        }
    }
}

impl Mechanism for BallsBetweenWalls {
    fn name(&self) -> &str {
        "balls-between-walls"
    }
    fn dof(&self) -> usize {
        self.balls
    }
    fn n_constraints(&self) -> usize {
        self.balls + 1
    }
    fn constraint_kind(&self, _row: usize) -> ConstraintKind {
        ConstraintKind::Unilateral
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        for i in 0..self.balls {
            for k in 0..self.balls {
                m[(i, k)] = if i == k { self.mass } else { 0.0 };
            }
        }
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        h.fill(0.0);
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        let n = self.balls;
        if n == 0 {
            return;
        }
        phi[0] = q[0] - 0.5 * self.diameter;
        for i in 1..n {
            phi[i] = q[i] - q[i - 1] - self.diameter;
        }
        phi[n] = self.width - 0.5 * self.diameter - q[n - 1];
    }
    fn constraint_jacobian(&self, _t: f64, _q: &[f64], mut j: MatMut<'_, f64>) {
        let n = self.balls;
        for i in 0..=n {
            for k in 0..n {
                j[(i, k)] = 0.0;
            }
        }
        j[(0, 0)] = 1.0;
        for i in 1..n {
            j[(i, i)] = 1.0;
            j[(i, i - 1)] = -1.0;
        }
        if n > 0 {
            j[(n, n - 1)] = -1.0;
        }
    }
    fn constraint_accel_bias(&self, _t: f64, _q: &[f64], _qd: &[f64], rho: &mut [f64]) {
        rho.fill(0.0);
    }
    fn kinetic_energy(&self, _q: &[f64], qd: &[f64]) -> Option<f64> {
        Some(0.5 * self.mass * qd.iter().map(|v| v * v).sum::<f64>())
    }
    fn potential_energy(&self, _q: &[f64]) -> Option<f64> {
        Some(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    /// J and ρ against central differences of φ.
    fn check_derivatives<M: Mechanism>(m: &M, q: &[f64], qd: &[f64]) {
        let (n, l) = (m.dof(), m.n_constraints());
        let mut j = Mat::<f64>::zeros(l, n);
        m.constraint_jacobian(0.0, q, j.as_mut());
        let hstep = 1e-6;
        let mut qp = q.to_vec();
        let (mut fp, mut fm) = (vec![0.0; l], vec![0.0; l]);
        for k in 0..n {
            qp[k] = q[k] + hstep;
            m.constraints(0.0, &qp, &mut fp);
            qp[k] = q[k] - hstep;
            m.constraints(0.0, &qp, &mut fm);
            qp[k] = q[k];
            for i in 0..l {
                let fd = (fp[i] - fm[i]) / (2.0 * hstep);
                assert!((fd - j[(i, k)]).abs() < 1e-8, "J[{i},{k}]");
            }
        }
        // ρ = d/dt(J) q̇ by differencing J along q̇
        let mut rho = vec![0.0; l];
        m.constraint_accel_bias(0.0, q, qd, &mut rho);
        let (mut jp, mut jm) = (Mat::<f64>::zeros(l, n), Mat::<f64>::zeros(l, n));
        let qa: Vec<f64> = (0..n).map(|k| q[k] + hstep * qd[k]).collect();
        let qb: Vec<f64> = (0..n).map(|k| q[k] - hstep * qd[k]).collect();
        m.constraint_jacobian(0.0, &qa, jp.as_mut());
        m.constraint_jacobian(0.0, &qb, jm.as_mut());
        for i in 0..l {
            let fd: f64 = (0..n)
                .map(|k| (jp[(i, k)] - jm[(i, k)]) / (2.0 * hstep) * qd[k])
                .sum();
            assert!((fd - rho[i]).abs() < 1e-7, "rho[{i}] {fd} {}", rho[i]);
        }
    }

    #[test]
    fn jacobians_and_rho_match_finite_differences() {
        check_derivatives(&BouncingBall::default(), &[0.3], &[-1.0]);
        check_derivatives(&WallPendulum::default(), &[-0.3], &[-2.0]);
        check_derivatives(
            &BarOnSupports::default(),
            &[0.1, 0.4, 0.3],
            &[0.5, -1.0, 1.5],
        );
        check_derivatives(
            &BallsBetweenWalls::default(),
            &[0.2, 0.5, 0.6],
            &[1.0, -0.3, 0.2],
        );
    }
}
