//! The projector method of Kövecses & Piedbœuf (papers/001): forward dynamics by projection,
//! velocity filtering and configuration correction after every accepted step of any
//! integrator.
//!
//! With `M = L Lᵀ` (our lower factor, the paper's `L̂ = Lᵀ`), `Ã = A L⁻ᵀ` (13) and the
//! mass-weighted generalized inverse `W = L⁻ᵀ (A L⁻ᵀ)†` (17), `P_c = W A`, `P_a = I − W A`
//! ([`contour_linalg::WeightedProjectors`], valid for rank-deficient `A`):
//!
//! * **Forward dynamics** ([`ProjectionDynamics::accelerations`]), (29)–(31):
//!   `q̈ = P_a M⁻¹(Q − C) − W (Ȧq̇ + ḃ)`; in the workspace's notation `Q = u`, `C = h`,
//!   `Ȧq̇ + ḃ = ρ`. The multipliers are the minimum-norm solution of `Aᵀλ = M q̈ − (u − h)`:
//!   `λ = −Wᵀ M W (A M⁻¹(u − h) + ρ)` (for full row rank the KKT multipliers of (9)).
//! * **Inverse dynamics** ([`ProjectionDynamics::admissible_applied_force`]), (26)–(27):
//!   `P_aᵀ Q_applied = P_aᵀ (M q̈ + C)` for an admissible `q̈` — the applied force seen by the
//!   admissible motion, free of constraint forces; (28) is the same equation solved for `q̈`.
//! * **Velocity filtering** (33): `q̇ ← −W b + P_a q̇`, with `W`, `P_a` at the new
//!   configuration `q_{i+1}` ([`VelocityFiltering::AtNewConfiguration`]) or at the previous
//!   accepted one `q_i` ([`VelocityFiltering::AtPreviousConfiguration`]), `b` at `q_{i+1}`.
//! * **Configuration correction**: quasi-iterative (35) `q^{k+1} = q^k − W(q_i) φ(q^k)` with the
//!   directions frozen at `q_i`, or iterative (36) `q^{k+1} = q^k − W(q^k) φ(q^k)`; a fixed
//!   number of corrections ("open loop", the paper uses two) or until `‖φ‖₂ ≤ tol`.
//!
//! The corrections act on the accepted state (first the configuration, then the velocities at
//! the corrected configuration, as the paper's text before (34) asks), and the integrator
//! continues from the corrected point (`replace_y`). [`ProjectorConfig::default`] is the
//! paper's setting: one velocity filtering at `q_{i+1}`, two corrections by (36).
//!
//! ```
//! use contour_model::models::RedundantFourBar;
//! use contour_projection::{Integrator, Method, ProjectorConfig, Simulation, ErrorControl};
//!
//! // three closure rows of rank 2: the KKT-based methods report RankDeficientJacobian
//! let fb = RedundantFourBar::default();
//! let (q, qd) = fb.state(1.0, 0.0).unwrap();
//! let tr = Simulation::new(&fb, &q, &qd, 0.0, 2.0)
//!     .method(Method::Projector(ProjectorConfig::default()))
//!     .integrator(Integrator::dopri5())
//!     .error_control(ErrorControl::absolute(1e-8))
//!     .run()?;
//! assert!(tr.stats.max_phi < 1e-12 && tr.stats.max_phidot < 1e-12);
//! assert_eq!(tr.stats.configuration_corrections, 2 * tr.stats.steps);
//! # Ok::<(), contour_projection::ProjectionError>(())
//! ```
//!
//! **Caching.** The projectors of the velocity filtering at `q_{i+1}` are those of (35) at the
//! next step's `q_i`, so (35) with filtering at the new configuration needs one projector
//! evaluation (Cholesky of `M`, SVD of `Ã`) per step; (36) with two corrections needs three.
//!
//! Files: [`config`] (the options), [`dynamics`] (the forward and inverse dynamics by
//! projection, (26)–(31)), [`filter`] (the per-step configuration correction (35)/(36) and
//! velocity filtering (33)), `method` (the integrated field and the method of the driver).

pub mod config;
pub mod dynamics;
pub mod filter;
mod method;

pub use config::{
    AccelerationSolver, ConfigurationCorrection, CorrectionCount, ProjectorConfig,
    VelocityFiltering,
};
pub use dynamics::ProjectionDynamics;
pub use filter::{ConstraintFilter, CorrectionOutcome};
pub(crate) use method::ProjectorMethod;
