//! The one result type of every method: [`Trajectory`] with [`SimulationStats`].

use contour_model::{ConstrainedDynamics, DynamicsOptions, Mechanism};
use serde::{Deserialize, Serialize};

use crate::error::ProjectionError;
use crate::rhs::ConstraintMonitor;

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
    /// with [`crate::Integrator::Bdf`]).
    pub jacobian_evals: usize,
    /// Iteration-matrix factorizations of an implicit integrator.
    pub factorizations: usize,
    /// Newton iterations of an implicit integrator.
    pub newton_iterations: usize,
    /// Acceleration solves spent on finite-difference iteration matrices. ECS: not in
    /// `N_f` (its analytic matrix differentiates the accelerations on the side); the other
    /// methods with the BDF ([`crate::BdfOde`]): **included** in `N_f` (`dim` columns per
    /// matrix).
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
}

/// Result of a [`crate::Simulation`]: outputs, constraint-violation history and statistics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    /// Method name (`"direct"`, `"baumgarte"`, `"perturbation"`, ...).
    pub method: String,
    /// Integrator name (`"abm"`, `"rkg"`, `"dopri5"`, `"bdf"`).
    pub integrator: String,
    /// Output times.
    pub times: Vec<f64>,
    /// `q` at the output times.
    pub q: Vec<Vec<f64>>,
    /// `q̇` at the output times.
    pub qd: Vec<Vec<f64>>,
    /// Multipliers λ at the output times (from (1.1)+(1.4) at the output state).
    pub lambda: Vec<Vec<f64>>,
    /// End times of the accepted steps.
    pub step_times: Vec<f64>,
    /// `‖φ‖₂` after each accepted step (after the correction, for PERT).
    pub step_phi: Vec<f64>,
    /// `‖J q̇ + b‖₂` after each accepted step.
    pub step_phidot: Vec<f64>,
    /// The initial state used (after `consistent_state` when asked), `x = (q, q̇)`.
    pub x_initial: Vec<f64>,
    /// The state `x = (q, q̇)` at the final time.
    pub x_final: Vec<f64>,
    /// Work counters.
    pub stats: SimulationStats,
}

/// Copies the implicit integrator's counters (zero for the explicit methods) into `s`; the
/// finite-difference columns are `dim` right-hand-side evaluations per iteration matrix
/// ([`crate::BdfOde`]: the BDF is only ever started with a given derivative, so every
/// Jacobian evaluation is one finite-difference matrix).
pub(crate) fn implicit_stats(s: &mut SimulationStats, st: &contour_ode::Stats, dim: usize) {
    s.jacobian_evals = st.jacobian_evals;
    s.factorizations = st.factorizations;
    s.newton_iterations = st.newton_iterations;
    s.jacobian_f_evals = st.jacobian_evals * dim;
}

/// Collects outputs and violations while a method runs.
#[derive(Debug)]
pub(crate) struct Recorder<'a> {
    pub traj: Trajectory,
    out: &'a [f64],
    next: usize,
    every_step: bool,
    monitor: ConstraintMonitor,
    dynamics: ConstrainedDynamics,
    n: usize,
    qdd: Vec<f64>,
    lam: Vec<f64>,
}

impl<'a> Recorder<'a> {
    pub fn new<M: Mechanism + ?Sized>(
        mech: &M,
        method: &str,
        integrator: &str,
        out: &'a [f64],
        options: DynamicsOptions,
    ) -> Result<Self, ProjectionError> {
        let (n, l) = (mech.dof(), mech.n_constraints());
        Ok(Self {
            traj: Trajectory {
                method: method.to_string(),
                integrator: integrator.to_string(),
                times: Vec::with_capacity(out.len()),
                q: Vec::with_capacity(out.len()),
                qd: Vec::with_capacity(out.len()),
                lambda: Vec::with_capacity(out.len()),
                step_times: Vec::with_capacity(1024),
                step_phi: Vec::with_capacity(1024),
                step_phidot: Vec::with_capacity(1024),
                x_initial: Vec::new(),
                x_final: Vec::new(),
                stats: SimulationStats::default(),
            },
            out,
            next: 0,
            every_step: out.is_empty(),
            monitor: ConstraintMonitor::new(mech),
            dynamics: ConstrainedDynamics::with_options(mech, options)?,
            n,
            qdd: vec![0.0; n],
            lam: vec![0.0; l],
        })
    }

    /// Records the initial state (and the outputs at `t0`).
    pub fn start<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t0: f64,
        x0: &[f64],
    ) -> Result<(), ProjectionError> {
        let (p, v) = self.monitor.violations(mech, t0, x0);
        self.traj.stats.initial_phi = p;
        self.traj.stats.initial_phidot = v;
        self.traj.x_initial = x0.to_vec();
        if self.every_step {
            self.output(mech, t0, x0)?;
        } else {
            while self.next < self.out.len() && self.out[self.next] <= t0 {
                self.output(mech, t0, x0)?;
                self.next += 1;
            }
        }
        Ok(())
    }

    /// Records the violations after an accepted step ending at `t` with state `x`.
    pub fn step<M: Mechanism + ?Sized>(&mut self, mech: &M, t: f64, x: &[f64]) {
        let (p, v) = self.monitor.violations(mech, t, x);
        let s = &mut self.traj.stats;
        s.steps += 1;
        s.max_phi = s.max_phi.max(p);
        s.max_phidot = s.max_phidot.max(v);
        self.traj.step_times.push(t);
        self.traj.step_phi.push(p);
        self.traj.step_phidot.push(v);
    }

    /// Whether every accepted step is an output.
    pub fn every_step(&self) -> bool {
        self.every_step
    }

    /// The next requested output time `≤ t`, if any (advances the cursor).
    pub fn next_output(&mut self, t: f64) -> Option<f64> {
        if self.every_step || self.next >= self.out.len() || self.out[self.next] > t {
            return None;
        }
        self.next += 1;
        Some(self.out[self.next - 1])
    }

    /// Appends an output `(t, x)` with λ from (1.1)+(1.4).
    pub fn output<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        x: &[f64],
    ) -> Result<(), ProjectionError> {
        let n = self.n;
        let (q, qd) = x.split_at(n);
        self.dynamics
            .accelerations(mech, t, q, qd, &mut self.qdd, &mut self.lam)?;
        self.traj.stats.output_evals += 1;
        self.traj.times.push(t);
        self.traj.q.push(q.to_vec());
        self.traj.qd.push(qd.to_vec());
        self.traj.lambda.push(self.lam.clone());
        Ok(())
    }

    /// Records the initial state with the multipliers `lambda` given by the caller (methods
    /// whose multipliers do not come from (1.1)+(1.4), e.g. the minimum-norm λ of the projector
    /// method for redundant constraints).
    pub fn start_with_lambda<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t0: f64,
        x0: &[f64],
        lambda: &[f64],
    ) {
        let (p, v) = self.monitor.violations(mech, t0, x0);
        self.traj.stats.initial_phi = p;
        self.traj.stats.initial_phidot = v;
        self.traj.x_initial = x0.to_vec();
        if self.every_step {
            self.output_with_lambda(t0, x0, lambda);
        } else {
            while self.next < self.out.len() && self.out[self.next] <= t0 {
                self.output_with_lambda(t0, x0, lambda);
                self.next += 1;
            }
        }
    }

    /// Appends an output `(t, x)` with the given multipliers.
    pub fn output_with_lambda(&mut self, t: f64, x: &[f64], lambda: &[f64]) {
        let (q, qd) = x.split_at(self.n);
        self.traj.stats.output_evals += 1;
        self.traj.times.push(t);
        self.traj.q.push(q.to_vec());
        self.traj.qd.push(qd.to_vec());
        self.traj.lambda.push(lambda.to_vec());
    }

    /// Finishes with the final state.
    pub fn finish(mut self, x_final: &[f64]) -> Trajectory {
        self.traj.x_final = x_final.to_vec();
        self.traj
    }
}
