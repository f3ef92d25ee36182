//! `contour plan scenario.toml -o out/`: the minimum-time motion along the scenario's joint
//! path under symmetric torque limits (or a URDF's effort and velocity limits,
//! `urdf_limits = true`), joint velocity limits (`velocity_limit(s)`, or the URDF's) and joint
//! acceleration limits (`acceleration_limit(s)`), by the phase-plane method, written as `plan.csv` (the workspace's
//! `Trajectory` CSV: t, q, q̇, q̈, τ sampled at `sample_rate`), `phase_plane.svg` (ṡ(s), the
//! maximum-velocity curve, the switching points) and `plan.json` (the summary).
//!
//! Every call into `contour-planning` is in this module (one place to follow its API):
//! `Path`/`Segment`/`Shape`, `CartesianJointPath`, `PathDynamics`, `BoxLimits`,
//! `AccelerationLimits`, `PhasePlane::solve`, `MinimumTimeSolution::state_at`, `Toppra`.

use std::path::Path;

use serde::Serialize;

use contour::planning::{JointAccelerationLimits, JointVelocityLimits, PathConstraint};
use contour::prelude::{
    AccelerationLimits, BoxLimits, CartesianJointPath, Mechanism, PathDynamics, PhasePlane,
    PhasePlaneConfig, Segment, SegmentKind, Shape, Toppra, ToppraConfig,
};
use contour_plot::{render_svg, LinePlot, Series};

use crate::error::{CliError, Result};
use crate::model::{build, Origin};
use crate::scenario::{self, PathSpec, PlanSpec};
use crate::simulate::{create_dir, write};

/// The summary written to `plan.json`.
#[derive(Debug, Clone, Serialize)]
pub struct PlanSummary {
    /// Minimum time \[s\].
    pub total_time: f64,
    /// Switching points.
    pub switching_points: usize,
    /// Times of the pieces between rest points \[s\].
    pub piece_times: Vec<f64>,
    /// Largest |τᵢ| along the plan \[N·m\].
    pub peak_torque: f64,
    /// Samples written.
    pub samples: usize,
    /// TOPP-RA's minimum time on `toppra_intervals` intervals \[s\], when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toppra_time: Option<f64>,
}

impl std::fmt::Display for PlanSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "minimum time {:.6} s, {} switching point(s), peak torque {:.4}, {} samples",
            self.total_time, self.switching_points, self.peak_torque, self.samples
        )?;
        if let Some(t) = self.toppra_time {
            write!(f, " (TOPP-RA: {t:.6} s)")?;
        }
        Ok(())
    }
}

fn segments(spec: &PathSpec, n: usize, origin: Origin<'_>) -> Result<Vec<Segment>> {
    let check = |key: &str, v: &[f64]| -> Result<()> {
        if v.len() == n {
            Ok(())
        } else {
            Err(origin
                .error(
                    key,
                    format!("has {} entries, the model has {n} joints", v.len()),
                )
                .into())
        }
    };
    let seg = |k: usize, shape| Segment {
        s_start: k as f64,
        s_end: k as f64 + 1.0,
        shape,
        kind: SegmentKind::Unconstrained,
    };
    Ok(match spec {
        PathSpec::Line { start, end } => {
            check("plan.path.line.start", start)?;
            check("plan.path.line.end", end)?;
            vec![Segment::line(start, end, 0.0, 1.0)]
        }
        PathSpec::Waypoints(w) => {
            if w.len() < 2 {
                return Err(origin
                    .error("plan.path.waypoints", "needs at least two waypoints")
                    .into());
            }
            for p in w {
                check("plan.path.waypoints", p)?;
            }
            w.windows(2)
                .enumerate()
                .map(|(k, p)| Segment::line(&p[0], &p[1], k as f64, k as f64 + 1.0))
                .collect()
        }
        PathSpec::Arc {
            center,
            u,
            v,
            radius,
            theta_start,
            theta_end,
        } => {
            for (k, x) in [("center", center), ("u", u), ("v", v)] {
                check(&format!("plan.path.arc.{k}"), x)?;
            }
            vec![seg(
                0,
                Shape::Arc {
                    center: center.clone(),
                    u: u.clone(),
                    v: v.clone(),
                    radius: *radius,
                    theta_start: *theta_start,
                    theta_end: *theta_end,
                },
            )]
        }
    })
}

/// The torque limits and, with `urdf_limits`, the URDF's velocity limits.
fn limits(
    spec: &PlanSpec,
    model: &scenario::ModelSpec,
    n: usize,
    origin: Origin<'_>,
) -> Result<(BoxLimits, Option<JointVelocityLimits>)> {
    match (spec.urdf_limits, &spec.torque_limits, spec.torque_limit) {
        (true, None, None) => {
            let scenario::ModelSpec::Urdf(p) = model else {
                return Err(origin
                    .error("plan.urdf_limits", "needs a [model.urdf] model")
                    .into());
            };
            let path = origin.dir.join(&p.file);
            let text = std::fs::read_to_string(&path)
                .map_err(|e| origin.error("model.urdf.file", e.to_string()))?;
            let (_, lim) = contour::model::urdf::tree_and_limits_from_urdf_str(&text)
                .map_err(|e| origin.error("model.urdf.file", e.to_string()))?;
            if lim.effort.len() != n {
                return Err(origin
                    .error(
                        "plan.urdf_limits",
                        format!(
                            "the URDF has {} joint limits, the model {n} joints",
                            lim.effort.len()
                        ),
                    )
                    .into());
            }
            if let Some(i) = lim.effort.iter().position(|e| !(e.is_finite() && *e > 0.0)) {
                return Err(origin
                    .error(
                        "plan.urdf_limits",
                        format!(
                            "joint {} ({}) has no finite positive effort",
                            i, lim.names[i]
                        ),
                    )
                    .into());
            }
            let speed = lim
                .velocity
                .iter()
                .all(|v| v.is_finite() && *v > 0.0)
                .then(|| JointVelocityLimits::new(lim.velocity.clone()));
            Ok((BoxLimits::from_effort(&lim.effort), speed))
        }
        (false, Some(l), None) => {
            if l.len() != n {
                return Err(origin
                    .error(
                        "plan.torque_limits",
                        format!("has {} entries, the model has {n} joints", l.len()),
                    )
                    .into());
            }
            Ok((BoxLimits::from_effort(l), None))
        }
        (false, None, Some(l)) => Ok((BoxLimits::symmetric(n, l), None)),
        _ => Err(origin
            .error(
                "plan.torque_limit",
                "give exactly one of torque_limit, torque_limits and urdf_limits = true",
            )
            .into()),
    }
}

/// Per-joint limits from a symmetric `one` or a per-joint `each` (at most one of them),
/// each value positive (`inf` for none); `None` when neither is given.
fn joint_limits(
    one: Option<f64>,
    each: &Option<Vec<f64>>,
    key: &str,
    n: usize,
    origin: Origin<'_>,
) -> Result<Option<Vec<f64>>> {
    let (v, k) = match (one, each) {
        (None, None) => return Ok(None),
        (Some(x), None) => (vec![x; n], format!("plan.{key}_limit")),
        (None, Some(v)) => (v.clone(), format!("plan.{key}_limits")),
        (Some(_), Some(_)) => {
            return Err(origin
                .error(
                    &format!("plan.{key}_limit"),
                    format!("give one of {key}_limit and {key}_limits"),
                )
                .into())
        }
    };
    if v.len() != n {
        return Err(origin
            .error(
                &k,
                format!("has {} entries, the model has {n} joints", v.len()),
            )
            .into());
    }
    if let Some(i) = v.iter().position(|x| x.is_nan() || *x <= 0.0) {
        return Err(origin
            .error(&k, format!("joint {i}: {:e} is not a positive limit", v[i]))
            .into());
    }
    Ok(Some(v))
}

/// Solves and writes the plan of `scenario_file` into `out`.
pub fn plan(scenario_file: &Path, out: &Path) -> Result<PlanSummary> {
    plan_with(scenario_file, out, false)
}

/// [`plan`], and with `animate` also `animation.html`: the planned motion of the scenario's
/// mechanism with its phase-plane curve and switching points.
pub fn plan_with(scenario_file: &Path, out: &Path, animate: bool) -> Result<PlanSummary> {
    let loaded = scenario::load(scenario_file)?;
    let origin = Origin {
        file: &loaded.file,
        source: Some(&loaded.source),
        dir: &loaded.dir,
    };
    let spec: &PlanSpec = loaded.scenario.plan.as_ref().ok_or(CliError::NoPlan)?;
    let built = build(&loaded.scenario.model, &loaded.scenario.initial, origin)?;
    let mech: &dyn Mechanism = &*built.mech;
    let n = mech.dof();
    let (torque, urdf_speed) = limits(spec, &loaded.scenario.model, n, origin)?;
    let speed = joint_limits(
        spec.velocity_limit,
        &spec.velocity_limits,
        "velocity",
        n,
        origin,
    )?
    .map(JointVelocityLimits::new)
    .or(urdf_speed);
    let accel = joint_limits(
        spec.acceleration_limit,
        &spec.acceleration_limits,
        "acceleration",
        n,
        origin,
    )?
    .map(JointAccelerationLimits::new);
    let extra: Vec<&dyn PathConstraint> = [
        speed.as_ref().map(|v| v as &dyn PathConstraint),
        accel.as_ref().map(|a| a as &dyn PathConstraint),
    ]
    .into_iter()
    .flatten()
    .collect();
    let rate = spec.sample_rate;
    if !(rate.is_finite() && rate > 0.0) {
        return Err(origin.error("plan.sample_rate", "must be positive").into());
    }
    let path = contour::planning::Path::new(segments(&spec.path, n, origin)?)
        .map_err(contour::Error::from)?;
    let path = CartesianJointPath::new(path);
    let dynamics = PathDynamics::new(mech, &path).map_err(contour::Error::from)?;
    let mut limits = AccelerationLimits::new(&dynamics, &torque);
    for c in extra {
        limits = limits.with_constraint(c).map_err(contour::Error::from)?;
    }
    let sol = PhasePlane::new(&limits, PhasePlaneConfig::default())
        .solve()
        .map_err(contour::Error::from)?;

    let toppra_time = match spec.toppra_intervals {
        Some(intervals) => Some(
            Toppra::new(
                &limits,
                ToppraConfig {
                    intervals,
                    ..ToppraConfig::default()
                },
            )
            .solve()
            .map_err(contour::Error::from)?
            .total_time,
        ),
        None => None,
    };

    create_dir(out)?;
    // t, q, q̇, q̈, τ at `sample_rate` through the workspace's one result type
    let sampled = contour::planning::sample_at_rate(&sol, &limits, rate)
        .map_err(|e| origin.error("plan.sample_rate", e.to_string()))?;
    if animate {
        crate::animate::Drawing::of(&loaded.scenario.model, origin)?.with(|d| {
            contour::plan_animation(d, &sampled, &sol)
                .write_html_file(crate::animate::html_path(out))
                .map_err(contour::Error::from)?;
            Ok(())
        })?;
    }
    let traj = contour::trajectory_from_plan(&sampled);
    let samples = traj.times.len();
    let mut csv = Vec::new();
    traj.write_csv(&mut csv)
        .map_err(|e| origin.error("plan", e.to_string()))?;
    let csv = String::from_utf8(csv).map_err(|e| origin.error("plan", e.to_string()))?;
    write(&out.join("plan.csv"), &csv)?;

    let mut fig = LinePlot::new("phase_plane", "minimum-time phase plane", "s", "ṡ");
    fig.series.push(Series::line(
        "ṡ(s)",
        sol.samples.iter().map(|p| (p.s, p.sd)).collect(),
    ));
    let cap = 3.0
        * sol
            .samples
            .iter()
            .fold(0.0f64, |m, p| m.max(p.sd))
            .max(1e-12);
    fig.series.push(Series::line(
        "MVC",
        sol.mvc
            .iter()
            .filter(|(_, a)| a.is_finite())
            .map(|&(s, a)| (s, a.min(cap)))
            .collect(),
    ));
    fig.series.push(Series::markers(
        "switching points",
        sol.switching_points.iter().map(|p| (p.s, p.sd)).collect(),
    ));
    fig.series.retain(|s| !s.points.is_empty());
    write(&out.join("phase_plane.svg"), &render_svg(&fig)?)?;

    let summary = PlanSummary {
        total_time: sol.total_time,
        switching_points: sol.switch_count(),
        piece_times: sol.piece_times.clone(),
        peak_torque: sol
            .torques
            .iter()
            .flatten()
            .fold(0.0f64, |m, t| m.max(t.abs())),
        samples,
        toppra_time,
    };
    write(
        &out.join("plan.json"),
        &serde_json::to_string_pretty(&summary)?,
    )?;
    Ok(summary)
}
