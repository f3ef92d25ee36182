//! Shards of a sweep: `--shard i/n` runs the runs with index ≡ i (mod n), so an existing batch
//! engine (Slurm job arrays, Kubernetes indexed Jobs) runs a sweep across machines.

use serde::{Deserialize, Serialize};

use crate::error::{CliError, Result};

/// A shard `i` of `n`: runs with index ≡ i (mod n).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// This shard (0-based).
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

/// The environment variables `--shard auto` reads the index from, in order.
pub const SHARD_INDEX_VARIABLES: [&str; 2] = ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"];

impl Shard {
    /// The shard of `--shard <given>` (`i`, `i/n` or `auto`) with `--shards` and the sweep's
    /// `shards`. The count is `n` of `i/n`, `--shards` or the sweep's `shards` (they must
    /// agree); the index of `auto` is the task's own index — Slurm's `SLURM_ARRAY_TASK_ID`
    /// or Kubernetes' `JOB_COMPLETION_INDEX` — never derived from the size of the array,
    /// so `sbatch --array=3` or `--array=3,9,12` or `--array=0-14:2` runs those shards of
    /// the whole sweep.
    pub fn resolve(
        given: &str,
        shards: Option<usize>,
        sweep_shards: Option<usize>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self> {
        let bad = |reason: String| CliError::InvalidShard {
            given: given.to_string(),
            reason,
        };
        let (index_text, count_text) = match given.split_once('/') {
            Some((i, n)) => (i.trim(), Some(n.trim())),
            None => (given.trim(), None),
        };
        let explicit = count_text
            .map(|n| {
                n.parse::<usize>()
                    .map_err(|_| bad(format!("`{n}` is not a shard count")))
            })
            .transpose()?;
        let mut count = None;
        for (what, c) in [
            ("the i/n of --shard", explicit),
            ("--shards", shards),
            ("the sweep's `shards`", sweep_shards),
        ] {
            match (count, c) {
                (_, None) => {}
                (None, Some(c)) => count = Some((what, c)),
                (Some((w, n)), Some(c)) if n != c => {
                    return Err(bad(format!("{w} says {n} shards, {what} says {c}")))
                }
                _ => {}
            }
        }
        let Some((_, count)) = count else {
            return Err(bad(
                "the shard count is not known: set `shards = N` in the sweep file or pass \
                 --shards N (the size of a job array is not used: a re-run of one task is an \
                 array of one)"
                    .into(),
            ));
        };
        if count == 0 {
            return Err(bad("the shard count must be at least 1".into()));
        }
        let (index, source) = if index_text == "auto" {
            let Some((var, value)) = SHARD_INDEX_VARIABLES
                .iter()
                .find_map(|v| env(v).map(|x| (*v, x)))
            else {
                return Err(bad(format!(
                    "auto: none of {} is set",
                    SHARD_INDEX_VARIABLES.join(", ")
                )));
            };
            let i = value
                .trim()
                .parse::<usize>()
                .map_err(|_| bad(format!("{var} = `{value}` is not an index")))?;
            (i, format!("{var} = {i}"))
        } else {
            let i = index_text
                .parse::<usize>()
                .map_err(|_| bad(format!("`{index_text}` is not a shard index")))?;
            (i, format!("index {i}"))
        };
        if index >= count {
            return Err(bad(format!(
                "{source} is not below the shard count {count} (shards are 0 to {}: \
                 `sbatch --array=0-{}` for all of them)",
                count - 1,
                count - 1
            )));
        }
        Ok(Shard { index, count })
    }

    /// The part's file stem `part-i-of-n`.
    pub fn stem(&self) -> String {
        format!("part-{}-of-{}", self.index, self.count)
    }
}
