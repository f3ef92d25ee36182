//! `contour sweep sweep.toml -o out/ [--shard i|auto] [--shards n] [--resume] [--jobs k]` and
//! `contour sweep merge out/`.
//!
//! The sweep description, its checks, its fingerprint and the engine that runs it are
//! `contour_scenario::sweep`'s (re-exported here). Shard `i` of `n` runs the runs with
//! index ≡ i (mod n); the shard count comes from the sweep (`shards = n`) or `--shards n`,
//! never from the batch system, so a shard re-run alone is the same shard. Each shard
//! writes only its own files ([`crate::part`]), rows streamed as runs finish; `merge`
//! checks fingerprints and coverage.

pub use contour_scenario::sweep::{
    run_one, run_rows, run_seed, set_dotted, Delivery, Distribution, RunRow, SplitMix64, Sweep,
    MAX_JOBS, MAX_RUNS,
};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::error::{CliError, Result};
use crate::part::{PartMeta, PartWriter};
pub use crate::shard::{Shard, SHARD_INDEX_VARIABLES};

/// Rows that may wait for an earlier, slower run before the writer gives up the run order
/// and writes the earliest waiting row (a file of a sweep is then sorted by `run` by its
/// readers: `merge` always sorts).
const REORDER: usize = 4096;

/// Lines a part writes to the log without a progress bar: one at the start, one after every
/// tenth of its runs, one at the end (a shard's log of a 320,000-run array stays a dozen
/// lines; failed runs are rows of the summary, with their error).
#[derive(Debug, Clone, Copy)]
struct ProgressLog {
    total: usize,
    every: usize,
}

impl ProgressLog {
    fn new(total: usize) -> Self {
        Self {
            total,
            every: total.div_ceil(10).max(1),
        }
    }

    /// Whether the line after the `written`-th row is logged.
    fn logs(&self, written: usize) -> bool {
        written.is_multiple_of(self.every) || written == self.total
    }
}

/// Options of a sweep.
#[derive(Debug, Clone, Default)]
pub struct SweepOptions {
    /// Worker threads (1 to [`MAX_JOBS`]).
    pub jobs: usize,
    /// `--shard` as given (`i`, `i/n` or `auto`; [`Shard::resolve`]), or `None` for every
    /// run.
    pub shard: Option<String>,
    /// `--shards n`.
    pub shards: Option<usize>,
    /// Keep the rows of an earlier, interrupted run of the same part and run only the
    /// missing runs.
    pub resume: bool,
    /// Run even where the directory holds a complete part of another sweep
    /// ([`CliError::OtherSweepPresent`] otherwise).
    pub force: bool,
    /// Progress output: `None` decides by whether stderr is a terminal.
    pub progress: Option<bool>,
    /// Set to a signal's number to stop: running runs finish, their rows are written, the
    /// files are closed (the part stays incomplete; `--resume` continues it).
    pub stop: Option<Arc<AtomicUsize>>,
}

/// What a sweep did.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepReport {
    /// The shard run, or `None` for the whole sweep.
    pub shard: Option<Shard>,
    /// The sweep's fingerprint.
    pub fingerprint: String,
    /// Runs of this part (of the shard, or of the sweep).
    pub runs: usize,
    /// Rows in the part's files (kept by `--resume` and new).
    pub rows: usize,
    /// Rows kept from an earlier run by `--resume`.
    pub resumed: usize,
    /// Rows whose status is not `ok`.
    pub failed: usize,
    /// The signal that stopped the sweep before every run was done.
    pub interrupted: Option<usize>,
    /// Files written.
    pub files: Vec<PathBuf>,
}

/// Runs the sweep of `file` into `out`, streaming rows to the part's files as runs finish
/// ([`PartWriter`]); `env` gives the shard environment of `--shard auto`.
pub fn sweep(
    file: &Path,
    out: &Path,
    opts: &SweepOptions,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<SweepReport> {
    if !(1..=MAX_JOBS).contains(&opts.jobs) {
        return Err(CliError::InvalidJobs {
            given: opts.jobs,
            max: MAX_JOBS,
        });
    }
    let sweep = Sweep::load(file)?;
    let shard = match (&opts.shard, opts.shards) {
        (Some(g), n) => Some(Shard::resolve(g, n, sweep.shards, env)?),
        (None, Some(n)) => {
            return Err(CliError::InvalidShard {
                given: format!("--shards {n}"),
                reason: "--shards goes with --shard i or --shard auto".into(),
            })
        }
        (None, None) => None,
    };
    crate::simulate::create_dir(out)?;
    if !opts.resume && !opts.force {
        let others = crate::part::other_sweeps_complete_parts(out, sweep.fingerprint());
        if let Some((path, found)) = others.into_iter().next() {
            return Err(CliError::OtherSweepPresent {
                path,
                found,
                expected: sweep.fingerprint().to_string(),
            });
        }
    }
    let stem = shard.map_or_else(|| "summary".to_string(), |s| s.stem());
    let meta = PartMeta::new(&sweep, shard);
    let (mut part, finished) = PartWriter::open(out, &stem, meta, opts.resume)?;
    let resumed = finished.len();
    let mut done = vec![false; sweep.len()];
    for &i in &finished {
        if let Some(d) = done.get_mut(i) {
            *d = true;
        }
    }
    drop(finished);
    let (first, step) = shard.map_or((0, 1), |s| (s.index, s.count));
    let runs = (first..sweep.len()).step_by(step).count();
    let todo: Vec<usize> = (first..sweep.len())
        .step_by(step)
        .filter(|&i| !done[i])
        .collect();
    drop(done);
    let total = todo.len();
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
    let log = ProgressLog::new(total);
    if bar.is_none() {
        eprintln!("{stem}: {total} run(s) to do ({resumed} resumed of {runs})");
    }
    let mut not_ok = 0;
    let stopped = || {
        opts.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed) != 0)
    };
    let mut written = 0;
    let mut pending: BTreeMap<usize, RunRow> = BTreeMap::new();
    let mut next_pos = 0;
    let mut write = |row: RunRow, part: &mut PartWriter| -> Result<()> {
        written += 1;
        not_ok += usize::from(row.status != "ok");
        match &bar {
            Some(b) => b.inc(1),
            None if log.logs(written) => {
                eprintln!("{stem}: [{written}/{total}] runs done, {not_ok} not ok");
            }
            None => {}
        }
        part.append(sweep.cells(&row), row.status == "ok")
    };
    let result = run_rows(&sweep, &todo, opts.jobs, None, &stopped, |d| {
        let (k, row) = match d {
            // Nothing waiting: every finished row goes to disk now.
            Delivery::Idle => return part.flush(),
            Delivery::Row(k, row) => (k, row),
        };
        pending.insert(k, row);
        loop {
            let waiting = pending.len();
            let Some(entry) = pending.first_entry() else {
                break;
            };
            if *entry.key() > next_pos && waiting <= REORDER {
                break;
            }
            let (k, row) = entry.remove_entry();
            next_pos = next_pos.max(k + 1);
            write(row, &mut part)?;
        }
        Ok(())
    })
    .and_then(|()| {
        for (_, row) in std::mem::take(&mut pending) {
            write(row, &mut part)?;
        }
        part.flush()
    });
    if let Some(b) = bar {
        b.finish();
    } else if written < total {
        eprintln!("{stem}: stopped after {written} of {total} run(s)");
    }
    result?;
    let complete = written == total;
    let (meta, files) = part.finish(complete)?;
    let interrupted = if complete {
        None
    } else {
        opts.stop
            .as_ref()
            .map(|s| s.load(Ordering::Relaxed))
            .filter(|&s| s != 0)
    };
    Ok(SweepReport {
        shard,
        fingerprint: sweep.fingerprint.clone(),
        runs,
        rows: meta.rows,
        resumed,
        failed: meta.failed,
        interrupted,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_without_a_bar_has_a_line_per_tenth_of_the_runs() {
        let lines = |total: usize| {
            let log = ProgressLog::new(total);
            (1..=total).filter(|&w| log.logs(w)).count()
        };
        assert_eq!(lines(320_000), 10);
        assert_eq!(lines(64), 10);
        assert_eq!(lines(5), 5);
        assert_eq!(lines(1), 1);
        // the last run is logged even when the tenth does not divide the runs
        let log = ProgressLog::new(64);
        assert!(log.logs(64) && log.logs(7) && !log.logs(8));
    }

    #[test]
    fn shard_count_comes_from_the_sweep_or_the_command_and_the_index_from_the_task() {
        let none = |_: &str| None;
        let sh = |index, count| Shard { index, count };
        assert_eq!(Shard::resolve("2/4", None, None, &none).unwrap(), sh(2, 4));
        assert_eq!(Shard::resolve("2", Some(4), None, &none).unwrap(), sh(2, 4));
        assert_eq!(Shard::resolve("2", None, Some(4), &none).unwrap(), sh(2, 4));
        assert!(Shard::resolve("4/4", None, None, &none).is_err());
        assert!(Shard::resolve("2", None, None, &none).is_err());
        assert!(Shard::resolve("2/4", Some(8), None, &none).is_err());
        assert!(Shard::resolve("auto", None, Some(4), &none).is_err());
        // A Slurm re-run of task 3 alone is an array of one: the count is still the sweep's.
        let slurm = |k: &str| match k {
            "SLURM_ARRAY_TASK_ID" => Some("3".into()),
            "SLURM_ARRAY_TASK_MIN" => Some("3".into()),
            "SLURM_ARRAY_TASK_COUNT" => Some("1".into()),
            _ => None,
        };
        assert_eq!(
            Shard::resolve("auto", None, Some(16), &slurm).unwrap(),
            sh(3, 16)
        );
        assert!(Shard::resolve("auto", None, None, &slurm).is_err());
        assert!(Shard::resolve("auto", Some(3), None, &slurm).is_err());
        let k8s = |k: &str| (k == "JOB_COMPLETION_INDEX").then(|| "15".to_string());
        assert_eq!(
            Shard::resolve("auto", Some(16), None, &k8s).unwrap(),
            sh(15, 16)
        );
    }
}
