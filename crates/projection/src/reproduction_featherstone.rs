//! Featherstone's `planar2g` (papers/004) through the driver: the row
//! `featherstone/planar2g/implicit_vs_explicit`.
//!
//! The same mechanism twice, from rest at `q = 0` for [`PLANAR2G_FINAL_TIME`] under
//! `τ = [1; 0]`:
//!
//! * implicitly, `φ = q₂ − 2 sin q₁` ([`Planar2g`] as a `Mechanism`), with Keerthi's
//!   perturbation approach (Procedure P1);
//! * explicitly, `q = γ(y)`, with FDgq ([`Simulation::explicit`], `T_stab = 0.1`).
//!
//! Both with DOPRI5 at [`PLANAR2G_TAU`] (absolute, l2 norm of `x = (q, q̇)`), outputs every
//! 0.01 s; the row is the largest `‖x_implicit(t) − x_explicit(t)‖₂` over the outputs.

use contour_model::explicit::Planar2g;

use crate::error::ProjectionError;
use crate::perturbation::PerturbationConfig;
use crate::reproduction::dist;
use crate::simulation::{Integrator, Method, Simulation};
use crate::tolerance::ErrorControl;

/// Final time of the comparison \[s\].
pub const PLANAR2G_FINAL_TIME: f64 = 10.0;
/// Tolerance of both runs.
pub const PLANAR2G_TAU: f64 = 1e-10;

/// `max_t ‖x_implicit(t) − x_explicit(t)‖₂` (see the module documentation).
pub fn planar2g_implicit_vs_explicit() -> Result<f64, ProjectionError> {
    planar2g_implicit_vs_explicit_at(PLANAR2G_TAU)
}

/// [`planar2g_implicit_vs_explicit`] at the tolerance `tau`.
pub fn planar2g_implicit_vs_explicit_at(tau: f64) -> Result<f64, ProjectionError> {
    let p = Planar2g::default();
    let grid: Vec<f64> = (0..=1000)
        .map(|i| i as f64 * PLANAR2G_FINAL_TIME / 1000.0)
        .collect();
    let ec = ErrorControl::absolute(tau);
    let imp = Simulation::new(&p, &[0.0; 2], &[0.0; 2], 0.0, PLANAR2G_FINAL_TIME)
        .method(Method::Perturbation(PerturbationConfig::default()))
        .integrator(Integrator::dopri5())
        .error_control(ec)
        .output_times(grid.clone())
        .run()?;
    let exp = Simulation::new(&p, &[0.0; 2], &[0.0; 2], 0.0, PLANAR2G_FINAL_TIME)
        .explicit(&p)
        .integrator(Integrator::dopri5())
        .error_control(ec)
        .output_times(grid)
        .run()?;
    let mut worst = 0.0f64;
    for i in 0..imp.times.len().min(exp.times.len()) {
        let a: Vec<f64> = imp.q[i].iter().chain(&imp.qd[i]).copied().collect();
        let b: Vec<f64> = exp.q[i].iter().chain(&exp.qd[i]).copied().collect();
        worst = worst.max(dist(&a, &b));
    }
    Ok(worst)
}
