//! Consistent initial states: projection of a guess `(q_g, q̇_g)` onto
//! `φ(t, q) = 0` and `J q̇ + b = 0`.
//!
//! Position: Gauss–Newton with the minimum-norm step
//! `δq = −J(q_k)† φ(q_k)`, `q_{k+1} = q_k + δq` — each step is the smallest
//! correction that zeroes the linearized constraints, so the limit is the
//! point of the constraint manifold nearest to the guess to first order.
//! The pseudo-inverse comes from the SVD ([`contour_linalg::PseudoInverse`]),
//! so redundant (rank-deficient) constraint sets are handled.
//!
//! Velocity: the orthogonal projection
//! `q̇ = argmin ½ (q̇ − q̇_g)ᵀ W (q̇ − q̇_g)` subject to `J q̇ + b = 0`, with
//! `W = I` (`q̇ = q̇_g − J†(J q̇_g + b)`) or `W = M(q)` (with `M = L Lᵀ`,
//! `A = J L⁻ᵀ`: `q̇ = q̇_g − L⁻ᵀ A† (J q̇_g + b)`, the kinetic-energy metric).

use crate::validate::{check_finite, check_timed_state};
use crate::{Mechanism, ModelError};
use contour_linalg::{Cholesky, PseudoInverse, DEFAULT_RANK_RTOL};
use faer::Mat;

/// Metric of the velocity projection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VelocityMetric {
    /// `‖q̇ − q̇_g‖₂` (orthogonal projection onto the null space of `J`).
    #[default]
    Euclidean,
    /// `(q̇ − q̇_g)ᵀ M (q̇ − q̇_g)` (kinetic-energy metric).
    MassWeighted,
}

/// Options of [`consistent_state`]. `Default`: `tol = 1e-14`,
/// `max_iterations = 20`, Euclidean velocity metric,
/// `rank_rtol = contour_linalg::DEFAULT_RANK_RTOL` (1e-10).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConsistentStateOptions {
    /// Stop when `‖φ‖₂ ≤ tol · max(1, ‖q_g‖∞)`.
    pub tol: f64,
    /// Maximum number of Gauss–Newton steps.
    pub max_iterations: usize,
    /// Metric of the velocity projection.
    pub velocity_metric: VelocityMetric,
    /// Relative singular-value cut-off of the pseudo-inverses.
    pub rank_rtol: f64,
}

impl Default for ConsistentStateOptions {
    fn default() -> Self {
        Self {
            tol: 1e-14,
            max_iterations: 20,
            velocity_metric: VelocityMetric::Euclidean,
            rank_rtol: DEFAULT_RANK_RTOL,
        }
    }
}

/// Result of [`consistent_state`].
#[derive(Debug, Clone, PartialEq)]
pub struct ConsistentState {
    /// Consistent coordinates, `φ(t, q) ≈ 0`.
    pub q: Vec<f64>,
    /// Consistent velocities, `J q̇ + b ≈ 0`.
    pub qd: Vec<f64>,
    /// Gauss–Newton steps taken.
    pub iterations: usize,
    /// Numerical rank of `J` at the final `q`.
    pub rank: usize,
    /// `‖φ(t, q_g)‖₂`.
    pub position_residual_before: f64,
    /// `‖φ(t, q)‖₂`.
    pub position_residual_after: f64,
    /// `‖J(q_g) q̇_g + b(q_g)‖₂`.
    pub velocity_residual_before: f64,
    /// `‖J(q) q̇ + b(q)‖₂`.
    pub velocity_residual_after: f64,
}

fn norm2(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

/// `(‖φ(t, q)‖₂, ‖J(t, q) q̇ + b(t, q)‖₂)`. Allocates.
pub fn constraint_residuals<M: Mechanism + ?Sized>(
    mech: &M,
    t: f64,
    q: &[f64],
    qd: &[f64],
) -> Result<(f64, f64), ModelError> {
    check_timed_state(mech, t, q, qd)?;
    let (n, l) = (mech.dof(), mech.n_constraints());
    let mut phi = vec![0.0; l];
    mech.constraints(t, q, &mut phi);
    check_finite("phi", &phi)?;
    let mut j = Mat::<f64>::zeros(l, n);
    mech.constraint_jacobian(t, q, j.as_mut());
    let mut v = vec![0.0; l];
    mech.constraint_rate_bias(t, q, &mut v);
    for i in 0..l {
        for k in 0..n {
            v[i] += j[(i, k)] * qd[k];
        }
    }
    check_finite("J qd + b", &v)?;
    Ok((norm2(&phi), norm2(&v)))
}

/// Checks that `(q, q̇)` is consistent to `tol` (2-norms of `φ` and `J q̇ + b`);
/// returns the residuals, or [`ModelError::InconsistentInitialState`]. For drivers.
pub fn check_consistent<M: Mechanism + ?Sized>(
    mech: &M,
    t: f64,
    q: &[f64],
    qd: &[f64],
    tol: f64,
) -> Result<(f64, f64), ModelError> {
    if !(tol.is_finite() && tol >= 0.0) {
        return Err(ModelError::InvalidParameter {
            what: "tol",
            value: tol,
        });
    }
    let (p, v) = constraint_residuals(mech, t, q, qd)?;
    if p > tol || v > tol {
        return Err(ModelError::InconsistentInitialState {
            position_residual: p,
            velocity_residual: v,
        });
    }
    Ok((p, v))
}

/// Projects the guess `(q_g, q̇_g)` onto `φ(t, q) = 0`, `J q̇ + b = 0`
/// (see the module documentation). Allocates (not a per-step routine).
///
/// Errors: dimension and NaN checks; [`ModelError::InvalidParameter`] for a
/// bad option; [`ModelError::NoConvergence`] when `‖φ‖₂` is still above
/// `tol · max(1, ‖q_g‖∞)` after `max_iterations` steps;
/// [`ModelError::MassMatrixNotPositiveDefinite`] for the mass-weighted metric.
pub fn consistent_state<M: Mechanism + ?Sized>(
    mech: &M,
    t: f64,
    q_guess: &[f64],
    qd_guess: &[f64],
    options: &ConsistentStateOptions,
) -> Result<ConsistentState, ModelError> {
    mech.validate()?;
    check_timed_state(mech, t, q_guess, qd_guess)?;
    for (what, v) in [("tol", options.tol), ("rank_rtol", options.rank_rtol)] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(ModelError::InvalidParameter { what, value: v });
        }
    }
    let (n, l) = (mech.dof(), mech.n_constraints());
    let (position_residual_before, velocity_residual_before) =
        constraint_residuals(mech, t, q_guess, qd_guess)?;
    let mut q = q_guess.to_vec();
    let mut qd = qd_guess.to_vec();
    if l == 0 {
        return Ok(ConsistentState {
            q,
            qd,
            iterations: 0,
            rank: 0,
            position_residual_before,
            position_residual_after: 0.0,
            velocity_residual_before,
            velocity_residual_after: 0.0,
        });
    }
    let scale = q_guess.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    let threshold = options.tol * scale;
    let mut pinv = PseudoInverse::new(l, n);
    let mut j = Mat::<f64>::zeros(l, n);
    let mut phi = vec![0.0; l];
    let mut dq = vec![0.0; n];
    mech.constraints(t, &q, &mut phi);
    let mut residual = norm2(&phi);
    let mut iterations = 0;
    while residual > threshold {
        if iterations == options.max_iterations {
            return Err(ModelError::NoConvergence {
                iterations,
                residual,
            });
        }
        j.fill(0.0);
        mech.constraint_jacobian(t, &q, j.as_mut());
        crate::validate::check_finite_mat("constraint jacobian", j.as_ref())?;
        pinv.compute(j.as_ref(), 0.0, options.rank_rtol)?;
        // Gauss–Newton, minimum-norm step δq = −J†φ
        pinv.apply(&phi, &mut dq);
        for k in 0..n {
            q[k] -= dq[k];
        }
        iterations += 1;
        mech.constraints(t, &q, &mut phi);
        check_finite("phi", &phi)?;
        residual = norm2(&phi);
    }
    // velocity: r = J q̇_g + b at the final q
    j.fill(0.0);
    mech.constraint_jacobian(t, &q, j.as_mut());
    crate::validate::check_finite_mat("constraint jacobian", j.as_ref())?;
    let mut r = vec![0.0; l];
    mech.constraint_rate_bias(t, &q, &mut r);
    for i in 0..l {
        for k in 0..n {
            r[i] += j[(i, k)] * qd[k];
        }
    }
    let rank = match options.velocity_metric {
        VelocityMetric::Euclidean => {
            pinv.compute(j.as_ref(), 0.0, options.rank_rtol)?;
            pinv.apply(&r, &mut dq);
            pinv.rank()
        }
        VelocityMetric::MassWeighted => {
            let mut m = Mat::<f64>::zeros(n, n);
            mech.mass_matrix(&q, m.as_mut());
            crate::validate::check_finite_mat("mass matrix", m.as_ref())?;
            let mut chol = Cholesky::new(n);
            chol.factor(m.as_ref())
                .map_err(|e| ModelError::from_solver(e, l))?;
            // Aᵀ = L⁻¹ Jᵀ, A = J L⁻ᵀ
            let mut at = j.transpose().to_owned();
            chol.solve_lower_in_place(at.as_mut());
            let a = at.transpose().to_owned();
            pinv.compute(a.as_ref(), 0.0, options.rank_rtol)?;
            pinv.apply(&r, &mut dq);
            let mut col = Mat::from_fn(n, 1, |i, _| dq[i]);
            chol.solve_upper_in_place(col.as_mut());
            for k in 0..n {
                dq[k] = col[(k, 0)];
            }
            pinv.rank()
        }
    };
    for k in 0..n {
        qd[k] -= dq[k];
    }
    let (position_residual_after, velocity_residual_after) =
        constraint_residuals(mech, t, &q, &qd)?;
    Ok(ConsistentState {
        q,
        qd,
        iterations,
        rank,
        position_residual_before,
        position_residual_after,
        velocity_residual_before,
        velocity_residual_after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::{KeerthiRobot, SliderCrank};
    use contour_linalg::null_space;

    /// `x` is orthogonal to the null space of `J` (i.e. lies in range(Jᵀ)).
    fn null_component(j: &Mat<f64>, x: &[f64]) -> f64 {
        let z = null_space(j.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap();
        let mut worst = 0.0f64;
        for c in 0..z.ncols() {
            let d: f64 = (0..x.len()).map(|i| z[(i, c)] * x[i]).sum();
            worst = worst.max(d.abs());
        }
        worst
    }

    #[test]
    fn velocity_projections_are_optimal_in_their_metric() {
        let robot = KeerthiRobot::default();
        let (q0, qd0) = ([0.5, 0.33, 0.15], [0.4, -0.3, 0.8]);
        for metric in [VelocityMetric::Euclidean, VelocityMetric::MassWeighted] {
            let opts = ConsistentStateOptions {
                velocity_metric: metric,
                ..Default::default()
            };
            let cs = consistent_state(&robot, 0.0, &q0, &qd0, &opts).unwrap();
            assert!(cs.velocity_residual_before > 0.1);
            assert!(
                cs.velocity_residual_after <= 1e-15,
                "{:e}",
                cs.velocity_residual_after
            );
            let mut j = Mat::<f64>::zeros(2, 3);
            robot.constraint_jacobian(0.0, &cs.q, j.as_mut());
            let mut m = Mat::<f64>::zeros(3, 3);
            robot.mass_matrix(&cs.q, m.as_mut());
            // optimality: W (q̇ − q̇_g) ∈ range(Jᵀ)
            let d: Vec<f64> = (0..3).map(|i| cs.qd[i] - qd0[i]).collect();
            let wd: Vec<f64> = match metric {
                VelocityMetric::Euclidean => d.clone(),
                VelocityMetric::MassWeighted => (0..3)
                    .map(|i| (0..3).map(|k| m[(i, k)] * d[k]).sum())
                    .collect(),
            };
            assert!(null_component(&j, &wd) <= 1e-15, "{metric:?}");
        }
    }

    #[test]
    fn position_step_is_minimum_norm_to_first_order() {
        // a small perturbation along range(Jᵀ) is removed exactly along it
        let sc = SliderCrank::default();
        let (q, qd) = sc.state(0.8, 0.0);
        let mut j = Mat::<f64>::zeros(2, 3);
        sc.constraint_jacobian(0.0, &q, j.as_mut());
        let eps = 1e-6;
        let guess: Vec<f64> = (0..3)
            .map(|i| q[i] + eps * (j[(0, i)] + 0.5 * j[(1, i)]))
            .collect();
        let cs =
            consistent_state(&sc, 0.0, &guess, &qd, &ConsistentStateOptions::default()).unwrap();
        let back: f64 = (0..3).map(|i| (cs.q[i] - q[i]).powi(2)).sum::<f64>().sqrt();
        assert!(back <= 10.0 * eps * eps, "{back:e}");
        assert!(cs.position_residual_after <= 1e-14);
    }

    /// A free particle under gravity: no constraints.
    struct Free;
    impl Mechanism for Free {
        fn name(&self) -> &str {
            "free"
        }
        fn dof(&self) -> usize {
            2
        }
        fn mass_matrix(&self, _q: &[f64], mut m: faer::MatMut<'_, f64>) {
            m.fill(0.0);
            m[(0, 0)] = 2.0;
            m[(1, 1)] = 2.0;
        }
        fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
            h[0] = 0.0;
            h[1] = 2.0 * 9.81;
        }
    }

    #[test]
    fn zero_constraint_mechanisms_and_consistent_states_pass_through() {
        let cs = consistent_state(
            &Free,
            0.0,
            &[1.0, 2.0],
            &[3.0, 4.0],
            &ConsistentStateOptions::default(),
        )
        .unwrap();
        assert_eq!(
            (cs.q, cs.qd, cs.iterations),
            (vec![1.0, 2.0], vec![3.0, 4.0], 0)
        );
        let mut d = crate::ConstrainedDynamics::new(&Free);
        let mut qdd = [1.0; 2];
        d.accelerations(&Free, 0.0, &[1.0, 2.0], &[3.0, 4.0], &mut qdd, &mut [])
            .unwrap();
        assert!(
            qdd[0] == 0.0 && (qdd[1] + 9.81).abs() <= 4.0 * f64::EPSILON * 9.81,
            "{qdd:?}"
        );
        let sc = SliderCrank::default();
        let (q, qd) = sc.state(-1.0, 3.0);
        let cs = consistent_state(&sc, 0.0, &q, &qd, &ConsistentStateOptions::default()).unwrap();
        assert_eq!(cs.iterations, 0);
        assert_eq!(cs.q, q.to_vec());
        for k in 0..3 {
            assert!((cs.qd[k] - qd[k]).abs() <= 1e-15 * (1.0 + qd[k].abs()));
        }
    }
}
