//! Work–precision data of Andrews' squeezer (issue 13), every method × integrator the driver
//! accepts, τ = 1e-3 … 1e-11 (`ErrorControl::mixed`): final position error against the IVP
//! test set's reference (component-wise relative, max), N_f, and wall time (best of 5).
//! Writes `andrews_work_precision.csv` into the folder given as the first argument
//! (default `benches/peers/results`); `benches/peers/andrews_work_precision.py` draws the figure.
//! Not run in CI (timings); run with `cargo run --release -p contour-benches --bin
//! andrews_work_precision`.

use std::io::Write;
use std::time::Instant;

use contour::model::models::{AndrewsSqueezer, ANDREWS_Q0, ANDREWS_REFERENCE_Q_AT_0_03};
use contour::prelude::*;

/// IVP test set (Mazzia & Magherini, release 2.4), `andrews.f`, `SOLN`: q(0.03).
const REFERENCE_Q: [f64; 7] = ANDREWS_REFERENCE_Q_AT_0_03;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "benches/peers/results".into());
    std::fs::create_dir_all(&dir)?;
    let path = format!("{dir}/andrews_work_precision.csv");
    let mut out = std::fs::File::create(&path)?;
    writeln!(
        out,
        "method,integrator,tau,status,error,f_evals,steps,seconds"
    )?;
    let a = AndrewsSqueezer::default();
    let methods = contour_benches::every_method(100.0)?;
    let integrators = contour_benches::every_integrator();
    for m in &methods {
        for i in &integrators {
            for k in 3..=11 {
                let tau = 10f64.powi(-k);
                let sim = Simulation::new(&a, &ANDREWS_Q0, &[0.0; 7], 0.0, 0.03)
                    .method(m.clone())
                    .integrator(i.clone())
                    .error_control(ErrorControl::mixed(tau));
                let mut best = f64::INFINITY;
                let mut last = None;
                for _ in 0..5 {
                    let t0 = Instant::now();
                    let r = sim.run();
                    best = best.min(t0.elapsed().as_secs_f64());
                    last = Some(r);
                }
                match last {
                    Some(Ok(tr)) => {
                        let err = tr
                            .x_final
                            .iter()
                            .zip(&REFERENCE_Q)
                            .fold(0.0f64, |e, (x, r)| e.max((x - r).abs() / r.abs()));
                        writeln!(
                            out,
                            "{},{},{tau:e},ok,{err:e},{},{},{best:e}",
                            m.name(),
                            i.name(),
                            tr.stats.f_evals,
                            tr.stats.steps
                        )?;
                    }
                    Some(Err(ProjectionError::UnsupportedIntegrator { .. })) => break,
                    Some(Err(e)) => {
                        let msg = e.to_string().replace(',', ";");
                        writeln!(out, "{},{},{tau:e},failed: {msg},,,,", m.name(), i.name())?;
                    }
                    None => {}
                }
            }
        }
    }
    eprintln!("wrote {path}");
    Ok(())
}
