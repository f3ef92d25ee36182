//! The direct approach: integrate `ẋ = f(x)` of Keerthi (1.5), with `q̈` from (1.1) + (1.4),
//! and nothing else — Keerthi's "ICS, δ = 0". With Baumgarte's terms (4.3) the same loop
//! integrates the stabilized field ([`crate::baumgarte`]).
//!
//! Nothing keeps `g(x) = (φ, J q̇ + b) = 0` of (1.6): the local errors of the integrator
//! accumulate along the manifold's normal (`φ̈ = 0` is only marginally stable: `φ` drifts
//! like `ε t + δ`, Huang 5.2.4).

use contour_model::{Baumgarte, ConstrainedDynamics, DynamicsOptions, Mechanism};
use contour_ode::OdeError;

use crate::error::ProjectionError;
use crate::method::{ConstraintMethod, MethodStart, RunContext};
use crate::rhs::{ode_error, ConstrainedRhs};
use crate::trajectory::SimulationStats;

/// The direct (or, with Baumgarte's terms, the stabilized) integration of `ẋ = f(x)`.
#[derive(Debug)]
pub(crate) struct Direct<'m, M: ?Sized> {
    rhs: ConstrainedRhs<'m, M>,
    opts: DynamicsOptions,
}

impl<'m, M: Mechanism + ?Sized> Direct<'m, M> {
    /// Keerthi (1.5), or with `baumgarte` the field of (4.3).
    pub(crate) fn new(
        ctx: &RunContext<'_, 'm, M>,
        baumgarte: Option<Baumgarte>,
    ) -> Result<MethodStart<Self>, ProjectionError> {
        let opts = DynamicsOptions {
            baumgarte,
            ..ctx.dynamics
        };
        let method = Self {
            rhs: ConstrainedRhs::new(ctx.mech, opts)?,
            opts,
        };
        Ok(MethodStart::on_x(method, &ctx.x0, ctx.error_control))
    }
}

impl<'m, M: Mechanism + ?Sized> ConstraintMethod<M> for Direct<'m, M> {
    type Problem = ConstrainedRhs<'m, M>;

    fn name(&self) -> &'static str {
        if self.opts.baumgarte.is_some() {
            "baumgarte"
        } else {
            "direct"
        }
    }

    fn problem(&mut self) -> &mut Self::Problem {
        &mut self.rhs
    }

    fn integrator_error(&mut self, e: OdeError) -> ProjectionError {
        ode_error(e, &mut self.rhs.last_error)
    }

    fn output_dynamics(&self) -> DynamicsOptions {
        self.opts
    }

    fn kkt_dynamics(&mut self) -> Option<&mut ConstrainedDynamics> {
        Some(self.rhs.dynamics_mut())
    }

    fn add_stats(&self, s: &mut SimulationStats) {
        s.f_evals = self.rhs.evals;
        s.rank_revealing_evals = self.rhs.rank_revealing_solves();
    }
}
