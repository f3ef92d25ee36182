//! Kövecses & Piedbœuf's claims: the arm's violations at round-off for 80 s in the paper's
//! setting, two redundantly constrained mechanisms run by the projector method (the KKT
//! methods stop), the correction counts of (35) and (36), and any integrator on Keerthi's
//! robot.

use contour::model::models::RedundantFourBar;
use contour::model::models::RedundantParallelogram;
use contour::model::ModelError;
use contour::projection::{
    ConfigurationCorrection, Integrator, Method, ProjectionError, ProjectorConfig,
};
use contour_papers::kovecses::{correction_comparison_config, run_arm, run_redundant, ARM_TAU};

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// The paper's setting keeps the arm's violations at round-off for 80 s (≤ 1e-12), while the
/// direct integration drifts by orders of magnitude more.
#[test]
fn arm_violations_at_round_off() {
    let c = run_arm(
        Method::Projector(ProjectorConfig::default()),
        Integrator::dopri5(),
        ARM_TAU,
    )
    .unwrap();
    assert!(
        c.stats.max_phi <= 1e-12 && c.stats.max_phidot <= 1e-12,
        "{:?}",
        c.stats
    );
    // one filtering and two corrections per step, three projector evaluations
    let steps = c.stats.steps;
    assert_eq!(c.stats.velocity_filterings, steps);
    assert_eq!(c.stats.configuration_corrections, 2 * steps);
    assert_eq!(c.stats.projector_evaluations, 3 * steps);
    let u = run_arm(Method::Direct, Integrator::dopri5(), ARM_TAU).unwrap();
    assert!(
        u.stats.max_phi > 1e3 * c.stats.max_phi,
        "{:e}",
        u.stats.max_phi
    );
    // the Lagrange-multiplier accelerations (the paper's choice) give the same trajectory
    let cfg = ProjectorConfig {
        acceleration: contour::projection::AccelerationSolver::Lagrange,
        ..ProjectorConfig::default()
    };
    let k = run_arm(Method::Projector(cfg), Integrator::dopri5(), ARM_TAU).unwrap();
    assert!(k.stats.max_phi <= 1e-12);
    let d = contour_papers::keerthi::dist(&k.x_final, &c.x_final);
    assert!(d < 1e-6, "{d:e}");
}

/// The method runs where the KKT-based methods report the rank deficiency.
#[test]
fn redundant_mechanisms_run_at_round_off() {
    let fb = RedundantFourBar::default();
    let (q, qd) = fb.state(1.0, 0.0).unwrap();
    let tr = run_redundant(&fb, &q, &qd, ProjectorConfig::default(), None).unwrap();
    assert!(
        tr.stats.max_phi <= 1e-12 && tr.stats.max_phidot <= 1e-12,
        "{:?}",
        tr.stats
    );
    // λ at the outputs: minimum norm, so (for the redundant row a combination of rows 0, 1)
    // it has no component along the null space of Aᵀ: λ · (cos γ, sin γ, −1) = 0
    let g = fb.redundant_direction;
    for lam in &tr.lambda {
        let along = lam[0] * g.cos() + lam[1] * g.sin() - lam[2];
        assert!(along.abs() <= 1e-9 * (1.0 + norm(lam)), "{lam:?}");
    }
    let e = contour_papers::kovecses::relative_energy_drift(&fb, &tr);
    assert!(e < 1e-6, "{e:e}");
    let baumgarte = contour::projection::BaumgarteGains::critical(2.0).unwrap();
    // the KKT-based methods take the rank-revealing solve and follow the projector method's
    // motion (no corrections: their drift is the integrator's, 5e-5 rad after 10 s)
    for m in [Method::Direct, Method::Baumgarte(baumgarte)] {
        let r = run_redundant(&fb, &q, &qd, ProjectorConfig::default(), Some(m)).unwrap();
        assert!(
            r.stats.rank_revealing_evals >= r.stats.f_evals,
            "{:?}",
            r.stats
        );
        let d =
            r.q.iter()
                .zip(&tr.q)
                .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
                .fold(0.0f64, f64::max);
        assert!(d < 1e-3, "{d:e}");
    }
    // Keerthi's perturbation approach counts the rank (2 of 3 rows on N = 3), not the rows,
    // and follows the same motion
    let r = run_redundant(
        &fb,
        &q,
        &qd,
        ProjectorConfig::default(),
        Some(Method::Perturbation(Default::default())),
    )
    .unwrap();
    let d =
        r.q.iter()
            .zip(&tr.q)
            .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
            .fold(0.0f64, f64::max);
    assert!(d < 1e-3, "{d:e}");
    let pg = RedundantParallelogram::default();
    let (q, qd) = pg.state(0.4, 0.0);
    let cfg = ProjectorConfig {
        rank_rtol: RedundantParallelogram::RANK_RTOL,
        ..ProjectorConfig::default()
    };
    let tr = run_redundant(&pg, &q, &qd, cfg, None).unwrap();
    assert!(
        tr.stats.max_phi <= 1e-12 && tr.stats.max_phidot <= 1e-12,
        "{:?}",
        tr.stats
    );
    let e = contour_papers::kovecses::relative_energy_drift(&pg, &tr);
    assert!(e < 1e-6, "{e:e}");
    // the linkage really moves (released at 0.4 rad it swings through the bottom)
    let th_min = tr.q.iter().map(|q| q[0]).fold(f64::INFINITY, f64::min);
    assert!(th_min < -2.0, "{th_min}");
    let r = contour::projection::Simulation::new(&pg, &q, &qd, 0.0, 1.0)
        .method(Method::Direct)
        .dynamics(contour::model::DynamicsOptions {
            rank_deficiency: contour::model::RankDeficiency::Error,
            ..Default::default()
        })
        .run()
        .map_err(ProjectionError::into_cause);
    assert!(
        matches!(
            r,
            Err(ProjectionError::Model(ModelError::RankDeficientJacobian {
                rank: 5,
                rows: 6,
                ..
            }))
        ),
        "{r:?}"
    );
}

/// Counts of (35) and (36): with a fixed count exactly that many corrections; to a tolerance,
/// (36) converges in fewer corrections (quadratically) than the frozen directions of (35),
/// and (35) reuses the filtering's projectors (one evaluation per step).
#[test]
fn correction_counts() {
    let c35 = run_arm(
        Method::Projector(correction_comparison_config(
            ConfigurationCorrection::QuasiIterative,
        )),
        Integrator::dopri5(),
        1e-5,
    )
    .unwrap();
    let c36 = run_arm(
        Method::Projector(correction_comparison_config(
            ConfigurationCorrection::Iterative,
        )),
        Integrator::dopri5(),
        1e-5,
    )
    .unwrap();
    for c in [&c35, &c36] {
        assert!(c.stats.max_phi <= 1e-13, "{:e}", c.stats.max_phi);
    }
    assert!(
        c35.stats.configuration_corrections > 3 * c36.stats.configuration_corrections,
        "{} vs {}",
        c35.stats.configuration_corrections,
        c36.stats.configuration_corrections
    );
    assert_eq!(c35.stats.projector_evaluations, c35.stats.steps + 1);
    assert_eq!(
        c36.stats.projector_evaluations,
        c36.stats.configuration_corrections + c36.stats.steps
    );
    // the paper's open loop with (35): two corrections leave a visible residual, (36) none
    let f35 = run_arm(
        Method::Projector(ProjectorConfig::quasi_iterative()),
        Integrator::dopri5(),
        1e-5,
    )
    .unwrap();
    assert_eq!(f35.stats.configuration_corrections, 2 * f35.stats.steps);
    assert!(f35.stats.max_phi > 1e-10, "{:e}", f35.stats.max_phi);
    // no correction, filtering only: φ drifts, A q̇ stays at round-off
    let cfg = ProjectorConfig {
        correction: ConfigurationCorrection::Off,
        ..ProjectorConfig::default()
    };
    let f0 = run_arm(Method::Projector(cfg), Integrator::dopri5(), 1e-5).unwrap();
    assert_eq!(f0.stats.configuration_corrections, 0);
    assert!(
        f0.stats.max_phi > 1e-8 && f0.stats.max_phidot < 1e-12,
        "{:?}",
        f0.stats
    );
}

/// Any integrator: ABM, RKG, DOPRI5 and the BDF all keep the Keerthi robot on the manifold.
#[test]
fn any_integrator() {
    use contour_papers::keerthi::run_case;
    for integ in [
        Integrator::abm(),
        Integrator::rkg(),
        Integrator::dopri5(),
        Integrator::bdf(),
    ] {
        let tr = run_case(
            2,
            Method::Projector(ProjectorConfig::default()),
            integ.clone(),
            1e-4,
            5.0,
            vec![1.0, 2.5, 5.0],
        )
        .unwrap();
        assert!(
            tr.stats.max_phi <= 1e-14 && tr.stats.max_phidot <= 1e-14,
            "{}: {:?}",
            integ.name(),
            tr.stats
        );
        assert_eq!(tr.times, vec![1.0, 2.5, 5.0]);
        assert_eq!(tr.method, "projector");
        // corrected outputs are on the manifold too
        let sys = contour_papers::keerthi::keerthi_system();
        for (q, qd) in tr.q.iter().zip(&tr.qd) {
            let (p, v) = contour::model::constraint_residuals(&sys, 0.0, q, qd).unwrap();
            assert!(p <= 1e-14 && v <= 1e-14, "{p:e} {v:e}");
        }
    }
    // an explicit ODE has no algebraic components
    assert!(matches!(
        run_case(
            1,
            Method::Projector(ProjectorConfig::default()),
            Integrator::Bdf(contour::ode::BdfConfig::default().with_algebraic(vec![true; 6])),
            1e-4,
            1.0,
            vec![]
        ),
        Err(ProjectionError::Ode(
            contour::ode::OdeError::InvalidParameter {
                name: "algebraic",
                ..
            }
        ))
    ));
}
