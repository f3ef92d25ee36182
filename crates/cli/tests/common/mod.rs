//! What the binary tests share: running the built `contour` binary and the shipped scenarios.
// each test binary uses part of it
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The built `contour` binary (`CARGO_BIN_EXE_contour`).
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_contour"))
}

/// Runs the binary with `args`.
pub fn contour(args: &[&str]) -> Output {
    bin().args(args).output().expect("the contour binary runs")
}

/// The shipped example scenarios.
pub fn scenarios() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenarios")
}

/// A path as a command-line argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
