//! No build step: the build dependencies only unify the proc-macros' features (Cargo.toml).
fn main() {}
