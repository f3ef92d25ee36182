//! SVG figures of a trajectory: q(t), q̇(t), λ(t) at the output times and ‖φ‖₂ after every
//! accepted step (log axis), drawn with `contour_plot` (the reproduction's renderer).

use contour::prelude::Trajectory;
use contour_plot::{render_svg, LinePlot, Series};

use crate::error::CliError;

/// One figure per quantity: `(file stem, SVG)`; a quantity with no data (λ of an
/// unconstrained model, ‖φ‖ identically zero) has no figure.
pub fn trajectory_figures(traj: &Trajectory) -> Result<Vec<(String, String)>, CliError> {
    let mut figs = Vec::new();
    for (name, title, y, rows) in [
        ("q", "coordinates", "q", &traj.q),
        ("qd", "velocities", "q̇", &traj.qd),
        ("lambda", "multipliers", "λ", &traj.lambda),
    ] {
        let n = rows.first().map_or(0, <[f64]>::len);
        if n == 0 || traj.times.is_empty() {
            continue;
        }
        let mut p = LinePlot::new(name, &format!("{title} ({})", traj.method), "t [s]", y);
        for i in 0..n {
            let pts = traj
                .times
                .iter()
                .zip(rows)
                .filter_map(|(&t, r)| r.get(i).map(|&v| (t, v)))
                .collect();
            p.series.push(Series::line(format!("{y}{i}"), pts));
        }
        figs.push((name.to_string(), render_svg(&p)?));
    }
    if traj.step_phi.iter().any(|&v| v > 0.0 && v.is_finite()) {
        let mut p = LinePlot::new("phi", "constraint violation", "t [s]", "‖φ‖₂");
        p.log_y = true;
        p.series.push(Series::line(
            "‖φ‖₂",
            traj.step_times
                .iter()
                .copied()
                .zip(traj.step_phi.iter().copied())
                .collect(),
        ));
        figs.push(("phi".to_string(), render_svg(&p)?));
    }
    Ok(figs)
}
