//! The direct approach: integrate `ẋ = f(x)` of Keerthi (1.5), with `q̈` from (1.1) + (1.4),
//! and nothing else — Keerthi's "ICS, δ = 0". With Baumgarte's terms (4.3) the same loop
//! integrates the stabilized field ([`crate::baumgarte`]).
//!
//! Nothing keeps `g(x) = (φ, J q̇ + b) = 0` of (1.6): the local errors of the integrator
//! accumulate along the manifold's normal (`φ̈ = 0` is only marginally stable: `φ` drifts
//! like `ε t + δ`, Huang 5.2.4).
//!
//! **Singular passages.** Where `J` drops below the rank it had at the start (a flat
//! four-bar) φ is quadratic along the lost direction `u` (`uᵀφ ≈ κe²/2` for a displacement
//! `e` along `u`): neither (1.4) nor Baumgarte's `αφ̇ + βφ` has a term linear in `e` that
//! restores it, and the sign of the drift left there picks the branch the run continues on.
//! By default ([`PassagePolicy::Stop`]) the first evaluation whose `J` has a numerical rank
//! (the rank-revealing KKT solve's, cut-off `DynamicsOptions::rank_rtol`) below the initial
//! rank ends the run with [`ProjectionError::SingularPassage`]; redundant rows present from
//! `t0` are not a passage. [`PassagePolicy::Continue`] continues through it.

use contour_model::{Baumgarte, ConstrainedDynamics, DynamicsOptions, Mechanism};
use contour_ode::OdeError;
use serde::{Deserialize, Serialize};

use crate::error::ProjectionError;
use crate::method::{ConstraintMethod, MethodStart, RunContext};
use crate::rhs::{ode_error, ConstrainedRhs};
use crate::trajectory::SimulationStats;

/// What the direct and Baumgarte methods do at a singular passage: an evaluation where `J`
/// has a numerical rank below its rank at the initial state (module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PassagePolicy {
    /// End the run with [`ProjectionError::SingularPassage`] (the default): the drift, not
    /// the dynamics, would pick the branch after the passage.
    #[default]
    Stop,
    /// Continue with the unique `q̈` and the minimum-norm λ of the rank-revealing solve. The
    /// run may follow another branch; [`crate::Simulation::energy_tolerance`] turns the energy
    /// jump of a wrong branch into a typed error.
    Continue,
}

/// The direct (or, with Baumgarte's terms, the stabilized) integration of `ẋ = f(x)`.
#[derive(Debug)]
pub(crate) struct Direct<'m, M: ?Sized> {
    rhs: ConstrainedRhs<'m, M>,
    opts: DynamicsOptions,
    /// Numerical rank of `J` at the initial state (the floor of the passage guard).
    initial_rank: usize,
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
        let mut rhs = ConstrainedRhs::new(ctx.mech, opts)?;
        let initial_rank = initial_rank(ctx, opts);
        if ctx.passage_policy == PassagePolicy::Stop {
            rhs.guard_passages(initial_rank);
        }
        let method = Self {
            rhs,
            opts,
            initial_rank,
        };
        Ok(MethodStart::on_x(method, &ctx.x0, ctx.error_control))
    }
}

/// Numerical rank of `J` at the initial state, by one solve of (1.1)+(1.4) in a workspace of
/// its own (the run's counters stay untouched). A failed solve gives the rank of the KKT
/// solver it reached, or L.
fn initial_rank<M: Mechanism + ?Sized>(
    ctx: &RunContext<'_, '_, M>,
    opts: DynamicsOptions,
) -> usize {
    let (n, l) = (ctx.mech.dof(), ctx.mech.n_constraints());
    let Ok(mut d) = ConstrainedDynamics::with_options(ctx.mech, opts) else {
        return l;
    };
    let (mut qdd, mut lambda) = (vec![0.0; n], vec![0.0; l]);
    let (q, qd) = ctx.x0.split_at(n);
    match d.accelerations(ctx.mech, ctx.t0, q, qd, &mut qdd, &mut lambda) {
        Err(contour_model::ModelError::InconsistentAtSingularity { rank, .. }) => rank,
        _ => d.last_rank(),
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
        if let Some((t, rank)) = self.rhs.take_passage() {
            return ProjectionError::SingularPassage {
                t,
                rank,
                rows: self.rhs.mechanism().n_constraints(),
                initial_rank: self.initial_rank,
                method: self.name(),
            };
        }
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
