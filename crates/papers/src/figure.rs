//! The data of one figure: named series of points, axes, shading (from `contour-plot`, data
//! only). `xtask` draws it as SVG.

pub use contour_plot::{LinePlot, Series};
