//! The crate's integration tests, compiled as one binary (one link instead of one per file:
//! the workspace's CI builds every test binary at opt-level 3). Each file is a module; run one
//! with `cargo test -p <crate> --test integration <file>::`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

mod bad_input;
mod bad_input_table;
mod closed_form;
mod common;
mod fuzz;
mod generic_mechanism;
mod limit_kinds;
mod mutant_witnesses;
mod phase_plane_accuracy;
mod planning_sync;
#[path = "../../ode/tests/support/pub_fn_scan.rs"]
mod pub_fn_scan;
mod speed_dependent_toppra;
mod trajectory_sampling;
mod tree_path_terms;
