//! # contour-viz
//!
//! One self-contained HTML page that plays a trajectory: play/pause, a time slider, the speed,
//! the time shown; events (impacts, entries, exits) marked on the slider; a planned path and
//! its phase-plane curve `(s, ṡ)` with a cursor at the current `s`. The page inlines its
//! viewer (Canvas 2-D, written here, no library) and its data: it needs no network when
//! viewed.
//!
//! * [`Drawable`] — what a mechanism gives: points and segments for a state `(t, q)`, and
//!   optionally surfaces, moving frames and shapes in them. The shipped models of
//!   `contour_model::models` implement it ([`models`]);
//! * [`TreeDrawable`] — a kinematic tree (from URDF or built in code): capsules between joint
//!   origins, link frames, joint axes, the URDF's primitive visuals;
//! * [`Animation`] — a trajectory of a drawable, decimated to the display rate, written by
//!   [`Animation::write_html`].
//!
//! ```
//! use contour_model::models::Pendulum;
//! use contour_viz::Animation;
//!
//! let pendulum = Pendulum::default();
//! let times: Vec<f64> = (0..=100).map(|k| 0.01 * k as f64).collect();
//! let q: Vec<Vec<f64>> = times.iter().map(|t| vec![t.sin(), -t.cos()]).collect();
//! let mut page = Vec::new();
//! let summary = Animation::new(&pendulum, &times, &q)
//!     .title("pendulum")
//!     .write_html(&mut page)?;
//! assert_eq!(summary.frames, 61); // 1 s at 60 frames per second, and the first frame
//! # Ok::<(), contour_viz::VizError>(())
//! ```

mod animation;
mod drawable;
mod error;
pub mod models;
mod tree;

pub use animation::{Animation, EventMark, HtmlSummary};
pub use drawable::{Drawable, PointKind, Pose, Segment, SegmentKind, Shape, ShapeKind, Surface};
pub use error::VizError;
pub use tree::TreeDrawable;

#[cfg(test)]
mod tests;
