//! Every command on a small scenario, through the built binary (`CARGO_BIN_EXE_contour`):
//! `simulate`, `plan`, `sweep` (serial, `--jobs 4`, 4 shards merged, a killed shard re-run)
//! and malformed scenarios whose errors name the key and the line.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

mod common;
use common::*;

use std::path::{Path, PathBuf};
use std::process::Output;

use contour::prelude::Trajectory;

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn simulate_writes_trajectory_events_stats_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    let out = contour(&[
        "simulate",
        s(&scenarios().join("simulate.toml")),
        "-o",
        s(dir.path()),
    ]);
    ok(&out);
    for f in [
        "trajectory.csv",
        "trajectory.json",
        "events.csv",
        "stats.json",
        "q.svg",
        "qd.svg",
        "lambda.svg",
        "phi.svg",
    ] {
        assert!(dir.path().join(f).is_file(), "{f} missing");
    }
    let traj =
        Trajectory::read_json(std::fs::File::open(dir.path().join("trajectory.json")).unwrap())
            .unwrap();
    // 0, 0.01, …, 2.0
    assert_eq!(traj.times.len(), 201);
    assert_eq!(traj.method, "perturbation");
    assert_eq!(traj.integrator, "dopri5");
    // The pendulum keeps its length ℓ = 1 (perturbation projects every step).
    let q = traj.q.last().unwrap();
    assert!((q[0].hypot(q[1]) - 1.0).abs() < 1e-10, "{q:?}");
    let csv = std::fs::read_to_string(dir.path().join("trajectory.csv")).unwrap();
    assert!(
        csv.starts_with("t,q0,q1,qd0,qd1,lambda0\n"),
        "{}",
        &csv[..40]
    );
    assert_eq!(csv.lines().count(), 202);
    let svg = std::fs::read_to_string(dir.path().join("phi.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("<polyline"));
}

#[test]
fn plan_writes_samples_phase_plane_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    let out = contour(&[
        "plan",
        s(&scenarios().join("plan.toml")),
        "-o",
        s(dir.path()),
        "--animate",
    ]);
    ok(&out);
    let html = std::fs::read_to_string(dir.path().join("animation.html")).unwrap();
    assert!(
        html.contains("<canvas"),
        "animation.html with the phase plane"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("plan.json")).unwrap())
            .unwrap();
    let t = summary["total_time"].as_f64().unwrap();
    assert!(t > 0.1 && t < 100.0, "{t}");
    // A minimum-time plan saturates a torque limit.
    // TOPP-RA on 1000 intervals agrees with the exact phase-plane optimum to 1 %.
    let toppra = summary["toppra_time"].as_f64().unwrap();
    assert!((toppra - t).abs() < 0.01 * t, "{toppra} vs {t}");
    let peak = summary["peak_torque"].as_f64().unwrap();
    assert!((peak - 1000.0).abs() < 1e-6, "{peak}");
    let csv = std::fs::read_to_string(dir.path().join("plan.csv")).unwrap();
    let samples = summary["samples"].as_u64().unwrap() as usize;
    assert_eq!(csv.lines().count(), samples + 1);
    // 1 kHz: the last sample is at the minimum time.
    let last_t: f64 = csv
        .lines()
        .last()
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((last_t - t).abs() < 1e-12);
    assert!(dir.path().join("phase_plane.svg").is_file());
}

/// Writes `text` as `name` into `dir` and returns the path.
fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const GOOD: &str = "[model.pendulum]\nlength = 1.0\n\n[initial]\nangle = 0.2\n\n[method]\nname = \"baumgarte\"\n\n[time]\nend = 0.1\n";

/// Runs `simulate` on `GOOD` edited by `edit` and returns stderr (the run must fail).
fn malformed(edit: (&str, &str)) -> String {
    let dir = tempfile::tempdir().unwrap();
    assert!(GOOD.contains(edit.0));
    let p = file(dir.path(), "bad.toml", &GOOD.replace(edit.0, edit.1));
    let out = contour(&["simulate", s(&p), "-o", s(&dir.path().join("out"))]);
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn malformed_scenarios_name_the_key_and_line() {
    // The unedited scenario runs.
    let dir = tempfile::tempdir().unwrap();
    let p = file(dir.path(), "good.toml", GOOD);
    ok(&contour(&[
        "simulate",
        s(&p),
        "-o",
        s(&dir.path().join("out")),
    ]));

    let e = malformed(("length = 1.0", "length = 1.0\nlenght = 2.0"));
    assert!(
        e.contains("bad.toml:3:") && e.contains("key `lenght`"),
        "{e}"
    );
    let e = malformed(("end = 0.1", "end = \"soon\""));
    assert!(e.contains("bad.toml:11:") && e.contains("key `end`"), "{e}");
    let e = malformed(("[model.pendulum]", "[model.pendel]"));
    assert!(
        e.contains("bad.toml:1:") && e.contains("key `pendel`"),
        "{e}"
    );
    let e = malformed(("[time]", "[timing]"));
    assert!(e.contains("key `timing`"), "{e}");
    let e = malformed((
        "name = \"baumgarte\"",
        "name = \"baumgarte\"\nsettings = { gamma = 1.0 }",
    ));
    assert!(
        e.contains("bad.toml:9:") && e.contains("key `method.settings.gamma`"),
        "{e}"
    );
    let e = malformed(("angle = 0.2", "q = [1.0, 0.0, 0.0]"));
    assert!(
        e.contains("bad.toml:5:") && e.contains("key `initial.q`"),
        "{e}"
    );
    let e = malformed(("end = 0.1", "output_step = 0.1"));
    assert!(e.contains("key `time.end`"), "{e}");
    let e = malformed(("end = 0.1", "end = 0.1\n[tolerance]\natol = -1e-6"));
    assert!(
        e.contains("bad.toml:13:") && e.contains("key `tolerance.atol`"),
        "{e}"
    );
    let e = malformed(("name = \"baumgarte\"", "name = \"baumgarten\""));
    assert!(e.contains("bad.toml:8:") && e.contains("baumgarten"), "{e}");
}

/// The 64-run pendulum sweep with `extra` arguments into `dir`; returns the summary CSV
/// path written.
fn sweep(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["sweep", "-o", s(dir), "--no-progress-bar"];
    let file = scenarios().join("sweep_pendulum.toml");
    args.insert(1, s(&file));
    args.extend_from_slice(extra);
    contour(&args)
}

/// The summary's rows without the wall-time column.
fn rows(csv: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let wall = header.iter().position(|h| *h == "wall_time_s").unwrap();
    lines
        .map(|l| {
            l.split(',')
                .enumerate()
                .filter(|(j, _)| *j != wall)
                .map(|(_, c)| c)
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}

#[test]
fn sweep_is_identical_serially_in_parallel_and_sharded() {
    let root = tempfile::tempdir().unwrap();
    let serial = root.path().join("serial");
    ok(&sweep(&serial, &["--jobs", "1"]));
    let reference = rows(&serial.join("summary.csv"));
    assert_eq!(reference.len(), 64);
    // The summary's columns are an interface (pandas/polars scripts): change them on purpose.
    let text = std::fs::read_to_string(serial.join("summary.csv")).unwrap();
    assert_eq!(
        text.lines().next().unwrap(),
        "run,seed,model.pendulum.length,time.end,initial.angle,status,t_final,max_phi,\
         f_evals,steps,wall_time_s,error,q0,q1,qd0,qd1"
    );
    assert!(
        reference.iter().all(|r| r.contains(",ok,")),
        "{reference:?}"
    );
    // Different random angles per run, the grid in order.
    assert_ne!(reference[0], reference[1]);
    assert!(reference[16].contains(",1.0,"), "{}", reference[16]);
    assert!(serial.join("summary.parquet").is_file());

    let parallel = root.path().join("parallel");
    ok(&sweep(&parallel, &["--jobs", "4"]));
    assert_eq!(rows(&parallel.join("summary.csv")), reference);

    let sharded = root.path().join("sharded");
    for i in 0..4 {
        ok(&sweep(
            &sharded,
            &["--jobs", "1", "--shard", &format!("{i}/4")],
        ));
    }
    assert_eq!(rows(&sharded.join("part-1-of-4.csv")).len(), 16);
    ok(&contour(&["sweep", "merge", s(&sharded)]));
    assert_eq!(rows(&sharded.join("summary.csv")), reference);
}

#[test]
fn a_killed_shard_rerun_alone_completes_the_merge() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("sweep");
    for i in [0, 1, 3] {
        ok(&sweep(&dir, &["--shard", &format!("{i}/4")]));
    }
    // Shard 2 killed before its first row: only a temporary file of its Parquet part.
    file(&dir, ".part-2-of-4.parquet.x1y2z3.tmp", "PAR1");
    let out = contour(&["sweep", "merge", s(&dir)]);
    assert!(!out.status.success());
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains(
            "missing runs (16): 2, 6, 10, 14, 18, 22, 26, 30, 34, 38, 42, 46, 50, 54, 58, 62"
        ),
        "{report}"
    );
    assert!(!dir.join("summary.csv").exists());

    // The shard from `auto` with Slurm's variables, alone.
    let out = bin()
        .args([
            "sweep",
            s(&scenarios().join("sweep_pendulum.toml")),
            "-o",
            s(&dir),
            "--shard",
            "auto",
            "--shards",
            "4",
        ])
        // A re-run of one task alone: Slurm's array has one task, the count is --shards.
        .env("SLURM_ARRAY_TASK_ID", "2")
        .env("SLURM_ARRAY_TASK_MIN", "2")
        .env("SLURM_ARRAY_TASK_COUNT", "1")
        .env("SLURM_ARRAY_TASK_COUNT", "4")
        .output()
        .unwrap();
    ok(&out);
    ok(&contour(&["sweep", "merge", s(&dir)]));
    let merged = rows(&dir.join("summary.csv"));
    assert_eq!(merged.len(), 64);
    let serial = root.path().join("serial");
    ok(&sweep(&serial, &["--jobs", "2"]));
    assert_eq!(merged, rows(&serial.join("summary.csv")));
}

#[test]
fn a_failing_run_is_a_row_and_the_sweep_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let base = file(dir.path(), "base.toml", GOOD);
    // A step budget of 1 fails during the run (not at load): a `failed` row, exit status 3.
    let sweep = file(
        dir.path(),
        "sweep.toml",
        &format!(
            "base = {:?}\n[grid]\n\"time.max_steps\" = [100000, 1, 100000]\n",
            base.file_name().unwrap().to_str().unwrap()
        ),
    );
    let out_dir = dir.path().join("out");
    let out = contour(&["sweep", s(&sweep), "-o", s(&out_dir), "--jobs", "2"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("3 of 3 run(s) have a row (0 kept by --resume), 1 not ok"),
        "{out:?}"
    );
    let text = std::fs::read_to_string(out_dir.join("summary.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(
        lines[1].contains(",ok,") && lines[3].contains(",ok,"),
        "{text}"
    );
    assert!(
        lines[2].contains(",failed,") && lines[2].contains("maximum number of steps"),
        "{text}"
    );
}

#[test]
fn malformed_sweeps_name_the_key() {
    let dir = tempfile::tempdir().unwrap();
    file(dir.path(), "base.toml", GOOD);
    for (text, needle) in [
        ("base = \"base.toml\"\n[grid]\n\"time.end\" = 1.0\n", "key `grid.time.end`"),
        ("base = \"base.toml\"\nsamples = 4\n[random]\n\"initial.angle\" = { triangle = [0, 1] }\n", "key `random.initial.angle`"),
        ("base = \"base.toml\"\n[random]\n\"initial.angle\" = { uniform = [0, 1] }\n", "key `samples`"),
        ("base = \"base.toml\"\nseeds = 3\n", "key `seeds`"),
        // A key that is not in the scenario's schema fails at load, with its line.
        ("base = \"base.toml\"\n[grid]\n\"model.pendulum.lenght\" = [1.0, 2.0]\n", "sweep.toml:3:1: key `grid.model.pendulum.lenght`: `model.pendulum.lenght` = 1.0: unknown field `lenght`"),
        ("base = \"base.toml\"\nsamples = 4\n[random]\n\"initial.angle\" = { log-uniform = [-1, 1] }\n", "sweep.toml:4:1: key `random.initial.angle`: log-uniform = [a, b] needs 0 < a < b, not [-1e0, 1e0]"),
        // A grid value the library refuses fails at load, named by the sweep's key.
        ("base = \"base.toml\"\n[grid]\n\"tolerance.atol\" = [1e-6, -1.0]\n", "sweep.toml:3:1: key `grid.tolerance.atol`: `tolerance.atol` = -1.0: -1e0"),
        ("base = \"base.toml\"\n[grid]\n\"model.pendulum.length\" = [1.0, 0.0]\n", "key `grid.model.pendulum.length`: `model.pendulum.length` = 0.0: 0e0 is out of range"),
        ("base = \"base.toml\"\nshards = 0\n", "key `shards`"),
    ] {
        let p = file(dir.path(), "sweep.toml", text);
        let out = contour(&["sweep", s(&p), "-o", s(&dir.path().join("out"))]);
        assert_eq!(out.status.code(), Some(1));
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains(needle), "{text}: {e}");
        // Nothing ran: no part was opened.
        assert!(!dir.path().join("out/summary.csv").exists(), "{text}");
    }
}

#[test]
fn every_built_in_model_and_a_urdf_simulates_and_animates() {
    let dir = tempfile::tempdir().unwrap();
    let urdf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../model/data/arm7.urdf");
    let models = [
        ("pendulum", "", "perturbation", 2),
        ("slider-crank", "", "perturbation", 3),
        // Redundant rows: the projector method.
        ("four-bar", "", "projector", 3),
        ("keerthi", "", "perturbation", 3),
        // One unilateral row: the contact simulator.
        ("huang", "force = [0.0, 1.0]\n", "perturbation", 2),
        ("arm7", "", "perturbation", 7),
        ("arm7", "tip_held = true\n", "projector", 7),
        ("andrews", "", "perturbation", 7),
        // A02: rank-deficient at the flat configurations, the projector method.
        ("n-four-bar", "n = 2\n", "projector", 6),
        (
            "urdf",
            &format!(
                "file = {:?}\ngravity = [0.0, 0.0, 0.0]\n",
                urdf.to_str().unwrap()
            ),
            "direct",
            7,
        ),
    ];
    for (k, (model, params, method, n)) in models.iter().enumerate() {
        let p = file(
            dir.path(),
            &format!("{k}.toml"),
            &format!(
                "[model.{model}]\n{params}[method]\nname = \"{method}\"\n[time]\nend = 0.02\noutput_step = 0.01\n"
            ),
        );
        let out_dir = dir.path().join(k.to_string());
        ok(&contour(&[
            "simulate",
            s(&p),
            "-o",
            s(&out_dir),
            "--animate",
        ]));
        let traj =
            Trajectory::read_json(std::fs::File::open(out_dir.join("trajectory.json")).unwrap())
                .unwrap();
        assert_eq!(traj.q[0].len(), *n, "{model}");
        // --animate: the mechanism drawn as one self-contained page
        let html = std::fs::read_to_string(out_dir.join("animation.html")).unwrap();
        assert!(
            html.contains("<canvas") && !html.contains("http://") && !html.contains("https://"),
            "{model}: animation.html is not a self-contained canvas page"
        );
        assert!((traj.times.last().unwrap() - 0.02).abs() < 1e-12, "{model}");
    }
    // The redundant four-bar (3 rows of rank 2) with perturbation: the method counts rank,
    // not rows, and runs it.
    let p = file(
        dir.path(),
        "fb.toml",
        "[model.four-bar]\n[method]\nname = \"perturbation\"\n[time]\nend = 0.02\n",
    );
    ok(&contour(&[
        "simulate",
        s(&p),
        "-o",
        s(&dir.path().join("fb")),
    ]));
}

#[test]
fn merge_reports_duplicated_runs_and_keeps_one_row_each() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("sweep");
    ok(&sweep(&dir, &["--shard", "0/2"]));
    ok(&sweep(&dir, &["--shard", "1/2"]));
    // A stale part of another split overlaps: the same runs, the same rows.
    ok(&sweep(&dir, &["--shard", "3/4"]));
    let out = contour(&["sweep", "merge", s(&dir)]);
    ok(&out);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("merged 3 part(s)") && report.contains("64 of 64 run(s)"),
        "{report}"
    );
    assert!(
        report.contains("duplicated runs (first kept): [3, 7, 11"),
        "{report}"
    );
    assert_eq!(rows(&dir.join("summary.csv")).len(), 64);
}

#[test]
fn merge_lists_every_file_it_wrote() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("sweep");
    ok(&sweep(&dir, &["--shard", "0/2"]));
    ok(&sweep(&dir, &["--shard", "1/2"]));
    let out = contour(&["sweep", "merge", s(&dir)]);
    ok(&out);
    let report = String::from_utf8_lossy(&out.stdout);
    for name in ["summary.csv", "summary.parquet", "summary.json"] {
        let line = format!("wrote {}", dir.join(name).display());
        assert!(
            report.lines().any(|l| l == line),
            "{name} not listed: {report}"
        );
        assert!(dir.join(name).is_file());
    }
}

#[test]
fn without_a_progress_bar_a_part_logs_a_few_lines_not_one_per_run() {
    let root = tempfile::tempdir().unwrap();
    let out = sweep(&root.path().join("sweep"), &["--shard", "0/2"]);
    ok(&out);
    let log = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = log.lines().collect();
    // 32 runs: the start and a line per tenth (the last one at the end)
    assert!(lines.len() <= 12, "{} lines: {log}", lines.len());
    assert!(
        lines.first().is_some_and(|l| l.contains("32 run(s) to do")),
        "{log}"
    );
    assert!(
        lines.iter().any(|l| l.contains("[32/32] runs done")),
        "{log}"
    );
}

#[test]
fn a_urdf_closure_gives_the_built_in_tip_held_arm() {
    let dir = tempfile::tempdir().unwrap();
    let urdf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../model/data/arm7.urdf");
    let q0 = contour::model::models::arm7_initial_q();
    let tail = "[method]\nname = \"projector\"\n[time]\nend = 0.05\noutput_step = 0.01\n";
    let built_in = file(
        dir.path(),
        "builtin.toml",
        &format!("[model.arm7]\ntip_held = true\n{tail}"),
    );
    let from_urdf = file(
        dir.path(),
        "urdf.toml",
        &format!(
            "[model.urdf]\nfile = {:?}\ngravity = [0.0, 0.0, 0.0]\n\
             [[model.urdf.closures]]\nkind = \"point-at-world\"\nbody = \"tip\"\n\
             [initial]\nq = {q0:?}\n{tail}",
            urdf.to_str().unwrap()
        ),
    );
    let mut trajs = Vec::new();
    for (k, p) in [built_in, from_urdf].iter().enumerate() {
        let out_dir = dir.path().join(k.to_string());
        ok(&contour(&["simulate", s(p), "-o", s(&out_dir)]));
        trajs.push(
            Trajectory::read_json(std::fs::File::open(out_dir.join("trajectory.json")).unwrap())
                .unwrap(),
        );
    }
    assert_eq!(trajs[0].lambda[0].len(), 3);
    assert_eq!(trajs[0].q, trajs[1].q);
    assert_eq!(trajs[0].lambda, trajs[1].lambda);

    // A closure on a link the URDF does not have names the key.
    let bad = file(
        dir.path(),
        "bad.toml",
        &format!(
            "[model.urdf]\nfile = {:?}\n[[model.urdf.closures]]\nkind = \"weld\"\nbody = \"tipp\"\n{tail}",
            urdf.to_str().unwrap()
        ),
    );
    let out = contour(&["simulate", s(&bad), "-o", s(&dir.path().join("bad"))]);
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("key `model.urdf.closures.body`") && e.contains("tipp"),
        "{e}"
    );
}

/// `urdf_limits = true`: the Panda's `<limit effort= velocity=>` tags bound the plan — the
/// written τ within the efforts, q̇ within the velocities (one of them reached), the time no
/// shorter than under the efforts alone; on a non-URDF model the key is named.
#[test]
fn plan_takes_effort_and_velocity_limits_from_the_urdf() {
    let dir = tempfile::tempdir().unwrap();
    let urdf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../model/data/panda.urdf");
    let urdf = urdf.canonicalize().unwrap();
    let (_, lim) = contour::model::urdf::tree_and_limits_from_urdf_str(
        &std::fs::read_to_string(&urdf).unwrap(),
    )
    .unwrap();
    let scenario = |limits: &str| {
        format!(
            "[model.urdf]\nfile = {:?}\ngravity = [0.0, 0.0, -9.81]\n\n[plan]\n\
             path.line.start = [0.0, -0.5, 0.0, -2.0, 0.0, 1.6, 0.8]\n\
             path.line.end = [0.8, 0.2, 0.3, -1.2, 0.4, 2.2, 0.0]\n{limits}\nsample_rate = 500.0\n",
            urdf.to_str().unwrap()
        )
    };
    let run = |name: &str, limits: &str| {
        let f = file(dir.path(), &format!("{name}.toml"), &scenario(limits));
        let o = dir.path().join(name);
        let out = contour(&["plan", s(&f), "-o", s(&o)]);
        ok(&out);
        let j: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(o.join("plan.json")).unwrap()).unwrap();
        let csv = std::fs::read_to_string(o.join("plan.csv")).unwrap();
        (j["total_time"].as_f64().unwrap(), csv)
    };
    let effort = format!("torque_limits = {:?}", lim.effort);
    let (t_effort, _) = run("effort", &effort);
    let (t_urdf, csv) = run("urdf", "urdf_limits = true");
    assert!(t_urdf >= t_effort * (1.0 - 1e-9), "{t_urdf} vs {t_effort}");
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (qd0, tau0) = (col("qd0"), col("tau0"));
    let mut peak_speed = 0.0f64;
    for line in lines {
        let v: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        for i in 0..7 {
            assert!(v[tau0 + i].abs() <= lim.effort[i] * (1.0 + 1e-9));
            peak_speed = peak_speed.max(v[qd0 + i].abs() / lim.velocity[i]);
        }
    }
    eprintln!("panda plan: effort only {t_effort:.6} s, URDF limits {t_urdf:.6} s, peak speed {peak_speed:.6} of the limit");
    assert!(
        peak_speed <= 1.0 + 1e-6 && peak_speed > 0.999,
        "{peak_speed}"
    );
    let bad = file(
        dir.path(),
        "bad.toml",
        "[model.arm7]\n\n[plan]\npath.line.start = [0, 0, 0, 0, 0, 0, 0]\n\
         path.line.end = [0.1, 0, 0, 0, 0, 0, 0]\nurdf_limits = true\n",
    );
    let out = contour(&["plan", s(&bad), "-o", s(&dir.path().join("bad"))]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("plan.urdf_limits"));
}

#[test]
fn models_lists_the_registry_that_scenarios_read() {
    let out = contour(&["models"]);
    ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    for e in contour_scenario::registry::MODELS {
        assert!(
            text.contains(&format!("| `{}`: ", e.name)),
            "{}: {text}",
            e.name
        );
    }
    assert!(
        text.contains("`n` (integer, 1 to 1000, required)"),
        "{text}"
    );
}

/// Two revolute links, the second joint mimicking the first (`q1 = 2 q0 + 0.1`); the second
/// link's inertia has a principal moment of −1e-9 kg·m², which the lenient import sets to
/// zero with a warning.
const MIMIC_URDF: &str = r#"<robot name="mimic">
  <link name="base"/>
  <link name="a"><inertial><mass value="1"/><origin xyz="0.5 0 0"/>
    <inertia ixx="0.01" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><origin xyz="0.5 0 0"/>
    <inertia ixx="0.1" iyy="0.1" izz="-1e-9" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j0" type="revolute"><parent link="base"/><child link="a"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="5"/></joint>
  <joint name="j1" type="revolute"><parent link="a"/><child link="b"/>
    <origin xyz="1 0 0"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="5"/>
    <mimic joint="j0" multiplier="2" offset="0.1"/></joint>
</robot>
"#;

#[test]
fn simulate_on_a_urdf_prints_its_import_report_and_strict_refuses_warnings() {
    let dir = tempfile::tempdir().unwrap();
    file(dir.path(), "mimic.urdf", MIMIC_URDF);
    let sc = file(
        dir.path(),
        "s.toml",
        "[model.urdf]\nfile = \"mimic.urdf\"\n[time]\nend = 0.01\n",
    );
    let out = dir.path().join("out");
    let run = contour(&["simulate", s(&sc), "-o", s(&out)]);
    ok(&run);
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(text.contains("URDF warning: "), "{text}");
    assert!(
        text.contains("URDF mimic: joint 'j1' (q[1]) = 2 · joint 'j0' (q[0]) + 0.1"),
        "{text}"
    );
    let strict = contour(&["simulate", s(&sc), "-o", s(&out), "--strict"]);
    assert_eq!(strict.status.code(), Some(1), "{strict:?}");
    let err = String::from_utf8_lossy(&strict.stderr);
    assert!(err.contains("model.urdf.file"), "{err}");
}

#[test]
fn a_sweep_refuses_a_directory_with_another_sweeps_complete_part_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let base = "[model.pendulum]\n[initial]\nangle = 0.3\n[time]\nend = 0.05\n";
    file(dir.path(), "base.toml", base);
    let a = file(
        dir.path(),
        "a.toml",
        "base = \"base.toml\"\n[grid]\n\"model.pendulum.length\" = [1.0, 2.0]\n",
    );
    let b = file(
        dir.path(),
        "b.toml",
        "base = \"base.toml\"\n[grid]\n\"model.pendulum.length\" = [1.0, 3.0]\n",
    );
    let out = dir.path().join("out");
    let sweep = |f: &Path, extra: &[&str]| {
        let mut args = vec![
            "sweep",
            s(f),
            "-o",
            s(&out),
            "--jobs",
            "1",
            "--no-progress-bar",
        ];
        args.extend_from_slice(extra);
        contour(&args)
    };
    ok(&sweep(&a, &[]));
    let meta = std::fs::read_to_string(out.join("summary.json")).unwrap();
    let first: serde_json::Value = serde_json::from_str(&meta).unwrap();
    let fingerprint = first["fingerprint"].as_str().unwrap().to_string();
    // The same sweep again is no other sweep.
    ok(&sweep(&a, &[]));
    let refused = sweep(&b, &[]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains(&fingerprint) && err.contains("--force"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("summary.json")).unwrap(),
        meta
    );
    ok(&sweep(&b, &["--force"]));
}
