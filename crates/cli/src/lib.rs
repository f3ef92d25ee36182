//! # contour-cli
//!
//! The `contour` command line: `contour simulate scenario.toml -o out/`, `contour plan
//! scenario.toml -o out/`, `contour sweep sweep.toml -o out/ [--shard i|auto] [--shards n]
//! [--resume] [--jobs k]` and `contour sweep merge out/`. The modules are public so the commands can be called from
//! Rust (tests, measurements) exactly as the binary calls them.
//!
//! * [`scenario`] — the TOML schema and errors naming key and line;
//! * [`model`] — built-in models by name and URDF files;
//! * [`run`] — one simulation of a scenario;
//! * [`simulate`] — the `simulate` command's files (CSV, JSON, events, statistics, SVG);
//! * [`plots`] — the SVG figures of a trajectory;
//! * [`sweep`] — sweeps: loading and checking, fingerprints, shards, the streaming driver;
//! * [`part`] — a part's files (streamed CSV, Parquet row groups, sidecar) and `merge`;
//! * [`table`] — CSV and Parquet of text cells.

pub mod animate;
pub mod error;
pub mod model;
pub mod part;
pub mod plan;
pub mod plots;
pub mod run;
pub mod scenario;
pub mod simulate;

pub use error::{CliError, ScenarioError};
pub mod sweep;
pub mod table;
