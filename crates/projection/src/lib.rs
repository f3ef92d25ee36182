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
//! Which method is safe at singular configurations with its default options, measured on A02
//! (N = 1, 4 over 2 s by `no_method_returns_a_wrong_branch`; N = 40 over 20 s in
//! `benches/results/a02_n40_*.md`; τ = 1e-6 and 1e-9):
//!
//! | method | state on the constraints | safe with its defaults? | at a singular passage |
//! |---|---|---|---|
//! | projector (rank cut-off 1e-6) | yes, after every step | **yes** | passes with every integrator at N = 1, 4; at N = 40 with ABM, DOPRI5, RK-Gill at both τ |
//! | parametrization | yes (coordinates of the manifold) | **yes** | passes in every run that finished; the slowest |
//! | perturbation | yes, after every step | **yes** (pass or typed error) | with its default round-off filter ([`PerturbationConfig::roundoff_filter`]) passes at τ = 1e-6, and at τ = 1e-9 every run at N = 1, 4 and at N = 40 with ABM, RK-Gill and BDF (DOPRI5 stops with "step size too small" at the second passage, t = 1.24); without the filter ([`PerturbationConfig::keerthi`]) it stops at τ = 1e-9 with that error at N = 40 and in some runs at N = 1, 4 |
//! | GGL (ECS + BDF) | yes (index-2 DAE) | **yes** (pass or typed error) | default form: passes at τ = 1e-6 (over 20 s at N = 1 within A02's low precision: B0 off 1.4e-3); at τ = 1e-9 stops with [`ProjectionError::GglSingularPassage`] at the first passage at N = 4, 40 and at t = 12.8 at N = 1 ([`exact_stabilization::GGL_PASSAGE_RATIO`]). With [`EcsForm::Multipliers`] (least-norm multiplier updates, the constrained velocities' error measured through the positions, the multiplier updates measured through the state in the Newton test) it passes τ = 1e-9 over 20 s at N = 1, 2, 4, 10 and 40 (B0 ≤ 1.1e-5); at τ = 1e-6 it is within A02's low precision (B0 1.1e-3 … 1.5e-3 at N = 1, 4, 40) |
//! | direct | **no** (drift `d ∝ τ t`) | **yes with its defaults** (pass or typed error) | stops with [`ProjectionError::StalledPassage`] where its steps shrink with the distance to a crossing, with [`ProjectionError::SingularPassage`] where an evaluation sees `J` below its initial rank, and with [`ProjectionError::AmbiguousBranch`] where an accepted state is within its drift of a crossing; at N = 40 and τ = 1e-9 every such run ends within 2.1 s; over 20 s at N = 1, 4 (48 runs with Baumgarte) no run returns `Ok` off the branch, and every error comes before the run leaves it |
//! | Baumgarte | **no** (drift damped) | **yes with its defaults** (pass or typed error) | as direct; a larger δ keeps the drift smaller and passes more passages (δ = 50 passes every run at τ = 1e-6) |
//!
//! **Why direct and Baumgarte depend on their drift.** They do not remove the drift `d` in
//! the lost direction. At the passage `φ` is quadratic in a displacement `e` along `u`
//! (`uᵀφ ≈ κe²/2`). Neither the acceleration constraint nor Baumgarte's `αφ̇ + βφ` has a term
//! linear in `e` to restore it, and the branch is chosen by the sign of what is left.
//!
//! **The passage guards and their limit.** By default ([`PassagePolicy::Stop`],
//! [`Simulation::passage_policy`]) these two methods end the run where the drift, not the
//! dynamics, would pick the branch:
//! * an evaluation whose `J` has a numerical rank below its rank at the start ends it with
//!   [`ProjectionError::SingularPassage`] (time, ranks, the safe methods, how to opt in);
//!   redundant rows present from `t0` are not a passage;
//! * a drifted state is bent away from the crossing (`κe²/2 = d` has its solutions at
//!   `|e| ≈ √(2d/κ)`), so at τ = 1e-6 the rank never falls below the cut-off 1e-6 and a step
//!   can turn onto another branch. Every accepted step is therefore checked by two Newton
//!   steps toward the constraints: near a crossing the second converges linearly, and where
//!   it leaves more than [`AMBIGUOUS_CONTRACTION`] of its residual the run ends with
//!   [`ProjectionError::AmbiguousBranch`] (module `direct`);
//! * off the constraints their field has a pole at the crossing (`q̈` grows like the drift
//!   over `J`'s smallest singular value `σ`), and the error test resolves it with steps that
//!   shrink with the distance: the run creeps toward the crossing with `σ` above the rank
//!   cut-off (A02 at N = 40, τ = 1e-9: steps of 1e-11 s, no result in 240 s). Where, inside
//!   the band `σ_r/σ_1 <` [`exact_stabilization::GGL_PASSAGE_RATIO`], the accepted steps
//!   have shrunk at least in proportion to `σ` while it fell by [`PASSAGE_STALL_DEPTH`], the
//!   run ends with [`ProjectionError::StalledPassage`] (module `direct`). In the A02 survey
//!   this check is the first to stop every run that stops at a passage.
//!
//! Measured over 20 s of A02 at N = 1, 4 (48 runs, the test
//! `direct_and_baumgarte_never_return_a_wrong_branch_over_twenty_seconds`): no `Ok` off the
//! physical branch, and every run that stops does so before leaving it (B0 within 1e-2).
//! [`PassagePolicy::Continue`] keeps the rank-revealing continuation; pair it with
//! [`Simulation::energy_tolerance`] where another branch changes the energy, as on A02.
//!
//! **A second mechanism.** The isosceles slider-crank (`SliderCrank` with r = l; its moving
//! branch crosses the folded one, slider held at the pivot, where both links are vertical:
//! one lost row of two) over 10 s, swinging through 14 passages or turning over through 5,
//! every method × integrator at τ = 1e-6 and 1e-9 with the defaults (the test
//! `no_method_returns_the_folded_branch`, the table `benches/examples/passage_survey.rs`):
//! no run returns `Ok` on the folded branch, and every run that stops does so on the moving
//! one (slider within 1e-4 m of the reduced solution). Direct and Baumgarte stop with
//! [`ProjectionError::StalledPassage`] except Baumgarte δ = 10 turning over (every integrator
//! at τ = 1e-6, RK-Gill and the BDF at 1e-9), which passes under both policies. With
//! [`PassagePolicy::Continue`] the stopped runs either end with a rank error or return `Ok`
//! on the folded branch (slider 0.7–0.8 m off) with an energy drift of 3e-7 to 5.4e-3 J: the
//! folded branch is a motion of about the same energy, so the energy tolerance is no guard
//! there and the checks of [`PassagePolicy::Stop`] are. No run that they stop passes under
//! [`PassagePolicy::Continue`].
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
pub mod recording;
pub mod rhs;
mod simulation;
pub mod sparse;
pub mod tolerance;
pub mod trajectory;

pub use baumgarte::BaumgarteGains;
pub use bdf_ode::BdfOde;
pub use direct::{PassagePolicy, AMBIGUOUS_CONTRACTION, PASSAGE_STALL_DEPTH};
pub use error::{ProjectionError, SimulationFailure};
pub use exact_stabilization::{EcsConfig, EcsForm};
pub use kovecses::{
    AccelerationSolver, ConfigurationCorrection, ConstraintFilter, CorrectionCount,
    CorrectionOutcome, ProjectionDynamics, ProjectorConfig, VelocityFiltering,
};
pub use method::{Accepted, AfterStep, ConstraintMethod, MethodStart, Multipliers, RunContext};
pub use parametrization::ParametrizationConfig;
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
