//! # contour-planning — paths, path histories and minimum-time motion
//!
//! Motion planning for a (possibly constrained) manipulator along a prescribed path, after
//! Huang's chapter 4 and section 6.2 (`shared/papers/002_479cea6cee9b2457.txt`).
//!
//! | step | module | Huang |
//! |---|---|---|
//! | paths p = P(s) from lines, arcs, polynomials, each free or in contact | [`path`] | 4.2, (4.2.1)–(4.2.6) |
//! | C² cubic splines through joint waypoints (natural, clamped) | [`spline`] | — |
//! | a tree's end effector along Cartesian lines/arcs (inverse kinematics) | [`tree_kinematics`] | (4.3.2) |
//! | joint paths q = Q(s), B = Q′, B̄ = Q″ (identity or inverse kinematics) | [`joint_path`] | (4.2.2), (4.3.2) |
//! | a tool line of a URDF arm, orientation held (6 joints: IK; more: minimum-norm rates) | [`tree_path`] | (4.3.2) |
//! | construction from boundary / normality / tangency conditions | [`construction`] | 6.2.1, (6.2.5), (6.2.9) |
//! | kinematic histories (constant speed, rest-to-rest cubics) | [`history`] | (4.3.12)–(4.3.21) |
//! | inverse dynamics T(s, ṡ, s̈) with the prescribed contact force | [`dynamics`] | (4.3.5)–(4.3.7) |
//! | acceleration limits h ≤ s̈ ≤ γ, zero-inertia joints | [`limits`] | (4.3.22)–(4.3.32) |
//! | joint velocity / acceleration limits, rows a s̈ + b ṡ² + c ≤ 0 | [`constraints`] | (4.3.2) |
//! | minimum time: phase plane (Bobrow, Shin–McKay) | [`phase_plane`] | 4.3.3, Theorem 4.3.4 |
//! | the solution sampled in time: t, q, q̇, q̈, τ (CSV/JSON) | [`sampling`] | (4.3.2), (4.3.6) |
//! | minimum time: TOPP-RA (reachability on a grid) as a cross-check | [`toppra`] | Pham & Pham 2018 |
//! | the TOPP-RA profile sampled in time | [`toppra_sampling`] | (4.3.2), (4.3.6) |
//!
//! Everything works for any [`contour_model::Mechanism`] with any number of joints: the
//! Cartesian robot of Huang 6.1 is only the example; Huang's section 6.2 is reproduced with
//! this crate by `contour-papers` (see `tables/huang.md`).
//!
//! Design notes:
//!
//! * the phase-plane curves are integrated in x = ṡ² (regular at rest) with `contour-ode`'s
//!   Dormand–Prince 5(4) step under the phase plane's own step control, with event location on
//!   its Hermite interpolant (leaving Ψ, meeting another curve, stalling);
//! * per-state routines ([`PathDynamics::coefficients`], [`AccelerationLimits::bounds`]) work
//!   in buffers allocated once in `new` ([`IkJointPath`] allocates its small LU per call);
//! * a corner of the joint path (B discontinuous) forces ṡ = 0 there, so a whole-path solve of
//!   a path with corners reproduces the piecewise solution of Theorem 4.3.4;
//! * TOPP-RA is an independent algorithm (grid, LPs, no switching points); both agree to
//!   ≈ 1e-4 on every example of the tests.
//!
//! ```text
//! T(s, ṡ, s̈) = M(Q) (B s̈ + B̄ ṡ²) + h(Q, B ṡ) − J_rowᵀ Λ(s) u(s)  = a(s) s̈ + r(s, ṡ)
//! ```

pub mod constraints;
pub mod construction;
pub mod dynamics;
mod error;
pub mod history;
pub mod joint_path;
pub mod limits;
pub mod path;
pub mod phase_plane;
pub mod sampling;
pub mod spline;
pub mod toppra;
pub mod toppra_sampling;
pub mod tree_kinematics;
pub mod tree_path;
pub mod validation;

pub use constraints::{
    FnConstraint, JointAccelerationLimits, JointVelocityLimits, PathConstraint, PathPoint,
};
pub use construction::{ArcConstruction, ConstructedPath, ContourTask, TransitionChecks};
pub use dynamics::{HistorySample, PathDynamics, MAX_HISTORY_SAMPLES};
pub use error::PlanningError;
pub use history::{ConstantSpeedHistory, PathHistory, RestToRestHistory};
pub use joint_path::{CartesianJointPath, IkJointPath, JointPath, Kinematics};
pub use limits::{
    AccelBounds, AccelerationLimits, BoxLimits, FnLimits, NoTorqueLimits, TorqueLimits,
};
pub use path::{ContactForce, Path, Segment, SegmentKind, Shape, MAX_SAMPLES_PER_SEGMENT};
pub use sampling::{sample, sample_at_rate, SampledTrajectory};
pub use spline::{cubic_spline, SplineEnds};
pub use toppra_sampling::sample_toppra_at_rate;
pub use tree_kinematics::{redundant_joint_path, RedundantJointPath, TreePointKinematics};
pub use tree_path::CartesianLine;
