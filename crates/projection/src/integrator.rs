//! [`Integrator`]: the run-time choice of the `contour-ode` stepper a method's field is
//! integrated with.

use contour_ode::{AbmConfig, BdfConfig, DormandPrinceConfig, RungeKuttaGillConfig, SirkConfig};

/// The integrator of the (index-1 or parametrized) ODE.
#[derive(Debug, Clone, PartialEq)]
pub enum Integrator {
    /// Shampine–Gordon variable-order Adams PECE (Keerthi's integrator).
    Abm(AbmConfig),
    /// Runge–Kutta–Gill with step doubling (Huang (5.3.3)).
    RungeKuttaGill(RungeKuttaGillConfig),
    /// Dormand–Prince 5(4).
    DormandPrince(DormandPrinceConfig),
    /// Variable-order BDF (DASSL style): the DAE of exact stabilization (ECS), and for every
    /// other method the ODE `ẋ = f(x)` as `ẋ − f(x) = 0` through [`crate::BdfOde`]
    /// (finite-difference iteration matrix, its evaluations counted in `N_f`).
    Bdf(BdfConfig),
    /// Huang's two-stage, third-order singly-implicit Runge–Kutta method (5.2.16)–(5.2.18)
    /// with the constant step `SirkConfig::h`, on the ODE `ẋ = f(x)` through
    /// [`contour_ode::SirkOde`] (finite-difference iteration matrix, its evaluations counted
    /// in `N_f`). The tolerance τ only scales its Newton test: the step is `h`.
    Sirk(SirkConfig),
}

impl Integrator {
    /// ABM with its default configuration.
    pub fn abm() -> Self {
        Self::Abm(AbmConfig::default())
    }
    /// DOPRI5 with its default configuration.
    pub fn dopri5() -> Self {
        Self::DormandPrince(DormandPrinceConfig::default())
    }
    /// RKG with its default configuration.
    pub fn rkg() -> Self {
        Self::RungeKuttaGill(RungeKuttaGillConfig::default())
    }
    /// BDF with its default configuration (orders 1–5).
    pub fn bdf() -> Self {
        Self::Bdf(BdfConfig::default())
    }
    /// SIRK with its default configuration (`h = 0.01` s).
    pub fn sirk() -> Self {
        Self::Sirk(SirkConfig::default())
    }
    /// Every integrator with its default configuration: ABM, DOPRI5, BDF, RK-Gill.
    pub fn every() -> [Integrator; 4] {
        [Self::abm(), Self::dopri5(), Self::bdf(), Self::rkg()]
    }
    /// Short name: `"abm"`, `"rkg"`, `"dopri5"`, `"bdf"`, `"sirk"`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Abm(_) => "abm",
            Self::RungeKuttaGill(_) => "rkg",
            Self::DormandPrince(_) => "dopri5",
            Self::Bdf(_) => "bdf",
            Self::Sirk(_) => "sirk",
        }
    }

    /// The configured largest step (restored after a redone step).
    pub(crate) fn h_max(&self) -> f64 {
        match self {
            Integrator::Abm(c) => c.h_max,
            Integrator::RungeKuttaGill(c) => c.h_max,
            Integrator::DormandPrince(c) => c.h_max,
            Integrator::Bdf(c) => c.h_max,
            Integrator::Sirk(c) => c.h,
        }
    }
}
