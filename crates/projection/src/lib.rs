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
//!   `contour-contact`), written as JSON or CSV;
//!   [`reproduction`] — the rows `keerthi/table4.{1,2}/*` of `cargo xtask reproduce-tables`;
//!   [`reproduction_kovecses`] — the rows `kovecses/*`, `keerthi/extended/KOV/*` and the data
//!   of the figures `kovecses_fig3_4`, `kovecses_fig5_6`; [`reproduction_featherstone`] — the
//!   row `featherstone/planar2g/implicit_vs_explicit`.
//!
//! ## Keerthi's Tables 4.1 / 4.2 (ABM PECE, τ = 1e-4, l2 norm, T = 5 s; `N_i / N_f`)
//!
//! | method | 4.1 paper | 4.1 ours | 4.2 paper | 4.2 ours | max‖φ‖ ours (4.1 / 4.2) |
//! |---|---|---|---|---|---|
//! | PERT | 33 / 66 | 40 / 82 | 121 / 243 | 111 / 225 | 1e-16 / 2e-16 |
//! | PARAM | 34 / 68 | 34 / 70 | 183 / 378 | 109 / 231 (6 re-parametrizations) | 8e-17 / 2e-16 |
//! | ICS, δ = 0 | 32 / 64 | 36 / 74 | 98 / 196 | 107 / 217 | 8e-5 / 3e-5 |
//! | ICS, δ = 2 | 34 / 73 | 36 / 73 | 104 / 209 | 105 / 213 | 6e-6 / 7e-6 |
//! | ECS (BDF) | 85 / 170 | 66 / 252 | 251 / 601 | 253 / 1016 | 4e-7 / 1e-5 |
//!
//! (ECS's `N_f` includes the acceleration solves of its finite-difference iteration
//! matrices, as every BDF run's does; see [`reproduction`] for the final time, the reference solution and the notes; the table
//! is guarded by the snapshot test `tests/table_counts.rs`).
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

pub mod baumgarte;
pub mod bdf_ode;
pub mod direct;
mod error;
pub mod exact_stabilization;
pub mod explicit;
pub mod huang_models;
mod integrator;
pub mod kovecses;
pub mod method;
pub mod parametrization;
pub mod perturbation;
mod recorder;
pub mod reproduction;
pub mod reproduction_featherstone;
pub mod reproduction_huang52;
pub mod reproduction_kovecses;
pub mod rhs;
mod simulation;
pub mod tolerance;
pub mod trajectory;

pub use baumgarte::BaumgarteGains;
pub use bdf_ode::BdfOde;
pub use error::{ProjectionError, SimulationFailure};
pub use exact_stabilization::{EcsConfig, EcsForm};
pub use kovecses::{
    AccelerationSolver, ConfigurationCorrection, ConstraintFilter, CorrectionCount,
    CorrectionOutcome, ProjectionDynamics, ProjectorConfig, VelocityFiltering,
};
pub use method::{Accepted, AfterStep, ConstraintMethod, Multipliers};
pub use parametrization::ParametrizationConfig;
pub use perturbation::{
    ManifoldProjection, PerturbationConfig, ProjectionOutcome, VelocityJacobian,
};
pub use rhs::{ConstrainedRhs, ConstraintMonitor};
pub use simulation::{InitialState, Integrator, Method, Simulation};
pub use tolerance::{ErrorControl, NormKind};
pub use trajectory::{Event, EventKind, SimulationStats, Trajectory, TrajectoryIoError};
