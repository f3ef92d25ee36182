//! [`PerturbationConfig`]: the options of Procedure P1 and their defaults.

use serde::{Deserialize, Serialize};

use crate::error::ProjectionError;
use crate::method::check_parameters;

use super::sparse::SparseMode;

/// Which Jacobian the velocity correction uses.
///
/// **Why `Projected` is the default**. With `Predicted` the corrected state keeps a
/// velocity-constraint residual `J(qₖ₊₁) vₖ₊₁ + b = (J(qₖ₊₁) − J(q̄)) vₖ₊₁ = O(‖qₖ₊₁ − q̄‖·‖v‖)`.
/// The next step starts from it, so its correction `‖X*‖` is at least that residual whatever
/// the step size: Remark 2.5's step halving cannot reduce it. On Andrews' squeezer at
/// `ErrorControl::mixed(1e-4)` (ABM) the residual left after the accepted steps grows
/// 0.07τ → 0.40τ → 0.99τ as the velocities rise near t = 0.025, passes the acceptance bound
/// τ/2, and the run fails after 20 halvings with `‖X*‖ = 0.74τ` (RKG fails likewise at τ = 1e-8
/// and 1e-10). With `Projected` the residual is round-off after every step and every
/// method × integrator × τ of the Andrews test completes, at one more QR of an `N × L` matrix
/// per step (no extra right-hand-side evaluation). `Predicted` stays available as Keerthi's
/// published algorithm ([`PerturbationConfig::keerthi`], used for the paper's tables).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum VelocityJacobian {
    /// `J(q̄)` at the uncorrected position, Keerthi (3.4): shares the QR of the position
    /// problem; leaves `J(qₖ₊₁) vₖ₊₁ + b = O(‖qₖ₊₁ − q̄‖·‖v‖)`.
    Predicted,
    /// `J(qₖ₊₁)` at the corrected position: `J q̇ + b = 0` to round-off, one more QR per step.
    #[default]
    Projected,
}

/// Options of the perturbation approach.
///
/// Defaults: `step_tolerance_factor = 0.5` (τ/2 of (2.2)), `accept_factor = 0.5`
/// (`‖X*‖ ≤ τ/2`, Remark 2.5), `max_newton_iterations = 10`, `newton_tol = 1e-8` (size of the
/// last MNR update in units of τ; round-off also stops it), `velocity_jacobian = Projected`
/// (see [`VelocityJacobian`]; Keerthi's (3.4) is [`PerturbationConfig::keerthi`]), `max_redos = 20`, `project_before_final_evaluation = true` (ABM only),
/// `projected_output = true` (Remark 2.2), `roundoff_filter = true`, `sparse = Auto`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PerturbationConfig {
    /// Factor of τ used by the integrator in step 1 (0.5 in Procedure P1).
    pub step_tolerance_factor: f64,
    /// Accept the correction when `‖X*‖ ≤ accept_factor·τ`.
    pub accept_factor: f64,
    /// MNR iterations allowed for the position problem (3.5).
    pub max_newton_iterations: usize,
    /// MNR stops when the update `‖δQ‖₂ ≤ newton_tol` (units of τ).
    pub newton_tol: f64,
    /// Jacobian of the velocity correction.
    pub velocity_jacobian: VelocityJacobian,
    /// Step halvings allowed when a correction is refused.
    pub max_redos: usize,
    /// ABM: project before the final evaluation of PECE (see the module documentation).
    pub project_before_final_evaluation: bool,
    /// Project interpolated outputs onto `M` (Remark 2.2).
    pub projected_output: bool,
    /// Leave out the round-off of the residuals amplified by `1/σ_min` near a rank loss (module
    /// docs, "Round-off filter"), with the rank cut-off `(64 ε)^{1/3}` where
    /// `DynamicsOptions::rank_rtol` is not set. Default `true` (off in
    /// [`PerturbationConfig::keerthi`]; a serialized configuration without the field gets the
    /// default). Measured on A02 (`NFourBar`, 20 s, τ = 1e-9): with it every run at N = 1 and
    /// 4 passes (ABM, DOPRI5, RK-Gill, BDF), and at N = 40 ABM, RK-Gill and BDF pass (DOPRI5
    /// ends with "step size too small" at the second passage, t = 1.24); without it most of
    /// these stop at a passage. A refused correction takes the rank-revealing second look only where the
    /// refusal certificate cannot show that the second look refuses it too (module docs).
    #[serde(default = "default_true")]
    pub roundoff_filter: bool,
    /// Dense or sparse linear algebra for the evaluations and corrections
    /// ([`SparseMode`]; default [`SparseMode::Auto`]: sparse for mechanisms that declare their
    /// pattern from [`SPARSE_CROSSOVER_DOF`](super::sparse::SPARSE_CROSSOVER_DOF)
    /// coordinates). A serialized configuration without the field gets the default.
    #[serde(default)]
    pub sparse: SparseMode,
}

impl Default for PerturbationConfig {
    fn default() -> Self {
        Self {
            step_tolerance_factor: 0.5,
            accept_factor: 0.5,
            max_newton_iterations: 10,
            newton_tol: 1e-8,
            velocity_jacobian: VelocityJacobian::Projected,
            max_redos: 20,
            project_before_final_evaluation: true,
            projected_output: true,
            roundoff_filter: true,
            sparse: SparseMode::Auto,
        }
    }
}

fn default_true() -> bool {
    true
}

impl PerturbationConfig {
    /// Procedure P1 exactly as Keerthi et al. state it: the velocity correction with `J(q̄)`
    /// (3.4), sharing the position problem's QR, and no round-off filter. The paper's tables
    /// are computed with it; the default differs in [`VelocityJacobian::Projected`] and
    /// [`PerturbationConfig::roundoff_filter`].
    pub fn keerthi() -> Self {
        Self {
            velocity_jacobian: VelocityJacobian::Predicted,
            roundoff_filter: false,
            ..Self::default()
        }
    }

    pub(super) fn validate(&self) -> Result<(), ProjectionError> {
        check_parameters(&[
            (
                "step_tolerance_factor",
                self.step_tolerance_factor,
                self.step_tolerance_factor > 0.0 && self.step_tolerance_factor <= 1.0,
            ),
            (
                "accept_factor",
                self.accept_factor,
                self.accept_factor > 0.0,
            ),
            ("newton_tol", self.newton_tol, self.newton_tol > 0.0),
            (
                "max_newton_iterations",
                self.max_newton_iterations as f64,
                self.max_newton_iterations > 0,
            ),
        ])
    }
}
