//! The singular-configuration options of a scenario: `method.passage_policy`,
//! `tolerance.energy` and `[dynamics]`, run in-process through `run::run` (and swept by the
//! built binary) on the four-bar built as a parallelogram (crank = rocker, coupler = ground).
//! Released at a crank angle of 1 rad it swings through the flat configurations at 0 and −π,
//! where `J` loses rank and the parallelogram and anti-parallelogram branches cross.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

use std::path::Path;

use contour::prelude::ProjectionError;
use contour_scenario::model::Origin;
use contour_scenario::run::{run, Outcome};
use contour_scenario::scenario::parse;
use contour_scenario::Error;

const PARALLELOGRAM: &str = r#"[model.four-bar]
crank_length = 0.1
coupler_length = 0.3
rocker_length = 0.1
ground_length = 0.3

[initial]
angle = 1.0

[method]
name = "direct"

[integrator]
name = "dopri5"

[tolerance]
atol = 1e-6

[time]
end = 1.0
"#;

/// Runs `src`; `Ok` with the outcome, or the error before the start.
fn outcome(src: &str) -> Result<Outcome, Error> {
    let scenario = parse("s.toml", src).map_err(Error::from)?;
    let origin = Origin {
        file: "s.toml",
        source: Some(src),
        dir: Path::new("."),
    };
    run(&scenario, origin)
}

/// The cause of a run that failed after it started, with the time its partial trajectory
/// reached.
fn failure(src: &str) -> (ProjectionError, f64) {
    match outcome(src).unwrap() {
        Outcome::Failed {
            error: Error::Contour(contour::Error::Projection(p)),
            partial,
        } => {
            let reached = *partial.expect("a partial trajectory").times.last().unwrap();
            (p.cause().clone(), reached)
        }
        Outcome::Failed { error, .. } => panic!("not a projection error: {error}"),
        Outcome::Finished(t) => panic!("finished at t = {}", t.times.last().unwrap()),
    }
}

/// The error of a scenario refused before the start, as printed.
fn refused(src: &str) -> String {
    match outcome(src) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("ran: {src}"),
    }
}

fn with(edit: (&str, &str)) -> String {
    assert!(PARALLELOGRAM.contains(edit.0), "{}", edit.0);
    PARALLELOGRAM.replace(edit.0, edit.1)
}

#[test]
fn the_direct_method_stops_at_the_flat_parallelogram_by_default() {
    let (cause, reached) = failure(PARALLELOGRAM);
    assert!(
        matches!(
            cause,
            ProjectionError::SingularPassage {
                method: "direct",
                ..
            } | ProjectionError::AmbiguousBranch {
                method: "direct",
                ..
            } | ProjectionError::StalledPassage {
                method: "direct",
                ..
            }
        ),
        "{cause}"
    );
    assert!(reached > 0.0 && reached < 1.0, "stopped at t = {reached}");
    // `stop` spelled out is the same run.
    let src = with((
        "name = \"direct\"",
        "name = \"direct\"\npassage_policy = \"stop\"",
    ));
    assert_eq!(failure(&src), (cause, reached));
}

#[test]
fn continue_runs_through_the_passage() {
    let src = with((
        "name = \"direct\"",
        "name = \"direct\"\npassage_policy = \"continue\"",
    ));
    match outcome(&src).unwrap() {
        Outcome::Finished(t) => {
            assert_eq!(*t.times.last().unwrap(), 1.0);
            // The crank angle q[0] went from 1 rad through the flat configurations at 0, −π.
            let lowest = t.q.iter().map(|q| q[0]).fold(f64::INFINITY, f64::min);
            assert!(lowest < -3.5, "the crank reached only {lowest} rad");
        }
        Outcome::Failed { error, .. } => panic!("{error}"),
    }
}

#[test]
fn an_energy_tolerance_fails_the_run_with_the_energy_drift() {
    // The projector method passes the flat configurations; its energy drifts by more than
    // 1e-12 J over the run.
    let projector = with(("name = \"direct\"", "name = \"projector\""));
    match outcome(&projector).unwrap() {
        Outcome::Finished(t) => assert!(t.stats.energy_drift.unwrap() > 1e-12),
        Outcome::Failed { error, .. } => panic!("{error}"),
    }
    let src = projector.replace("atol = 1e-6", "atol = 1e-6\nenergy = 1e-12");
    let (cause, reached) = failure(&src);
    match cause {
        ProjectionError::EnergyDrift { t, drift, tol, .. } => {
            assert_eq!(tol, 1e-12);
            assert!(drift > tol && t > 0.0 && t <= 1.0, "{cause}");
            assert!(reached <= t);
        }
        e => panic!("{e}"),
    }
}

#[test]
fn the_dynamics_options_reach_the_solve() {
    // The rank cut-off sets where the direct method sees the passage: at 1e-3 an evaluation
    // near the flat configuration finds J below its initial rank, at the default 1e-6 none
    // does and the stall check stops the run instead (its steps shrink with the distance to
    // the crossing).
    let (cause, _) = failure(PARALLELOGRAM);
    assert!(
        matches!(cause, ProjectionError::StalledPassage { .. }),
        "{cause}"
    );
    let src = format!("{PARALLELOGRAM}[dynamics]\nrank_rtol = 1e-3\nkkt = \"full-lu\"\n");
    let (cause, _) = failure(&src);
    assert!(
        matches!(
            cause,
            ProjectionError::SingularPassage {
                rank: 1,
                initial_rank: 2,
                ..
            }
        ),
        "{cause}"
    );
    // The four-bar's third row is redundant (rank 2 of 3 everywhere): the default solve takes
    // the minimum-norm multipliers, `rank_deficiency = "error"` refuses them.
    let src = format!("{PARALLELOGRAM}[dynamics]\nrank_deficiency = \"error\"\n");
    let message = match outcome(&src) {
        Err(e) => e.to_string(),
        Ok(Outcome::Failed { error, .. }) => error.to_string(),
        Ok(Outcome::Finished(_)) => panic!("a rank-deficient J was accepted"),
    };
    assert!(message.contains("rank"), "{message}");
}

#[test]
fn bad_values_are_refused_with_their_key_and_line() {
    let e = refused(&with((
        "name = \"direct\"",
        "name = \"direct\"\npassage_policy = \"halt\"",
    )));
    assert!(
        e.contains("s.toml:12:") && e.contains("`stop`") && e.contains("`continue`"),
        "{e}"
    );
    let e = refused(&with(("atol = 1e-6", "atol = 1e-6\nenergy = -1.0")));
    assert!(
        e.contains("s.toml:18:") && e.contains("key `tolerance.energy`"),
        "{e}"
    );
    let e = refused(&format!("{PARALLELOGRAM}[dynamics]\nrank_rtol = 1.5\n"));
    assert!(
        e.contains("s.toml:22:") && e.contains("key `dynamics.rank_rtol`"),
        "{e}"
    );
    // One range for every method and both doors: a zero cut-off is refused before the run.
    let e = refused(&format!("{PARALLELOGRAM}[dynamics]\nrank_rtol = 0.0\n"));
    assert!(
        e.contains("key `dynamics.rank_rtol`") && e.contains("(0, 1)"),
        "{e}"
    );
    let e = refused(&format!("{PARALLELOGRAM}[dynamics]\npivot_rtol = -1e-3\n"));
    assert!(e.contains("key `dynamics.pivot_rtol`"), "{e}");
    let e = refused(&format!("{PARALLELOGRAM}[dynamics]\nkkt = \"qr\"\n"));
    assert!(
        e.contains("s.toml:22:") && e.contains("`range-space`") && e.contains("`full-lu`"),
        "{e}"
    );
    let e = refused(&format!(
        "{PARALLELOGRAM}[dynamics]\nrank_deficiency = \"ignore\"\n"
    ));
    assert!(e.contains("`minimum-norm`") && e.contains("`error`"), "{e}");
    // Huang's robot has a unilateral row: the contact simulator runs it, without them.
    let e = refused("[model.huang]\n[method]\npassage_policy = \"continue\"\n[time]\nend = 0.1\n");
    assert!(
        e.contains("s.toml:3:") && e.contains("key `method.passage_policy`"),
        "{e}"
    );
    let e = refused("[model.huang]\n[tolerance]\nenergy = 1.0\n[time]\nend = 0.1\n");
    assert!(e.contains("key `tolerance.energy`"), "{e}");
    let e = refused(&format!("{PARALLELOGRAM}[dynamics]\nrank_tol = 1e-3\n"));
    assert!(
        e.contains("key `rank_tol`") && e.contains("rank_rtol"),
        "{e}"
    );
}

#[test]
fn a_sweep_over_the_passage_policy_has_a_failed_and_a_finished_row() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("base.toml"), PARALLELOGRAM).unwrap();
    let sweep = dir.path().join("sweep.toml");
    std::fs::write(
        &sweep,
        "base = \"base.toml\"\n[grid]\n\"method.passage_policy\" = [\"stop\", \"continue\"]\n",
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_contour"))
        .args([
            "sweep",
            sweep.to_str().unwrap(),
            "-o",
            out_dir.to_str().unwrap(),
        ])
        .args(["--jobs", "1", "--no-progress-bar"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let text = std::fs::read_to_string(out_dir.join("summary.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[1].contains(",failed,") && lines[1].contains("stalled at a singular passage"),
        "{text}"
    );
    assert!(lines[2].contains(",ok,"), "{text}");
}
