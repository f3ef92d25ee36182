//! The [`Simulation`] driver: mechanism + [`Method`] + [`Integrator`] + tolerance + time span
//! + output times → [`Trajectory`].
//!
//! ```text
//! Simulation::new(&mech, q0, q̇0, t0, t_end)      defaults: Method::Perturbation, Integrator::abm(),
//!     .method(Method::…)                           ErrorControl::absolute(1e-4) (Keerthi's τ, l2),
//!     .integrator(Integrator::…)                   outputs at every accepted step,
//!     .error_control(ErrorControl::…)              initial state checked to 1e-10 (2-norms),
//!     .output_times(vec![…])                       max_steps = 1_000_000
//!     .make_consistent(ConsistentStateOptions::default())
//!     .dynamics(DynamicsOptions { .. })           DynamicsOptions::default() (rank-revealing solve)
//!     .energy_tolerance(tol)                       none (the drift is reported in the statistics)
//!     .passage_policy(PassagePolicy::…)           Stop: direct and Baumgarte end at a singular passage
//!     .run()?
//! ```
//!
//! **Singular configurations.** Where `J` loses rank the constrained dynamics return the
//! unique `q̈` and the minimum-norm λ (`contour_model::DynamicsOptions`), and the projector
//! method drops the same singular values (`ProjectorConfig::rank_rtol`). Which methods then stay
//! on the physical branch where branches cross, and which stop with a typed error, is stated
//! once, in the crate documentation ("Singular configurations").
//!
//! For models that report their energy the statistics hold the drift `|E − E(t0)|`, and
//! [`Simulation::energy_tolerance`] turns a drift into [`ProjectionError::EnergyDrift`] with its
//! time: the guard against a silent wrong branch.
//!
//! **The one loop.** [`Simulation::run`] validates the input, builds the method (a
//! [`ConstraintMethod`], one per file) and its stepper, and hands both to the private
//! `drive`, which owns the step budget, the stepping through `contour_ode`'s `Advance`,
//! the method's after-step action, recording, dense output, events and statistics. A
//! failure after the start is [`ProjectionError::Failed`] with the partial trajectory.

use contour_model::explicit::ExplicitConstraint;
use contour_model::validate::check_timed_state;
use contour_model::{
    consistent_state, ConsistentStateOptions, DynamicsOptions, Mechanism, ModelError,
};
use contour_ode::{Advance, OdeRhs};

use crate::augmented_lagrangian::{AugmentedLagrangian, AugmentedLagrangianConfig};
use crate::baumgarte::BaumgarteGains;
use crate::direct::Direct;
use crate::error::{ProjectionError, SimulationFailure};
use crate::exact_stabilization::{EcsConfig, ExactStabilization};
use crate::explicit::ExplicitGamma;
use crate::kovecses::{ProjectorConfig, ProjectorMethod};
use crate::method::{Accepted, AfterStep, ConstraintMethod, MethodStart, Multipliers, RunContext};
use crate::parametrization::{Parametrization, ParametrizationConfig};
use crate::passage::PassagePolicy;
use crate::perturbation::{Perturbation, PerturbationConfig};
use crate::recorder::{implicit_stats, Recorder};
use crate::recording::Recording;
use crate::rhs::ConstraintMonitor;
use crate::tolerance::ErrorControl;
use crate::trajectory::{EventKind, Trajectory};

pub use crate::integrator::Integrator;

/// The constraint-handling method.
#[derive(Debug, Clone, PartialEq)]
pub enum Method {
    /// Integrate (1.5) from (1.1)+(1.4) and nothing else (Keerthi's "ICS, δ = 0").
    Direct,
    /// Baumgarte's stabilization (4.3).
    Baumgarte(BaumgarteGains),
    /// Keerthi's Procedure P1 (perturbation approach).
    Perturbation(PerturbationConfig),
    /// Mani–Haug–Atkinson local parametrization.
    Parametrization(ParametrizationConfig),
    /// Gear–Gupta–Leimkuhler exact stabilization (4.4) with the BDF.
    ExactStabilization(EcsConfig),
    /// Kövecses & Piedbœuf: accelerations by projection (29)–(31), configuration correction
    /// (35)/(36) and velocity filtering (33) after every accepted step ([`crate::kovecses`]).
    Projector(ProjectorConfig),
    /// Bayo–Ledesma's augmented-Lagrangian index-3 formulation with the projections of
    /// Cuadrado et al. (13)–(14), trapezoidal rule at a constant step
    /// ([`crate::augmented_lagrangian`]).
    AugmentedLagrangian(AugmentedLagrangianConfig),
}

impl Method {
    /// Every method with its default configuration (Baumgarte with the given gains), in the
    /// order direct, Baumgarte, perturbation, parametrization, exact stabilization,
    /// projector — for comparisons and for tests that must cover every method.
    pub fn every(baumgarte: BaumgarteGains) -> [Method; 6] {
        [
            Method::Direct,
            Method::Baumgarte(baumgarte),
            Method::Perturbation(PerturbationConfig::default()),
            Method::Parametrization(ParametrizationConfig::default()),
            Method::ExactStabilization(EcsConfig::default()),
            Method::Projector(ProjectorConfig::default()),
        ]
    }

    /// Short name: `"direct"`, `"baumgarte"`, `"perturbation"`, `"parametrization"`,
    /// `"exact_stabilization"`, `"projector"`, `"augmented_lagrangian"`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Direct => "direct",
            Self::Baumgarte(_) => "baumgarte",
            Self::Perturbation(_) => "perturbation",
            Self::Parametrization(_) => "parametrization",
            Self::ExactStabilization(_) => "exact_stabilization",
            Self::Projector(_) => "projector",
            Self::AugmentedLagrangian(_) => "augmented_lagrangian",
        }
    }
}

/// What to do with the initial state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum InitialState {
    /// Require `‖φ‖₂ ≤ tol` and `‖J q̇ + b‖₂ ≤ tol`, else [`ProjectionError::InconsistentInitialState`].
    Require {
        /// Tolerance on both 2-norms.
        tol: f64,
    },
    /// Project the given state with `contour_model::consistent_state` first.
    MakeConsistent(ConsistentStateOptions),
}

/// The explicit constraint `q = γ(y)` of [`Simulation::explicit`] (a borrow of user code,
/// which a [`Method`] value cannot carry); `Sync`, so that a simulation over a `Sync` model
/// is `Sync` and `Send`.
#[derive(Clone, Copy)]
struct ExplicitRef<'m>(&'m (dyn ExplicitConstraint + Sync));

impl std::fmt::Debug for ExplicitRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExplicitConstraint")
            .field("n_coordinates", &self.0.n_coordinates())
            .field("n_independent", &self.0.n_independent())
            .finish()
    }
}

/// A constrained simulation (see the module documentation for the builder and its defaults).
#[derive(Debug, Clone)]
pub struct Simulation<'m, M: ?Sized> {
    mech: &'m M,
    q0: Vec<f64>,
    qd0: Vec<f64>,
    t0: f64,
    t_end: f64,
    method: Method,
    explicit: Option<ExplicitRef<'m>>,
    integrator: Integrator,
    error_control: ErrorControl,
    output_times: Vec<f64>,
    initial: InitialState,
    max_steps: usize,
    lambda_at_steps: bool,
    recording: Recording,
    dynamics: DynamicsOptions,
    energy_tol: Option<f64>,
    passage_policy: PassagePolicy,
}

impl<'m, M: Mechanism + ?Sized> Simulation<'m, M> {
    /// A simulation of `mech` from `(q0, q̇0)` at `t0` to `t_end` with the defaults listed in
    /// the module documentation.
    pub fn new(mech: &'m M, q0: &[f64], qd0: &[f64], t0: f64, t_end: f64) -> Self {
        Self {
            mech,
            q0: q0.to_vec(),
            qd0: qd0.to_vec(),
            t0,
            t_end,
            method: Method::Perturbation(PerturbationConfig::default()),
            explicit: None,
            integrator: Integrator::abm(),
            error_control: ErrorControl::absolute(1e-4),
            output_times: Vec::new(),
            initial: InitialState::Require { tol: 1e-10 },
            max_steps: 1_000_000,
            lambda_at_steps: false,
            recording: Recording::Full,
            dynamics: DynamicsOptions::default(),
            energy_tol: None,
            passage_policy: PassagePolicy::Stop,
        }
    }

    /// Options of the constrained dynamics of every method that solves (1.1)+(1.4): KKT
    /// method, pivot and rank tolerances, what a rank-deficient `J` gives, Baumgarte terms.
    /// Checked once at the start of the run ([`DynamicsOptions::validate`]); an option the
    /// chosen method does not use is refused with [`ProjectionError::UnusedOption`], never
    /// ignored: direct and Baumgarte take their Baumgarte terms from [`Method`] only; the
    /// projector method with its default accelerations (29)–(31) takes only the defaults (its
    /// cut-off is `ProjectorConfig::rank_rtol`; with `AccelerationSolver::Lagrange` it uses
    /// them all); the explicit method takes only the defaults. The table of every option and
    /// method is measured in `benches/results/options_2026-11-28.md`.
    /// Default [`DynamicsOptions::default`]: range space, the rank-revealing solve where `J`
    /// loses rank.
    #[must_use]
    pub fn dynamics(mut self, options: DynamicsOptions) -> Self {
        self.dynamics = options;
        self
    }

    /// Ends the run with [`ProjectionError::EnergyDrift`] (inside [`ProjectionError::Failed`],
    /// with the trajectory so far) at the first accepted step where `|E − E(t0)| > tol`
    /// (`E = T + V` \[J\]), for models that report their energy (ignored otherwise). Meant for
    /// conservative models: a drift beyond what the tolerance τ explains means the run left
    /// the physical solution (a wrong branch after a singular configuration). Default: none;
    /// the drift is always in [`crate::SimulationStats::energy_drift`].
    #[must_use]
    pub fn energy_tolerance(mut self, tol: f64) -> Self {
        self.energy_tol = Some(tol);
        self
    }

    /// What the direct and Baumgarte methods do at a singular passage: an evaluation where
    /// `J` has a numerical rank below its rank at the initial state, an accepted state within
    /// its drift of a crossing of branches, or steps that shrink with the distance to a
    /// crossing ([`crate::direct`]). Default [`PassagePolicy::Stop`]: the run ends with
    /// [`ProjectionError::SingularPassage`], [`ProjectionError::AmbiguousBranch`] or
    /// [`ProjectionError::StalledPassage`], because neither method corrects the drift in the
    /// lost direction and the drift, not the dynamics, would pick the branch after it.
    /// [`PassagePolicy::Continue`] continues through it with the rank-revealing solve (unique
    /// `q̈`, minimum-norm λ); pair it with [`Simulation::energy_tolerance`]. The other methods
    /// keep their state on the constraints and ignore this option.
    #[must_use]
    pub fn passage_policy(mut self, policy: PassagePolicy) -> Self {
        self.passage_policy = policy;
        self
    }

    /// What the run keeps ([`Recording`]; default [`Recording::Full`]): outputs and per-step
    /// histories, outputs only, or each output row streamed to a sink.
    #[must_use]
    pub fn recording(mut self, recording: Recording) -> Self {
        self.recording = recording;
        self
    }

    /// Also records λ after every accepted step ([`Trajectory::step_lambda`]), not only at the
    /// output times: one more solve of (1.1)+(1.4) per step (counted in `output_evals`) and a
    /// row stored per step. Default `false`.
    #[must_use]
    pub fn lambda_at_steps(mut self, yes: bool) -> Self {
        self.lambda_at_steps = yes;
        self
    }

    /// Sets the method (and drops an explicit constraint set before).
    #[must_use]
    pub fn method(mut self, method: Method) -> Self {
        self.method = method;
        self.explicit = None;
        self
    }

    /// Uses the explicit constraint `q = γ(y)` with FDgq ([`crate::explicit`]) as the method
    /// (until [`Simulation::method`] is called). The mechanism's implicit rows are ignored,
    /// the initial state is used as given (only checked finite: FDgq's stabilization pulls
    /// an inconsistent one onto the constraint with time constant `T_stab`), the violation
    /// history holds `‖q − γ(y(q))‖₂`, `‖q̇ − G ẏ‖₂`, and λ is not computed (empty rows).
    /// Every integrator but the BDF. `G` is `Sync` (as the models are), so that the
    /// simulation can be shared across threads.
    #[must_use]
    pub fn explicit<G: ExplicitConstraint + Sync>(mut self, gamma: &'m G) -> Self {
        self.explicit = Some(ExplicitRef(gamma));
        self
    }

    /// Sets the integrator.
    #[must_use]
    pub fn integrator(mut self, integrator: Integrator) -> Self {
        self.integrator = integrator;
        self
    }

    /// Sets the tolerance τ and its norm.
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

    /// Projects the initial state onto the manifold before starting.
    #[must_use]
    pub fn make_consistent(mut self, options: ConsistentStateOptions) -> Self {
        self.initial = InitialState::MakeConsistent(options);
        self
    }

    /// Requires a consistent initial state to `tol` (2-norms; the default, `tol = 1e-10`).
    #[must_use]
    pub fn require_consistent(mut self, tol: f64) -> Self {
        self.initial = InitialState::Require { tol };
        self
    }

    /// Step budget.
    #[must_use]
    pub fn max_steps(mut self, n: usize) -> Self {
        self.max_steps = n;
        self
    }

    /// Validates the input and builds the initial state `x0 = (q0, q̇0)`, with the run's
    /// constraint monitor (the recorder's, also used for the initial check).
    fn context(&self) -> Result<(RunContext<'_, 'm, M>, ConstraintMonitor), ProjectionError> {
        self.context_for(self.explicit.is_some())
    }

    /// [`Self::context`]; `explicit`: the initial state is only checked finite (FDgq).
    fn context_for(
        &self,
        explicit: bool,
    ) -> Result<(RunContext<'_, 'm, M>, ConstraintMonitor), ProjectionError> {
        let n = self.mech.dof();
        for (what, v) in [("q0", &self.q0), ("qd0", &self.qd0)] {
            if v.len() != n {
                return Err(ProjectionError::DimensionMismatch {
                    what,
                    expected: n,
                    found: v.len(),
                });
            }
            if explicit {
                if let Some(index) = v.iter().position(|x| !x.is_finite()) {
                    return Err(ModelError::NonFinite { what, index }.into());
                }
            }
        }
        if !(self.t0.is_finite() && self.t_end.is_finite() && self.t_end > self.t0) {
            return Err(ProjectionError::InvalidTimeSpan {
                t0: self.t0,
                t: self.t_end,
            });
        }
        for (index, &t) in self.output_times.iter().enumerate() {
            if !(t >= self.t0 && t <= self.t_end) {
                return Err(ProjectionError::OutputTimeOutsideSpan {
                    index,
                    t,
                    t0: self.t0,
                    t_end: self.t_end,
                });
            }
            if index > 0 && t < self.output_times[index - 1] {
                return Err(ProjectionError::UnsortedOutputTimes {
                    index,
                    t,
                    previous: self.output_times[index - 1],
                });
            }
        }
        self.error_control.validate()?;
        // the one range check of the dynamics options; which of them a method uses is the
        // method's to say (its constructor refuses the ones it does not use)
        self.dynamics.validate()?;
        if let Some(tol) = self.energy_tol {
            if !(tol.is_finite() && tol > 0.0) {
                return Err(ProjectionError::InvalidParameter {
                    name: "energy tolerance",
                    value: tol,
                });
            }
        }
        let mut monitor = ConstraintMonitor::new(self.mech);
        let mut x0 = Vec::with_capacity(2 * n);
        let mut x0_violations = None;
        match (explicit, self.initial) {
            (true, _) => {
                x0.extend_from_slice(&self.q0);
                x0.extend_from_slice(&self.qd0);
            }
            (false, InitialState::Require { tol }) => {
                if !(tol.is_finite() && tol >= 0.0) {
                    return Err(ProjectionError::InvalidParameter {
                        name: "consistency tol",
                        value: tol,
                    });
                }
                x0.extend_from_slice(&self.q0);
                x0.extend_from_slice(&self.qd0);
                let (p, v) = initial_residuals(self.mech, self.t0, &x0, &mut monitor)?;
                if p > tol || v > tol {
                    return Err(ProjectionError::InconsistentInitialState {
                        position_residual: p,
                        velocity_residual: v,
                        tol,
                    });
                }
                x0_violations = Some((p, v));
            }
            (false, InitialState::MakeConsistent(opts)) => {
                let cs = consistent_state(self.mech, self.t0, &self.q0, &self.qd0, &opts)?;
                x0.extend_from_slice(&cs.q);
                x0.extend_from_slice(&cs.qd);
            }
        }
        let ctx = RunContext {
            mech: self.mech,
            t0: self.t0,
            t_end: self.t_end,
            x0,
            error_control: self.error_control,
            output_times: &self.output_times,
            max_steps: self.max_steps,
            integrator: &self.integrator,
            lambda_at_steps: self.lambda_at_steps,
            dynamics: self.dynamics,
            energy_tol: self.energy_tol,
            x0_violations,
        };
        Ok((ctx, monitor))
    }

    /// Runs the simulation.
    ///
    /// Errors before the start: [`ProjectionError::InconsistentInitialState`] (unless asked to
    /// make it consistent), invalid tolerances, time span, output times, gains or
    /// configuration, unsupported integrator or norm. A failure after the start (the model's,
    /// the integrator's, [`ProjectionError::ProjectionFailed`] of P1,
    /// [`ProjectionError::TooManySteps`]) is [`ProjectionError::Failed`], which keeps the last
    /// accepted state and the trajectory so far ([`ProjectionError::cause`] is the error
    /// behind it).
    pub fn run(&self) -> Result<Trajectory, ProjectionError> {
        let (ctx, mon) = self.context()?;
        let (rc, policy) = (&self.recording, self.passage_policy);
        if let Some(ExplicitRef(gamma)) = self.explicit {
            return run_ode(&ctx, mon, ExplicitGamma::new(&ctx, gamma)?, rc);
        }
        match &self.method {
            Method::Direct => run_ode(&ctx, mon, Direct::new(&ctx, None, policy)?, rc),
            Method::Baumgarte(g) => run_ode(
                &ctx,
                mon,
                Direct::new(&ctx, Some(g.to_model()?), policy)?,
                rc,
            ),
            Method::Perturbation(cfg) => run_ode(&ctx, mon, Perturbation::new(&ctx, cfg)?, rc),
            Method::Parametrization(cfg) => {
                run_ode(&ctx, mon, Parametrization::new(&ctx, cfg)?, rc)
            }
            Method::Projector(cfg) => run_ode(&ctx, mon, ProjectorMethod::new(&ctx, cfg)?, rc),
            // GGL is a DAE in (x, μ): its stepper is the BDF on the residual, the loop the same.
            Method::ExactStabilization(cfg) => {
                let (mut method, mut stepper) = ExactStabilization::new(&ctx, cfg)?;
                drive(&ctx, mon, &mut method, &mut stepper, rc)
            }
            // the trapezoidal rule of the index-3 formulation is its own stepper
            Method::AugmentedLagrangian(cfg) => {
                let (mut method, mut stepper) = AugmentedLagrangian::new(&ctx, cfg)?;
                trapezoidal(drive(&ctx, mon, &mut method, &mut stepper, rc))
            }
        }
    }
}

impl<'m, M: Mechanism + ?Sized> Simulation<'m, M> {
    /// Runs a user's own [`ConstraintMethod`] with the one driver: `build` receives the
    /// validated [`RunContext`] (the same input checks and consistent initial state as
    /// [`Simulation::run`]) and returns the method with its initial integrated state; the
    /// driver then owns the integrator (any [`Integrator`]), the step budget, the after-step
    /// actions, recording, dense output, events, statistics and the partial trajectory of a
    /// failure ([`crate::method`] has an example). The method set by [`Simulation::method`]
    /// or [`Simulation::explicit`] is ignored.
    pub fn run_method<C, F>(&self, build: F) -> Result<Trajectory, ProjectionError>
    where
        C: ConstraintMethod<M>,
        C::Problem: OdeRhs,
        F: FnOnce(&RunContext<'_, 'm, M>) -> Result<MethodStart<C>, ProjectionError>,
    {
        let (ctx, mon) = self.context_for(false)?;
        run_ode(&ctx, mon, build(&ctx)?, &self.recording)
    }
}

/// The augmented-Lagrangian run's result with `"trapezoidal"` as its integrator (the run's
/// [`Integrator`] is not used by that method).
fn trapezoidal(r: Result<Trajectory, ProjectionError>) -> Result<Trajectory, ProjectionError> {
    const NAME: &str = "trapezoidal";
    match r {
        Ok(mut t) => {
            t.integrator = NAME.into();
            Ok(t)
        }
        Err(ProjectionError::Failed(mut f)) => {
            f.partial.integrator = NAME.into();
            Err(ProjectionError::Failed(f))
        }
        Err(e) => Err(e),
    }
}

/// Builds the stepper named by an [`Integrator`] and evaluates `$body` with it bound to `$s`.
macro_rules! with_stepper {
    ($integ:expr, $t0:expr, $y0:expr, $tol:expr, |$s:ident| $body:expr) => {
        match $integ {
            Integrator::Abm(cfg) => {
                let mut $s = contour_ode::AdamsBashforthMoulton::new($t0, $y0, $tol, cfg.clone())?;
                $body
            }
            Integrator::RungeKuttaGill(cfg) => {
                let mut $s = contour_ode::RungeKuttaGill::new($t0, $y0, $tol, cfg.clone())?;
                $body
            }
            Integrator::DormandPrince(cfg) => {
                let mut $s = contour_ode::DormandPrince54::new($t0, $y0, $tol, cfg.clone())?;
                $body
            }
            Integrator::Bdf(cfg) => {
                let mut $s = crate::bdf_ode::BdfOde::new($t0, $y0, $tol, cfg.clone())?;
                $body
            }
            Integrator::Sirk(cfg) => {
                let mut $s = contour_ode::SirkOde::new($t0, $y0, $tol, cfg.clone())?;
                $body
            }
        }
    };
}

/// Runs an ODE method on the explicit-interface stepper of the context.
fn run_ode<M, C>(
    ctx: &RunContext<'_, '_, M>,
    monitor: ConstraintMonitor,
    start: MethodStart<C>,
    recording: &Recording,
) -> Result<Trajectory, ProjectionError>
where
    M: Mechanism + ?Sized,
    C: ConstraintMethod<M>,
    C::Problem: OdeRhs,
{
    let MethodStart {
        mut method,
        y0,
        tol,
    } = start;
    with_stepper!(ctx.integrator, ctx.t0, &y0, tol, |s| drive(
        ctx,
        monitor,
        &mut method,
        &mut s,
        recording
    ))
}

/// `(‖φ‖₂, ‖J q̇ + b‖₂)` of `x0 = (q0, q̇0)` with the run's monitor: the values and errors of
/// `contour_model::constraint_residuals`, which is called only when a norm is not finite
/// (finite norms have finite terms, so its finiteness checks pass, and its sums are the
/// monitor's, term by term in the same order).
fn initial_residuals<M: Mechanism + ?Sized>(
    mech: &M,
    t0: f64,
    x0: &[f64],
    monitor: &mut ConstraintMonitor,
) -> Result<(f64, f64), ModelError> {
    let (q, qd) = x0.split_at(x0.len() / 2);
    check_timed_state(mech, t0, q, qd)?;
    match monitor.violations(mech, t0, x0) {
        (p, v) if p.is_finite() && v.is_finite() => Ok((p, v)),
        _ => contour_model::constraint_residuals(mech, t0, q, qd),
    }
}

/// `E = T + V` at `x = (q, q̇)` when the model reports both.
fn energy<M: Mechanism + ?Sized>(mech: &M, x: &[f64]) -> Option<f64> {
    let (q, qd) = x.split_at(x.len() / 2);
    Some(mech.kinetic_energy(q, qd)? + mech.potential_energy(q)?)
}

/// Appends an output at `(t, x)` with the method's multipliers.
fn emit<M, C>(
    rec: &mut Recorder<'_>,
    mech: &M,
    method: &mut C,
    t: f64,
    x: &[f64],
) -> Result<(), ProjectionError>
where
    M: Mechanism + ?Sized,
    C: ConstraintMethod<M>,
{
    match method.multipliers(t, x)? {
        Multipliers::Kkt => rec.output(mech, method.kkt_dynamics(), t, x)?,
        Multipliers::Given(lambda) => rec.output_with_lambda(t, x, lambda),
        Multipliers::NotComputed => rec.output_without_lambda(t, x),
    }
    Ok(())
}

/// The violations of `(t, x)`: the method's own measure, or (1.6).
fn violations<M, C>(
    rec: &mut Recorder<'_>,
    mech: &M,
    method: &mut C,
    t: f64,
    x: &[f64],
) -> (f64, f64)
where
    M: Mechanism + ?Sized,
    C: ConstraintMethod<M>,
{
    match method.violations(t, x) {
        Some(v) => v,
        None => rec.violations(mech, t, x),
    }
}

/// The one loop of every method: budget, one accepted step, the method's after-step action,
/// recording (with `monitor`, the context's), dense output at the output times, events,
/// statistics. A failure after the start returns [`ProjectionError::Failed`] with the
/// trajectory so far.
fn drive<'m, M, C, S>(
    ctx: &RunContext<'_, 'm, M>,
    monitor: ConstraintMonitor,
    method: &mut C,
    stepper: &mut S,
    recording: &Recording,
) -> Result<Trajectory, ProjectionError>
where
    M: Mechanism + ?Sized,
    C: ConstraintMethod<M>,
    S: Advance<C::Problem>,
{
    let mech = ctx.mech;
    let (n2, dim) = (ctx.x0.len(), stepper.y().len());
    let mut rec = Recorder::new(
        mech,
        method.name(),
        ctx.integrator.name(),
        ctx.output_times,
        ctx.dynamics,
        monitor,
    );
    // (1.6) at x0 was measured by the initial check when there was one (the same monitor
    // at the same state: the same values).
    let v0 = match method.violations(ctx.t0, &ctx.x0) {
        Some(v) => v,
        None => ctx
            .x0_violations
            .unwrap_or_else(|| rec.violations(mech, ctx.t0, &ctx.x0)),
    };
    rec.start(&ctx.x0, v0);
    // Every buffer of the loop, in one allocation: x, x_prev, xbuf (2N each), then y_prev,
    // y_new, ybuf (the stepper's dimension each).
    let mut work = vec![0.0; 3 * (n2 + dim)];
    let (xs, ys) = work.split_at_mut(3 * n2);
    let (x, xs) = xs.split_at_mut(n2);
    let (x_prev, xbuf) = xs.split_at_mut(n2);
    let (y_prev, ys) = ys.split_at_mut(dim);
    let (y_new, ybuf) = ys.split_at_mut(dim);
    x.copy_from_slice(&ctx.x0);
    x_prev.copy_from_slice(&ctx.x0);
    y_prev.copy_from_slice(stepper.y());
    let mut t_prev = ctx.t0;
    let h_max = ctx.integrator.h_max();
    let e0 = energy(mech, &ctx.x0);
    let mut drift = e0.map(|_| 0.0f64);
    // the end of the step being attempted, for the failure's report
    let mut t_failed = ctx.t0;
    let result = (|| -> Result<(), ProjectionError> {
        if rec.every_step() {
            emit(&mut rec, mech, method, ctx.t0, &ctx.x0)?;
        } else {
            while rec.next_output(ctx.t0).is_some() {
                emit(&mut rec, mech, method, ctx.t0, &ctx.x0)?;
            }
        }
        stepper.set_t_stop(Some(ctx.t_end));
        contour_ode::driver::check_step_bound(stepper, ctx.t0, ctx.t_end, ctx.max_steps)?;
        let mut steps = 0usize;
        while stepper.t() < ctx.t_end {
            if steps >= ctx.max_steps {
                return Err(ProjectionError::TooManySteps {
                    t: stepper.t(),
                    max_steps: ctx.max_steps,
                });
            }
            let mut redone = false;
            loop {
                method.before_step();
                let last = Accepted {
                    t: t_prev,
                    x: x_prev,
                };
                t_failed = t_prev;
                let info = match stepper.step(method.problem()) {
                    Ok(info) => info,
                    Err(e) => {
                        t_failed = attempted_end(&e, t_prev, stepper.h());
                        let kind = method.step_failed(e, last, y_new)?;
                        stepper
                            .restart(method.problem(), t_prev, y_new)
                            .map_err(|e| method.integrator_error(e))?;
                        rec.event(t_prev, kind, x_prev);
                        continue;
                    }
                };
                t_failed = info.t;
                match method.after_step(info.t, info.h, stepper.y(), y_new)? {
                    AfterStep::Keep => break,
                    AfterStep::Replace => {
                        stepper
                            .replace_y(method.problem(), y_new)
                            .map_err(|e| method.integrator_error(e))?;
                        break;
                    }
                    AfterStep::Redo { max_step } => {
                        rec.event(t_prev, EventKind::StepRedone, x_prev);
                        stepper
                            .restart(method.problem(), t_prev, y_prev)
                            .map_err(|e| method.integrator_error(e))?;
                        stepper.set_max_step(max_step);
                        redone = true;
                    }
                }
            }
            if redone {
                stepper.set_max_step(h_max);
            }
            steps += 1;
            let t = stepper.t();
            method.state(t, stepper.y(), x)?;
            let v = violations(&mut rec, mech, method, t, x);
            rec.step(t, v);
            if let (Some(e0), Some(d)) = (e0, drift.as_mut()) {
                let dt = energy(mech, x).map_or(f64::NAN, |e| (e - e0).abs());
                *d = if dt.is_nan() { dt } else { d.max(dt) };
                if let Some(tol) = ctx.energy_tol {
                    // a NaN energy fails too
                    if !matches!(
                        dt.partial_cmp(&tol),
                        Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
                    ) {
                        return Err(ProjectionError::EnergyDrift {
                            t,
                            drift: dt,
                            e0,
                            tol,
                        });
                    }
                }
            }
            if ctx.lambda_at_steps {
                match method.multipliers(t, x)? {
                    Multipliers::Kkt => rec.step_lambda(mech, method.kkt_dynamics(), t, x)?,
                    Multipliers::Given(lambda) => rec.step_lambda_given(lambda),
                    Multipliers::NotComputed => rec.step_lambda_given(&[]),
                }
            }
            while let Some(to) = rec.next_output(t) {
                stepper
                    .dense(to, ybuf)
                    .map_err(|e| method.integrator_error(e))?;
                let last = Accepted {
                    t: t_prev,
                    x: x_prev,
                };
                method.output_state(last, to, ybuf, xbuf)?;
                emit(&mut rec, mech, method, to, xbuf)?;
            }
            if rec.every_step() {
                emit(&mut rec, mech, method, t, x)?;
            }
            recording.settle(&mut rec.traj)?;
            let at_end = t >= ctx.t_end;
            if let Some(kind) = method.after_record(t, at_end, stepper.y(), x, y_new)? {
                if !at_end {
                    stepper
                        .restart(method.problem(), t, y_new)
                        .map_err(|e| method.integrator_error(e))?;
                    rec.event(t, kind, x);
                }
            }
            t_prev = t;
            x_prev.copy_from_slice(x);
            y_prev.copy_from_slice(stepper.y());
        }
        Ok(())
    })();
    let st = *stepper.stats();
    let s = &mut rec.traj.stats;
    implicit_stats(s, &st, dim);
    s.rejected_steps = st.rejected_steps;
    s.integrator_f_calls = st.f_evals;
    s.energy_drift = drift;
    method.add_stats(s);
    match result {
        Ok(()) => Ok(rec.finish(x)),
        Err(source) => {
            let (q, qd) = x_prev.split_at(n2 / 2);
            let (q, qd) = (q.to_vec(), qd.to_vec());
            Err(ProjectionError::Failed(Box::new(SimulationFailure {
                t_failed: t_failed.max(t_prev),
                t: t_prev,
                q,
                qd,
                partial: Box::new(rec.finish(x_prev)),
                source,
            })))
        }
    }
}

/// The end of the step whose attempt failed with `e`: the time the integrator's error names
/// (where it has one past the last accepted `t`), else `t + h` with the step size `h` it was
/// trying.
fn attempted_end(e: &contour_ode::OdeError, t: f64, h: f64) -> f64 {
    use contour_ode::OdeError as E;
    let named = match e {
        E::StepSizeTooSmall { t, .. }
        | E::ToleranceTooSmall { t, .. }
        | E::NoConvergence { t, .. }
        | E::SingularIterationMatrix { t }
        | E::RhsFailed { t, .. } => Some(*t),
        _ => None,
    };
    match named {
        Some(te) if te > t => te,
        _ if h.is_finite() && h > 0.0 => t + h,
        _ => t,
    }
}
