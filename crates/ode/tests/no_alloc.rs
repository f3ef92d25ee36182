//! `Stepper::step` does not allocate after construction: a counting global allocator
//! (stats_alloc) measures the allocations of 200 steps of ABM, RK-Gill and DOPRI5 on Kepler,
//! including `replace_y` and `dense`. One test function, so no other test thread allocates
//! concurrently.

use std::alloc::System;

use contour_ode::test_models::{ExactSolution, Kepler};
use contour_ode::*;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn count_allocations<S: Advance<Kepler>>(name: &str, mut s: S) {
    let mut f = Kepler { e: 0.5 };
    let mut buf = vec![0.0; 4];
    let mut y = vec![0.0; 4];
    s.step(&mut f).unwrap(); // first step: initialization
    let region = Region::new(GLOBAL);
    for i in 0..200 {
        s.step(&mut f).unwrap();
        let t = 0.5 * (s.t_prev() + s.t());
        s.dense(t, &mut buf);
        if i % 50 == 0 {
            y.copy_from_slice(s.y());
            s.replace_y(&mut f, &y).unwrap();
        }
    }
    let change = region.change();
    println!("{name}: {change:?}");
    assert_eq!(change.allocations, 0, "{name} allocated");
    assert_eq!(change.reallocations, 0, "{name} reallocated");
}

#[test]
fn steps_do_not_allocate() {
    // The counter works: a fresh vector is seen.
    let region = Region::new(GLOBAL);
    let v = std::hint::black_box(vec![1.0f64; 16]);
    assert!(region.change().allocations >= 1);
    drop(v);
    let p = Kepler { e: 0.5 };
    let tol = Tolerances::new(1e-9, 1e-9);
    count_allocations(
        "abm",
        AdamsBashforthMoulton::new(0.0, &p.y0(), tol.clone(), AbmConfig::default()).unwrap(),
    );
    count_allocations(
        "dopri5",
        DormandPrince54::new(0.0, &p.y0(), tol.clone(), DormandPrinceConfig::default()).unwrap(),
    );
    count_allocations(
        "rkg",
        RungeKuttaGill::new(0.0, &p.y0(), tol, RungeKuttaGillConfig::default()).unwrap(),
    );
}
