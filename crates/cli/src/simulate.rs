//! `contour simulate scenario.toml -o out/`: one run, written as `trajectory.csv`,
//! `trajectory.json` (the workspace's `Trajectory`), `events.csv`, `stats.json` and the SVG
//! figures `q.svg`, `qd.svg`, `lambda.svg`, `phi.svg`.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::error::{CliError, Result};
use crate::model::Origin;
use crate::run::{run, Outcome};
use crate::scenario;

/// Creates `path` for writing.
pub fn create(path: &Path) -> Result<File> {
    File::create(path).map_err(|e| CliError::io(path, e))
}

/// Creates the output directory `dir` (and its parents); an existing file there is
/// [`CliError::OutputNotADirectory`].
pub fn create_dir(dir: &Path) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(CliError::OutputNotADirectory {
            path: dir.to_path_buf(),
        });
    }
    std::fs::create_dir_all(dir).map_err(|e| CliError::io(dir, e))
}

/// Writes `text` to `path`.
pub fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| CliError::io(path, e))
}

/// One line about a finished trajectory: method, integrator, end time, work, violation.
pub fn describe(traj: &contour::prelude::Trajectory) -> String {
    let s = &traj.stats;
    format!(
        "{}/{}: t = {}, {} steps ({} rejected), N_f = {}, max ‖φ‖₂ = {:.2e}, {} events",
        traj.method,
        traj.integrator,
        traj.step_times
            .last()
            .or(traj.times.last())
            .copied()
            .unwrap_or(f64::NAN),
        s.steps,
        s.rejected_steps,
        s.f_evals,
        s.max_phi + 0.0,
        traj.events.len()
    )
}

/// Runs `scenario_file` and writes its files into `out`; returns the files written and a
/// line describing the run ([`describe`]). A run that fails after the start still writes
/// its partial trajectory, then returns the error.
pub fn simulate(scenario_file: &Path, out: &Path) -> Result<(Vec<PathBuf>, String)> {
    simulate_with(scenario_file, out, false)
}

/// The lines a URDF model's import report adds to `simulate`'s output: one per warning
/// (`URDF warning: …`) and one per `<mimic>` coupling (`URDF mimic: q[m] = k · q[a] + c`);
/// none for a built-in model. With `strict`, a warning is an error instead
/// ([`contour_scenario::model::urdf_report`]).
pub fn urdf_report_lines(scenario_file: &Path, strict: bool) -> Result<Vec<String>> {
    let loaded = scenario::load(scenario_file)?;
    let origin = Origin {
        file: &loaded.file,
        source: Some(&loaded.source),
        dir: &loaded.dir,
    };
    let Some(import) =
        contour_scenario::model::urdf_report(&loaded.scenario.model, strict, origin)?
    else {
        return Ok(Vec::new());
    };
    let mut lines: Vec<String> = import
        .warnings
        .iter()
        .map(|w| format!("URDF warning: {w}"))
        .collect();
    lines.extend(import.mimic.iter().map(|m| {
        format!(
            "URDF mimic: joint '{}' (q[{}]) = {} · joint '{}' (q[{}]) + {}",
            m.joint, m.coord, m.multiplier, m.master, m.master_coord, m.offset
        )
    }));
    Ok(lines)
}

/// [`simulate`], and with `animate` also `animation.html`: the run (or the part of a failed
/// run that was computed) as one self-contained HTML animation of the scenario's mechanism.
pub fn simulate_with(
    scenario_file: &Path,
    out: &Path,
    animate: bool,
) -> Result<(Vec<PathBuf>, String)> {
    let loaded = scenario::load(scenario_file)?;
    let origin = Origin {
        file: &loaded.file,
        source: Some(&loaded.source),
        dir: &loaded.dir,
    };
    let (traj, error) = match run(&loaded.scenario, origin)? {
        Outcome::Finished(t) => (*t, None),
        Outcome::Failed { error, partial } => match partial {
            Some(p) => (*p, Some(error)),
            None => return Err(error.into()),
        },
    };
    create_dir(out)?;
    let mut files = Vec::new();
    let path = out.join("trajectory.csv");
    traj.write_csv(create(&path)?)?;
    files.push(path);
    let path = out.join("trajectory.json");
    traj.write_json(std::io::BufWriter::new(create(&path)?))?;
    files.push(path);
    let path = out.join("events.csv");
    traj.write_events_csv(create(&path)?)?;
    files.push(path);
    let path = out.join("stats.json");
    write(&path, &serde_json::to_string_pretty(&traj.stats)?)?;
    files.push(path);
    for (name, svg) in crate::plots::trajectory_figures(&traj)? {
        let path = out.join(format!("{name}.svg"));
        write(&path, &svg)?;
        files.push(path);
    }
    if animate {
        let path = crate::animate::html_path(out);
        crate::animate::Drawing::of(&loaded.scenario.model, origin)?.with(|d| {
            contour::animation(d, &traj)
                .write_html_file(&path)
                .map_err(contour::Error::from)?;
            Ok(())
        })?;
        files.push(path);
    }
    match error {
        Some(e) => Err(e.into()),
        None => Ok((files, describe(&traj))),
    }
}
