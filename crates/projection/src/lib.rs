//! # contour-projection — keeping a simulation on the constraint manifold
//!
//! Every bilateral constraint-handling method of Keerthi, Sudarsan & Sancheti (section 4)
//! behind one driver, [`Simulation`] (mechanism + [`Method`] + [`Integrator`] +
//! [`ErrorControl`] + time span + output times → [`Trajectory`]). A tour, one file per method:
//!
//! * [`direct`] — integrate `ẋ = f(x)`, (1.5) from (1.1) + (1.4), and nothing else
//!   (Keerthi's "ICS, δ = 0"); `φ` drifts.
//! * [`baumgarte`] — (4.3) `φ̈ + αφ̇ + βφ = 0` with `α = 2δ`, `β = δ²` (Keerthi) or Huang's
//!   `α = 2ρ₁²`, `β = ρ₂²` (5.2.20)–(5.2.26); negative gains are an error.
//! * [`perturbation`] — Procedure P1: a step at tolerance τ/2 (2.2), then the correction (2.3)
//!   by the modified Newton iteration (2.15)–(2.17) with a skinny QR, split into the position
//!   and velocity problems (3.5)–(3.7); redo with a smaller step when `‖X*‖ > τ/2`
//!   (Remark 2.5); projected dense output (Remark 2.2).
//! * [`parametrization`] — Mani, Haug & Atkinson's local tangent-space parametrization
//!   `x = ψ(y)` (4.1)–(4.2), re-parametrized (and the integrator restarted) when it degrades.
//! * [`exact_stabilization`] — Gear–Gupta–Leimkuhler (4.4): the index-2 DAE in `(x, μ)`
//!   solved by the variable-order BDF with `μ` out of the error test.
//! * [`kovecses`] — Kövecses & Piedbœuf's projector method ([`Method::Projector`]): the
//!   accelerations by projection (29)–(31) with the mass-weighted pseudo-inverse
//!   `W = L⁻ᵀ(A L⁻ᵀ)†` (valid for redundant, rank-deficient constraints; minimum-norm λ), the
//!   constraint-force-free inverse dynamics (26)–(27), and after every accepted step of any
//!   integrator the configuration correction (35) or (36) and the velocity filtering (33);
//!   [`ProjectorConfig::default`] is the paper's one filtering + two corrections (36).
//! * [`augmented_lagrangian`] — Bayo & Ledesma's augmented-Lagrangian index-3 formulation
//!   with Cuadrado's mass-orthogonal projections of velocities and accelerations (13)–(14),
//!   on the trapezoidal rule at a constant step (the MBS benchmark's method); redundant rows
//!   need no treatment.
//! * [`explicit`] — explicit constraints `q = γ(y)` (Featherstone's `gamma_q`, FDgq) with the
//!   same integrators, through [`Simulation::explicit`] (it needs the constraint object, which a
//!   [`Method`] value cannot carry).
//! * [`bdf_ode`] — [`BdfOde`], the variable-order BDF of `contour-ode` on the ODE
//!   `ẋ − f(x) = 0` ([`Integrator::Bdf`] for every method besides ECS): finite-difference
//!   iteration matrices whose evaluations are counted in `N_f` (and reported as
//!   `jacobian_f_evals`), `replace_y` shifts the history polynomial.
//! * [`rhs`] — the counted right-hand side ([`ConstrainedRhs`], `N_f`) and the violation
//!   monitor; [`tolerance`] — τ and its norm (Keerthi's l2 norm); [`trajectory`] — the one
//!   result type of the workspace, [`Trajectory`] with its [`Event`]s (also those of
//!   `contour-contact`), written as JSON or CSV.
//!
//! ## Singular configurations
//!
//! Where `J` loses rank (a flat four-bar: MBS benchmark A02, `models::NFourBar`) `q̈` is still
//! unique, λ is not, and other branches of motion cross the physical one. Every method solves
//! the accelerations by the rank-revealing KKT solve (unique `q̈`, minimum-norm λ;
//! `contour_linalg::KktSolver`) and the perturbation correction by the minimum-norm step over
//! the kept singular directions ([`ManifoldProjection`]); data inconsistent in the lost
//! directions are a typed error (`ModelError::InconsistentAtSingularity`), and
//! [`Simulation::energy_tolerance`] turns an energy drift into a typed error. Which branch a
//! run follows is decided by its state error in the nearly lost direction `u` (`uᵀJ ≈ 0`):
//! a constraint error `d` there enters λ as `d/σ_u²` (σ_u the smallest singular value of
//! `J M^-½`), so the acceleration kicks the velocity along `u` by `d/σ_u²`.
//!
//! Which method is safe there with its default options (a method is *safe* when it either
//! stays on the physical branch or stops with a typed error before leaving it):
//!
//! * **projector, parametrization, perturbation**: their state is put back on the constraints
//!   after every step, so a drift cannot pick the branch; perturbation and GGL may end a run
//!   at a tight tolerance with a typed error ("step size too small",
//!   [`ProjectionError::GglSingularPassage`]); GGL's [`EcsForm::Multipliers`] passes A02 at
//!   τ = 1e-9;
//! * **direct, Baumgarte**: nothing removes their drift `d` in the lost direction, and at the
//!   passage `φ` is quadratic in a displacement `e` along `u` (`uᵀφ ≈ κe²/2`), so the sign of
//!   what is left picks the branch. By default ([`PassagePolicy::Stop`],
//!   [`Simulation::passage_policy`]) they stop where the drift, not the dynamics, would pick it:
//!   [`ProjectionError::SingularPassage`] where an evaluation's `J` falls below its rank at the
//!   start (redundant rows present from `t0` are not a passage),
//!   [`ProjectionError::AmbiguousBranch`] where two Newton steps toward the constraints leave
//!   more than [`AMBIGUOUS_CONTRACTION`] of the residual, and
//!   [`ProjectionError::StalledPassage`] where the accepted steps shrink in proportion to `σ`
//!   inside the band `σ_r/σ_1 <` [`passage::PASSAGE_BAND_RATIO`] while `σ` falls by
//!   [`PASSAGE_STALL_DEPTH`] (module [`passage`]). [`PassagePolicy::Continue`] keeps the
//!   rank-revealing continuation; pair it with [`Simulation::energy_tolerance`].
//!
//! The tests `no_method_returns_a_wrong_branch`,
//! `direct_and_baumgarte_never_return_a_wrong_branch_over_twenty_seconds` and
//! `no_method_returns_the_folded_branch` hold these rules; the measured outcomes per method,
//! integrator, N and τ are in `benches/results/singular_configurations_2026-11-27.md`.
//!
//! **Baumgarte's gains stay the user's choice** ([`BaumgarteGains`] has no default). Its gains
//! are rates in 1/s and depend on the problem: critical δ = 50 passes A02 (N = 1, 4, 40 at
//! τ = 1e-6 with every explicit integrator, N = 1, 4 over 2 s with every integrator at both
//! τ), while δ = 1 and 10 follow another branch in some runs. Large gains make the field
//! stiff for slow mechanisms and for the paper models, whose tables use Keerthi's δ = 2.
//!
//! Keerthi's Tables 4.1 / 4.2, Kövecses' and Featherstone's examples are reproduced with these
//! methods by `contour-papers`: see `tables/keerthi.md`, `tables/kovecses.md` and
//! `tables/featherstone.md` (generated by `cargo xtask reproduce-tables`).
//!
//! ```
//! use contour_model::models::{KeerthiControlLaw, KeerthiRobot, KEERTHI_IC1};
//! use contour_model::{ConsistentStateOptions, WithController};
//! use contour_projection::{ErrorControl, Integrator, Method, PerturbationConfig, Simulation};
//!
//! let robot = WithController::new(KeerthiRobot::default(), KeerthiControlLaw::default());
//! let traj = Simulation::new(&robot, &KEERTHI_IC1.q, &KEERTHI_IC1.qd, 0.0, 2.0)
//!     .make_consistent(ConsistentStateOptions::default())
//!     .method(Method::Perturbation(PerturbationConfig::default()))
//!     .integrator(Integrator::abm())
//!     .error_control(ErrorControl::absolute(1e-4))
//!     .run()?;
//! assert!(traj.stats.max_phi < 1e-12);
//! # Ok::<(), contour_projection::ProjectionError>(())
//! ```

pub mod augmented_lagrangian;
pub mod baumgarte;
pub mod bdf_ode;
pub mod direct;
mod error;
pub mod exact_stabilization;
pub mod explicit;
mod integrator;
pub mod kovecses;
pub mod method;
pub mod parametrization;
pub mod passage;
pub mod perturbation;
mod recorder;
pub mod recording;
pub mod rhs;
mod simulation;
pub mod tolerance;
pub mod trajectory;

pub use augmented_lagrangian::{AlProblem, AugmentedLagrangianConfig, Trapezoidal};
pub use baumgarte::BaumgarteGains;
pub use bdf_ode::BdfOde;
pub use error::{ProjectionError, SimulationFailure};
pub use exact_stabilization::{EcsConfig, EcsForm};
pub use kovecses::{
    AccelerationSolver, ConfigurationCorrection, ConstraintFilter, CorrectionCount,
    CorrectionOutcome, ProjectionDynamics, ProjectorConfig, VelocityFiltering,
};
pub use method::{Accepted, AfterStep, ConstraintMethod, MethodStart, Multipliers, RunContext};
pub use parametrization::ParametrizationConfig;
pub use passage::{PassagePolicy, AMBIGUOUS_CONTRACTION, PASSAGE_BAND_RATIO, PASSAGE_STALL_DEPTH};
pub use perturbation::sparse;
pub use perturbation::{
    ManifoldProjection, PerturbationConfig, ProjectionOutcome, VelocityJacobian,
};
pub use recording::{CsvSink, LastRowSink, OutputRow, OutputSink, Recording};
pub use rhs::{ConstrainedRhs, ConstraintMonitor};
pub use simulation::{InitialState, Integrator, Method, Simulation};
pub use tolerance::{ErrorControl, NormKind};
pub use trajectory::{
    Event, EventKind, Rows, RowsIter, SimulationStats, Trajectory, TrajectoryIoError,
};
