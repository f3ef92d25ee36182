//! `contour sweep sweep.toml -o out/ [--shard i/n|auto] [--jobs k]` and `contour sweep merge
//! out/`.
//!
//! A sweep is a base scenario plus a grid over dotted keys (`"model.pendulum.length" = [0.5,
//! 1.0]`) and/or a seeded random sample (`"initial.angle" = { uniform = [-1, 1] }`, `samples`
//! draws per grid point). Run `i` is grid point `i / samples`, draw `i % samples`; its
//! random values come from a generator seeded with [`run_seed`]`(seed, i)` alone, so any run,
//! any shard and any number of threads give the same rows. A run that fails is a row with
//! its error; the sweep goes on.
//!
//! Files: `summary.csv` + `summary.parquet` (whole sweep), or `part-i-of-n.csv` +
//! `part-i-of-n.parquet` with `--shard i/n` (runs with index ≡ i mod n), each written
//! atomically, plus `sweep.json` (the run count and swept keys) for `sweep merge`.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{CliError, Result, ScenarioError};
use crate::model::Origin;
use crate::run::{run, Outcome};
use crate::scenario::{self, Scenario};
use crate::table::{write_atomic, Table};

/// A distribution of a random key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Distribution {
    /// Uniform on `[a, b)`.
    Uniform([f64; 2]),
    /// Normal with mean and standard deviation.
    Normal([f64; 2]),
    /// `exp` of a uniform on `[ln a, ln b)` (a, b > 0).
    LogUniform([f64; 2]),
    /// A uniform integer in `[a, b]`.
    Integer([i64; 2]),
    /// One of the values, uniformly.
    Choice(Vec<toml::Value>),
}

/// The sweep file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepFile {
    /// Path of the base scenario (relative to the sweep file) or the scenario inline.
    base: toml::Value,
    #[serde(default)]
    seed: u64,
    #[serde(default)]
    samples: Option<usize>,
    #[serde(default)]
    grid: toml::Table,
    #[serde(default)]
    random: toml::Table,
}

/// A parsed sweep: the base scenario as a TOML table, the grid and the random keys.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// The base scenario.
    pub base: toml::Table,
    /// Directory of relative paths in the base.
    pub dir: PathBuf,
    /// Seed of the sample.
    pub seed: u64,
    /// Draws per grid point.
    pub samples: usize,
    /// Grid keys and their values.
    pub grid: Vec<(String, Vec<toml::Value>)>,
    /// Random keys and their distributions.
    pub random: Vec<(String, Distribution)>,
}

/// The seed mixer and the generator of the sample (SplitMix64).
pub use contour::model::rng::SplitMix64;

/// The seed of run `i` of a sweep seeded `seed`.
pub fn run_seed(seed: u64, i: u64) -> u64 {
    SplitMix64::new(seed ^ SplitMix64::new(i).next_u64()).next_u64()
}

impl Distribution {
    fn draw(&self, rng: &mut SplitMix64) -> toml::Value {
        match self {
            Distribution::Uniform([a, b]) => toml::Value::Float(a + (b - a) * rng.unit()),
            Distribution::LogUniform([a, b]) => {
                toml::Value::Float((a.ln() + (b.ln() - a.ln()) * rng.unit()).exp())
            }
            Distribution::Normal([mu, sigma]) => {
                // Box–Muller.
                let u1 = 1.0 - rng.unit();
                let u2 = rng.unit();
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                toml::Value::Float(mu + sigma * z)
            }
            Distribution::Integer([a, b]) => {
                // b − a + 1 values (wrapping: any a ≤ b of i64 works; a > b gives a).
                let span = if b < a {
                    1
                } else {
                    (b.wrapping_sub(*a) as u64).wrapping_add(1)
                };
                let k = if span == 0 {
                    rng.next_u64()
                } else {
                    rng.next_u64() % span
                };
                toml::Value::Integer(a.wrapping_add(k as i64))
            }
            Distribution::Choice(v) => v[(rng.next_u64() % v.len() as u64) as usize].clone(),
        }
    }
}

/// Flattens nested tables into dotted keys; `leaf` decides where a value stops.
fn flatten(
    prefix: &str,
    table: &toml::Table,
    leaf: &dyn Fn(&toml::Value) -> bool,
    out: &mut Vec<(String, toml::Value)>,
) {
    for (k, v) in table {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            toml::Value::Table(t) if !leaf(v) => flatten(&key, t, leaf, out),
            _ => out.push((key, v.clone())),
        }
    }
}

/// Largest number of runs of one sweep (a larger one is a typo more often than a study).
pub const MAX_RUNS: usize = 100_000_000;

const DISTRIBUTIONS: [&str; 5] = ["uniform", "normal", "log-uniform", "integer", "choice"];

impl Sweep {
    /// Reads and checks a sweep file (and its base scenario).
    pub fn load(path: &Path) -> Result<Self> {
        let src = std::fs::read_to_string(path).map_err(|e| CliError::io(path, e))?;
        let file = path.display().to_string();
        let f: SweepFile =
            toml::from_str(&src).map_err(|e| scenario::toml_error(&file, &src, &e))?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let origin = Origin {
            file: &file,
            source: Some(&src),
            dir: &dir,
        };
        let (base, base_dir) = match &f.base {
            toml::Value::String(p) => {
                let bp = dir.join(p);
                let loaded = scenario::load(&bp)?; // errors with the base file's lines
                let table: toml::Table = toml::from_str(&loaded.source)
                    .map_err(|e| scenario::toml_error(&loaded.file, &loaded.source, &e))?;
                (table, loaded.dir)
            }
            toml::Value::Table(t) => {
                Scenario::deserialize(toml::Value::Table(t.clone()))
                    .map_err(|e| value_error(origin, "base", &e))?;
                (t.clone(), dir.clone())
            }
            _ => {
                return Err(origin
                    .error("base", "a scenario file name or an inline table")
                    .into())
            }
        };
        let mut grid_leaves = Vec::new();
        flatten("", &f.grid, &|_| false, &mut grid_leaves);
        let mut grid = Vec::new();
        for (k, v) in grid_leaves {
            match v {
                toml::Value::Array(a) if !a.is_empty() => grid.push((k, a)),
                _ => {
                    return Err(origin
                        .error(
                            &format!("grid.{k}"),
                            "a grid key takes a non-empty array of values",
                        )
                        .into())
                }
            }
        }
        // A distribution is a table of non-tables (`{ uniform = [a, b] }`).
        let is_dist = |v: &toml::Value| matches!(v, toml::Value::Table(t) if t.values().all(|x| !x.is_table()));
        let mut random_leaves = Vec::new();
        flatten("", &f.random, &is_dist, &mut random_leaves);
        let mut random = Vec::new();
        for (k, v) in random_leaves {
            let d = Distribution::deserialize(v).map_err(|e| {
                origin.error(
                    &format!("random.{k}"),
                    format!(
                        "{} (a distribution: {})",
                        e.message(),
                        DISTRIBUTIONS.join(", ")
                    ),
                )
            })?;
            if let Distribution::Choice(c) = &d {
                if c.is_empty() {
                    return Err(origin
                        .error(&format!("random.{k}"), "choice of nothing")
                        .into());
                }
            }
            random.push((k, d));
        }
        let samples = match (f.samples, random.is_empty()) {
            (Some(0), _) => return Err(origin.error("samples", "must be at least 1").into()),
            (Some(n), false) => n,
            (None, false) => {
                return Err(origin
                    .error("samples", "missing: a [random] table needs `samples`")
                    .into())
            }
            (Some(_), true) => {
                return Err(origin.error("samples", "needs a [random] table").into())
            }
            (None, true) => 1,
        };
        let points = grid
            .iter()
            .try_fold(samples, |n: usize, (_, v)| n.checked_mul(v.len()))
            .filter(|&n| n <= MAX_RUNS);
        if points.is_none() {
            return Err(origin
                .error("grid", format!("more than {MAX_RUNS} runs"))
                .into());
        }
        Ok(Sweep {
            base,
            dir: base_dir,
            seed: f.seed,
            samples,
            grid,
            random,
        })
    }

    /// Number of runs.
    pub fn len(&self) -> usize {
        self.grid.iter().map(|(_, v)| v.len()).product::<usize>() * self.samples
    }

    /// Whether the sweep has no run.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The swept keys, grid first, then random.
    pub fn keys(&self) -> Vec<String> {
        self.grid
            .iter()
            .map(|(k, _)| k.clone())
            .chain(self.random.iter().map(|(k, _)| k.clone()))
            .collect()
    }

    /// The values of run `i` (in the order of [`Sweep::keys`]).
    pub fn values(&self, i: usize) -> Vec<toml::Value> {
        let mut g = i / self.samples;
        let mut vals = vec![toml::Value::Boolean(false); self.grid.len()];
        for (slot, (_, v)) in vals.iter_mut().zip(&self.grid).rev() {
            *slot = v[g % v.len()].clone();
            g /= v.len();
        }
        let mut rng = SplitMix64::new(run_seed(self.seed, i as u64));
        vals.extend(self.random.iter().map(|(_, d)| d.draw(&mut rng)));
        vals
    }

    /// The scenario of run `i`.
    pub fn scenario(&self, i: usize) -> Result<Scenario, ScenarioError> {
        let mut t = self.base.clone();
        let name = format!("<run {i}>");
        let origin = Origin {
            file: &name,
            source: None,
            dir: &self.dir,
        };
        for (k, v) in self.keys().iter().zip(self.values(i)) {
            set_dotted(&mut t, k, v).map_err(|m| origin.error(k, m))?;
        }
        Scenario::deserialize(toml::Value::Table(t)).map_err(|e| value_error(origin, "", &e))
    }
}

/// A serde error of a value-built scenario (no spans): the key named in the message if any.
fn value_error(origin: Origin<'_>, prefix: &str, e: &toml::de::Error) -> ScenarioError {
    let msg = e.message().to_string();
    let key = msg
        .split("unknown field `")
        .nth(1)
        .and_then(|r| r.split('`').next())
        .map(|k| {
            if prefix.is_empty() {
                k.to_string()
            } else {
                format!("{prefix}.{k}")
            }
        })
        .unwrap_or_else(|| prefix.to_string());
    let mut err = origin.error(&key, msg);
    if key.is_empty() {
        err.key = None;
    }
    err
}

/// Sets `table[a][b][c] = v` for the key `a.b.c`; a number indexes an array.
pub fn set_dotted(table: &mut toml::Table, key: &str, v: toml::Value) -> Result<(), String> {
    let parts: Vec<&str> = key.split('.').collect();
    let (last, path) = parts.split_last().ok_or("empty key")?;
    let mut cur = table;
    let mut i = 0;
    while i < path.len() {
        let p = path[i];
        let next = cur
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        match next {
            toml::Value::Table(t) => cur = t,
            toml::Value::Array(a) if i + 1 == path.len() => {
                let idx: usize = last
                    .parse()
                    .map_err(|_| format!("`{p}` is an array: index it with a number"))?;
                let n = a.len();
                let slot = a
                    .get_mut(idx)
                    .ok_or(format!("index {idx} is outside `{p}` ({n} entries)"))?;
                *slot = v;
                return Ok(());
            }
            _ => return Err(format!("`{p}` is not a table")),
        }
        i += 1;
    }
    cur.insert((*last).to_string(), v);
    Ok(())
}

/// A shard `i` of `n`: runs with index ≡ i (mod n).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard (0-based).
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl Shard {
    /// Parses `i/n`, or `auto`: Slurm job arrays (`SLURM_ARRAY_TASK_ID` −
    /// `SLURM_ARRAY_TASK_MIN`, `SLURM_ARRAY_TASK_COUNT`) or Kubernetes indexed Jobs
    /// (`JOB_COMPLETION_INDEX`, and the completions count in `JOB_COMPLETIONS`, which the Job
    /// sets from its `spec.completions`).
    pub fn parse(s: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Self> {
        let bad = |reason| CliError::InvalidShard {
            given: s.to_string(),
            reason,
        };
        let num = |name: &str| -> Result<Option<usize>> {
            env(name)
                .map(|v| {
                    v.trim()
                        .parse::<usize>()
                        .map_err(|_| bad("a shard variable is not a number"))
                })
                .transpose()
        };
        let (index, count) = if s == "auto" {
            if let (Some(id), Some(n)) =
                (num("SLURM_ARRAY_TASK_ID")?, num("SLURM_ARRAY_TASK_COUNT")?)
            {
                let min = num("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
                (
                    id.checked_sub(min)
                        .ok_or(bad("SLURM_ARRAY_TASK_ID below SLURM_ARRAY_TASK_MIN"))?,
                    n,
                )
            } else if let Some(id) = num("JOB_COMPLETION_INDEX")? {
                let n = num("JOB_COMPLETIONS")?
                    .ok_or(bad("JOB_COMPLETION_INDEX without JOB_COMPLETIONS (set it to the Job's completions)"))?;
                (id, n)
            } else {
                return Err(bad("no SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT or JOB_COMPLETION_INDEX in the environment"));
            }
        } else {
            let (i, n) = s.split_once('/').ok_or(bad("expected i/n or auto"))?;
            (
                i.trim().parse().map_err(|_| bad("i is not a number"))?,
                n.trim().parse().map_err(|_| bad("n is not a number"))?,
            )
        };
        if count == 0 || index >= count {
            return Err(bad("needs 0 ≤ i < n"));
        }
        Ok(Shard { index, count })
    }

    /// The part's file stem `part-i-of-n`.
    pub fn stem(&self) -> String {
        format!("part-{}-of-{}", self.index, self.count)
    }
}

/// The outcome of one run, as a summary row before formatting.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    /// Run index.
    pub run: usize,
    /// The run's seed.
    pub seed: u64,
    /// Swept values.
    pub values: Vec<toml::Value>,
    /// `ok`, `failed` (the library failed during the run) or `invalid` (the scenario was
    /// refused before the start).
    pub status: &'static str,
    /// Time reached.
    pub t_final: Option<f64>,
    /// Final state `x = (q, q̇)`.
    pub x_final: Vec<f64>,
    /// Largest ‖φ‖₂ over the accepted steps.
    pub max_phi: Option<f64>,
    /// Keerthi's N_f.
    pub f_evals: Option<usize>,
    /// Accepted steps.
    pub steps: Option<usize>,
    /// Wall time of the run \[s\].
    pub wall_time: f64,
    /// Error message.
    pub error: Option<String>,
}

/// Runs run `i` of `sweep`.
pub fn run_one(sweep: &Sweep, i: usize) -> RunRow {
    let start = Instant::now();
    let mut row = RunRow {
        run: i,
        seed: run_seed(sweep.seed, i as u64),
        values: sweep.values(i),
        status: "invalid",
        t_final: None,
        x_final: Vec::new(),
        max_phi: None,
        f_evals: None,
        steps: None,
        wall_time: 0.0,
        error: None,
    };
    let name = format!("<run {i}>");
    let origin = Origin {
        file: &name,
        source: None,
        dir: &sweep.dir,
    };
    let outcome = sweep
        .scenario(i)
        .map_err(CliError::from)
        .and_then(|s| run(&s, origin));
    let traj = match outcome {
        Ok(Outcome::Finished(t)) => {
            row.status = "ok";
            Some(*t)
        }
        Ok(Outcome::Failed { error, partial }) => {
            row.status = "failed";
            row.error = Some(error.to_string());
            partial.map(|p| *p)
        }
        Err(e) => {
            row.error = Some(e.to_string());
            None
        }
    };
    if let Some(t) = traj {
        row.t_final = t.step_times.last().or(t.times.last()).copied();
        row.x_final = t.x_final.clone();
        row.max_phi = Some(t.stats.max_phi);
        row.f_evals = Some(t.stats.f_evals);
        row.steps = Some(t.stats.steps);
    }
    row.wall_time = start.elapsed().as_secs_f64();
    row
}

/// Formats a swept value for a cell: numbers in shortest round-trip form, strings bare,
/// anything else as inline TOML.
fn value_cell(v: &toml::Value) -> String {
    match v {
        toml::Value::Float(x) => format!("{x:?}"),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::String(s) => s.clone(),
        toml::Value::Boolean(b) => b.to_string(),
        other => other.to_string(),
    }
}

fn opt<T: ToString>(x: Option<T>) -> String {
    x.map(|v| v.to_string()).unwrap_or_default()
}

/// The summary table of `rows` (final-state columns `q0…`, `qd0…` as wide as the widest).
pub fn summary(keys: &[String], rows: &[RunRow]) -> Table {
    let n = rows.iter().map(|r| r.x_final.len() / 2).max().unwrap_or(0);
    let mut header: Vec<String> = vec!["run".into(), "seed".into()];
    header.extend(keys.iter().cloned());
    header.extend(
        [
            "status",
            "t_final",
            "max_phi",
            "f_evals",
            "steps",
            "wall_time_s",
            "error",
        ]
        .map(String::from),
    );
    header.extend((0..n).map(|i| format!("q{i}")));
    header.extend((0..n).map(|i| format!("qd{i}")));
    let rows = rows
        .iter()
        .map(|r| {
            let mut c = vec![r.run.to_string(), r.seed.to_string()];
            c.extend(r.values.iter().map(value_cell));
            c.push(r.status.to_string());
            c.push(opt(r.t_final.map(|x| format!("{x:?}"))));
            c.push(opt(r.max_phi.map(|x| format!("{x:?}"))));
            c.push(opt(r.f_evals));
            c.push(opt(r.steps));
            c.push(format!("{:.6}", r.wall_time));
            c.push(r.error.clone().unwrap_or_default());
            let half = r.x_final.len() / 2;
            for part in [&r.x_final[..half], &r.x_final[half..]] {
                c.extend((0..n).map(|i| part.get(i).map(|x| format!("{x:?}")).unwrap_or_default()));
            }
            c
        })
        .collect();
    Table { header, rows }
}

/// What `sweep.json` records for `sweep merge`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Number of runs of the whole sweep.
    pub runs: usize,
    /// Swept keys.
    pub keys: Vec<String>,
}

/// Options of a sweep.
#[derive(Debug, Clone, Copy)]
pub struct SweepOptions {
    /// Worker threads.
    pub jobs: usize,
    /// The shard to run, or all runs.
    pub shard: Option<Shard>,
    /// Progress output: `None` decides by whether stderr is a terminal.
    pub progress: Option<bool>,
}

/// Runs the sweep of `file` into `out`; returns the summary table and the files written.
pub fn sweep(file: &Path, out: &Path, opts: SweepOptions) -> Result<(Table, Vec<PathBuf>)> {
    let sweep = Sweep::load(file)?;
    crate::simulate::create_dir(out)?;
    let manifest = Manifest {
        runs: sweep.len(),
        keys: sweep.keys(),
    };
    write_atomic(
        &out.join("sweep.json"),
        serde_json::to_string_pretty(&manifest)?.as_bytes(),
    )?;
    let indices: Vec<usize> = match opts.shard {
        Some(s) => (s.index..sweep.len()).step_by(s.count).collect(),
        None => (0..sweep.len()).collect(),
    };
    let total = indices.len();
    let bar = opts
        .progress
        .unwrap_or_else(|| std::io::stderr().is_terminal())
        .then(|| {
            let b = indicatif::ProgressBar::new(total as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} runs, eta {eta}",
            ) {
                b.set_style(style);
            }
            b
        });
    let done = AtomicUsize::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.max(1))
        .build()?;
    let rows: Vec<RunRow> = pool.install(|| {
        indices
            .par_iter()
            .map(|&i| {
                let row = run_one(&sweep, i);
                let k = done.fetch_add(1, Ordering::Relaxed) + 1;
                match &bar {
                    Some(b) => b.inc(1),
                    None => eprintln!(
                        "[{k}/{total}] run {i} {} {:.3} s{}",
                        row.status,
                        row.wall_time,
                        row.error
                            .as_deref()
                            .map(|e| format!(": {e}"))
                            .unwrap_or_default()
                    ),
                }
                row
            })
            .collect()
    });
    if let Some(b) = bar {
        b.finish();
    }
    let table = summary(&manifest.keys, &rows);
    let stem = opts
        .shard
        .map_or_else(|| "summary".to_string(), |s| s.stem());
    let csv = out.join(format!("{stem}.csv"));
    let parquet = out.join(format!("{stem}.parquet"));
    table.write_parquet(&parquet)?;
    table.write_csv(&csv)?; // last: a part counts as done when its CSV exists
    Ok((table, vec![csv, parquet]))
}

/// The result of `sweep merge`.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeReport {
    /// Parts read.
    pub parts: Vec<PathBuf>,
    /// Runs without a row.
    pub missing: Vec<usize>,
    /// Runs with more than one row (kept: the first).
    pub duplicated: Vec<usize>,
    /// Duplicated runs whose rows differ (beyond the wall time).
    pub conflicting: Vec<usize>,
    /// The merged table (rows in run order).
    pub table: Table,
}

/// Joins the `part-*-of-*.csv` of `out` into `summary.csv` and `summary.parquet` when no run
/// is missing and no duplicate conflicts; reports missing and duplicated runs either way.
pub fn merge(out: &Path) -> Result<MergeReport> {
    let mpath = out.join("sweep.json");
    let text = std::fs::read_to_string(&mpath).map_err(|e| CliError::io(&mpath, e))?;
    let manifest: Manifest = serde_json::from_str(&text)?;
    let mut parts: Vec<PathBuf> = std::fs::read_dir(out)
        .map_err(|e| CliError::io(out, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("part-") && n.ends_with(".csv"))
        })
        .collect();
    parts.sort();
    let mut header: Option<Vec<String>> = None;
    let mut by_run: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let (mut duplicated, mut conflicting) = (Vec::new(), Vec::new());
    for p in &parts {
        let text = std::fs::read_to_string(p).map_err(|e| CliError::io(p, e))?;
        let mut t = Table::from_csv(p, &text)?;
        let run_col = t.column("run").ok_or_else(|| CliError::MalformedSummary {
            path: p.clone(),
            line: 1,
            reason: "no `run` column".into(),
        })?;
        let wall = t.column("wall_time_s");
        // Parts may have final states of different widths: align on the widest header.
        match &mut header {
            None => header = Some(t.header.clone()),
            Some(h) if h.len() < t.header.len() => {
                for row in by_run.values_mut() {
                    widen(row, h, &t.header);
                }
                *h = t.header.clone();
            }
            _ => {}
        }
        let h = header.as_ref().map(Vec::len).unwrap_or(0);
        for (line, mut row) in t.rows.drain(..).enumerate() {
            let run: usize = row[run_col]
                .parse()
                .map_err(|_| CliError::MalformedSummary {
                    path: p.clone(),
                    line: line + 2,
                    reason: format!("run `{}` is not an index", row[run_col]),
                })?;
            if row.len() < h {
                let full = header.clone().unwrap_or_default();
                widen(&mut row, &t.header, &full);
            }
            match by_run.get(&run) {
                Some(prev) => {
                    duplicated.push(run);
                    let same = prev
                        .iter()
                        .zip(&row)
                        .enumerate()
                        .all(|(j, (a, b))| Some(j) == wall || a == b);
                    if !same {
                        conflicting.push(run);
                    }
                }
                None => {
                    by_run.insert(run, row);
                }
            }
        }
    }
    let missing: Vec<usize> = (0..manifest.runs)
        .filter(|i| !by_run.contains_key(i))
        .collect();
    let table = Table {
        header: header.unwrap_or_default(),
        rows: by_run.into_values().collect(),
    };
    let report = MergeReport {
        parts,
        missing,
        duplicated,
        conflicting,
        table,
    };
    if report.missing.is_empty() && report.conflicting.is_empty() {
        report.table.write_parquet(&out.join("summary.parquet"))?;
        report.table.write_csv(&out.join("summary.csv"))?;
    }
    Ok(report)
}

/// Widens a row written under `narrow` to the `wide` header: the final-state columns
/// `q*`/`qd*` it lacks become empty cells at their place.
fn widen(row: &mut Vec<String>, narrow: &[String], wide: &[String]) {
    let old: BTreeMap<&str, &String> = narrow.iter().map(String::as_str).zip(row.iter()).collect();
    let new: Vec<String> = wide
        .iter()
        .map(|h| {
            old.get(h.as_str())
                .map(|s| (*s).clone())
                .unwrap_or_default()
        })
        .collect();
    *row = new;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_parses_explicit_slurm_and_kubernetes() {
        let none = |_: &str| None;
        assert_eq!(
            Shard::parse("2/4", &none).unwrap(),
            Shard { index: 2, count: 4 }
        );
        assert!(Shard::parse("4/4", &none).is_err());
        assert!(Shard::parse("auto", &none).is_err());
        let slurm = |k: &str| match k {
            "SLURM_ARRAY_TASK_ID" => Some("5".into()),
            "SLURM_ARRAY_TASK_MIN" => Some("1".into()),
            "SLURM_ARRAY_TASK_COUNT" => Some("8".into()),
            _ => None,
        };
        assert_eq!(
            Shard::parse("auto", &slurm).unwrap(),
            Shard { index: 4, count: 8 }
        );
        let k8s = |k: &str| match k {
            "JOB_COMPLETION_INDEX" => Some("3".into()),
            "JOB_COMPLETIONS" => Some("10".into()),
            _ => None,
        };
        assert_eq!(
            Shard::parse("auto", &k8s).unwrap(),
            Shard {
                index: 3,
                count: 10
            }
        );
    }

    #[test]
    fn dotted_keys_set_tables_and_array_entries() {
        let mut t: toml::Table = toml::from_str("[initial]\nq = [1.0, 2.0]\n").unwrap();
        set_dotted(&mut t, "initial.q.1", toml::Value::Float(5.0)).unwrap();
        set_dotted(&mut t, "model.pendulum.length", toml::Value::Float(3.0)).unwrap();
        assert_eq!(t["initial"]["q"][1].as_float(), Some(5.0));
        assert_eq!(t["model"]["pendulum"]["length"].as_float(), Some(3.0));
        assert!(set_dotted(&mut t, "initial.q.7", toml::Value::Float(0.0)).is_err());
    }

    #[test]
    fn integer_draws_stay_in_range_even_at_the_extremes() {
        let mut rng = SplitMix64::new(3);
        for (a, b) in [(-2, 2), (i64::MIN, i64::MAX), (5, 5), (7, 3)] {
            for _ in 0..100 {
                let toml::Value::Integer(x) = Distribution::Integer([a, b]).draw(&mut rng) else {
                    panic!("not an integer");
                };
                assert!(x >= a && (x <= b || b < a), "{x} outside [{a}, {b}]");
            }
        }
    }

    #[test]
    fn run_seeds_differ_and_repeat() {
        assert_eq!(run_seed(1, 5), run_seed(1, 5));
        assert_ne!(run_seed(1, 5), run_seed(1, 6));
        assert_ne!(run_seed(1, 5), run_seed(2, 5));
    }
}
