//! Work–precision sweeps: every method × integrator the driver accepts on
//! one problem, τ = 1e-3 … 1e-11 (`ErrorControl::mixed(τ)`, the same `rtol = atol = τ` the
//! scipy peers get): final position error against a reference, N_f, steps and wall time (best
//! of 5), one CSV row per run. Used by the `andrews_work_precision` and
//! `keerthi_work_precision` binaries; not run in CI (timings).

use std::io::Write;
use std::time::Instant;

use contour::model::Mechanism;
use contour::prelude::*;

/// Max over components of `|q − q_ref| / max(|q_ref|, floor)`: relative where the reference is
/// away from zero, absolute (in units of `floor`) near it.
pub fn position_error(q: &[f64], reference: &[f64], floor: f64) -> f64 {
    q.iter().zip(reference).fold(0.0f64, |e, (x, r)| {
        e.max((x - r).abs() / r.abs().max(floor))
    })
}

/// Runs the sweep on `mech` from the consistent `(q0, q̇0)` over `[0, t_end]` and writes the
/// CSV (`method,integrator,tau,status,error,f_evals,steps,seconds`) to `out`.
pub fn sweep<M: Mechanism + ?Sized>(
    mech: &M,
    q0: &[f64],
    qd0: &[f64],
    t_end: f64,
    reference: &[f64],
    floor: f64,
    out: &mut impl Write,
) -> Result<(), Box<dyn std::error::Error>> {
    writeln!(
        out,
        "method,integrator,tau,status,error,f_evals,steps,seconds"
    )?;
    // Baumgarte with δ = 100 (Andrews' time scale); the same for Keerthi's robot.
    for m in &crate::every_method(100.0)? {
        for i in &crate::every_integrator() {
            for k in 3..=11 {
                let tau = 10f64.powi(-k);
                let sim = Simulation::new(mech, q0, qd0, 0.0, t_end)
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
                        let n = mech.dof();
                        let err = position_error(&tr.x_final[..n], reference, floor);
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
    Ok(())
}
