//! The one stepping interface shared by every integrator.
//!
//! A [`Stepper`] owns the state `(t, y)`; [`Advance::step`] advances it by **one accepted
//! step per call**; rejected attempts happen inside the call and are counted in
//! [`Stats::rejected_steps`]. Between steps a caller may
//!
//! * read the state ([`Stepper::t`], [`Stepper::y`]) and the interpolant on the last step
//!   ([`Stepper::dense`]),
//! * move the accepted point ([`Advance::replace_y`], the perturbation approach: a projection
//!   onto the constraint manifold), after which the next step continues from the moved point,
//! * restart from a new state ([`Advance::restart`], e.g. after an impact),
//! * forbid stepping past a time ([`Stepper::set_t_stop`]) or cap the step ([`Stepper::set_max_step`]).
//!
//! Integration runs forward in time (`h > 0`).

use crate::error::{OdeError, Quantity};
use crate::problem::check_finite;
use crate::stats::Stats;

/// What one call of [`Advance::step`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepInfo {
    /// Start of the accepted step.
    pub t_prev: f64,
    /// End of the accepted step (the new current time).
    pub t: f64,
    /// Accepted step size `t - t_prev`.
    pub h: f64,
    /// Order of the formula used on this step (for Adams: the order `k` of STEP, i.e. the
    /// predictor order; the corrected value is of order `k + 1`).
    pub order: usize,
    /// Attempts rejected inside this call.
    pub rejected: usize,
}

/// State, interpolant and statistics of a one-step-at-a-time integrator — everything that
/// does not need the problem. Stepping itself is [`Advance`].
///
/// The split lets one stepper type advance different kinds of problem (an explicit method
/// implements `Advance<F>` for every [`OdeRhs`](crate::problem::OdeRhs); an implicit DAE method implements it for a
/// residual `F(t, y, y') = 0`, [`crate::problem::DaeResidual`]) while `s.t()`, `s.dense(…)`
/// stay unambiguous.
pub trait Stepper {
    /// Current time `tₙ`.
    fn t(&self) -> f64;

    /// Current state `yₙ`.
    fn y(&self) -> &[f64];

    /// Start `tₙ₋₁` of the last accepted step (`t0` before the first step).
    fn t_prev(&self) -> f64;

    /// Size of the last accepted step (0 before the first step).
    fn h(&self) -> f64;

    /// Order of the formula of the last accepted step.
    fn order(&self) -> usize;

    /// Dimension of the state.
    fn dim(&self) -> usize {
        self.y().len()
    }

    /// Writes the interpolant of the last accepted step `[t_prev, t]` at `t_out` into `out`
    /// (before the first step: the initial state). Evaluating outside that interval
    /// extrapolates.
    ///
    /// Errors: `out` not of length [`Stepper::dim`] ([`OdeError::WrongLength`] `"out"`), a
    /// non-finite `t_out` ([`OdeError::NonFinite`] with [`Quantity::OutputTime`]). Checked
    /// before anything is written ([`check_dense`]).
    fn dense(&self, t_out: f64, out: &mut [f64]) -> Result<(), OdeError>;

    /// Work counters.
    fn stats(&self) -> &Stats;

    /// Mutable work counters (the driver counts events here).
    fn stats_mut(&mut self) -> &mut Stats;

    /// Never step past `t_stop` (`None`: no limit). The step that reaches it ends exactly on it.
    fn set_t_stop(&mut self, t_stop: Option<f64>);

    /// Caps the step size (`f64::INFINITY`: no cap).
    fn set_max_step(&mut self, h_max: f64);

    /// The configured bound on the step size and its name (`"h_max"` of a variable-step
    /// method, `"h"` of a constant-step one), or `None` when there is none; the driver refuses
    /// a bound below the time resolution of its span or one that forces more steps than its
    /// budget.
    fn step_bound(&self) -> Option<(&'static str, f64)> {
        None
    }
}

/// Advancing a [`Stepper`] on the problem `F` (for the explicit methods: any [`OdeRhs`](crate::problem::OdeRhs)).
pub trait Advance<F: ?Sized>: Stepper {
    /// Takes one accepted step (rejections are internal and counted).
    ///
    /// Never steps past the stop time set by [`Stepper::set_t_stop`]. The first call
    /// evaluates `f(t0, y0)` (counted) and checks the problem dimension.
    fn step(&mut self, f: &mut F) -> Result<StepInfo, OdeError>;

    /// Replaces the accepted state `yₙ` by `y` (after a projection); the next step starts
    /// from it. Each method documents what it does with its history and whether it
    /// re-evaluates `f` (counted in [`Stats::f_evals`]).
    fn replace_y(&mut self, f: &mut F, y: &[f64]) -> Result<(), OdeError>;

    /// Restarts the integration from `(t, y)` as from a new initial value (history dropped,
    /// statistics kept). Used after an impact or another discontinuity.
    fn restart(&mut self, f: &mut F, t: f64, y: &[f64]) -> Result<(), OdeError>;
}

/// Clamps a proposed forward step `h` so that `t + h` does not pass `t_stop`, and so that a
/// remaining sliver smaller than `4u·|t|` is absorbed. Returns `(h, hits_stop)`.
#[inline]
pub(crate) fn clamp_to_stop(t: f64, h: f64, h_max: f64, t_stop: Option<f64>) -> (f64, bool) {
    let mut h = h.min(h_max);
    if let Some(ts) = t_stop {
        let rem = ts - t;
        let fouru = 4.0 * f64::EPSILON * t.abs().max(ts.abs());
        if h >= rem - fouru {
            return (rem, true);
        }
        // Avoid leaving a last step much smaller than the current one.
        if h < rem && rem < 1.01 * h {
            h = rem;
            return (h, true);
        }
    }
    (h, false)
}

/// [`clamp_to_stop`] followed by the round-off check every stepper makes before an attempt:
/// the clamped step must exceed `ulps·u·|t|` (and the smallest normal number), else
/// [`OdeError::StepSizeTooSmall`]. Returns `(h, hits_stop)`.
#[inline]
pub(crate) fn clamp_step(
    t: f64,
    h: f64,
    h_max: f64,
    t_stop: Option<f64>,
    ulps: f64,
) -> Result<(f64, bool), OdeError> {
    let (h, hits_stop) = clamp_to_stop(t, h, h_max, t_stop);
    if !(h > ulps * f64::EPSILON * t.abs() && h > f64::MIN_POSITIVE) {
        return Err(OdeError::StepSizeTooSmall { t, h });
    }
    Ok((h, hits_stop))
}

/// The arguments of [`Stepper::dense`]: `out.len() == n` and a finite `t_out`.
#[inline]
pub fn check_dense(n: usize, t_out: f64, out: &[f64]) -> Result<(), OdeError> {
    if out.len() != n {
        return Err(OdeError::WrongLength {
            what: "out",
            expected: n,
            got: out.len(),
        });
    }
    if !t_out.is_finite() {
        return Err(OdeError::NonFinite {
            what: Quantity::OutputTime,
            index: 0,
        });
    }
    Ok(())
}

/// The start of a one-step interpolant: the fraction `θ = (t_out − t_prev)/h` of the last
/// step, or `None` before the first step (`h = 0`), when `y` has been copied to `out`.
#[inline]
pub(crate) fn step_fraction(
    t_prev: f64,
    h: f64,
    y: &[f64],
    t_out: f64,
    out: &mut [f64],
) -> Option<f64> {
    if h == 0.0 {
        out.copy_from_slice(y);
        return None;
    }
    Some((t_out - t_prev) / h)
}

/// The bookkeeping part of [`Stepper`] shared by every method: `stats`, `stats_mut` and
/// `set_t_stop` over the fields `stats: Stats` and `t_stop: Option<f64>`.
macro_rules! stepper_bookkeeping {
    () => {
        fn stats(&self) -> &$crate::stats::Stats {
            &self.stats
        }
        fn stats_mut(&mut self) -> &mut $crate::stats::Stats {
            &mut self.stats
        }
        fn set_t_stop(&mut self, t_stop: Option<f64>) {
            self.t_stop = t_stop;
        }
    };
    // Variable-step methods: `set_max_step` sets `cfg.h_max`.
    (h_max) => {
        $crate::stepper::stepper_bookkeeping!();
        fn set_max_step(&mut self, h_max: f64) {
            self.cfg.h_max = h_max;
        }
        fn step_bound(&self) -> Option<(&'static str, f64)> {
            self.cfg
                .h_max
                .is_finite()
                .then_some(("h_max", self.cfg.h_max))
        }
    };
    // Constant-step methods: `set_max_step` lowers the step `cfg.h` to `h_max` (never raises it).
    (constant_h) => {
        $crate::stepper::stepper_bookkeeping!();
        fn set_max_step(&mut self, h_max: f64) {
            if h_max > 0.0 && h_max < self.cfg.h {
                self.cfg.h = h_max;
            }
        }
        fn step_bound(&self) -> Option<(&'static str, f64)> {
            Some(("h", self.cfg.h))
        }
    };
}
pub(crate) use stepper_bookkeeping;

/// The state accessors of [`Stepper`] (`t`, `y`, `t_prev`, `h`) over the named fields.
macro_rules! stepper_state {
    ($t:ident, $y:ident, $t_prev:ident, $h:ident) => {
        fn t(&self) -> f64 {
            self.$t
        }
        fn y(&self) -> &[f64] {
            &self.$y
        }
        fn t_prev(&self) -> f64 {
            self.$t_prev
        }
        fn h(&self) -> f64 {
            self.$h
        }
    };
}
pub(crate) use stepper_state;

/// Validation shared by every constructor: finite `t0` and `y0`, tolerances valid for
/// `y0.len()` components and above the floors at the scale of `y0`
/// ([`crate::norm::Tolerances::validate_at`]).
pub(crate) fn check_initial(
    t0: f64,
    y0: &[f64],
    tol: &crate::norm::Tolerances,
) -> Result<(), OdeError> {
    if !t0.is_finite() {
        return Err(OdeError::NonFinite {
            what: crate::error::Quantity::InitialTime,
            index: 0,
        });
    }
    crate::problem::check_finite(y0, crate::error::Quantity::InitialState)?;
    tol.validate_at(y0)
}

/// The state handed to `replace_y`: `n` components, all finite.
pub(crate) fn check_replacement(n: usize, y: &[f64]) -> Result<(), OdeError> {
    if y.len() != n {
        return Err(OdeError::DimensionMismatch {
            expected: n,
            got: y.len(),
        });
    }
    check_finite(y, Quantity::ReplacedState)
}

/// The point handed to `restart`: a finite `t` and a state as [`check_replacement`].
pub(crate) fn check_restart(n: usize, t: f64, y: &[f64]) -> Result<(), OdeError> {
    if !t.is_finite() {
        return Err(OdeError::NonFinite {
            what: Quantity::InitialTime,
            index: 0,
        });
    }
    check_replacement(n, y)
}

/// The restart bookkeeping of a stepper with the fields `t`, `t_prev`, `h_last` and the
/// state `y_now`: checks `(t, y)` ([`check_restart`]) and moves the state there with no last
/// step (`t_prev = t`, `h_last = 0`).
pub(crate) fn restart_state(
    (t_now, t_prev, h_last): (&mut f64, &mut f64, &mut f64),
    y_now: &mut [f64],
    t: f64,
    y: &[f64],
) -> Result<(), OdeError> {
    check_restart(y_now.len(), t, y)?;
    y_now.copy_from_slice(y);
    *t_now = t;
    *t_prev = t;
    *h_last = 0.0;
    Ok(())
}

/// Checks named configuration parameters: every `(name, value, ok)` must have `ok` and a value
/// that is not NaN, else [`OdeError::InvalidParameter`] names the first offender. The one
/// validation prelude of the steppers' constructors.
pub(crate) fn check_params<const K: usize>(
    params: [(&'static str, f64, bool); K],
) -> Result<(), OdeError> {
    for (name, value, ok) in params {
        if !ok || value.is_nan() {
            return Err(OdeError::InvalidParameter { name, value });
        }
    }
    Ok(())
}

/// The checks shared by the constant-step implicit steppers (Huang's BDF2, the singly-implicit
/// RK): `h > 0` finite, `newton_tol ∈ (0, 1)`, `max_iterations > 0` (named `max_name`).
pub(crate) fn check_constant_step_newton(
    h: f64,
    newton_tol: f64,
    max_name: &'static str,
    max_iterations: usize,
) -> Result<(), OdeError> {
    check_params([
        ("h", h, h > 0.0 && h.is_finite()),
        (
            "newton_tol",
            newton_tol,
            newton_tol > 0.0 && newton_tol < 1.0,
        ),
        (max_name, max_iterations as f64, max_iterations > 0),
    ])
}

/// The optional initial derivative `y'₀` of a configuration: checked for length `n` and
/// finiteness and copied, or zeros when none is given.
pub(crate) fn initial_derivative(given: Option<&[f64]>, n: usize) -> Result<Vec<f64>, OdeError> {
    let mut yp0 = vec![0.0; n];
    if let Some(v) = given {
        if v.len() != n {
            return Err(OdeError::DimensionMismatch {
                expected: n,
                got: v.len(),
            });
        }
        crate::problem::check_finite(v, crate::error::Quantity::InitialDerivative)?;
        yp0.copy_from_slice(v);
    }
    Ok(yp0)
}
