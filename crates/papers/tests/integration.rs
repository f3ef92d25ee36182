//! The crate's integration tests, compiled as one binary (one link instead of one per file:
//! the workspace's CI builds every test binary at opt-level 3). Each file is a module; run one
//! with `cargo test -p <crate> --test integration <file>::`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

mod coarse_phase_plane;
mod featherstone;
mod huang52;
mod huang_contact;
mod huang_joint_forces;
mod huang_printed_coefficients;
mod huang_reproduction;
mod keerthi;
mod keerthi_consistency;
mod kovecses;
mod kovecses_rows;
mod ode_orders;
