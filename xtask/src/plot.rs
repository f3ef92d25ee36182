//! SVG figures for `reproduce-tables`: the drawing is `contour_plot::render_svg` (shared with
//! the `contour` command line); this wraps it into a [`Figure`].

use contour_papers::LinePlot;

use crate::render::Figure;

/// Render a figure's data to SVG.
pub fn render(plot: &LinePlot) -> Result<Figure, Box<dyn std::error::Error>> {
    Ok(Figure {
        name: plot.name.clone(),
        svg: contour_plot::render_svg(plot)?,
        noisy: plot.noisy,
    })
}
