//! SVG rendering of a [`LinePlot`] with plotters' SVG backend (moved here from xtask so the
//! command line draws with the same code; the output is byte-identical to xtask's before).

use plotters::prelude::*;

use crate::{fmt_num, LinePlot};

/// Failure to draw a [`LinePlot`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlotError {
    /// No series has a finite point (on a log axis: a positive one).
    #[error("figure `{name}` has no finite data")]
    NoFiniteData {
        /// The figure's name.
        name: String,
    },
    /// plotters' drawing backend failed (its message).
    #[error("drawing figure failed: {0}")]
    Backend(String),
}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        PlotError::Backend(e.to_string())
    }
}

const PALETTE: [RGBColor; 6] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
];

/// Renders a figure's data to an SVG document (720 × 480). Coordinates are rounded by
/// plotters to whole pixels, so round-off in the data does not change the file.
pub fn render_svg(plot: &LinePlot) -> Result<String, PlotError> {
    Renderer(plot).render()
}

struct Renderer<'a>(&'a LinePlot);

impl std::ops::Deref for Renderer<'_> {
    type Target = LinePlot;
    fn deref(&self) -> &LinePlot {
        self.0
    }
}

impl Renderer<'_> {
    fn render(&self) -> Result<String, PlotError> {
        let all = self
            .series
            .iter()
            .flat_map(|s| s.points.iter())
            .chain(self.shaded.iter().flatten());
        let (mut x0, mut x1, mut y0, mut y1) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for &(x, y) in all {
            if !(x.is_finite() && y.is_finite()) || (self.log_y && y <= 0.0) {
                continue;
            }
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        if !(x0.is_finite() && y0.is_finite()) {
            return Err(PlotError::NoFiniteData {
                name: self.name.clone(),
            });
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        let (y0, y1) = if self.log_y {
            let lo = 10f64.powf(y0.log10().floor());
            let hi = 10f64.powf(y1.log10().ceil()).max(lo * 10.0);
            (lo, hi)
        } else {
            let pad = 0.05 * (y1 - y0).max(1e-12);
            (y0 - pad, y1 + pad)
        };
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (720, 480)).into_drawing_area();
            root.fill(&WHITE)?;
            let mut builder = ChartBuilder::on(&root);
            builder
                .caption(&self.title, ("sans-serif", 18))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(70);
            let clamp = |y: f64| if self.log_y { y.max(y0) } else { y };
            macro_rules! draw {
                ($chart:expr) => {{
                    let mut chart = $chart;
                    let log_y = self.log_y;
                    let y_fmt = move |y: &f64| {
                        if log_y {
                            format!("{:.0e}", y)
                        } else {
                            fmt_num(if y.abs() < 1e-9 { 0.0 } else { *y })
                        }
                    };
                    chart
                        .configure_mesh()
                        .x_desc(self.x_label.as_str())
                        .y_desc(self.y_label.as_str())
                        .x_label_formatter(&|x: &f64| {
                            fmt_num(if x.abs() < 1e-9 { 0.0 } else { *x })
                        })
                        .y_label_formatter(&y_fmt)
                        .draw()?;
                    for poly in &self.shaded {
                        chart.draw_series(std::iter::once(Polygon::new(
                            poly.iter().map(|&(x, y)| (x, clamp(y))).collect::<Vec<_>>(),
                            RGBColor(0xbb, 0xbb, 0xbb).mix(0.5).filled(),
                        )))?;
                    }
                    for (i, s) in self.series.iter().enumerate() {
                        let color = PALETTE[i % PALETTE.len()];
                        let pts: Vec<(f64, f64)> =
                            s.points.iter().map(|&(x, y)| (x, clamp(y))).collect();
                        if s.markers {
                            chart
                                .draw_series(
                                    pts.into_iter().map(|p| Circle::new(p, 3, color.filled())),
                                )?
                                .label(s.label.as_str())
                                .legend(move |(x, y)| Circle::new((x + 10, y), 3, color.filled()));
                        } else {
                            chart
                                .draw_series(LineSeries::new(pts, color.stroke_width(2)))?
                                .label(s.label.as_str())
                                .legend(move |(x, y)| {
                                    PathElement::new(
                                        vec![(x, y), (x + 20, y)],
                                        color.stroke_width(2),
                                    )
                                });
                        }
                    }
                    if self.series.len() > 1 {
                        chart
                            .configure_series_labels()
                            .background_style(WHITE.mix(0.8))
                            .border_style(BLACK)
                            .draw()?;
                    }
                }};
            }
            if self.log_y {
                draw!(builder.build_cartesian_2d(x0..x1, (y0..y1).log_scale())?);
            } else {
                draw!(builder.build_cartesian_2d(x0..x1, y0..y1)?);
            }
            root.present()?;
        }
        Ok(svg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_lines_markers_and_log_axes() {
        use crate::Series;
        let mut p = LinePlot::new("t", "test", "t [s]", "‖φ‖");
        p.log_y = true;
        p.series.push(Series::line(
            "a",
            (1..50).map(|i| (i as f64, 1e-15 * i as f64)).collect(),
        ));
        p.series
            .push(Series::markers("b", vec![(3.0, 1e-14), (4.0, 0.0)]));
        p.shaded
            .push(vec![(0.0, 1e-15), (1.0, 1e-15), (1.0, 1e-14)]);
        let svg = render_svg(&p).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("<polyline"));
        assert!(svg.contains("<circle"));
        assert!(svg.contains("t [s]"));
        let empty = LinePlot::new("e", "e", "x", "y");
        assert!(matches!(
            render_svg(&empty),
            Err(PlotError::NoFiniteData { .. })
        ));
    }
}
