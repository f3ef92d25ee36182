//! Shared helpers of the criterion benches (see `benches/`).

pub mod arm7_line;
pub mod planar3_line;
pub mod work_precision;

use std::hint::black_box;
use std::time::Instant;

/// µs per call of `f`: the fastest of 41 batches of ≥ 1 ms each. The bench machines are shared,
/// so the least-disturbed batch measures the code (a median of wall-clock batches there
/// measures the load). Used by the summary tables that print ratios from one sitting.
pub fn min_time_us<R>(mut f: impl FnMut() -> R) -> f64 {
    let mut iters = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..iters {
            black_box(f());
        }
        if t.elapsed().as_secs_f64() > 1e-3 {
            break;
        }
        iters *= 2;
    }
    (0..41)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iters {
                black_box(f());
            }
            t.elapsed().as_secs_f64() * 1e6 / iters as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// Moves `q` to a new state for the next timed call by flipping the last bit of `q[0]` (a
/// relative change of 1e-16): a kinematic tree keeps its joint transforms for the last `q`
/// (`KinematicTree` reuses them across CRBA, RNEA, ABA and closures at one state), so a bench
/// that called it at one fixed `q` would time the cache, not a run's evaluation, where `q`
/// changes every call.
pub fn next_state(q: &mut [f64]) {
    if let Some(x) = q.first_mut() {
        *x = f64::from_bits(x.to_bits() ^ 1);
    }
}

/// Every constraint method of the driver with its default configuration, Baumgarte's with the
/// critical gains of `baumgarte_delta` \[1/s\] (the benches that sweep them all).
pub fn every_method(
    baumgarte_delta: f64,
) -> Result<[contour::prelude::Method; 6], contour::prelude::ProjectionError> {
    use contour::prelude::*;
    Ok(Method::every(BaumgarteGains::critical(baumgarte_delta)?))
}

/// Every integrator of the driver with its default configuration: ABM, DOPRI5, BDF, RK-Gill.
pub fn every_integrator() -> [contour::prelude::Integrator; 4] {
    contour::prelude::Integrator::every()
}
