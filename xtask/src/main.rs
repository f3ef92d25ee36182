//! `cargo xtask` — project automation for Contour.
//!
//! ```text
//! cargo xtask reproduce-tables [--check] [--only SOURCE]
//! ```
//!
//! `reproduce-tables` runs every source of `contour-papers` (see `../shared/REPRODUCTION.md`)
//! and writes `tables/reproduction.json`, one `tables/<source>.md` per
//! source, `tables/figures/*.svg` and the generated summary block of `README.md`. With `--check`
//! it regenerates everything in memory and fails, listing every file that differs, when the
//! committed files are not what a fresh run produces. The rows carry their own check rule,
//! unit and tolerance (`contour_papers::Row`); xtask only renders and checks.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test, bench and tool code: a panic is the report

mod plot;
mod render;
mod reproduce;

use std::process::ExitCode;

fn usage() -> String {
    let names: Vec<&str> = contour_papers::sources().iter().map(|(n, _)| *n).collect();
    format!(
        "usage: cargo xtask reproduce-tables [--check] [--only SOURCE]\nsources: {}",
        names.join(", ")
    )
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(task) = args.first() else {
        eprintln!("{}", usage());
        return ExitCode::FAILURE;
    };
    let result = match task.as_str() {
        "reproduce-tables" => reproduce::Options::parse(&args[1..]).and_then(reproduce::run),
        "help" | "--help" | "-h" => {
            println!("{}", usage());
            return ExitCode::SUCCESS;
        }
        other => Err(format!("unknown task `{other}`\n{}", usage()).into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;

    /// Crates with `autotests = false` compile their integration tests as one binary
    /// (`tests/integration.rs`, a module per file; CI builds each test binary at opt-level 3, so
    /// one link per crate instead of one per file). A new `tests/*.rs` that is neither a module of
    /// that file nor a `[[test]]` of its Cargo.toml would silently never run: this test says so.
    #[test]
    fn every_integration_test_file_is_compiled() {
        let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates");
        let mut missing = Vec::new();
        let mut checked = 0;
        for krate in fs::read_dir(&crates).unwrap() {
            let dir = krate.unwrap().path();
            let manifest = fs::read_to_string(dir.join("Cargo.toml")).unwrap();
            if !manifest.contains("autotests = false") {
                continue;
            }
            let tests = dir.join("tests");
            let merged = fs::read_to_string(tests.join("integration.rs")).unwrap_or_default();
            for file in fs::read_dir(&tests).unwrap() {
                let path = file.unwrap().path();
                let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                    continue;
                };
                if path.extension().is_none_or(|e| e != "rs") || stem == "integration" {
                    continue;
                }
                checked += 1;
                let as_module = merged.lines().any(|l| l.trim() == format!("mod {stem};"));
                let as_binary = manifest.contains(&format!("path = \"tests/{stem}.rs\""));
                if !as_module && !as_binary {
                    missing.push(path.display().to_string());
                }
            }
        }
        assert!(
            checked > 50,
            "only {checked} test files found under {}",
            crates.display()
        );
        assert!(
            missing.is_empty(),
            "not compiled (add `mod NAME;` to the crate's tests/integration.rs): {missing:?}"
        );
    }
}
