//! The [`Recorder`] of the driver: outputs, the violation history, events and the
//! implicit integrator's counters of a running simulation, collected into a [`Trajectory`].

use contour_model::{ConstrainedDynamics, DynamicsOptions, Mechanism};

use crate::error::ProjectionError;
use crate::rhs::ConstraintMonitor;
use crate::trajectory::{Event, EventKind, Rows, SimulationStats, Trajectory};

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

/// `max(m, v)` that keeps a NaN of either operand (`f64::max` returns the other one, so a NaN
/// violation would leave `max_phi` looking clean).
fn nan_max(m: f64, v: f64) -> f64 {
    if m.is_nan() || v.is_nan() {
        f64::NAN
    } else {
        m.max(v)
    }
}

/// Initial capacity of the per-step histories (`step_times`, `step_phi`, `step_phidot`): 1 KiB
/// each, a small-allocator size, where 1024 entries (8 KiB each, a large request that made the
/// allocator consolidate its free lists at every run) cost more than the doublings of a long
/// run (amortized O(1) per step; the histories keep every step as before).
const STEP_HISTORY_START: usize = 128;

/// Collects outputs and violations while a method runs.
#[derive(Debug)]
pub(crate) struct Recorder<'a> {
    pub traj: Trajectory,
    out: &'a [f64],
    next: usize,
    every_step: bool,
    monitor: ConstraintMonitor,
    /// The outputs' KKT workspace when the method lends none
    /// ([`crate::ConstraintMethod::kkt_dynamics`]), built at the first such output.
    dynamics: Option<ConstrainedDynamics>,
    options: DynamicsOptions,
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
        monitor: ConstraintMonitor,
    ) -> Self {
        let (n, l) = (mech.dof(), mech.n_constraints());
        Self {
            traj: Trajectory {
                times: Vec::with_capacity(out.len()),
                q: Rows::with_capacity(out.len(), n),
                qd: Rows::with_capacity(out.len(), n),
                lambda: Rows::with_capacity(out.len(), l),
                step_times: Vec::with_capacity(STEP_HISTORY_START),
                step_phi: Vec::with_capacity(STEP_HISTORY_START),
                step_phidot: Vec::with_capacity(STEP_HISTORY_START),
                ..Trajectory::new(method, integrator)
            },
            out,
            next: 0,
            every_step: out.is_empty(),
            monitor,
            dynamics: None,
            options,
            n,
            qdd: vec![0.0; n],
            lam: vec![0.0; l],
        }
    }

    /// `(q̈, λ)` of (1.1)+(1.4) (or the options' (4.3)) at `(t, x)` into `self.qdd`,
    /// `self.lam`, with the method's workspace `lent` or the recorder's own.
    fn kkt<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        lent: Option<&mut ConstrainedDynamics>,
        t: f64,
        x: &[f64],
    ) -> Result<(), ProjectionError> {
        let dynamics = match (lent, &mut self.dynamics) {
            (Some(d), _) => d,
            (None, Some(d)) => d,
            (None, own) => own.insert(ConstrainedDynamics::with_options(mech, self.options)?),
        };
        let (q, qd) = x.split_at(self.n);
        dynamics.accelerations(mech, t, q, qd, &mut self.qdd, &mut self.lam)?;
        self.traj.stats.output_evals += 1;
        Ok(())
    }

    /// `(‖φ‖₂, ‖J q̇ + b‖₂)` of (1.6) at `(t, x)`.
    pub fn violations<M: Mechanism + ?Sized>(&mut self, mech: &M, t: f64, x: &[f64]) -> (f64, f64) {
        self.monitor.violations(mech, t, x)
    }

    /// Records the initial state and its violations `(p, v)` (the outputs at `t0` are the
    /// driver's: [`Recorder::next_output`] at `t0`).
    pub fn start(&mut self, x0: &[f64], (p, v): (f64, f64)) {
        self.traj.stats.initial_phi = p;
        self.traj.stats.initial_phidot = v;
        self.traj.x_initial = x0.to_vec();
    }

    /// Records the violations `(p, v)` after an accepted step ending at `t`.
    pub fn step(&mut self, t: f64, (p, v): (f64, f64)) {
        let s = &mut self.traj.stats;
        s.steps += 1;
        s.max_phi = nan_max(s.max_phi, p);
        s.max_phidot = nan_max(s.max_phidot, v);
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

    /// Appends an output `(t, x)` with λ from (1.1)+(1.4) (or the options' (4.3)), solved
    /// with the method's workspace `lent` or the recorder's own.
    pub fn output<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        lent: Option<&mut ConstrainedDynamics>,
        t: f64,
        x: &[f64],
    ) -> Result<(), ProjectionError> {
        self.kkt(mech, lent, t, x)?;
        self.push(t, x);
        self.traj.lambda.push(&self.lam);
        Ok(())
    }

    /// Appends λ after an accepted step `(t, x)`, from (1.1)+(1.4) (or the options' (4.3)).
    pub fn step_lambda<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        lent: Option<&mut ConstrainedDynamics>,
        t: f64,
        x: &[f64],
    ) -> Result<(), ProjectionError> {
        self.kkt(mech, lent, t, x)?;
        self.traj.step_lambda.push(&self.lam);
        Ok(())
    }

    /// Appends the given λ (or an empty row) after an accepted step.
    pub fn step_lambda_given(&mut self, lambda: &[f64]) {
        self.traj.step_lambda.push(lambda);
    }

    /// Appends an output `(t, x)` with the given multipliers.
    pub fn output_with_lambda(&mut self, t: f64, x: &[f64], lambda: &[f64]) {
        self.traj.stats.output_evals += 1;
        self.push(t, x);
        self.traj.lambda.push(lambda);
    }

    /// Appends an output `(t, x)` without multipliers (an empty row).
    pub fn output_without_lambda(&mut self, t: f64, x: &[f64]) {
        self.push(t, x);
        self.traj.lambda.push(&[]);
    }

    fn push(&mut self, t: f64, x: &[f64]) {
        let (q, qd) = x.split_at(self.n);
        self.traj.times.push(t);
        self.traj.q.push(q);
        self.traj.qd.push(qd);
    }

    /// Records an event of `kind` at `t` with the state `x = (q, q̇)` (rare: re-parametrizations,
    /// redone steps; allocates).
    pub fn event(&mut self, t: f64, kind: EventKind, x: &[f64]) {
        self.traj.events.push(Event::new(t, kind).with_state(x));
    }

    /// Finishes with the final state.
    pub fn finish(mut self, x_final: &[f64]) -> Trajectory {
        self.traj.x_final = x_final.to_vec();
        self.traj
    }
}

#[cfg(test)]
mod tests {
    use super::{ConstraintMonitor, Recorder};
    use contour_model::models::Pendulum;
    use contour_model::DynamicsOptions;

    /// A NaN violation after one step stays NaN in the maxima of the statistics.
    #[test]
    fn a_nan_violation_is_kept_in_the_maxima() {
        let p = Pendulum::default();
        let monitor = ConstraintMonitor::new(&p);
        let mut r = Recorder::new(
            &p,
            "direct",
            "rkg",
            &[],
            DynamicsOptions::default(),
            monitor,
        );
        r.step(0.1, (1e-9, 1e-8));
        r.step(0.2, (f64::NAN, 1e-8));
        r.step(0.3, (1e-9, f64::NAN));
        r.step(0.4, (1e-12, 1e-12));
        let s = &r.traj.stats;
        assert!(s.max_phi.is_nan() && s.max_phidot.is_nan(), "{s:?}");
        assert_eq!(s.steps, 4);
    }
}
