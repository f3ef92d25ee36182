//! Sweeps as a cluster runs them, through the built binary: shards started at once into one
//! directory (a Kubernetes indexed Job), a shard re-run alone with the count from the sweep,
//! merges that refuse parts of another sweep, a shard killed (SIGKILL, SIGTERM) and resumed,
//! exit statuses, and errors located in the scenario. `.ci/cluster-tests` runs the same on a
//! real Slurm cluster and at full size (20 × 16 concurrent shards).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

mod common;
use common::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A summary's or part's rows without the wall-time column, sorted by run.
fn rows(csv: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let wall = header.iter().position(|h| *h == "wall_time_s").unwrap();
    let mut rows: Vec<(usize, String)> = lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            let kept: Vec<&str> = cells
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != wall)
                .map(|(_, c)| *c)
                .collect();
            (cells[0].parse().unwrap(), kept.join(","))
        })
        .collect();
    rows.sort();
    rows.into_iter().map(|(_, r)| r).collect()
}

/// A 48-run pendulum sweep (3 lengths × 16 draws) split into `shards = 4`.
const SWEEP: &str = "shards = 4\nseed = 7\nsamples = 16\n[base.model.pendulum]\n[base.method]\nname = \"baumgarte\"\n[base.time]\nend = 0.2\n[grid]\n\"model.pendulum.length\" = [0.5, 1.0, 1.5]\n[random]\n\"initial.angle\" = { uniform = [-1.0, 1.0] }\n";

#[test]
fn shards_started_together_never_fail_and_merge_to_the_whole_sweep() {
    let dir = tempfile::tempdir().unwrap();
    // No `shards` in the file: the Job passes the count, --shards 16.
    let sweep = file(dir.path(), "sweep.toml", &SWEEP.replace("shards = 4\n", ""));
    let whole = dir.path().join("whole");
    ok(&contour(&[
        "sweep",
        s(&sweep),
        "-o",
        s(&whole),
        "--jobs",
        "2",
    ]));
    let reference = rows(&whole.join("summary.csv"));
    assert_eq!(reference.len(), 48);
    for rep in 0..3 {
        let out = dir.path().join(format!("k8s-{rep}"));
        // 16 shards of the same sweep, started at once into a directory none has created.
        let children: Vec<_> = (0..16)
            .map(|i| {
                bin()
                    .args(["sweep", s(&sweep), "-o", s(&out), "--shards", "16"])
                    .args(["--shard", "auto", "--jobs", "1", "--no-progress-bar"])
                    .env("JOB_COMPLETION_INDEX", i.to_string())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for c in children {
            let o = c.wait_with_output().unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
        ok(&contour(&["sweep", "merge", s(&out)]));
        assert_eq!(rows(&out.join("summary.csv")), reference);
        let leftovers: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
}

#[test]
fn a_task_rerun_alone_runs_its_shard_of_the_whole_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = file(dir.path(), "sweep.toml", SWEEP);
    let whole = dir.path().join("whole");
    ok(&contour(&[
        "sweep",
        s(&sweep),
        "-o",
        s(&whole),
        "--jobs",
        "2",
    ]));
    let out = dir.path().join("slurm");
    // `sbatch --array=0-3:2` then `sbatch --array=1` and `--array=3`: Slurm's array sizes
    // are 2, 1 and 1; the shard count stays the sweep's 4.
    for (id, min, count) in [(0, 0, 2), (2, 0, 2), (1, 1, 1), (3, 3, 1)] {
        let o = bin()
            .args(["sweep", s(&sweep), "-o", s(&out), "--shard", "auto"])
            .env("SLURM_ARRAY_TASK_ID", id.to_string())
            .env("SLURM_ARRAY_TASK_MIN", min.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", count.to_string())
            .output()
            .unwrap();
        ok(&o);
        assert!(out.join(format!("part-{id}-of-4.csv")).is_file());
    }
    let o = contour(&["sweep", "merge", s(&out)]);
    ok(&o);
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(
        report.contains("merged 4 part(s)") && report.contains("48 of 48 run(s)"),
        "{report}"
    );
    assert!(!report.contains("duplicated"), "{report}");
    assert_eq!(
        rows(&out.join("summary.csv")),
        rows(&whole.join("summary.csv"))
    );
    // A count that disagrees with the sweep's is refused, naming both.
    let o = contour(&[
        "sweep",
        s(&sweep),
        "-o",
        s(&out),
        "--shards",
        "8",
        "--shard",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("--shards says 8 shards, the sweep's `shards` says 4"),
        "{e}"
    );
    // A task index beyond the sweep's shards is refused, naming the variable.
    let o = bin()
        .args(["sweep", s(&sweep), "-o", s(&out), "--shard", "auto"])
        .env("SLURM_ARRAY_TASK_ID", "4")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("SLURM_ARRAY_TASK_ID = 4 is not below the shard count 4"),
        "{o:?}"
    );
}

#[test]
fn merge_refuses_parts_of_different_sweeps_and_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let a = file(dir.path(), "a.toml", SWEEP);
    // The same file with another seed and tolerance: another sweep.
    let b = file(
        dir.path(),
        "b.toml",
        &SWEEP
            .replace("seed = 7", "seed = 8")
            .replace("end = 0.2", "end = 0.2\n[base.tolerance]\natol = 1e-6"),
    );
    let out = dir.path().join("mixed");
    // Parts of two sweeps in one directory (a shard does not start beside another sweep's
    // complete part without --force; shards started together, or forced, can still mix).
    for (f, i) in [(&a, "0"), (&a, "1"), (&b, "2"), (&a, "3")] {
        ok(&contour(&[
            "sweep",
            s(f),
            "-o",
            s(&out),
            "--shard",
            i,
            "--force",
        ]));
    }
    let o = contour(&["sweep", "merge", s(&out)]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("refusing to merge parts of different sweeps"),
        "{e}"
    );
    assert!(
        e.contains("part-2-of-4.json") && e.contains("part-3-of-4.json"),
        "{e}"
    );
    assert!(!out.join("summary.csv").exists());
    // The fingerprint is of the resolved sweep: the same sweep written differently (defaults
    // spelled out, keys reordered) is the same sweep.
    let c = file(
        dir.path(),
        "c.toml",
        &SWEEP.replace(
            "[base.method]",
            "[base.tolerance]\natol = 1e-4\n[base.method]",
        ),
    );
    ok(&contour(&[
        "sweep",
        s(&c),
        "-o",
        s(&out),
        "--shard",
        "2",
        "--force",
    ]));
    ok(&contour(&["sweep", "merge", s(&out)]));
}

/// 200 runs of Keerthi's robot of ~30 ms each (steps of at most 1e-4 s over 1 s), in 4
/// shards: slow enough to be stopped mid-shard.
const SLOW: &str = "seed = 3\nsamples = 200\nshards = 4\n[base.model.keerthi]\n[base.initial]\nq = [0.486, 0.345, 0.162]\nqd = [0.0, 0.0, 0.0]\n[base.tolerance]\natol = 1e-10\n[base.integrator]\nh_max = 1e-4\n[base.time]\nend = 1.0\n[random]\n\"initial.q.0\" = { uniform = [0.286, 0.686] }\n";

/// Shard 1 of `sweep` (50 runs) on one thread into `out`, until `rows` rows are on disk;
/// then `kill -<signal>`; returns the exit status.
fn interrupt(sweep: &Path, out: &Path, signal: &str, rows: usize) -> Option<i32> {
    let mut child = bin()
        .args([
            "sweep",
            s(sweep),
            "-o",
            s(out),
            "--shard",
            "1",
            "--jobs",
            "1",
        ])
        .args(["--no-progress-bar", "--resume"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let csv = out.join("part-1-of-4.csv");
    let start = Instant::now();
    while std::fs::read_to_string(&csv).map_or(0, |t| t.lines().count()) < rows + 1 {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no rows after 2 min"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let st = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    child.wait().unwrap().code()
}

#[test]
fn a_killed_shard_resumes_to_the_rows_of_an_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = file(dir.path(), "slow.toml", SLOW);
    let whole = dir.path().join("whole");
    ok(&contour(&[
        "sweep",
        s(&sweep),
        "-o",
        s(&whole),
        "--shard",
        "1",
        "--jobs",
        "2",
    ]));
    let reference = rows(&whole.join("part-1-of-4.csv"));
    assert_eq!(reference.len(), 50);

    // SIGKILL: the rows written so far stay; a row cut mid-line is dropped by --resume.
    let killed = dir.path().join("killed");
    assert_eq!(interrupt(&sweep, &killed, "KILL", 5), None);
    let csv = killed.join("part-1-of-4.csv");
    let kept = rows(&csv).len();
    assert!((5..50).contains(&kept), "{kept} rows");
    let mut f = std::fs::OpenOptions::new().append(true).open(&csv).unwrap();
    std::io::Write::write_all(&mut f, b"999,123,0.4").unwrap();
    drop(f);
    let o = contour(&[
        "sweep",
        s(&sweep),
        "-o",
        s(&killed),
        "--shard",
        "1",
        "--resume",
        "--jobs",
        "2",
    ]);
    ok(&o);
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(
        report.contains(&format!(
            "50 of 50 run(s) have a row ({kept} kept by --resume)"
        )),
        "{report}"
    );
    assert_eq!(rows(&csv), reference);

    // SIGTERM: the running run finishes, rows are flushed, files closed; exit 128 + 15.
    let termed = dir.path().join("termed");
    assert_eq!(interrupt(&sweep, &termed, "TERM", 3), Some(143));
    let meta = std::fs::read_to_string(termed.join("part-1-of-4.json")).unwrap();
    assert!(meta.contains("\"complete\": false"), "{meta}");
    let kept = rows(&termed.join("part-1-of-4.csv")).len();
    assert!(meta.contains(&format!("\"rows\": {kept}")), "{meta}");
    assert!(termed.join("part-1-of-4.parquet").is_file());
    // An incomplete part is merged as far as it goes: its missing runs are named (exit 4).
    let o = contour(&["sweep", "merge", s(&termed)]);
    assert_eq!(o.status.code(), Some(4));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("stopped before their last run"),
        "{o:?}"
    );
    ok(&contour(&[
        "sweep",
        s(&sweep),
        "-o",
        s(&termed),
        "--shard",
        "1",
        "--resume",
        "--jobs",
        "2",
    ]));
    assert_eq!(rows(&termed.join("part-1-of-4.csv")), reference);
    // Resuming a complete part runs nothing and keeps every row.
    let o = contour(&[
        "sweep",
        s(&sweep),
        "-o",
        s(&termed),
        "--shard",
        "1",
        "--resume",
    ]);
    ok(&o);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("(50 kept by --resume)"),
        "{o:?}"
    );
    // Resuming into the part of another sweep is refused.
    let other = file(
        dir.path(),
        "other.toml",
        &SLOW.replace("seed = 3", "seed = 4"),
    );
    let o = contour(&[
        "sweep",
        s(&other),
        "-o",
        s(&termed),
        "--shard",
        "1",
        "--resume",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("cannot resume"),
        "{o:?}"
    );
}

const GOOD: &str = "[model.pendulum]\nlength = 1.0\n\n[initial]\nangle = 0.2\n\n[method]\nname = \"baumgarte\"\n\n[time]\nend = 0.1\n";

/// `simulate` of `GOOD` edited by `edit`: (exit status, stderr).
fn simulate(edit: (&str, &str)) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    assert!(GOOD.contains(edit.0));
    let p = file(dir.path(), "bad.toml", &GOOD.replace(edit.0, edit.1));
    let out = contour(&["simulate", s(&p), "-o", s(&dir.path().join("out"))]);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn library_range_checks_name_the_key_and_line() {
    for (edit, needle) in [
        (("end = 0.1", "start = 2.0\nend = 1.0"), "bad.toml:12:1: key `time.end`: must be finite and after time.start = 2e0, not 1e0"),
        (("length = 1.0", "length = 0.0"), "bad.toml:2:1: key `model.pendulum.length`: 0e0 is out of range"),
        (("end = 0.1", "end = 0.1\n[tolerance]\natol = 1e-300"), "bad.toml:13:1: key `tolerance.atol`: 1e-300"),
        (("end = 0.1", "end = 0.1\noutputs = [0.0, 0.5]"), "bad.toml:12:1: key `time.outputs`: outputs[1] = 5e-1 is outside [0e0, 1e-1]"),
        (("name = \"baumgarte\"", "name = \"exact-stabilization\"\n[integrator]\nname = \"abm\""), "bad.toml:10:1: key `integrator.name`: method exact-stabilization cannot use integrator abm: exact stabilization is a DAE method and needs the BDF"),
    ] {
        let (code, e) = simulate(edit);
        assert_eq!(code, Some(1), "{e}");
        assert!(e.contains(needle), "{edit:?}: {e}");
        assert!(e.len() < 400, "{e}");
    }
    // exact-stabilization without an [integrator] runs on the BDF it needs.
    let dir = tempfile::tempdir().unwrap();
    let p = file(
        dir.path(),
        "ecs.toml",
        &GOOD.replace("baumgarte", "exact-stabilization"),
    );
    let out = contour(&["simulate", s(&p), "-o", s(&dir.path().join("out"))]);
    ok(&out);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("/bdf"),
        "{out:?}"
    );
    // -o onto a file.
    let good = file(dir.path(), "good.toml", GOOD);
    let o = contour(&["simulate", s(&good), "-o", s(&good)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("is a file; -o names the output directory"),
        "{o:?}"
    );
    // --jobs beyond the cap.
    let sweep = file(dir.path(), "sweep.toml", SWEEP);
    let o = contour(&[
        "sweep",
        s(&sweep),
        "-o",
        s(&dir.path().join("j")),
        "--jobs",
        "100000",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--jobs 100000: give 1 to 1024"),
        "{o:?}"
    );
}

#[test]
fn plan_takes_acceleration_and_velocity_limits() {
    // The arm's line moves every joint by 0.3 rad (q = q0 + s Δ, s ∈ [0, 1]); with the torque
    // limit out of reach, |q̈ᵢ| ≤ a is s̈ ≤ a / 0.3 and |q̇ᵢ| ≤ v is ṡ ≤ v / 0.3. Rest to rest
    // the optimum is bang-bang, T = 2 √(0.3 / a), or with a speed cap the trapezoid
    // T = 1 / ṡmax + ṡmax / s̈max: closed forms the phase-plane plan must meet.
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenarios/plan.toml"),
    )
    .unwrap()
    .replace("torque_limit = 1000.0 ", "torque_limit = 1e9 ")
    .replace("toppra_intervals = 1000", "");
    let (a, v) = (2.0_f64, 0.5_f64);
    let (sdd, sd) = (a / 0.3, v / 0.3);
    for (extra, expected) in [
        (
            format!("acceleration_limit = {a}\n"),
            2.0 * (0.3 / a).sqrt(),
        ),
        (
            format!(
                "acceleration_limits = [{a}, {a}, {a}, {a}, {a}, {a}, {a}]\nvelocity_limit = {v}\n"
            ),
            1.0 / sd + sd / sdd,
        ),
    ] {
        let p = file(dir.path(), "plan.toml", &format!("{base}{extra}"));
        let out = dir.path().join("out");
        ok(&contour(&["plan", s(&p), "-o", s(&out)]));
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("plan.json")).unwrap()).unwrap();
        let t = summary["total_time"].as_f64().unwrap();
        assert!(
            (t - expected).abs() < 1e-4 * expected,
            "{extra}: {t} vs {expected}"
        );
    }
    // Both kinds of one limit, or a non-positive limit, name the key.
    let p = file(
        dir.path(),
        "bad.toml",
        &format!("{base}acceleration_limit = 1.0\nacceleration_limits = [1.0]\n"),
    );
    let o = contour(&["plan", s(&p), "-o", s(&dir.path().join("b"))]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("key `plan.acceleration_limit`"),
        "{o:?}"
    );
    let p = file(
        dir.path(),
        "bad.toml",
        &format!("{base}velocity_limit = -1.0\n"),
    );
    let o = contour(&["plan", s(&p), "-o", s(&dir.path().join("b"))]);
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("key `plan.velocity_limit`: joint 0: -1e0 is not a positive limit"),
        "{o:?}"
    );
}

#[test]
fn oversized_scenario_files_are_refused_before_parsing() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("huge.toml");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(33 << 20).unwrap(); // sparse: no memory, no disk
    let o = contour(&["simulate", s(&p), "-o", s(&dir.path().join("o"))]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("limited to 33554432 bytes"),
        "{o:?}"
    );
}

#[test]
fn a_shard_launched_twice_is_refused_while_the_first_writes() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = file(dir.path(), "sweep.toml", SWEEP);
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    // The first process's lock on its part, held here.
    let held = std::fs::File::create(out.join("part-2-of-4.csv")).unwrap();
    held.try_lock().unwrap();
    let o = contour(&["sweep", s(&sweep), "-o", s(&out), "--shard", "2"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("another process is writing this part"),
        "{o:?}"
    );
    drop(held);
    ok(&contour(&[
        "sweep",
        s(&sweep),
        "-o",
        s(&out),
        "--shard",
        "2",
    ]));
}
