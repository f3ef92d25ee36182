//! The per-step routines of the projector method do not touch the heap once their workspaces
//! exist: the accelerations (29)–(31) and one configuration correction + velocity filtering
//! ([`ConstraintFilter::apply`]) with (35) and with (36), on the redundant four-bar and on
//! Keerthi's robot. A per-thread counting allocator (`allocation-counter`) records the
//! allocations of the measuring thread only (issue 11).

use contour_linalg::DEFAULT_RANK_RTOL;
use contour_model::models::RedundantFourBar;
use contour_model::models::{KeerthiControlLaw, KeerthiRobot};
use contour_model::Mechanism;
use contour_model::WithController;
use contour_projection::{
    ConfigurationCorrection, ConstraintFilter, CorrectionCount, ProjectionDynamics, ProjectorConfig,
};
/// The counter is live (so a zero below cannot pass vacuously): one box is one allocation.
fn assert_counter_live() {
    let info = allocation_counter::measure(|| {
        std::hint::black_box(Box::new(1.0f64));
    });
    assert_eq!(
        info.count_total, 1,
        "allocation counter not installed: {info:?}"
    );
}

fn exercise<M: Mechanism>(mech: &M, x0: &[f64], cfg: ProjectorConfig) {
    let n = mech.dof();
    let mut pd = ProjectionDynamics::new(mech, DEFAULT_RANK_RTOL).unwrap();
    let mut f = ConstraintFilter::new(mech, &cfg).unwrap();
    f.set_previous(0.0, x0).unwrap();
    let mut x = x0.to_vec();
    let (mut qdd, mut lam) = (vec![0.0; n], vec![0.0; mech.n_constraints()]);
    let mut step = |k: usize, x: &mut Vec<f64>| {
        let t = 1e-3 * k as f64;
        pd.accelerations(mech, t, &x[..n], &x[n..], &mut qdd, &mut lam)
            .unwrap();
        // an explicit Euler step, then the correction
        for i in 0..n {
            x[i] += 1e-3 * x[n + i];
            x[n + i] += 1e-3 * qdd[i];
        }
        f.apply(mech, t + 1e-3, x).unwrap();
    };
    for k in 0..3 {
        step(k, &mut x);
    }
    let st = allocation_counter::measure(|| {
        for k in 3..30 {
            step(k, &mut x);
        }
    });
    assert_eq!(
        st.count_total,
        0,
        "allocations inside projector steps ({}): {st:?}",
        mech.name()
    );
}

#[test]
fn projector_steps_do_not_allocate() {
    assert_counter_live();
    let fb = RedundantFourBar::default();
    let (q, qd) = fb.state(1.0, 0.5).unwrap();
    let x0: Vec<f64> = q.iter().chain(&qd).copied().collect();
    let sys = WithController::new(KeerthiRobot::default(), KeerthiControlLaw::default());
    let cs = contour_model::consistent_state(
        &sys,
        0.0,
        &[0.4, 0.3, 0.2],
        &[0.1, -0.2, 0.05],
        &Default::default(),
    )
    .unwrap();
    let xk: Vec<f64> = cs.q.iter().chain(&cs.qd).copied().collect();
    for cfg in [
        ProjectorConfig::default(),
        ProjectorConfig::quasi_iterative(),
        ProjectorConfig {
            correction: ConfigurationCorrection::Iterative,
            corrections: CorrectionCount::ToTolerance {
                tol: 1e-13,
                max: 20,
            },
            velocity_filtering: contour_projection::VelocityFiltering::AtPreviousConfiguration,
            ..ProjectorConfig::default()
        },
    ] {
        exercise(&fb, &x0, cfg);
        exercise(&sys, &xk, cfg);
    }
}
