//! The BDF path of the methods ([`BdfOde`]: the variable-order BDF on `ẋ − f(x) = 0` with a
//! finite-difference iteration matrix) does not touch the heap per step: Procedure P1 — a BDF
//! step on the counted right-hand side, the manifold correction (3.5)–(3.7) and `replace_y`
//! (history shift) — and plain direct steps, over enough steps that iteration matrices are
//! recomputed and refactored inside the measured region. A per-thread counting allocator
//! (`allocation-counter`) records the allocations of the measuring thread only. Issue 11: the
//! process-wide counter used before also saw libtest's main thread, which under load reached
//! its first blocking `mpsc::Receiver::recv` (a lazily allocated `mpmc::Context`) inside the
//! measured region and failed this test by chance.

use contour_model::models::KEERTHI_IC2;
use contour_model::models::{KeerthiControlLaw, KeerthiRobot};
use contour_model::WithController;
use contour_model::{consistent_state, DynamicsOptions};
use contour_ode::{Advance, BdfConfig, Stepper};
use contour_projection::{
    BdfOde, ConstrainedRhs, ConstraintMonitor, ErrorControl, ManifoldProjection,
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

#[test]
fn bdf_steps_do_not_allocate() {
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
    let mut xnew = vec![0.0; 6];

    // Procedure P1 with the BDF.
    let mut s = BdfOde::new(0.0, &x0, ec.scaled(0.5).to_ode(6), BdfConfig::default()).unwrap();
    s.set_t_stop(Some(5.0));
    let mut step = |s: &mut BdfOde, rhs: &mut ConstrainedRhs<'_, _>| {
        let info = s.step(rhs).unwrap();
        let o = proj.project(&sys, info.t, s.y(), &mut xnew).unwrap();
        assert!(o.converged && o.norm <= 0.5);
        s.replace_y(rhs, &xnew).unwrap();
        let (p, _) = mon.violations(&sys, info.t, s.y());
        assert!(p < 1e-15);
    };
    for _ in 0..5 {
        step(&mut s, &mut rhs); // warm-up (the first step starts the BDF: ẋ₀ is stored)
    }
    let jac_before = s.stats().jacobian_evals;
    assert_counter_live();
    let st = allocation_counter::measure(|| {
        for _ in 0..80 {
            step(&mut s, &mut rhs);
        }
    });
    assert_eq!(
        st.count_total, 0,
        "allocations inside P1 steps with the BDF: {st:?}"
    );
    assert!(
        s.stats().jacobian_evals > jac_before,
        "no iteration matrix inside the measured region: {:?}",
        s.stats()
    );

    // Direct steps with the BDF.
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
