//! # contour-cli
//!
//! The `contour` command line: `contour simulate scenario.toml -o out/`, `contour plan
//! scenario.toml -o out/`, `contour sweep sweep.toml -o out/ [--shard i|auto] [--shards n]
//! [--resume] [--jobs k]` and `contour sweep merge out/`. The modules are public so the commands can be called from
//! Rust (tests, measurements) exactly as the binary calls them.
//!
//! * [`scenario`], [`model`], [`run`] — the TOML schema, the models and one simulation of a
//!   scenario: `contour_scenario`'s, re-exported (the options language both doors share);
//! * [`simulate`] — the `simulate` command's files (CSV, JSON, events, statistics, SVG);
//! * [`plots`] — the SVG figures of a trajectory;
//! * [`sweep`] — shards and the streaming driver over `contour_scenario`'s sweep engine;
//! * [`part`] — a part's files (streamed CSV, Parquet row groups, sidecar) and `merge`;
//! * [`table`] — CSV and Parquet of text cells.

pub mod animate;
pub mod error;
pub mod part;
pub mod plan;
pub mod plots;
pub mod shard;
pub mod simulate;
pub mod sweep;
pub mod table;

pub use contour_scenario::{model, run, scenario};
pub use error::{CliError, ScenarioError};
