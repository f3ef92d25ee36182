//! Explicit constraints `q = γ(y)` (spatial_v2's `gamma_q`, Featherstone papers/004) as a
//! constraint-handling method: integrate `(q, q̇)` with the accelerations of FDgq
//!
//! ```text
//! (q, q̇, G, gs) = gamma_q(q_o, q̇_o),   gs = Ġẏ + 2/T_stab (q̇ − q̇_o) + 1/T_stab² (q − q_o)
//! Gᵀ H G ÿ = Gᵀ (τ − C − H gs),         q̈ = G ÿ + gs
//! ```
//!
//! ([`contour_model::explicit::ExplicitDynamics`]) with any explicit integrator of the driver,
//! chosen by [`crate::Simulation::explicit`] (the method needs the constraint object `γ`
//! itself, a borrow of user code, which a plain [`crate::Method`] value cannot carry). The
//! mechanism's implicit rows, if any, are ignored (as FDgq ignores them) and the initial state
//! is used as given; the violation history records the explicit constraint's own residuals
//! `‖q − γ(y(q))‖₂` and `‖q̇ − G ẏ‖₂` (the `q_o − q`, `q̇_o − q̇` of `gamma_q`). Multipliers
//! are not computed (`lambda` holds empty vectors).

use contour_model::explicit::{ExplicitConstraint, ExplicitDynamics};
use contour_model::{Mechanism, ModelError};
use contour_ode::{OdeError, OdeRhs, RhsError};
use faer::Mat;

use crate::error::ProjectionError;
use crate::integrator::Integrator;
use crate::method::{ConstraintMethod, MethodStart, Multipliers, RunContext};
use crate::rhs::{first_order_eval, ode_error};
use crate::trajectory::SimulationStats;

/// The FDgq field `(q̇, q̈)`, counting evaluations.
#[derive(Debug)]
pub(crate) struct ExplicitRhs<'m, M: ?Sized, G: ?Sized> {
    mech: &'m M,
    gamma: &'m G,
    dynamics: ExplicitDynamics,
    n: usize,
    evals: usize,
    last_error: Option<ModelError>,
}

impl<M: Mechanism + ?Sized, G: ExplicitConstraint + ?Sized> OdeRhs for ExplicitRhs<'_, M, G> {
    fn dim(&self) -> usize {
        2 * self.n
    }
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        self.evals += 1;
        let (mech, gamma, dynamics) = (self.mech, self.gamma, &mut self.dynamics);
        first_order_eval(self.n, y, dy, &mut self.last_error, |q, qd, qdd| {
            dynamics.accelerations(mech, gamma, t, q, qd, qdd)
        })
    }
}

/// `(‖q_o − γ(y(q_o))‖₂, ‖q̇_o − G ẏ‖₂)` through `gamma_q`, in preallocated storage.
#[derive(Debug)]
struct GammaMonitor {
    q: Vec<f64>,
    qd: Vec<f64>,
    g: Mat<f64>,
    gs: Vec<f64>,
}

impl GammaMonitor {
    fn residuals<G: ExplicitConstraint + ?Sized>(&mut self, gamma: &G, x: &[f64]) -> (f64, f64) {
        let n = self.q.len();
        let (qo, qdo) = x.split_at(n);
        gamma.gamma_q(
            qo,
            qdo,
            &mut self.q,
            &mut self.qd,
            self.g.as_mut(),
            &mut self.gs,
        );
        let d = |a: &[f64], b: &[f64]| {
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y) * (x - y))
                .sum::<f64>()
                .sqrt()
        };
        (d(qo, &self.q), d(qdo, &self.qd))
    }
}

/// FDgq under `q = γ(y)` as a method of the driver.
#[derive(Debug)]
pub(crate) struct ExplicitGamma<'m, M: ?Sized, G: ?Sized> {
    rhs: ExplicitRhs<'m, M, G>,
    monitor: GammaMonitor,
}

impl<'m, M: Mechanism + ?Sized, G: ExplicitConstraint + ?Sized> ExplicitGamma<'m, M, G> {
    /// Refuses the BDF and every set [`contour_model::DynamicsOptions`] option (FDgq solves
    /// no KKT system); allocates the FDgq workspace.
    pub(crate) fn new(
        ctx: &RunContext<'_, 'm, M>,
        gamma: &'m G,
    ) -> Result<MethodStart<Self>, ProjectionError> {
        if let Integrator::Bdf(_) = ctx.integrator {
            return Err(ProjectionError::UnsupportedIntegrator {
                method: "explicit_gamma_q",
                integrator: "bdf",
            });
        }
        const NO_KKT: &str = "FDgq integrates the independent coordinates y of q = gamma(y): no KKT solve, no multipliers";
        crate::method::refuse_unused(
            "explicit_gamma_q",
            &ctx.dynamics,
            &[
                ("method", NO_KKT),
                ("pivot_rtol", NO_KKT),
                ("rank_rtol", NO_KKT),
                ("rank_deficiency", NO_KKT),
                (
                    "baumgarte",
                    "FDgq's stabilization has its own time constant T_stab",
                ),
            ],
        )?;
        let mech = ctx.mech;
        let n = mech.dof();
        let m = gamma.n_independent();
        let rhs = ExplicitRhs {
            mech,
            gamma,
            dynamics: ExplicitDynamics::new(mech, gamma)?,
            n,
            evals: 0,
            last_error: None,
        };
        let monitor = GammaMonitor {
            q: vec![0.0; n],
            qd: vec![0.0; n],
            g: Mat::zeros(n, m),
            gs: vec![0.0; n],
        };
        Ok(MethodStart::on_x(
            Self { rhs, monitor },
            &ctx.x0,
            ctx.error_control,
        ))
    }
}

impl<'m, M: Mechanism + ?Sized, G: ExplicitConstraint + ?Sized> ConstraintMethod<M>
    for ExplicitGamma<'m, M, G>
{
    type Problem = ExplicitRhs<'m, M, G>;

    fn name(&self) -> &'static str {
        "explicit_gamma_q"
    }

    fn problem(&mut self) -> &mut Self::Problem {
        &mut self.rhs
    }

    fn integrator_error(&mut self, e: OdeError) -> ProjectionError {
        ode_error(e, &mut self.rhs.last_error)
    }

    fn violations(&mut self, _t: f64, x: &[f64]) -> Option<(f64, f64)> {
        Some(self.monitor.residuals(self.rhs.gamma, x))
    }

    fn multipliers(&mut self, _t: f64, _x: &[f64]) -> Result<Multipliers<'_>, ProjectionError> {
        Ok(Multipliers::NotComputed)
    }

    fn add_stats(&self, s: &mut SimulationStats) {
        s.f_evals = self.rhs.evals;
    }
}
