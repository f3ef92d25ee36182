//! What a [`crate::Simulation`] keeps while it runs: the recording modes of
//! `contour-trajectory` ([`Recording`]), re-exported here, and the run's error for a failing
//! sink ([`ProjectionError::OutputSink`]).
//!
//! ```
//! use contour_model::models::Pendulum;
//! use contour_projection::{CsvSink, Recording, Simulation};
//! use std::sync::{Arc, Mutex};
//!
//! let p = Pendulum::default();
//! let (q0, qd0) = p.state(1.0, 0.0);
//! let sink = Arc::new(Mutex::new(CsvSink::new(Vec::<u8>::new())));
//! let tr = Simulation::new(&p, &q0, &qd0, 0.0, 1.0)
//!     .recording(Recording::stream(sink.clone()))
//!     .run()?;
//! assert!(tr.times.is_empty() && tr.step_times.is_empty());
//! let rows = sink.lock().map(|s| s.rows()).unwrap_or(0);
//! assert_eq!(rows, tr.stats.steps + 1); // every accepted step and t0
//! # Ok::<(), contour_projection::ProjectionError>(())
//! ```

use crate::error::ProjectionError;

pub use contour_trajectory::recording::{
    CsvSink, LastRowSink, OutputRow, OutputSink, Recording, SharedSink, SinkError,
};

impl From<SinkError> for ProjectionError {
    fn from(e: SinkError) -> Self {
        ProjectionError::OutputSink {
            t: e.t,
            message: e.message,
        }
    }
}
