//! The projector method as a method of the driver: the field `(q̇, q̈)` with `q̈` from
//! (29)–(31) (or the KKT system (9)), and after every accepted step the correction and
//! filtering of [`super::filter`] (`replace_y`).

use contour_model::{DynamicsOptions, Mechanism, ModelError};
use contour_ode::{OdeError, OdeRhs, RhsError};

use super::config::{AccelerationSolver, ProjectorConfig};
use super::dynamics::ProjectionDynamics;
use super::filter::ConstraintFilter;
use crate::error::ProjectionError;
use crate::method::{Accepted, AfterStep, ConstraintMethod, MethodStart, Multipliers, RunContext};
use crate::rhs::{first_order_eval, ode_error, ConstrainedRhs};
use crate::trajectory::SimulationStats;

/// The integrated field of the projector method: `(q̇, q̈)` with `q̈` from (29)–(31) or (9).
#[derive(Debug)]
pub(crate) struct ProjectorRhs<'m, M: ?Sized> {
    mech: &'m M,
    n: usize,
    kind: RhsKind<'m, M>,
    lambda: Vec<f64>,
    pub evals: usize,
    pub last_error: Option<ModelError>,
}

#[derive(Debug)]
enum RhsKind<'m, M: ?Sized> {
    Projection(ProjectionDynamics),
    Lagrange(ConstrainedRhs<'m, M>),
}

impl<'m, M: Mechanism + ?Sized> ProjectorRhs<'m, M> {
    pub(crate) fn new(
        mech: &'m M,
        cfg: &ProjectorConfig,
        dynamics: DynamicsOptions,
    ) -> Result<Self, ProjectionError> {
        let (n, l) = (mech.dof(), mech.n_constraints());
        let kind = match cfg.acceleration {
            AccelerationSolver::Projection => {
                RhsKind::Projection(ProjectionDynamics::new(mech, cfg.rank_rtol)?)
            }
            AccelerationSolver::Lagrange => RhsKind::Lagrange(ConstrainedRhs::new(mech, dynamics)?),
        };
        Ok(Self {
            mech,
            n,
            kind,
            lambda: vec![0.0; l],
            evals: 0,
            last_error: None,
        })
    }

    fn take_error(&mut self) -> Option<ModelError> {
        match &mut self.kind {
            RhsKind::Lagrange(r) => r.last_error.take().or(self.last_error.take()),
            RhsKind::Projection(_) => self.last_error.take(),
        }
    }
}

impl<M: Mechanism + ?Sized> OdeRhs for ProjectorRhs<'_, M> {
    fn dim(&self) -> usize {
        2 * self.n
    }
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        self.evals += 1;
        match &mut self.kind {
            RhsKind::Lagrange(r) => r.eval_counted(t, y, dy),
            RhsKind::Projection(d) => {
                let (mech, lambda) = (self.mech, &mut self.lambda);
                first_order_eval(self.n, y, dy, &mut self.last_error, |q, qd, qdd| {
                    d.accelerations(mech, t, q, qd, qdd, lambda)
                })
            }
        }
    }
}

/// Kövecses & Piedbœuf's projector method as a method of the driver.
#[derive(Debug)]
pub(crate) struct ProjectorMethod<'m, M: ?Sized> {
    mech: &'m M,
    rhs: ProjectorRhs<'m, M>,
    cfg: ProjectorConfig,
    /// The per-step correction and filtering.
    filter: ConstraintFilter,
    /// The same for interpolated outputs (`corrected_output`).
    out_filter: ConstraintFilter,
    /// λ of the outputs, (29)–(31).
    out_dyn: ProjectionDynamics,
    qdd: Vec<f64>,
    lambda: Vec<f64>,
}

impl<'m, M: Mechanism + ?Sized> ProjectorMethod<'m, M> {
    /// Validates `cfg` and allocates every workspace.
    pub(crate) fn new(
        ctx: &RunContext<'_, 'm, M>,
        cfg: &ProjectorConfig,
    ) -> Result<MethodStart<Self>, ProjectionError> {
        cfg.validate()?;
        if cfg.acceleration == AccelerationSolver::Projection {
            const BY_PROJECTION: &str = "the accelerations (29)-(31) solve no KKT system (AccelerationSolver::Lagrange does)";
            crate::method::refuse_unused(
                "projector",
                &ctx.dynamics,
                &[
                    ("method", BY_PROJECTION),
                    ("pivot_rtol", BY_PROJECTION),
                    ("rank_rtol", "its rank cut-off is ProjectorConfig::rank_rtol"),
                    (
                        "rank_deficiency",
                        "(29)-(31) give the minimum-norm multipliers at every rank (AccelerationSolver::Lagrange honours RankDeficiency::Error)",
                    ),
                    (
                        "baumgarte",
                        "(29)-(31) have no Baumgarte terms; the correction (35)/(36) and filtering (33) keep the state on the constraints",
                    ),
                ],
            )?;
        }
        let mech = ctx.mech;
        let (n, l) = (mech.dof(), mech.n_constraints());
        let mut filter = ConstraintFilter::new(mech, cfg)?;
        filter.set_previous(ctx.t0, &ctx.x0)?;
        let method = Self {
            mech,
            rhs: ProjectorRhs::new(mech, cfg, ctx.dynamics)?,
            cfg: *cfg,
            filter,
            out_filter: ConstraintFilter::new(mech, cfg)?,
            out_dyn: ProjectionDynamics::new(mech, cfg.rank_rtol)?,
            qdd: vec![0.0; n],
            lambda: vec![0.0; l],
        };
        Ok(MethodStart::on_x(method, &ctx.x0, ctx.error_control))
    }
}

impl<'m, M: Mechanism + ?Sized> ConstraintMethod<M> for ProjectorMethod<'m, M> {
    type Problem = ProjectorRhs<'m, M>;

    fn name(&self) -> &'static str {
        "projector"
    }

    fn problem(&mut self) -> &mut Self::Problem {
        &mut self.rhs
    }

    fn integrator_error(&mut self, e: OdeError) -> ProjectionError {
        let mut last = self.rhs.take_error();
        ode_error(e, &mut last)
    }

    /// Kövecses (35)/(36), then (33), on the accepted state.
    fn after_step(
        &mut self,
        t: f64,
        _h: f64,
        y: &[f64],
        y_new: &mut [f64],
    ) -> Result<AfterStep, ProjectionError> {
        y_new.copy_from_slice(y);
        self.filter.apply(self.mech, t, y_new)?;
        Ok(AfterStep::Replace)
    }

    fn output_state(
        &mut self,
        last: Accepted<'_>,
        t: f64,
        y: &[f64],
        x: &mut [f64],
    ) -> Result<(), ProjectionError> {
        x.copy_from_slice(y);
        if self.cfg.corrected_output {
            self.out_filter.set_previous(last.t, last.x)?;
            self.out_filter.apply(self.mech, t, x)?;
        }
        Ok(())
    }

    /// The minimum-norm λ of (29)–(31) (valid for redundant constraints).
    fn multipliers(&mut self, t: f64, x: &[f64]) -> Result<Multipliers<'_>, ProjectionError> {
        let n = self.qdd.len();
        self.out_dyn.accelerations(
            self.mech,
            t,
            &x[..n],
            &x[n..],
            &mut self.qdd,
            &mut self.lambda,
        )?;
        Ok(Multipliers::Given(&self.lambda))
    }

    fn add_stats(&self, s: &mut SimulationStats) {
        s.f_evals = self.rhs.evals;
        s.velocity_filterings = self.filter.filterings;
        s.configuration_corrections = self.filter.corrections;
        s.projector_evaluations = self.filter.projector_evaluations;
    }
}
