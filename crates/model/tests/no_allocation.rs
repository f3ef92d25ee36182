//! The per-step routines of `ConstrainedDynamics` do not touch the heap once
//! the workspace exists (ARCHITECTURE.md, "Rules that keep it fast").
//!
//! A counting global allocator (`stats_alloc`, safe to install: the unsafe
//! `GlobalAlloc` impl lives in that crate) records every allocation; this file
//! holds a single test so that no other test thread allocates meanwhile.

use contour_linalg::KktMethod;
use contour_model::models::{KeerthiControlLaw, KeerthiRobot, SliderCrank, KEERTHI_IC2};
use contour_model::{Baumgarte, ConstrainedDynamics, DynamicsOptions, WithController};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

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
    run(2); // warm-up (lazy one-time initialisation inside dependencies, if any)
    let region = Region::new(GLOBAL);
    run(100);
    let stats = region.change();
    assert_eq!(stats.allocations, 0, "{stats:?}");
    assert_eq!(stats.reallocations, 0, "{stats:?}");
    assert!(lambda.iter().all(|x| x.is_finite()));
}
