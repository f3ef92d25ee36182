//! The perturbation approach of Keerthi, Sudarsan & Sancheti (after Shampine 1986),
//! Procedure P1:
//!
//! 1. integrate (1.5) over one step with local error control at tolerance τ/2 (2.2),
//!    ignoring (1.6), giving `x̄ₖ₊₁`;
//! 2. correct `x̄ₖ₊₁` onto `M = {g(x) = 0}`: `min ‖x − x̄‖ s.t. g(x) = 0` (2.3), with
//!    `‖x‖ = sqrt(xᵀWx)` the integrator's scaled l2 norm.
//!
//! **The correction.** With `x = x̄ + T X`, `TᵀWT = I` (2.11), the problem is
//! `min ‖X‖₂²/2 s.t. G(X) = 0` (2.12)–(2.13); the modified Newton–Raphson iteration (MNR) of
//! (2.15)–(2.17) freezes `G_X(0)`: `X = G_X(0)ᵀμ`, `G_X(0) G_X(0)ᵀ δμ = −G(X_l)` solved
//! through the skinny QR `G_X(0)ᵀ = Q₁R₁` as `R₁ᵀR₁ δμ = −G(X_l)` (2.16), `μ += δμ`,
//! `X = G_X(0)ᵀ μ` (2.17). For mechanical systems (section 3) `x = (q, v)`,
//! `T = diag(T₁, T₂)` (3.1) and the problem splits (3.2)–(3.6) into
//!
//! * positions (3.5): `min ‖Q‖²/2 s.t. φ(q̄ + T₁Q) = 0`, MNR with the QR of `(J(q̄)T₁)ᵀ` (3.7),
//!   iterated until the update is below `newton_tol` (or at round-off);
//! * velocities (3.6): `min ‖V‖²/2 s.t. J(q̄)(v̄ + T₂V) + b = 0` (3.4) — affine, one MNR step
//!   is exact. When `W₂ = α²W₁` (so `T₂ = T₁/α`) the QR of `(J T₂)ᵀ` is `Q₁ (R₁/α)` and no
//!   second factorization is needed (end of section 3); otherwise a second QR is computed.
//!
//! The correction is accepted when `‖X*‖ ≤ τ/2` (Remark 2.5); otherwise the step is redone
//! with half the step size. **Redo mechanism:** the `contour_ode` steppers have no "reject
//! the last accepted step" call, so we keep `(tₖ, xₖ)` and `restart` the stepper from it with
//! `set_max_step(h/2)` (for ABM the restart drops the difference history — Remark 2.5 says
//! this is "extremely rare"; it is counted in `redone_steps` and `restarts`). With the BDF
//! ([`crate::BdfOde`]) `replace_y` shifts the whole history polynomial by the correction
//! (DASSL's `φ₁ += x − x̄`, no evaluation) and a redo restarts it at order 1 with
//! `ẋ = f(x)`.
//!
//! **PECE with the projection before the last evaluation (ABM).** Keerthi's counts
//! `N_f = 2 N_i` mean that the final E of PECE is done at the corrected point: P E C
//! *(project)* E. The ABM stepper of `contour_ode` evaluates at the unprojected corrector and
//! `replace_y` then re-evaluates at the moved point and shifts every stored difference by the
//! change `δ = f(x_{k+1}) − f(x̄_{k+1})` — the same difference table as evaluating at the
//! moved point directly (see `adams_bashforth_moulton.rs`), at the cost of one wasted
//! evaluation per step. With `project_before_final_evaluation` (default, ABM only) the
//! right-hand side recognises the second evaluation at the same time `tₖ₊₁` (S&G's STEP
//! evaluates exactly twice at an accepted `tₖ₊₁`: predictor and corrector; a rejected attempt
//! evaluates once and retries at another time), projects there, evaluates `f` at the projected
//! point only, and answers `replace_y`'s evaluation at that point from a cache (`δ = 0`). The
//! test `abm_project_before_final_evaluation_is_equivalent` checks that both variants give the
//! same solution to round-off with one evaluation per step less.
//!
//! **Singular configurations.** Where `J` loses rank (a flat four-bar, MBS benchmark A02) the
//! normal equations `R₁ᵀR₁ δμ = −G` have no unique solution and, near the singularity, amplify
//! the residual in the nearly lost direction by `1/σ_min²`. When the skinny QR comes near a
//! relative rank loss (`|R_ii| ≤ rank_rtol · max |R_jj|`, or its condition estimate
//! [`SkinnyQr::condition_estimate`] `≤ 10 · rank_rtol`; `rank_rtol` is the cut-off of
//! [`contour_linalg::KktSolver`], [`DEFAULT_KKT_RANK_RTOL`] = 1e-6) the SVD decides, and the
//! correction is the minimum-norm one over the kept singular directions of
//! `A = (J T)ᵀ = U Σ Vᵀ`:
//! `δX = U_r Σ_r⁻¹ V_rᵀ (−G)` (the pseudo-inverse form of (2.16)–(2.17); `σ_i ≤ rank_rtol·σ_max`
//! dropped). The residual left in the dropped directions must be one a move of the accepted
//! size could leave: `|G_i| ≤ accept_factor · Σ_k |J_ik| T_k` (plus round-off) — at a
//! genuine singular passage it is second order in the integration error (`φ` is quadratic in
//! the lost direction, and `J v` has no first-order part there); a larger one (e.g. a
//! pendulum at its pivot, `J = 0`) refuses the correction, and the step is redone. With
//! [`RankDeficiency::Error`] ([`ManifoldProjection::set_rank`]) a numerical rank below `L`
//! (from the same SVD) is [`LinalgError::RankDeficient`] instead. Above the cut-off the QR path
//! runs unchanged. Near a singular configuration the MNR updates stall at the round-off of `φ`
//! amplified by `1/σ_min` and do not meet `newton_tol`: after `max_newton_iterations` a point
//! whose `φ` is at its round-off (`|φ_i| ≤ 64 ε max_k |q_k| Σ_k |J_ik|`; with the round-off
//! filter `64 ε Σ_k |J_ik| |q_k|`) counts as converged.
//!
//! **Round-off filter** ([`PerturbationConfig::roundoff_filter`], on by default, off in
//! [`PerturbationConfig::keerthi`]; its documentation gives the measured effect). A residual known only to its round-off `noise_i` carries
//! no information along a direction whose singular value `σ` is small: correcting it by
//! `residual/σ` moves the state by amplified round-off, which halving the step does not
//! shrink (the steps collapse to "step size too small"). The round-off of a residual row
//! `J x + …` at `x` is `noise_i = 64 ε Σ_k |J_ik| |x_k|`: the representation error `ε |x_k|` of
//! each coordinate, through the row, with the evaluation factor 64 (component by component,
//! so that coordinates of very different sizes, such as the angles of Andrews' squeezer,
//! each count at their own size). The rank-revealing path runs
//!
//! * when the residual's round-off amplified by `1/σ_min` (`‖noise‖/σ̂_min`, with the QR's
//!   condition estimate) could exceed `NOISE_SHARE` (1%) of the acceptance bound, and
//! * for a second look at a correction the acceptance bound refuses (`‖X*‖ > accept_factor`
//!   or not converged): a refusal is where amplified round-off decides between redoing the
//!   step and accepting it; a genuine correction is refused by both paths alike. The sparse
//!   path ([`crate::sparse`]) hands such a correction to this one. The corrections of outputs
//!   (Remark 2.2) are neither accepted nor refused and take no second look.
//!
//! **Refusal certificate.** Most refusals are genuine (the step's error is too large and the
//! step is redone anyway), and the second look (an SVD of the `N × L` matrix `A` per problem)
//! costs far more than the QR or sparse correction. The second look changes the correction
//! only by the components it leaves out: along a kept direction `i` by at most `ν_i/σ_i`, and
//! `ν_i = Σ_r |v_ri| noise_r ≤ ‖noise‖₁` (the rows of the orthogonal `V` have unit length),
//! so `‖X*_QR − X*_SVD‖ ≤ ‖noise‖₁/σ_min` for each problem, as long as no direction falls
//! below the rank cut-off (then the second look drops it whole). The velocity residual's
//! round-off includes the position's uncertainty `B_q = ‖noise_q‖₁/σ_min(A₁)` along the
//! nearly lost direction `u` (`B_q ‖(J(q + T₁u) − J(q)) v̄‖₁`). The second look is skipped
//! when `‖X*‖ − 2 · hypot(B_q, B_v) > accept_factor` (per MNR iteration when not converged):
//! then it refuses the correction too. `σ_min` is estimated by three steps of inverse
//! iteration on `G Gᵀ` with the factorization at hand (the QR's `RᵀR` here, the sparse `LDLᵀ`
//! of `[I Gᵀ; G 0]` on the sparse path, O(nnz) per solve): an upper estimate, which the
//! factor 2 covers (near a rank loss the gap to the next singular value makes it converge
//! fast). Where the estimate is within twice the rank cut-off of `‖A‖_F` or a solve stalls,
//! the second look runs; where the first correction already went by the SVD in both problems,
//! it is skipped (it would repeat that correction). A refusal close to the bound, or
//! near a singular configuration where `B_v` grows as `1/σ_min²`, still gets its second look
//! (test `refusal_certificate_skips_only_genuine_refusals`).
//!
//! The certificate is exact for one nearly lost direction. Where several are lost together the
//! second look adds the position's uncertainty of every kept direction (on A02 with 40 loops,
//! 9 to 63 directions of nearly equal `‖ΔJ_j v̄‖₁` near a flat position), and the factor 2
//! need not cover their sum: a refusal it certifies could then have been accepted by the
//! second look, and the step is redone at a smaller size (cost, not a wrong state; a refused
//! correction is never returned). Measured on A02 at N = 40, τ = 1e-9 (ABM, RK-Gill, BDF): with and
//! without the certificate every run takes the same steps and evaluations. A bound over the whole
//! small-singular subspace (block inverse iteration) would make it exact there.
//!
//! Over each kept direction `(u_i, σ_i, v_i)` of `A = U Σ Vᵀ` it corrects only the part of the
//! component `c_i = v_iᵀ(−G)` above its round-off `ν_i = Σ_r |v_ri| noise_r`:
//! `δX = Σ_i u_i sign(c_i) max(|c_i| − ν_i, 0) / σ_i` (a soft threshold: the residual is
//! brought back to its round-off, so a slowly growing residual is corrected by its growth,
//! not by `ν_i/σ_i` at once). What is not corrected is not counted in `‖X*‖`, and the state
//! meets the constraints to their round-off. The velocity residual also carries the
//! uncertainty of the corrected position: along a kept position direction the position is
//! known to `η_j = Σ_r |v_rj| noise_r / σ_j`, which changes `J(q) q̇` by
//! `η_j (J(q + T₁u_j) − J(q)) q̇` (near a crossing `∝ 1/σ_j`; correcting it would turn the
//! velocity along the level set of the round-off of `φ`, a hyperbola onto another branch). The
//! velocity problem takes the rank-revealing path whenever the position problem does. Its
//! check of the residual left in the dropped directions (above) takes the residual's part in
//! those directions, `Σ_{i ≥ r} v_i v_iᵀ r` (`r` the rank): the soft threshold leaves each kept
//! component at its round-off direction by direction, a bound that the rows of the residual
//! need not meet. Near a crossing the position's uncertainty makes `ν_i` of the kept
//! directions large, and a check of every row would refuse, at every step size, a correction
//! that leaves only such components (A02 with 40 loops, DOPRI5 at τ = 1e-9: at t = 1.22 with
//! nothing dropped). With
//! the filter the rank cut-off of the correction and of the evaluations defaults to
//! `ROUNDOFF_RANK_RTOL = (64 ε)^{1/3}` (its documentation gives the argument).
//!
//! **Dense output** (Remark 2.2): the integrator's interpolant, projected onto `M` by the
//! same correction (`projected_output`, default on).

use contour_linalg::{LinalgError, PseudoInverse, SkinnyQr, DEFAULT_KKT_RANK_RTOL};
use contour_model::{ConstrainedDynamics, Mechanism, RankDeficiency};
use contour_ode::{OdeError, OdeRhs, RhsError};
use faer::Mat;
use serde::{Deserialize, Serialize};

use crate::error::ProjectionError;
use crate::integrator::Integrator;
use crate::method::{
    check_parameters, jacobian_rank, Accepted, AfterStep, ConstraintMethod, MethodStart,
    Multipliers, RunContext,
};
use crate::rhs::{ode_error, ConstrainedRhs};
use crate::tolerance::{ErrorControl, NormKind};
use crate::trajectory::SimulationStats;

/// The share of the acceptance bound `accept_factor · τ` that the round-off of a residual,
/// amplified by `1/σ_min` of `(J T)ᵀ`, may take in a correction by the QR path; above it the
/// SVD path, which leaves out the components at round-off, decides (module docs). At 1% the
/// round-off moves `‖X*‖` by at most 1% of the bound, below the two digits to which the
/// acceptance test `‖X*‖ ≤ τ/2` is meaningful (the local error estimate it stands for is
/// itself an estimate); the second look at a refused correction covers the rest.
const NOISE_SHARE: f64 = 0.01;

/// The relative rank cut-off of the perturbation method with the round-off filter (the
/// correction's SVD and the evaluations' rank-revealing solve), `(64 ε)^{1/3}` ≈ 2.42e-5.
///
/// A state the correction leaves on the constraints to their round-off `c = 64 ε · scale`
/// (module docs, "Round-off filter") lies on the level set `φ = c`, which near a crossing of
/// branches is a hyperbola: at relative distance `θ` from the crossing its velocity leaves the
/// branch by about `c |v| / θ²`, and the acceleration data `J q̈ = −ρ` are inconsistent in
/// the nearly lost direction by about `c |v|² / θ²` (relative to the row's terms `|v|²`:
/// `c/θ²`). The evaluation drops that direction once `θ ≤ r` and accepts an inconsistency up
/// to `r` times the row's terms ([`contour_model::ModelError::InconsistentAtSingularity`]);
/// the largest one it meets, at `θ = r`, is `c/r²`. So `r³ ≥ c` with `c = 64 ε`:
/// `r = (64 ε)^{1/3}`. A cut-off set in `DynamicsOptions::rank_rtol` is used instead.
pub(crate) const ROUNDOFF_RANK_RTOL: f64 = 2.42e-5;

/// The safety factor of the refusal certificate (module docs, "Round-off filter"): a refused
/// correction skips the second look only when `‖X*‖` exceeds the acceptance bound by more than
/// twice the estimated effect of the round-off. It covers the inverse iteration's estimate of
/// `σ_min` (an upper estimate within a small factor of it: three steps, and near a rank loss the
/// gap `σ_min/σ_2` makes them converge fast) and the directions other than the nearly lost one
/// in the velocity residual's sensitivity to the position (at the ordinary round-off of `q`).
const CERTIFICATE_SAFETY: f64 = 2.0;

/// Steps of inverse iteration of the refusal certificate's `σ_min` estimate (as
/// [`SkinnyQr::condition_estimate`]).
const INVERSE_ITERATIONS: usize = 3;

/// An upper estimate `σ̂ ≥ σ_min(G)` of the smallest singular value of `G` by
/// [`INVERSE_ITERATIONS`] steps of inverse iteration on `G Gᵀ` from the fixed start of
/// [`SkinnyQr::condition_estimate`] (alternating signs): `solve` replaces its argument `x` by
/// `(G Gᵀ)⁻¹ x` (`false`: it cannot); `σ̂ = ‖(G Gᵀ)⁻¹ x‖^(-1/2)` for the last unit `x`, which
/// is left in `x` normalized (the estimate of the left singular vector of `σ_min`). `None`
/// when a solve fails or gives a zero or non-finite vector.
pub(crate) fn smallest_singular_value(
    x: &mut [f64],
    mut solve: impl FnMut(&mut [f64]) -> bool,
) -> Option<f64> {
    let m = x.len();
    if m == 0 {
        return None;
    }
    for (i, xi) in x.iter_mut().enumerate() {
        let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
        *xi = sign * (1.0 + i as f64 / m as f64);
    }
    let mut est = None;
    for _ in 0..INVERSE_ITERATIONS {
        let nx = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        for xi in x.iter_mut() {
            *xi /= nx;
        }
        if !solve(x) {
            return None;
        }
        let nz = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        if !(nz.is_finite() && nz > 0.0) {
            return None;
        }
        // ‖(G Gᵀ)⁻¹ x‖ ≤ 1/σ_min² for a unit x
        est = Some(nz.powf(-0.5));
    }
    let nx = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    for xi in x.iter_mut() {
        *xi /= nx;
    }
    est
}

/// The refusal certificate (module docs, "Round-off filter"): whether a correction the
/// acceptance bound refuses (`norm > accept`, or not converged after `iterations`) stays
/// refused by the rank-revealing second look, which can change `‖X*‖` by at most `bound`
/// (the round-off amplified by `1/σ_min`, in units of τ) per MNR iteration. A non-finite
/// norm or bound proves nothing.
pub(crate) fn refusal_stands(o: &ProjectionOutcome, accept: f64, bound: f64) -> bool {
    let iterations = if o.converged {
        1.0
    } else {
        o.iterations.max(1) as f64
    };
    let change = CERTIFICATE_SAFETY * bound * iterations;
    o.norm.is_finite() && change.is_finite() && o.norm - change > accept
}

/// `out = A x` for a column-major `A`, column by column.
fn mat_vec(a: &Mat<f64>, x: &[f64], out: &mut [f64]) {
    out.fill(0.0);
    for (k, &xk) in x.iter().enumerate().take(a.ncols()) {
        if xk == 0.0 {
            continue;
        }
        for (o, &aik) in out.iter_mut().zip(a.col_as_slice(k)) {
            *o += aik * xk;
        }
    }
}

/// `Σ |x_i|`.
pub(crate) fn norm1(x: &[f64]) -> f64 {
    x.iter().map(|v| v.abs()).sum()
}

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
/// `projected_output = true` (Remark 2.2), `roundoff_filter = true`.
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

    fn validate(&self) -> Result<(), ProjectionError> {
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

/// Result of one manifold correction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProjectionOutcome {
    /// `‖X*‖₂ = ‖x − x̄‖` in units of τ.
    pub norm: f64,
    /// MNR iterations of the position problem.
    pub iterations: usize,
    /// Whether the position iteration converged.
    pub converged: bool,
}

/// The manifold correction of Procedure P1 step 2, (3.1)–(3.7), in preallocated storage.
#[derive(Debug)]
pub struct ManifoldProjection {
    n: usize,
    l: usize,
    ec: ErrorControl,
    max_it: usize,
    newton_tol: f64,
    vel: VelocityJacobian,
    s: Vec<f64>,
    t1: Vec<f64>,
    t2: Vec<f64>,
    j: Mat<f64>,
    a1: Mat<f64>,
    a2: Mat<f64>,
    qr1: SkinnyQr,
    qr2: SkinnyQr,
    phi: Vec<f64>,
    b: Vec<f64>,
    dmu: Vec<f64>,
    /// Round-off level of each residual row (module docs, "Round-off filter").
    noise: Vec<f64>,
    /// The round-off level of the position residual, kept for the velocity problem.
    noise_q: Vec<f64>,
    /// `J(q + w)` and `q + w` for the velocity residual's sensitivity to the position.
    jw: Mat<f64>,
    qw: Vec<f64>,
    xq: Vec<f64>,
    xv: Vec<f64>,
    accept: f64,
    rank_rtol: f64,
    rank_deficiency: RankDeficiency,
    roundoff_filter: bool,
    /// Compute a refused correction again by the rank-revealing path (with the round-off
    /// filter; not for the corrections of outputs, which are neither accepted nor refused).
    second_look: bool,
    /// Take the rank-revealing path whatever the QR says (the second look at a refused
    /// correction, module docs).
    force_svd: bool,
    /// The refused first correction, kept while the second look runs.
    refused: Vec<f64>,
    /// The SVD of the rank-revealing path (`A₁`, then `A₂` when it has its own).
    svd: PseudoInverse,
    /// Whether the last correction took the rank-revealing path in the position and in the
    /// velocity problem.
    used_svd: (bool, bool),
    /// The refusal certificate's inverse iteration (`L`), direction `u` (`N`) and `J v̄` (`L`).
    iv: Vec<f64>,
    iu: Vec<f64>,
    jv: Vec<f64>,
    /// Refused corrections computed again by the rank-revealing path (module docs).
    pub second_looks: usize,
    /// Refused corrections the refusal certificate kept from the second look.
    pub certified_refusals: usize,
    /// Corrections computed.
    pub projections: usize,
    /// MNR iterations of the position problems.
    pub iterations: usize,
    /// QR factorizations.
    pub qr_factorizations: usize,
    /// Position or velocity problems solved by the rank-revealing (SVD) path.
    pub rank_revealing: usize,
}

impl ManifoldProjection {
    /// Workspace for `mech` with tolerance `ec` (the τ of (2.1), not τ/2).
    pub fn new<M: Mechanism + ?Sized>(
        mech: &M,
        ec: ErrorControl,
        cfg: &PerturbationConfig,
    ) -> Result<Self, ProjectionError> {
        let (n, l) = (mech.dof(), mech.n_constraints());
        if ec.norm == NormKind::Max {
            return Err(ProjectionError::UnsupportedNorm {
                method: "perturbation",
            });
        }
        ec.validate()?;
        cfg.validate()?;
        Ok(Self {
            n,
            l,
            ec,
            max_it: cfg.max_newton_iterations,
            newton_tol: cfg.newton_tol,
            vel: cfg.velocity_jacobian,
            s: vec![0.0; 2 * n],
            t1: vec![0.0; n],
            t2: vec![0.0; n],
            j: Mat::zeros(l, n),
            a1: Mat::zeros(n, l),
            a2: Mat::zeros(n, l),
            qr1: SkinnyQr::new(n, l),
            qr2: SkinnyQr::new(n, l),
            phi: vec![0.0; l],
            b: vec![0.0; l],
            dmu: vec![0.0; l],
            noise: vec![0.0; l],
            noise_q: vec![0.0; l],
            jw: Mat::zeros(l, n),
            qw: vec![0.0; n],
            xq: vec![0.0; n],
            xv: vec![0.0; n],
            accept: cfg.accept_factor,
            rank_rtol: DEFAULT_KKT_RANK_RTOL,
            rank_deficiency: RankDeficiency::MinimumNorm,
            roundoff_filter: cfg.roundoff_filter,
            second_look: cfg.roundoff_filter,
            force_svd: false,
            refused: vec![0.0; 2 * n],
            svd: PseudoInverse::new(n, l),
            used_svd: (false, false),
            iv: vec![0.0; l],
            iu: vec![0.0; n],
            jv: vec![0.0; l],
            second_looks: 0,
            certified_refusals: 0,
            projections: 0,
            iterations: 0,
            qr_factorizations: 0,
            rank_revealing: 0,
        })
    }

    /// Sets the relative rank cut-off (on the singular values of `(J T)ᵀ`, default
    /// [`DEFAULT_KKT_RANK_RTOL`]) and what a numerical rank below `L` gives: the minimum-norm
    /// correction (default) or [`LinalgError::RankDeficient`] (module documentation).
    ///
    /// Errors: [`ProjectionError::InvalidParameter`] for a `rank_rtol` outside `(0, 1)`.
    pub fn set_rank(
        &mut self,
        rank_rtol: f64,
        rank_deficiency: RankDeficiency,
    ) -> Result<(), ProjectionError> {
        check_parameters(&[("rank_rtol", rank_rtol, rank_rtol > 0.0 && rank_rtol < 1.0)])?;
        self.rank_rtol = rank_rtol;
        self.rank_deficiency = rank_deficiency;
        Ok(())
    }

    /// Whether the QR of the position (`second = false`, `A₁`) or velocity (`A₂`) problem
    /// loses rank at the cut-off: then the SVD of that `n × L` matrix is computed into
    /// `self.svd` (no allocation); with [`RankDeficiency::Error`] a numerical rank below `L` is
    /// an error.
    fn use_svd(&mut self, second: bool) -> Result<bool, ProjectionError> {
        if !self.svd_needed(second) {
            return Ok(false);
        }
        self.compute_svd(second)?;
        Ok(true)
    }

    /// Whether the QR of `A₁` (`second = false`) or `A₂` comes near a rank loss at the
    /// cut-off, or the round-off `self.noise` of its residual, amplified by `1/σ̂_min`, could
    /// exceed `NOISE_SHARE` of the acceptance bound.
    fn svd_needed(&mut self, second: bool) -> bool {
        let qr = if second { &mut self.qr2 } else { &mut self.qr1 };
        let a = if second { &self.a2 } else { &self.a1 };
        // the SVD decides when the QR's diagonal or its condition estimate come within ten
        // times the cut-off (the estimate's c_max may be √L below σ_max) ...
        if self.force_svd || qr.rank(self.rank_rtol) != self.l {
            return true;
        }
        let cond = qr.condition_estimate();
        if cond <= 10.0 * self.rank_rtol {
            return true;
        }
        // ... or, with the round-off filter, when ‖noise‖/σ̂_min (σ̂_min = cond · c_max) exceeds
        // NOISE_SHARE of the bound
        if !self.roundoff_filter {
            return false;
        }
        let cmax = (0..self.l)
            .map(|i| (0..self.n).map(|k| a[(k, i)] * a[(k, i)]).sum::<f64>())
            .fold(0.0f64, f64::max)
            .sqrt();
        let noise = self.noise.iter().map(|e| e * e).sum::<f64>().sqrt();
        // a NaN asks for the SVD too
        !matches!(
            noise.partial_cmp(&(NOISE_SHARE * self.accept * cond * cmax)),
            Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
        )
    }

    /// The SVD of `A₁` or `A₂` into `self.svd`; with [`RankDeficiency::Error`] a numerical
    /// rank below `L` is an error.
    fn compute_svd(&mut self, second: bool) -> Result<(), ProjectionError> {
        let a = if second { &self.a2 } else { &self.a1 };
        self.svd.compute(a.as_ref(), 0.0, self.rank_rtol)?;
        self.rank_revealing += 1;
        let rank = self.svd.rank();
        if rank < self.l && self.rank_deficiency == RankDeficiency::Error {
            return Err(LinalgError::RankDeficient {
                rank,
                required: self.l,
                tolerance: self.rank_rtol,
            }
            .into());
        }
        Ok(())
    }

    /// `δX = Σ_i u_i (v_iᵀ rhs) / σ_i` over the kept singular directions of `A = U Σ Vᵀ` in
    /// `self.svd` (the minimum-norm solution of `Aᵀ δX = rhs`); with the round-off filter each
    /// component `v_iᵀ rhs` is first brought toward 0 by its round-off `Σ_r |v_ri| noise_r`
    /// (soft threshold, module docs).
    fn min_norm_step(&self, rhs: &[f64], out: &mut [f64]) {
        if !self.roundoff_filter {
            // without the filter every kept direction is corrected: δX = (Aᵀ)† rhs
            let pinv = self.svd.pinv();
            for (k, o) in out.iter_mut().enumerate() {
                let mut d = 0.0;
                for (i, r) in rhs.iter().enumerate() {
                    d += pinv[(i, k)] * r;
                }
                *o = d;
            }
            return;
        }
        let (u, v, s) = (self.svd.u(), self.svd.v(), self.svd.singular_values());
        out.fill(0.0);
        for (i, &si) in s.iter().enumerate().take(self.svd.rank()) {
            let (mut c, mut nu) = (0.0, 0.0);
            for (r, (x, e)) in rhs.iter().zip(&self.noise).enumerate() {
                c += v[(r, i)] * x;
                nu += v[(r, i)].abs() * e;
            }
            if c.abs() <= nu {
                continue;
            }
            // soft threshold: the residual is brought back to its round-off, not below it
            let w = (c - nu.copysign(c)) / si;
            for (k, o) in out.iter_mut().enumerate() {
                *o += u[(k, i)] * w;
            }
        }
    }

    /// Adds to `self.noise` (the round-off of the velocity residual `J(q) v + b`) what the
    /// uncertainty of the corrected position `q` makes of it: along each kept direction `u_j`
    /// of the position problem's SVD (still in `self.svd`) the position is known to
    /// `η_j = Σ_r |v_rj| noise_q_r / σ_j` (scaled units), and moving `q` by `η_j T₁ u_j`
    /// changes the residual by `η_j (J(q + T₁u_j) − J(q)) v` (exact for the quadratic
    /// constraints of natural coordinates). Near a crossing of branches `η_j` grows as
    /// `1/σ_j` and this term as `1/σ_j²`: a velocity correction by it would follow the
    /// level set of the round-off of `φ` (a hyperbola onto another branch), not the branch.
    /// Directions whose `η_j` is within the ordinary round-off of `q` are skipped.
    fn add_position_uncertainty<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) {
        let qmax = q.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let floor = 8.0 * 64.0 * f64::EPSILON * qmax;
        for j in 0..self.svd.rank() {
            let (u, vs, s) = (self.svd.u(), self.svd.v(), self.svd.singular_values());
            let nu: f64 = (0..self.l)
                .map(|r| vs[(r, j)].abs() * self.noise_q[r])
                .sum();
            let eta = nu / s[j];
            let wmax = (0..self.n).fold(0.0f64, |m, k| m.max((self.t1[k] * u[(k, j)]).abs()));
            if eta * wmax <= floor {
                continue;
            }
            for k in 0..self.n {
                self.qw[k] = q[k] + self.t1[k] * u[(k, j)];
            }
            mech.constraint_jacobian(t, &self.qw, self.jw.as_mut());
            // dr = (J(q + T₁u_j) − J(q)) v column by column (contiguous columns; each row
            // sums its terms in the order of k, as a row-by-row sum does)
            self.iv.fill(0.0);
            for (k, &vk) in v.iter().enumerate() {
                let (cw, cj) = (self.jw.col_as_slice(k), self.j.col_as_slice(k));
                for ((d, a), b) in self.iv.iter_mut().zip(cw).zip(cj) {
                    *d += (a - b) * vk;
                }
            }
            for (e, dr) in self.noise.iter_mut().zip(&self.iv) {
                *e += eta * dr.abs();
            }
        }
    }

    /// The round-off level of each row of a residual `J x + …` at `x` into `self.noise`,
    /// `noise_i = 64 ε Σ_k |J_ik| |x_k|` with the round-off filter (module docs), else
    /// `64 ε max_k |x_k| Σ_k |J_ik|` (the bound of [`Self::residual_within`]).
    fn noise_level(&mut self, x: &[f64]) {
        if !self.roundoff_filter {
            // without the filter: one level for all rows, 64 ε max_k |x_k| Σ_k |J_ik|
            let xmax = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            for (i, e) in self.noise.iter_mut().enumerate() {
                let row: f64 = (0..self.n).map(|k| self.j[(i, k)].abs()).sum();
                *e = 64.0 * f64::EPSILON * xmax * row;
            }
            return;
        }
        for (i, e) in self.noise.iter_mut().enumerate() {
            let row: f64 = (0..self.n).map(|k| self.j[(i, k)].abs() * x[k].abs()).sum();
            *e = 64.0 * f64::EPSILON * row;
        }
    }

    /// `self.dmu = Σ_{i ≥ r} v_i (v_iᵀ self.phi)`: the part of the residual in `self.phi` in the
    /// directions the SVD in `self.svd` drops (`r` its rank, `V` its right singular vectors,
    /// `L × L`); zero when it drops none.
    fn dropped_part(&mut self, l: usize) {
        self.dmu.fill(0.0);
        let v = self.svd.v();
        for i in self.svd.rank()..l {
            let mut c = 0.0;
            for (r, p) in self.phi.iter().enumerate() {
                c += v[(r, i)] * p;
            }
            for (r, d) in self.dmu.iter_mut().enumerate() {
                *d += v[(r, i)] * c;
            }
        }
    }

    /// Whether every residual `res_i` is one a move of `accept` (scaled norm, weights `t`)
    /// could leave, or round-off: `|res_i| ≤ (accept · Σ_k |J_ik| t_k) + noise_i`, with the
    /// round-off level `noise_i` of the residual in `self.noise` ([`Self::noise_level`]; module
    /// docs).
    fn residual_within(&self, res: &[f64], t: &[f64], accept: f64) -> bool {
        res.iter().zip(&self.noise).enumerate().all(|(i, (r, e))| {
            let move_scale: f64 = (0..self.n).map(|k| self.j[(i, k)].abs() * t[k]).sum();
            r.abs() <= accept * move_scale + e
        })
    }

    /// The corrections of outputs (Remark 2.2): a refused correction is kept as it is, without
    /// the second look, which only decides between accepting a step and redoing it.
    pub(crate) fn for_outputs(mut self) -> Self {
        self.second_look = false;
        self
    }

    /// The refusal certificate of the correction `o` just computed by [`Self::correct`] from
    /// `x̄ = (q̄, v̄)`, with `q` the position of the velocity problem's Jacobian (module docs, "Round-off filter"): `σ̂₁`, `σ̂₂` of `A₁`, `A₂` by inverse iteration
    /// with their QR ([`smallest_singular_value`]), and [`refusal_stands`] with the bound
    /// `hypot(B_q, B_v)`, `B_q = ‖noise_q‖₁/σ̂₁`,
    /// `B_v = (‖noise_v‖₁ + B_q ‖(J(q + T₁u) − J(q)) v̄‖₁)/σ̂₂` (`u` the direction of `σ̂₁`).
    /// `false` (the second look runs) where a QR path is not at hand or a `σ̂` is within twice
    /// the rank cut-off of `‖A‖_F` (the SVD may drop a direction, which the bound does not
    /// cover).
    fn refusal_certified<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        vbar: &[f64],
        o: &ProjectionOutcome,
    ) -> bool {
        let (n, l) = (self.n, self.l);
        if l == 0 || self.used_svd.0 {
            return false;
        }
        let fro = |a: &Mat<f64>| {
            let mut s = 0.0;
            for i in 0..l {
                for k in 0..n {
                    s += a[(k, i)] * a[(k, i)];
                }
            }
            s.sqrt()
        };
        // position problem: A₁ = (J(q̄) T₁)ᵀ, RᵀR = A₁ᵀA₁ = G₁G₁ᵀ
        let qr1 = &mut self.qr1;
        let Some(s1) =
            smallest_singular_value(&mut self.iv, |x| qr1.solve_normal_in_place(x).is_ok())
        else {
            return false;
        };
        if s1 <= 2.0 * self.rank_rtol * fro(&self.a1) {
            return false;
        }
        let bq = norm1(&self.noise_q) / s1;
        // u ∝ A₁ v (the direction of σ̂₁ in the scaled coordinates)
        let mut un = 0.0;
        for k in 0..n {
            let mut d = 0.0;
            for i in 0..l {
                d += self.a1[(k, i)] * self.iv[i];
            }
            self.iu[k] = d;
            un += d * d;
        }
        let un = un.sqrt();
        if !(un.is_finite() && un > 0.0) {
            return false;
        }
        // velocity problem: σ̂₂ of A₂ (A₁/α when shared)
        let alpha = self.t1[0] / self.t2[0];
        let shared = self.vel == VelocityJacobian::Predicted
            && (0..n).all(|k| (self.t1[k] / self.t2[k] - alpha).abs() <= 1e-12 * alpha.abs());
        let s2 = if shared {
            s1 / alpha.abs()
        } else {
            let qr2 = &mut self.qr2;
            match smallest_singular_value(&mut self.iv, |x| qr2.solve_normal_in_place(x).is_ok()) {
                Some(s2) if s2 > 2.0 * self.rank_rtol * fro(&self.a2) => s2,
                _ => return false,
            }
        };
        // the velocity residual's sensitivity to the position along u: self.j is J(q) of the
        // velocity problem and self.noise its round-off (with a position term where the
        // velocity problem took the rank-revealing path)
        for k in 0..n {
            self.qw[k] = q[k] + self.t1[k] * self.iu[k] / un;
        }
        mech.constraint_jacobian(t, &self.qw, self.jw.as_mut());
        mat_vec(&self.jw, vbar, &mut self.jv);
        mat_vec(&self.j, vbar, &mut self.iv);
        for (a, b) in self.jv.iter_mut().zip(&self.iv) {
            *a -= b;
        }
        let bv = (norm1(&self.noise) + bq * norm1(&self.jv)) / s2;
        refusal_stands(o, self.accept, bq.hypot(bv))
    }

    /// Corrects `x̄ = (q̄, v̄)` onto `φ = 0`, `J q̇ + b = 0`; writes the corrected state to `out`.
    /// With [`PerturbationConfig::roundoff_filter`] a correction the acceptance bound refuses
    /// (`‖X*‖ > accept_factor`, or not converged) is computed again by the rank-revealing path,
    /// which leaves out the components at round-off (module docs, "Round-off filter"); that
    /// one is returned when the bound accepts it, else the first. Does not allocate.
    pub fn project<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        xbar: &[f64],
        out: &mut [f64],
    ) -> Result<ProjectionOutcome, ProjectionError> {
        self.projections += 1;
        let o = self.correct(mech, t, xbar, out)?;
        let accepted = |o: &ProjectionOutcome| o.converged && o.norm <= self.accept;
        if !self.second_look || accepted(&o) {
            return Ok(o);
        }
        // a first correction by the rank-revealing path in both problems is what the second
        // look computes again; a refusal the certificate shows to stand is kept as it is
        let n = self.n;
        let q = match self.vel {
            VelocityJacobian::Predicted => &xbar[..n],
            VelocityJacobian::Projected => &out[..n],
        };
        if (self.used_svd.0 && self.used_svd.1)
            || self.refusal_certified(mech, t, q, &xbar[n..], &o)
        {
            self.certified_refusals += 1;
            return Ok(o);
        }
        self.second_look_at(mech, t, xbar, out, o)
    }

    /// The second look (module docs, "Round-off filter") at the refused correction `o` of
    /// `xbar` that `out` holds: the correction computed again by the rank-revealing path,
    /// returned when the acceptance bound accepts it; else `o` and `out` stand.
    fn second_look_at<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        xbar: &[f64],
        out: &mut [f64],
        o: ProjectionOutcome,
    ) -> Result<ProjectionOutcome, ProjectionError> {
        self.second_looks += 1;
        self.refused.copy_from_slice(out);
        self.force_svd = true;
        let again = self.correct(mech, t, xbar, out);
        self.force_svd = false;
        match again {
            Ok(a) if a.converged && a.norm <= self.accept => Ok(a),
            // refused by both: the first correction stands
            _ => {
                out.copy_from_slice(&self.refused);
                Ok(o)
            }
        }
    }

    /// One correction of [`Self::project`] (the QR path, or the rank-revealing one where
    /// [`Self::svd_needed`] asks for it).
    fn correct<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        xbar: &[f64],
        out: &mut [f64],
    ) -> Result<ProjectionOutcome, ProjectionError> {
        let (n, l) = (self.n, self.l);
        out.copy_from_slice(xbar);
        self.used_svd = (false, false);
        if l == 0 {
            return Ok(ProjectionOutcome {
                norm: 0.0,
                iterations: 0,
                converged: true,
            });
        }
        // Keerthi (2.11), (3.1): T = diag(T₁, T₂) with TᵀWT = I, W = diag(s²).
        self.ec.inverse_scales(xbar, &mut self.s);
        for k in 0..n {
            self.t1[k] = 1.0 / self.s[k];
            self.t2[k] = 1.0 / self.s[n + k];
        }
        let (qbar, vbar) = xbar.split_at(n);
        // Keerthi (3.7): (G₁)_Q(0)ᵀ = (J(q̄) T₁)ᵀ, skinny QR.
        mech.constraint_jacobian(t, qbar, self.j.as_mut());
        for k in 0..n {
            for i in 0..l {
                self.a1[(k, i)] = self.j[(i, k)] * self.t1[k];
            }
        }
        // more rows than coordinates (redundant rows, rank < N): no skinny QR, the SVD decides
        if l <= n {
            self.qr1.factor(self.a1.as_ref())?;
            self.qr_factorizations += 1;
        }
        self.noise_level(qbar);
        self.noise_q.copy_from_slice(&self.noise);
        let svd1 = self.use_svd(false)?;
        // Position problem (3.5) by MNR (2.16)–(2.17); Q accumulated in xq.
        self.xq.fill(0.0);
        let qscale = qbar.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let mut converged = false;
        let mut it = 0;
        while it < self.max_it {
            it += 1;
            mech.constraints(t, &out[..n], &mut self.phi);
            // Keerthi (2.16): R₁ᵀR₁ δμ = −G(X_l)
            for i in 0..l {
                self.dmu[i] = -self.phi[i];
            }
            if svd1 {
                // the minimum-norm step over the kept directions (module docs)
                let mut dx = std::mem::take(&mut self.xv);
                self.min_norm_step(&self.dmu, &mut dx);
                self.xv = dx;
            } else {
                self.qr1.solve_normal_in_place(&mut self.dmu)?;
            }
            // Keerthi (2.17): X_{l+1} = G_X(0)ᵀ μ_{l+1}, i.e. δX = A₁ δμ
            let mut dnorm = 0.0;
            let mut dmax = 0.0f64;
            for k in 0..n {
                let d = if svd1 {
                    self.xv[k]
                } else {
                    let mut d = 0.0;
                    for i in 0..l {
                        d += self.a1[(k, i)] * self.dmu[i];
                    }
                    d
                };
                self.xq[k] += d;
                dnorm += d * d;
                dmax = dmax.max((self.t1[k] * d).abs());
                out[k] = qbar[k] + self.t1[k] * self.xq[k];
            }
            if !dnorm.is_finite() {
                break;
            }
            if dnorm.sqrt() <= self.newton_tol || dmax <= 4.0 * f64::EPSILON * qscale {
                converged = true;
                break;
            }
        }
        self.iterations += it;
        if !converged && it == self.max_it {
            // Near a singular configuration the MNR updates stall at the round-off of φ
            // amplified by 1/σ_min and never meet `newton_tol`; a point where φ is at its
            // round-off is on the manifold (module docs).
            mech.constraints(t, &out[..n], &mut self.phi);
            converged = self.residual_within(&self.phi, &self.t1, 0.0);
        }
        if svd1 && converged {
            // the residual left in the dropped directions (module docs); J is J(q̄) here
            mech.constraints(t, &out[..n], &mut self.phi);
            converged = self.residual_within(&self.phi, &self.t1, self.accept);
        }
        // Velocity problem (3.6) with (3.4): J(q̄)(v̄ + T₂V) + b = 0, one MNR step (affine).
        let q_for_j = match self.vel {
            VelocityJacobian::Predicted => qbar,
            VelocityJacobian::Projected => {
                mech.constraint_jacobian(t, &out[..n], self.j.as_mut());
                &out[..n]
            }
        };
        mech.constraint_rate_bias(t, q_for_j, &mut self.b);
        self.noise_level(vbar);
        if svd1 && self.roundoff_filter {
            self.add_position_uncertainty(mech, t, q_for_j, vbar);
        }
        for i in 0..l {
            let mut r = self.b[i];
            for k in 0..n {
                r += self.j[(i, k)] * vbar[k];
            }
            self.dmu[i] = -r;
        }
        // W₂ = α² W₁ ⇔ T₂ = T₁/α: reuse Q₁, R₂ = R₁/α (end of section 3).
        let alpha = self.t1[0] / self.t2[0];
        let shared = self.vel == VelocityJacobian::Predicted
            && (0..n).all(|k| (self.t1[k] / self.t2[k] - alpha).abs() <= 1e-12 * alpha.abs());
        // the velocity residual, kept for the check of the dropped directions
        self.phi.copy_from_slice(&self.dmu);
        let mut svd2 = shared && svd1;
        if svd2 {
            // (A₂ᵀ)† = α (A₁ᵀ)† with A₂ = A₁/α
            let mut dx = std::mem::take(&mut self.xv);
            self.min_norm_step(&self.dmu, &mut dx);
            self.xv = dx;
            for x in &mut self.xv {
                *x *= alpha;
            }
        } else if shared {
            self.qr1.solve_normal_in_place(&mut self.dmu)?;
            for k in 0..n {
                let mut d = 0.0;
                for i in 0..l {
                    d += self.a1[(k, i)] * self.dmu[i];
                }
                // V = A₂ δμ₂ with A₂ = A₁/α and δμ₂ = α² δμ₁  ⇒  V = α A₁ δμ₁
                self.xv[k] = alpha * d;
            }
        } else {
            for k in 0..n {
                for i in 0..l {
                    self.a2[(k, i)] = self.j[(i, k)] * self.t2[k];
                }
            }
            if l <= n {
                self.qr2.factor(self.a2.as_ref())?;
                self.qr_factorizations += 1;
            }
            if self.roundoff_filter {
                // the velocity problem goes by the SVD with the position problem (its
                // residual's round-off then includes the position's uncertainty) or when its
                // own QR asks
                svd2 = svd1 || self.svd_needed(true);
                if svd2 {
                    if !svd1 {
                        self.compute_svd(false)?;
                        self.add_position_uncertainty(mech, t, q_for_j, vbar);
                    }
                    self.compute_svd(true)?;
                }
            } else {
                svd2 = self.use_svd(true)?;
            }
            if svd2 {
                let mut dx = std::mem::take(&mut self.xv);
                self.min_norm_step(&self.dmu, &mut dx);
                self.xv = dx;
            } else {
                self.qr2.solve_normal_in_place(&mut self.dmu)?;
                for k in 0..n {
                    let mut d = 0.0;
                    for i in 0..l {
                        d += self.a2[(k, i)] * self.dmu[i];
                    }
                    self.xv[k] = d;
                }
            }
        }
        if svd2 {
            // the velocity residual left in the dropped directions, J (v̄ + T₂V) + b = r + A₂ᵀV
            for i in 0..l {
                let mut r = -self.phi[i];
                for k in 0..n {
                    r += self.j[(i, k)] * self.t2[k] * self.xv[k];
                }
                self.phi[i] = r;
            }
            // its part in the dropped directions: the kept ones are brought to their round-off
            // direction by direction (module docs), which a residual of each row need not be
            self.dropped_part(l);
            converged &= self.residual_within(&self.dmu, &self.t2, self.accept);
        }
        self.used_svd = (svd1, svd2);
        let mut norm = 0.0;
        for k in 0..n {
            out[n + k] = vbar[k] + self.t2[k] * self.xv[k];
            norm += self.xq[k] * self.xq[k] + self.xv[k] * self.xv[k];
        }
        Ok(ProjectionOutcome {
            norm: norm.sqrt(),
            iterations: it,
            converged,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Pending {
    None,
    Projected(ProjectionOutcome),
    Refused(ProjectionOutcome),
    Failed,
}

/// Right-hand side of P1: counts `N_f`, and with `before_final` projects at the corrector's
/// evaluation (see the module documentation).
#[derive(Debug)]
pub(crate) struct PertRhs<'m, M: ?Sized> {
    inner: ConstrainedRhs<'m, M>,
    proj: ManifoldProjection,
    before_final: bool,
    accept: f64,
    last_t: f64,
    cache_valid: bool,
    cache_t: f64,
    cache_x: Vec<f64>,
    cache_f: Vec<f64>,
    pending: Pending,
    error: Option<ProjectionError>,
    /// The sparse path ([`crate::sparse`]), when the run uses it.
    sparse_dyn: Option<crate::sparse::SparseDynamics>,
    sparse_proj: Option<crate::sparse::SparseProjection>,
}

impl<M: Mechanism + ?Sized> OdeRhs for PertRhs<'_, M> {
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        if self.cache_valid && t == self.cache_t && y == &self.cache_x[..] {
            self.cache_valid = false;
            dy.copy_from_slice(&self.cache_f);
            return Ok(());
        }
        self.cache_valid = false;
        let second = self.before_final && t == self.last_t;
        self.last_t = t;
        if second {
            let mech = self.inner.mechanism();
            let sparse = self.sparse_proj.as_mut();
            match crate::sparse::project(&mut self.proj, sparse, mech, t, y, &mut self.cache_x) {
                Ok(o) if o.converged && o.norm <= self.accept => {
                    let sparse = self.sparse_dyn.as_mut();
                    let (x, f) = (&self.cache_x, &mut self.cache_f);
                    crate::sparse::eval_counted(&mut self.inner, sparse, t, x, f)?;
                    dy.copy_from_slice(&self.cache_f);
                    self.cache_t = t;
                    self.cache_valid = true;
                    self.pending = Pending::Projected(o);
                    return Ok(());
                }
                Ok(o) => self.pending = Pending::Refused(o),
                Err(e) => {
                    self.error = Some(e);
                    self.pending = Pending::Failed;
                }
            }
        }
        crate::sparse::eval_counted(&mut self.inner, self.sparse_dyn.as_mut(), t, y, dy)
    }
}

/// Procedure P1 (Keerthi section 2) as a method of the driver.
#[derive(Debug)]
pub(crate) struct Perturbation<'m, M: ?Sized> {
    rhs: PertRhs<'m, M>,
    /// The correction of interpolated outputs (Remark 2.2).
    out_proj: ManifoldProjection,
    out_sparse: Option<crate::sparse::SparseProjection>,
    mech: &'m M,
    cfg: PerturbationConfig,
    /// Step halvings of the current step.
    redos: usize,
    redone: usize,
}

impl<'m, M: Mechanism + ?Sized> Perturbation<'m, M> {
    /// Validates `cfg`; the integrator runs at τ/2 (2.2).
    pub(crate) fn new(
        ctx: &RunContext<'_, 'm, M>,
        cfg: &PerturbationConfig,
    ) -> Result<MethodStart<Self>, ProjectionError> {
        cfg.validate()?;
        let mech = ctx.mech;
        let n2 = ctx.x0.len();
        let before_final =
            cfg.project_before_final_evaluation && matches!(ctx.integrator, Integrator::Abm(_));
        let pattern = ctx.sparse.pattern(mech);
        if let Some(p) = &pattern {
            // a pattern that omits real entries would make every sparse solve wrong (the run
            // ends much later with "too many steps"): checked once, at the initial state
            p.verify(mech, ctx.t0, &ctx.x0[..mech.dof()])?;
        }
        // the rank cut-off and policy of the constrained dynamics (module docs); with the
        // round-off filter an unset cut-off is ROUNDOFF_RANK_RTOL, for the correction and the
        // evaluations alike
        let mut dynamics = ctx.dynamics;
        if cfg.roundoff_filter && dynamics.rank_rtol.is_none() {
            dynamics.rank_rtol = Some(ROUNDOFF_RANK_RTOL);
        }
        let rank_rtol = dynamics.rank_rtol.unwrap_or(DEFAULT_KKT_RANK_RTOL);
        let n = mech.dof();
        if mech.n_constraints() >= n {
            // rows, not rank: L ≥ N redundant rows leave N − r free coordinates
            jacobian_rank("perturbation", mech, ctx.t0, &ctx.x0[..n], rank_rtol)?;
        }
        let sparse_proj = |p: &contour_model::SparsityPattern| {
            let mut sp = crate::sparse::SparseProjection::new(mech, p, ctx.error_control, cfg)?;
            sp.set_rank_rtol(rank_rtol)?;
            Ok::<_, ProjectionError>(sp)
        };
        let policy = dynamics.rank_deficiency;
        let projection = || -> Result<ManifoldProjection, ProjectionError> {
            let mut p = ManifoldProjection::new(mech, ctx.error_control, cfg)?;
            p.set_rank(rank_rtol, policy)?;
            Ok(p)
        };
        let rhs = PertRhs {
            inner: ConstrainedRhs::new(mech, dynamics)?,
            proj: projection()?,
            before_final,
            accept: cfg.accept_factor,
            last_t: f64::NAN,
            cache_valid: false,
            cache_t: f64::NAN,
            cache_x: vec![0.0; n2],
            cache_f: vec![0.0; n2],
            pending: Pending::None,
            error: None,
            sparse_dyn: match &pattern {
                Some(p) => Some(crate::sparse::SparseDynamics::new(mech, p)?),
                None => None,
            },
            sparse_proj: pattern.as_ref().map(sparse_proj).transpose()?,
        };
        let method = Self {
            rhs,
            out_proj: projection()?.for_outputs(),
            out_sparse: pattern
                .as_ref()
                .map(sparse_proj)
                .transpose()?
                .map(crate::sparse::SparseProjection::for_outputs),
            mech,
            cfg: *cfg,
            redos: 0,
            redone: 0,
        };
        // Keerthi (2.2): step 1 with tolerance τ/2.
        let ec = ctx.error_control.scaled(cfg.step_tolerance_factor);
        Ok(MethodStart::on_x(method, &ctx.x0, ec))
    }
}

impl<'m, M: Mechanism + ?Sized> ConstraintMethod<M> for Perturbation<'m, M> {
    type Problem = PertRhs<'m, M>;

    fn name(&self) -> &'static str {
        "perturbation"
    }

    fn problem(&mut self) -> &mut Self::Problem {
        &mut self.rhs
    }

    fn kkt_dynamics(&mut self) -> Option<&mut ConstrainedDynamics> {
        Some(self.rhs.inner.dynamics_mut())
    }

    fn integrator_error(&mut self, e: OdeError) -> ProjectionError {
        ode_error(e, &mut self.rhs.inner.last_error)
    }

    fn before_step(&mut self) {
        self.rhs.pending = Pending::None;
        // No detection on the evaluations of replace_y and restarts.
        self.rhs.last_t = f64::NAN;
    }

    /// Step 2 of P1: the correction (2.3) (already done before the final evaluation with
    /// ABM), accepted when `‖X*‖ ≤ τ/2` (Remark 2.5), else the step is redone at half size.
    fn after_step(
        &mut self,
        t: f64,
        h: f64,
        y: &[f64],
        y_new: &mut [f64],
    ) -> Result<AfterStep, ProjectionError> {
        let outcome =
            match self.rhs.pending {
                Pending::Projected(o) => {
                    y_new.copy_from_slice(&self.rhs.cache_x);
                    o
                }
                Pending::Refused(o) => o,
                Pending::Failed => {
                    return Err(self.rhs.error.take().unwrap_or(
                        ProjectionError::ProjectionFailed {
                            t,
                            redos: self.redos,
                            norm: f64::NAN,
                        },
                    ))
                }
                Pending::None => {
                    // No detection on replace_y's evaluation of the already corrected point.
                    self.rhs.last_t = f64::NAN;
                    let sparse = self.rhs.sparse_proj.as_mut();
                    crate::sparse::project(&mut self.rhs.proj, sparse, self.mech, t, y, y_new)?
                }
            };
        // Remark 2.5: accept when ‖X*‖ ≤ τ/2.
        if outcome.converged && outcome.norm <= self.cfg.accept_factor {
            self.redos = 0;
            return Ok(AfterStep::Replace);
        }
        self.redos += 1;
        if self.redos > self.cfg.max_redos {
            return Err(ProjectionError::ProjectionFailed {
                t,
                redos: self.redos - 1,
                norm: outcome.norm,
            });
        }
        self.redone += 1;
        Ok(AfterStep::Redo { max_step: 0.5 * h })
    }

    fn output_state(
        &mut self,
        _last: Accepted<'_>,
        t: f64,
        y: &[f64],
        x: &mut [f64],
    ) -> Result<(), ProjectionError> {
        if self.cfg.projected_output {
            // Remark 2.2: the projected interpolant.
            let sparse = self.out_sparse.as_mut();
            crate::sparse::project(&mut self.out_proj, sparse, self.mech, t, y, x)?;
        } else {
            x.copy_from_slice(y);
        }
        Ok(())
    }

    fn multipliers(&mut self, t: f64, x: &[f64]) -> Result<Multipliers<'_>, ProjectionError> {
        crate::sparse::multipliers(self.rhs.sparse_dyn.as_mut(), self.mech, t, x)
    }

    fn violations(&mut self, t: f64, x: &[f64]) -> Option<(f64, f64)> {
        self.out_sparse
            .as_mut()
            .map(|sp| sp.violations(self.mech, t, x))
    }

    fn add_stats(&self, s: &mut SimulationStats) {
        s.f_evals = self.rhs.inner.evals;
        s.rank_revealing_evals = self.rhs.inner.rank_revealing_solves();
        s.projections = self.rhs.proj.projections;
        s.projection_iterations = self.rhs.proj.iterations;
        s.qr_factorizations = self.rhs.proj.qr_factorizations;
        crate::sparse::add_stats(
            s,
            self.rhs.sparse_dyn.as_ref(),
            self.rhs.sparse_proj.as_ref(),
        );
        s.redone_steps = self.redone;
        s.restarts = self.redone;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contour_model::models::{KeerthiRobot, Pendulum};

    fn phi_norm<M: Mechanism>(m: &M, x: &[f64]) -> (f64, f64) {
        let mut mon = crate::rhs::ConstraintMonitor::new(m);
        mon.violations(m, 0.0, x)
    }

    /// One correction of a perturbed pendulum state: on the manifold to round-off, moved by
    /// less than the perturbation (2.3) and by the minimum-norm step (radial direction).
    #[test]
    fn pendulum_correction_is_radial_and_exact() {
        let p = Pendulum::default();
        let (q, qd) = p.state(0.7, 1.3);
        let eps = 1e-5;
        let xbar = [q[0] * (1.0 + eps), q[1] * (1.0 + eps), qd[0] + 3e-6, qd[1]];
        let ec = ErrorControl::absolute(1e-4);
        let mut pr = ManifoldProjection::new(&p, ec, &PerturbationConfig::default()).unwrap();
        let mut out = [0.0; 4];
        let o = pr.project(&p, 0.0, &xbar, &mut out).unwrap();
        assert!(o.converged);
        let (ph, pd) = phi_norm(&p, &out);
        assert!(
            ph <= 4.0 * f64::EPSILON && pd <= 8.0 * f64::EPSILON,
            "{ph:e} {pd:e}"
        );
        // positions: the closest point of the circle is q/|q| (radial move of size eps·ℓ)
        assert!((out[0] - q[0]).abs() < 1e-14 && (out[1] - q[1]).abs() < 1e-14);
        // ‖X*‖ in units of τ: sqrt(|Δq|² + |Δv|²)/τ
        let dq = eps; // ℓ = 1
        let dv = 3e-6 * (q[0]).abs(); // the radial part of the velocity perturbation (J v̄ ∝ x·δv)
        let expect = (dq * dq + dv * dv).sqrt() / 1e-4;
        assert!(
            (o.norm - expect).abs() < 1e-6 * expect.max(1.0),
            "{} vs {expect}",
            o.norm
        );
        // MNR converges in a few iterations from a 1e-5 perturbation
        assert!(o.iterations <= 4, "{}", o.iterations);
    }

    /// With `W₂ = α²W₁` one QR serves both problems (section 3); with mixed tolerances the
    /// scales differ and a second QR is computed — both give a state on the manifold.
    #[test]
    fn shared_and_separate_qr() {
        let r = KeerthiRobot::default();
        let q = [0.4363, 0.30, 0.2];
        let mut q0 = q;
        let mut pr0 = ManifoldProjection::new(
            &r,
            ErrorControl::absolute(1e-3),
            &PerturbationConfig::keerthi(),
        )
        .unwrap();
        // first move q0 onto the manifold
        let mut x = [q0[0], q0[1], q0[2], 0.1, -0.2, 0.05];
        let mut xc = [0.0; 6];
        pr0.project(&r, 0.0, &x, &mut xc).unwrap();
        q0.copy_from_slice(&xc[..3]);
        x = [
            q0[0] + 1e-5,
            q0[1] - 2e-5,
            q0[2],
            xc[3] + 1e-4,
            xc[4],
            xc[5] - 1e-4,
        ];
        for (ec, qrs) in [
            (ErrorControl::absolute(1e-4), 1),
            (ErrorControl::mixed(1e-4), 2),
        ] {
            let mut pr = ManifoldProjection::new(&r, ec, &PerturbationConfig::keerthi()).unwrap();
            let o = pr.project(&r, 0.0, &x, &mut xc).unwrap();
            assert!(o.converged);
            assert_eq!(pr.qr_factorizations, qrs);
            let (ph, pd) = phi_norm(&r, &xc);
            assert!(ph < 1e-15, "{ph:e}");
            // velocity corrected with J(q̄): the residual at the corrected q is O(|Δq||v|)
            // (|Δq| ≈ 2.2e-5, |v| ≈ 0.23)
            assert!(pd < 10.0 * 2.2e-5 * 0.23, "{pd:e}");
        }
        let cfg = PerturbationConfig {
            velocity_jacobian: VelocityJacobian::Projected,
            ..Default::default()
        };
        let mut pr = ManifoldProjection::new(&r, ErrorControl::absolute(1e-4), &cfg).unwrap();
        pr.project(&r, 0.0, &x, &mut xc).unwrap();
        let (_, pd) = phi_norm(&r, &xc);
        assert!(pd < 1e-15, "{pd:e}");
    }

    #[test]
    fn bad_configuration() {
        let p = Pendulum::default();
        let bad = PerturbationConfig {
            accept_factor: -1.0,
            ..Default::default()
        };
        assert!(matches!(
            ManifoldProjection::new(&p, ErrorControl::absolute(1e-4), &bad),
            Err(ProjectionError::InvalidParameter {
                name: "accept_factor",
                ..
            })
        ));
        assert!(matches!(
            ManifoldProjection::new(
                &p,
                ErrorControl::absolute(1e-4).with_norm(NormKind::Max),
                &Default::default()
            ),
            Err(ProjectionError::UnsupportedNorm { .. })
        ));
        // J = 2(x, y) vanishes at the pivot: rank 0, and φ = −1 is no residual a correction
        // of the accepted size could leave, so the correction is refused (not converged) ...
        let mut pr =
            ManifoldProjection::new(&p, ErrorControl::absolute(1e-4), &Default::default()).unwrap();
        let mut out = [0.0; 4];
        let o = pr.project(&p, 0.0, &[0.0; 4], &mut out).unwrap();
        assert!(!o.converged && pr.rank_revealing >= 1, "{o:?}");
        // ... and with RankDeficiency::Error it is the rank error of the SVD.
        pr.set_rank(DEFAULT_KKT_RANK_RTOL, RankDeficiency::Error)
            .unwrap();
        assert!(matches!(
            pr.project(&p, 0.0, &[0.0; 4], &mut out),
            Err(ProjectionError::Linalg(LinalgError::RankDeficient {
                rank: 0,
                required: 1,
                ..
            }))
        ));
        assert!(matches!(
            pr.set_rank(0.0, RankDeficiency::Error),
            Err(ProjectionError::InvalidParameter {
                name: "rank_rtol",
                ..
            })
        ));
    }

    /// The refusal certificate (module docs): a correction refused far above the round-off of
    /// its residuals (‖X*‖ ≈ 100, the round-off bound about 1e-4 here) keeps its refusal
    /// without the rank-revealing second look; one refused just above the acceptance bound
    /// (‖X*‖ − 0.5 ≈ 5e-5, within twice the bound) gets it.
    #[test]
    fn refusal_certificate_skips_only_genuine_refusals() {
        use contour_model::models::NFourBar;
        let p = NFourBar::new(1);
        let (q, qd) = p.state(0.8, -1.0);
        let x: Vec<f64> = q.iter().chain(&qd).copied().collect();
        let ec = ErrorControl::absolute(1e-9);
        let cfg = PerturbationConfig::default();
        assert!(cfg.roundoff_filter);
        let mut out = [0.0; 8];
        let shifted = |d: f64| {
            let mut xb = x.clone();
            xb[0] += d;
            xb
        };
        // far above: certified, no SVD
        let mut pr = ManifoldProjection::new(&p, ec, &cfg).unwrap();
        let o = pr.project(&p, 0.0, &shifted(1e-7), &mut out).unwrap();
        assert!(o.converged && o.norm > 50.0, "{o:?}");
        assert_eq!(
            (pr.certified_refusals, pr.second_looks, pr.rank_revealing),
            (1, 0, 0)
        );
        // ‖X*‖ is linear in the shift: scale it to 0.5 + 5e-5
        let d = 1e-7 * (0.5 + 5e-5) / o.norm;
        let mut pr = ManifoldProjection::new(&p, ec, &cfg).unwrap();
        let o = pr.project(&p, 0.0, &shifted(d), &mut out).unwrap();
        assert_eq!((pr.certified_refusals, pr.second_looks), (0, 1));
        assert!(pr.rank_revealing >= 1);
        // here the second look, which leaves the residual's round-off in place, is accepted
        // (measured: 0.4999974)
        assert!(o.norm > 0.5 - 1e-4 && o.norm <= 0.5, "{o:?}");
        // without the filter: the QR correction, refused, and neither
        let off = PerturbationConfig {
            roundoff_filter: false,
            ..cfg
        };
        let mut pr = ManifoldProjection::new(&p, ec, &off).unwrap();
        let o = pr.project(&p, 0.0, &shifted(d), &mut out).unwrap();
        assert!(o.norm > 0.5 && o.norm < 0.5 + 1e-4, "{o:?}");
        assert_eq!((pr.certified_refusals, pr.second_looks), (0, 0));
    }

    /// A02 with one loop at its flat position (J has rank 2 of 3 rows): a state perturbed by
    /// δ in the kept directions and by δ² in the lost one is corrected by the SVD path onto
    /// φ = 0 (the residual left in the lost direction is second order), moved by no more than
    /// the perturbation (the minimum-norm property). Away from the flat position, where
    /// nothing is dropped, the SVD path (forced by a cut-off near 1) and the QR path give the
    /// same correction.
    #[test]
    fn flat_four_bar_is_corrected_in_the_kept_directions() {
        use contour_model::models::NFourBar;
        let p = NFourBar::new(1);
        let (q, qd) = p.state(0.0, -1.0);
        let d = 1e-7;
        // B0 = (1, 0), B1 = (2, 0): push B0 outward (kept: row 0) and B1 up by δ (lost: y)
        let xbar = [
            q[0] + d,
            q[1],
            q[2],
            q[3] + d,
            qd[0] + d,
            qd[1],
            qd[2],
            qd[3],
        ];
        let ec = ErrorControl::absolute(1e-6);
        let mut pr = ManifoldProjection::new(&p, ec, &Default::default()).unwrap();
        let mut out = [0.0; 8];
        let o = pr.project(&p, 0.0, &xbar, &mut out).unwrap();
        assert!(o.converged, "{o:?}");
        assert!(pr.rank_revealing >= 1);
        let (ph, _) = phi_norm(&p, &out);
        // second order in δ, plus the round-off level left in place by the filter
        // (64 ε Σ_k |J_ik| |q_k| per row: |q_k| ≤ 2, Σ|J_ik| ≤ 4, three rows)
        let round = 64.0 * f64::EPSILON * 2.0 * 4.0 * 3f64.sqrt();
        assert!(ph <= 2.0 * d * d + round, "{ph:e}");
        let moved: f64 = out.iter().zip(&xbar).map(|(a, b)| (a - b).powi(2)).sum();
        assert!(moved.sqrt() <= 2.0 * d, "{:e}", moved.sqrt());
        // away from the flat position the QR path runs and both give the same correction
        let (q, qd) = p.state(0.8, -1.0);
        let xbar = [
            q[0] + d,
            q[1],
            q[2],
            q[3] + d,
            qd[0] + d,
            qd[1],
            qd[2],
            qd[3],
        ];
        let mut a = [0.0; 8];
        let mut b = [0.0; 8];
        let mut qr_path = ManifoldProjection::new(&p, ec, &Default::default()).unwrap();
        qr_path.project(&p, 0.0, &xbar, &mut a).unwrap();
        assert_eq!(qr_path.rank_revealing, 0);
        let mut svd_path = ManifoldProjection::new(&p, ec, &Default::default()).unwrap();
        // a cut-off so close to 1 that the condition test always sends it to the SVD
        svd_path
            .set_rank(0.09, RankDeficiency::MinimumNorm)
            .unwrap();
        svd_path.project(&p, 0.0, &xbar, &mut b).unwrap();
        assert!(svd_path.rank_revealing >= 1);
        // the SVD path leaves each residual component at its round-off (64 ε Σ_k |J_ik| |x_k|,
        // about 1e-13 here) in place, the QR path corrects it: they agree to that level
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-12, "{x} {y}");
        }
    }
}
