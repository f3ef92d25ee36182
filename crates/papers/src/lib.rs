//! # contour-papers — every paper reproduction of Contour
//!
//! The libraries serve users; the papers are reproduced *with* them, here. One module per
//! source, each with the scenarios it needs and a `source()` that returns its rows and figure
//! data; `cargo xtask reproduce-tables` renders them into `tables/` and checks them.
//!
//! * [`row`] — the one row type [`Row`]: `{id, paper, ours, unit, note}`, the `--check` rule
//!   ([`Check`]: exact count, relative after 6-digit rounding, round-off bound) and the
//!   acceptance against the paper ([`Tolerance`]), both set where the row is made.
//! * [`figure`] — the data of a figure ([`LinePlot`]); xtask draws the SVG.
//! * [`linalg_accuracy`] — source `linalg`: accuracy of the dense kernels.
//! * [`keerthi`] — Keerthi et al.: sources `keerthi` (Tables 4.1/4.2, the extended
//!   comparison), `model` (the printed initial conditions, [`keerthi::consistency`]) and
//!   `projection` (long runs of every method, [`keerthi::longrun`]).
//! * [`ode_orders`] — source `ode`: orders, Kepler work–precision, stiff and DAE problems.
//! * [`featherstone`] — source `featherstone`: `planar2g` with FDgq.
//! * [`kovecses`] — source `kovecses`: the 7-joint arm, redundant mechanisms, (35) vs (36).
//! * [`huang`] — source `huang`, by thesis section: [`huang::ch5_2_index`],
//!   [`huang::ch6_2_planning`] (+ [`huang::ch6_2_figures`]), [`huang::ch6_3_contact`], with
//!   the scenarios of chapter 6 in [`huang::scenario`].

pub mod featherstone;
pub mod figure;
pub mod huang;
pub mod keerthi;
pub mod kovecses;
pub mod linalg_accuracy;
pub mod ode_orders;
pub mod row;

pub use figure::{LinePlot, Series};
pub use row::{round_sig, Check, Row, Tolerance, BELOW_BAND, RELATIVE_CHECK};

/// The error of a reproduction run.
pub type BoxError = Box<dyn std::error::Error>;

/// What one source produces, or why it failed.
pub type SourceResult = Result<SourceOutput, BoxError>;

/// A source: computes its rows and figures.
pub type SourceFn = fn() -> SourceResult;

/// What one source produces.
#[derive(Debug, Default)]
pub struct SourceOutput {
    /// Rows in presentation order.
    pub rows: Vec<Row>,
    /// Figures.
    pub figures: Vec<LinePlot>,
}

impl SourceOutput {
    /// Rows only.
    pub fn rows(rows: Vec<Row>) -> Self {
        SourceOutput {
            rows,
            figures: Vec::new(),
        }
    }
}

/// Source `keerthi`, composed here so that `keerthi` imports neither `huang` nor `kovecses`
/// (both build on it).
fn keerthi_source() -> SourceResult {
    keerthi::source_with(&[
        huang::ch5_2_index::final_time_scan_rows,
        kovecses::keerthi_kov_rows,
    ])
}

/// Every source, in the order of `tables/reproduction.json`. A source owns every row whose id
/// starts with `<source>/`.
pub fn sources() -> Vec<(&'static str, SourceFn)> {
    vec![
        ("linalg", linalg_accuracy::source),
        ("model", keerthi::consistency::source),
        ("ode", ode_orders::source),
        ("huang", huang::source),
        ("featherstone", featherstone::source),
        ("keerthi", keerthi_source),
        ("projection", keerthi::longrun::source),
        ("kovecses", kovecses::source),
    ]
}
