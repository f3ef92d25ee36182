//! MBS benchmark A02 (`[model.n-four-bar]`) through the built binary: the shipped scenario
//! (20 s, A02's 401 outputs) follows the exact reduced solution through the flat
//! configurations, and bad numbers of loops are refused naming the key and the line.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

mod common;
use common::*;

use std::path::{Path, PathBuf};
use std::process::Output;

use std::f64::consts::PI;

use contour::model::models::NFourBar;
use contour::prelude::Trajectory;

/// Runs `simulate` on the shipped scenario edited by `edits`; the output directory and the
/// process output.
fn simulate(dir: &Path, edits: &[(&str, &str)]) -> (PathBuf, Output) {
    let mut src = std::fs::read_to_string(common::scenarios().join("a02_n_four_bar.toml")).unwrap();
    for (from, to) in edits {
        assert!(src.contains(from), "{from}");
        src = src.replacen(from, to, 1);
    }
    let file = dir.join("a02.toml");
    std::fs::write(&file, src).unwrap();
    let out_dir = dir.join("out");
    let out = contour(&["simulate", s(&file), "-o", s(&out_dir), "--animate"]);
    (out_dir, out)
}

/// The largest distance of B0 = (q[0], q[1]) from the exact `(cos θ, sin θ)` over the run,
/// with θ from `NFourBar::reduced_solution` (RK4 on the reduced equation, no constrained
/// solver), and the crank angle's range.
fn b0_error(loops: usize, traj: &Trajectory) -> (f64, f64, f64) {
    let exact = NFourBar::new(loops).reduced_solution(
        std::f64::consts::FRAC_PI_2,
        -1.0,
        &traj.times,
        20_000,
    );
    let mut err = 0.0f64;
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for (q, (th, _)) in traj.q.iter().zip(&exact) {
        err = err.max((q[0] - th.cos()).hypot(q[1] - th.sin()));
        lo = lo.min(*th);
        hi = hi.max(*th);
    }
    (err, lo, hi)
}

#[test]
fn the_a02_scenario_follows_the_exact_solution_through_the_flat_configurations() {
    for (loops, method) in [(4, "projector"), (1, "perturbation")] {
        let dir = tempfile::tempdir().unwrap();
        let n = format!("n = {loops} ");
        let name = format!("name = \"{method}\"");
        let (out_dir, out) = simulate(
            dir.path(),
            &[("n = 4 ", &n), ("name = \"projector\"", &name)],
        );
        assert!(
            out.status.success(),
            "{method}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let traj =
            Trajectory::read_json(std::fs::File::open(out_dir.join("trajectory.json")).unwrap())
                .unwrap();
        // A02's outputs 0, 0.05, …, 20; 2n + 2 coordinates
        assert_eq!(traj.times.len(), 401);
        assert_eq!(traj.q[0].len(), 2 * loops + 2);
        assert_eq!(traj.method, method);
        let (err, lo, hi) = b0_error(loops, &traj);
        // The cranks turn over and over (θ from π/2 past several flat configurations
        // θ = 0, −π, …), so a jump to another branch at a passage would show in B0 (by up to
        // 2 m); A02's high precision is 1e-3 m.
        assert!(hi > 1.5 && lo < -3.0 * PI, "{loops}: θ in [{lo}, {hi}]");
        eprintln!("{method}, n = {loops}: B0 error {err:.1e} m");
        assert!(err < 1e-3, "{method}, n = {loops}: B0 off by {err:e} m");
        let html = std::fs::read_to_string(out_dir.join("animation.html")).unwrap();
        assert!(html.contains("<canvas"));
    }
}

#[test]
fn bad_numbers_of_loops_name_the_key_and_the_line() {
    // `n` is on line 18 of the shipped scenario.
    for (value, needle) in [
        ("0", "1 to 1000"),
        ("2.5", "floating point `2.5`"),
        ("-3", "-3"),
        ("1000000", "1 to 1000"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (_, out) = simulate(dir.path(), &[("n = 4 ", &format!("n = {value} "))]);
        assert_eq!(out.status.code(), Some(1), "n = {value}");
        let e = String::from_utf8_lossy(&out.stderr);
        let key = e.contains("key `n`") || e.contains("key `model.n-four-bar.n`");
        assert!(
            e.contains("a02.toml:18:") && key && e.contains(needle),
            "n = {value}: {e}"
        );
    }
    // A missing `n` is named too.
    let dir = tempfile::tempdir().unwrap();
    let (_, out) = simulate(dir.path(), &[("n = 4 ", "# n = 4 ")]);
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("missing field `n`"), "{e}");
}
