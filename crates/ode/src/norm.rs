//! Weighted error norms and tolerances.
//!
//! A local error estimate `e` is accepted when `‖e‖ ≤ 1` in the norm
//!
//! * [`ErrorNorm::ScaledL2`] — `‖e‖ = sqrt( Σᵢ (cᵢ eᵢ / wᵢ)² / m )`, the scaled l2 norm of
//!   Keerthi et al. (the root mean square of the weighted errors),
//! * [`ErrorNorm::Max`] — `‖e‖ = maxᵢ |cᵢ eᵢ / wᵢ|`,
//!
//! with the tolerance scale `wᵢ = atolᵢ + rtol·|yᵢ|`, optional per-component weights
//! `cᵢ ≥ 0` (default 1; `cᵢ = 0` removes a component from the error test, e.g. the
//! algebraic variables of an index-2 DAE) and `m` the number of components with `cᵢ > 0`.
//! Which `y` enters `wᵢ` is stated by each method (the value at the start of the step for
//! Adams, `max(|yₙ|, |yₙ₊₁|)` for the one-step methods).

use serde::{Deserialize, Serialize};

use crate::error::OdeError;

/// Which norm measures a weighted error vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ErrorNorm {
    /// `sqrt(Σ (eᵢ/wᵢ)² / m)` (Keerthi's scaled l2 norm).
    #[default]
    ScaledL2,
    /// `max |eᵢ/wᵢ|`.
    Max,
}

/// Absolute tolerance, one value for all components or one per component.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Atol {
    /// The same `atol` for every component.
    Scalar(f64),
    /// `atolᵢ` per component.
    PerComponent(Vec<f64>),
}

/// Tolerances and norm of the local error test.
///
/// Defaults of [`Tolerances::new`]: scalar `atol`, no component weights, [`ErrorNorm::ScaledL2`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tolerances {
    /// Relative tolerance `rtol ≥ 0`.
    pub rtol: f64,
    /// Absolute tolerance(s) `atolᵢ ≥ 0`; `rtol + atolᵢ > 0` is required.
    pub atol: Atol,
    /// Optional component weights `cᵢ ≥ 0` (finite); `None` means all ones.
    pub weights: Option<Vec<f64>>,
    /// The norm.
    pub norm: ErrorNorm,
}

impl Tolerances {
    /// Scalar tolerances with the scaled l2 norm.
    #[must_use]
    pub fn new(rtol: f64, atol: f64) -> Self {
        Self {
            rtol,
            atol: Atol::Scalar(atol),
            weights: None,
            norm: ErrorNorm::ScaledL2,
        }
    }

    /// Replaces the absolute tolerance by one value per component.
    #[must_use]
    pub fn with_atol_per_component(mut self, atol: Vec<f64>) -> Self {
        self.atol = Atol::PerComponent(atol);
        self
    }

    /// Sets the component weights `cᵢ`.
    #[must_use]
    pub fn with_weights(mut self, weights: Vec<f64>) -> Self {
        self.weights = Some(weights);
        self
    }

    /// Sets the norm.
    #[must_use]
    pub fn with_norm(mut self, norm: ErrorNorm) -> Self {
        self.norm = norm;
        self
    }

    /// Checks the tolerances for a state of dimension `n`.
    ///
    /// Errors: [`OdeError::InvalidTolerance`] when a value is negative, NaN or infinite, when
    /// `rtol = atolᵢ = 0`, or when no component has a positive weight;
    /// [`OdeError::DimensionMismatch`] when a per-component vector has the wrong length.
    pub fn validate(&self, n: usize) -> Result<(), OdeError> {
        let bad = |which, value, index| OdeError::InvalidTolerance {
            which,
            value,
            index,
        };
        if !(self.rtol.is_finite() && self.rtol >= 0.0) {
            return Err(bad("rtol", self.rtol, 0));
        }
        match &self.atol {
            Atol::Scalar(a) => {
                if !(a.is_finite() && *a >= 0.0) || (*a == 0.0 && self.rtol == 0.0) {
                    return Err(bad("atol", *a, 0));
                }
            }
            Atol::PerComponent(v) => {
                if v.len() != n {
                    return Err(OdeError::DimensionMismatch {
                        expected: n,
                        got: v.len(),
                    });
                }
                for (i, a) in v.iter().enumerate() {
                    if !(a.is_finite() && *a >= 0.0) || (*a == 0.0 && self.rtol == 0.0) {
                        return Err(bad("atol", *a, i));
                    }
                }
            }
        }
        if let Some(c) = &self.weights {
            if c.len() != n {
                return Err(OdeError::DimensionMismatch {
                    expected: n,
                    got: c.len(),
                });
            }
            for (i, ci) in c.iter().enumerate() {
                if !(ci.is_finite() && *ci >= 0.0) {
                    return Err(bad("weight", *ci, i));
                }
            }
            if n > 0 && c.iter().all(|ci| *ci == 0.0) {
                return Err(bad("weight", 0.0, 0));
            }
        }
        Ok(())
    }

    /// `atolᵢ`.
    #[inline]
    pub fn atol_at(&self, i: usize) -> f64 {
        match &self.atol {
            Atol::Scalar(a) => *a,
            Atol::PerComponent(v) => v[i],
        }
    }

    /// Number `m` of components taking part in the error test (`cᵢ > 0`).
    pub fn active_components(&self, n: usize) -> usize {
        match &self.weights {
            None => n,
            Some(c) => c.iter().filter(|ci| **ci > 0.0).count(),
        }
    }

    /// Writes the inverse scales `sᵢ = cᵢ / (atolᵢ + rtol·|yᵢ|)` for the reference magnitudes
    /// `y_abs[i] = |yᵢ|`, so that the norm of `e` is computed from `eᵢ·sᵢ`.
    ///
    /// A zero scale `atolᵢ + rtol·|yᵢ|` (pure relative control at `yᵢ = 0`) is replaced by
    /// the smallest positive normal number, which makes the test as strict as possible.
    pub fn inverse_scales(&self, y_abs: impl Iterator<Item = f64>, s: &mut [f64]) {
        if let (Atol::Scalar(atol), None) = (&self.atol, &self.weights) {
            // The common case without per-component data: `1 / w` (the same bits as `1.0 / w`).
            for (si, ya) in s.iter_mut().zip(y_abs) {
                *si = 1.0 / self.scale(*atol, ya);
            }
            return;
        }
        for (i, (si, ya)) in s.iter_mut().zip(y_abs).enumerate() {
            let w = self.scale(self.atol_at(i), ya);
            let c = self.weights.as_ref().map_or(1.0, |c| c[i]);
            *si = c / w;
        }
    }

    /// The tolerance scale `wᵢ = atolᵢ + rtol·|yᵢ|` for `atolᵢ` and `y_abs = |yᵢ|` (at least the
    /// smallest positive normal number, see [`Tolerances::inverse_scales`]).
    #[inline(always)]
    fn scale(&self, atol: f64, y_abs: f64) -> f64 {
        (atol + self.rtol * y_abs).max(f64::MIN_POSITIVE)
    }

    /// `‖e‖` with precomputed inverse scales `s` (see [`Tolerances::inverse_scales`]) and
    /// `m` active components.
    #[inline]
    pub fn norm_scaled(&self, e: &[f64], s: &[f64], m: usize) -> f64 {
        norm_of(self.norm, e.iter().zip(s).map(|(ei, si)| ei * si), m)
    }

    /// `‖e‖` with the scale `wᵢ = atolᵢ + rtol·max(|aᵢ|, |bᵢ|)` (one-step methods).
    pub fn norm_two_point(&self, e: &[f64], a: &[f64], b: &[f64]) -> f64 {
        let m = self.active_components(e.len());
        let (a, b) = (&a[..e.len()], &b[..e.len()]);
        let mut acc = NormAcc::new(self.norm);
        if let (Atol::Scalar(atol), None) = (&self.atol, &self.weights) {
            // The common case without per-component data: `eᵢ / wᵢ` (the same bits as
            // `eᵢ · 1 / wᵢ`), in one pass with `NormAcc` (the same bits as `norm_of`).
            for ((ei, ai), bi) in e.iter().zip(a).zip(b) {
                acc.push(ei / self.scale(*atol, ai.abs().max(bi.abs())));
            }
        } else {
            for (i, ((ei, ai), bi)) in e.iter().zip(a).zip(b).enumerate() {
                let w = self.scale(self.atol_at(i), ai.abs().max(bi.abs()));
                let c = self.weights.as_ref().map_or(1.0, |c| c[i]);
                acc.push(ei * c / w);
            }
        }
        acc.finish(m)
    }
}

/// The running value of one norm of already weighted components, fed one component at a
/// time: the same operations in the same order as [`norm_of`] (so the same bits), for
/// several norms computed in one pass over the data.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NormAcc {
    norm: ErrorNorm,
    acc: f64,
    nan: bool,
}

impl NormAcc {
    /// An empty accumulator for `norm`.
    #[inline]
    pub(crate) fn new(norm: ErrorNorm) -> Self {
        Self {
            norm,
            acc: 0.0,
            nan: false,
        }
    }

    /// Adds the weighted component `x`.
    #[inline(always)]
    pub(crate) fn push(&mut self, x: f64) {
        match self.norm {
            ErrorNorm::ScaledL2 => self.acc += x * x,
            ErrorNorm::Max => {
                self.nan |= x.is_nan();
                self.acc = self.acc.max(x.abs());
            }
        }
    }

    /// The norm with `m` active components.
    #[inline]
    pub(crate) fn finish(self, m: usize) -> f64 {
        match self.norm {
            ErrorNorm::ScaledL2 => (self.acc / m.max(1) as f64).sqrt(),
            ErrorNorm::Max if self.nan => f64::NAN,
            ErrorNorm::Max => self.acc,
        }
    }
}

/// Applies the chosen norm to an iterator of already weighted components.
#[inline]
pub(crate) fn norm_of(norm: ErrorNorm, it: impl Iterator<Item = f64>, m: usize) -> f64 {
    match norm {
        ErrorNorm::ScaledL2 => {
            let mut acc = 0.0;
            for x in it {
                acc += x * x;
            }
            (acc / m.max(1) as f64).sqrt()
        }
        ErrorNorm::Max => {
            let mut acc: f64 = 0.0;
            for x in it {
                // NaN propagates so that a non-finite error estimate rejects the step.
                if x.is_nan() {
                    return f64::NAN;
                }
                acc = acc.max(x.abs());
            }
            acc
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_l2_and_max() {
        let tol = Tolerances::new(0.0, 1e-3);
        let e = [1e-3, -2e-3, 0.0, 2e-3];
        let z = [0.0; 4];
        let l2 = tol.norm_two_point(&e, &z, &z);
        assert!((l2 - (9.0f64 / 4.0).sqrt()).abs() < 1e-14);
        let mx = tol
            .clone()
            .with_norm(ErrorNorm::Max)
            .norm_two_point(&e, &z, &z);
        assert!((mx - 2.0).abs() < 1e-14);
    }

    #[test]
    fn weights_exclude_components() {
        let tol = Tolerances::new(1e-3, 1e-6).with_weights(vec![1.0, 0.0]);
        let e = [1e-3, 1e10];
        let y = [1.0, 1.0];
        let v = tol.norm_two_point(&e, &y, &y);
        assert!((v - 1e-3 / (1e-6 + 1e-3)).abs() < 1e-12);
    }

    #[test]
    fn validation() {
        assert!(Tolerances::new(-1.0, 1e-6).validate(2).is_err());
        assert!(Tolerances::new(0.0, 0.0).validate(2).is_err());
        assert!(Tolerances::new(1e-6, f64::NAN).validate(2).is_err());
        assert!(Tolerances::new(1e-6, 0.0).validate(2).is_ok());
        assert!(matches!(
            Tolerances::new(1e-6, 1e-6)
                .with_atol_per_component(vec![1.0])
                .validate(2),
            Err(OdeError::DimensionMismatch {
                expected: 2,
                got: 1
            })
        ));
        assert!(Tolerances::new(1e-6, 1e-6)
            .with_weights(vec![0.0, 0.0])
            .validate(2)
            .is_err());
    }
}
