//! The crate's integration tests, compiled as one binary (one link instead of one per file:
//! the workspace's CI builds every test binary at opt-level 3). Each file is a module; run one
//! with `cargo test -p <crate> --test integration <file>::`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

mod autodiff_witness;
mod bad_input;
mod common;
mod errors;
mod mechanism_defaults;
mod no_allocation;
mod pendulum_motion;
mod pinocchio_crosscheck;
mod pinocchio_floating;
mod sparsity_verified;
mod tree_build_is_linear;
mod tree_energy;
mod tree_sync;
mod urdf_floating;
mod urdf_fuzz;
mod urdf_import;
mod urdf_limits_and_masses;
mod urdf_real_robots;
