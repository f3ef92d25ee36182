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

/// Keerthi's robot with his control law from IC2 made consistent (`consistent_state`): the
/// start of the Table 4.2 runs that `whole_runs` and `whole_runs_bits` time and fingerprint.
pub fn keerthi_ic2_start() -> Result<
    (
        contour_papers::keerthi::KeerthiSystem,
        contour::model::ConsistentState,
    ),
    contour::model::ModelError,
> {
    use contour::model::{consistent_state, models::KEERTHI_IC2, ConsistentStateOptions};
    let keerthi = contour_papers::keerthi::keerthi_system();
    let k0 = consistent_state(
        &keerthi,
        0.0,
        &KEERTHI_IC2.q,
        &KEERTHI_IC2.qd,
        &ConsistentStateOptions::default(),
    )?;
    Ok((keerthi, k0))
}

/// The 7-joint arm with its loop at `arm7_initial_q` and a small motion made consistent
/// (`J q̇ = 0`): the state a run's evaluation sees, for the `kkt` bench and `kernel_loop`.
pub fn arm7_state(
    arm: &dyn contour::model::Mechanism,
) -> Result<contour::model::ConsistentState, contour::model::ModelError> {
    use contour::model::{consistent_state, models::arm7_initial_q, ConsistentStateOptions};
    consistent_state(
        arm,
        0.0,
        &arm7_initial_q(),
        &[0.02, -0.01, 0.015, 0.0, -0.02, 0.01, 0.03],
        &ConsistentStateOptions::default(),
    )
}
