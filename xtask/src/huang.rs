//! Source `huang`: Huang's chapter 6 — path construction, kinematic histories and minimum-time
//! planning of section 6.2 (rows `huang/6.2.*`, figures `fig6.2.1`–`fig6.2.14`).

use std::error::Error;

use contour::model::models::HuangCartesianRobot;
use contour::planning::phase_plane::MinimumTimeSolution;
use contour::planning::reproduction as rep;
use contour::planning::{ConstructedPath, HistorySample};

use crate::plot::{LinePlot, Series};
use crate::rows::{stated_tolerance, Check, Figure, Row, SourceOutput};

/// Rows and figures of Huang section 6.2.
pub fn source() -> Result<SourceOutput, Box<dyn Error>> {
    let mut rows = Vec::new();
    for r in rep::huang_rows()? {
        let exact = r.id.ends_with("/switches");
        let mut row = match r.paper {
            Some(p) => Row::vs_paper(r.id.clone(), p, r.ours, r.unit),
            None => Row::ours(r.id.clone(), r.ours, r.unit),
        }
        .note(r.note)
        .tolerance(stated_tolerance(&r.id));
        row = if exact {
            row.check(Check::Exact)
        } else {
            row.rounded()
        };
        rows.push(row);
    }

    // Section 5.2: the index-3/2/1 models and the claims of 5.2.3–5.2.4, checked numerically.
    for r in contour::projection::reproduction_huang52::huang52_rows()? {
        let is_count = r.ours.fract() == 0.0 && r.ours.abs() > 0.0 && !r.id.contains("order");
        let row = match r.paper {
            Some(p) => Row::vs_paper(r.id.clone(), p, r.ours, ""),
            None => Row::ours(r.id.clone(), r.ours, ""),
        }
        .note(r.note);
        rows.push(if is_count {
            row.check(Check::Exact)
        } else {
            row.rounded()
        });
    }

    // Section 6.3: the simulations I–III (modern scheme under the fixed ids, Huang's scheme
    // and the chatter study under extra ids).
    for r in contour::contact::reproduction::huang_sim_rows()? {
        let last = r.id.rsplit('/').next().unwrap_or("").to_string();
        let is_count =
            r.ours.fract() == 0.0 && (last.starts_with("n_") || r.id.contains("/chatter/"));
        let row = match r.paper {
            Some(p) => Row::vs_paper(r.id.clone(), p, r.ours, r.unit),
            None => Row::ours(r.id.clone(), r.ours, r.unit),
        }
        .note(r.note)
        .tolerance(stated_tolerance(&r.id));
        rows.push(if is_count {
            row.check(Check::Exact)
        } else if r.ours.abs() < 1e-9 {
            row.check(Check::Below(1e-9)).rounded()
        } else {
            row.rounded()
        });
    }

    let (p1, p2) = rep::huang_paths()?;
    let mut figures = vec![
        path_figure(
            "fig6.2.1",
            "Fig. 6.2.1 — path with discontinuous slopes and the constraint circle",
            &p1,
        )?,
        path_figure(
            "fig6.2.2",
            "Fig. 6.2.2 — path with continuous slopes and the constraint circle",
            &p2,
        )?,
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
        )?);
        figures.push(displacement(
            fig_x,
            &format!(
                "Fig. {} — displacements, kinematic approach, Fig. {src} path",
                &fig_x[3..]
            ),
            path,
            h.iter().map(|x| (x.t, x.s)),
        )?);
        figures.push(forces(
            fig_f,
            &format!(
                "Fig. {} — joint forces, kinematic approach, Fig. {src} path",
                &fig_f[3..]
            ),
            h.iter().map(|x| (x.t, x.torque.as_slice())),
        )?);
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
        )?);
        figures.push(displacement(
            fig_x,
            &format!(
                "Fig. {} — displacements, minimum time, Fig. {src} path",
                &fig_x[3..]
            ),
            path,
            sol.samples.iter().map(|x| (x.t, x.s)),
        )?);
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
        )?);
    }
    for f in contour::contact::reproduction::huang_sim_figures()? {
        let mut fig = LinePlot::new(&f.name, &f.title, &f.x_label, &f.y_label);
        for (label, pts) in f.series {
            fig.series.push(Series::line(label, pts));
        }
        figures.push(fig.render()?);
    }
    Ok(SourceOutput { rows, figures })
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
    cp.path
        .eval_on(cp.path.locate(s), s, &mut p, &mut dp, &mut ddp);
    (p[0], p[1])
}

fn path_figure(name: &str, title: &str, cp: &ConstructedPath) -> Result<Figure, Box<dyn Error>> {
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
    fig.render()
}

fn kinematic_phase(name: &str, title: &str, h: &[HistorySample]) -> Result<Figure, Box<dyn Error>> {
    let mut fig = LinePlot::new(name, title, "s", "ds/dt [1/s]");
    fig.series.push(Series::line(
        "kinematic history",
        h.iter().map(|x| (x.s, x.sd)).collect(),
    ));
    fig.render()
}

fn min_time_phase(
    name: &str,
    title: &str,
    sol: &MinimumTimeSolution,
) -> Result<Figure, Box<dyn Error>> {
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
    fig.render()
}

fn displacement(
    name: &str,
    title: &str,
    cp: &ConstructedPath,
    ts: impl Iterator<Item = (f64, f64)>,
) -> Result<Figure, Box<dyn Error>> {
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
    fig.render()
}

fn forces<'a>(
    name: &str,
    title: &str,
    tf: impl Iterator<Item = (f64, &'a [f64])>,
) -> Result<Figure, Box<dyn Error>> {
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
    fig.render()
}
