//! Keerthi et al., section 4: the 3-link cylindrical-coordinate manipulator
//! whose end effector is held on a circle, and the stabilizing linear control
//! law (4.5).

use crate::{Controller, Mechanism};
use faer::MatMut;

/// An initial condition `(q, q̇)` as printed in a paper.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeerthiInitialCondition {
    /// Generalized coordinates `(q1 [rad], q2 [m], q3 [m])`.
    pub q: [f64; 3],
    /// Generalized velocities.
    pub qd: [f64; 3],
}

/// Keerthi Table 4.1: `q = (0.486, 0.345, 0.162)`, `q̇ = 0` (‖φ‖₂ ≈ 1.18e-4 as printed).
pub const KEERTHI_IC1: KeerthiInitialCondition = KeerthiInitialCondition {
    q: [0.486, 0.345, 0.162],
    qd: [0.0; 3],
};

/// Keerthi Table 4.2: `q = (2.8, 0, 0.3)`, `q̇ = 0` (‖φ‖₂ ≈ 1.60e-3 as printed).
pub const KEERTHI_IC2: KeerthiInitialCondition = KeerthiInitialCondition {
    q: [2.8, 0.0, 0.3],
    qd: [0.0; 3],
};

/// Keerthi's 3-link cylindrical robot (section 4, after Krishnan & McClamroch):
/// `q = (q1, q2, q3)` = (rotation about the vertical axis \[rad\], height \[m\],
/// radial extension \[m\]), with `ql3 = q3 + l3`:
///
/// ```text
/// M = diag{J1 + J2 + J3 + m3 ql3², m2 + m3, m3}
/// h = (2 m3 ql3 q̇1 q̇3, (m2 + m3) g, −m3 ql3 q̇1²)
/// φ = (ql3 sin q1 − y0, ql3² cos² q1 + q2² − r²)      (y0 = 0.169, r² = 0.2214)
/// J = [[ql3 cos q1, 0, sin q1], [−ql3² sin 2q1, 2 q2, 2 ql3 cos² q1]]
/// ρ = (−ql3 sin q1 q̇1² + 2 cos q1 q̇1 q̇3,
///      −2 ql3² cos 2q1 q̇1² − 4 ql3 sin 2q1 q̇1 q̇3 + 2 q̇2² + 2 cos² q1 q̇3²)
/// T = ½ q̇ᵀ M q̇,   V = (m2 + m3) g q2
/// ```
///
/// (the end effector `(ql3 cos q1, ql3 sin q1, q2)` moves on the circle
/// `y = 0.169`, `x² + z² = 0.2214`).
///
/// **J2 is not printed in the paper.** We use `J2 = 0.2 kg·m²`, recovered
/// from the gains of (4.5): the velocity-gain matrix is (to the 3–4 printed
/// digits) the rank-one matrix `−k (M t)(M t)ᵀ` with `t` the tangent of the
/// constraint manifold at `q_e`, so the ratios of its entries determine
/// `M11 = J1 + J2 + J3 + m3 ql3²`. Both independent ratios
/// (`K_d[0][1]/K_d[0][0] = 3 t2/M11`, `K_d[0][2]/K_d[0][0] = 2 t3/M11`) give
/// `M11 = 0.7209`, i.e. `J2 = 0.7209 − 0.2 − 2·0.4² = 0.2009 ≈ 0.2`
/// (test `j2_is_consistent_with_the_gains_of_4_5`). J2 only enters `M11`
/// together with J1 + J3.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeerthiRobot {
    /// Length offset l3 of the radial link \[m\] (nominal 0.2).
    pub l3: f64,
    /// Mass m2 of the vertical link \[kg\] (nominal 1).
    pub m2: f64,
    /// Mass m3 of the radial link \[kg\] (nominal 2).
    pub m3: f64,
    /// Inertia J1 about the vertical axis \[kg·m²\] (nominal 0.1).
    pub j1: f64,
    /// Inertia J2 about the vertical axis \[kg·m²\] (not printed; 0.2, see the type's doc).
    pub j2: f64,
    /// Inertia J3 about the vertical axis \[kg·m²\] (nominal 0.1).
    pub j3: f64,
    /// Gravitational acceleration g \[m/s²\] (nominal 9.8, so that u2 = 29.4 balances gravity).
    pub gravity: f64,
    /// Height y0 of the constraint plane \[m\] (nominal 0.169).
    pub plane: f64,
    /// Squared radius r² of the constraint circle \[m²\] (nominal 0.2214).
    pub radius_squared: f64,
}

impl Default for KeerthiRobot {
    fn default() -> Self {
        Self {
            l3: 0.2,
            m2: 1.0,
            m3: 2.0,
            j1: 0.1,
            j2: 0.2,
            j3: 0.1,
            gravity: 9.8,
            plane: 0.169,
            radius_squared: 0.2214,
        }
    }
}

impl KeerthiRobot {
    /// `φ` (section 4: the end effector on the plane and on the circle) with
    /// `(s, c) = (sin q₁, cos q₁)`.
    #[inline(always)]
    fn values(&self, q: &[f64], (s, c): (f64, f64), phi: &mut [f64]) {
        let l = q[2] + self.l3;
        phi[0] = l * s - self.plane;
        phi[1] = l * l * c * c + q[1] * q[1] - self.radius_squared;
    }

    /// `J = ∂φ/∂q` with `(s, c) = (sin q₁, cos q₁)`.
    #[inline(always)]
    fn jacobian(&self, q: &[f64], (s, c): (f64, f64), mut j: MatMut<'_, f64>) {
        let l = q[2] + self.l3;
        j[(0, 0)] = l * c;
        j[(0, 1)] = 0.0;
        j[(0, 2)] = s;
        j[(1, 0)] = -2.0 * l * l * s * c;
        j[(1, 1)] = 2.0 * q[1];
        j[(1, 2)] = 2.0 * l * c * c;
    }
}

impl Mechanism for KeerthiRobot {
    fn validate(&self) -> Result<(), crate::ModelError> {
        crate::validate::check_positive_parameter("keerthi.l3", self.l3)?;
        crate::validate::check_positive_parameter("keerthi.m2", self.m2)?;
        crate::validate::check_positive_parameter("keerthi.m3", self.m3)?;
        crate::validate::check_positive_parameter("keerthi.j1", self.j1)?;
        crate::validate::check_positive_parameter("keerthi.j2", self.j2)?;
        crate::validate::check_positive_parameter("keerthi.j3", self.j3)?;
        crate::validate::check_positive_parameter("keerthi.radius_squared", self.radius_squared)?;
        crate::validate::check_finite_parameter("keerthi.gravity", self.gravity)?;
        crate::validate::check_finite_parameter("keerthi.plane", self.plane)?;
        Ok(())
    }
    fn name(&self) -> &str {
        "keerthi-robot"
    }
    fn dof(&self) -> usize {
        3
    }
    fn n_constraints(&self) -> usize {
        2
    }
    fn mass_matrix(&self, q: &[f64], mut m: MatMut<'_, f64>) {
        let l = q[2] + self.l3;
        m.fill(0.0);
        m[(0, 0)] = self.j1 + self.j2 + self.j3 + self.m3 * l * l;
        m[(1, 1)] = self.m2 + self.m3;
        m[(2, 2)] = self.m3;
    }
    fn bias_forces(&self, q: &[f64], qd: &[f64], h: &mut [f64]) {
        let l = q[2] + self.l3;
        h[0] = 2.0 * self.m3 * l * qd[0] * qd[2];
        h[1] = (self.m2 + self.m3) * self.gravity;
        h[2] = -self.m3 * l * qd[0] * qd[0];
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        self.values(q, q[0].sin_cos(), phi);
    }
    fn constraint_jacobian(&self, _t: f64, q: &[f64], j: MatMut<'_, f64>) {
        self.jacobian(q, q[0].sin_cos(), j);
    }
    /// One `sin_cos` for φ and J (the constraint monitor's call).
    fn constraints_jacobian_and_rate_bias(
        &self,
        t: f64,
        q: &[f64],
        phi: &mut [f64],
        j: MatMut<'_, f64>,
        b: &mut [f64],
    ) {
        let trig = q[0].sin_cos();
        self.values(q, trig, phi);
        self.jacobian(q, trig, j);
        self.constraint_rate_bias(t, q, b);
    }
    fn constraint_accel_bias(&self, _t: f64, q: &[f64], qd: &[f64], rho: &mut [f64]) {
        let l = q[2] + self.l3;
        let (s, c) = q[0].sin_cos();
        let (s2, c2) = (2.0 * s * c, c * c - s * s);
        let (w1, w2, w3) = (qd[0], qd[1], qd[2]);
        rho[0] = -l * s * w1 * w1 + 2.0 * c * w1 * w3;
        rho[1] = -2.0 * l * l * c2 * w1 * w1 - 4.0 * l * s2 * w1 * w3
            + 2.0 * w2 * w2
            + 2.0 * c * c * w3 * w3;
    }
    fn kinetic_energy(&self, q: &[f64], qd: &[f64]) -> Option<f64> {
        let l = q[2] + self.l3;
        let m11 = self.j1 + self.j2 + self.j3 + self.m3 * l * l;
        Some(
            0.5 * (m11 * qd[0] * qd[0]
                + (self.m2 + self.m3) * qd[1] * qd[1]
                + self.m3 * qd[2] * qd[2]),
        )
    }
    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        Some((self.m2 + self.m3) * self.gravity * q[1])
    }
}

/// The linear stabilizing law of Keerthi (4.5) (designed by linearization
/// about the equilibrium `q_e` in Krishnan & McClamroch):
///
/// ```text
/// u = u_e + K_p (q − q_e) + K_d q̇
/// ```
///
/// with the printed `q_e = (0.436, 0.3, 0.2)`, `u_e = (0.363, 29.4, 0.423)`
/// and the gain matrices below (rows = u1, u2, u3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeerthiControlLaw {
    /// Equilibrium configuration q_e.
    pub q_eq: [f64; 3],
    /// Feed-forward input u_e at the equilibrium \[N·m, N, N\].
    pub u_eq: [f64; 3],
    /// Position gains K_p (row i multiplies `q − q_e` in u_i).
    pub kp: [[f64; 3]; 3],
    /// Velocity gains K_d (row i multiplies `q̇` in u_i).
    pub kd: [[f64; 3]; 3],
}

impl Default for KeerthiControlLaw {
    fn default() -> Self {
        // Keerthi (4.5), as printed.
        Self {
            q_eq: [0.436, 0.3, 0.2],
            u_eq: [0.363, 29.4, 0.423],
            kp: [
                [-3.655, -4.181, 3.136],
                [-15.934, -18.229, 13.672],
                [8.267, 9.455, -7.091],
            ],
            kd: [
                [-0.455, -2.167, 1.083],
                [-2.167, -10.325, 5.163],
                [1.083, 5.163, -2.581],
            ],
        }
    }
}

impl Controller for KeerthiControlLaw {
    fn forces(&self, _t: f64, q: &[f64], qd: &[f64], u: &mut [f64]) {
        for i in 0..3 {
            let mut ui = self.u_eq[i];
            for k in 0..3 {
                ui += self.kp[i][k] * (q[k] - self.q_eq[k]) + self.kd[i][k] * qd[k];
            }
            u[i] += ui;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{consistent_state, ConsistentStateOptions, ConstrainedDynamics, WithController};
    use faer::Mat;

    fn phi_norm(q: &[f64]) -> f64 {
        let mut phi = [0.0; 2];
        KeerthiRobot::default().constraints(0.0, q, &mut phi);
        (phi[0] * phi[0] + phi[1] * phi[1]).sqrt()
    }

    #[test]
    fn printed_initial_conditions_are_slightly_inconsistent() {
        let r1 = phi_norm(&KEERTHI_IC1.q);
        let r2 = phi_norm(&KEERTHI_IC2.q);
        // computed: 1.1755e-4 and 1.6018e-3
        assert!((0.5e-4..2e-4).contains(&r1), "{r1:e}");
        assert!((1.2e-3..2e-3).contains(&r2), "{r2:e}");
        assert!((r1 - 1.1755e-4).abs() < 1e-8, "{r1:e}");
        assert!((r2 - 1.6018e-3).abs() < 1e-7, "{r2:e}");
    }

    #[test]
    fn consistent_state_drives_both_initial_conditions_to_round_off() {
        let robot = KeerthiRobot::default();
        for ic in [KEERTHI_IC1, KEERTHI_IC2] {
            let cs = consistent_state(
                &robot,
                0.0,
                &ic.q,
                &ic.qd,
                &ConsistentStateOptions::default(),
            )
            .unwrap();
            assert!(
                cs.position_residual_after <= 1e-14,
                "{:e}",
                cs.position_residual_after
            );
            assert!((cs.position_residual_after - phi_norm(&cs.q)).abs() == 0.0);
            assert_eq!(cs.velocity_residual_after, 0.0);
            assert!(
                cs.iterations >= 1 && cs.iterations <= 5,
                "{}",
                cs.iterations
            );
            // the correction is of the size of the residual (first-order nearest point)
            let dq: f64 =
                cs.q.iter()
                    .zip(&ic.q)
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum::<f64>()
                    .sqrt();
            assert!(dq < 10.0 * cs.position_residual_before, "{dq:e}");
            assert_eq!(cs.rank, 2);
        }
    }

    /// The velocity gains of (4.5) are ≈ −k (M t)(M t)ᵀ with t the tangent of
    /// the constraint manifold at q_e; their ratios give M11 and hence J2.
    #[test]
    fn j2_is_consistent_with_the_gains_of_4_5() {
        let robot = KeerthiRobot::default();
        let law = KeerthiControlLaw::default();
        let q = law.q_eq;
        let mut j = Mat::<f64>::zeros(2, 3);
        robot.constraint_jacobian(0.0, &q, j.as_mut());
        // t = row0 × row1
        let t = [
            j[(0, 1)] * j[(1, 2)] - j[(0, 2)] * j[(1, 1)],
            j[(0, 2)] * j[(1, 0)] - j[(0, 0)] * j[(1, 2)],
            j[(0, 0)] * j[(1, 1)] - j[(0, 1)] * j[(1, 0)],
        ];
        let (m22, m33) = (robot.m2 + robot.m3, robot.m3);
        let l = q[2] + robot.l3;
        let rest = robot.j1 + robot.j3 + robot.m3 * l * l;
        for row in law.kd {
            let m11_a = m22 * t[1] * row[0] / (row[1] * t[0]);
            let m11_b = m33 * t[2] * row[0] / (row[2] * t[0]);
            let (j2_a, j2_b) = (m11_a - rest, m11_b - rest);
            assert!((j2_a - 0.2).abs() < 0.01, "{j2_a}");
            assert!((j2_b - 0.2).abs() < 0.01, "{j2_b}");
        }
    }

    #[test]
    fn equilibrium_is_balanced_by_the_control_law() {
        // At q_e (made consistent) and q̇ = 0 the feed-forward u_e = (.363, 29.4, .423)
        // balances gravity and a contact force Jᵀλ with λ ≈ (−1, 0): q̈ ≈ 0.
        let robot = KeerthiRobot::default();
        let law = KeerthiControlLaw::default();
        let cs = consistent_state(
            &robot,
            0.0,
            &law.q_eq,
            &[0.0; 3],
            &ConsistentStateOptions::default(),
        )
        .unwrap();
        let sys = WithController::new(&robot, &law);
        let mut dynamics = ConstrainedDynamics::new(&sys);
        let (mut qdd, mut lambda) = ([0.0; 3], [0.0; 2]);
        dynamics
            .accelerations(&sys, 0.0, &cs.q, &cs.qd, &mut qdd, &mut lambda)
            .unwrap();
        // computed: q̈ ≈ (−8.1e-6, −9.3e-6, 7.0e-6), λ ≈ (−1.00117, −4.4e-5)
        assert!(qdd.iter().all(|a| a.abs() < 1e-4), "{qdd:?}");
        assert!((lambda[0] + 1.0).abs() < 2e-3, "{lambda:?}");
        assert!(lambda[1].abs() < 1e-4, "{lambda:?}");
        // and the controller alone gives u_e at q_e, q̇ = 0
        let mut u = [0.0; 3];
        law.forces_into(0.0, &law.q_eq, &[0.0; 3], &mut u);
        assert_eq!(u, law.u_eq);
    }

    #[test]
    fn energy_is_the_printed_lagrangian() {
        let robot = KeerthiRobot::default();
        let q = [0.3, 0.2, 0.1];
        let qd = [1.0, -2.0, 0.5];
        let m11 = 0.1 + 0.2 + 0.1 + 2.0 * 0.3 * 0.3;
        let t = 0.5 * (m11 * 1.0 + 3.0 * 4.0 + 2.0 * 0.25);
        assert!((robot.kinetic_energy(&q, &qd).unwrap() - t).abs() < 1e-15);
        assert!((robot.potential_energy(&q).unwrap() - 3.0 * 9.8 * 0.2).abs() < 1e-15);
    }

    /// The monitor's one call gives φ, J and b of the separate calls bit for bit, also
    /// through the controller.
    #[test]
    fn fused_constraint_terms_are_the_separate_ones() {
        let robot = KeerthiRobot::default();
        let law = KeerthiControlLaw::default();
        let sys = WithController::new(&robot, &law);
        for q in [KEERTHI_IC1.q, KEERTHI_IC2.q, [-2.0, 0.7, -0.1]] {
            assert!(crate::testing::fused_constraint_terms_match(
                &robot, 0.0, &q
            ));
            assert!(crate::testing::fused_constraint_terms_match(&sys, 1.5, &q));
        }
    }
}
