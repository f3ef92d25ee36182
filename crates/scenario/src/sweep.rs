//! Sweeps: a base scenario plus a grid over dotted keys (`"model.pendulum.length" = [0.5,
//! 1.0]`) and/or a seeded random sample (`"initial.angle" = { uniform = [-1, 1] }`, `samples`
//! draws per grid point). Run `i` is grid point `i / samples`, draw `i % samples`; its
//! random values come from a generator seeded with [`run_seed`]`(seed, i)` alone, so any run,
//! any shard and any number of threads give the same rows. A run that fails is a row with
//! its error; the sweep goes on. Everything that can be checked without running — every key
//! swept (it must exist in the scenario's schema), every grid value, every distribution,
//! every choice — is checked when the sweep is loaded, so a bad sweep fails before its
//! first run.
//!
//! A sweep is identified by its fingerprint ([`Sweep::fingerprint`]): a hash of the fully
//! resolved description (the base scenario with every default filled in, the grid, the
//! random keys, samples, seed, the contents of referenced URDF files and the contour
//! version). [`run_rows`] is the one engine of both doors: worker threads take the runs in
//! order and hand their rows ([`RunRow`], cells by [`Sweep::cells`]) to the calling thread.
//! Where the rows go (a part's files, Python columns) is the door's business.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result, ScenarioError};
use crate::model::Origin;
use crate::run::{run, Outcome};
use crate::scenario::{self, ModelSpec, Scenario};

/// The type of a summary column (Parquet's, and the Python column's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnKind {
    /// Unsigned 64-bit integer.
    UInt64,
    /// Double.
    Float64,
    /// UTF-8 string.
    Utf8,
}

/// Largest number of worker threads of a sweep.
pub const MAX_JOBS: usize = 1024;

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
    /// Number of shards the sweep is split into (`--shard i` runs one of them).
    #[serde(default)]
    shards: Option<usize>,
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
    /// Shard count named by the sweep file (`shards = n`).
    pub shards: Option<usize>,
    /// The sweep's identity ([`Sweep::fingerprint`]).
    pub fingerprint: String,
    /// Final-state columns: the most coordinates of any model the sweep builds.
    pub width: usize,
    /// Parquet kinds of the swept keys' columns.
    pub key_kinds: Vec<ColumnKind>,
}

/// The seed mixer and the generator of the sample (SplitMix64).
pub use contour::model::rng::SplitMix64;

/// The seed of run `i` of a sweep seeded `seed`.
pub fn run_seed(seed: u64, i: u64) -> u64 {
    SplitMix64::new(seed ^ SplitMix64::new(i).next_u64()).next_u64()
}

impl Distribution {
    /// Why the distribution cannot be drawn from, if it cannot.
    fn check(&self) -> Option<String> {
        let finite = |a: f64, b: f64| a.is_finite() && b.is_finite();
        match self {
            Distribution::Uniform([a, b]) if !(finite(*a, *b) && a < b) => Some(format!(
                "uniform = [a, b] needs finite a < b, not [{a:e}, {b:e}]"
            )),
            Distribution::Normal([mu, sigma]) if !(finite(*mu, *sigma) && *sigma >= 0.0) => {
                Some(format!(
                    "normal = [mean, sd] needs a finite mean and sd ≥ 0, not [{mu:e}, {sigma:e}]"
                ))
            }
            Distribution::LogUniform([a, b]) if !(finite(*a, *b) && 0.0 < *a && a < b) => Some(
                format!("log-uniform = [a, b] needs 0 < a < b, not [{a:e}, {b:e}]"),
            ),
            Distribution::Integer([a, b]) if a > b => {
                Some(format!("integer = [a, b] needs a ≤ b, not [{a}, {b}]"))
            }
            Distribution::Choice(c) if c.is_empty() => Some("choice of nothing".into()),
            _ => None,
        }
    }

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
        let src = scenario::read_source(path)?;
        let file = path.display().to_string();
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Self::from_source(&src, &file, &dir)
    }

    /// Reads and checks a sweep from its TOML text: `file` names it in errors, `dir` is the
    /// directory of the relative paths it holds (a base scenario file, a URDF file). Both doors
    /// build their sweeps here.
    pub fn from_source(src: &str, file: &str, dir: &Path) -> Result<Self> {
        let f: SweepFile = toml::from_str(src).map_err(|e| scenario::toml_error(file, src, &e))?;
        let dir = dir.to_path_buf();
        let origin = Origin {
            file,
            source: Some(src),
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
            if let Some(why) = d.check() {
                return Err(origin.error(&format!("random.{k}"), why).into());
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
        if f.shards == Some(0) {
            return Err(origin.error("shards", "must be at least 1").into());
        }
        let key_kinds = grid
            .iter()
            .map(|(_, v)| numeric_kind(v.iter()))
            .chain(random.iter().map(|(_, d)| match d {
                Distribution::Choice(c) => numeric_kind(c.iter()),
                _ => ColumnKind::Float64,
            }))
            .collect();
        let mut sweep = Sweep {
            base,
            dir: base_dir,
            seed: f.seed,
            samples,
            grid,
            random,
            shards: f.shards,
            fingerprint: String::new(),
            width: 0,
            key_kinds,
        };
        sweep.width = sweep.check(origin)?;
        sweep.fingerprint = sweep.identity()?;
        Ok(sweep)
    }

    /// Checks, before any run, that every swept key exists in the scenario's schema and that
    /// every grid value, every choice and run 0's draws give a scenario that passes every
    /// check short of running it ([`crate::run::check`]); the error names the sweep's key
    /// and its line. Returns the most coordinates of the models built.
    fn check(&self, origin: Origin<'_>) -> Result<usize> {
        let keys = self.keys();
        let first = self.values(0);
        let name = "<run 0>";
        let run_origin = Origin {
            file: name,
            source: None,
            dir: &self.dir,
        };
        let try_values = |vals: &[toml::Value], j: usize, table: &str| -> Result<usize> {
            let key = &keys[j];
            let fail = |why: String| -> Error {
                origin
                    .error(
                        &format!("{table}.{key}"),
                        format!("`{key}` = {}: {why}", inline(&vals[j])),
                    )
                    .into()
            };
            let s = self.apply(vals).map_err(fail)?;
            match crate::run::check(&s, run_origin) {
                Ok(n) => Ok(n),
                Err(Error::Scenario(e)) => Err(fail(match e.key {
                    Some(k) if k != *key => format!("key `{k}`: {}", e.message),
                    _ => e.message,
                })),
                Err(e) => Err(fail(e.to_string())),
            }
        };
        let mut width = 0;
        for j in 0..keys.len() {
            let table = if j < self.grid.len() {
                "grid"
            } else {
                "random"
            };
            width = width.max(try_values(&first, j, table)?);
        }
        if keys.is_empty() {
            let s = self
                .apply(&first)
                .map_err(|why| Error::from(origin.error("base", why)))?;
            width = crate::run::check(&s, run_origin)?;
        }
        let mut vals = first.clone();
        for (j, (_, values)) in self.grid.iter().enumerate() {
            for v in values.iter().skip(1) {
                vals[j] = v.clone();
                width = width.max(try_values(&vals, j, "grid")?);
            }
            vals[j] = first[j].clone();
        }
        for (r, (_, d)) in self.random.iter().enumerate() {
            let j = self.grid.len() + r;
            if let Distribution::Choice(c) = d {
                for v in c {
                    vals[j] = v.clone();
                    width = width.max(try_values(&vals, j, "random")?);
                }
                vals[j] = first[j].clone();
            }
        }
        Ok(width)
    }

    /// The fingerprint of the fully resolved sweep: 128-bit XXH3 of its canonical JSON (the
    /// base scenario as parsed, every default filled in; grid; random keys; samples; seed;
    /// the contents of a URDF file the base names; the contour version), as 32 hex digits.
    fn identity(&self) -> Result<String> {
        #[derive(Serialize)]
        struct Identity<'a> {
            contour: &'static str,
            base: &'a Scenario,
            grid: &'a [(String, Vec<toml::Value>)],
            random: &'a [(String, Distribution)],
            samples: usize,
            seed: u64,
            urdf: Option<String>,
        }
        let base = Scenario::deserialize(toml::Value::Table(self.base.clone())).map_err(|e| {
            Error::from(ScenarioError {
                file: "<base>".into(),
                line: 0,
                column: 0,
                key: None,
                message: e.message().to_string(),
            })
        })?;
        let urdf = match &base.model {
            ModelSpec::Urdf(p) => {
                let path = self.dir.join(&p.file);
                let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
                Some(format!("{:032x}", twox_hash::XxHash3_128::oneshot(&bytes)))
            }
            _ => None,
        };
        let id = Identity {
            contour: env!("CARGO_PKG_VERSION"),
            base: &base,
            grid: &self.grid,
            random: &self.random,
            samples: self.samples,
            seed: self.seed,
            urdf,
        };
        let json = serde_json::to_vec(&id)?;
        Ok(format!("{:032x}", twox_hash::XxHash3_128::oneshot(&json)))
    }

    /// The sweep's identity: equal for two sweep files that describe the same runs.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
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

    /// The scenario with the swept keys set to `vals` (in the order of [`Sweep::keys`]);
    /// the error says what is wrong.
    fn apply(&self, vals: &[toml::Value]) -> Result<Scenario, String> {
        let mut t = self.base.clone();
        for (k, v) in self.keys().iter().zip(vals) {
            set_dotted(&mut t, k, v.clone())?;
        }
        Scenario::deserialize(toml::Value::Table(t)).map_err(|e| e.message().to_string())
    }

    /// The swept values of an invalid run `i`, for its row: the key whose value alone is
    /// refused (each of run `i`'s values tried on run 0's, which passed the checks of
    /// [`Sweep::from_source`]), or every swept key and value when none is refused alone.
    pub fn invalid_values(&self, i: usize) -> String {
        let keys = self.keys();
        let mine = self.values(i);
        let first = self.values(0);
        let origin = Origin {
            file: "<run 0>",
            source: None,
            dir: &self.dir,
        };
        for j in 0..keys.len() {
            if mine[j] == first[j] {
                continue;
            }
            let mut vals = first.clone();
            vals[j] = mine[j].clone();
            let refused = match self.apply(&vals) {
                Err(why) => Some(why),
                Ok(s) => crate::run::check(&s, origin).err().map(|e| e.to_string()),
            };
            if let Some(why) = refused {
                return format!(
                    "run {i}: key `{}` = {} is refused: {why}",
                    keys[j],
                    inline(&mine[j])
                );
            }
        }
        let all: Vec<String> = keys
            .iter()
            .zip(&mine)
            .map(|(k, v)| format!("`{k}` = {}", inline(v)))
            .collect();
        format!("run {i} has {}", all.join(", "))
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

/// `Float64` when every value is a number, else `Utf8`.
fn numeric_kind<'a>(mut values: impl Iterator<Item = &'a toml::Value>) -> ColumnKind {
    if values.all(|v| v.is_integer() || v.is_float()) {
        ColumnKind::Float64
    } else {
        ColumnKind::Utf8
    }
}

/// A value as inline TOML (floats in `{:e}` form when very large or small).
fn inline(v: &toml::Value) -> String {
    match v {
        toml::Value::Float(x) if *x != 0.0 && !(1e-4..1e6).contains(&x.abs()) => format!("{x:e}"),
        v => v.to_string(),
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
        .map_err(Error::from)
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
            row.error = Some(format!("{e} ({})", sweep.invalid_values(i)));
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

impl Sweep {
    /// The summary's columns: `run`, `seed`, the swept keys, `status`, `t_final`,
    /// `max_phi`, `f_evals`, `steps`, `wall_time_s`, `error`, then the final state `q0…`,
    /// `qd0…` ([`Sweep::width`] of each).
    pub fn header(&self) -> Vec<String> {
        let n = self.width;
        let mut header: Vec<String> = vec!["run".into(), "seed".into()];
        header.extend(self.keys());
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
        header
    }

    /// The Parquet kind of each column of [`Sweep::header`].
    pub fn kinds(&self) -> Vec<ColumnKind> {
        let mut k = vec![ColumnKind::UInt64; 2];
        k.extend(self.key_kinds.iter().copied());
        k.extend([
            ColumnKind::Utf8,
            ColumnKind::Float64,
            ColumnKind::Float64,
            ColumnKind::UInt64,
            ColumnKind::UInt64,
            ColumnKind::Float64,
            ColumnKind::Utf8,
        ]);
        k.extend(std::iter::repeat_n(ColumnKind::Float64, 2 * self.width));
        k
    }

    /// The cells of `r` under [`Sweep::header`] (a final state wider than the sweep's
    /// columns, which the load-time check rules out, is kept in the error cell).
    pub fn cells(&self, r: &RunRow) -> Vec<String> {
        let n = self.width;
        let mut c = vec![r.run.to_string(), r.seed.to_string()];
        c.extend(r.values.iter().map(value_cell));
        c.push(r.status.to_string());
        c.push(opt(r.t_final.map(|x| format!("{x:?}"))));
        c.push(opt(r.max_phi.map(|x| format!("{x:?}"))));
        c.push(opt(r.f_evals));
        c.push(opt(r.steps));
        c.push(format!("{:.6}", r.wall_time));
        let half = r.x_final.len() / 2;
        let mut error = r.error.clone().unwrap_or_default();
        if half > n {
            error.push_str(&format!(" (final state {:?})", r.x_final));
        }
        c.push(error);
        for part in [&r.x_final[..half], &r.x_final[half..]] {
            c.extend((0..n).map(|i| part.get(i).map(|x| format!("{x:?}")).unwrap_or_default()));
        }
        c
    }
}

/// What [`run_rows`] hands to its sink.
#[derive(Debug)]
pub enum Delivery {
    /// A finished run: its position in the list of runs, and its row.
    Row(usize, RunRow),
    /// No row is waiting (the sink may flush its files or look at signals).
    Idle,
}

/// Runs the runs `todo` of `sweep` on `jobs` worker threads and hands each row to `sink`
/// on the calling thread. Runs are taken in the order of `todo`, so rows finish nearly in
/// that order. `sink` gets [`Delivery::Idle`] whenever no row is waiting, and, with `tick`,
/// at least every `tick` while it waits. No run starts once `stop()` is true or `sink` has
/// returned an error (the running runs finish; after an error their rows are dropped and the
/// error is returned).
pub fn run_rows<E>(
    sweep: &Sweep,
    todo: &[usize],
    jobs: usize,
    tick: Option<Duration>,
    stop: &(dyn Fn() -> bool + Sync),
    mut sink: impl FnMut(Delivery) -> Result<(), E>,
) -> Result<(), E> {
    let jobs = jobs.clamp(1, MAX_JOBS).min(todo.len()).max(1);
    let next = AtomicUsize::new(0);
    let abort = AtomicBool::new(false);
    let stopped = || abort.load(Ordering::Relaxed) || stop();
    let (tx, rx) = sync_channel::<(usize, RunRow)>(64 * jobs);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, stopped) = (&next, &stopped);
            scope.spawn(move || {
                while !stopped() {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = todo.get(k) else { break };
                    if tx.send((k, run_one(sweep, i))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let rx = rx;
        let r = (|| -> Result<(), E> {
            loop {
                let msg = match rx.try_recv() {
                    Ok(m) => Some(m),
                    Err(TryRecvError::Empty) => {
                        sink(Delivery::Idle)?;
                        match tick {
                            None => rx.recv().ok(),
                            Some(t) => match rx.recv_timeout(t) {
                                Ok(m) => Some(m),
                                Err(RecvTimeoutError::Timeout) => continue,
                                Err(RecvTimeoutError::Disconnected) => None,
                            },
                        }
                    }
                    Err(TryRecvError::Disconnected) => None,
                };
                let Some((k, row)) = msg else { return Ok(()) };
                sink(Delivery::Row(k, row))?;
            }
        })();
        if r.is_err() {
            abort.store(true, Ordering::Relaxed);
        }
        drop(rx);
        r
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions_are_checked() {
        assert!(Distribution::LogUniform([-1.0, 1.0]).check().is_some());
        assert!(Distribution::LogUniform([0.1, 1.0]).check().is_none());
        assert!(Distribution::Uniform([1.0, 1.0]).check().is_some());
        assert!(Distribution::Uniform([0.0, f64::INFINITY])
            .check()
            .is_some());
        assert!(Distribution::Normal([0.0, -1.0]).check().is_some());
        assert!(Distribution::Integer([3, 2]).check().is_some());
        assert!(Distribution::Choice(vec![]).check().is_some());
    }

    /// A draw refused beyond run 0 names its key, its value and its run.
    #[test]
    fn an_invalid_draw_names_its_key_value_and_run() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenarios");
        for seed in 0..64 {
            let src = format!(
                "base = \"simulate.toml\"\nseed = {seed}\nsamples = 16\n[grid]\n\"time.end\" = [0.1]\n\
                 [random]\n\"model.pendulum.length\" = {{ normal = [1.0, 2.0] }}\n"
            );
            let Ok(sweep) = Sweep::from_source(&src, "s.toml", &dir) else {
                continue; // run 0's own draw is refused: the sweep is refused up front
            };
            let bad = (1..16).find(|&i| sweep.values(i)[1].as_float().is_some_and(|l| l <= 0.0));
            let Some(i) = bad else { continue };
            let row = run_one(&sweep, i);
            let e = row.error.unwrap_or_default();
            assert_eq!(row.status, "invalid", "{e}");
            assert!(
                e.contains(&format!("run {i}: key `model.pendulum.length` = ")),
                "{e}"
            );
            return;
        }
        panic!("no seed gave a refused draw beyond run 0");
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
        for (a, b) in [(-2, 2), (i64::MIN, i64::MAX), (5, 5)] {
            for _ in 0..100 {
                let toml::Value::Integer(x) = Distribution::Integer([a, b]).draw(&mut rng) else {
                    panic!("not an integer");
                };
                assert!(x >= a && x <= b, "{x} outside [{a}, {b}]");
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
