//! The crate's integration tests, compiled as one binary (one link instead of one per file:
//! the workspace's CI builds every test binary at opt-level 3). Each file is a module; run one
//! with `cargo test -p <crate> --test integration <file>::`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

mod augmented_lagrangian;
mod bdf_methods;
mod common;
mod deserialize_fuzz;
mod errors;
mod explicit_gamma_q;
mod failed_run_keeps_trajectory;
mod ggl_singular_passage;
mod isosceles_slider_crank;
mod kovecses;
mod lambda_at_steps;
mod mutant_witnesses;
mod no_allocation;
mod options_every_method;
mod pendulum;
mod perturbation_singular_passages;
mod projection_property;
mod recording;
mod redundant_rows_every_method;
mod simulation_sync;
mod singular_configurations;
mod sirk_convergence;
mod sparse_no_allocation;
mod stalled_passage;
mod trajectory_io;
mod user_method;
