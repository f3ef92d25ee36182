//! [`ConstraintMethod`]: what a constraint-handling method is to the one driver of
//! [`crate::Simulation`].
//!
//! The driver (private, `simulation.rs`) owns the step budget, the stepping through
//! `contour_ode`'s [`Advance`](contour_ode::Advance) / [`Stepper`](contour_ode::Stepper), the
//! recording of violations and outputs ([`Trajectory`](crate::Trajectory)), dense output at the
//! output times, events and statistics; on a failure it returns what it computed so far
//! ([`crate::SimulationFailure`]). A method supplies
//!
//! * the problem it integrates ([`ConstraintMethod::Problem`]: the field `ẋ = f(x)` of
//!   `x = (q, q̇)`, the reduced field of chart coordinates `y`, or a DAE residual),
//! * what happens after an accepted step ([`AfterStep`]: keep, replace `y` by a projection,
//!   redo with a smaller step) and after it has been recorded (restart in a new chart),
//! * the map from its state `y` back to `x = (q, q̇)` and the multipliers λ at outputs,
//! * its counters ([`ConstraintMethod::add_stats`]).
//!
//! A new method is one file with one `impl ConstraintMethod` (and one line choosing it in
//! `simulation.rs`). A user's own method needs no change here: [`crate::Simulation::run_method`]
//! builds it from the validated [`RunContext`] and runs it with the same driver, integrators,
//! recording and failure handling as the built-in ones:
//!
//! ```
//! use contour_model::models::Pendulum;
//! use contour_model::{DynamicsOptions, Mechanism};
//! use contour_ode::OdeError;
//! use contour_projection::{
//!     ConstrainedRhs, ConstraintMethod, MethodStart, ProjectionError, Simulation, SimulationStats,
//! };
//!
//! /// The direct approach (Keerthi (1.5)), written outside the crate.
//! struct MyDirect<'m, M: ?Sized>(ConstrainedRhs<'m, M>);
//!
//! impl<'m, M: Mechanism + ?Sized> ConstraintMethod<M> for MyDirect<'m, M> {
//!     type Problem = ConstrainedRhs<'m, M>;
//!     fn name(&self) -> &'static str { "my-direct" }
//!     fn problem(&mut self) -> &mut Self::Problem { &mut self.0 }
//!     fn integrator_error(&mut self, e: OdeError) -> ProjectionError { self.0.ode_error(e) }
//!     fn add_stats(&self, s: &mut SimulationStats) { s.f_evals = self.0.evals; }
//! }
//!
//! let p = Pendulum::default();
//! let (q, qd) = p.state(0.3, 0.0);
//! let traj = Simulation::new(&p, &q, &qd, 0.0, 1.0).run_method(|ctx| {
//!     let rhs = ConstrainedRhs::new(ctx.mech, DynamicsOptions::default())?;
//!     Ok(MethodStart::on_x(MyDirect(rhs), &ctx.x0, ctx.error_control))
//! })?;
//! assert_eq!(traj.method, "my-direct");
//! # Ok::<(), ProjectionError>(())
//! ```
//!
//! ```text
//! loop (driver)                                   hooks (method)
//!   budget                                        before_step
//!   stepper.step(problem)        ── Err ──▶       step_failed → restart at the last point
//!                                                 after_step  → Keep | Replace | Redo
//!   record violations at x                        state(y) → x, violations(x)
//!   dense outputs                                 output_state(y(t_out)) → x, multipliers
//!                                                 after_record → restart (new chart)
//! stats                                           add_stats
//! ```

use contour_model::{ConstrainedDynamics, DynamicsOptions, Mechanism};
use contour_ode::{OdeError, Tolerances};

use crate::error::ProjectionError;
use crate::integrator::Integrator;
use crate::tolerance::ErrorControl;
use crate::trajectory::{EventKind, SimulationStats};

/// What the driver does with an accepted step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AfterStep {
    /// Keep the integrator's state.
    Keep,
    /// Move the accepted point to the state the method wrote (`Advance::replace_y`): a
    /// projection onto the manifold (Keerthi (2.3), Kövecses (33)–(36)).
    Replace,
    /// Refuse the step: restart from the last accepted point with steps of at most
    /// `max_step` (Keerthi Remark 2.5); the step size limit is lifted once a step is kept.
    Redo {
        /// Step-size cap of the retried step.
        max_step: f64,
    },
}

/// The multipliers written with an output.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Multipliers<'a> {
    /// λ of (1.1)+(1.4) (or (4.3)) at the output state, solved by the driver.
    Kkt,
    /// λ given by the method (e.g. the minimum-norm λ of the projector method).
    Given(&'a [f64]),
    /// Not computed (an empty row, no output evaluation counted).
    NotComputed,
}

/// The last accepted point `(t, x = (q, q̇))`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Accepted<'a> {
    /// Time.
    pub t: f64,
    /// State `x = (q, q̇)`.
    pub x: &'a [f64],
}

/// A constraint-handling method driven by the one loop of [`crate::Simulation`] (see the
/// module documentation for the order of the hooks).
pub trait ConstraintMethod<M: Mechanism + ?Sized> {
    /// What the integrator advances (an `OdeRhs` for the explicit-interface steppers, a DAE
    /// residual with its iteration matrix for the BDF of exact stabilization).
    type Problem;

    /// Method name written in the trajectory (`"perturbation"`, ...).
    fn name(&self) -> &'static str;

    /// The integrated problem.
    fn problem(&mut self) -> &mut Self::Problem;

    /// The error of the run for an integrator failure (the model error behind a failed
    /// right-hand side, when there is one).
    fn integrator_error(&mut self, e: OdeError) -> ProjectionError;

    /// The method's own [`ConstrainedDynamics`], lent to the driver for the multipliers of
    /// [`Multipliers::Kkt`] (one workspace per run instead of two; a workspace only: every
    /// call overwrites it; a method whose field has Baumgarte terms lends it so that its
    /// outputs' λ are those of (4.3)). `None` (the default): the driver builds its own with
    /// the run's options ([`RunContext::dynamics`]).
    fn kkt_dynamics(&mut self) -> Option<&mut ConstrainedDynamics> {
        None
    }

    /// Called before every attempt at a step.
    fn before_step(&mut self) {}

    /// The integrator failed: either the run's error, or a restart from the last accepted
    /// point with the state written to `y_restart` (the returned event is recorded).
    fn step_failed(
        &mut self,
        e: OdeError,
        last: Accepted<'_>,
        y_restart: &mut [f64],
    ) -> Result<EventKind, ProjectionError> {
        let _ = (last, y_restart);
        Err(self.integrator_error(e))
    }

    /// An accepted step of size `h` ending at `(t, y)`; for [`AfterStep::Replace`] the new
    /// state is written to `y_new`.
    fn after_step(
        &mut self,
        t: f64,
        h: f64,
        y: &[f64],
        y_new: &mut [f64],
    ) -> Result<AfterStep, ProjectionError> {
        let _ = (t, h, y, y_new);
        Ok(AfterStep::Keep)
    }

    /// `x = (q, q̇)` of the integrated state `y` at the accepted point `t` (default: the first
    /// `2N` entries of `y`).
    fn state(&mut self, t: f64, y: &[f64], x: &mut [f64]) -> Result<(), ProjectionError> {
        let _ = t;
        x.copy_from_slice(&y[..x.len()]);
        Ok(())
    }

    /// `x` at an output time `t` from the interpolant's value `y` (default: [`Self::state`]);
    /// `last` is the previous accepted point.
    fn output_state(
        &mut self,
        last: Accepted<'_>,
        t: f64,
        y: &[f64],
        x: &mut [f64],
    ) -> Result<(), ProjectionError> {
        let _ = last;
        self.state(t, y, x)
    }

    /// The method's own violation measure `(‖·‖₂ position, ‖·‖₂ velocity)` at `x`, or `None`
    /// for `(‖φ‖₂, ‖J q̇ + b‖₂)` of (1.6).
    fn violations(&mut self, t: f64, x: &[f64]) -> Option<(f64, f64)> {
        let _ = (t, x);
        None
    }

    /// The multipliers of an output at `(t, x)`.
    fn multipliers(&mut self, t: f64, x: &[f64]) -> Result<Multipliers<'_>, ProjectionError> {
        let _ = (t, x);
        Ok(Multipliers::Kkt)
    }

    /// After the step ending at `(t, y)` (state `x`) has been recorded (`at_end`: `t` is
    /// the final time): `Some(event)` restarts the integrator at `t` from the state written
    /// to `y_restart` (ignored at the end).
    fn after_record(
        &mut self,
        t: f64,
        at_end: bool,
        y: &[f64],
        x: &[f64],
        y_restart: &mut [f64],
    ) -> Result<Option<EventKind>, ProjectionError> {
        let _ = (t, at_end, y, x, y_restart);
        Ok(None)
    }

    /// Adds the method's counters (at least `f_evals`, Keerthi's `N_f`) to `s`.
    fn add_stats(&self, s: &mut SimulationStats);
}

/// Everything a method needs to set itself up, validated by the [`crate::Simulation`]
/// builder (dimensions, finiteness, time span, output times, tolerances, the consistent
/// initial state).
#[derive(Debug)]
#[non_exhaustive]
pub struct RunContext<'a, 'm, M: ?Sized> {
    /// The mechanism.
    pub mech: &'m M,
    /// Start time.
    pub t0: f64,
    /// Final time.
    pub t_end: f64,
    /// Initial state `x0 = (q0, q̇0)` (made consistent if the builder asked for it).
    pub x0: Vec<f64>,
    /// Tolerance τ and its norm.
    pub error_control: ErrorControl,
    /// Output times (sorted; empty: every accepted step).
    pub output_times: &'a [f64],
    /// Step budget.
    pub max_steps: usize,
    /// The integrator the driver will build.
    pub integrator: &'a Integrator,
    /// Record λ after every accepted step too.
    pub lambda_at_steps: bool,
    /// Options of the constrained dynamics (KKT method, pivot and rank tolerances, what a
    /// rank-deficient `J` gives) for every evaluation of the methods that solve (1.1)+(1.4);
    /// the Baumgarte terms are the method's own.
    pub dynamics: DynamicsOptions,
    /// Energy tolerance of [`crate::Simulation::energy_tolerance`].
    pub(crate) energy_tol: Option<f64>,
    /// `(‖φ‖₂, ‖J q̇ + b‖₂)` at `x0` when the builder checked the initial state (for the
    /// recorder's start, instead of measuring the same state again).
    pub(crate) x0_violations: Option<(f64, f64)>,
}

/// An ODE method ready to run: the method, its initial integrated state `y0` and the
/// integrator's tolerances for `y`.
#[derive(Debug)]
pub struct MethodStart<C> {
    /// The method.
    pub method: C,
    /// Initial integrated state (`x0`, or the method's chart coordinates).
    pub y0: Vec<f64>,
    /// Tolerances of the integrator on `y`.
    pub tol: Tolerances,
}

impl<C> MethodStart<C> {
    /// `y0 = x0` with the tolerances of `ec` on it (a method that integrates `x = (q, q̇)`).
    pub fn on_x(method: C, x0: &[f64], ec: ErrorControl) -> Self {
        Self {
            method,
            y0: x0.to_vec(),
            tol: ec.to_ode(x0.len()),
        }
    }
}

/// Checks `(name, value, in_range)` triples of a method configuration: each value must be
/// finite and in range, else [`ProjectionError::InvalidParameter`] names the first that is not.
pub(crate) fn check_parameters(
    params: &[(&'static str, f64, bool)],
) -> Result<(), ProjectionError> {
    for &(name, value, ok) in params {
        if !(ok && value.is_finite()) {
            return Err(ProjectionError::InvalidParameter { name, value });
        }
    }
    Ok(())
}

/// The numerical rank `r` of `J(t, q)` (singular values above `rank_rtol · σ_max`), for the
/// methods that integrate `N − r` free coordinates; [`ProjectionError::NoFreeCoordinates`]
/// when `r = N` (the rows leave no motion). Allocates: called once, at the start.
pub(crate) fn jacobian_rank<M: Mechanism + ?Sized>(
    method: &'static str,
    mech: &M,
    t: f64,
    q: &[f64],
    rank_rtol: f64,
) -> Result<usize, ProjectionError> {
    let (n, l) = (mech.dof(), mech.n_constraints());
    let mut j = faer::Mat::<f64>::zeros(l, n);
    mech.constraint_jacobian(t, q, j.as_mut());
    let rank = contour_linalg::numerical_rank(j.as_ref(), 0.0, rank_rtol)?;
    if rank >= n {
        return Err(ProjectionError::NoFreeCoordinates {
            method,
            rank,
            rows: l,
            dof: n,
        });
    }
    Ok(rank)
}

/// Relative cut-off of [`independent_rows`]: a row whose part orthogonal to the rows kept
/// before it is at most this fraction of its norm is redundant. An exactly redundant row
/// (a permanent rank deficiency, e.g. MBS benchmark A04) leaves round-off, `O(ε)`; 1e-8 sits
/// between that and the smallest relative singular value a method can still integrate.
pub(crate) const REDUNDANT_ROW_RTOL: f64 = 1e-8;

/// The rows of `j` that span its row space, in order: modified Gram–Schmidt (twice) on the
/// rows, keeping a row whose orthogonal part exceeds [`REDUNDANT_ROW_RTOL`] of its norm. The
/// methods that cannot take redundant rows remove the others once, at the start.
/// Allocates (start only).
pub(crate) fn independent_rows(j: faer::MatRef<'_, f64>) -> Vec<usize> {
    let (l, n) = (j.nrows(), j.ncols());
    let mut basis: Vec<Vec<f64>> = Vec::new();
    let mut rows = Vec::new();
    for i in 0..l {
        let mut r: Vec<f64> = (0..n).map(|k| j[(i, k)]).collect();
        let norm0 = r.iter().map(|v| v * v).sum::<f64>().sqrt();
        for _ in 0..2 {
            for b in &basis {
                let s: f64 = b.iter().zip(&r).map(|(x, y)| x * y).sum();
                for (rk, bk) in r.iter_mut().zip(b) {
                    *rk -= s * bk;
                }
            }
        }
        let norm = r.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm0 > 0.0 && norm > REDUNDANT_ROW_RTOL * norm0 && basis.len() < n {
            basis.push(r.iter().map(|v| v / norm).collect());
            rows.push(i);
        }
    }
    rows
}

/// The options of `d` that differ from [`DynamicsOptions::default`], by name.
pub(crate) fn set_options(d: &DynamicsOptions) -> impl Iterator<Item = &'static str> {
    let def = DynamicsOptions::default();
    [
        ("method", d.method != def.method),
        ("baumgarte", d.baumgarte.is_some()),
        ("pivot_rtol", d.pivot_rtol.is_some()),
        ("rank_rtol", d.rank_rtol.is_some()),
        ("rank_deficiency", d.rank_deficiency != def.rank_deficiency),
    ]
    .into_iter()
    .filter_map(|(name, set)| set.then_some(name))
}

/// Refuses the first option of `d` that `method` does not use: `unused` lists each such
/// option with where the method takes that setting from instead
/// ([`ProjectionError::UnusedOption`]).
pub(crate) fn refuse_unused(
    method: &'static str,
    d: &DynamicsOptions,
    unused: &[(&'static str, &'static str)],
) -> Result<(), ProjectionError> {
    for option in set_options(d) {
        if let Some(&(option, instead)) = unused.iter().find(|(o, _)| *o == option) {
            return Err(ProjectionError::UnusedOption {
                method,
                option,
                instead,
            });
        }
    }
    Ok(())
}
