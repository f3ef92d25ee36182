//! 3-D contact of kinematic trees ([`contour_model::tree::KinematicTree`], free-flyer bases
//! included) with a ground half-space, after the nonsmooth-mechanics literature (Acary &
//! Brogliato 2008, *Numerical Methods for Nonsmooth Dynamical Systems*, ch. 10).
//!
//! The name says what sets this folder apart from the rest of the crate: the crate's
//! [`crate::dynamics`] and [`crate::simulation`] take unilateral *rows* written by a model
//! (Huang's scheme, planar test models, friction along `−q̇`), while here contact points,
//! frames `(n, t₁, t₂)` and Coulomb cones live in 3-D space and their rows come from the
//! tree's frame Jacobians.
//!
//! * [`geometry`] — [`ContactGeometry`]: spheres on links (boxes as their 8 corners, capsules
//!   as their end spheres), from code or from URDF `<collision>` primitives; [`Ground`], a
//!   half-space `n·x ≥ d` with friction and restitution; signed distances, contact frames and
//!   the normal and tangential Jacobian rows.
//! * [`moreau_jean`] — [`MoreauJean`]: the θ = 1 velocity-level time-stepping scheme, one
//!   LCP per step (Newton restitution, a polyhedral Coulomb cone) solved by
//!   [`crate::lcp::Lemke`], `q ← q ⊕ h v⁺`.

pub mod geometry;
pub mod moreau_jean;

pub use geometry::{ContactGeometry, ContactSphere, Ground};
pub use moreau_jean::{ActiveContact, MoreauJean, MoreauJeanConfig, StepReport};
