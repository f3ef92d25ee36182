//! The one result type of every simulation of the workspace: [`Trajectory`] (outputs `t`, `q`,
//! `q̇`, λ, the constraint-violation history, [`Event`]s and [`SimulationStats`]),
//! serde-serializable and written as JSON ([`Trajectory::write_json`]) or CSV
//! ([`Trajectory::write_csv`], [`Trajectory::write_events_csv`]), and what a run keeps while it
//! goes ([`Recording`], [`OutputSink`]).
//!
//! The crate sits below the simulators so that each returns the same type: the bilateral
//! methods of `contour-projection`, the unilateral simulator of `contour-contact`, and any
//! crate that depends on `contour-model` only. It knows no constraint method.

use std::io::{Read, Write};

use contour_model::csv::write_f64;
use serde::{Deserialize, Serialize};

pub mod recording;
mod rows;
pub use recording::{CsvSink, LastRowSink, OutputRow, OutputSink, Recording, SinkError};
pub use rows::{Rows, RowsIter};

/// Failure to write or read a [`Trajectory`] (JSON or CSV).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrajectoryIoError {
    /// The writer or reader failed.
    #[error("trajectory I/O failed: {0}")]
    Io(#[from] std::io::Error),
    /// JSON (de)serialization failed.
    #[error("trajectory JSON failed: {0}")]
    Json(#[from] serde_json::Error),
    /// A per-output field has another number of rows than `times`.
    #[error("trajectory field {field} has {found} rows, times has {expected}")]
    LengthMismatch {
        /// Field name (`"q"`, `"qd"`, `"lambda"`).
        field: &'static str,
        /// `times.len()`.
        expected: usize,
        /// Rows of the field.
        found: usize,
    },
    /// Row `index` of `field` has another length than the first row.
    #[error("trajectory field {field}[{index}] has {found} entries, expected {expected}")]
    RaggedRows {
        /// Field name (`"q"`, `"qd"`, `"lambda"`, `"event q"`, `"event qd"`).
        field: &'static str,
        /// Row (output or event) index.
        index: usize,
        /// Length of the first row.
        expected: usize,
        /// Length of this row.
        found: usize,
    },
}

/// Work counters of one simulation.
///
/// `f_evals` is Keerthi's `N_f`: solutions of (1.1) with (1.4) (or (4.3)) requested by the
/// integration, including the initial evaluation, rejected attempts and restarts; projections,
/// Newton iterations and output evaluations are counted separately.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct SimulationStats {
    /// Accepted (and kept) integration steps, Keerthi's `N_i`.
    pub steps: usize,
    /// Attempts rejected by the integrator's error test.
    pub rejected_steps: usize,
    /// Constrained-acceleration evaluations for the integration, Keerthi's `N_f`.
    pub f_evals: usize,
    /// Right-hand-side calls made by the integrator (differs from `f_evals` when a call is
    /// answered from the projection cache, see `perturbation`).
    pub integrator_f_calls: usize,
    /// Constrained-acceleration evaluations for the outputs (λ at output times), not in `N_f`.
    pub output_evals: usize,
    /// Manifold corrections (Procedure P1 step 2), one per step.
    pub projections: usize,
    /// Modified-Newton iterations of the position correction (2.16)–(2.17), over all steps.
    pub projection_iterations: usize,
    /// Skinny QR factorizations of `(J T)ᵀ` (3.7).
    pub qr_factorizations: usize,
    /// Steps redone with a smaller size because `‖X*‖ > τ/2` (Remark 2.5).
    pub redone_steps: usize,
    /// Changes of the local parametrization (PARAM).
    pub reparametrizations: usize,
    /// Integrator restarts (after re-parametrizations or redone steps).
    pub restarts: usize,
    /// Newton iterations solving the parametrization's m-dimensional systems (PARAM).
    pub parametrization_iterations: usize,
    /// Jacobian (iteration-matrix) evaluations of an implicit integrator (ECS; every method
    /// with `contour_projection::Integrator::Bdf`).
    pub jacobian_evals: usize,
    /// Iteration-matrix factorizations of an implicit integrator.
    pub factorizations: usize,
    /// Newton iterations of an implicit integrator.
    pub newton_iterations: usize,
    /// Acceleration solves spent on finite-difference iteration matrices, **included** in
    /// `N_f` for every method with the BDF: `dim` columns per matrix through
    /// `contour_projection::BdfOde`, `2N + 1` per matrix for ECS (base point and columns of `∂q̈/∂x`).
    pub jacobian_f_evals: usize,
    /// Velocity filterings, Kövecses (33) (projector method, one per step by default).
    #[serde(default)]
    pub velocity_filterings: usize,
    /// Configuration corrections, Kövecses (35) or (36), over all steps (projector method).
    #[serde(default)]
    pub configuration_corrections: usize,
    /// Evaluations of `W`, `P_c`, `P_a` (Cholesky of `M`, SVD of `A L⁻ᵀ`) by the corrector of
    /// the projector method (not those inside the accelerations (29)–(31)).
    #[serde(default)]
    pub projector_evaluations: usize,
    /// Largest `‖φ‖₂` over the accepted steps.
    pub max_phi: f64,
    /// Largest `‖J q̇ + b‖₂` over the accepted steps.
    pub max_phidot: f64,
    /// `‖φ‖₂` of the initial state used.
    pub initial_phi: f64,
    /// `‖J q̇ + b‖₂` of the initial state used.
    pub initial_phidot: f64,
    /// Largest `|E − E(t0)|` of `E = T + V` over the accepted steps, for models that report
    /// their energy (`None` otherwise); conserved only by conservative models (no applied
    /// forces, scleronomic constraints), where a jump reveals a run that left the physical
    /// solution.
    #[serde(default)]
    pub energy_drift: Option<f64>,
    /// Evaluations of the constrained dynamics that found `J` rank-deficient (or not certified
    /// of full rank) and took the rank-revealing solve.
    #[serde(default)]
    pub rank_revealing_evals: usize,
    /// Evaluations and corrections where the sparse path (`contour_projection::Simulation::sparse`)
    /// handed over to the dense rank-revealing solve: a stalled refinement of the sparse KKT
    /// factorization near a rank loss (zero for runs on the dense path).
    #[serde(default)]
    pub sparse_fallbacks: usize,
}

/// Kind of an [`Event`] of a trajectory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EventKind {
    /// Impulsive impact on a unilateral row at entry (`J q̇⁻ < 0`, impulse ξ > 0), Huang (3.3.8).
    Impact,
    /// A unilateral row becomes active (after an impact or without one, Huang Theorem 3.3.3).
    Entry,
    /// A unilateral row becomes inactive (λ → 0); `normal_velocity_after` is the tangency
    /// residual `J q̇ + b`, Huang (3.3.13).
    Exit,
    /// Accumulation of impacts (Zeno) detected: plastic impact, persistent contact.
    PersistentContact,
    /// The sliding velocity reverses (Huang's point F).
    Reversal,
    /// Sliding stops (static friction holds).
    Stick,
    /// Sliding starts from sticking.
    Slip,
    /// The local parametrization `x = ψ(y)` was changed (PARAM, Mani–Haug–Atkinson), and the
    /// integrator restarted at the event's state.
    Reparametrization,
    /// A step was redone with a smaller size because `‖X*‖ > τ/2` (PERT, Keerthi Remark 2.5);
    /// the event's time and state are those of the restart.
    StepRedone,
}

impl EventKind {
    /// The name written by [`Trajectory::write_events_csv`] (the variant's name, as in JSON).
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Impact => "Impact",
            EventKind::Entry => "Entry",
            EventKind::Exit => "Exit",
            EventKind::PersistentContact => "PersistentContact",
            EventKind::Reversal => "Reversal",
            EventKind::Stick => "Stick",
            EventKind::Slip => "Slip",
            EventKind::Reparametrization => "Reparametrization",
            EventKind::StepRedone => "StepRedone",
        }
    }
}

/// One event of a trajectory: its time, kind, and what applies to the kind (`None` / empty
/// otherwise).
///
/// Unilateral contact (`contour-contact`): an [`EventKind::Impact`] has the row, the impulse ξ,
/// `J q̇⁻ + b`, `J q̇⁺ + b` and the kinetic energy lost `T⁻ − T⁺` (Huang (3.3.8)–(3.3.9));
/// [`EventKind::Entry`] / [`EventKind::Exit`] the row and `J q̇ + b` (before = after);
/// [`EventKind::PersistentContact`] the row; friction events ([`EventKind::Reversal`],
/// [`EventKind::Stick`], [`EventKind::Slip`]) neither row nor values. `q` and `q̇` are the state
/// at the event (`q̇` after it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Time \[s\].
    pub t: f64,
    /// Kind.
    pub kind: EventKind,
    /// Constraint row, when the event belongs to one.
    #[serde(default)]
    pub row: Option<usize>,
    /// Impulse ξ of an impact.
    #[serde(default)]
    pub impulse: Option<f64>,
    /// `J q̇ + b` of the row before the event.
    #[serde(default)]
    pub normal_velocity_before: Option<f64>,
    /// `J q̇ + b` of the row after the event (the tangency residual (3.3.13) for exits).
    #[serde(default)]
    pub normal_velocity_after: Option<f64>,
    /// Kinetic energy lost `T⁻ − T⁺` (impacts).
    #[serde(default)]
    pub energy_loss: Option<f64>,
    /// Position at the event (empty when not recorded).
    #[serde(default)]
    pub q: Vec<f64>,
    /// Velocity after the event (empty when not recorded).
    #[serde(default)]
    pub qd: Vec<f64>,
}

impl Event {
    /// An event of `kind` at `t` with no row, no values and no state.
    pub fn new(t: f64, kind: EventKind) -> Self {
        Self {
            t,
            kind,
            row: None,
            impulse: None,
            normal_velocity_before: None,
            normal_velocity_after: None,
            energy_loss: None,
            q: Vec::new(),
            qd: Vec::new(),
        }
    }

    /// The same event with the state `x = (q, q̇)` (`x` split in halves).
    #[must_use]
    pub fn with_state(mut self, x: &[f64]) -> Self {
        let (q, qd) = x.split_at(x.len() / 2);
        self.q = q.to_vec();
        self.qd = qd.to_vec();
        self
    }
}

/// The result of every simulation: outputs, events, constraint-violation history and
/// statistics.
///
/// Returned by `contour_projection::Simulation` (every constraint method, explicit γ(q) included) and (inside its
/// `ContactTrajectory`) by `contour-contact`'s simulator. Serialize it with serde, or write it
/// with [`Trajectory::write_json`] / [`Trajectory::write_csv`] /
/// [`Trajectory::write_events_csv`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    /// Method name (`"direct"`, `"baumgarte"`, `"perturbation"`, ...).
    pub method: String,
    /// Integrator name (`"abm"`, `"rkg"`, `"dopri5"`, `"bdf"`).
    pub integrator: String,
    /// Output times.
    pub times: Vec<f64>,
    /// `q` at the output times.
    pub q: Rows,
    /// `q̇` at the output times.
    pub qd: Rows,
    /// Multipliers λ at the output times (from (1.1)+(1.4) at the output state).
    pub lambda: Rows,
    /// `q̈` at the output times, when the producer computes it (a planned motion sampled by
    /// `contour::trajectory_from_plan`); empty for simulations.
    #[serde(default, skip_serializing_if = "Rows::is_empty")]
    pub qdd: Rows,
    /// Joint forces `τ` at the output times, when the producer computes them (a planned
    /// motion's inverse dynamics, Huang (4.3.6)); empty for simulations.
    #[serde(default, skip_serializing_if = "Rows::is_empty")]
    pub tau: Rows,
    /// End times of the accepted steps.
    pub step_times: Vec<f64>,
    /// `‖φ‖₂` after each accepted step (after the correction, for PERT).
    pub step_phi: Vec<f64>,
    /// `‖J q̇ + b‖₂` after each accepted step.
    pub step_phidot: Vec<f64>,
    /// λ after each accepted step (aligned with `step_times`), when asked for with
    /// `Simulation::lambda_at_steps(true)`; empty otherwise (and for methods that compute no
    /// multipliers, an empty row per step).
    #[serde(default)]
    pub step_lambda: Rows,
    /// The initial state used (after `consistent_state` when asked), `x = (q, q̇)`.
    pub x_initial: Vec<f64>,
    /// The state `x = (q, q̇)` at the final time.
    pub x_final: Vec<f64>,
    /// Events in time order (impacts, entries, exits, friction transitions,
    /// re-parametrizations, redone steps).
    #[serde(default)]
    pub events: Vec<Event>,
    /// Work counters.
    pub stats: SimulationStats,
}

/// Checks that every row of `rows` has `expected` entries.
fn check_rows(field: &'static str, rows: &Rows, expected: usize) -> Result<(), TrajectoryIoError> {
    match rows.iter().position(|r| r.len() != expected) {
        Some(index) => Err(TrajectoryIoError::RaggedRows {
            field,
            index,
            expected,
            found: rows[index].len(),
        }),
        None => Ok(()),
    }
}

impl Trajectory {
    /// An empty trajectory of `method` run with `integrator`: no outputs, no steps, no
    /// events, zero counters. Producers fill the fields they compute (struct-update syntax
    /// keeps them independent of fields added later).
    pub fn new(method: impl Into<String>, integrator: impl Into<String>) -> Self {
        Self {
            method: method.into(),
            integrator: integrator.into(),
            times: Vec::new(),
            q: Rows::new(),
            qd: Rows::new(),
            lambda: Rows::new(),
            qdd: Rows::new(),
            tau: Rows::new(),
            step_times: Vec::new(),
            step_phi: Vec::new(),
            step_phidot: Vec::new(),
            step_lambda: Rows::new(),
            x_initial: Vec::new(),
            x_final: Vec::new(),
            events: Vec::new(),
            stats: SimulationStats::default(),
        }
    }

    /// Events of one kind, in time order.
    pub fn events_of(&self, kind: EventKind) -> impl Iterator<Item = &Event> {
        self.events.iter().filter(move |e| e.kind == kind)
    }

    /// Writes the whole trajectory as JSON (serde, the field names of this struct).
    pub fn write_json(&self, w: impl Write) -> Result<(), TrajectoryIoError> {
        serde_json::to_writer(w, self)?;
        Ok(())
    }

    /// Reads a trajectory written by [`Trajectory::write_json`] (or any serde JSON of it).
    pub fn read_json(r: impl Read) -> Result<Self, TrajectoryIoError> {
        Ok(serde_json::from_reader(r)?)
    }

    /// Writes the outputs as CSV: the header `t,q0,…,q{n−1},qd0,…,qd{n−1},lambda0,…,lambda{l−1}`
    /// (followed by `qdd0,…` and `tau0,…` when [`Trajectory::qdd`] / [`Trajectory::tau`] are
    /// filled), then one row per output time. Numbers in their shortest round-trip form (they
    /// parse back exactly). `n` and `l` are the lengths of the first output; a longer or shorter
    /// row is [`TrajectoryIoError::RaggedRows`].
    pub fn write_csv(&self, w: impl Write) -> Result<(), TrajectoryIoError> {
        let rows = self.times.len();
        let (has_qdd, has_tau) = (!self.qdd.is_empty(), !self.tau.is_empty());
        for (field, len) in [
            ("q", self.q.len()),
            ("qd", self.qd.len()),
            ("lambda", self.lambda.len()),
            ("qdd", if has_qdd { self.qdd.len() } else { rows }),
            ("tau", if has_tau { self.tau.len() } else { rows }),
        ] {
            if len != rows {
                return Err(TrajectoryIoError::LengthMismatch {
                    field,
                    expected: rows,
                    found: len,
                });
            }
        }
        let n = self.q.first().map_or(0, <[f64]>::len);
        let l = self.lambda.first().map_or(0, <[f64]>::len);
        check_rows("q", &self.q, n)?;
        check_rows("qd", &self.qd, n)?;
        check_rows("lambda", &self.lambda, l)?;
        let (nqdd, ntau) = (if has_qdd { n } else { 0 }, if has_tau { n } else { 0 });
        if has_qdd {
            check_rows("qdd", &self.qdd, n)?;
        }
        if has_tau {
            check_rows("tau", &self.tau, n)?;
        }
        let mut w = std::io::BufWriter::new(w);
        write!(w, "t")?;
        for (name, count) in [
            ("q", n),
            ("qd", n),
            ("lambda", l),
            ("qdd", nqdd),
            ("tau", ntau),
        ] {
            for i in 0..count {
                write!(w, ",{name}{i}")?;
            }
        }
        writeln!(w)?;
        let none: &[f64] = &[];
        for k in 0..rows {
            write_f64(&mut w, self.times[k])?;
            let qdd = if has_qdd { &self.qdd[k][..] } else { none };
            let tau = if has_tau { &self.tau[k][..] } else { none };
            for v in self.q[k]
                .iter()
                .chain(&self.qd[k])
                .chain(&self.lambda[k])
                .chain(qdd)
                .chain(tau)
            {
                write!(w, ",")?;
                write_f64(&mut w, *v)?;
            }
            writeln!(w)?;
        }
        w.flush()?;
        Ok(())
    }

    /// Writes the events as CSV: the header
    /// `t,kind,row,impulse,normal_velocity_before,normal_velocity_after,energy_loss,q0,…,qd0,…`,
    /// then one row per event; `None` values and unrecorded states are empty cells. `n` is the
    /// length of the first output `q` (or of the first event's `q` without outputs); an event
    /// whose non-empty `q` or `q̇` has another length is [`TrajectoryIoError::RaggedRows`].
    pub fn write_events_csv(&self, w: impl Write) -> Result<(), TrajectoryIoError> {
        let n = self
            .q
            .first()
            .or_else(|| {
                self.events
                    .iter()
                    .map(|e| e.q.as_slice())
                    .find(|q| !q.is_empty())
            })
            .map_or(0, <[f64]>::len);
        for (index, e) in self.events.iter().enumerate() {
            for (field, v) in [("event q", &e.q), ("event qd", &e.qd)] {
                if !v.is_empty() && v.len() != n {
                    return Err(TrajectoryIoError::RaggedRows {
                        field,
                        index,
                        expected: n,
                        found: v.len(),
                    });
                }
            }
        }
        let mut w = std::io::BufWriter::new(w);
        write!(
            w,
            "t,kind,row,impulse,normal_velocity_before,normal_velocity_after,energy_loss"
        )?;
        for name in ["q", "qd"] {
            for i in 0..n {
                write!(w, ",{name}{i}")?;
            }
        }
        writeln!(w)?;
        for e in &self.events {
            write_f64(&mut w, e.t)?;
            write!(w, ",{},", e.kind.name())?;
            if let Some(r) = e.row {
                write!(w, "{r}")?;
            }
            for v in [
                e.impulse,
                e.normal_velocity_before,
                e.normal_velocity_after,
                e.energy_loss,
            ] {
                write!(w, ",")?;
                if let Some(v) = v {
                    write_f64(&mut w, v)?;
                }
            }
            for v in [&e.q, &e.qd] {
                for i in 0..n {
                    write!(w, ",")?;
                    if let Some(x) = v.get(i) {
                        write_f64(&mut w, *x)?;
                    }
                }
            }
            writeln!(w)?;
        }
        w.flush()?;
        Ok(())
    }
}
