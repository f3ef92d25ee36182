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
