//! Source `projection`: long runs of every table method on the pendulum (rows
//! `projection/longrun/<METHOD>/{max_phi,energy_drift,N_f}`).

use contour::model::models::Pendulum;
use contour::model::Mechanism;
use contour::projection::{ErrorControl, ProjectionError, Simulation};

use super::tables::measured;
use super::{table_integrator, table_method_or_err, TABLE_METHODS};
use crate::{Row, SourceOutput, SourceResult};

/// Long run (ids `projection/longrun/<METHOD>/{max_phi,energy_drift,N_f}`): the pendulum
/// (ℓ = 1 m, released at 1 rad) for 100 s at τ = 1e-8 with ABM (ECS: BDF); energy drift
/// `|E(100) − E(0)|` in J.
pub fn longrun_rows() -> Result<Vec<Row>, ProjectionError> {
    let p = Pendulum::default();
    let (q, qd) = p.state(1.0, 0.0);
    let e = |x: &[f64]| -> f64 {
        p.kinetic_energy(&x[..2], &x[2..]).unwrap_or(f64::NAN)
            + p.potential_energy(&x[..2]).unwrap_or(f64::NAN)
    };
    let mut rows = Vec::new();
    for name in TABLE_METHODS {
        let method = table_method_or_err(name)?;
        let integ = table_integrator(name);
        let tr = Simulation::new(&p, &q, &qd, 0.0, 100.0)
            .method(method)
            .integrator(integ)
            .error_control(ErrorControl::absolute(1e-8))
            .output_times(vec![100.0])
            .run()?;
        let base = format!("projection/longrun/{name}");
        let note = "pendulum, 100 s, tau = 1e-8 absolute l2 (ABM; ECS: BDF); max_phi and energy_drift integrate 10^4 steps of round-off: a range-space solve that rounds differently (L L^T instead of L D L^T) moves them by 10-35 %";
        rows.push(measured(format!("{base}/max_phi"), tr.stats.max_phi, note));
        rows.push(measured(
            format!("{base}/energy_drift"),
            (e(&tr.x_final) - e(&tr.x_initial)).abs(),
            note,
        ));
        rows.push(
            Row::count(format!("{base}/N_f"), tr.stats.f_evals as f64)
                .note(super::extended::ecs_aware_note(name, note, &tr.stats)),
        );
    }
    Ok(rows)
}

/// The rows `projection/*`.
pub fn source() -> SourceResult {
    Ok(SourceOutput::rows(longrun_rows()?))
}
