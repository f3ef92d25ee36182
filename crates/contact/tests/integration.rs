//! The crate's integration tests, compiled as one binary (one link instead of one per file:
//! the workspace's CI builds every test binary at opt-level 3). Each file is a module; run one
//! with `cargo test -p <crate> --test integration <file>::`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

mod bad_input;
mod bad_input_table;
mod elastic_bounce_energy;
mod fuzz;
mod ground_contact;
mod no_allocation;
mod physics;
#[path = "../../ode/tests/support/pub_fn_scan.rs"]
mod pub_fn_scan;
mod transitions;
mod unified_trajectory;
