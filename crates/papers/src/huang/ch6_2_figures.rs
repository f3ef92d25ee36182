//! Figures 6.2.1–6.2.14 of Huang section 6.2: the two paths with the constraint circle, and for
//! the kinematic approach and the minimum-time solutions the phase plane, the displacements
//! and the joint forces.

use contour::model::models::HuangCartesianRobot;
use contour::planning::phase_plane::MinimumTimeSolution;
use contour::planning::{ConstructedPath, HistorySample};

use super::ch6_2_planning as rep;
use crate::{BoxError, LinePlot, Series};

/// The figures `fig6.2.1` … `fig6.2.14`.
pub fn figures() -> Result<Vec<LinePlot>, BoxError> {
    let (p1, p2) = rep::huang_paths()?;
    let mut figures = vec![
        path_figure(
            "fig6.2.1",
            "Fig. 6.2.1 — path with discontinuous slopes and the constraint circle",
            &p1,
        ),
        path_figure(
            "fig6.2.2",
            "Fig. 6.2.2 — path with continuous slopes and the constraint circle",
            &p2,
        ),
    ];
    // Kinematic approach: (case 1) rest-to-rest cubics on the 6.2.1 path, (case 2) constant speed on 6.2.2.
    for (case, path, fig_pp, fig_x, fig_f) in [
        (1u8, &p1, "fig6.2.3", "fig6.2.4", "fig6.2.5"),
        (2u8, &p2, "fig6.2.9", "fig6.2.10", "fig6.2.11"),
    ] {
        let h = rep::huang_kinematic(case, 400)?;
        let src = if case == 1 { "6.2.1" } else { "6.2.2" };
        figures.push(kinematic_phase(
            fig_pp,
            &format!(
                "Fig. {} — phase plane, kinematic approach, Fig. {src} path",
                &fig_pp[3..]
            ),
            &h,
        ));
        figures.push(displacement(
            fig_x,
            &format!(
                "Fig. {} — displacements, kinematic approach, Fig. {src} path",
                &fig_x[3..]
            ),
            path,
            h.iter().map(|x| (x.t, x.s)),
        ));
        figures.push(forces(
            fig_f,
            &format!(
                "Fig. {} — joint forces, kinematic approach, Fig. {src} path",
                &fig_f[3..]
            ),
            h.iter().map(|x| (x.t, x.torque.as_slice())),
        ));
    }
    // Minimum time: case 1(b) piecewise on the 6.2.1 path, case 2(b) on the 6.2.2 path.
    for (sol, path, fig_pp, fig_x, fig_f, src) in [
        (
            rep::huang_case1(true)?,
            &p1,
            "fig6.2.6",
            "fig6.2.7",
            "fig6.2.8",
            "6.2.1",
        ),
        (
            rep::huang_case2()?,
            &p2,
            "fig6.2.12",
            "fig6.2.13",
            "fig6.2.14",
            "6.2.2",
        ),
    ] {
        figures.push(min_time_phase(
            fig_pp,
            &format!(
                "Fig. {} — phase plane, minimum time, Fig. {src} path",
                &fig_pp[3..]
            ),
            &sol,
        ));
        figures.push(displacement(
            fig_x,
            &format!(
                "Fig. {} — displacements, minimum time, Fig. {src} path",
                &fig_x[3..]
            ),
            path,
            sol.samples.iter().map(|x| (x.t, x.s)),
        ));
        figures.push(forces(
            fig_f,
            &format!(
                "Fig. {} — joint forces, minimum time, Fig. {src} path",
                &fig_f[3..]
            ),
            sol.samples
                .iter()
                .map(|x| x.t)
                .zip(sol.torques.iter().map(|t| t.as_slice())),
        ));
    }
    Ok(figures)
}

fn circle(n: usize) -> Vec<(f64, f64)> {
    let robot = HuangCartesianRobot::default();
    (0..=n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            (
                robot.center[0] + robot.radius * a.cos(),
                robot.center[1] + robot.radius * a.sin(),
            )
        })
        .collect()
}

fn point_at(cp: &ConstructedPath, s: f64) -> (f64, f64) {
    let (mut p, mut dp, mut ddp) = ([0.0; 2], [0.0; 2], [0.0; 2]);
    let s = s.clamp(0.0, 1.0);
    if cp.path.segments()[cp.path.locate(s)]
        .eval(s, &mut p, &mut dp, &mut ddp)
        .is_err()
    {
        p = [f64::NAN; 2];
    }
    (p[0], p[1])
}

fn path_figure(name: &str, title: &str, cp: &ConstructedPath) -> LinePlot {
    let mut fig = LinePlot::new(name, title, "x [m]", "y [m]");
    fig.series.push(Series::line(
        "path P(s)",
        (0..=400).map(|i| point_at(cp, i as f64 / 400.0)).collect(),
    ));
    fig.series
        .push(Series::line("constraint circle", circle(200)));
    fig.series.push(Series::markers(
        "entry s1, exit s2",
        vec![point_at(cp, cp.s1), point_at(cp, cp.s2)],
    ));
    fig
}

fn kinematic_phase(name: &str, title: &str, h: &[HistorySample]) -> LinePlot {
    let mut fig = LinePlot::new(name, title, "s", "ds/dt [1/s]");
    fig.series.push(Series::line(
        "kinematic history",
        h.iter().map(|x| (x.s, x.sd)).collect(),
    ));
    fig
}

fn min_time_phase(name: &str, title: &str, sol: &MinimumTimeSolution) -> LinePlot {
    let mut fig = LinePlot::new(name, title, "s", "ds/dt [1/s]");
    let top = 1.5 * sol.samples.iter().map(|x| x.sd).fold(0.0, f64::max);
    // Inadmissible region: above the maximum-velocity curve, shaded up to the top of the plot.
    let mut run: Vec<(f64, f64)> = Vec::new();
    let flush = |run: &mut Vec<(f64, f64)>, fig: &mut LinePlot| {
        if run.len() >= 2 {
            let mut poly = run.clone();
            poly.push((run[run.len() - 1].0, top));
            poly.push((run[0].0, top));
            fig.shaded.push(poly);
        }
        run.clear();
    };
    for &(s, a) in &sol.mvc {
        if a.is_finite() && a < top {
            run.push((s, a));
        } else {
            flush(&mut run, &mut fig);
        }
    }
    flush(&mut run, &mut fig);
    fig.series.push(Series::line(
        "minimum-time profile",
        sol.samples.iter().map(|x| (x.s, x.sd)).collect(),
    ));
    fig.series.push(Series::line(
        "maximum-velocity curve",
        sol.mvc
            .iter()
            .filter(|(_, a)| a.is_finite() && *a < top)
            .copied()
            .collect(),
    ));
    fig.series.push(Series::markers(
        "switching points",
        sol.switching_points.iter().map(|p| (p.s, p.sd)).collect(),
    ));
    fig
}

fn displacement(
    name: &str,
    title: &str,
    cp: &ConstructedPath,
    ts: impl Iterator<Item = (f64, f64)>,
) -> LinePlot {
    let pts: Vec<(f64, (f64, f64))> = ts.map(|(t, s)| (t, point_at(cp, s))).collect();
    let mut fig = LinePlot::new(name, title, "t [s]", "displacement [m]");
    fig.series.push(Series::line(
        "x(t)",
        pts.iter().map(|(t, p)| (*t, p.0)).collect(),
    ));
    fig.series.push(Series::line(
        "y(t)",
        pts.iter().map(|(t, p)| (*t, p.1)).collect(),
    ));
    fig
}

fn forces<'a>(name: &str, title: &str, tf: impl Iterator<Item = (f64, &'a [f64])>) -> LinePlot {
    let pts: Vec<(f64, &[f64])> = tf.collect();
    let mut fig = LinePlot::new(name, title, "t [s]", "joint force [N]");
    fig.series.push(Series::line(
        "F_x",
        pts.iter().map(|(t, f)| (*t, f[0])).collect(),
    ));
    fig.series.push(Series::line(
        "F_y",
        pts.iter().map(|(t, f)| (*t, f[1])).collect(),
    ));
    fig
}
