//! Planar four-bar linkage with one redundant closure row (rank-deficient J).

use crate::Mechanism;
use faer::MatMut;

/// Planar four-bar linkage in absolute link angles `q = (θ1, θ2, θ3)`
/// \[rad\] (crank, coupler, rocker; counter-clockwise from +x). The crank
/// (length a, mass m1) pivots at O = (0, 0), the rocker (length c, mass m3) at
/// D = (d, 0); the coupler (length b, mass m2) joins the two tips. All links
/// are uniform bars. Gravity acts along −y; a constant torque τ drives the crank.
///
/// The constraint set has **three rows, one redundant**:
///
/// ```text
/// φ0 = a cos θ1 + b cos θ2 − c cos θ3 − d        (loop closure, x)
/// φ1 = a sin θ1 + b sin θ2 − c sin θ3            (loop closure, y)
/// φ2 = cos γ · φ0 + sin γ · φ1                   (closure along the direction γ: REDUNDANT)
/// ```
///
/// Row 2 is a fixed linear combination of rows 0 and 1, so
/// `rank J = 2 = L − 1` at every configuration where the closure rows are
/// independent (everywhere except the change points where coupler and rocker are
/// aligned). Such a set arises when a closure is "measured" twice; it is the
/// test case for methods that must tolerate rank-deficient J
/// (Kövecses' projectors, the SVD pseudo-inverse, the rank-revealing solve of
/// [`ConstrainedDynamics`](crate::ConstrainedDynamics), which reports
/// [`ModelError::RankDeficientJacobian`](crate::ModelError::RankDeficientJacobian) only when
/// asked to by [`crate::RankDeficiency::Error`]).
///
/// With `k = m2 a b / 2`:
///
/// ```text
/// M = [[m1 a²/3 + m2 a², k cos(θ1−θ2), 0], [k cos(θ1−θ2), m2 b²/3, 0], [0, 0, m3 c²/3]]
/// h = (k sin(θ1−θ2) θ̇2² + g a (m1/2 + m2) cos θ1,
///      −k sin(θ1−θ2) θ̇1² + g m2 (b/2) cos θ2,
///      g m3 (c/2) cos θ3)
/// u = (τ, 0, 0)
/// V = g (m1 (a/2) sin θ1 + m2 (a sin θ1 + (b/2) sin θ2) + m3 (c/2) sin θ3)
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RedundantFourBar {
    /// Crank length a \[m\] (nominal 0.1).
    pub crank_length: f64,
    /// Coupler length b \[m\] (nominal 0.3).
    pub coupler_length: f64,
    /// Rocker length c \[m\] (nominal 0.25).
    pub rocker_length: f64,
    /// Ground length d (distance O–D) \[m\] (nominal 0.3; the nominal linkage is a Grashof crank-rocker).
    pub ground_length: f64,
    /// Crank mass m1 \[kg\] (nominal 1).
    pub crank_mass: f64,
    /// Coupler mass m2 \[kg\] (nominal 1).
    pub coupler_mass: f64,
    /// Rocker mass m3 \[kg\] (nominal 1).
    pub rocker_mass: f64,
    /// Gravitational acceleration g along −y \[m/s²\] (nominal 9.81; 0 switches gravity off).
    pub gravity: f64,
    /// Constant driving torque τ on the crank \[N·m\] (nominal 0).
    pub torque: f64,
    /// Direction γ of the redundant row \[rad\] (nominal π/4).
    pub redundant_direction: f64,
}

impl Default for RedundantFourBar {
    fn default() -> Self {
        Self {
            crank_length: 0.1,
            coupler_length: 0.3,
            rocker_length: 0.25,
            ground_length: 0.3,
            crank_mass: 1.0,
            coupler_mass: 1.0,
            rocker_mass: 1.0,
            gravity: 9.81,
            torque: 0.0,
            redundant_direction: std::f64::consts::FRAC_PI_4,
        }
    }
}

impl RedundantFourBar {
    /// Index of the redundant constraint row.
    pub const REDUNDANT_ROW: usize = 2;

    /// A consistent state for crank angle θ1 and crank rate θ̇1, in the
    /// assembly with the coupler–rocker joint B on the left of the ray A→D
    /// (A the crank tip); `None` when the linkage cannot be assembled at θ1
    /// or the configuration is singular.
    pub fn state(&self, theta1: f64, theta1_dot: f64) -> Option<([f64; 3], [f64; 3])> {
        let (a, b, c, d) = (
            self.crank_length,
            self.coupler_length,
            self.rocker_length,
            self.ground_length,
        );
        let (s1, c1) = theta1.sin_cos();
        let (ax, ay) = (a * c1, a * s1);
        // B is at distance b from A and c from D: intersection of two circles.
        let (ex, ey) = (d - ax, -ay);
        let e = (ex * ex + ey * ey).sqrt();
        if e == 0.0 || e > b + c || e < (b - c).abs() {
            return None;
        }
        let along = (b * b - c * c + e * e) / (2.0 * e);
        let perp = (b * b - along * along).max(0.0).sqrt();
        let (ux, uy) = (ex / e, ey / e);
        let bx = ax + along * ux - perp * uy;
        let by = ay + along * uy + perp * ux;
        let theta2 = (by - ay).atan2(bx - ax);
        let theta3 = by.atan2(bx - d);
        // velocities from the closure rows: b e2' θ̇2 − c e3' θ̇3 = −a e1' θ̇1
        let (s2, c2) = theta2.sin_cos();
        let (s3, c3) = theta3.sin_cos();
        let (j11, j12, j21, j22) = (-b * s2, c * s3, b * c2, -c * c3);
        let (r1, r2) = (a * s1 * theta1_dot, -a * c1 * theta1_dot);
        let det = j11 * j22 - j12 * j21;
        if det.abs() <= 1e-12 * (b * c) {
            return None;
        }
        let w2 = (r1 * j22 - j12 * r2) / det;
        let w3 = (j11 * r2 - j21 * r1) / det;
        Some(([theta1, theta2, theta3], [theta1_dot, w2, w3]))
    }
}

impl Mechanism for RedundantFourBar {
    fn validate(&self) -> Result<(), crate::ModelError> {
        crate::validate::check_positive_parameter("four_bar.crank_length", self.crank_length)?;
        crate::validate::check_positive_parameter("four_bar.coupler_length", self.coupler_length)?;
        crate::validate::check_positive_parameter("four_bar.rocker_length", self.rocker_length)?;
        crate::validate::check_positive_parameter("four_bar.ground_length", self.ground_length)?;
        crate::validate::check_positive_parameter("four_bar.crank_mass", self.crank_mass)?;
        crate::validate::check_positive_parameter("four_bar.coupler_mass", self.coupler_mass)?;
        crate::validate::check_positive_parameter("four_bar.rocker_mass", self.rocker_mass)?;
        crate::validate::check_finite_parameter("four_bar.gravity", self.gravity)?;
        crate::validate::check_finite_parameter("four_bar.torque", self.torque)?;
        crate::validate::check_finite_parameter(
            "four_bar.redundant_direction",
            self.redundant_direction,
        )?;
        Ok(())
    }
    fn name(&self) -> &str {
        "redundant-four-bar"
    }
    fn dof(&self) -> usize {
        3
    }
    fn n_constraints(&self) -> usize {
        3
    }
    fn mass_matrix(&self, q: &[f64], mut m: MatMut<'_, f64>) {
        let (a, b, c) = (self.crank_length, self.coupler_length, self.rocker_length);
        let (m1, m2, m3) = (self.crank_mass, self.coupler_mass, self.rocker_mass);
        let k = 0.5 * m2 * a * b * (q[0] - q[1]).cos();
        m.fill(0.0);
        m[(0, 0)] = m1 * a * a / 3.0 + m2 * a * a;
        m[(0, 1)] = k;
        m[(1, 0)] = k;
        m[(1, 1)] = m2 * b * b / 3.0;
        m[(2, 2)] = m3 * c * c / 3.0;
    }
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        let (a, b, c) = (self.crank_length, self.coupler_length, self.rocker_length);
        let (m1, m2, m3, g) = (
            self.crank_mass,
            self.coupler_mass,
            self.rocker_mass,
            self.gravity,
        );
        let ks = 0.5 * m2 * a * b * (q[0] - q[1]).sin();
        h[0] = ks * qd[1] * qd[1] + g * a * (0.5 * m1 + m2) * q[0].cos();
        h[1] = -ks * qd[0] * qd[0] + g * m2 * 0.5 * b * q[1].cos();
        h[2] = g * m3 * 0.5 * c * q[2].cos();
    }
    fn applied_forces(&self, _t: f64, _q: &[f64], _qd: &[f64], u: &mut [f64]) {
        u[0] = self.torque;
        u[1] = 0.0;
        u[2] = 0.0;
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        let (a, b, c, d) = (
            self.crank_length,
            self.coupler_length,
            self.rocker_length,
            self.ground_length,
        );
        phi[0] = a * q[0].cos() + b * q[1].cos() - c * q[2].cos() - d;
        phi[1] = a * q[0].sin() + b * q[1].sin() - c * q[2].sin();
        let (sg, cg) = self.redundant_direction.sin_cos();
        phi[2] = cg * phi[0] + sg * phi[1];
    }
    fn constraint_jacobian(&self, _t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        let (a, b, c) = (self.crank_length, self.coupler_length, self.rocker_length);
        let (s1, c1) = q[0].sin_cos();
        let (s2, c2) = q[1].sin_cos();
        let (s3, c3) = q[2].sin_cos();
        let (sg, cg) = self.redundant_direction.sin_cos();
        let row0 = [-a * s1, -b * s2, c * s3];
        let row1 = [a * c1, b * c2, -c * c3];
        for k in 0..3 {
            j[(0, k)] = row0[k];
            j[(1, k)] = row1[k];
            j[(2, k)] = cg * row0[k] + sg * row1[k];
        }
    }
    fn constraint_accel_bias(&self, _t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        let (a, b, c) = (self.crank_length, self.coupler_length, self.rocker_length);
        let (s1, c1) = q[0].sin_cos();
        let (s2, c2) = q[1].sin_cos();
        let (s3, c3) = q[2].sin_cos();
        let (w1, w2, w3) = (qd[0] * qd[0], qd[1] * qd[1], qd[2] * qd[2]);
        rho[0] = -a * c1 * w1 - b * c2 * w2 + c * c3 * w3;
        rho[1] = -a * s1 * w1 - b * s2 * w2 + c * s3 * w3;
        let (sg, cg) = self.redundant_direction.sin_cos();
        rho[2] = cg * rho[0] + sg * rho[1];
    }
    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> Option<f64> {
        let (a, b, c) = (self.crank_length, self.coupler_length, self.rocker_length);
        let (m1, m2, m3) = (self.crank_mass, self.coupler_mass, self.rocker_mass);
        let m11 = m1 * a * a / 3.0 + m2 * a * a;
        let m22 = m2 * b * b / 3.0;
        let m12 = 0.5 * m2 * a * b * (q[0] - q[1]).cos();
        Some(
            0.5 * (m11 * qd[0] * qd[0] + 2.0 * m12 * qd[0] * qd[1] + m22 * qd[1] * qd[1])
                + 0.5 * m3 * c * c / 3.0 * qd[2] * qd[2],
        )
    }
    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        let (a, b, c) = (self.crank_length, self.coupler_length, self.rocker_length);
        let (m1, m2, m3) = (self.crank_mass, self.coupler_mass, self.rocker_mass);
        Some(
            self.gravity
                * (m1 * 0.5 * a * q[0].sin()
                    + m2 * (a * q[0].sin() + 0.5 * b * q[1].sin())
                    + m3 * 0.5 * c * q[2].sin()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        consistent_state, constraint_residuals, ConsistentStateOptions, ConstrainedDynamics,
        ModelError,
    };
    use contour_linalg::{numerical_rank, DEFAULT_RANK_RTOL};
    use faer::Mat;

    #[test]
    fn jacobian_has_rank_l_minus_one_everywhere_on_the_cycle() {
        let fb = RedundantFourBar::default();
        for k in 0..24 {
            let theta = k as f64 * std::f64::consts::TAU / 24.0;
            let (q, qd) = fb
                .state(theta, 1.0)
                .expect("crank-rocker assembles at every crank angle");
            let (p, v) = constraint_residuals(&fb, 0.0, &q, &qd).unwrap();
            assert!(p <= 1e-15 && v <= 1e-15, "{p:e} {v:e}");
            let mut j = Mat::<f64>::zeros(3, 3);
            fb.constraint_jacobian(0.0, &q, j.as_mut());
            assert_eq!(
                numerical_rank(j.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap(),
                2
            );
            // the redundant row is the stated combination of the closure rows
            let (sg, cg) = fb.redundant_direction.sin_cos();
            for c in 0..3 {
                assert_eq!(
                    j[(RedundantFourBar::REDUNDANT_ROW, c)],
                    cg * j[(0, c)] + sg * j[(1, c)]
                );
            }
        }
    }

    #[test]
    fn constrained_accelerations_report_the_rank() {
        let fb = RedundantFourBar::default();
        let (q, qd) = fb.state(0.4, 2.0).unwrap();
        let mut d = ConstrainedDynamics::with_options(
            &fb,
            crate::DynamicsOptions {
                rank_deficiency: crate::RankDeficiency::Error,
                ..Default::default()
            },
        )
        .unwrap();
        let (mut qdd, mut lambda) = ([0.0; 3], [0.0; 3]);
        let err = d
            .accelerations(&fb, 0.0, &q, &qd, &mut qdd, &mut lambda)
            .unwrap_err();
        match err {
            ModelError::RankDeficientJacobian { rank, rows, .. } => {
                assert_eq!((rank, rows), (2, 3))
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(err.to_string().contains("rank 2 < 3"), "{err}");
    }

    #[test]
    fn consistent_state_handles_the_redundant_row() {
        let fb = RedundantFourBar::default();
        let (q, qd) = fb.state(1.1, -0.7).unwrap();
        let guess = [q[0] + 0.01, q[1] - 0.02, q[2] + 0.015];
        let qd_guess = [qd[0] + 0.1, qd[1], qd[2] - 0.2];
        let cs = consistent_state(
            &fb,
            0.0,
            &guess,
            &qd_guess,
            &ConsistentStateOptions::default(),
        )
        .unwrap();
        assert!(cs.position_residual_before > 1e-3);
        assert!(
            cs.position_residual_after <= 1e-14,
            "{:e}",
            cs.position_residual_after
        );
        assert!(
            cs.velocity_residual_after <= 1e-14,
            "{:e}",
            cs.velocity_residual_after
        );
        assert_eq!(cs.rank, 2);
    }
}
