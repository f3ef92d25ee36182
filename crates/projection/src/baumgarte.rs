//! Baumgarte's inexact constraint stabilization, Keerthi (4.3):
//!
//! ```text
//! [J q̈ + ρ] + α [J q̇ + b] + β φ = 0,   i.e.   φ̈ + α φ̇ + β φ = 0
//! ```
//!
//! replaces (1.4) in the acceleration solve; the rest is the direct method (`direct.rs`,
//! [`crate::Method::Baumgarte`]). Keerthi uses Baumgarte's critical damping `α = 2δ`, `β = δ²`
//! with δ = 2 ([`BaumgarteGains::critical`]); Huang writes (5.2.20)/(5.2.22)
//! `φ̈ + 2ρ₁² φ̇ + ρ₂² φ = 0`, i.e. `α = 2ρ₁²`, `β = ρ₂²` ([`BaumgarteGains::huang`]), and for
//! damping ratio 0.707 and settling time `t_s` (5.2.20 ff.):
//! `ω_n = 4.24328/t_s`, `ρ₂ = ω_n`, `ρ₁ = 0.84083·√ρ₂` ([`BaumgarteGains::huang_settling`]).
//! The linear system is Huang's (5.2.26) (our sign convention for λ).

use contour_model::Baumgarte;
use serde::{Deserialize, Serialize};

use crate::error::ProjectionError;

/// Gains of `φ̈ + α φ̇ + β φ = 0` (Keerthi (4.3)); both must be finite and non-negative.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BaumgarteGains {
    /// Velocity gain α \[1/s\].
    pub alpha: f64,
    /// Position gain β \[1/s²\].
    pub beta: f64,
}

fn check(name: &'static str, v: f64) -> Result<f64, ProjectionError> {
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(ProjectionError::InvalidParameter { name, value: v })
    }
}

impl BaumgarteGains {
    /// `α`, `β` as given; negative or non-finite gains are an error.
    pub fn new(alpha: f64, beta: f64) -> Result<Self, ProjectionError> {
        Ok(Self {
            alpha: check("alpha", alpha)?,
            beta: check("beta", beta)?,
        })
    }

    /// Critical damping `α = 2δ`, `β = δ²` (Baumgarte; Keerthi section 4, δ = 2 "optimal").
    /// δ = 0 is the direct approach. Negative δ is an error.
    pub fn critical(delta: f64) -> Result<Self, ProjectionError> {
        let d = check("delta", delta)?;
        Ok(Self {
            alpha: 2.0 * d,
            beta: d * d,
        })
    }

    /// Huang (5.2.20): `φ̈ + 2ρ₁² φ̇ + ρ₂² φ = 0`, so `α = 2ρ₁²`, `β = ρ₂²`.
    /// Negative ρ₁ or ρ₂ is an error (Huang's constants are positive).
    pub fn huang(rho1: f64, rho2: f64) -> Result<Self, ProjectionError> {
        let r1 = check("rho1", rho1)?;
        let r2 = check("rho2", rho2)?;
        Ok(Self {
            alpha: 2.0 * r1 * r1,
            beta: r2 * r2,
        })
    }

    /// Huang's underdamped choice (ζ = 0.707) for a settling time `t_s > 0`:
    /// `ω_n = 4.24328/t_s`, `ρ₂ = ω_n`, `ρ₁ = 0.84083 √ρ₂`.
    pub fn huang_settling(settling_time: f64) -> Result<Self, ProjectionError> {
        if !(settling_time.is_finite() && settling_time > 0.0) {
            return Err(ProjectionError::InvalidParameter {
                name: "settling_time",
                value: settling_time,
            });
        }
        let wn = 4.24328 / settling_time;
        Self::huang(0.84083 * wn.sqrt(), wn)
    }

    /// The model crate's Baumgarte terms (validated again).
    pub fn to_model(self) -> Result<Baumgarte, ProjectionError> {
        Ok(Baumgarte {
            alpha: check("alpha", self.alpha)?,
            beta: check("beta", self.beta)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gains() {
        let k = BaumgarteGains::critical(2.0).unwrap();
        assert_eq!((k.alpha, k.beta), (4.0, 4.0));
        let h = BaumgarteGains::huang(1.5, 3.0).unwrap();
        assert_eq!((h.alpha, h.beta), (4.5, 9.0));
        // ζ = α/(2√β) = 2·0.84083²·ω_n/(2ω_n) ≈ 0.707
        let s = BaumgarteGains::huang_settling(1.0).unwrap();
        let zeta = s.alpha / (2.0 * s.beta.sqrt());
        assert!((zeta - 0.707).abs() < 1e-3, "{zeta}");
    }

    #[test]
    fn negative_gains_are_errors() {
        assert!(matches!(
            BaumgarteGains::critical(-1.0),
            Err(ProjectionError::InvalidParameter { name: "delta", .. })
        ));
        assert!(BaumgarteGains::new(1.0, -1.0).is_err());
        assert!(BaumgarteGains::new(f64::NAN, 1.0).is_err());
        assert!(BaumgarteGains::huang(-0.1, 1.0).is_err());
        assert!(BaumgarteGains::huang_settling(0.0).is_err());
        let bad = BaumgarteGains {
            alpha: -1.0,
            beta: 0.0,
        };
        assert!(bad.to_model().is_err());
    }
}
