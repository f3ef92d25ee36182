#!/bin/bash
# Run a contour sweep as a Slurm job array: one array task per shard, then merge.
#
#   sbatch --array=0-15 deploy/slurm-sweep.sh examples/scenarios/sweep_keerthi.toml results/
#   # when every task has finished (or with --dependency=afterok:<jobid>):
#   contour sweep merge results/
#
# `--shard auto` reads SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT, so
# the array size is the shard count: task k runs the runs with index ≡ k (mod n) and writes
# results/part-k-of-n.csv and .parquet atomically. A failed or killed task leaves no part;
# `contour sweep merge` names the missing runs, and `sbatch --array=<k> …` re-runs that shard
# alone. Each task uses the cores Slurm gives it (--jobs).
#
#SBATCH --job-name=contour-sweep
#SBATCH --cpus-per-task=4
#SBATCH --mem-per-cpu=512M
#SBATCH --time=01:00:00
#SBATCH --output=contour-sweep-%A_%a.out

set -euo pipefail
SWEEP=${1:?usage: sbatch --array=0-N deploy/slurm-sweep.sh SWEEP.toml OUT_DIR}
OUT=${2:?usage: sbatch --array=0-N deploy/slurm-sweep.sh SWEEP.toml OUT_DIR}
CONTOUR=${CONTOUR:-contour}   # the binary: `cargo install --path crates/cli` or target/release/contour

"$CONTOUR" sweep "$SWEEP" -o "$OUT" --shard auto --jobs "${SLURM_CPUS_PER_TASK:-1}" --no-progress-bar
