//! Integration statistics.

use serde::{Deserialize, Serialize};

/// Work counters of one integration, accumulated over the life of a stepper.
///
/// Explicit methods leave the implicit-method counters (`jacobian_evals`,
/// `factorizations`, `newton_iterations`, `newton_failures`) at zero.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Accepted steps (`N_i` in Keerthi's tables).
    pub steps: usize,
    /// Steps rejected by the error test (or by a failed corrector iteration).
    pub rejected_steps: usize,
    /// Evaluations of `f(t, y)` (or of the residual `F(t, y, y')`), `N_f` in Keerthi's tables.
    pub f_evals: usize,
    /// Jacobian evaluations (analytic or by finite differences).
    pub jacobian_evals: usize,
    /// LU / Cholesky factorizations of an iteration matrix.
    pub factorizations: usize,
    /// Newton (or secant) iterations over all steps.
    pub newton_iterations: usize,
    /// Failures of the Newton iteration to converge (each followed by a retry).
    pub newton_failures: usize,
    /// Events located by the driver.
    pub events: usize,
}
