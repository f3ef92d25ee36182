//! The per-step routines do not touch the heap once their workspaces exist (ARCHITECTURE.md,
//! "Rules that keep it fast"): one step of Procedure P1 — an ABM step on the counted
//! right-hand side, the manifold correction (3.5)–(3.7) and `replace_y` — and the constraint
//! monitor. A per-thread counting allocator (`allocation-counter`) records the allocations of
//! the measuring thread only, so libtest's threads cannot pollute the count (issue 11).

use contour_model::models::KEERTHI_IC2;
use contour_model::models::{KeerthiControlLaw, KeerthiRobot};
use contour_model::WithController;
use contour_model::{consistent_state, DynamicsOptions};
use contour_ode::{AbmConfig, AdamsBashforthMoulton, Advance, Stepper};
use contour_projection::{ConstrainedRhs, ConstraintMonitor, ErrorControl, ManifoldProjection};
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

#[test]
fn a_perturbation_step_does_not_allocate() {
    let sys = WithController::new(KeerthiRobot::default(), KeerthiControlLaw::default());
    let cs = consistent_state(
        &sys,
        0.0,
        &KEERTHI_IC2.q,
        &KEERTHI_IC2.qd,
        &Default::default(),
    )
    .unwrap();
    let mut x0 = cs.q.clone();
    x0.extend_from_slice(&cs.qd);
    let ec = ErrorControl::absolute(1e-6);
    let mut rhs = ConstrainedRhs::new(&sys, DynamicsOptions::default()).unwrap();
    let mut proj = ManifoldProjection::new(&sys, ec, &Default::default()).unwrap();
    let mut mon = ConstraintMonitor::new(&sys);
    let mut s =
        AdamsBashforthMoulton::new(0.0, &x0, ec.scaled(0.5).to_ode(6), AbmConfig::default())
            .unwrap();
    let mut xnew = vec![0.0; 6];
    let mut step = |s: &mut AdamsBashforthMoulton, rhs: &mut ConstrainedRhs<'_, _>| {
        let info = s.step(rhs).unwrap();
        let o = proj.project(&sys, info.t, s.y(), &mut xnew).unwrap();
        assert!(o.converged && o.norm <= 0.5);
        s.replace_y(rhs, &xnew).unwrap();
        let (p, _) = mon.violations(&sys, info.t, s.y());
        assert!(p < 1e-15);
    };
    for _ in 0..5 {
        step(&mut s, &mut rhs); // warm-up
    }
    assert_counter_live();
    let st = allocation_counter::measure(|| {
        for _ in 0..50 {
            step(&mut s, &mut rhs);
        }
    });
    assert_eq!(st.count_total, 0, "allocations inside P1 steps: {st:?}");
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
