//! `contour`: simulate, plan and sweep constrained mechanical systems from TOML scenario files
//! (`contour --help`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use contour_cli::sweep::{Shard, SweepOptions};
use contour_cli::CliError;

/// Simulate, plan and sweep constrained mechanical systems from TOML scenario files.
#[derive(Parser)]
#[command(name = "contour", version)]
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
    },
    /// Minimum-time plan of the scenario's [plan]: sampled trajectory, phase plane, summary.
    Plan {
        /// The scenario file (TOML) with a [plan] table.
        scenario: PathBuf,
        /// Output directory.
        #[arg(short, long, default_value = "out")]
        out: PathBuf,
    },
    /// Run a sweep (grid and/or seeded random sample), or `sweep merge DIR` to join shards.
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
    /// Run only shard i of n (runs with index ≡ i mod n), or `auto` from Slurm
    /// (SLURM_ARRAY_TASK_ID/COUNT) or Kubernetes (JOB_COMPLETION_INDEX, JOB_COMPLETIONS).
    #[arg(long)]
    shard: Option<String>,
    /// Worker threads (default: the available cores).
    #[arg(short, long)]
    jobs: Option<usize>,
    /// Plain progress lines even on a terminal.
    #[arg(long)]
    no_progress_bar: bool,
}

#[derive(Subcommand)]
enum MergeCommand {
    /// Join the part-i-of-n files of DIR into summary.csv/.parquet; report missing and
    /// duplicated runs (exit status 1 when any is missing).
    Merge {
        /// The sweep's output directory.
        dir: PathBuf,
    },
}

fn sweep(args: SweepArgs) -> Result<(), CliError> {
    if let Some(MergeCommand::Merge { dir }) = args.merge {
        let r = contour_cli::sweep::merge(&dir)?;
        println!(
            "merged {} part(s): {} run(s)",
            r.parts.len(),
            r.table.rows.len()
        );
        if !r.duplicated.is_empty() {
            println!("duplicated runs (first kept): {:?}", r.duplicated);
        }
        if !r.conflicting.is_empty() {
            println!("duplicated runs whose rows differ: {:?}", r.conflicting);
        }
        if !r.missing.is_empty() {
            println!("missing runs: {:?}", r.missing);
        }
        if r.missing.is_empty() && r.conflicting.is_empty() {
            println!("wrote {}", dir.join("summary.csv").display());
            return Ok(());
        }
        return Err(CliError::IncompleteMerge {
            missing: r.missing.len(),
            duplicated: r.conflicting.len(),
        });
    }
    let Some(file) = args.sweep else {
        eprintln!("usage: contour sweep SWEEP.toml -o OUT [--shard i/n|auto] [--jobs k] | contour sweep merge OUT");
        return Err(CliError::MissingArgument("the sweep file"));
    };
    let shard = args
        .shard
        .map(|s| Shard::parse(&s, &|k| std::env::var(k).ok()))
        .transpose()?;
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let opts = SweepOptions {
        jobs,
        shard,
        progress: args.no_progress_bar.then_some(false),
    };
    let (table, files) = contour_cli::sweep::sweep(&file, &args.out, opts)?;
    let failed = table
        .column("status")
        .map_or(0, |j| table.rows.iter().filter(|r| r[j] != "ok").count());
    println!("{} run(s), {failed} not ok", table.rows.len());
    for f in files {
        println!("wrote {}", f.display());
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Simulate { scenario, out } => contour_cli::simulate::simulate(&scenario, &out)
            .map(|(files, summary)| {
                println!("{summary}");
                for f in files {
                    println!("wrote {}", f.display());
                }
            }),
        Command::Plan { scenario, out } => contour_cli::plan::plan(&scenario, &out).map(|s| {
            println!("{s}");
        }),
        Command::Sweep(args) => sweep(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
