#!/bin/bash
# Run a contour sweep as a Slurm job array: one array task per shard, then merge.
#
#   sbatch --array=0-15 deploy/slurm-sweep.sh examples/scenarios/sweep_keerthi.toml results/
#   contour sweep merge results/      # once every task has finished (exit 4 names missing runs)
#
# The shard count is the sweep's own (`shards = 16` in sweep_keerthi.toml; for a sweep file
# without one, set SHARDS=n in the environment: `SHARDS=16 sbatch --array=0-15 …`). A task
# takes only its index from SLURM_ARRAY_TASK_ID, so any set of tasks runs those shards of the
# same whole sweep:
#
#   sbatch --array=3 deploy/slurm-sweep.sh examples/scenarios/sweep_keerthi.toml results/
#   sbatch --array=3,9,12 deploy/slurm-sweep.sh examples/scenarios/sweep_keerthi.toml results/
#   sbatch --array=0-15:2 deploy/slurm-sweep.sh examples/scenarios/sweep_keerthi.toml results/
#   sbatch --array=0-15%4 deploy/slurm-sweep.sh examples/scenarios/sweep_keerthi.toml results/
#
# (shard 3 alone; the shards a merge named as missing; the even shards; all, 4 at a time).
# Task k writes only results/part-k-of-16.{csv,parquet,json}: rows go to the CSV as runs
# finish, and a task stopped by its time limit, preemption or scancel (SIGTERM) finishes its
# running runs and closes its files. Submitted again, a task resumes (--resume): it keeps the
# rows it has and runs only the missing runs. The merge refuses parts of a different sweep.
# To merge as soon as the array is done:
#
#   sbatch --dependency=afterok:<jobid> --wrap "contour sweep merge results/"
#
# Resources: one core and the partition's default memory and time limit per task, which any
# node can give. Ask for more on the command line (it overrides the #SBATCH lines below), e.g.
# `sbatch -c 4 --mem=2G --time=2:00:00 --array=0-15 deploy/slurm-sweep.sh …`; a task uses the
# cores it is given (--jobs $SLURM_CPUS_PER_TASK).
#
#SBATCH --job-name=contour-sweep
#SBATCH --cpus-per-task=1
#SBATCH --output=contour-sweep-%A_%a.out

set -euo pipefail
usage="usage: sbatch --array=0-N deploy/slurm-sweep.sh SWEEP.toml OUT_DIR"
SWEEP=${1:?$usage}
OUT=${2:?$usage}
CONTOUR=${CONTOUR:-contour}   # the binary: `cargo install --locked --path crates/cli`
shards=()
if [ -n "${SHARDS:-}" ]; then shards=(--shards "$SHARDS"); fi

echo "contour-sweep: task ${SLURM_ARRAY_TASK_ID:-?} of job ${SLURM_ARRAY_JOB_ID:-?} on $(hostname), ${SLURM_CPUS_PER_TASK:-1} core(s)"
exec "$CONTOUR" sweep "$SWEEP" -o "$OUT" --shard auto "${shards[@]}" --resume \
  --jobs "${SLURM_CPUS_PER_TASK:-1}" --no-progress-bar
