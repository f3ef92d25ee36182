//! The direct approach: integrate `ẋ = f(x)` of Keerthi (1.5), with `q̈` from (1.1) + (1.4),
//! and nothing else — Keerthi's "ICS, δ = 0". With Baumgarte's terms (4.3) the same loop
//! integrates the stabilized field ([`crate::baumgarte`]).
//!
//! Nothing keeps `g(x) = (φ, J q̇ + b) = 0` of (1.6): the local errors of the integrator
//! accumulate along the manifold's normal (`φ̈ = 0` is only marginally stable: `φ` drifts
//! like `ε t + δ`, Huang 5.2.4).
//!
//!
//! Where `J` drops below the rank it had at the start, the guard of [`crate::passage`]
//! ([`PassagePolicy::Stop`] by default) ends the run instead of letting the drift pick the
//! branch.

use contour_model::{Baumgarte, ConstrainedDynamics, DynamicsOptions, Mechanism};
use contour_ode::OdeError;

use crate::error::ProjectionError;
use crate::method::{AfterStep, ConstraintMethod, MethodStart, RunContext};
use crate::passage::{BranchCheck, PassagePolicy, StallCheck};
use crate::rhs::{ode_error, ConstrainedRhs};
use crate::trajectory::SimulationStats;

/// The direct (or, with Baumgarte's terms, the stabilized) integration of `ẋ = f(x)`.
#[derive(Debug)]
pub(crate) struct Direct<'m, M: ?Sized> {
    rhs: ConstrainedRhs<'m, M>,
    opts: DynamicsOptions,
    /// Numerical rank of `J` at the initial state (the floor of the passage guard).
    initial_rank: usize,
    /// The per-step ambiguous-branch check ([`PassagePolicy::Stop`] only).
    branch: Option<BranchCheck>,
    /// The per-step stall check ([`PassagePolicy::Stop`] only, and only where `J` starts
    /// outside the passage band).
    stall: Option<StallCheck>,
}

impl<'m, M: Mechanism + ?Sized> Direct<'m, M> {
    /// Keerthi (1.5), or with `baumgarte` the field of (4.3).
    pub(crate) fn new(
        ctx: &RunContext<'_, 'm, M>,
        baumgarte: Option<Baumgarte>,
        passage_policy: PassagePolicy,
    ) -> Result<MethodStart<Self>, ProjectionError> {
        let name = if baumgarte.is_some() {
            "baumgarte"
        } else {
            "direct"
        };
        crate::method::refuse_unused(
            name,
            &ctx.dynamics,
            &[(
                "baumgarte",
                "the Baumgarte terms are Method::Baumgarte's gains (Method::Direct has none)",
            )],
        )?;
        let opts = DynamicsOptions {
            baumgarte,
            ..ctx.dynamics
        };
        let mut rhs = ConstrainedRhs::new(ctx.mech, opts)?;
        let initial_rank = initial_rank(ctx, opts);
        if passage_policy == PassagePolicy::Stop {
            rhs.guard_passages(initial_rank);
        }
        let branch = (passage_policy == PassagePolicy::Stop)
            .then(|| BranchCheck::new(ctx.mech.dof(), ctx.mech.n_constraints()));
        let stall = if passage_policy == PassagePolicy::Stop {
            let n = ctx.mech.dof();
            StallCheck::new(ctx.mech, ctx.t0, &ctx.x0[..n], initial_rank)
        } else {
            None
        };
        let method = Self {
            rhs,
            opts,
            initial_rank,
            branch,
            stall,
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

    fn after_step(
        &mut self,
        t: f64,
        h: f64,
        y: &[f64],
        _y_new: &mut [f64],
    ) -> Result<AfterStep, ProjectionError> {
        if let Some(check) = self.stall.as_mut() {
            let mech = self.rhs.mechanism();
            if let Some(sigma_ratio) = check.stalls(mech, t, h, &y[..mech.dof()]) {
                return Err(ProjectionError::StalledPassage {
                    t,
                    h,
                    sigma_ratio,
                    method: self.name(),
                });
            }
        }
        if let Some(check) = self.branch.as_mut() {
            let mech = self.rhs.mechanism();
            let n = mech.dof();
            if let Some((drift, contraction)) = check.ambiguous(mech, t, &y[..n])? {
                return Err(ProjectionError::AmbiguousBranch {
                    t,
                    drift,
                    contraction,
                    method: self.name(),
                });
            }
        }
        Ok(AfterStep::Keep)
    }

    fn kkt_dynamics(&mut self) -> Option<&mut ConstrainedDynamics> {
        Some(self.rhs.dynamics_mut())
    }

    fn add_stats(&self, s: &mut SimulationStats) {
        s.f_evals = self.rhs.evals;
        s.rank_revealing_evals = self.rhs.rank_revealing_solves();
    }
}
