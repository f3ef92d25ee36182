//! # Contour
//!
//! The facade of the Contour workspace: one dependency that re-exports every crate.
//!
//! * [`linalg`] — dense kernels on faer (Cholesky, skinny QR, pseudo-inverse, weighted
//!   projectors, null space, KKT solves);
//! * [`model`] — the `Mechanism` trait, consistent states, constrained dynamics, the papers'
//!   models;
//! * [`ode`] — integrators (Adams–Bashforth–Moulton, Runge–Kutta–Gill, Dormand–Prince,
//!   variable-order BDF for DAEs, Huang's BDF2, singly-implicit RK), events, statistics;
//! * [`projection`] — the constraint-handling methods behind one `Simulation` driver;
//! * [`planning`] — paths, histories, phase-plane minimum time, TOPP-RA;
//! * [`contact`] — unilateral contact: entry/exit events, impact (LCP, restitution), Coulomb
//!   friction, Huang's scheme and a modern event-located scheme.

pub use contour_contact as contact;
pub use contour_linalg as linalg;
pub use contour_model as model;
pub use contour_ode as ode;
pub use contour_planning as planning;
pub use contour_projection as projection;

/// Commonly used items: `use contour::prelude::*;`.
pub mod prelude {
    pub use contour_linalg::{
        Cholesky, KktMethod, KktSolver, PseudoInverse, SkinnyQr, WeightedProjectors,
    };
    pub use contour_model::{
        consistent_state, ConsistentStateOptions, ConstrainedDynamics, ConstraintKind, Controller,
        DynamicsOptions, Mechanism, WithController,
    };
    pub use contour_ode::{
        integrate, AdamsBashforthMoulton, Advance, DormandPrince54, ErrorNorm, OdeRhs,
        RungeKuttaGill, Stepper, Tolerances,
    };

    pub use contour_projection::{Integrator, Method, Simulation, Trajectory};

    pub use crate::Error;
}

/// Any error of the workspace, wrapping each crate's own error type.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Dense linear algebra (dimensions, definiteness, rank).
    #[error(transparent)]
    Linalg(#[from] contour_linalg::LinalgError),
    /// Model evaluation, constrained dynamics, consistent states.
    #[error(transparent)]
    Model(#[from] contour_model::ModelError),
    /// Integrators.
    #[error(transparent)]
    Ode(#[from] contour_ode::OdeError),
    /// Bilateral constraint handling (simulation driver and methods).
    #[error(transparent)]
    Projection(#[from] contour_projection::ProjectionError),
    /// Unilateral contact, impact and the contact simulator.
    #[error(transparent)]
    Contact(#[from] contour_contact::ContactError),
    /// Path planning and minimum-time parameterization.
    #[error(transparent)]
    Planning(#[from] contour_planning::PlanningError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_convert_into_the_facade_error() {
        let e: Error = contour_linalg::LinalgError::NotPositiveDefinite {
            index: 1,
            pivot: -3.0,
        }
        .into();
        assert!(matches!(e, Error::Linalg(_)));
        assert!(e.to_string().contains("pivot 1"));
        let e: Error = contour_ode::OdeError::StepSizeTooSmall { t: 1.0, h: 1e-16 }.into();
        assert!(matches!(e, Error::Ode(_)));
    }
}
