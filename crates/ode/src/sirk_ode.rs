//! The singly-implicit Runge–Kutta method ([`SinglyImplicitRk`], Huang (5.2.16)–(5.2.18)) on
//! an explicit ODE `ẏ = f(t, y)`.
//!
//! [`SirkOde`] implements [`Advance<F>`] for every [`OdeRhs`] `F` through the residual
//! `F(t, y, ẏ) = ẏ − f(t, y)`, built per call over a scratch vector the adapter owns (no
//! allocation per step). The iteration matrix `G = (1/(hμ)) I − ∂f/∂y` is formed by forward
//! differences (`dim` evaluations of `f` per matrix, counted in `f_evals`).
//!
//! **Start and restarts.** `ẏ₀ = f(t₀, y₀)` is known for an ODE: the first step and every
//! [`Advance::restart`] evaluate `f` once (counted) and start the first predictor
//! `Yᵢ = y₀ + cᵢh ẏ₀` from it ([`SinglyImplicitRk::restart_with_derivative`]).
//! [`Advance::replace_y`] moves the state and keeps the derivative estimate (no evaluation).

use crate::error::OdeError;
use crate::norm::Tolerances;
use crate::problem::{DaeResidual, OdeRhs};
use crate::sirk::{SinglyImplicitRk, SirkConfig};
use crate::stats::Stats;
use crate::stepper::{Advance, StepInfo, Stepper};
use crate::RhsError;

/// [`SinglyImplicitRk`] driven through the explicit-ODE interface (module documentation).
#[derive(Debug, Clone)]
pub struct SirkOde {
    sirk: SinglyImplicitRk,
    /// `f(t, y)` inside the residual; `ẏ₀` at a (re)start.
    scratch: Vec<f64>,
    /// Whether the first step has to start with `ẏ₀ = f(t₀, y₀)`.
    start_pending: bool,
}

/// `F(t, y, ẏ) = ẏ − f(t, y)` over borrowed storage.
struct Residual<'a, F: ?Sized> {
    rhs: &'a mut F,
    scratch: &'a mut [f64],
}

impl<F: OdeRhs + ?Sized> DaeResidual for Residual<'_, F> {
    fn dim(&self) -> usize {
        self.rhs.dim()
    }
    fn residual(&mut self, t: f64, y: &[f64], yp: &[f64], r: &mut [f64]) -> Result<(), RhsError> {
        self.rhs.eval(t, y, self.scratch)?;
        for ((ri, ypi), fi) in r.iter_mut().zip(yp).zip(self.scratch.iter()) {
            *ri = ypi - fi;
        }
        Ok(())
    }
}

impl SirkOde {
    /// A SIRK stepper at `(t0, y0)` with the constant step `cfg.h` (see
    /// [`SinglyImplicitRk::new`] for the validation). A `cfg.initial_derivative` given by the
    /// caller is used for the first step instead of `f(t₀, y₀)`.
    pub fn new(t0: f64, y0: &[f64], tol: Tolerances, cfg: SirkConfig) -> Result<Self, OdeError> {
        let start_pending = cfg.initial_derivative.is_none();
        Ok(Self {
            sirk: SinglyImplicitRk::new(t0, y0, tol, cfg)?,
            scratch: vec![0.0; y0.len()],
            start_pending,
        })
    }

    /// The wrapped SIRK.
    pub fn sirk(&self) -> &SinglyImplicitRk {
        &self.sirk
    }

    /// `f(t, y)` (counted), then a start at `(t, y)` with `ẏ = f(t, y)`.
    fn start<F: OdeRhs + ?Sized>(&mut self, f: &mut F, t: f64, y: &[f64]) -> Result<(), OdeError> {
        let n = self.scratch.len();
        for got in [f.dim(), y.len()] {
            if got != n {
                return Err(OdeError::DimensionMismatch { expected: n, got });
            }
        }
        self.sirk.stats_mut().f_evals += 1;
        f.eval(t, y, &mut self.scratch)
            .map_err(|source| OdeError::RhsFailed { t, source })?;
        self.sirk.restart_with_derivative(t, y, &self.scratch)?;
        self.start_pending = false;
        Ok(())
    }
}

impl Stepper for SirkOde {
    fn t(&self) -> f64 {
        self.sirk.t()
    }
    fn y(&self) -> &[f64] {
        self.sirk.y()
    }
    fn t_prev(&self) -> f64 {
        self.sirk.t_prev()
    }
    fn h(&self) -> f64 {
        self.sirk.h()
    }
    fn order(&self) -> usize {
        self.sirk.order()
    }
    fn dense(&self, t_out: f64, out: &mut [f64]) -> Result<(), OdeError> {
        self.sirk.dense(t_out, out)
    }
    fn stats(&self) -> &Stats {
        self.sirk.stats()
    }
    fn stats_mut(&mut self) -> &mut Stats {
        self.sirk.stats_mut()
    }
    fn set_t_stop(&mut self, t_stop: Option<f64>) {
        self.sirk.set_t_stop(t_stop);
    }
    fn set_max_step(&mut self, h_max: f64) {
        self.sirk.set_max_step(h_max);
    }
    fn step_bound(&self) -> Option<(&'static str, f64)> {
        self.sirk.step_bound()
    }
}

impl<F: OdeRhs + ?Sized> Advance<F> for SirkOde {
    /// One constant step on `ẏ − f(t, y) = 0`; the first call evaluates `f(t₀, y₀)`.
    fn step(&mut self, f: &mut F) -> Result<StepInfo, OdeError> {
        if self.start_pending {
            // y₀ copied once, on the first step only
            let (t, y0) = (self.sirk.t(), self.sirk.y().to_vec());
            self.start(f, t, &y0)?;
        }
        let mut res = Residual {
            rhs: f,
            scratch: &mut self.scratch,
        };
        self.sirk.step(&mut res)
    }

    /// `yₙ ← ỹ`, the derivative estimate kept (no evaluation).
    fn replace_y(&mut self, f: &mut F, y: &[f64]) -> Result<(), OdeError> {
        let mut res = Residual {
            rhs: f,
            scratch: &mut self.scratch,
        };
        self.sirk.replace_y(&mut res, y)
    }

    /// Restarts at `(t, y)` with `ẏ = f(t, y)` (one counted evaluation).
    fn restart(&mut self, f: &mut F, t: f64, y: &[f64]) -> Result<(), OdeError> {
        self.start(f, t, y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FnRhs;

    /// `y'' = −y` over one period at h, h/2, h/4: the error falls by 2³ per halving (order 3);
    /// the first step costs one start evaluation.
    #[test]
    fn oscillator_third_order() {
        let t_end = 2.0 * std::f64::consts::PI;
        let err = |h: f64| {
            let mut f = FnRhs::new(2, |_t, y: &[f64], dy: &mut [f64]| {
                dy[0] = y[1];
                dy[1] = -y[0];
            });
            let cfg = SirkConfig {
                h,
                ..SirkConfig::default()
            };
            let tol = Tolerances::new(1e-12, 1e-12);
            let mut s = SirkOde::new(0.0, &[1.0, 0.0], tol, cfg).unwrap();
            s.set_t_stop(Some(t_end));
            while s.t() < t_end {
                s.step(&mut f).unwrap();
            }
            ((s.y()[0] - 1.0).powi(2) + s.y()[1].powi(2)).sqrt()
        };
        let (e1, e2, e3) = (err(0.04), err(0.02), err(0.01));
        for (a, b) in [(e1, e2), (e2, e3)] {
            let p = (a / b).log2();
            assert!((p - 3.0).abs() < 0.3, "order {p} ({a:e}, {b:e})");
        }
    }

    #[test]
    fn dimension_checked_at_the_start() {
        let tol = Tolerances::new(1e-6, 1e-6);
        let mut s = SirkOde::new(0.0, &[1.0, 0.0, 0.0], tol, SirkConfig::default()).unwrap();
        let mut f = FnRhs::new(2, |_t, _y: &[f64], _dy: &mut [f64]| {});
        assert!(matches!(
            s.step(&mut f),
            Err(OdeError::DimensionMismatch { expected: 3, .. })
        ));
    }
}
