//! Text rendering of rows (numbers, tolerances) and the rendered SVG figure.

use contour_papers::{Row, Tolerance};

pub use contour_plot::fmt_num;

/// Human-readable tolerance of a row.
pub fn tolerance_text(row: &Row) -> String {
    match row.tolerance {
        Tolerance::None => "—".into(),
        Tolerance::Abs(t) => format!("±{} abs", fmt_num(t)),
        Tolerance::Rel(t) => format!("±{} %", fmt_num(t * 100.0)),
        Tolerance::AtMost(b) => format!("≤ {}", fmt_num(b)),
        Tolerance::Exact => "exact".into(),
    }
}

/// One SVG figure to be written to `tables/figures/<name>.svg`.
#[derive(Debug, Clone)]
pub struct Figure {
    /// File stem, e.g. `fig6.2.3`.
    pub name: String,
    /// The SVG document.
    pub svg: String,
    /// The data are round-off noise: `--check` compares the structure only
    /// (`contour_papers::LinePlot::noisy`).
    pub noisy: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_tolerances_render() {
        assert_eq!(fmt_num(66.0), "66");
        assert_eq!(fmt_num(0.12345), "0.1235");
        assert_eq!(fmt_num(1.5e-7), "1.500e-7");
        let r = Row::count("x", 70.0)
            .paper(66.0)
            .tolerance(Tolerance::Rel(0.25));
        assert_eq!(tolerance_text(&r), "±25 %");
        let r = Row::roundoff("x", 1e-15, "", 1e-12).tolerance(Tolerance::AtMost(1e-12));
        assert_eq!(tolerance_text(&r), "≤ 1.000e-12");
    }
}
