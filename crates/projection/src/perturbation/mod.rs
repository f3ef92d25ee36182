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

mod config;
mod correction;
mod method;
pub mod sparse;
#[cfg(test)]
mod tests;

pub use config::{PerturbationConfig, VelocityJacobian};
pub use correction::{ManifoldProjection, ProjectionOutcome};
pub(crate) use method::Perturbation;
pub use sparse::SparseMode;
