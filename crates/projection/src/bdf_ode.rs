//! The variable-order BDF of `contour_ode` ([`Bdf`], DASSL style) on an explicit ODE
//! `ẋ = f(t, x)`, as one more explicit-interface integrator of the methods.
//!
//! [`BdfOde`] wraps [`Bdf`] and implements [`Advance<F>`] for every [`OdeRhs`] `F`, so the
//! loops of Direct, Baumgarte, PERT, PARAM and the projector method run on it unchanged. Each
//! call builds, on the stack, the residual `F(t, x, ẋ) = ẋ − f(t, x)` of
//! [`contour_ode::OdeAsDae`] over a scratch vector owned by the adapter (no allocation per
//! step); the iteration matrix `G = c_j I − ∂f/∂x` is formed by DASSL's forward differences
//! (`2N` evaluations of the constrained accelerations per matrix — an analytic `∂q̈/∂x` is
//! not cheaper, the upper block `[0 I]` would save nothing in `N_f`).
//!
//! **Counting.** Every evaluation of `f` goes through the method's counted right-hand side,
//! so `N_f` includes the predictor, the Newton iterations and the finite-difference columns;
//! [`BdfOde::jacobian_f_evals`] reports the columns separately (`dim` per matrix).
//!
//! **Start and restarts.** `ẋ₀ = f(t₀, x₀)` is known for an ODE, so instead of the DAE
//! consistent initialization (Newton on `F(t₀, x₀, ẋ₀) = 0` with a finite-difference matrix,
//! `2(dim + 1)` evaluations) the first step and every [`Advance::restart`] evaluate `f` once
//! (counted) and start with [`Bdf::restart_with_derivative`] (which stores a copy of `ẋ₀`:
//! one small allocation per restart, none per step). A `BdfConfig::initial_derivative`
//! given by the caller is used for the first step.
//!
//! **`replace_y`** (projections of PERT and of the projector method) shifts the history
//! polynomial by `x̃ − xₙ` and keeps `ẋₙ` (see `contour_ode::bdf`); no evaluation.

use contour_ode::{
    Advance, Bdf, BdfConfig, DaeResidual, OdeError, OdeRhs, RhsError, Stats, StepInfo, Stepper,
    Tolerances,
};

/// [`Bdf`] driven through the explicit-ODE interface: `Advance<F>` for every [`OdeRhs`] `F`
/// via the residual `F(t, x, ẋ) = ẋ − f(t, x)` (see the module documentation).
#[derive(Debug, Clone)]
pub struct BdfOde {
    bdf: Bdf,
    /// `f(t, x)` inside the residual; `ẋ₀` at a (re)start.
    scratch: Vec<f64>,
    /// Whether the first step has to start the BDF with `ẋ₀ = f(t₀, x₀)`.
    start_pending: bool,
}

/// `F(t, x, ẋ) = ẋ − f(t, x)` over borrowed storage (built per call, no allocation).
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

impl BdfOde {
    /// A BDF stepper at `(t0, x0)` (see [`Bdf::new`] for the validation).
    ///
    /// Errors: as [`Bdf::new`]; [`OdeError::InvalidParameter`] when `cfg.algebraic` marks a
    /// component algebraic (an explicit ODE has none).
    pub fn new(t0: f64, x0: &[f64], tol: Tolerances, cfg: BdfConfig) -> Result<Self, OdeError> {
        if let Some(i) = cfg.algebraic.iter().position(|a| *a) {
            return Err(OdeError::InvalidParameter {
                name: "algebraic",
                value: i as f64,
            });
        }
        let start_pending = cfg.initial_derivative.is_none();
        Ok(Self {
            bdf: Bdf::new(t0, x0, tol, cfg)?,
            scratch: vec![0.0; x0.len()],
            start_pending,
        })
    }

    /// The wrapped BDF.
    pub fn bdf(&self) -> &Bdf {
        &self.bdf
    }

    /// Right-hand-side evaluations spent on finite-difference iteration matrices:
    /// `dim · jacobian_evals` (included in the integrator's `f_evals`).
    pub fn jacobian_f_evals(&self) -> usize {
        self.bdf.stats().jacobian_evals * self.scratch.len()
    }

    /// `f(t, x)` (counted in the stepper's `f_evals`), then a start of the BDF at `(t, x)` with
    /// `ẋ = f(t, x)`.
    fn start<F: OdeRhs + ?Sized>(&mut self, f: &mut F, t: f64, x: &[f64]) -> Result<(), OdeError> {
        let n = self.scratch.len();
        if f.dim() != n {
            return Err(OdeError::DimensionMismatch {
                expected: n,
                got: f.dim(),
            });
        }
        if x.len() != n {
            return Err(OdeError::DimensionMismatch {
                expected: n,
                got: x.len(),
            });
        }
        self.bdf.stats_mut().f_evals += 1;
        f.eval(t, x, &mut self.scratch)
            .map_err(|source| OdeError::RhsFailed { t, source })?;
        self.bdf.restart_with_derivative(t, x, &self.scratch)?;
        self.start_pending = false;
        Ok(())
    }
}

impl Stepper for BdfOde {
    fn t(&self) -> f64 {
        self.bdf.t()
    }
    fn y(&self) -> &[f64] {
        self.bdf.y()
    }
    fn t_prev(&self) -> f64 {
        self.bdf.t_prev()
    }
    fn h(&self) -> f64 {
        self.bdf.h()
    }
    fn order(&self) -> usize {
        self.bdf.order()
    }
    fn dense(&self, t_out: f64, out: &mut [f64]) -> Result<(), OdeError> {
        self.bdf.dense(t_out, out)
    }
    fn stats(&self) -> &Stats {
        self.bdf.stats()
    }
    fn stats_mut(&mut self) -> &mut Stats {
        self.bdf.stats_mut()
    }
    fn set_t_stop(&mut self, t_stop: Option<f64>) {
        self.bdf.set_t_stop(t_stop);
    }
    fn set_max_step(&mut self, h_max: f64) {
        self.bdf.set_max_step(h_max);
    }
}

impl<F: OdeRhs + ?Sized> Advance<F> for BdfOde {
    /// One accepted BDF step on `ẋ − f(t, x) = 0`; the first call evaluates `f(t₀, x₀)`.
    fn step(&mut self, f: &mut F) -> Result<StepInfo, OdeError> {
        if self.start_pending {
            let (t, x) = (self.bdf.t(), self.bdf.y().to_owned());
            self.start(f, t, &x)?;
        }
        let mut res = Residual {
            rhs: f,
            scratch: &mut self.scratch,
        };
        self.bdf.step(&mut res)
    }

    /// `xₙ ← x̃` with the history polynomial shifted by `x̃ − xₙ` (no evaluation).
    fn replace_y(&mut self, f: &mut F, y: &[f64]) -> Result<(), OdeError> {
        let mut res = Residual {
            rhs: f,
            scratch: &mut self.scratch,
        };
        self.bdf.replace_y(&mut res, y)
    }

    /// History dropped; restarts at `(t, x)` with `ẋ = f(t, x)` (one counted evaluation).
    fn restart(&mut self, f: &mut F, t: f64, y: &[f64]) -> Result<(), OdeError> {
        self.start(f, t, y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contour_ode::FnRhs;

    fn oscillator() -> FnRhs<impl FnMut(f64, &[f64], &mut [f64])> {
        FnRhs::new(2, |_t, y: &[f64], dy: &mut [f64]| {
            dy[0] = y[1];
            dy[1] = -y[0];
        })
    }

    /// `y'' = −y` to t = 2π: the solution is met to the tolerance level; the first step
    /// evaluates `f(t₀, y₀)` once (no Newton initialization), every matrix costs 2 columns;
    /// `replace_y` moves the state without an evaluation; `restart` costs one.
    #[test]
    fn oscillator_counts_and_accuracy() {
        let mut f = oscillator();
        let tol = Tolerances::new(1e-9, 1e-9);
        let mut s = BdfOde::new(0.0, &[1.0, 0.0], tol, BdfConfig::default()).unwrap();
        let t_end = 2.0 * std::f64::consts::PI;
        s.set_t_stop(Some(t_end));
        let first = s.step(&mut f).unwrap();
        assert_eq!(first.order, 1);
        // start (1) + predictor (1) + FD matrix (2 columns) + Newton iterations
        let st = *s.stats();
        assert_eq!(st.jacobian_evals, 1);
        assert_eq!(st.f_evals, 1 + 2 + st.newton_iterations);
        while s.t() < t_end {
            s.step(&mut f).unwrap();
        }
        let err = ((s.y()[0] - 1.0).powi(2) + s.y()[1].powi(2)).sqrt();
        assert!(err < 1e-6 && err > 1e-12, "{err:e}");
        assert!(
            s.bdf().config().max_order == 5 && s.order() >= 3,
            "{}",
            s.order()
        );
        assert_eq!(s.jacobian_f_evals(), 2 * s.stats().jacobian_evals);
        let before = s.stats().f_evals;
        s.replace_y(&mut f, &[1.0, 0.0]).unwrap();
        assert_eq!(s.stats().f_evals, before);
        assert_eq!(s.y(), &[1.0, 0.0]);
        s.restart(&mut f, 0.0, &[0.0, 1.0]).unwrap();
        assert_eq!(s.stats().f_evals, before + 1);
        assert_eq!((s.t(), s.y()), (0.0, &[0.0, 1.0][..]));
    }

    #[test]
    fn bad_input() {
        let tol = Tolerances::new(1e-6, 1e-6);
        assert!(matches!(
            BdfOde::new(
                0.0,
                &[1.0, 0.0],
                tol.clone(),
                BdfConfig::default().with_algebraic(vec![false, true])
            ),
            Err(OdeError::InvalidParameter {
                name: "algebraic",
                ..
            })
        ));
        assert!(BdfOde::new(0.0, &[f64::NAN, 0.0], tol.clone(), BdfConfig::default()).is_err());
        let mut s = BdfOde::new(0.0, &[1.0, 0.0, 0.0], tol, BdfConfig::default()).unwrap();
        let mut f = oscillator();
        assert!(matches!(
            s.step(&mut f),
            Err(OdeError::DimensionMismatch {
                expected: 3,
                got: 2
            })
        ));
        assert!(matches!(
            Advance::restart(&mut s, &mut f, 0.0, &[1.0, 0.0]),
            Err(OdeError::DimensionMismatch { .. })
        ));
    }
}
