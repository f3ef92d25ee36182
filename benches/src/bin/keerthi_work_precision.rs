//! Work–precision data of Keerthi's robot with its control law (4.5) from IC2 (made
//! consistent with `contour_model::consistent_state`), T = 5 s: every
//! method × integrator the driver accepts, τ = 1e-3 … 1e-11 (`ErrorControl::mixed`).
//!
//! The reference q(5) is computed here, not printed anywhere: the direct method with DOPRI5 at
//! τ = 1e-14 and with the ABM at τ = 1e-13 must agree to 1e-11 (else the binary stops); the
//! scipy script (`benches/peers/keerthi_scipy.py`) checks it a third time with DOP853 at
//! rtol = 1e-13. Writes `keerthi_ic2_reference.csv` (the consistent x0 and q(5)) and
//! `keerthi_work_precision.csv` into the folder given as the first argument (default
//! `benches/peers/results`). Not run in CI (timings); run with `cargo run --release -p
//! contour-benches --bin keerthi_work_precision`.

use std::io::Write;

use contour::model::models::{KeerthiControlLaw, KeerthiRobot, KEERTHI_IC2};
use contour::model::{consistent_state, ConsistentStateOptions, WithController};
use contour::prelude::*;
use contour_benches::work_precision::{position_error, sweep};

const T_END: f64 = 5.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "benches/peers/results".into());
    std::fs::create_dir_all(&dir)?;
    let robot = WithController::new(KeerthiRobot::default(), KeerthiControlLaw::default());
    let cs = consistent_state(
        &robot,
        0.0,
        &KEERTHI_IC2.q,
        &KEERTHI_IC2.qd,
        &ConsistentStateOptions::default(),
    )?;
    let reference = |integ: Integrator, tau: f64| -> Result<Vec<f64>, ProjectionError> {
        let tr = Simulation::new(&robot, &cs.q, &cs.qd, 0.0, T_END)
            .method(Method::Direct)
            .integrator(integ)
            .error_control(ErrorControl::mixed(tau))
            .run()?;
        Ok(tr.x_final[..3].to_vec())
    };
    let r1 = reference(Integrator::dopri5(), 1e-14)?;
    let r2 = reference(Integrator::abm(), 1e-13)?;
    let agree = position_error(&r1, &r2, 1.0);
    eprintln!("reference q(5) = {r1:?}; DOPRI5 1e-14 vs ABM 1e-13: {agree:.1e}");
    if agree > 1e-11 {
        return Err(format!("the two reference runs differ by {agree:e}").into());
    }
    let path = format!("{dir}/keerthi_ic2_reference.csv");
    let mut f = std::fs::File::create(&path)?;
    writeln!(f, "what,0,1,2")?;
    for (what, v) in [("q0", &cs.q), ("qd0", &cs.qd), ("q_at_5", &r1)] {
        writeln!(f, "{what},{:e},{:e},{:e}", v[0], v[1], v[2])?;
    }
    let path = format!("{dir}/keerthi_work_precision.csv");
    let mut out = std::fs::File::create(&path)?;
    // q(5) ≈ (0.44, 0.30, 0.20): relative to max(|q_i|, 0.1)
    sweep(&robot, &cs.q, &cs.qd, T_END, &r1, 0.1, &mut out)?;
    eprintln!("wrote {path}");
    Ok(())
}
