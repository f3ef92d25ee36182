//! Procedure P1 as a [`ConstraintMethod`]: the counted right-hand side (with the projection
//! before the final evaluation of PECE) and the after-step correction or redo.

use contour_linalg::DEFAULT_KKT_RANK_RTOL;
use contour_model::{ConstrainedDynamics, Mechanism};
use contour_ode::{OdeError, OdeRhs, RhsError};

use crate::error::ProjectionError;
use crate::integrator::Integrator;
use crate::method::{
    jacobian_rank, Accepted, AfterStep, ConstraintMethod, MethodStart, Multipliers, RunContext,
};
use crate::rhs::{ode_error, ConstrainedRhs};
use crate::trajectory::SimulationStats;

use super::config::PerturbationConfig;
use super::correction::{ManifoldProjection, ProjectionOutcome, ROUNDOFF_RANK_RTOL};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Pending {
    None,
    Projected(ProjectionOutcome),
    Refused(ProjectionOutcome),
    Failed,
}

/// Right-hand side of P1: counts `N_f`, and with `before_final` projects at the corrector's
/// evaluation (see the module documentation).
#[derive(Debug)]
pub(crate) struct PertRhs<'m, M: ?Sized> {
    inner: ConstrainedRhs<'m, M>,
    proj: ManifoldProjection,
    before_final: bool,
    accept: f64,
    last_t: f64,
    cache_valid: bool,
    cache_t: f64,
    cache_x: Vec<f64>,
    cache_f: Vec<f64>,
    pending: Pending,
    error: Option<ProjectionError>,
    /// The sparse path ([`crate::sparse`]), when the run uses it.
    sparse_dyn: Option<super::sparse::SparseDynamics>,
    sparse_proj: Option<super::sparse::SparseProjection>,
}

impl<M: Mechanism + ?Sized> OdeRhs for PertRhs<'_, M> {
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        if self.cache_valid && t == self.cache_t && y == &self.cache_x[..] {
            self.cache_valid = false;
            dy.copy_from_slice(&self.cache_f);
            return Ok(());
        }
        self.cache_valid = false;
        let second = self.before_final && t == self.last_t;
        self.last_t = t;
        if second {
            let mech = self.inner.mechanism();
            let sparse = self.sparse_proj.as_mut();
            match super::sparse::project(&mut self.proj, sparse, mech, t, y, &mut self.cache_x) {
                Ok(o) if o.converged && o.norm <= self.accept => {
                    let sparse = self.sparse_dyn.as_mut();
                    let (x, f) = (&self.cache_x, &mut self.cache_f);
                    super::sparse::eval_counted(&mut self.inner, sparse, t, x, f)?;
                    dy.copy_from_slice(&self.cache_f);
                    self.cache_t = t;
                    self.cache_valid = true;
                    self.pending = Pending::Projected(o);
                    return Ok(());
                }
                Ok(o) => self.pending = Pending::Refused(o),
                Err(e) => {
                    self.error = Some(e);
                    self.pending = Pending::Failed;
                }
            }
        }
        super::sparse::eval_counted(&mut self.inner, self.sparse_dyn.as_mut(), t, y, dy)
    }
}

/// Procedure P1 (Keerthi section 2) as a method of the driver.
#[derive(Debug)]
pub(crate) struct Perturbation<'m, M: ?Sized> {
    rhs: PertRhs<'m, M>,
    /// The correction of interpolated outputs (Remark 2.2).
    out_proj: ManifoldProjection,
    out_sparse: Option<super::sparse::SparseProjection>,
    mech: &'m M,
    cfg: PerturbationConfig,
    /// Step halvings of the current step.
    redos: usize,
    redone: usize,
}

impl<'m, M: Mechanism + ?Sized> Perturbation<'m, M> {
    /// Validates `cfg`; the integrator runs at τ/2 (2.2).
    pub(crate) fn new(
        ctx: &RunContext<'_, 'm, M>,
        cfg: &PerturbationConfig,
    ) -> Result<MethodStart<Self>, ProjectionError> {
        cfg.validate()?;
        let mech = ctx.mech;
        let n2 = ctx.x0.len();
        let before_final =
            cfg.project_before_final_evaluation && matches!(ctx.integrator, Integrator::Abm(_));
        let pattern = cfg.sparse.pattern(mech);
        if let Some(p) = &pattern {
            // a pattern that omits real entries would make every sparse solve wrong (the run
            // ends much later with "too many steps"): checked once, at the initial state
            p.verify(mech, ctx.t0, &ctx.x0[..mech.dof()])?;
        }
        // the rank cut-off and policy of the constrained dynamics (module docs); with the
        // round-off filter an unset cut-off is ROUNDOFF_RANK_RTOL, for the correction and the
        // evaluations alike
        let mut dynamics = ctx.dynamics;
        if cfg.roundoff_filter && dynamics.rank_rtol.is_none() {
            dynamics.rank_rtol = Some(ROUNDOFF_RANK_RTOL);
        }
        let rank_rtol = dynamics.rank_rtol.unwrap_or(DEFAULT_KKT_RANK_RTOL);
        let n = mech.dof();
        if mech.n_constraints() >= n {
            // rows, not rank: L ≥ N redundant rows leave N − r free coordinates
            jacobian_rank("perturbation", mech, ctx.t0, &ctx.x0[..n], rank_rtol)?;
        }
        let sparse_proj = |p: &contour_model::SparsityPattern| {
            let mut sp = super::sparse::SparseProjection::new(mech, p, ctx.error_control, cfg)?;
            sp.set_rank_rtol(rank_rtol)?;
            Ok::<_, ProjectionError>(sp)
        };
        let policy = dynamics.rank_deficiency;
        let projection = || -> Result<ManifoldProjection, ProjectionError> {
            let mut p = ManifoldProjection::new(mech, ctx.error_control, cfg)?;
            p.set_rank(rank_rtol, policy)?;
            Ok(p)
        };
        let rhs = PertRhs {
            inner: ConstrainedRhs::new(mech, dynamics)?,
            proj: projection()?,
            before_final,
            accept: cfg.accept_factor,
            last_t: f64::NAN,
            cache_valid: false,
            cache_t: f64::NAN,
            cache_x: vec![0.0; n2],
            cache_f: vec![0.0; n2],
            pending: Pending::None,
            error: None,
            sparse_dyn: match &pattern {
                Some(p) => Some(super::sparse::SparseDynamics::new(mech, p)?),
                None => None,
            },
            sparse_proj: pattern.as_ref().map(sparse_proj).transpose()?,
        };
        let method = Self {
            rhs,
            out_proj: projection()?.for_outputs(),
            out_sparse: pattern
                .as_ref()
                .map(sparse_proj)
                .transpose()?
                .map(super::sparse::SparseProjection::for_outputs),
            mech,
            cfg: *cfg,
            redos: 0,
            redone: 0,
        };
        // Keerthi (2.2): step 1 with tolerance τ/2.
        let ec = ctx.error_control.scaled(cfg.step_tolerance_factor);
        Ok(MethodStart::on_x(method, &ctx.x0, ec))
    }
}

impl<'m, M: Mechanism + ?Sized> ConstraintMethod<M> for Perturbation<'m, M> {
    type Problem = PertRhs<'m, M>;

    fn name(&self) -> &'static str {
        "perturbation"
    }

    fn problem(&mut self) -> &mut Self::Problem {
        &mut self.rhs
    }

    fn kkt_dynamics(&mut self) -> Option<&mut ConstrainedDynamics> {
        Some(self.rhs.inner.dynamics_mut())
    }

    fn integrator_error(&mut self, e: OdeError) -> ProjectionError {
        ode_error(e, &mut self.rhs.inner.last_error)
    }

    fn before_step(&mut self) {
        self.rhs.pending = Pending::None;
        // No detection on the evaluations of replace_y and restarts.
        self.rhs.last_t = f64::NAN;
    }

    /// Step 2 of P1: the correction (2.3) (already done before the final evaluation with
    /// ABM), accepted when `‖X*‖ ≤ τ/2` (Remark 2.5), else the step is redone at half size.
    fn after_step(
        &mut self,
        t: f64,
        h: f64,
        y: &[f64],
        y_new: &mut [f64],
    ) -> Result<AfterStep, ProjectionError> {
        let outcome =
            match self.rhs.pending {
                Pending::Projected(o) => {
                    y_new.copy_from_slice(&self.rhs.cache_x);
                    o
                }
                Pending::Refused(o) => o,
                Pending::Failed => {
                    return Err(self.rhs.error.take().unwrap_or(
                        ProjectionError::ProjectionFailed {
                            t,
                            redos: self.redos,
                            norm: f64::NAN,
                        },
                    ))
                }
                Pending::None => {
                    // No detection on replace_y's evaluation of the already corrected point.
                    self.rhs.last_t = f64::NAN;
                    let sparse = self.rhs.sparse_proj.as_mut();
                    super::sparse::project(&mut self.rhs.proj, sparse, self.mech, t, y, y_new)?
                }
            };
        // Remark 2.5: accept when ‖X*‖ ≤ τ/2.
        if outcome.converged && outcome.norm <= self.cfg.accept_factor {
            self.redos = 0;
            return Ok(AfterStep::Replace);
        }
        self.redos += 1;
        if self.redos > self.cfg.max_redos {
            return Err(ProjectionError::ProjectionFailed {
                t,
                redos: self.redos - 1,
                norm: outcome.norm,
            });
        }
        self.redone += 1;
        Ok(AfterStep::Redo { max_step: 0.5 * h })
    }

    fn output_state(
        &mut self,
        _last: Accepted<'_>,
        t: f64,
        y: &[f64],
        x: &mut [f64],
    ) -> Result<(), ProjectionError> {
        if self.cfg.projected_output {
            // Remark 2.2: the projected interpolant.
            let sparse = self.out_sparse.as_mut();
            super::sparse::project(&mut self.out_proj, sparse, self.mech, t, y, x)?;
        } else {
            x.copy_from_slice(y);
        }
        Ok(())
    }

    fn multipliers(&mut self, t: f64, x: &[f64]) -> Result<Multipliers<'_>, ProjectionError> {
        super::sparse::multipliers(self.rhs.sparse_dyn.as_mut(), self.mech, t, x)
    }

    fn violations(&mut self, t: f64, x: &[f64]) -> Option<(f64, f64)> {
        self.out_sparse
            .as_mut()
            .map(|sp| sp.violations(self.mech, t, x))
    }

    fn add_stats(&self, s: &mut SimulationStats) {
        s.f_evals = self.rhs.inner.evals;
        s.rank_revealing_evals = self.rhs.inner.rank_revealing_solves();
        s.projections = self.rhs.proj.projections;
        s.projection_iterations = self.rhs.proj.iterations;
        s.qr_factorizations = self.rhs.proj.qr_factorizations;
        super::sparse::add_stats(
            s,
            self.rhs.sparse_dyn.as_ref(),
            self.rhs.sparse_proj.as_ref(),
        );
        s.redone_steps = self.redone;
        s.restarts = self.redone;
    }
}
