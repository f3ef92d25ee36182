//! Options of the projector method: which velocity filtering (33), which configuration
//! correction (35)/(36) and how many, which acceleration solver ((29)–(31) or (9)).

use contour_linalg::DEFAULT_KKT_RANK_RTOL;
use serde::{Deserialize, Serialize};

use crate::error::ProjectionError;
use crate::method::check_parameters;

/// Where the velocity filtering (33) takes its directions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum VelocityFiltering {
    /// No filtering of the velocities.
    Off,
    /// `q̇ ← −W(q_{i+1}) b_{i+1} + P_a(q_{i+1}) q̇`, Kövecses (33) (at the corrected configuration).
    #[default]
    AtNewConfiguration,
    /// `q̇ ← −W(q_i) b_{i+1} + P_a(q_i) q̇` (the paper's alternative after (33)).
    AtPreviousConfiguration,
}

/// Which configuration correction is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ConfigurationCorrection {
    /// No configuration correction.
    Off,
    /// Kövecses (35): `q^{k+1} = q^k − W(q_i) h^k`, directions frozen at the previous step.
    QuasiIterative,
    /// Kövecses (36): `q^{k+1} = q^k − W(q^k) h^k`, directions updated (the paper's choice).
    #[default]
    Iterative,
}

/// How many configuration corrections per step.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum CorrectionCount {
    /// Exactly this many corrections ("open-loop", the paper recommends one or two).
    Fixed(usize),
    /// Until `‖φ‖₂ ≤ tol`; more than `max` corrections is [`ProjectionError::NoConvergence`].
    ToTolerance {
        /// Tolerance on `‖φ(t_{i+1}, q)‖₂` (units of φ).
        tol: f64,
        /// Most corrections per step.
        max: usize,
    },
}

impl Default for CorrectionCount {
    fn default() -> Self {
        Self::Fixed(2)
    }
}

/// How the accelerations of the integrated field are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum AccelerationSolver {
    /// Kövecses (29)–(31) with the weighted pseudo-inverse: valid for redundant constraints.
    #[default]
    Projection,
    /// The KKT system (9) (Lagrange multipliers, the paper's arm experiment); needs full row rank.
    Lagrange,
}

/// Options of the projector method ([`crate::Method::Projector`]).
///
/// `Default` — the paper's recommended setting: `velocity_filtering = AtNewConfiguration`
/// (one filtering (33) per step), `correction = Iterative` (36), `corrections = Fixed(2)`,
/// `acceleration = Projection` ((29)–(31)), `rank_rtol = 1e-6`
/// ([`contour_linalg::DEFAULT_KKT_RANK_RTOL`], the cut-off of the constrained dynamics),
/// `corrected_output = true`.
///
/// The rank cut-off `1e-6` is the safe one at singular configurations: with `1e-10` the
/// pseudo-inverse keeps the nearly lost constraint directions near a bifurcation (MBS
/// benchmark A02, the flat N four-bar), where the integrator's state error is as large as
/// those singular values, and the run can continue on another branch.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProjectorConfig {
    /// The velocity filtering (33).
    pub velocity_filtering: VelocityFiltering,
    /// The configuration correction (35) or (36).
    pub correction: ConfigurationCorrection,
    /// Number of configuration corrections per step.
    pub corrections: CorrectionCount,
    /// Accelerations by projection (29)–(31) or by the KKT system (9).
    pub acceleration: AccelerationSolver,
    /// Relative rank cut-off of the pseudo-inverse of `A L⁻ᵀ` (singular values
    /// `≤ rank_rtol·σ_max` are dropped), in `(0, 1)`: loosen it for configuration-dependent
    /// redundancy.
    pub rank_rtol: f64,
    /// Apply the same correction and filtering to interpolated outputs.
    pub corrected_output: bool,
}

impl Default for ProjectorConfig {
    fn default() -> Self {
        Self {
            velocity_filtering: VelocityFiltering::AtNewConfiguration,
            correction: ConfigurationCorrection::Iterative,
            corrections: CorrectionCount::Fixed(2),
            acceleration: AccelerationSolver::Projection,
            rank_rtol: DEFAULT_KKT_RANK_RTOL,
            corrected_output: true,
        }
    }
}

impl ProjectorConfig {
    /// The quasi-iterative correction (35), otherwise the defaults.
    #[must_use]
    pub fn quasi_iterative() -> Self {
        Self {
            correction: ConfigurationCorrection::QuasiIterative,
            ..Self::default()
        }
    }

    /// Checks `rank_rtol ∈ (0, 1)` (the range of `DynamicsOptions::rank_rtol`, and for the
    /// same reason: a zero cut-off keeps round-off singular values) and the correction
    /// tolerance.
    pub fn validate(&self) -> Result<(), ProjectionError> {
        let (tol, max) = match self.corrections {
            CorrectionCount::ToTolerance { tol, max } => (tol, max),
            CorrectionCount::Fixed(_) => (1.0, 1),
        };
        check_parameters(&[
            (
                "rank_rtol",
                self.rank_rtol,
                self.rank_rtol > 0.0 && self.rank_rtol < 1.0,
            ),
            ("correction tol", tol, tol > 0.0),
            ("correction max", max as f64, max > 0),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_the_papers_setting() {
        let c = ProjectorConfig::default();
        assert_eq!(c.velocity_filtering, VelocityFiltering::AtNewConfiguration);
        assert_eq!(c.correction, ConfigurationCorrection::Iterative);
        assert_eq!(c.corrections, CorrectionCount::Fixed(2));
        assert_eq!(c.acceleration, AccelerationSolver::Projection);
        assert_eq!(c.rank_rtol, 1e-6);
        assert!(c.validate().is_ok());
        assert_eq!(
            ProjectorConfig::quasi_iterative().correction,
            ConfigurationCorrection::QuasiIterative
        );
    }
}
