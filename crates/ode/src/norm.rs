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

/// Smallest accepted non-zero relative tolerance: a step's round-off alone is a few units of
/// `u = 2.2e-16` relative to the state, so a relative error test below `1e-14` can fail on
/// round-off and end the run with a step-size underflow far from the requested time.
pub const RTOL_FLOOR: f64 = 1e-14;

/// Factor of the smallest accepted absolute tolerance under pure absolute control
/// (`rtol = 0`): `atolᵢ ≥ ATOL_FLOOR_FACTOR · S`, where `S = maxᵢ |y0ᵢ|` is the state's size
/// (a step's round-off alone is a few units of `u = 2.2e-16` of `S`).
pub const ATOL_FLOOR_FACTOR: f64 = 1e-15;

/// Factor of the smallest accepted positive absolute tolerance with a relative part
/// (`rtol ≥ RTOL_FLOOR`): `atolᵢ ≥ MIXED_ATOL_FLOOR_FACTOR · S` (about `u²·S`). The relative part
/// covers each component's own round-off, so `atolᵢ` may be far below `u·S` for components
/// that stay small (Robertson's y₂ with `atol = 1e-16`); a value like 1e-300 only makes the
/// weights of components starting at zero overflow the first step-size estimate.
pub const MIXED_ATOL_FLOOR_FACTOR: f64 = 1e-30;

/// `found == expected`, else [`OdeError::WrongLength`] naming `what`.
fn check_len(what: &'static str, found: usize, expected: usize) -> Result<(), OdeError> {
    if found == expected {
        Ok(())
    } else {
        Err(OdeError::WrongLength {
            what,
            expected,
            got: found,
        })
    }
}

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

    /// [`Tolerances::validate`] for the dimension of `y0`, then the floors that f64 arithmetic
    /// can meet at the scale `S = maxᵢ |y0ᵢ|` of the state: a non-zero `rtol ≥`
    /// [`RTOL_FLOOR`]; with `rtol = 0`, `atolᵢ ≥` [`ATOL_FLOOR_FACTOR`]`·S`; with `rtol > 0`, a
    /// positive `atolᵢ ≥` [`MIXED_ATOL_FLOOR_FACTOR`]`·S` (`atolᵢ = 0` is pure relative
    /// control of that component).
    ///
    /// Errors: those of [`Tolerances::validate`]; [`OdeError::ToleranceBelowFloor`] naming the
    /// tolerance, its value and the floor.
    pub fn validate_at(&self, y0: &[f64]) -> Result<(), OdeError> {
        self.validate(y0.len())?;
        if self.rtol > 0.0 && self.rtol < RTOL_FLOOR {
            return Err(OdeError::ToleranceBelowFloor {
                which: "rtol",
                value: self.rtol,
                floor: RTOL_FLOOR,
                index: 0,
            });
        }
        let size = y0.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        // pure absolute control must resolve the state itself; with a relative part, a
        // positive atol only guards components near zero and may be far smaller
        let factor = if self.rtol == 0.0 {
            ATOL_FLOOR_FACTOR
        } else {
            MIXED_ATOL_FLOOR_FACTOR
        };
        let floor = factor * size;
        for i in 0..y0.len() {
            let a = self.atol_in(i);
            if a < floor && (self.rtol == 0.0 || a > 0.0) {
                return Err(OdeError::ToleranceBelowFloor {
                    which: "atol",
                    value: a,
                    floor,
                    index: i,
                });
            }
        }
        Ok(())
    }

    /// `atolᵢ`.
    ///
    /// Errors: [`OdeError::IndexOutOfRange`] for `i` past a per-component vector.
    pub fn atol_at(&self, i: usize) -> Result<f64, OdeError> {
        match &self.atol {
            Atol::Scalar(a) => Ok(*a),
            Atol::PerComponent(v) => v.get(i).copied().ok_or(OdeError::IndexOutOfRange {
                what: "i",
                index: i,
                len: v.len(),
            }),
        }
    }

    /// The lengths of the per-component data (`atol`, weights) are `n`, else
    /// [`OdeError::WrongLength`].
    fn check_components(&self, n: usize) -> Result<(), OdeError> {
        if let Atol::PerComponent(v) = &self.atol {
            check_len("atol", v.len(), n)?;
        }
        if let Some(c) = &self.weights {
            check_len("weights", c.len(), n)?;
        }
        Ok(())
    }

    /// [`Tolerances::atol_at`] without the check (`i` inside a per-component vector).
    #[inline]
    pub(crate) fn atol_in(&self, i: usize) -> f64 {
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
    ///
    /// Errors: `y_abs`, a per-component `atol` or the weights not of the length of `s`
    /// ([`OdeError::WrongLength`]).
    pub fn inverse_scales(&self, y_abs: &[f64], s: &mut [f64]) -> Result<(), OdeError> {
        check_len("y_abs", y_abs.len(), s.len())?;
        self.check_components(s.len())?;
        self.inverse_scales_in(y_abs.iter().copied(), s);
        Ok(())
    }

    /// [`Tolerances::inverse_scales`] without the checks.
    pub(crate) fn inverse_scales_in(&self, y_abs: impl Iterator<Item = f64>, s: &mut [f64]) {
        if let (Atol::Scalar(atol), None) = (&self.atol, &self.weights) {
            // The common case without per-component data: `1 / w` (the same bits as `1.0 / w`).
            for (si, ya) in s.iter_mut().zip(y_abs) {
                *si = 1.0 / self.scale(*atol, ya);
            }
            return;
        }
        for (i, (si, ya)) in s.iter_mut().zip(y_abs).enumerate() {
            let w = self.scale(self.atol_in(i), ya);
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
    ///
    /// Errors: `s` not of the length of `e` ([`OdeError::WrongLength`]), `m` not in
    /// `1..=e.len()` ([`OdeError::IndexOutOfRange`] `"m"`).
    pub fn norm_scaled(&self, e: &[f64], s: &[f64], m: usize) -> Result<f64, OdeError> {
        check_len("s", s.len(), e.len())?;
        if m == 0 || m > e.len() {
            return Err(OdeError::IndexOutOfRange {
                what: "m",
                index: m,
                len: e.len() + 1,
            });
        }
        Ok(self.norm_scaled_in(e, s, m))
    }

    /// [`Tolerances::norm_scaled`] without the checks.
    #[inline]
    pub(crate) fn norm_scaled_in(&self, e: &[f64], s: &[f64], m: usize) -> f64 {
        norm_of(self.norm, e.iter().zip(s).map(|(ei, si)| ei * si), m)
    }

    /// `‖e‖` with the scale `wᵢ = atolᵢ + rtol·max(|aᵢ|, |bᵢ|)` (one-step methods).
    ///
    /// Errors: `a`, `b`, a per-component `atol` or the weights not of the length of `e`
    /// ([`OdeError::WrongLength`]).
    pub fn norm_two_point(&self, e: &[f64], a: &[f64], b: &[f64]) -> Result<f64, OdeError> {
        check_len("a", a.len(), e.len())?;
        check_len("b", b.len(), e.len())?;
        self.check_components(e.len())?;
        Ok(self.norm_two_point_in(e, a, b))
    }

    /// [`Tolerances::norm_two_point`] without the checks (`a`, `b` at least as long as `e`).
    pub(crate) fn norm_two_point_in(&self, e: &[f64], a: &[f64], b: &[f64]) -> f64 {
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
                let w = self.scale(self.atol_in(i), ai.abs().max(bi.abs()));
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
        let l2 = tol.norm_two_point(&e, &z, &z).unwrap();
        assert!((l2 - (9.0f64 / 4.0).sqrt()).abs() < 1e-14);
        let mx = tol
            .clone()
            .with_norm(ErrorNorm::Max)
            .norm_two_point(&e, &z, &z)
            .unwrap();
        assert!((mx - 2.0).abs() < 1e-14);
    }

    #[test]
    fn weights_exclude_components() {
        let tol = Tolerances::new(1e-3, 1e-6).with_weights(vec![1.0, 0.0]);
        let e = [1e-3, 1e10];
        let y = [1.0, 1.0];
        let v = tol.norm_two_point(&e, &y, &y).unwrap();
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
