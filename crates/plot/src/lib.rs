//! # contour-plot
//!
//! A 2-D line plot as plain data ([`LinePlot`]: named [`Series`] of points, axis labels, a
//! log axis, grey shading) and, with the default `svg` feature, its rendering to an SVG
//! document ([`render_svg`], plotters' SVG backend with no font features, so no system
//! library is needed). `contour-papers` describes the reproduction's figures with it (data
//! only), `xtask` draws them, and the `contour` command line draws q, q̇, λ, ‖φ‖ and phase
//! planes with the same code.

#[cfg(feature = "svg")]
mod svg;

#[cfg(feature = "svg")]
pub use svg::{render_svg, PlotError};

/// Formats an axis or table number: integers plainly, others with 4 significant digits
/// (`1.500e-7` below 1e-3 and from 1e6 on).
pub fn fmt_num(x: f64) -> String {
    if x.is_finite() && x == x.trunc() && x.abs() < 1e9 {
        format!("{}", x as i64)
    } else if x != 0.0 && (x.abs() < 1e-3 || x.abs() >= 1e6) {
        format!("{:.3e}", x)
    } else {
        let s = format!("{:.4}", x);
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// One curve of a figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Points (x, y) in data coordinates.
    pub points: Vec<(f64, f64)>,
    /// Draw markers instead of a line.
    pub markers: bool,
}

impl Series {
    /// A line through the points.
    pub fn line(label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series {
            label: label.into(),
            points,
            markers: false,
        }
    }

    /// Markers at the points (switching points, events).
    pub fn markers(label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series {
            label: label.into(),
            points,
            markers: true,
        }
    }
}

/// A 2-D line plot (`name` is the file stem it is written under, e.g. `fig6.2.3`).
#[derive(Debug, Clone, PartialEq)]
pub struct LinePlot {
    /// Figure file stem, e.g. `fig6.2.3`.
    pub name: String,
    /// Caption.
    pub title: String,
    /// Description of the x axis.
    pub x_label: String,
    /// Description of the y axis.
    pub y_label: String,
    /// Logarithmic y axis (non-positive values are clamped to the lower limit).
    pub log_y: bool,
    /// Curves.
    pub series: Vec<Series>,
    /// Polygons shaded in grey (e.g. an inadmissible region of a phase plane).
    pub shaded: Vec<Vec<(f64, f64)>>,
    /// The data are round-off noise (e.g. violations at 1e-15): `--check` then compares the
    /// structure of the SVG (text and number of coordinates) but not the coordinates, which
    /// move with the SIMD kernels faer selects on another CPU.
    pub noisy: bool,
}

impl LinePlot {
    /// A plot with no series yet.
    pub fn new(name: &str, title: &str, x_label: &str, y_label: &str) -> Self {
        LinePlot {
            name: name.into(),
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            log_y: false,
            series: Vec::new(),
            shaded: Vec::new(),
            noisy: false,
        }
    }
}
