//! `contour`: simulate, plan and sweep constrained mechanical systems from TOML scenario files
//! (`contour --help`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};

use contour_cli::error::{EXIT_MERGE_INCOMPLETE, EXIT_RUNS_FAILED};
use contour_cli::sweep::{SweepOptions, MAX_JOBS};
use contour_cli::CliError;

/// `println!` that ignores a closed standard output (`contour … | head -1` must not panic).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

/// Exit statuses, for `--help`.
const EXIT_CODES: &str = "\
Exit status:
  0    success (a sweep: every run ok; a merge: every run has a row)
  1    error: bad input (scenario or sweep file, arguments), I/O; the message names the file,
       line and key
  2    command-line usage error
  3    the sweep finished, but some runs failed (their rows say why: status, error)
  4    merge: runs missing or duplicated with different rows (listed); nothing written
  130  interrupted by Ctrl-C, 143 by SIGTERM: finished rows are written; --resume continues";

/// Simulate, plan and sweep constrained mechanical systems from TOML scenario files.
#[derive(Parser)]
#[command(name = "contour", version, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate one scenario: trajectory (CSV, JSON), events, statistics, SVG plots.
    Simulate {
        /// The scenario file (TOML).
        scenario: PathBuf,
        /// Output directory.
        #[arg(short, long, default_value = "out")]
        out: PathBuf,
        /// Also write animation.html: the motion as one self-contained HTML animation.
        #[arg(long)]
        animate: bool,
        /// A URDF model: refuse an import that repairs or accepts a defect (a warning).
        #[arg(long)]
        strict: bool,
    },
    /// Minimum-time plan of the scenario's [plan]: sampled trajectory, phase plane, summary.
    Plan {
        /// The scenario file (TOML) with a [plan] table.
        scenario: PathBuf,
        /// Output directory.
        #[arg(short, long, default_value = "out")]
        out: PathBuf,
        /// Also write animation.html: the planned motion with its phase plane.
        #[arg(long)]
        animate: bool,
    },
    /// List the built-in models of `[model.<name>]`: parameters (units, ranges), initial state.
    Models,
    /// Run a sweep (grid and/or seeded random sample), or `sweep merge DIR` to join shards.
    #[command(after_help = EXIT_CODES)]
    Sweep(SweepArgs),
}

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
struct SweepArgs {
    #[command(subcommand)]
    merge: Option<MergeCommand>,
    /// The sweep file (TOML).
    sweep: Option<PathBuf>,
    /// Output directory.
    #[arg(short, long, default_value = "out")]
    out: PathBuf,
    /// Run only shard i (runs with index ≡ i mod n) into part-i-of-n.*; `auto` takes i from
    /// SLURM_ARRAY_TASK_ID (Slurm job arrays) or JOB_COMPLETION_INDEX (Kubernetes indexed
    /// Jobs). The count n is the sweep's `shards`, --shards, or i/n.
    #[arg(long, value_name = "i|i/n|auto")]
    shard: Option<String>,
    /// Number of shards (instead of, or equal to, the sweep file's `shards`).
    #[arg(long, value_name = "n")]
    shards: Option<usize>,
    /// Keep the rows of an earlier, interrupted run of the same part and run only the rest.
    #[arg(long)]
    resume: bool,
    /// Run even into a directory that holds a complete part of another sweep.
    #[arg(long)]
    force: bool,
    /// Worker threads (default: the available cores; at most 1024).
    #[arg(short, long)]
    jobs: Option<usize>,
    /// Plain progress lines even on a terminal.
    #[arg(long)]
    no_progress_bar: bool,
}

#[derive(Subcommand)]
enum MergeCommand {
    /// Join the part-i-of-n files of DIR into summary.csv/.parquet/.json; refuse parts of
    /// different sweeps; report missing and duplicated runs (exit status 4 when any run is
    /// missing).
    Merge {
        /// The sweep's output directory.
        dir: PathBuf,
    },
}

/// The signal that asks a sweep to stop (0: none), set by Ctrl-C and SIGTERM; a second
/// one ends the process at once.
fn stop_flag() -> Result<Arc<AtomicUsize>, CliError> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let which = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        let io = |e| CliError::io("<signal handler>", e);
        // Order matters: the conditional shutdown sees the flag of an earlier signal only.
        signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, Arc::clone(&seen))
            .map_err(io)?;
        signal_hook::flag::register(sig, Arc::clone(&seen)).map_err(io)?;
        signal_hook::flag::register_usize(sig, Arc::clone(&which), sig as usize).map_err(io)?;
    }
    Ok(which)
}

fn sweep(args: SweepArgs) -> Result<u8, CliError> {
    if let Some(MergeCommand::Merge { dir }) = args.merge {
        let r = contour_cli::part::merge(&dir)?;
        say!(
            "merged {} part(s) of sweep {}: {} of {} run(s)",
            r.parts.len(),
            r.fingerprint,
            r.rows,
            r.runs
        );
        if !r.incomplete.is_empty() {
            let names: Vec<String> = r
                .incomplete
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            say!(
                "stopped before their last run (resume them with --resume): {}",
                names.join(", ")
            );
        }
        if !r.duplicated.is_empty() {
            say!("duplicated runs (first kept): {:?}", r.duplicated);
        }
        if !r.conflicting.is_empty() {
            say!("duplicated runs whose rows differ: {:?}", r.conflicting);
        }
        if !r.missing.is_empty() {
            say!(
                "missing runs ({}): {}",
                r.missing.len(),
                contour_cli::part::index_ranges(&r.missing, 20)
            );
        }
        if r.missing.is_empty() && r.conflicting.is_empty() {
            say!("{} run(s) not ok", r.failed);
            for f in &r.written {
                say!("wrote {}", f.display());
            }
            return Ok(0);
        }
        return Err(CliError::IncompleteMerge {
            missing: r.missing.len(),
            duplicated: r.conflicting.len(),
        });
    }
    let Some(file) = args.sweep else {
        eprintln!("usage: contour sweep SWEEP.toml -o OUT [--shard i|auto] [--shards n] [--resume] [--jobs k] | contour sweep merge OUT");
        return Err(CliError::MissingArgument("the sweep file"));
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(MAX_JOBS)
    });
    let opts = SweepOptions {
        jobs,
        shard: args.shard,
        shards: args.shards,
        resume: args.resume,
        force: args.force,
        progress: args.no_progress_bar.then_some(false),
        stop: Some(stop_flag()?),
    };
    let r = contour_cli::sweep::sweep(&file, &args.out, &opts, &|k| std::env::var(k).ok())?;
    let part = r.shard.map_or_else(
        || "sweep".to_string(),
        |s| format!("shard {} of {}", s.index, s.count),
    );
    say!(
        "{part} ({}): {} of {} run(s) have a row ({} kept by --resume), {} not ok",
        r.fingerprint,
        r.rows,
        r.runs,
        r.resumed,
        r.failed
    );
    for f in &r.files {
        say!("wrote {}", f.display());
    }
    if let Some(sig) = r.interrupted {
        eprintln!(
            "interrupted by signal {sig}: {} run(s) left; run again with --resume to finish",
            r.runs - r.rows
        );
        return Ok(u8::try_from(128 + sig).unwrap_or(1));
    }
    Ok(if r.failed > 0 { EXIT_RUNS_FAILED } else { 0 })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Simulate {
            scenario,
            out,
            animate,
            strict,
        } => contour_cli::simulate::urdf_report_lines(&scenario, strict).and_then(|report| {
            for line in report {
                say!("{line}");
            }
            contour_cli::simulate::simulate_with(&scenario, &out, animate).map(
                |(files, summary)| {
                    say!("{summary}");
                    for f in files {
                        say!("wrote {}", f.display());
                    }
                    0
                },
            )
        }),
        Command::Plan {
            scenario,
            out,
            animate,
        } => contour_cli::plan::plan_with(&scenario, &out, animate).map(|s| {
            say!("{s}");
            0
        }),
        Command::Models => {
            say!("{}", contour_scenario::registry::markdown());
            Ok(0)
        }
        Command::Sweep(args) => sweep(args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e}");
            if e.exit_code() == EXIT_MERGE_INCOMPLETE {
                eprintln!("(exit status {EXIT_MERGE_INCOMPLETE}: the merge is incomplete)");
            }
            ExitCode::from(e.exit_code())
        }
    }
}
