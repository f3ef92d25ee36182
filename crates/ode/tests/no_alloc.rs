//! `Stepper::step` does not allocate after construction: a counting global allocator
//! (`allocation-counter`, per thread) measures the allocations of 200 steps of ABM, RK-Gill and DOPRI5 on Kepler,
//! and of BDF (variable order, finite-difference Jacobians, LU), Huang's BDF2 and the SIRK on
//! Kepler through `OdeAsDae` and of BDF on the GGL pendulum (index 2), including `replace_y`
//! and `dense`. The counter sees the measuring thread only, so other threads (libtest's
//! own) cannot pollute it.

use contour_ode::test_models::{ExactSolution, Kepler, PendulumGgl};
use contour_ode::*;
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

/// Measures `steps` steps of `s` on `f` after the first (initializing) one, each with a
/// `dense` evaluation and every 50th with a `replace_y`: none may allocate.
fn count_allocations<F, S: Advance<F>>(name: &str, mut s: S, mut f: F, steps: usize) -> Stats {
    let n = s.dim();
    let mut buf = vec![0.0; n];
    let mut y = vec![0.0; n];
    s.step(&mut f).unwrap(); // first step: initialization
    let change = allocation_counter::measure(|| {
        for i in 0..steps {
            s.step(&mut f).unwrap();
            let t = 0.5 * (s.t_prev() + s.t());
            s.dense(t, &mut buf).unwrap();
            if i % 50 == 0 {
                y.copy_from_slice(s.y());
                s.replace_y(&mut f, &y).unwrap();
            }
        }
    });
    println!("{name}: {change:?}, {:?}", s.stats());
    assert_eq!(change.count_total, 0, "{name} allocated");
    *s.stats()
}

/// [`count_allocations`] for an implicit method, which must also have formed a Jacobian.
fn count_allocations_dae<F: DaeResidual, S: Advance<F>>(name: &str, s: S, f: F, steps: usize) {
    let stats = count_allocations(name, s, f, steps);
    assert!(
        stats.jacobian_evals > 0,
        "{name}: the Jacobian path was exercised"
    );
}

#[test]
fn steps_do_not_allocate() {
    assert_counter_live();
    let p = Kepler { e: 0.5 };
    let tol = Tolerances::new(1e-9, 1e-9);
    count_allocations(
        "abm",
        AdamsBashforthMoulton::new(0.0, &p.y0(), tol.clone(), AbmConfig::default()).unwrap(),
        p,
        200,
    );
    count_allocations(
        "dopri5",
        DormandPrince54::new(0.0, &p.y0(), tol.clone(), DormandPrinceConfig::default()).unwrap(),
        p,
        200,
    );
    count_allocations(
        "rkg",
        RungeKuttaGill::new(0.0, &p.y0(), tol.clone(), RungeKuttaGillConfig::default()).unwrap(),
        p,
        200,
    );
    let mut bdf = Bdf::new(0.0, &p.y0(), tol.clone(), BdfConfig::default()).unwrap();
    bdf.set_t_stop(Some(1e3));
    count_allocations_dae("bdf", bdf, OdeAsDae::new(p), 200);
    count_allocations_dae(
        "bdf2_huang",
        HuangBdf2::new(
            0.0,
            &p.y0(),
            tol.clone(),
            HuangBdf2Config {
                h: 1e-3,
                start: HuangStart::SinglyImplicitRk,
                ..Default::default()
            },
        )
        .unwrap(),
        OdeAsDae::new(p),
        200,
    );
    count_allocations_dae(
        "sirk",
        SinglyImplicitRk::new(
            0.0,
            &p.y0(),
            tol.clone(),
            SirkConfig {
                h: 1e-3,
                ..Default::default()
            },
        )
        .unwrap(),
        OdeAsDae::new(p),
        200,
    );
    let pend = PendulumGgl { g: 9.81 };
    let cfg = BdfConfig::default()
        .with_algebraic_excluded(pend.algebraic())
        .with_initial_derivative(pend.yp0(1.0));
    let mut bdf = Bdf::new(0.0, &pend.y0(1.0), Tolerances::new(1e-6, 1e-6), cfg).unwrap();
    bdf.set_t_stop(Some(100.0));
    count_allocations_dae("bdf_pendulum_ggl", bdf, pend, 200);
}
