//! The crate's integration tests, compiled as one binary (one link instead of one per file:
//! the workspace's CI builds every test binary at opt-level 3). Each file is a module; run one
//! with `cargo test -p <crate> --test integration <file>::`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

mod bad_input;
mod bad_input_table;
mod behaviour_witnesses;
mod convergence_order;
mod events;
mod fuzz;
mod gill_roundoff;
mod huang_bdf2_witnesses;
mod implicit_methods;
mod kepler;
mod no_alloc;
mod norms_and_counting;
#[path = "support/pub_fn_scan.rs"]
mod pub_fn_scan;
mod replace_y;
mod step_control;
