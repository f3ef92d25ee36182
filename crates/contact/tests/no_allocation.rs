//! The contact simulator's time steps do not touch the heap: between events, a longer run
//! costs more steps but no more allocations than its extra outputs (ARCHITECTURE.md, "Rules
//! that keep it fast"). Allocations at events (segment restarts, event location, the
//! contact-set LCP) and the recorded outputs are allowed.
//!
//! Counted with the per-thread counter of `allocation-counter` (libtest's other threads do not
//! pollute it).

use contour_contact::test_models::BouncingBall;
use contour_contact::{simulate, ContactConfig, HuangSchemeConfig, ModernConfig, Scheme};

/// (allocations, steps) of a free fall from 1000 m over `t_end` s, outputs every 0.5 s.
fn free_fall(scheme: Scheme, t_end: f64) -> (u64, u64) {
    let ball = BouncingBall::default();
    let mut cfg = ContactConfig::new(t_end, scheme);
    cfg.output_dt = Some(0.5);
    let mut steps = 0;
    let info = allocation_counter::measure(|| {
        let tr = simulate(&ball, 0.0, &[1000.0], &[0.0], cfg).unwrap();
        assert!(tr.events.is_empty(), "no contact in free fall");
        steps = tr.stats.steps;
    });
    (info.count_total, steps)
}

#[test]
fn free_flight_steps_do_not_allocate() {
    // the counter is live (a zero difference below cannot pass vacuously)
    let live = allocation_counter::measure(|| {
        std::hint::black_box(Box::new(1.0f64));
    });
    assert_eq!(live.count_total, 1, "allocation counter not installed");
    let schemes = [
        Scheme::Modern(ModernConfig {
            h_max: 1e-3,
            ..ModernConfig::default()
        }),
        Scheme::Huang(HuangSchemeConfig {
            h_free: 1e-3,
            ..HuangSchemeConfig::default()
        }),
    ];
    for scheme in schemes {
        let (a1, s1) = free_fall(scheme, 1.0);
        let (a4, s4) = free_fall(scheme, 4.0);
        eprintln!("{scheme:?}: {s1} steps {a1} allocations; {s4} steps {a4} allocations");
        assert!(s4 >= s1 + 2500, "{s1} -> {s4} steps");
        // 6 more outputs (q, q̇, λ rows and amortized growth of the output vectors)
        assert!(
            a4 <= a1 + 64,
            "{a1} -> {a4} allocations for {} more steps",
            s4 - s1
        );
    }
}
