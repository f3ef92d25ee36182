//! The per-step routines of `ConstrainedDynamics` and of kinematic trees (CRBA, RNEA, ABA,
//! closure rows, FDgq) do not touch the heap once the workspace exists (ARCHITECTURE.md,
//! "Rules that keep it fast"; a tree's workspaces are allocated by its first calls).
//!
//! A per-thread counting allocator (`allocation-counter`, safe to install: the
//! unsafe `GlobalAlloc` impl lives in that crate) records the allocations of the
//! measuring thread only, so libtest's threads cannot pollute the count.

use contour_linalg::KktMethod;
use contour_model::explicit::ExplicitDynamics;
use contour_model::models::Planar2g;
use contour_model::models::{
    arm7_initial_q, ssrms_arm_tip_held, KeerthiControlLaw, KeerthiRobot, SliderCrank, KEERTHI_IC2,
};
use contour_model::tree::KinematicTree;
use contour_model::{Baumgarte, ConstrainedDynamics, DynamicsOptions, Mechanism, WithController};
use faer::Mat;

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

/// `run(n)` (n calls of everything measured) allocates nothing once warmed up: the counter is
/// checked live first, then `run(2)` warms up (lazy one-time initialisation inside
/// dependencies, if any) and `run(100)` is counted.
fn assert_no_allocation(mut run: impl FnMut(usize)) {
    assert_counter_live();
    run(2);
    let stats = allocation_counter::measure(|| run(100));
    assert_eq!(stats.count_total, 0, "{stats:?}");
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
    assert_no_allocation(&mut run);
    assert!(lambda.iter().all(|x| x.is_finite()));
}

#[test]
fn tree_algorithms_do_not_allocate_per_call() {
    let planar = KinematicTree::planar_with_gravity(20, 9.81);
    let arm = ssrms_arm_tip_held();
    let p2g = Planar2g::default();
    let mut fdgq = ExplicitDynamics::new(&p2g, &p2g).unwrap();
    let mut m20 = Mat::<f64>::zeros(20, 20);
    let mut m7 = Mat::<f64>::zeros(7, 7);
    let mut j = Mat::<f64>::zeros(3, 7);
    let q20 = [0.1; 20];
    let mut h20 = [0.0; 20];
    let q7 = arm7_initial_q();
    let qd7 = [0.01; 7];
    let (mut h7, mut phi, mut rho) = ([0.0; 7], [0.0; 3], [0.0; 3]);
    let mut tau = [0.0; 7];
    let mut qdd2 = [0.0; 2];
    let (mut qdd20, mut qdd7) = ([0.0; 20], [0.0; 7]);
    let mut cd = ConstrainedDynamics::new(&planar);
    let mut run = |n: usize| {
        for _ in 0..n {
            planar.mass_matrix(&q20, m20.as_mut());
            planar.bias_forces(&q20, &q20, &mut h20);
            arm.mass_matrix(&q7, m7.as_mut());
            arm.bias_forces(&q7, &qd7, &mut h7);
            arm.constraints(0.0, &q7, &mut phi);
            arm.constraint_jacobian(0.0, &q7, j.as_mut());
            arm.constraint_accel_bias(0.0, &q7, &qd7, &mut rho);
            arm.tree()
                .inverse_dynamics(&q7, &qd7, &qd7, &mut tau)
                .unwrap();
            let _ = arm.kinetic_energy(&q7, &qd7);
            planar
                .forward_dynamics(&q20, &q20, &h20, &mut qdd20)
                .unwrap();
            arm.tree()
                .forward_dynamics(&q7, &qd7, &tau, &mut qdd7)
                .unwrap();
            cd.accelerations(&planar, 0.0, &q20, &q20, &mut qdd20, &mut [])
                .unwrap();
            fdgq.accelerations(&p2g, &p2g, 0.0, &[0.3, 0.5], &[0.1, 0.2], &mut qdd2)
                .unwrap();
        }
    };
    assert_no_allocation(&mut run);
    assert!(h7.iter().chain(&rho).chain(&qdd2).all(|x| x.is_finite()));
}

#[test]
fn centroidal_quantities_do_not_allocate_per_call() {
    use contour_model::spatial::{SpatialInertia, Transform};
    use contour_model::tree::Joint;
    let mut tree = KinematicTree::new("floating leg");
    let inertia = SpatialInertia::from_mass_com_inertia(
        1.0,
        [0.1, 0.0, -0.2],
        [[0.02, 0.0, 0.0], [0.0, 0.03, 0.0], [0.0, 0.0, 0.04]],
    );
    let base = tree
        .add_body("base", None, Joint::FreeFlyer, Transform::IDENTITY, inertia)
        .unwrap();
    let thigh = tree
        .add_body(
            "thigh",
            Some(base),
            Joint::RY,
            Transform::translation([0.2, 0.0, 0.0]),
            inertia,
        )
        .unwrap();
    tree.add_body(
        "ankle",
        Some(thigh),
        Joint::Spherical,
        Transform::translation([0.0, 0.0, -0.3]),
        inertia,
    )
    .unwrap();
    let (nq, nv) = (tree.nq(), tree.nv());
    let mut q = vec![0.0; nq];
    tree.neutral(&mut q).unwrap();
    let v = vec![0.3; nv];
    let mut cd = tree.centroidal_data();
    let (mut ag, mut jc) = (Mat::<f64>::zeros(6, nv), Mat::<f64>::zeros(3, nv));
    let mut run = |n: usize| {
        for _ in 0..n {
            tree.com(&mut cd, &q).unwrap();
            tree.com_velocity(&mut cd, &q, &v).unwrap();
            tree.com_jacobian(&mut cd, &q, jc.as_mut()).unwrap();
            tree.centroidal_momentum_matrix(&mut cd, &q, ag.as_mut())
                .unwrap();
            tree.centroidal_momentum(&mut cd, &q, &v).unwrap();
        }
    };
    assert_no_allocation(&mut run);
}
