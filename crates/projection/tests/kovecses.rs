//! The projector method of Kövecses & Piedbœuf: the identities (21)–(23) and the dynamics
//! (26)–(31) at random states of the 7-joint arm (seeded proptest), one filter application,
//! and typed errors for bad input. (The paper's claims — violations at round-off on the arm
//! and on redundant mechanisms, the correction counts of (35) and (36) — are tested in
//! `contour-papers`, `tests/kovecses.rs`.)

use contour_linalg::{
    projector_identity_residuals, Cholesky, WeightedProjectors, DEFAULT_RANK_RTOL,
};
use contour_model::models::{arm7_initial_q, ssrms_arm_tip_held, Arm7LoadCase, RedundantFourBar};
use contour_model::{ConstrainedDynamics, Mechanism, ModelError, WithController};
use contour_projection::{
    ConfigurationCorrection, ConstraintFilter, CorrectionCount, ErrorControl, Integrator, Method,
    ProjectionDynamics, ProjectionError, ProjectorConfig, Simulation, VelocityFiltering,
};
use faer::{Mat, MatMut};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

const EPS: f64 = f64::EPSILON;

fn runner(seed: u8, cases: u32) -> TestRunner {
    let cfg = Config {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        ..Config::default()
    };
    TestRunner::new_with_rng(cfg, TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]))
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// Kövecses (21)–(23) and (29)–(31), (26)–(28) at random states of the arm: the projectors
/// are M-orthogonal complements, the projected accelerations and the minimum-norm λ equal
/// the KKT solution of (9) (full row rank), and the forward solution satisfies (26) and (28).
#[test]
fn identities_and_dynamics_at_random_arm_states() {
    let arm = WithController::new(ssrms_arm_tip_held(), Arm7LoadCase::default());
    let (n, l) = (7usize, 3usize);
    let q0 = arm7_initial_q();
    let strategy = (
        proptest::collection::vec(-1.0f64..1.0, 7),
        proptest::collection::vec(-0.2f64..0.2, 7),
        proptest::collection::vec(-100.0f64..100.0, 3),
        0.0f64..80.0,
    );
    let pd_cell =
        std::cell::RefCell::new(ProjectionDynamics::new(&arm, DEFAULT_RANK_RTOL).unwrap());
    let kkt_cell = std::cell::RefCell::new(ConstrainedDynamics::new(&arm));
    let worst_cell = std::cell::RefCell::new([0.0f64; 6]);
    runner(21, 64)
        .run(&strategy, |(dq, qd, lam_rand, t)| {
            let mut pd = pd_cell.borrow_mut();
            let mut kkt = kkt_cell.borrow_mut();
            let mut worst = worst_cell.borrow_mut();
            let q: Vec<f64> = q0.iter().zip(&dq).map(|(a, b)| a + b).collect();
            // (21)–(23) through the linalg workspace at this state
            let mut m = Mat::zeros(n, n);
            arm.mass_matrix(&q, m.as_mut());
            let mut a = Mat::zeros(l, n);
            arm.constraint_jacobian(t, &q, a.as_mut());
            let mut ch = Cholesky::new(n);
            ch.factor(m.as_ref()).unwrap();
            let mut wp = WeightedProjectors::new(n, l);
            wp.compute(&ch, a.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap();
            prop_assert_eq!(wp.rank(), 3);
            let s = wp.singular_values();
            let cond = s[0] / s[l - 1];
            let r = projector_identity_residuals(m.as_ref(), a.as_ref(), &wp).unwrap();
            let bound = 1e2 * EPS * cond * (n + l) as f64;
            prop_assert!(
                r.m_orthogonality <= bound,
                "(21) {:e} > {bound:e}",
                r.m_orthogonality
            );
            prop_assert!(r.eq22 <= bound, "(22) {:e} > {bound:e}", r.eq22);
            prop_assert!(r.eq23 <= bound, "(23) {:e} > {bound:e}", r.eq23);
            worst[0] = worst[0].max(r.m_orthogonality);
            worst[1] = worst[1].max(r.eq22);
            worst[2] = worst[2].max(r.eq23);
            // (23) with an explicit constraint force Q_c = Aᵀλ: P_a M⁻¹ Q_c = 0
            let mut mq: Vec<f64> = (0..n)
                .map(|k| (0..l).map(|i| a[(i, k)] * lam_rand[i]).sum())
                .collect();
            let qc = norm(&mq);
            ch.solve_in_place(&mut mq);
            let pa = wp.p_a();
            let res: Vec<f64> = (0..n)
                .map(|i| (0..n).map(|k| pa[(i, k)] * mq[k]).sum())
                .collect();
            prop_assert!(norm(&res) <= bound * norm(&mq).max(qc * 1e-6));
            // (29)–(31) against the KKT system (9)
            let (mut qdd, mut lam) = (vec![0.0; n], vec![0.0; l]);
            pd.accelerations(&arm, t, &q, &qd, &mut qdd, &mut lam)
                .unwrap();
            let (mut qdd_k, mut lam_k) = (vec![0.0; n], vec![0.0; l]);
            kkt.accelerations(&arm, t, &q, &qd, &mut qdd_k, &mut lam_k)
                .unwrap();
            let dq_rel = norm(
                &qdd.iter()
                    .zip(&qdd_k)
                    .map(|(x, y)| x - y)
                    .collect::<Vec<_>>(),
            ) / norm(&qdd_k).max(1e-300);
            let dl_rel = norm(
                &lam.iter()
                    .zip(&lam_k)
                    .map(|(x, y)| x - y)
                    .collect::<Vec<_>>(),
            ) / norm(&lam_k).max(1e-300);
            // Two independent roundings: the projector and the KKT solve each sit ~1e3 ε
            // from the exact solution on this badly scaled M (diagonal 7 … 2.4e5). Measured
            // (engine-r7) at the worst state, cond = 3.14: projector vs a partial-pivoting LU of
            // the whole KKT matrix 2.2e-12, the L D Lᵀ range-space KKT vs that LU 4.1e-13, the
            // two 2.6e-12 apart; an LLᵀ range-space KKT agreed with the projector to 3.9e-13
            // only because both use the same Cholesky factor of M (correlated rounding), with
            // 1.8e-12 to the LU. Hence 4e3 ε cond², not 1e3.
            let tol = 4e3 * EPS * cond * cond;
            prop_assert!(dq_rel <= tol, "qdd {dq_rel:e}");
            prop_assert!(dl_rel <= tol, "lambda {dl_rel:e}");
            worst[3] = worst[3].max(dq_rel);
            worst[4] = worst[4].max(dl_rel);
            // (26)–(27): P_aᵀ(M q̈ + C) = P_aᵀ Q; (28): M q̈ + M W ρ + P_aᵀ(C − Q) = 0
            let mut qa = vec![0.0; n];
            pd.admissible_applied_force(&arm, t, &q, &qd, &qdd, &mut qa)
                .unwrap();
            let u = pd.applied_forces().to_vec();
            let h = pd.bias_forces().to_vec();
            let rho = pd.accel_bias().to_vec();
            let proj = pd.projectors();
            let (pa, w) = (proj.p_a(), proj.w());
            let pat_u: Vec<f64> = (0..n)
                .map(|i| (0..n).map(|k| pa[(k, i)] * u[k]).sum())
                .collect();
            let scale = norm(&u) + norm(&h) + 1.0;
            let r26 = norm(
                &qa.iter()
                    .zip(&pat_u)
                    .map(|(x, y)| x - y)
                    .collect::<Vec<_>>(),
            ) / scale;
            prop_assert!(r26 <= 1e3 * EPS * cond * cond, "(26) {r26:e}");
            let wrho: Vec<f64> = (0..n)
                .map(|i| (0..l).map(|k| w[(i, k)] * rho[k]).sum())
                .collect();
            let r28: Vec<f64> = (0..n)
                .map(|i| {
                    (0..n).map(|k| m[(i, k)] * (qdd[k] + wrho[k])).sum::<f64>()
                        + (0..n).map(|k| pa[(k, i)] * (h[k] - u[k])).sum::<f64>()
                })
                .collect();
            let r28 = norm(&r28) / scale;
            prop_assert!(r28 <= 1e3 * EPS * cond * cond, "(28) {r28:e}");
            worst[5] = worst[5].max(r26.max(r28));
            Ok(())
        })
        .unwrap();
    eprintln!(
        "worst residuals (21) (22) (23) qdd lambda (26)/(28): {:?}",
        worst_cell.borrow()
    );
}

/// One correction step by hand: (36) from a perturbed arm configuration converges
/// quadratically; (35) with the directions of the unperturbed point linearly; filtering at
/// the previous configuration leaves `A(q_{i+1}) q̇` of the order of the step.
#[test]
fn single_filter_application() {
    let arm = WithController::new(ssrms_arm_tip_held(), Arm7LoadCase::default());
    let q0 = arm7_initial_q();
    let mut x_prev = q0.to_vec();
    x_prev.extend_from_slice(&[0.0; 7]);
    let mut x = x_prev.clone();
    for (i, v) in x.iter_mut().enumerate() {
        *v += 1e-3 * ((i as f64) * 0.7).sin();
    }
    let phi_norm = |x: &[f64]| {
        let mut p = [0.0; 3];
        arm.constraints(0.0, &x[..7], &mut p);
        norm(&p)
    };
    let before = phi_norm(&x);
    assert!(before > 1e-5);
    let mut counts = Vec::new();
    for corr in [
        ConfigurationCorrection::Iterative,
        ConfigurationCorrection::QuasiIterative,
    ] {
        let cfg = ProjectorConfig {
            correction: corr,
            corrections: CorrectionCount::ToTolerance {
                tol: 1e-13,
                max: 30,
            },
            ..ProjectorConfig::default()
        };
        let mut f = ConstraintFilter::new(&arm, &cfg).unwrap();
        f.set_previous(0.0, &x_prev).unwrap();
        let mut y = x.clone();
        let o = f.apply(&arm, 0.1, &mut y).unwrap();
        assert!(o.phi_after <= 1e-13 && phi_norm(&y) <= 1e-13);
        assert!((o.phi_before - before).abs() <= 1e-15);
        counts.push(o.corrections);
        let (_, v) = contour_model::constraint_residuals(&arm, 0.1, &y[..7], &y[7..]).unwrap();
        assert!(v <= 1e-13, "{v:e}");
    }
    // (36) is Gauss–Newton in the M-metric (quadratic), (35) a chord method (linear)
    assert!(counts[0] <= 3 && counts[1] > counts[0], "{counts:?}");
    let cfg = ProjectorConfig {
        velocity_filtering: VelocityFiltering::AtPreviousConfiguration,
        corrections: CorrectionCount::ToTolerance {
            tol: 1e-14,
            max: 10,
        },
        ..ProjectorConfig::default()
    };
    let mut f = ConstraintFilter::new(&arm, &cfg).unwrap();
    f.set_previous(0.0, &x_prev).unwrap();
    let mut y = x.clone();
    f.apply(&arm, 0.1, &mut y).unwrap();
    let (p, v) = contour_model::constraint_residuals(&arm, 0.1, &y[..7], &y[7..]).unwrap();
    assert!(p <= 1e-14, "{p:e}");
    // O(|q_{i+1} − q_i| · |q̇| · arm length) ≈ 1e-3 · 1e-3 · 17
    assert!(v > 1e-9 && v < 1e-4, "{v:e}");
}

/// A mass matrix that is not positive definite.
struct Indefinite;
impl Mechanism for Indefinite {
    fn name(&self) -> &str {
        "indefinite"
    }
    fn dof(&self) -> usize {
        2
    }
    fn n_constraints(&self) -> usize {
        1
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        m.fill(0.0);
        m[(0, 0)] = 1.0;
        m[(1, 1)] = -1.0;
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        h.fill(0.0);
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        phi[0] = q[0] - q[1];
    }
    fn constraint_jacobian(&self, _t: f64, _q: &[f64], mut j: MatMut<'_, f64>) {
        j[(0, 0)] = 1.0;
        j[(0, 1)] = -1.0;
    }
    fn constraint_accel_bias(&self, _t: f64, _q: &[f64], _qd: &[f64], rho: &mut [f64]) {
        rho[0] = 0.0;
    }
}

#[test]
fn typed_errors() {
    let bad = Indefinite;
    let r = Simulation::new(&bad, &[0.0, 0.0], &[0.0, 0.0], 0.0, 1.0)
        .method(Method::Projector(ProjectorConfig::default()))
        .integrator(Integrator::dopri5())
        .run()
        .map_err(ProjectionError::into_cause);
    assert!(
        matches!(
            r,
            Err(ProjectionError::Model(
                ModelError::MassMatrixNotPositiveDefinite { index: 1, .. }
            ))
        ),
        "{r:?}"
    );
    let mut f = ConstraintFilter::new(&bad, &ProjectorConfig::default()).unwrap();
    f.set_previous(0.0, &[0.0; 4]).unwrap();
    let mut x = [0.1, 0.0, 0.0, 0.0];
    assert!(matches!(
        f.apply(&bad, 0.0, &mut x),
        Err(ProjectionError::Model(
            ModelError::MassMatrixNotPositiveDefinite { .. }
        ))
    ));
    // non-finite state
    let fb = RedundantFourBar::default();
    let (q, qd) = fb.state(1.0, 0.0).unwrap();
    let mut f = ConstraintFilter::new(&fb, &ProjectorConfig::default()).unwrap();
    assert!(matches!(
        f.set_previous(0.0, &[f64::NAN; 6]),
        Err(ProjectionError::Model(ModelError::NonFinite { .. }))
    ));
    f.set_previous(0.0, &[q.as_slice(), qd.as_slice()].concat())
        .unwrap();
    let mut x = [q[0], q[1], f64::INFINITY, 0.0, 0.0, 0.0];
    assert!(matches!(
        f.apply(&fb, 0.1, &mut x),
        Err(ProjectionError::Model(ModelError::NonFinite {
            index: 2,
            ..
        }))
    ));
    let mut short = [0.0; 5];
    assert!(matches!(
        f.apply(&fb, 0.1, &mut short),
        Err(ProjectionError::DimensionMismatch {
            expected: 6,
            found: 5,
            ..
        })
    ));
    let mut pd = ProjectionDynamics::new(&fb, DEFAULT_RANK_RTOL).unwrap();
    let (mut a, mut l) = ([0.0; 3], [0.0; 3]);
    assert!(matches!(
        pd.accelerations(&fb, 0.0, &[0.0, f64::NAN, 0.0], &qd, &mut a, &mut l),
        Err(ModelError::NonFinite {
            what: "q",
            index: 1
        })
    ));
    let r = Simulation::new(&fb, &[q[0], q[1], f64::NAN], &qd, 0.0, 1.0)
        .method(Method::Projector(ProjectorConfig::default()))
        .run();
    assert!(
        matches!(r, Err(ProjectionError::Model(ModelError::NonFinite { .. }))),
        "{r:?}"
    );
    // bad configuration
    for (cfg, name) in [
        (
            ProjectorConfig {
                rank_rtol: -1.0,
                ..ProjectorConfig::default()
            },
            "rank_rtol",
        ),
        (
            ProjectorConfig {
                corrections: CorrectionCount::ToTolerance { tol: 0.0, max: 3 },
                ..ProjectorConfig::default()
            },
            "correction tol",
        ),
        (
            ProjectorConfig {
                corrections: CorrectionCount::ToTolerance { tol: 1e-12, max: 0 },
                ..ProjectorConfig::default()
            },
            "correction max",
        ),
    ] {
        let r = Simulation::new(&fb, &q, &qd, 0.0, 1.0)
            .method(Method::Projector(cfg))
            .run();
        assert!(
            matches!(r, Err(ProjectionError::InvalidParameter { name: n, .. }) if n == name),
            "{r:?}"
        );
    }
    // a tolerance that cannot be met: NoConvergence with the residual
    let cfg = ProjectorConfig {
        correction: ConfigurationCorrection::QuasiIterative,
        corrections: CorrectionCount::ToTolerance { tol: 1e-30, max: 2 },
        ..ProjectorConfig::default()
    };
    let r = Simulation::new(&fb, &q, &qd, 0.0, 1.0)
        .method(Method::Projector(cfg))
        .integrator(Integrator::dopri5())
        .error_control(ErrorControl::absolute(1e-3))
        .run()
        .map_err(ProjectionError::into_cause);
    assert!(
        matches!(r, Err(ProjectionError::NoConvergence { iterations: 2, .. })),
        "{r:?}"
    );
}
