//! What a simulation keeps while it runs: [`Recording`].
//!
//! * [`Recording::Full`] (the default) — the outputs (`times`, `q`, `q̇`, `λ`) and the
//!   per-step histories (`step_times`, `step_phi`, `step_phidot`, `step_lambda`): memory grows
//!   with the number of accepted steps.
//! * [`Recording::OutputsOnly`] — the outputs only; the per-step histories stay empty (their
//!   maxima are still in [`crate::SimulationStats`]): memory grows with the number of outputs,
//!   not of steps.
//! * [`Recording::Stream`] — every output row is handed to an [`OutputSink`] as it is made
//!   (e.g. [`CsvSink`], which writes the rows of [`crate::Trajectory::write_csv`] as they come)
//!   and not kept; the per-step histories stay empty. Memory stays bounded whatever the
//!   length of the run.
//!
//! Events, statistics and the initial and final states are kept in every mode. The driver
//! applies the mode once per accepted step, after that step's outputs, so a run that fails
//! keeps in its partial trajectory at most the rows of the failing step.
//!
//! `contour_projection::Simulation::recording` takes the mode; its module documentation runs
//! a streaming example.

use std::io::Write;
use std::sync::{Arc, Mutex};

use crate::Trajectory;
use contour_model::csv::write_f64;

/// One output row: time, `q`, `q̇` and `λ` (empty when the method computes no multipliers).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OutputRow<'a> {
    /// Output time \[s\].
    pub t: f64,
    /// Coordinates q.
    pub q: &'a [f64],
    /// Velocities q̇.
    pub qd: &'a [f64],
    /// Multipliers λ.
    pub lambda: &'a [f64],
}

/// Failure of the sink of a streaming run: the time of the row it refused and the sink's
/// message. The simulators end the run with it (`contour_projection::ProjectionError::OutputSink`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("output sink failed at t = {t:.6e}: {message}")]
pub struct SinkError {
    /// Time of the row the sink refused (or of the first row when its lock is poisoned) \[s\].
    pub t: f64,
    /// The sink's (or the lock's) message.
    pub message: String,
}

/// Receives each output row of a streaming run ([`Recording::Stream`]) in time order.
pub trait OutputSink: Send {
    /// Takes one row. An error ends the run with a [`SinkError`].
    fn row(&mut self, row: OutputRow<'_>) -> std::io::Result<()>;
}

/// A sink shared between the caller and the simulation (the caller reads it after the run).
pub type SharedSink = Arc<Mutex<dyn OutputSink>>;

/// What the driver keeps (see the module documentation).
#[derive(Clone, Default)]
pub enum Recording {
    /// Outputs and per-step histories.
    #[default]
    Full,
    /// Outputs only.
    OutputsOnly,
    /// Each output row to the sink, nothing kept.
    Stream(SharedSink),
}

impl std::fmt::Debug for Recording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Recording::Full => write!(f, "Full"),
            Recording::OutputsOnly => write!(f, "OutputsOnly"),
            Recording::Stream(_) => write!(f, "Stream(..)"),
        }
    }
}

impl Recording {
    /// [`Recording::Stream`] into `sink` (keep a clone of the `Arc` to read the sink after the
    /// run).
    pub fn stream<S: OutputSink + 'static>(sink: Arc<Mutex<S>>) -> Self {
        Recording::Stream(sink)
    }

    /// Applies the mode to the trajectory being recorded, once per accepted step after its
    /// outputs: clears the per-step histories unless [`Recording::Full`], and hands the output
    /// rows to the sink (then drops them) in [`Recording::Stream`]. Clearing keeps the
    /// vectors' capacity, so nothing is allocated after the first step.
    ///
    /// Errors: [`SinkError`] when the sink fails (or its lock is poisoned).
    pub fn settle(&self, traj: &mut Trajectory) -> Result<(), SinkError> {
        if let Recording::Full = self {
            return Ok(());
        }
        traj.step_times.clear();
        traj.step_phi.clear();
        traj.step_phidot.clear();
        traj.step_lambda.clear();
        let Recording::Stream(sink) = self else {
            return Ok(());
        };
        if traj.times.is_empty() {
            return Ok(());
        }
        let fail = |t: f64, e: &dyn std::fmt::Display| SinkError {
            t,
            message: e.to_string(),
        };
        let mut guard = sink.lock().map_err(|e| fail(traj.times[0], &e))?;
        let none: &[f64] = &[];
        for k in 0..traj.times.len() {
            let row = OutputRow {
                t: traj.times[k],
                q: traj.q.get(k).unwrap_or(none),
                qd: traj.qd.get(k).unwrap_or(none),
                lambda: traj.lambda.get(k).unwrap_or(none),
            };
            guard.row(row).map_err(|e| fail(row.t, &e))?;
        }
        traj.times.clear();
        traj.q.clear();
        traj.qd.clear();
        traj.lambda.clear();
        Ok(())
    }
}

/// Writes the rows as CSV as they come: the header and the number format of
/// [`Trajectory::write_csv`] (`t,q0,…,qd0,…,lambda0,…`, shortest round-trip numbers), the
/// header from the first row's lengths. A row of other lengths is an
/// [`std::io::ErrorKind::InvalidData`] error. Buffered: [`CsvSink::finish`] flushes and
/// returns the writer.
#[derive(Debug)]
pub struct CsvSink<W: Write> {
    w: std::io::BufWriter<W>,
    widths: Option<(usize, usize)>,
    rows: usize,
}

impl<W: Write> CsvSink<W> {
    /// A sink writing to `w`.
    pub fn new(w: W) -> Self {
        Self {
            w: std::io::BufWriter::new(w),
            widths: None,
            rows: 0,
        }
    }

    /// Number of rows written.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Flushes and returns the writer.
    ///
    /// Errors: the writer's.
    pub fn finish(self) -> std::io::Result<W> {
        self.w.into_inner().map_err(|e| e.into_error())
    }
}

impl<W: Write + Send> OutputSink for CsvSink<W> {
    fn row(&mut self, row: OutputRow<'_>) -> std::io::Result<()> {
        let (n, l) = (row.q.len(), row.lambda.len());
        match self.widths {
            None => {
                write!(self.w, "t")?;
                for (name, count) in [("q", n), ("qd", n), ("lambda", l)] {
                    for i in 0..count {
                        write!(self.w, ",{name}{i}")?;
                    }
                }
                writeln!(self.w)?;
                self.widths = Some((n, l));
            }
            Some(widths) if widths != (n, row.lambda.len()) || row.qd.len() != n => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "output row at t = {:.3e} has other lengths than the first",
                        row.t
                    ),
                ));
            }
            Some(_) => {}
        }
        write_f64(&mut self.w, row.t)?;
        for v in row.q.iter().chain(row.qd).chain(row.lambda) {
            write!(self.w, ",")?;
            write_f64(&mut self.w, *v)?;
        }
        writeln!(self.w)?;
        self.rows += 1;
        Ok(())
    }
}

/// Counts the rows and keeps the last one (a sink for runs that need only the end state and
/// the number of outputs).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LastRowSink {
    /// Rows received.
    pub rows: usize,
    /// The last row's time.
    pub t: f64,
    /// The last row's `(q, q̇)`.
    pub x: Vec<f64>,
}

impl OutputSink for LastRowSink {
    fn row(&mut self, row: OutputRow<'_>) -> std::io::Result<()> {
        self.rows += 1;
        self.t = row.t;
        self.x.clear();
        self.x.extend_from_slice(row.q);
        self.x.extend_from_slice(row.qd);
        Ok(())
    }
}
