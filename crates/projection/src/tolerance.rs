//! The integration tolerance τ and its norm, shared by every method.
//!
//! Keerthi et al. measure the local error of `x = (q, q̇)` in a scaled l2 norm
//! `‖x‖ = sqrt(xᵀ W x)` with `W` diagonal (section 2). We write the scale of component `i`
//! as `wᵢ = atol + rtol·|xᵢ|` and offer three norms:
//!
//! * [`NormKind::L2`] — `‖e‖ = sqrt(Σ (eᵢ/wᵢ)²)` (the plain l2 norm of Shampine & Gordon's
//!   DE and of Keerthi's experiments: with `rtol = 0`, `‖e‖₂ ≤ atol`),
//! * [`NormKind::Rms`] — `sqrt(Σ (eᵢ/wᵢ)² / n)` (the root mean square),
//! * [`NormKind::Max`] — `max |eᵢ/wᵢ|` (not an l2 norm: refused by the perturbation approach).
//!
//! A step is accepted when `‖e‖ ≤ 1`, so "tolerance τ" is `atol = τ` (and/or `rtol = τ`).
//! [`ErrorControl::to_ode`] builds the `contour_ode::Tolerances` of a state of dimension `n`
//! (the plain l2 norm is the ode crate's RMS norm with every component weight `√n`).

use contour_ode::{ErrorNorm, Tolerances};
use serde::{Deserialize, Serialize};

use crate::error::ProjectionError;

/// Which norm measures the local error (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum NormKind {
    /// `sqrt(Σ (eᵢ/wᵢ)²)` — Keerthi's "l2 norm".
    #[default]
    L2,
    /// `sqrt(Σ (eᵢ/wᵢ)²/n)`.
    Rms,
    /// `max |eᵢ/wᵢ|`.
    Max,
}

/// The tolerance τ: `wᵢ = atol + rtol·|xᵢ|`, accepted when `‖e/w‖ ≤ 1`.
///
/// [`ErrorControl::absolute`]`(τ)` is Keerthi's setting (l2 norm, `‖e‖₂ ≤ τ`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ErrorControl {
    /// Relative tolerance (≥ 0).
    pub rtol: f64,
    /// Absolute tolerance (≥ 0; `rtol + atol > 0`).
    pub atol: f64,
    /// The norm.
    pub norm: NormKind,
}

impl ErrorControl {
    /// Pure absolute tolerance `τ` in the plain l2 norm: `‖e‖₂ ≤ τ`.
    #[must_use]
    pub fn absolute(tau: f64) -> Self {
        Self {
            rtol: 0.0,
            atol: tau,
            norm: NormKind::L2,
        }
    }

    /// `rtol = atol = τ` in the plain l2 norm.
    #[must_use]
    pub fn mixed(tau: f64) -> Self {
        Self {
            rtol: tau,
            atol: tau,
            norm: NormKind::L2,
        }
    }

    /// Same tolerance in another norm.
    #[must_use]
    pub fn with_norm(mut self, norm: NormKind) -> Self {
        self.norm = norm;
        self
    }

    /// The tolerance multiplied by `factor` (`τ/2` of Procedure P1 is `scaled(0.5)`).
    #[must_use]
    pub fn scaled(self, factor: f64) -> Self {
        Self {
            rtol: self.rtol * factor,
            atol: self.atol * factor,
            norm: self.norm,
        }
    }

    /// Largest accepted `rtol` and `atol`: a tolerance above 1 (in the units of `q` and `q̇`)
    /// cannot keep a manifold it claims to keep (`absolute(1e300)` would never project).
    pub const MAX_TOLERANCE: f64 = 1.0;
    /// Smallest accepted non-zero `rtol` (4 ε: no step can be accurate to less).
    pub const MIN_RTOL: f64 = 4.0 * f64::EPSILON;
    /// Smallest accepted non-zero `atol` (a state below 1e-100 is outside any physical scale;
    /// smaller values only overflow the error weights).
    pub const MIN_ATOL: f64 = 1e-100;

    /// Checks the tolerances ([`ProjectionError::InvalidTolerance`] names the bound broken):
    /// finite, `0 ≤ rtol, atol ≤` [`Self::MAX_TOLERANCE`], not both zero, and a non-zero
    /// `rtol ≥` [`Self::MIN_RTOL`], a non-zero `atol ≥` [`Self::MIN_ATOL`].
    pub fn validate(&self) -> Result<(), ProjectionError> {
        for (which, v, min) in [
            ("rtol", self.rtol, Self::MIN_RTOL),
            ("atol", self.atol, Self::MIN_ATOL),
        ] {
            let reason = if !(v.is_finite() && v >= 0.0) {
                Some("must be finite and non-negative")
            } else if v > Self::MAX_TOLERANCE {
                Some("must be at most 1: a larger tolerance cannot keep the constraints")
            } else if v > 0.0 && v < min {
                Some("below what f64 arithmetic can resolve (rtol >= 4 eps, atol >= 1e-100)")
            } else {
                None
            };
            if let Some(reason) = reason {
                return Err(ProjectionError::InvalidTolerance {
                    which,
                    value: v,
                    reason,
                });
            }
        }
        if self.rtol == 0.0 && self.atol == 0.0 {
            return Err(ProjectionError::InvalidTolerance {
                which: "atol",
                value: 0.0,
                reason: "rtol and atol cannot both be zero",
            });
        }
        Ok(())
    }

    /// `contour_ode::Tolerances` for a state of dimension `n` (all components tested).
    pub fn to_ode(&self, n: usize) -> Tolerances {
        let t = Tolerances::new(self.rtol, self.atol);
        match self.norm {
            NormKind::Rms => t,
            NormKind::Max => t.with_norm(ErrorNorm::Max),
            // sqrt(Σ (√n eᵢ/wᵢ)² / n) = sqrt(Σ (eᵢ/wᵢ)²)
            NormKind::L2 => t.with_weights(vec![(n.max(1) as f64).sqrt(); n]),
        }
    }

    /// `contour_ode::Tolerances` for a state of dimension `n` whose last `n_alg` components are
    /// excluded from the error test (weight 0: the algebraic variables of a DAE).
    pub fn to_ode_with_algebraic(&self, n: usize, n_alg: usize) -> Tolerances {
        let nd = n - n_alg;
        let c = match self.norm {
            NormKind::L2 => (nd.max(1) as f64).sqrt(),
            _ => 1.0,
        };
        // The ode norm divides by the number m of active components; the plain l2 norm over
        // the nd differential components needs the weight √nd on each.
        let mut w = vec![c; n];
        for wi in &mut w[nd..] {
            *wi = 0.0;
        }
        let t = Tolerances::new(self.rtol, self.atol).with_weights(w);
        match self.norm {
            NormKind::Max => t.with_norm(ErrorNorm::Max),
            _ => t,
        }
    }

    /// Inverse scales `sᵢ = 1/(wᵢ·√m)` (`m = n` for the RMS norm, `1` for plain l2) at the
    /// reference magnitudes `|xᵢ|`, so that `‖e‖ = ‖diag(s) e‖₂` — the `T⁻¹` of Keerthi (2.11)
    /// with `T'WT = I`.
    pub fn inverse_scales(&self, x: &[f64], s: &mut [f64]) {
        let m = match self.norm {
            NormKind::Rms => x.len().max(1) as f64,
            _ => 1.0,
        };
        let sq = m.sqrt();
        for (si, xi) in s.iter_mut().zip(x) {
            let w = (self.atol + self.rtol * xi.abs()).max(f64::MIN_POSITIVE);
            *si = 1.0 / (w * sq);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_l2_through_weights() {
        let ec = ErrorControl::absolute(1e-3);
        let t = ec.to_ode(4);
        let e = [1e-3, 0.0, 0.0, 0.0];
        let z = [0.0; 4];
        assert!((t.norm_two_point(&e, &z, &z).unwrap() - 1.0).abs() < 1e-14);
        let mut s = [0.0; 4];
        ec.inverse_scales(&z, &mut s);
        assert!((s[0] - 1e3).abs() < 1e-9);
        let r = ErrorControl::absolute(1e-3)
            .with_norm(NormKind::Rms)
            .to_ode(4);
        assert!((r.norm_two_point(&e, &z, &z).unwrap() - 0.5).abs() < 1e-14);
    }

    #[test]
    fn validation() {
        assert!(ErrorControl::absolute(0.0).validate().is_err());
        assert!(ErrorControl::absolute(-1e-4).validate().is_err());
        assert!(ErrorControl::absolute(f64::NAN).validate().is_err());
        assert!(ErrorControl::mixed(1e-4).validate().is_ok());
    }

    #[test]
    fn algebraic_components_out_of_the_test() {
        let t = ErrorControl::absolute(1.0).to_ode_with_algebraic(6, 2);
        let e = [1.0, 0.0, 0.0, 0.0, 1e9, 1e9];
        let z = [0.0; 6];
        assert!((t.norm_two_point(&e, &z, &z).unwrap() - 1.0).abs() < 1e-14);
    }
}
