//! The direct approach: integrate `ẋ = f(x)` of Keerthi (1.5), with `q̈` from (1.1) + (1.4),
//! and nothing else — Keerthi's "ICS, δ = 0". With Baumgarte's terms (4.3) the same loop
//! integrates the stabilized field ([`crate::baumgarte`]).
//!
//! Nothing keeps `g(x) = (φ, J q̇ + b) = 0` of (1.6): the local errors of the integrator
//! accumulate along the manifold's normal (`φ̈ = 0` is only marginally stable: `φ` drifts
//! like `ε t + δ`, Huang 5.2.4).

use contour_model::{Baumgarte, DynamicsOptions, Mechanism};
use contour_ode::Advance;

use crate::error::ProjectionError;
use crate::rhs::{ode_error, ConstrainedRhs};
use crate::simulation::{with_stepper, RunContext};
use crate::trajectory::{Recorder, Trajectory};

/// Runs the direct (or, with `baumgarte`, the Baumgarte-stabilized) integration.
pub(crate) fn run<M: Mechanism + ?Sized>(
    ctx: &RunContext<'_, '_, M>,
    baumgarte: Option<Baumgarte>,
) -> Result<Trajectory, ProjectionError> {
    let opts = DynamicsOptions {
        baumgarte,
        ..Default::default()
    };
    let name = if baumgarte.is_some() {
        "baumgarte"
    } else {
        "direct"
    };
    let n2 = ctx.x0.len();
    let tol = ctx.error_control.to_ode(n2);
    with_stepper!(ctx.integrator, ctx.t0, &ctx.x0, tol, |s| integrate(
        ctx, &mut s, opts, name
    ))
}

/// The loop shared by Direct and Baumgarte: one accepted step per call, violations recorded.
pub(crate) fn integrate<'m, M, S>(
    ctx: &RunContext<'_, 'm, M>,
    stepper: &mut S,
    opts: DynamicsOptions,
    name: &str,
) -> Result<Trajectory, ProjectionError>
where
    M: Mechanism + ?Sized,
    S: Advance<ConstrainedRhs<'m, M>>,
{
    let mech = ctx.mech;
    let mut rhs = ConstrainedRhs::new(mech, opts)?;
    let mut rec = Recorder::new(mech, name, ctx.integrator.name(), ctx.output_times, opts)?;
    rec.start(mech, ctx.t0, &ctx.x0)?;
    let mut buf = vec![0.0; ctx.x0.len()];
    stepper.set_t_stop(Some(ctx.t_end));
    let mut steps = 0usize;
    while stepper.t() < ctx.t_end {
        if steps >= ctx.max_steps {
            return Err(ProjectionError::TooManySteps {
                t: stepper.t(),
                max_steps: ctx.max_steps,
            });
        }
        let info = stepper
            .step(&mut rhs)
            .map_err(|e| ode_error(e, &mut rhs.last_error))?;
        steps += 1;
        rec.step(mech, info.t, stepper.y());
        while let Some(to) = rec.next_output(info.t) {
            stepper.dense(to, &mut buf);
            rec.output(mech, to, &buf)?;
        }
        if rec.every_step() {
            rec.output(mech, info.t, stepper.y())?;
        }
    }
    let st = *stepper.stats();
    crate::trajectory::implicit_stats(&mut rec.traj.stats, &st, ctx.x0.len());
    rec.traj.stats.rejected_steps = st.rejected_steps;
    rec.traj.stats.integrator_f_calls = st.f_evals;
    rec.traj.stats.f_evals = rhs.evals;
    Ok(rec.finish(stepper.y()))
}
