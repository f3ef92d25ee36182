//! # contour-ode — integrators for `y' = f(t, y)` and `F(t, y, y') = 0`
//!
//! The crate knows nothing of mechanics. A tour:
//!
//! * [`problem`] — the right-hand side trait [`OdeRhs`] (`eval` may fail with a
//!   [`RhsError`]), the closure adapters [`FnRhs`], [`TryFnRhs`], and the residual form
//!   [`DaeResidual`] `F(t, y, y') = 0` for the implicit methods (BDF, singly-implicit RK),
//!   with an optional analytic iteration matrix `∂F/∂y + c·∂F/∂y'` ([`DaeJacobian`], passed
//!   as [`WithJacobian`]; finite differences otherwise).
//! * [`norm`] — [`Tolerances`] (`rtol`, scalar or per-component `atol`, component weights) and
//!   the [`ErrorNorm`]: Keerthi's scaled l2 `sqrt(Σ(eᵢ/wᵢ)²/n)` or the max norm, with
//!   `wᵢ = atolᵢ + rtol·|yᵢ|`.
//! * [`stepper`] — the traits [`Stepper`] (`t()`, `y()`, `dense(t)` on the last step,
//!   [`Stats`], stop time) and [`Advance`]`<F>` (`step()`: one accepted step per call,
//!   `replace_y()`: a projection moves the accepted point, `restart()`).
//!   [`Stats`] already carries the counters of the implicit methods (Jacobians,
//!   factorizations, Newton iterations and failures).
//! * The methods, one file each:
//!   [`AdamsBashforthMoulton`] (Shampine & Gordon's variable-order PECE, orders 1–12),
//!   [`RungeKuttaGill`] (4th order with Gill's round-off compensation, Huang (5.3.3)),
//!   [`DormandPrince54`] (5(4) with FSAL and dense output);
//!   implicit, for residual-form DAEs and stiff ODEs (through [`OdeAsDae`]):
//!   [`Bdf`] (variable order 1–5, variable step, DASSL's fixed-leading-coefficient form,
//!   Newton with a reused LU of `∂F/∂y + (α/h)∂F/∂y'`, consistent initialization, algebraic
//!   components optionally out of the error test for index 2),
//!   [`HuangBdf2`] (Huang's constant-step BDF2 (5.2.11)–(5.2.15) with a Broyden secant
//!   corrector, started by backward Euler or the SIRK),
//!   [`SinglyImplicitRk`] (two stages, order 3, Huang's coefficients (5.2.18)).
//! * [`driver`] — [`integrate`] to a final time with outputs at requested times;
//!   [`events`] — sign changes of `g(t, y)` located by Illinois regula falsi on the dense
//!   output, with direction filter, stop and restart (impacts).
//! * [`test_models`] — reference problems with exact solutions (decay, oscillator, Kepler,
//!   falling body, a time-dependent and a blow-up problem), the stiff Van der Pol and
//!   Robertson problems, an index-1 DAE with exact solution and the GGL (index-2) pendulum.
//! * [`verification`] — measured orders, global errors and reference runs of the stiff and DAE
//!   test problems, shared by the tests, the benches and `contour-papers` (`tables/ode.md`).
//!
//! ```
//! use contour_ode::{integrate, DormandPrince54, DormandPrinceConfig, DriverOptions, FnRhs, Tolerances};
//! let mut f = FnRhs::new(1, |_t, y: &[f64], dy: &mut [f64]| dy[0] = -y[0]);
//! let mut s = DormandPrince54::new(0.0, &[1.0], Tolerances::new(1e-10, 1e-12), DormandPrinceConfig::default())?;
//! let sol = integrate(&mut s, &mut f, 1.0, &[0.5, 1.0], &mut [], &DriverOptions::default())?;
//! assert!((sol.y[1][0] - (-1.0f64).exp()).abs() < 1e-9);
//! # Ok::<(), contour_ode::OdeError>(())
//! ```

pub mod adams_bashforth_moulton;
pub mod bdf;
pub mod bdf_huang;
pub mod dormand_prince;
pub mod driver;
pub mod error;
pub mod events;
mod implicit;
pub mod norm;
pub mod problem;
pub mod runge_kutta_gill;
pub mod sirk;
pub mod sirk_ode;
pub mod stats;
pub mod stepper;
pub mod test_models;
pub mod verification;

pub use adams_bashforth_moulton::{AbmConfig, AbmOrder, AbmStep, AdamsBashforthMoulton};
pub use bdf::{Bdf, BdfConfig, BdfFixed, BDF_MAX_ORDER};
pub use bdf_huang::{HuangBdf2, HuangBdf2Config, HuangStart};
pub use dormand_prince::{
    hermite_cubic_scalar, DormandPrince54, DormandPrinceConfig, ScalarStep, Tableau,
    DORMAND_PRINCE_1980,
};
pub use driver::{integrate, integrate_to, DriverOptions, Solution, Termination};
pub use error::{OdeError, Quantity, RhsError};
pub use events::{Direction, EventAction, EventFunction, EventRecord, FnEvent};
pub use norm::{Atol, ErrorNorm, Tolerances};
pub use problem::{DaeJacobian, DaeResidual, FnRhs, OdeAsDae, OdeRhs, TryFnRhs, WithJacobian};
pub use runge_kutta_gill::{GillMode, RungeKuttaGill, RungeKuttaGillConfig};
pub use sirk::{SinglyImplicitRk, SirkConfig, SirkTableau};
pub use sirk_ode::SirkOde;
pub use stats::Stats;
pub use stepper::{Advance, StepInfo, Stepper};
