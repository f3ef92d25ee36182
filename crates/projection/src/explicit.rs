//! Explicit constraints `q = γ(y)` (spatial_v2's `gamma_q`, Featherstone papers/004) as a
//! constraint-handling method: integrate `(q, q̇)` with the accelerations of FDgq
//!
//! ```text
//! (q, q̇, G, gs) = gamma_q(q_o, q̇_o),   gs = Ġẏ + 2/T_stab (q̇ − q̇_o) + 1/T_stab² (q − q_o)
//! Gᵀ H G ÿ = Gᵀ (τ − C − H gs),         q̈ = G ÿ + gs
//! ```
//!
//! ([`contour_model::explicit::ExplicitDynamics`]) with any explicit integrator of the driver.
//!
//! **Why a separate builder.** [`crate::Method`] is a plain configuration value (`Clone`,
//! `PartialEq`, serializable in spirit) while this method needs the constraint object `γ`
//! itself (a `&dyn`-like borrow of user code), so it gets its own builder,
//! [`ExplicitSimulation`], with the same knobs (integrator, tolerance, output times, step
//! budget) and the same result type, [`Trajectory`]. The mechanism's implicit rows, if any,
//! are ignored (as FDgq ignores them); the violation history records the explicit constraint's
//! own residuals `‖q − γ(y(q))‖₂` and `‖q̇ − G ẏ‖₂` (the `q_o − q`, `q̇_o − q̇` of `gamma_q`).
//! Multipliers are not computed (`lambda` holds empty vectors).

use contour_model::explicit::{ExplicitConstraint, ExplicitDynamics};
use contour_model::{Mechanism, ModelError};
use contour_ode::{Advance, OdeRhs, RhsError};
use faer::Mat;

use crate::error::ProjectionError;
use crate::rhs::ode_error;
use crate::simulation::{with_stepper, Integrator};
use crate::tolerance::ErrorControl;
use crate::trajectory::{SimulationStats, Trajectory};

/// A simulation of `mech` under the explicit constraint `gamma` with FDgq.
///
/// Defaults: `Integrator::dopri5()`, `ErrorControl::absolute(1e-8)`, outputs at every
/// accepted step, `max_steps = 1_000_000`. The initial state is used as given (FDgq's
/// stabilization pulls an inconsistent one onto the constraint with time constant `T_stab`).
#[derive(Debug, Clone)]
pub struct ExplicitSimulation<'m, M: ?Sized, G: ?Sized> {
    mech: &'m M,
    gamma: &'m G,
    q0: Vec<f64>,
    qd0: Vec<f64>,
    t0: f64,
    t_end: f64,
    integrator: Integrator,
    error_control: ErrorControl,
    output_times: Vec<f64>,
    max_steps: usize,
}

/// The FDgq field `(q̇, q̈)`, counting evaluations.
#[derive(Debug)]
struct ExplicitRhs<'m, M: ?Sized, G: ?Sized> {
    mech: &'m M,
    gamma: &'m G,
    dynamics: ExplicitDynamics,
    n: usize,
    qdd: Vec<f64>,
    evals: usize,
    last_error: Option<ModelError>,
}

impl<M: Mechanism + ?Sized, G: ExplicitConstraint + ?Sized> OdeRhs for ExplicitRhs<'_, M, G> {
    fn dim(&self) -> usize {
        2 * self.n
    }
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        self.evals += 1;
        let n = self.n;
        let (q, qd) = y.split_at(n);
        match self
            .dynamics
            .accelerations(self.mech, self.gamma, t, q, qd, &mut self.qdd)
        {
            Ok(()) => {
                dy[..n].copy_from_slice(qd);
                dy[n..].copy_from_slice(&self.qdd);
                Ok(())
            }
            Err(e) => {
                let r = match e {
                    ModelError::MassMatrixNotPositiveDefinite { .. } => RhsError::SingularMatrix,
                    _ => RhsError::Failed,
                };
                self.last_error = Some(e);
                Err(r)
            }
        }
    }
}

/// `(‖q_o − γ(y(q_o))‖₂, ‖q̇_o − G ẏ‖₂)` through `gamma_q`, in preallocated storage.
#[derive(Debug)]
struct GammaMonitor {
    q: Vec<f64>,
    qd: Vec<f64>,
    g: Mat<f64>,
    gs: Vec<f64>,
}

impl GammaMonitor {
    fn residuals<G: ExplicitConstraint + ?Sized>(&mut self, gamma: &G, x: &[f64]) -> (f64, f64) {
        let n = self.q.len();
        let (qo, qdo) = x.split_at(n);
        gamma.gamma_q(
            qo,
            qdo,
            &mut self.q,
            &mut self.qd,
            self.g.as_mut(),
            &mut self.gs,
        );
        let d = |a: &[f64], b: &[f64]| {
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y) * (x - y))
                .sum::<f64>()
                .sqrt()
        };
        (d(qo, &self.q), d(qdo, &self.qd))
    }
}

impl<'m, M: Mechanism + ?Sized, G: ExplicitConstraint + ?Sized> ExplicitSimulation<'m, M, G> {
    /// A simulation of `mech` under `gamma` from `(q0, q̇0)` at `t0` to `t_end`.
    pub fn new(mech: &'m M, gamma: &'m G, q0: &[f64], qd0: &[f64], t0: f64, t_end: f64) -> Self {
        Self {
            mech,
            gamma,
            q0: q0.to_vec(),
            qd0: qd0.to_vec(),
            t0,
            t_end,
            integrator: Integrator::dopri5(),
            error_control: ErrorControl::absolute(1e-8),
            output_times: Vec::new(),
            max_steps: 1_000_000,
        }
    }

    /// Sets the integrator (ABM, RKG or DOPRI5; the BDF is refused).
    #[must_use]
    pub fn integrator(mut self, integrator: Integrator) -> Self {
        self.integrator = integrator;
        self
    }

    /// Sets the tolerance and its norm.
    #[must_use]
    pub fn error_control(mut self, ec: ErrorControl) -> Self {
        self.error_control = ec;
        self
    }

    /// Output times (sorted, in `[t0, t_end]`); empty: every accepted step.
    #[must_use]
    pub fn output_times(mut self, t: Vec<f64>) -> Self {
        self.output_times = t;
        self
    }

    /// Step budget.
    #[must_use]
    pub fn max_steps(mut self, n: usize) -> Self {
        self.max_steps = n;
        self
    }

    /// Runs the simulation.
    ///
    /// Errors: wrong dimensions, invalid time span or tolerance, non-finite initial state,
    /// a singular `Gᵀ H G` ([`ModelError::MassMatrixNotPositiveDefinite`]), the integrator's
    /// failures, [`ProjectionError::TooManySteps`].
    pub fn run(&self) -> Result<Trajectory, ProjectionError> {
        let n = self.mech.dof();
        for (what, v) in [("q0", &self.q0), ("qd0", &self.qd0)] {
            if v.len() != n {
                return Err(ProjectionError::DimensionMismatch {
                    what,
                    expected: n,
                    found: v.len(),
                });
            }
            if let Some(index) = v.iter().position(|x| !x.is_finite()) {
                return Err(ModelError::NonFinite { what, index }.into());
            }
        }
        if !(self.t0.is_finite() && self.t_end.is_finite() && self.t_end > self.t0) {
            return Err(ProjectionError::InvalidTimeSpan {
                t0: self.t0,
                t: self.t_end,
            });
        }
        for (i, &t) in self.output_times.iter().enumerate() {
            if !(t >= self.t0 && t <= self.t_end) || (i > 0 && t < self.output_times[i - 1]) {
                return Err(ProjectionError::InvalidTimeSpan { t0: self.t0, t });
            }
        }
        self.error_control.validate()?;
        let mut x0 = self.q0.clone();
        x0.extend_from_slice(&self.qd0);
        if let Integrator::Bdf(_) = &self.integrator {
            return Err(ProjectionError::UnsupportedIntegrator {
                method: "explicit_gamma_q",
                integrator: "bdf",
            });
        }
        let tol = self.error_control.to_ode(2 * n);
        with_stepper!(&self.integrator, self.t0, &x0, tol, |s| self
            .integrate(&mut s, &x0))
    }

    fn integrate<S>(&self, stepper: &mut S, x0: &[f64]) -> Result<Trajectory, ProjectionError>
    where
        S: Advance<ExplicitRhs<'m, M, G>>,
    {
        let n = self.mech.dof();
        let m = self.gamma.n_independent();
        let mut rhs = ExplicitRhs {
            mech: self.mech,
            gamma: self.gamma,
            dynamics: ExplicitDynamics::new(self.mech, self.gamma)?,
            n,
            qdd: vec![0.0; n],
            evals: 0,
            last_error: None,
        };
        let mut mon = GammaMonitor {
            q: vec![0.0; n],
            qd: vec![0.0; n],
            g: Mat::zeros(n, m),
            gs: vec![0.0; n],
        };
        let every = self.output_times.is_empty();
        let mut traj = Trajectory {
            method: "explicit_gamma_q".into(),
            integrator: self.integrator.name().into(),
            times: Vec::new(),
            q: Vec::new(),
            qd: Vec::new(),
            lambda: Vec::new(),
            step_times: Vec::new(),
            step_phi: Vec::new(),
            step_phidot: Vec::new(),
            x_initial: x0.to_vec(),
            x_final: Vec::new(),
            events: Vec::new(),
            stats: SimulationStats::default(),
        };
        let push = |traj: &mut Trajectory, t: f64, x: &[f64]| {
            traj.times.push(t);
            traj.q.push(x[..n].to_vec());
            traj.qd.push(x[n..].to_vec());
            traj.lambda.push(Vec::new());
        };
        let (p0, v0) = mon.residuals(self.gamma, x0);
        traj.stats.initial_phi = p0;
        traj.stats.initial_phidot = v0;
        let mut next = 0usize;
        if every {
            push(&mut traj, self.t0, x0);
        } else {
            while next < self.output_times.len() && self.output_times[next] <= self.t0 {
                push(&mut traj, self.t0, x0);
                next += 1;
            }
        }
        let mut buf = vec![0.0; 2 * n];
        stepper.set_t_stop(Some(self.t_end));
        let mut steps = 0usize;
        while stepper.t() < self.t_end {
            if steps >= self.max_steps {
                return Err(ProjectionError::TooManySteps {
                    t: stepper.t(),
                    max_steps: self.max_steps,
                });
            }
            let info = stepper
                .step(&mut rhs)
                .map_err(|e| ode_error(e, &mut rhs.last_error))?;
            steps += 1;
            let (p, v) = mon.residuals(self.gamma, stepper.y());
            let s = &mut traj.stats;
            s.steps += 1;
            s.max_phi = s.max_phi.max(p);
            s.max_phidot = s.max_phidot.max(v);
            traj.step_times.push(info.t);
            traj.step_phi.push(p);
            traj.step_phidot.push(v);
            while next < self.output_times.len() && self.output_times[next] <= info.t {
                stepper.dense(self.output_times[next], &mut buf);
                push(&mut traj, self.output_times[next], &buf);
                next += 1;
            }
            if every {
                push(&mut traj, info.t, stepper.y());
            }
        }
        let st = *stepper.stats();
        traj.stats.rejected_steps = st.rejected_steps;
        traj.stats.integrator_f_calls = st.f_evals;
        traj.stats.f_evals = rhs.evals;
        traj.x_final = stepper.y().to_vec();
        Ok(traj)
    }
}
