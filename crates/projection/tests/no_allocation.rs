//! The per-step routines do not touch the heap once their workspaces exist (ARCHITECTURE.md,
//! "Rules that keep it fast"):
//!
//! * one step of Procedure P1 — an ABM or a BDF step ([`BdfOde`]: the variable-order BDF on
//!   `ẋ − f(x) = 0` with a finite-difference iteration matrix) on the counted right-hand side,
//!   the manifold correction (3.5)–(3.7) and `replace_y` (for the BDF a history shift) — and
//!   the constraint monitor; plain direct BDF steps; in the BDF runs over enough steps that
//!   iteration matrices are recomputed and refactored inside the measured region;
//! * the projector method: the accelerations (29)–(31) and one configuration correction +
//!   velocity filtering ([`ConstraintFilter::apply`]) with (35) and with (36), on the
//!   redundant four-bar and on Keerthi's robot;
//! * the LU of `contour-linalg`.
//!
//! A per-thread counting allocator (`allocation-counter`) records the allocations of the
//! measuring thread only. A process-wide counter would also see libtest's
//! main thread, which under load reached its first blocking `mpsc::Receiver::recv` (a lazily
//! allocated `mpmc::Context`) inside the measured region and failed these tests by chance.

use contour_linalg::DEFAULT_RANK_RTOL;
use contour_model::models::{KeerthiControlLaw, KeerthiRobot, RedundantFourBar, KEERTHI_IC2};
use contour_model::{consistent_state, DynamicsOptions, Mechanism, WithController};
use contour_ode::{AbmConfig, AdamsBashforthMoulton, Advance, BdfConfig, Stepper};
use contour_projection::{
    BdfOde, ConfigurationCorrection, ConstrainedRhs, ConstraintFilter, ConstraintMonitor,
    CorrectionCount, ErrorControl, ManifoldProjection, ProjectionDynamics, ProjectorConfig,
};

type Keerthi = WithController<KeerthiRobot, KeerthiControlLaw>;

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

/// Keerthi's robot with its control law and IC2 made consistent: `(system, x0)`.
fn keerthi_ic2() -> (Keerthi, Vec<f64>) {
    let sys = WithController::new(KeerthiRobot::default(), KeerthiControlLaw::default());
    let cs = consistent_state(
        &sys,
        0.0,
        &KEERTHI_IC2.q,
        &KEERTHI_IC2.qd,
        &Default::default(),
    )
    .unwrap();
    let x0 = cs.q.iter().chain(&cs.qd).copied().collect();
    (sys, x0)
}

/// `warm` P1 steps of `s`, then `measured` more inside the counter: their allocation count.
fn p1_allocations<'m, S: Advance<ConstrainedRhs<'m, Keerthi>>>(
    sys: &'m Keerthi,
    s: &mut S,
    ec: ErrorControl,
    warm: usize,
    measured: usize,
) -> u64 {
    let mut rhs = ConstrainedRhs::new(sys, DynamicsOptions::default()).unwrap();
    let mut proj = ManifoldProjection::new(sys, ec, &Default::default()).unwrap();
    let mut mon = ConstraintMonitor::new(sys);
    let mut xnew = vec![0.0; 6];
    let mut step = |s: &mut S, rhs: &mut ConstrainedRhs<'m, Keerthi>| {
        let info = s.step(rhs).unwrap();
        let o = proj.project(sys, info.t, s.y(), &mut xnew).unwrap();
        assert!(o.converged && o.norm <= 0.5);
        s.replace_y(rhs, &xnew).unwrap();
        let (p, _) = mon.violations(sys, info.t, s.y());
        assert!(p < 1e-15);
    };
    for _ in 0..warm {
        step(s, &mut rhs);
    }
    assert_counter_live();
    let st = allocation_counter::measure(|| {
        for _ in 0..measured {
            step(s, &mut rhs);
        }
    });
    st.count_total
}

#[test]
fn a_perturbation_step_does_not_allocate() {
    let (sys, x0) = keerthi_ic2();
    let sys = &sys;
    let ec = ErrorControl::absolute(1e-6);
    let tol = ec.scaled(0.5).to_ode(6);
    let mut s = AdamsBashforthMoulton::new(0.0, &x0, tol, AbmConfig::default()).unwrap();
    let n = p1_allocations(sys, &mut s, ec, 5, 50);
    assert_eq!(n, 0, "allocations inside P1 steps (ABM)");
}

#[test]
fn bdf_steps_do_not_allocate() {
    let (sys, x0) = keerthi_ic2();
    let sys = &sys;
    let ec = ErrorControl::absolute(1e-6);
    // Procedure P1 with the BDF (the first step starts the BDF: ẋ₀ is stored).
    let mut s = BdfOde::new(0.0, &x0, ec.scaled(0.5).to_ode(6), BdfConfig::default()).unwrap();
    s.set_t_stop(Some(5.0));
    let warm_up = p1_allocations(sys, &mut s, ec, 5, 0);
    assert_eq!(warm_up, 0);
    let jac_before = s.stats().jacobian_evals;
    let n = p1_allocations(sys, &mut s, ec, 0, 80);
    assert_eq!(n, 0, "allocations inside P1 steps with the BDF");
    assert!(
        s.stats().jacobian_evals > jac_before,
        "no iteration matrix inside the measured region: {:?}",
        s.stats()
    );

    // Direct steps with the BDF.
    let mut rhs = ConstrainedRhs::new(sys, DynamicsOptions::default()).unwrap();
    let mut d = BdfOde::new(0.0, &x0, ec.to_ode(6), BdfConfig::default()).unwrap();
    d.set_t_stop(Some(5.0));
    for _ in 0..5 {
        d.step(&mut rhs).unwrap();
    }
    let jac_before = d.stats().jacobian_evals;
    let st = allocation_counter::measure(|| {
        for _ in 0..80 {
            d.step(&mut rhs).unwrap();
        }
    });
    assert_eq!(
        st.count_total, 0,
        "allocations inside direct BDF steps: {st:?}"
    );
    assert!(d.stats().jacobian_evals > jac_before, "{:?}", d.stats());
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
    let cs = consistent_state(
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

/// The LU of `contour-linalg` (the `J V₁` solves of the parametrization) factors and solves
/// in the storage allocated by `Lu::new`.
#[test]
fn lu_factor_and_solve_do_not_allocate() {
    let n = 4;
    let a = faer::Mat::from_fn(n, n, |i, j| {
        if i == j {
            4.0
        } else {
            1.0 / (1.0 + (i + 2 * j) as f64)
        }
    });
    let mut lu = contour_linalg::Lu::new(n);
    let mut b = vec![1.0; n];
    lu.factor(a.as_ref()).unwrap();
    lu.solve_in_place(&mut b);
    assert_counter_live();
    let st = allocation_counter::measure(|| {
        for _ in 0..20 {
            lu.factor(a.as_ref()).unwrap();
            b.fill(1.0);
            lu.solve_in_place(&mut b);
        }
    });
    assert_eq!(st.count_total, 0, "allocations inside Lu: {st:?}");
    assert!(b.iter().all(|v| v.is_finite()));
}
