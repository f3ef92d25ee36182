//! Source `featherstone`: Featherstone's `planar2g` example (papers/004), the explicit
//! constraint `q₂ = 2 sin q₁` with FDgq (rows `featherstone/planar2g/*`).
//!
//! * [`integrate_planar2g`]: FDgq integrated with a fixed-step fourth-order Runge–Kutta
//!   (contour-ode's [`RungeKuttaGill`] in constant-step mode) on `(q, q̇)`, as the paper's
//!   Simulink run does on the raw state `(q_o, q̇_o)`: the energy balance and the constraint
//!   residual.
//! * [`planar2g_implicit_vs_explicit`]: the same mechanism twice, from rest at `q = 0` for
//!   [`PLANAR2G_FINAL_TIME`] under `τ = [1; 0]` — implicitly, `φ = q₂ − 2 sin q₁`
//!   ([`Planar2g`] as a `Mechanism`), with Keerthi's perturbation approach (Procedure P1), and
//!   explicitly, `q = γ(y)`, with FDgq ([`Simulation::explicit`], `T_stab = 0.1`) — both with
//!   DOPRI5 at [`PLANAR2G_TAU`] (absolute, l2 norm of `x = (q, q̇)`), outputs every 0.01 s;
//!   the row is the largest `‖x_implicit(t) − x_explicit(t)‖₂` over the outputs.

use contour::model::explicit::ExplicitDynamics;
use contour::model::models::Planar2g;
use contour::model::Mechanism;
use contour::ode::{
    Advance, FnRhs, GillMode, RungeKuttaGill, RungeKuttaGillConfig, Stepper, Tolerances,
};
use contour::projection::{ErrorControl, Integrator, Method, PerturbationConfig, Simulation};

use crate::keerthi::dist;
use crate::{BoxError, Row, SourceOutput, SourceResult, Tolerance};

/// End state of an FDgq run of [`Planar2g`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Planar2gRun {
    /// Final time T \[s\].
    pub t_end: f64,
    /// Number of steps.
    pub steps: usize,
    /// `q(T)`.
    pub q: [f64; 2],
    /// `q̇(T)`.
    pub qd: [f64; 2],
    /// Kinetic energy at T \[J\].
    pub kinetic_energy: f64,
    /// Work done by τ = \[1; 0\]: `q₁(T) − q₁(0)` \[J\].
    pub work: f64,
    /// `max_k |q₂ − 2 sin q₁|` over the accepted steps.
    pub max_constraint_residual: f64,
}

/// Integrates [`Planar2g`] from rest at `q = 0` with FDgq and the fixed-step fourth-order
/// Runge–Kutta of contour-ode ([`RungeKuttaGill`], [`GillMode::Fixed`], `steps` steps to
/// `t_end`) on `(q, q̇)`.
pub fn integrate_planar2g(t_end: f64, steps: usize) -> Result<Planar2gRun, BoxError> {
    let p = Planar2g::default();
    let mut fd = ExplicitDynamics::new(&p, &p)?;
    let h = t_end / steps as f64;
    let mut f = FnRhs::new(4, |t: f64, y: &[f64], dy: &mut [f64]| {
        let mut qdd = [f64::NAN; 2];
        // cannot fail for finite states (GᵀHG > 0 for planar(2))
        let _ = fd.accelerations(&p, &p, t, &y[..2], &y[2..], &mut qdd);
        dy[0] = y[2];
        dy[1] = y[3];
        dy[2] = qdd[0];
        dy[3] = qdd[1];
    });
    let cfg = RungeKuttaGillConfig {
        mode: GillMode::Fixed { h },
        ..Default::default()
    };
    let mut s = RungeKuttaGill::new(0.0, &[0.0; 4], Tolerances::new(1.0, 1.0), cfg)?;
    s.set_t_stop(Some(t_end));
    let mut max_res = 0.0f64;
    for _ in 0..steps {
        s.step(&mut f)?;
        let y = s.y();
        max_res = max_res.max((y[1] - 2.0 * y[0].sin()).abs());
    }
    let y = s.y();
    let (q, qd) = ([y[0], y[1]], [y[2], y[3]]);
    Ok(Planar2gRun {
        t_end,
        steps,
        q,
        qd,
        kinetic_energy: p.kinetic_energy(&q, &qd).unwrap_or(f64::NAN),
        work: q[0],
        max_constraint_residual: max_res,
    })
}

/// Rows `featherstone/planar2g/energy_balance` (`|q₁(T) − KE(T)| / KE(T)`),
/// `featherstone/planar2g/max_constraint_residual` (`max |q₂ − 2 sin q₁|`), from
/// [`integrate_planar2g`] with T = 10 s and 40 000 steps (h = 0.25 ms: at h = 1 ms the
/// residual is close to the 1e-10 bound, and it falls as h⁴), plus the extras
/// `.../q1_final` and `.../kinetic_energy_final`.
pub fn planar2g_rows() -> Result<Vec<Row>, BoxError> {
    let run = integrate_planar2g(10.0, 40_000)?;
    let id = |s: &str| format!("featherstone/planar2g/{s}");
    Ok(vec![
        Row::roundoff(
            id("energy_balance"),
            (run.work - run.kinetic_energy).abs() / run.kinetic_energy,
            "",
            1e-8,
        )
        .note("|q1(T) − KE(T)| / KE(T), T = 10 s, FDgq with Tstab = 0.1 integrated by contour-ode's fixed-step Runge–Kutta–Gill (4th order), h = 0.25 ms; round-off/truncation level, checked to stay below the bound. A classical RK4 gives 2.8e-13: the integrators differ in their coefficients, not in order. The world inertias are formed about the COM (RBDA (2.66)); forming them about the world origin moves these rows at round-off (implicit_vs_explicit by 1.4e-12, far below its tau = 1e-10)")
        .tolerance(Tolerance::AtMost(1e-8)),
        Row::roundoff(id("max_constraint_residual"), run.max_constraint_residual, "rad", 1e-10)
            .note("max |q2 − 2 sin q1| over the run; checked to stay below the bound (3.9e-13 with the classical RK4 used before the 2026-11-23 redesign, now Runge–Kutta–Gill)")
            .tolerance(Tolerance::AtMost(1e-10)),
        Row::value(id("q1_final"), run.q[0], ""),
        Row::value(id("kinetic_energy_final"), run.kinetic_energy, ""),
    ])
}

/// The rows `featherstone/*`.
pub fn source() -> SourceResult {
    let mut rows = planar2g_rows()?;
    rows.push(
        Row::value("featherstone/planar2g/implicit_vs_explicit", planar2g_implicit_vs_explicit()?, "")
            .note("max state difference over 10 s between the perturbation method on the implicit row q2 − 2 sin q1 and FDgq, both at τ = 1e-10 (3.0e-7 at 1e-8, 1.8e-5 at 1e-6: agreement at the integration tolerance)"),
    );
    Ok(SourceOutput::rows(rows))
}

/// Final time of the comparison \[s\].
pub const PLANAR2G_FINAL_TIME: f64 = 10.0;
/// Tolerance of both runs.
pub const PLANAR2G_TAU: f64 = 1e-10;

/// `max_t ‖x_implicit(t) − x_explicit(t)‖₂` (see the module documentation).
pub fn planar2g_implicit_vs_explicit() -> Result<f64, contour::projection::ProjectionError> {
    planar2g_implicit_vs_explicit_at(PLANAR2G_TAU)
}

/// [`planar2g_implicit_vs_explicit`] at the tolerance `tau`.
pub fn planar2g_implicit_vs_explicit_at(
    tau: f64,
) -> Result<f64, contour::projection::ProjectionError> {
    let p = Planar2g::default();
    let grid: Vec<f64> = (0..=1000)
        .map(|i| i as f64 * PLANAR2G_FINAL_TIME / 1000.0)
        .collect();
    let ec = ErrorControl::absolute(tau);
    let imp = Simulation::new(&p, &[0.0; 2], &[0.0; 2], 0.0, PLANAR2G_FINAL_TIME)
        .method(Method::Perturbation(PerturbationConfig::keerthi()))
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
