//! Work–precision data of Andrews' squeezer, every method × integrator the driver
//! accepts, τ = 1e-3 … 1e-11 (`ErrorControl::mixed`): final position error against the IVP
//! test set's reference (component-wise relative, max), N_f, and wall time (best of 5).
//! Writes `andrews_work_precision.csv` into the folder given as the first argument
//! (default `benches/peers/results`); `benches/peers/work_precision_figure.py` draws the figure.
//! Not run in CI (timings); run with `cargo run --release -p contour-benches --bin
//! andrews_work_precision`.

use contour::model::models::{AndrewsSqueezer, ANDREWS_Q0, ANDREWS_REFERENCE_Q_AT_0_03};
use contour_benches::work_precision::sweep;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "benches/peers/results".into());
    std::fs::create_dir_all(&dir)?;
    let path = format!("{dir}/andrews_work_precision.csv");
    let mut out = std::fs::File::create(&path)?;
    let a = AndrewsSqueezer::default();
    // IVP test set (Mazzia & Magherini, release 2.4), `andrews.f`, `SOLN`: q(0.03); no
    // component is near zero, so the error is component-wise relative (floor 0).
    sweep(
        &a,
        &ANDREWS_Q0,
        &[0.0; 7],
        0.03,
        &ANDREWS_REFERENCE_Q_AT_0_03,
        0.0,
        &mut out,
    )?;
    eprintln!("wrote {path}");
    Ok(())
}
