//! # contour-model
//!
//! Constrained mechanical systems
//!
//! ```text
//! M(q) q̈ + h(q, q̇) = u(t, q, q̇) + J(q)ᵀ λ,    φ(t, q) = 0  (or ≥ 0 for unilateral rows)
//! J = ∂φ/∂q,   φ̇ = J q̇ + b,   φ̈ = J q̈ + ρ
//! ```
//!
//! ## Tour
//!
//! * [`Mechanism`] — the model trait (mass matrix, bias forces, inputs,
//!   constraints, Jacobian, `b`, `ρ`, energies); [`ConstraintKind`];
//!   [`Controller`] and [`WithController`] plug feedback laws into a model.
//! * [`ConstrainedDynamics`] — the index-1 accelerations and multipliers
//!   (Keerthi (1.1) + (1.4), optional Baumgarte terms (4.3)), Huang's contact
//!   force (2.3.1)–(2.3.2), unconstrained accelerations; no allocation per call.
//! * [`consistent_state`] — Gauss–Newton minimum-norm projection of an initial
//!   guess onto `φ = 0`, then the velocity projection onto `J q̇ + b = 0`;
//!   [`check_consistent`] for drivers.
//! * [`models`] — Keerthi's cylindrical robot and control law (4.5), Huang's
//!   Cartesian robot, a pendulum, a slider-crank, a four-bar with a redundant row.
//! * [`validate`] — dimension and finiteness checks; [`ModelError`].
//! * [`testing`] (alias [`fd`]) — finite-difference checks of `J`, `b`, `ρ`,
//!   `M` and the energy balance, usable by later crates' models.
//! * [`spatial`] — 6-D motion and force vectors, Plücker transforms, spatial
//!   inertias (Featherstone's RBDA / spatial_v2 conventions).
//! * [`tree`] — [`tree::KinematicTree`] (joints revolute/prismatic about any
//!   axis, fixed; `M` by CRBA, `h` by RNEA, point kinematics and Jacobians,
//!   spatial_v2's `planar(n)`) and [`tree::ConstrainedTree`] (loop closures:
//!   point at a world point, point to point, weld).
//! * [`explicit`] — explicit constraints `q = γ(y)` (spatial_v2's `gamma_q`),
//!   the forward dynamics FDgq, Featherstone's `planar2g`.
//! * [`urdf`] — a [`tree::KinematicTree`] from a URDF file (quick-xml), and its `<visual>` shapes;
//!   [`models::ssrms_arm`] (Kövecses' 7-joint arm) and [`models::panda_arm`]
//!   ship as `data/*.urdf`.
//!
//! The papers' numbers are reproduced with these models by `contour-papers` (see `tables/`).
//!
//! ## Example
//!
//! ```
//! use contour_model::models::{KeerthiControlLaw, KeerthiRobot, KEERTHI_IC1};
//! use contour_model::{consistent_state, ConsistentStateOptions, ConstrainedDynamics, WithController};
//!
//! // Keerthi's robot driven by the control law (4.5)
//! let robot = WithController::new(KeerthiRobot::default(), KeerthiControlLaw::default());
//! // the printed initial condition violates φ = 0 by 1.2e-4: project it first
//! let ic = consistent_state(&robot, 0.0, &KEERTHI_IC1.q, &KEERTHI_IC1.qd, &ConsistentStateOptions::default())?;
//! assert!(ic.position_residual_after <= 1e-14);
//! // constrained accelerations and multipliers, Keerthi (1.1) + (1.4)
//! let mut dynamics = ConstrainedDynamics::new(&robot);
//! let (mut qdd, mut lambda) = ([0.0; 3], [0.0; 2]);
//! dynamics.accelerations(&robot, 0.0, &ic.q, &ic.qd, &mut qdd, &mut lambda)?;
//! # Ok::<(), contour_model::ModelError>(())
//! ```

pub mod autodiff;
mod consistent;
pub mod csv;
mod dynamics;
mod error;
pub mod explicit;
mod mechanism;
pub mod models;
pub mod pool;
pub mod rng;
pub mod spatial;
mod terms;
pub mod testing;
pub mod tree;
pub mod urdf;
pub mod validate;

pub use consistent::{
    check_consistent, consistent_state, constraint_residuals, ConsistentState,
    ConsistentStateOptions, VelocityMetric,
};
pub use contour_linalg::RankDeficiency;
pub use dynamics::{Baumgarte, ConstrainedDynamics, DynamicsOptions, RESIDUAL_FACTOR};
pub use error::ModelError;
pub use mechanism::{ConstraintKind, Controller, Mechanism, SparsityPattern, WithController};
pub use terms::{ModelTerms, Terms};
/// Finite-difference checks (the [`testing`] module).
pub use testing as fd;
