//! Shared helpers for the criterion benches (see `benches/`).

pub mod arm7_line;
