//! # contour-contact — unilateral constraints, impact, entry and exit
//!
//! Mechanisms whose constraint rows are unilateral (φ ≥ 0, λ ≥ 0, λφ = 0), after Huang's
//! chapters 3 and 5 (`shared/papers/002_479cea6cee9b2457.txt`). A tour:
//!
//! * [`dynamics`] — [`ContactDynamics`]: accelerations and contact forces with a chosen set of
//!   active rows (Huang (2.3.1)–(2.3.2)), Coulomb friction (6.3.4), Huang's index-1 residual with
//!   Baumgarte terms (6.3.2), the impact law (3.3.8)–(3.3.9) by (5.3.12)–(5.3.14) (an LCP with
//!   restitution for several rows), the M-metric projection onto the active rows.
//! * [`lcp`] — the linear complementarity problem `w = A z + b ≥ 0, z ≥ 0, zᵀw = 0` solved
//!   exactly by enumeration for small sizes (typed error when it has no solution).
//! * [`simulation`] — the main program (Fig. 5.3.3): procedures MSU / MSC, entry by event
//!   location or Huang's interpolation (5.3.6)–(5.3.10), exit on λ = 0 or Huang's Taylor
//!   prediction, tangency (3.3.13) reported, the modern and Huang's schemes, restitution,
//!   stick–slip, Zeno accumulation → persistent contact. Result: [`ContactTrajectory`], the
//!   workspace's one result type [`contour_trajectory::Trajectory`] (outputs and [`Event`]s:
//!   time, kind, row, impulse; written as JSON or CSV) with the contact counters
//!   [`ContactStats`] beside it (it dereferences to the trajectory).
//! * [`lcp::Lemke`] — the same problem of any size by Lemke's complementary pivoting.
//! * [`spatial_contact`] — 3-D contact of kinematic trees (free-flyer robots) with the ground:
//!   contact spheres on links and from URDF `<collision>`, contact frames and Jacobian rows,
//!   Moreau–Jean time-stepping with a polyhedral Coulomb cone solved by Lemke's method.
//! * [`test_models`] — a ball on a floor, a pendulum against a wall, a bar on two supports.
//!
//! Huang's contour-following simulations I–III (section 6.3) are reproduced with this crate by
//! `contour-papers` (see `tables/huang.md`); `cargo run -p contour-papers --example
//! huang_events` prints the event table of simulation II under both schemes.
//!
//! ```
//! use contour_contact::test_models::BouncingBall;
//! use contour_contact::{simulate, ContactConfig, EventKind, Scheme};
//! let mut cfg = ContactConfig::new(1.0, Scheme::default());
//! cfg.restitution = 0.5;
//! let tr = simulate(&BouncingBall::default(), 0.0, &[1.0], &[0.0], cfg)?;
//! let first = tr.events_of(EventKind::Impact).next().unwrap();
//! assert!((first.t - (2.0f64 / 9.81).sqrt()).abs() < 1e-9);
//! # Ok::<(), contour_contact::ContactError>(())
//! ```

pub mod dynamics;
pub mod error;
pub mod lcp;
pub mod simulation;
pub mod spatial_contact;
pub mod test_models;

pub use dynamics::{ContactDynamics, FrictionMode};
pub use error::ContactError;
pub use lcp::{Lcp, Lemke, LCP_MAX_SIZE};
pub use simulation::{
    simulate, ContactConfig, ContactEvent, ContactStats, ContactTrajectory, EntryLocation, Event,
    EventKind, ExitCriterion, HuangSchemeConfig, ModernConfig, Scheme, Simulator, MAX_FORCED_STEPS,
    MAX_OUTPUTS,
};
