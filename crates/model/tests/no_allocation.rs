//! The per-step routines of `ConstrainedDynamics` do not touch the heap once
//! the workspace exists (ARCHITECTURE.md, "Rules that keep it fast").
//!
//! A per-thread counting allocator (`allocation-counter`, safe to install: the
//! unsafe `GlobalAlloc` impl lives in that crate) records the allocations of the
//! measuring thread only, so libtest's threads cannot pollute the count (issue 11).

use contour_linalg::KktMethod;
use contour_model::models::{KeerthiControlLaw, KeerthiRobot, SliderCrank, KEERTHI_IC2};
use contour_model::{Baumgarte, ConstrainedDynamics, DynamicsOptions, WithController};
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
fn constrained_dynamics_does_not_allocate_per_call() {
    let robot = WithController::new(KeerthiRobot::default(), KeerthiControlLaw::default());
    let sc = SliderCrank::default();
    let mut rs = ConstrainedDynamics::new(&robot);
    let mut lu = ConstrainedDynamics::with_options(
        &robot,
        DynamicsOptions {
            method: KktMethod::FullLu,
            ..Default::default()
        },
    )
    .unwrap();
    let mut bg = ConstrainedDynamics::with_options(
        &sc,
        DynamicsOptions {
            baumgarte: Some(Baumgarte::critical(2.0)),
            ..Default::default()
        },
    )
    .unwrap();
    let q = KEERTHI_IC2.q;
    let qd = [0.1, -0.2, 0.3];
    let (qs, qds) = sc.state(0.4, 2.0);
    let (mut qdd, mut lambda) = ([0.0; 3], [0.0; 2]);
    let u = [0.1, 29.0, 0.2];
    let mut run = |n: usize| {
        for k in 0..n {
            let t = k as f64 * 0.01;
            rs.accelerations(&robot, t, &q, &qd, &mut qdd, &mut lambda)
                .unwrap();
            lu.accelerations(&robot, t, &q, &qd, &mut qdd, &mut lambda)
                .unwrap();
            rs.contact_force(&robot, t, &q, &qd, &mut lambda).unwrap();
            rs.contact_force_with_input(&robot, t, &q, &qd, &u, &mut lambda)
                .unwrap();
            rs.unconstrained_accelerations(&robot, t, &q, &qd, &mut qdd)
                .unwrap();
            bg.accelerations(&sc, t, &qs, &qds, &mut qdd, &mut lambda)
                .unwrap();
        }
    };
    assert_counter_live();
    run(2); // warm-up (lazy one-time initialisation inside dependencies, if any)
    let stats = allocation_counter::measure(|| run(100));
    assert_eq!(stats.count_total, 0, "{stats:?}");
    assert!(lambda.iter().all(|x| x.is_finite()));
}
