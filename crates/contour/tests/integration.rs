//! The crate's integration tests, compiled as one binary (one link instead of one per file:
//! the workspace's CI builds every test binary at opt-level 3). Each file is a module; run one
//! with `cargo test -p <crate> --test integration <file>::`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

mod andrews;
mod autodiff_simulation;
mod car_axis;
mod mbs_bricard;
mod mbs_flyball;
mod mbs_pendulum;
mod planar_four_bar;
mod planned_trajectory;
