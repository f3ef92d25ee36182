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
//!     .run()?
//! ```

use contour_model::{consistent_state, ConsistentStateOptions, Mechanism};
use contour_ode::{AbmConfig, BdfConfig, DormandPrinceConfig, RungeKuttaGillConfig};

use crate::baumgarte::BaumgarteGains;
use crate::error::ProjectionError;
use crate::exact_stabilization::EcsConfig;
use crate::kovecses::ProjectorConfig;
use crate::parametrization::ParametrizationConfig;
use crate::perturbation::PerturbationConfig;
use crate::tolerance::ErrorControl;
use crate::trajectory::Trajectory;

/// The integrator of the (index-1 or parametrized) ODE.
#[derive(Debug, Clone, PartialEq)]
pub enum Integrator {
    /// Shampine–Gordon variable-order Adams PECE (Keerthi's integrator).
    Abm(AbmConfig),
    /// Runge–Kutta–Gill with step doubling (Huang (5.3.3)).
    RungeKuttaGill(RungeKuttaGillConfig),
    /// Dormand–Prince 5(4).
    DormandPrince(DormandPrinceConfig),
    /// Variable-order BDF (DASSL style): the DAE of exact stabilization (ECS), and for every
    /// other method the ODE `ẋ = f(x)` as `ẋ − f(x) = 0` through [`crate::BdfOde`]
    /// (finite-difference iteration matrix, its evaluations counted in `N_f`).
    Bdf(BdfConfig),
}

impl Integrator {
    /// ABM with its default configuration.
    pub fn abm() -> Self {
        Self::Abm(AbmConfig::default())
    }
    /// DOPRI5 with its default configuration.
    pub fn dopri5() -> Self {
        Self::DormandPrince(DormandPrinceConfig::default())
    }
    /// RKG with its default configuration.
    pub fn rkg() -> Self {
        Self::RungeKuttaGill(RungeKuttaGillConfig::default())
    }
    /// BDF with its default configuration (orders 1–5).
    pub fn bdf() -> Self {
        Self::Bdf(BdfConfig::default())
    }
    /// Short name: `"abm"`, `"rkg"`, `"dopri5"`, `"bdf"`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Abm(_) => "abm",
            Self::RungeKuttaGill(_) => "rkg",
            Self::DormandPrince(_) => "dopri5",
            Self::Bdf(_) => "bdf",
        }
    }
}

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
}

impl Method {
    /// Short name: `"direct"`, `"baumgarte"`, `"perturbation"`, `"parametrization"`,
    /// `"exact_stabilization"`, `"projector"`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Direct => "direct",
            Self::Baumgarte(_) => "baumgarte",
            Self::Perturbation(_) => "perturbation",
            Self::Parametrization(_) => "parametrization",
            Self::ExactStabilization(_) => "exact_stabilization",
            Self::Projector(_) => "projector",
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

/// A constrained simulation (see the module documentation for the builder and its defaults).
#[derive(Debug, Clone)]
pub struct Simulation<'m, M: ?Sized> {
    pub(crate) mech: &'m M,
    pub(crate) q0: Vec<f64>,
    pub(crate) qd0: Vec<f64>,
    pub(crate) t0: f64,
    pub(crate) t_end: f64,
    pub(crate) method: Method,
    pub(crate) integrator: Integrator,
    pub(crate) error_control: ErrorControl,
    pub(crate) output_times: Vec<f64>,
    pub(crate) initial: InitialState,
    pub(crate) max_steps: usize,
}

/// Everything a method's loop needs, validated.
#[derive(Debug)]
pub(crate) struct RunContext<'a, 'm, M: ?Sized> {
    pub mech: &'m M,
    pub t0: f64,
    pub t_end: f64,
    pub x0: Vec<f64>,
    pub error_control: ErrorControl,
    pub output_times: &'a [f64],
    pub max_steps: usize,
    pub integrator: &'a Integrator,
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
            integrator: Integrator::abm(),
            error_control: ErrorControl::absolute(1e-4),
            output_times: Vec::new(),
            initial: InitialState::Require { tol: 1e-10 },
            max_steps: 1_000_000,
        }
    }

    /// Sets the method.
    #[must_use]
    pub fn method(mut self, method: Method) -> Self {
        self.method = method;
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

    /// Validates the input and builds the initial state `x0 = (q0, q̇0)`.
    pub(crate) fn context(&self) -> Result<RunContext<'_, 'm, M>, ProjectionError> {
        let n = self.mech.dof();
        for (what, v) in [("q0", &self.q0), ("qd0", &self.qd0)] {
            if v.len() != n {
                return Err(ProjectionError::DimensionMismatch {
                    what,
                    expected: n,
                    found: v.len(),
                });
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
        let (q, qd) = match self.initial {
            InitialState::Require { tol } => {
                if !(tol.is_finite() && tol >= 0.0) {
                    return Err(ProjectionError::InvalidParameter {
                        name: "consistency tol",
                        value: tol,
                    });
                }
                let (p, v) =
                    contour_model::constraint_residuals(self.mech, self.t0, &self.q0, &self.qd0)?;
                if p > tol || v > tol {
                    return Err(ProjectionError::InconsistentInitialState {
                        position_residual: p,
                        velocity_residual: v,
                        tol,
                    });
                }
                (self.q0.clone(), self.qd0.clone())
            }
            InitialState::MakeConsistent(opts) => {
                let cs = consistent_state(self.mech, self.t0, &self.q0, &self.qd0, &opts)?;
                (cs.q, cs.qd)
            }
        };
        let mut x0 = q;
        x0.extend_from_slice(&qd);
        Ok(RunContext {
            mech: self.mech,
            t0: self.t0,
            t_end: self.t_end,
            x0,
            error_control: self.error_control,
            output_times: &self.output_times,
            max_steps: self.max_steps,
            integrator: &self.integrator,
        })
    }

    /// Runs the simulation.
    ///
    /// Errors: [`ProjectionError::InconsistentInitialState`] (unless asked to make it
    /// consistent), invalid tolerances, time span, gains or configuration; the model's and the
    /// integrator's failures; [`ProjectionError::ProjectionFailed`] for P1.
    pub fn run(&self) -> Result<Trajectory, ProjectionError> {
        let ctx = self.context()?;
        match &self.method {
            Method::Direct => crate::direct::run(&ctx, None),
            Method::Baumgarte(g) => crate::direct::run(&ctx, Some(g.to_model()?)),
            Method::Perturbation(cfg) => crate::perturbation::run(&ctx, cfg),
            Method::Parametrization(cfg) => crate::parametrization::run(&ctx, cfg),
            Method::ExactStabilization(cfg) => crate::exact_stabilization::run(&ctx, cfg),
            Method::Projector(cfg) => crate::kovecses::run(&ctx, cfg),
        }
    }
}

/// Builds the stepper named by an [`Integrator`] and evaluates `$body` with it bound to `$s`.
macro_rules! with_stepper {
    ($integ:expr, $t0:expr, $y0:expr, $tol:expr, |$s:ident| $body:expr) => {
        match $integ {
            $crate::simulation::Integrator::Abm(cfg) => {
                #[allow(unused_mut)]
                let mut $s = contour_ode::AdamsBashforthMoulton::new($t0, $y0, $tol, cfg.clone())?;
                $body
            }
            $crate::simulation::Integrator::RungeKuttaGill(cfg) => {
                #[allow(unused_mut)]
                let mut $s = contour_ode::RungeKuttaGill::new($t0, $y0, $tol, cfg.clone())?;
                $body
            }
            $crate::simulation::Integrator::DormandPrince(cfg) => {
                #[allow(unused_mut)]
                let mut $s = contour_ode::DormandPrince54::new($t0, $y0, $tol, cfg.clone())?;
                $body
            }
            $crate::simulation::Integrator::Bdf(cfg) => {
                #[allow(unused_mut)]
                let mut $s = $crate::bdf_ode::BdfOde::new($t0, $y0, $tol, cfg.clone())?;
                $body
            }
        }
    };
}
pub(crate) use with_stepper;
