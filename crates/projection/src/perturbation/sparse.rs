//! The sparse path of the perturbation method: the constrained dynamics (Keerthi (1.1)+(1.4))
//! and the correction step (Keerthi (2.16)–(2.17), (3.5)–(3.7)) with faer's sparse `LDLᵀ`
//! ([`contour_linalg::SparseKkt`]) for mechanisms that declare the pattern of `M` and `J`
//! ([`Mechanism::sparsity`]: natural coordinates, many bodies).
//!
//! * **Dynamics.** `[M Jᵀ; J 0] (q̈, −λ) = (u − h, −ρ)`, the symbolic analysis of the pattern
//!   once per run, the numeric factorization per evaluation: O(nnz) per evaluation for a chain
//!   of bodies instead of the dense O(N³).
//! * **Correction.** With `G = J(q̄) T₁` (3.7), the modified Newton step
//!   `G Gᵀ δμ = −G(X_l)`, `δX = Gᵀ δμ` (2.16)–(2.17) is the solution of
//!   `[I Gᵀ; G 0] (δX, −δμ) = (0, −G(X_l))`: the same KKT structure with `H = I`, factored
//!   once per correction and reused by every iteration (the frozen Jacobian of MNR). The
//!   velocity problem (3.6) is one solve with `J T₂` (of the corrected position with
//!   [`VelocityJacobian::Projected`], of `q̄` with `Predicted`).
//!   The iteration stops as the dense one does (an update below `newton_tol`, or of at most
//!   4 ulps of `q`), and also when an update of at most 64 ulps no longer shrinks: near a
//!   singular configuration the round-off of `φ` is amplified by `1/σ_min(J)` and the
//!   iteration stalls there, a few ulps above the dense test (which refuses such a correction
//!   at every step size: A02 at N = 10 can end with "step size too small" in a flat passage).
//! * **Rank loss.** Where the refinement of the sparse solve stalls (`J` nearly rank-deficient:
//!   the singular configurations of A02), the evaluation or the correction is done by the
//!   dense path instead (`KktSolver`'s rank-revealing solve, the dense QR correction), and
//!   counted, for the evaluations, in [`crate::SimulationStats::rank_revealing_evals`]
//!   (the corrections handed over have no counter). With the round-off filter
//!   ([`crate::PerturbationConfig::roundoff_filter`], the default) a correction the acceptance
//!   bound refuses (`‖X*‖ > accept_factor`, or not converged) is kept as refused where the
//!   refusal certificate shows that the dense rank-revealing second look refuses it too
//!   (module `perturbation`, "Refusal certificate": `σ_min` by inverse iteration with this
//!   path's factorization); else it goes to the dense second look: near a singular
//!   configuration such a correction can be mostly round-off amplified by `1/σ_min(J)`, which
//!   the second look leaves out. The corrections of outputs keep their sparse answer. The
//!   answers of the two paths are equal to round-off where both apply (tests
//!   `sparse_path_matches_dense_*`).
//!
//! No allocation after the workspaces are built.

use contour_linalg::{SparseKkt, SparseSolve};
use contour_model::{Mechanism, ModelError, SparsityPattern};
use contour_ode::RhsError;
use serde::{Deserialize, Serialize};

use super::config::{PerturbationConfig, VelocityJacobian};
use super::correction::{
    norm1, refusal_stands, smallest_singular_value, ManifoldProjection, ProjectionOutcome,
    ROUNDOFF_RANK_RTOL,
};
use crate::error::ProjectionError;
use crate::method::Multipliers;
use crate::rhs::ConstrainedRhs;
use crate::tolerance::ErrorControl;
use crate::trajectory::SimulationStats;
use contour_linalg::DEFAULT_KKT_RANK_RTOL;

/// Which linear algebra the perturbation method uses for its evaluations and corrections.
///
/// `Auto` (the default) takes the sparse path when the mechanism declares its pattern
/// ([`Mechanism::sparsity`]) and has at least [`SPARSE_CROSSOVER_DOF`] coordinates, the
/// measured crossover (`benches/results/a02_scaling_*.md`); the other methods always solve
/// densely.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SparseMode {
    /// Sparse above the crossover, for mechanisms that declare their pattern.
    #[default]
    Auto,
    /// Always the dense path.
    Dense,
    /// The sparse path whenever the mechanism declares its pattern.
    Sparse,
}

/// Coordinates from which [`SparseMode::Auto`] takes the sparse path. On A02 at N = 10
/// (22 coordinates) a sparse evaluation costs 6.3 µs against 16.0 µs dense, a correction
/// 17.6 µs against 40.4 µs (`benches/results/a02_scaling_2026-11-26.md`); below, where the
/// dense kernels of small systems are at their best, the dense path is kept.
pub const SPARSE_CROSSOVER_DOF: usize = 12;

impl SparseMode {
    /// The pattern to use for `mech`, or `None` for the dense path.
    pub fn pattern<M: Mechanism + ?Sized>(self, mech: &M) -> Option<SparsityPattern> {
        match self {
            SparseMode::Dense => None,
            SparseMode::Sparse => mech.sparsity(),
            SparseMode::Auto if mech.dof() >= SPARSE_CROSSOVER_DOF => mech.sparsity(),
            SparseMode::Auto => None,
        }
    }
}

/// The constrained dynamics by the sparse KKT solve, in preallocated storage.
#[derive(Debug)]
pub struct SparseDynamics {
    n: usize,
    kkt: SparseKkt,
    mvals: Vec<f64>,
    jvals: Vec<f64>,
    h: Vec<f64>,
    u: Vec<f64>,
    c: Vec<f64>,
    y: Vec<f64>,
    /// `λ` of the last successful evaluation.
    lambda: Vec<f64>,
    /// `q̈` of the outputs' evaluations.
    qdd: Vec<f64>,
    /// Fallback evaluations the dense path answered by its full-rank fast path (the others are
    /// in its own count of rank-revealing solves).
    fallbacks_fast: usize,
    /// Evaluations solved here.
    pub evals: usize,
    /// Evaluations handed to the dense path.
    pub fallbacks: usize,
}

impl SparseDynamics {
    /// Workspace for `mech` with its `pattern` (the symbolic analysis is done here).
    pub fn new<M: Mechanism + ?Sized>(
        mech: &M,
        pattern: &SparsityPattern,
    ) -> Result<Self, ProjectionError> {
        let (n, l) = (mech.dof(), mech.n_constraints());
        let kkt = SparseKkt::new(n, l, &pattern.mass, &pattern.jacobian)?;
        Ok(Self {
            n,
            kkt,
            mvals: vec![0.0; pattern.mass.len()],
            jvals: vec![0.0; pattern.jacobian.len()],
            h: vec![0.0; n],
            u: vec![0.0; n],
            c: vec![0.0; l],
            y: vec![0.0; l],
            lambda: vec![0.0; l],
            qdd: vec![0.0; n],
            fallbacks_fast: 0,
            evals: 0,
            fallbacks: 0,
        })
    }

    /// `q̈` (and λ, kept) at `(t, q, q̇)` by `[M Jᵀ; J 0] (q̈, −λ) = (u − h, −ρ)`, Keerthi
    /// (1.1)+(1.4). `Ok(false)`: the sparse solve cannot answer (a near rank loss of `J`, or
    /// non-finite model values) and the caller takes the dense path, which also gives the
    /// typed error of bad values. Errors: the model's own parameters.
    pub fn accelerations<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        qd: &[f64],
        qdd: &mut [f64],
    ) -> Result<bool, ModelError> {
        mech.validate()?;
        mech.mass_matrix_values(q, &mut self.mvals);
        mech.constraint_jacobian_values(t, q, &mut self.jvals);
        mech.bias_forces(q, qd, &mut self.h);
        mech.applied_forces(t, q, qd, &mut self.u);
        mech.constraint_accel_bias(t, q, qd, &mut self.c);
        for k in 0..self.n {
            // f = u − h, kept in u
            self.u[k] -= self.h[k];
        }
        for ci in self.c.iter_mut() {
            // Keerthi (1.4): J q̈ = −ρ
            *ci = -*ci;
        }
        let solved = match self.kkt.factor(&self.mvals, &self.jvals) {
            Ok(true) => self.kkt.solve(&self.u, &self.c, qdd, &mut self.y),
            _ => Ok(SparseSolve::NearSingular),
        };
        let ok = matches!(solved, Ok(SparseSolve::Solved { .. }))
            && qdd.iter().chain(&self.y).all(|v| v.is_finite());
        if ok {
            for (li, yi) in self.lambda.iter_mut().zip(&self.y) {
                *li = -yi;
            }
            self.evals += 1;
        } else {
            self.fallbacks += 1;
        }
        Ok(ok)
    }

    /// `λ` of the last evaluation solved here.
    pub fn lambda(&self) -> &[f64] {
        &self.lambda
    }

    /// Numeric factorizations so far.
    pub fn factorizations(&self) -> usize {
        self.kkt.factorizations
    }
}

/// One counted evaluation `dy = f(t, y)` of `inner` (Keerthi's `N_f`), by `sparse` when given
/// and able to answer, else by the dense constrained dynamics of `inner`.
pub(crate) fn eval_counted<M: Mechanism + ?Sized>(
    inner: &mut ConstrainedRhs<'_, M>,
    sparse: Option<&mut SparseDynamics>,
    t: f64,
    y: &[f64],
    dy: &mut [f64],
) -> Result<(), RhsError> {
    if let Some(sp) = sparse {
        let n = inner.dof();
        let (q, qd) = y.split_at(n);
        let (dq, qdd) = dy.split_at_mut(n);
        match sp.accelerations(inner.mechanism(), t, q, qd, qdd) {
            Ok(true) => {
                dq.copy_from_slice(qd);
                inner.evals += 1;
                return Ok(());
            }
            Ok(false) => {
                let before = inner.rank_revealing_solves();
                let r = inner.eval_counted(t, y, dy);
                if inner.rank_revealing_solves() == before {
                    sp.fallbacks_fast += 1;
                }
                return r;
            }
            Err(e) => {
                inner.evals += 1;
                inner.last_error = Some(e);
                return Err(RhsError::Failed);
            }
        }
    }
    inner.eval_counted(t, y, dy)
}

/// The multipliers of an output at `x = (q, q̇)` by the sparse path when it answers, else the
/// driver's dense solve ([`Multipliers::Kkt`]).
pub(crate) fn multipliers<'a, M: Mechanism + ?Sized>(
    sparse: Option<&'a mut SparseDynamics>,
    mech: &M,
    t: f64,
    x: &[f64],
) -> Result<Multipliers<'a>, ProjectionError> {
    let Some(sp) = sparse else {
        return Ok(Multipliers::Kkt);
    };
    let n = sp.n;
    let (q, qd) = x.split_at(n);
    let mut qdd = std::mem::take(&mut sp.qdd);
    let r = sp.accelerations(mech, t, q, qd, &mut qdd);
    sp.qdd = qdd;
    if r? {
        // an output evaluation, not one of the integration's
        sp.evals -= 1;
        Ok(Multipliers::Given(&sp.lambda))
    } else {
        sp.fallbacks -= 1;
        Ok(Multipliers::Kkt)
    }
}

/// Adds the sparse path's counters to the run's statistics: its corrections, iterations and
/// factorizations to those of the dense correction, the evaluations and corrections handed to
/// the dense path to `sparse_fallbacks`, and every evaluation handed to the dense
/// path to `rank_revealing_evals` (`J` not certified of full rank; the dense solve's own
/// rank-revealing ones are counted there already).
pub(crate) fn add_stats(
    s: &mut SimulationStats,
    dynamics: Option<&SparseDynamics>,
    projection: Option<&SparseProjection>,
) {
    if let Some(d) = dynamics {
        s.rank_revealing_evals += d.fallbacks_fast;
        s.sparse_fallbacks += d.fallbacks;
    }
    if let Some(p) = projection {
        s.sparse_fallbacks += p.fallbacks;
        s.projections += p.projections;
        s.projection_iterations += p.iterations;
        s.qr_factorizations += p.factorizations();
    }
}

/// Keerthi's correction step (module documentation) by the sparse KKT solve, in preallocated
/// storage; the same iteration, tolerances and outcome as [`ManifoldProjection`].
#[derive(Debug)]
pub struct SparseProjection {
    n: usize,
    ec: ErrorControl,
    max_it: usize,
    newton_tol: f64,
    vel: VelocityJacobian,
    /// The acceptance bound `accept_factor` (units of τ).
    accept: f64,
    /// Hand a correction the acceptance bound would refuse to the dense path
    /// ([`PerturbationConfig::roundoff_filter`]) unless the refusal certificate shows that
    /// the dense second look refuses it too.
    handoff: bool,
    /// The relative rank cut-off of the dense rank-revealing correction (the certificate
    /// does not cover a direction it may drop).
    rank_rtol: f64,
    /// The certificate's inverse iteration (`L`), round-off levels of the position and
    /// velocity residuals (`L`) and `J v̄` (`L`).
    iv: Vec<f64>,
    noise_q: Vec<f64>,
    noise_v: Vec<f64>,
    jv: Vec<f64>,
    kkt: SparseKkt,
    jcols: Vec<usize>,
    jpat: Vec<(usize, usize)>,
    jvals: Vec<f64>,
    gvals: Vec<f64>,
    ones: Vec<f64>,
    s: Vec<f64>,
    t1: Vec<f64>,
    t2: Vec<f64>,
    zero: Vec<f64>,
    phi: Vec<f64>,
    b: Vec<f64>,
    y: Vec<f64>,
    dx: Vec<f64>,
    xq: Vec<f64>,
    xv: Vec<f64>,
    /// Corrections done here.
    pub projections: usize,
    /// MNR iterations of the position problems done here.
    pub iterations: usize,
    /// Corrections handed to the dense path.
    pub fallbacks: usize,
    /// Refused corrections the refusal certificate kept from the dense second look.
    pub certified_refusals: usize,
}

impl SparseProjection {
    /// Workspace for `mech` with its `pattern` and the tolerance `ec` (the τ of (2.1)).
    pub fn new<M: Mechanism + ?Sized>(
        mech: &M,
        pattern: &SparsityPattern,
        ec: ErrorControl,
        cfg: &PerturbationConfig,
    ) -> Result<Self, ProjectionError> {
        let (n, l) = (mech.dof(), mech.n_constraints());
        let diag: Vec<(usize, usize)> = (0..n).map(|k| (k, k)).collect();
        let kkt = SparseKkt::new(n, l, &diag, &pattern.jacobian)?;
        let nj = pattern.jacobian.len();
        Ok(Self {
            n,
            ec,
            max_it: cfg.max_newton_iterations,
            newton_tol: cfg.newton_tol,
            vel: cfg.velocity_jacobian,
            accept: cfg.accept_factor,
            handoff: cfg.roundoff_filter,
            rank_rtol: if cfg.roundoff_filter {
                ROUNDOFF_RANK_RTOL
            } else {
                DEFAULT_KKT_RANK_RTOL
            },
            iv: vec![0.0; l],
            noise_q: vec![0.0; l],
            noise_v: vec![0.0; l],
            jv: vec![0.0; l],
            kkt,
            jcols: pattern.jacobian.iter().map(|&(_, c)| c).collect(),
            jpat: pattern.jacobian.clone(),
            jvals: vec![0.0; nj],
            gvals: vec![0.0; nj],
            ones: vec![1.0; n],
            s: vec![0.0; 2 * n],
            t1: vec![0.0; n],
            t2: vec![0.0; n],
            zero: vec![0.0; n],
            phi: vec![0.0; l],
            b: vec![0.0; l],
            y: vec![0.0; l],
            dx: vec![0.0; n],
            xq: vec![0.0; n],
            xv: vec![0.0; n],
            projections: 0,
            iterations: 0,
            fallbacks: 0,
            certified_refusals: 0,
        })
    }

    /// The corrections of outputs (Remark 2.2): a refused correction is kept, not handed to
    /// the dense path (no second look; module `perturbation`, "Round-off filter").
    pub(crate) fn for_outputs(mut self) -> Self {
        self.handoff = false;
        self
    }

    /// Sets the relative rank cut-off of the dense correction this one hands refused
    /// corrections to ([`ManifoldProjection::set_rank`]; default `(64 ε)^{1/3}` with the
    /// round-off filter, else [`DEFAULT_KKT_RANK_RTOL`]).
    ///
    /// Errors: [`ProjectionError::InvalidParameter`] for a `rank_rtol` outside `(0, 1)`.
    pub fn set_rank_rtol(&mut self, rank_rtol: f64) -> Result<(), ProjectionError> {
        crate::method::check_parameters(&[(
            "rank_rtol",
            rank_rtol,
            rank_rtol > 0.0 && rank_rtol < 1.0,
        )])?;
        self.rank_rtol = rank_rtol;
        Ok(())
    }

    /// Numeric factorizations so far.
    pub fn factorizations(&self) -> usize {
        self.kkt.factorizations
    }

    /// `(‖φ‖₂, ‖J q̇ + b‖₂)` at `x = (q, q̇)` (Keerthi (1.6)) with the sparse `J`: O(nnz)
    /// instead of the dense monitor's O(L·N).
    pub fn violations<M: Mechanism + ?Sized>(&mut self, mech: &M, t: f64, x: &[f64]) -> (f64, f64) {
        let (q, qd) = x.split_at(self.n);
        mech.constraints(t, q, &mut self.phi);
        mech.constraint_jacobian_values(t, q, &mut self.jvals);
        mech.constraint_rate_bias(t, q, &mut self.b);
        self.add_jv(qd);
        let norm = |v: &[f64]| v.iter().map(|a| a * a).sum::<f64>().sqrt();
        (norm(&self.phi), norm(&self.b))
    }

    /// `[I Gᵀ; G 0]` with `G = J T` (`jvals` scaled by `t` column by column); `false` when the
    /// factorization cannot be used.
    fn factor_scaled(&mut self, second: bool) -> bool {
        let t = if second { &self.t2 } else { &self.t1 };
        for (g, (&v, &c)) in self
            .gvals
            .iter_mut()
            .zip(self.jvals.iter().zip(&self.jcols))
        {
            *g = v * t[c];
        }
        matches!(self.kkt.factor(&self.ones, &self.gvals), Ok(true))
    }

    /// Solves `G Gᵀ δμ = r`, `δX = Gᵀ δμ` into `dx`; `false` on a near rank loss.
    fn solve_step(&mut self, r: Residual) -> bool {
        let c = match r {
            Residual::Phi => &mut self.phi,
            Residual::Rate => &mut self.b,
        };
        // [I Gᵀ; G 0] (δX, −δμ) = (0, −G(X))
        for v in c.iter_mut() {
            *v = -*v;
        }
        matches!(
            self.kkt.solve(&self.zero, c, &mut self.dx, &mut self.y),
            Ok(SparseSolve::Solved { .. })
        )
    }

    /// Corrects `x̄ = (q̄, v̄)` onto `φ = 0`, `J q̇ + b = 0` into `out` as
    /// [`ManifoldProjection::project`] does; `None`: a near rank loss of `J`, or a correction
    /// the acceptance bound would refuse (the caller does the correction densely, whose
    /// rank-revealing path tells a correction made of amplified round-off from a genuine one).
    pub fn project<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        xbar: &[f64],
        out: &mut [f64],
    ) -> Option<ProjectionOutcome> {
        let n = self.n;
        out.copy_from_slice(xbar);
        // Keerthi (2.11), (3.1): T = diag(T₁, T₂) with TᵀWT = I, W = diag(s²).
        self.ec.inverse_scales(xbar, &mut self.s);
        for k in 0..n {
            self.t1[k] = 1.0 / self.s[k];
            self.t2[k] = 1.0 / self.s[n + k];
        }
        let (qbar, vbar) = xbar.split_at(n);
        // Keerthi (3.7): G = J(q̄) T₁
        mech.constraint_jacobian_values(t, qbar, &mut self.jvals);
        if !self.factor_scaled(false) {
            return None;
        }
        self.xq.fill(0.0);
        let qscale = qbar.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let mut converged = false;
        let mut it = 0;
        let mut prev = f64::INFINITY;
        while it < self.max_it {
            it += 1;
            mech.constraints(t, &out[..n], &mut self.phi);
            // Keerthi (2.16)–(2.17): G Gᵀ δμ = −G(X_l), δX = Gᵀ δμ
            if !self.solve_step(Residual::Phi) {
                return None;
            }
            let mut dnorm = 0.0;
            let mut dmax = 0.0f64;
            for k in 0..n {
                let d = self.dx[k];
                self.xq[k] += d;
                dnorm += d * d;
                dmax = dmax.max((self.t1[k] * d).abs());
                out[k] = qbar[k] + self.t1[k] * self.xq[k];
            }
            if !dnorm.is_finite() {
                break;
            }
            let dnorm = dnorm.sqrt();
            // at round-off: an update of a few ulps of q, or one that no longer shrinks while
            // of a few dozen ulps (near a singular configuration the round-off of φ is
            // amplified by 1/σ_min(J) and stays above the dense path's 4 ulps)
            let stalled = dnorm > 0.5 * prev && dmax <= 64.0 * f64::EPSILON * qscale;
            if dnorm <= self.newton_tol || dmax <= 4.0 * f64::EPSILON * qscale || stalled {
                converged = true;
                break;
            }
            prev = dnorm;
        }
        // Velocity problem (3.6): J (v̄ + T₂V) + b = 0, one step (affine).
        if self.vel == VelocityJacobian::Projected {
            mech.constraint_jacobian_values(t, &out[..n], &mut self.jvals);
            mech.constraint_rate_bias(t, &out[..n], &mut self.b);
        } else {
            // jvals still hold J(q̄)
            mech.constraint_rate_bias(t, qbar, &mut self.b);
        }
        // b ← J v̄ + b
        self.add_jv(vbar);
        if !self.factor_scaled(true) || !self.solve_step(Residual::Rate) {
            return None;
        }
        self.xv.copy_from_slice(&self.dx);
        let mut norm = 0.0;
        for k in 0..n {
            out[n + k] = vbar[k] + self.t2[k] * self.xv[k];
            norm += self.xq[k] * self.xq[k] + self.xv[k] * self.xv[k];
        }
        let o = ProjectionOutcome {
            norm: norm.sqrt(),
            iterations: it,
            converged,
        };
        if self.handoff && !(converged && o.norm <= self.accept) {
            // the refusal stands only where the certificate shows it (module docs)
            let q_for_j = if self.vel == VelocityJacobian::Projected {
                &out[..n]
            } else {
                qbar
            };
            if !self.refusal_certified(mech, t, qbar, q_for_j, vbar, &o) {
                return None;
            }
            self.certified_refusals += 1;
        }
        self.projections += 1;
        self.iterations += it;
        Some(o)
    }

    /// The refusal certificate (module `perturbation`, "Round-off filter") of the refused
    /// correction `o` from `x̄ = (q̄, v̄)`, with `q` the position of the velocity problem's
    /// Jacobian, whose values (`jvals`) and scaled factorization are the current ones. As
    /// the dense [`ManifoldProjection`]'s: `σ̂₂`, `σ̂₁` of `G₂ = J(q) T₂`, `G₁ = J(q̄) T₁` by
    /// inverse iteration with the sparse factor ([`smallest_singular_value`]; `(G Gᵀ)⁻¹ c` is
    /// `−y` of `[I Gᵀ; G 0] (x, y) = (0, c)`, O(nnz) per solve, and `x = Gᵀ(G Gᵀ)⁻¹ c` the
    /// direction `u` of `σ̂₁`), round-off levels `64 ε Σ_k |J_ik| |x_k|`, and the bound
    /// `hypot(B_q, B_v)`, `B_q = ‖noise_q‖₁/σ̂₁`,
    /// `B_v = (‖noise_v‖₁ + B_q ‖(J(q + T₁u) − J(q)) v̄‖₁)/σ̂₂`. `false` (hand over) where a
    /// solve stalls or a `σ̂` is within twice the rank cut-off of `‖G‖_F`. Overwrites the
    /// workspaces; `out` is left as it is. No allocation.
    fn refusal_certified<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        qbar: &[f64],
        q: &[f64],
        vbar: &[f64],
        o: &ProjectionOutcome,
    ) -> bool {
        let n = self.n;
        if !o.norm.is_finite() || self.iv.is_empty() {
            return false;
        }
        // velocity problem: the current factor is that of G₂
        let Some(s2) = self.sigma_min() else {
            return false;
        };
        let round = 64.0 * f64::EPSILON;
        self.noise_v.fill(0.0);
        self.jv.fill(0.0);
        for (&(i, k), &j) in self.jpat.iter().zip(&self.jvals) {
            self.noise_v[i] += round * (j * vbar[k]).abs();
            self.jv[i] -= j * vbar[k];
        }
        // position problem: G₁ = J(q̄) T₁ factored again
        mech.constraint_jacobian_values(t, qbar, &mut self.jvals);
        self.noise_q.fill(0.0);
        for (&(i, k), &j) in self.jpat.iter().zip(&self.jvals) {
            self.noise_q[i] += round * (j * qbar[k]).abs();
        }
        if !self.factor_scaled(false) {
            return false;
        }
        let Some(s1) = self.sigma_min() else {
            return false;
        };
        let bq = norm1(&self.noise_q) / s1;
        // u: the last solve's x = G₁ᵀ (G₁G₁ᵀ)⁻¹ c, in xv as the moved position q + T₁ u/‖u‖
        let un = self.dx.iter().map(|d| d * d).sum::<f64>().sqrt();
        if !(un.is_finite() && un > 0.0) {
            return false;
        }
        for k in 0..n {
            self.xv[k] = q[k] + self.t1[k] * self.dx[k] / un;
        }
        mech.constraint_jacobian_values(t, &self.xv, &mut self.jvals);
        for (&(i, k), &j) in self.jpat.iter().zip(&self.jvals) {
            self.jv[i] += j * vbar[k];
        }
        let bv = (norm1(&self.noise_v) + bq * norm1(&self.jv)) / s2;
        refusal_stands(o, self.accept, bq.hypot(bv))
    }

    /// `σ̂_min` of the scaled `G` of the current factorization by inverse iteration
    /// ([`smallest_singular_value`]); `None` where a solve stalls or `σ̂` is within twice the
    /// rank cut-off of `‖G‖_F` (`gvals`).
    fn sigma_min(&mut self) -> Option<f64> {
        let (kkt, zero, dx, y) = (&mut self.kkt, &self.zero, &mut self.dx, &mut self.y);
        let s = smallest_singular_value(&mut self.iv, |c| {
            // [I Gᵀ; G 0] (x, y) = (0, c): y = −(G Gᵀ)⁻¹ c
            let ok = matches!(kkt.solve(zero, c, dx, y), Ok(SparseSolve::Solved { .. }));
            for (ci, yi) in c.iter_mut().zip(y.iter()) {
                *ci = -yi;
            }
            ok
        })?;
        let fro = self.gvals.iter().map(|g| g * g).sum::<f64>().sqrt();
        (s > 2.0 * self.rank_rtol * fro).then_some(s)
    }

    /// `b ← b + J v` with the values in `jvals`.
    fn add_jv(&mut self, v: &[f64]) {
        for (&(i, k), &j) in self.jpat.iter().zip(&self.jvals) {
            self.b[i] += j * v[k];
        }
    }
}

/// The correction of `x̄` into `out`: by `sparse` when given and able to answer, else (and
/// counted as a fallback) by the dense `dense` (also a refusal of the sparse path that its
/// certificate cannot show to stand: the dense correction and its second look).
pub(crate) fn project<M: Mechanism + ?Sized>(
    dense: &mut ManifoldProjection,
    sparse: Option<&mut SparseProjection>,
    mech: &M,
    t: f64,
    xbar: &[f64],
    out: &mut [f64],
) -> Result<ProjectionOutcome, ProjectionError> {
    if let Some(sp) = sparse {
        if let Some(o) = sp.project(mech, t, xbar, out) {
            return Ok(o);
        }
        sp.fallbacks += 1;
    }
    dense.project(mech, t, xbar, out)
}

#[derive(Debug, Clone, Copy)]
enum Residual {
    Phi,
    Rate,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Integrator, Method, ProjectionError, Simulation};
    use contour_model::models::NFourBar;
    use contour_model::ConstrainedDynamics;
    use std::f64::consts::FRAC_PI_2;

    /// q̈ and λ of the sparse solve equal the dense range-space solve's to round-off off the
    /// singular positions (also off the constraint manifold); at the flat position (rank n + 1
    /// of 2n + 1 rows) the sparse path declines and the dense rank-revealing path answers.
    #[test]
    fn sparse_dynamics_match_the_dense_solve() {
        let p = NFourBar::new(10);
        let (n, l) = (p.dof(), p.n_constraints());
        let pattern = p.sparsity().unwrap();
        let mut sp = SparseDynamics::new(&p, &pattern).unwrap();
        let mut dense = ConstrainedDynamics::new(&p);
        for (th, w, off) in [(0.7, -3.0, 0.0), (2.5, 1.0, 1e-3), (-1.2, 0.3, -2e-2)] {
            let (mut q, qd) = p.state(th, w);
            for (k, qk) in q.iter_mut().enumerate() {
                *qk += off * (k as f64).sin();
            }
            let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
            let mut lam = vec![0.0; l];
            assert!(sp.accelerations(&p, 0.0, &q, &qd, &mut a).unwrap());
            dense
                .accelerations(&p, 0.0, &q, &qd, &mut b, &mut lam)
                .unwrap();
            let scale = b.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            let lscale = lam.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            for k in 0..n {
                assert!(
                    (a[k] - b[k]).abs() < 1e-12 * scale,
                    "{k}: {} {}",
                    a[k],
                    b[k]
                );
            }
            for i in 0..l {
                let d = (sp.lambda()[i] - lam[i]).abs();
                assert!(d < 1e-11 * lscale, "{i}: {} {}", sp.lambda()[i], lam[i]);
            }
        }
        // near the flat position: where the sparse solve answers, its q̈ is the dense one
        // (unique even at θ = 0); where the regularized solve would be off it declines
        for (th, must_decline) in [
            (0.0, false),
            (1e-9, false),
            (1e-7, true),
            (1e-5, true),
            (1e-3, false),
        ] {
            let (q, qd) = p.state(th, -3.0);
            let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
            let mut lam = vec![0.0; l];
            let answered = sp.accelerations(&p, 0.0, &q, &qd, &mut a).unwrap();
            dense
                .accelerations(&p, 0.0, &q, &qd, &mut b, &mut lam)
                .unwrap();
            let d = a
                .iter()
                .zip(&b)
                .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
            assert!(!(must_decline && answered), "θ = {th:e} answered");
            assert!(!answered || d < 1e-9, "θ = {th:e}: {d:e}");
        }
        assert!(sp.fallbacks >= 2, "{}", sp.fallbacks);
    }

    /// One correction of a perturbed state: the sparse and the dense QR correction give the
    /// same state and the same `‖X*‖` to round-off, for both velocity Jacobians.
    #[test]
    fn sparse_projection_matches_the_dense_correction() {
        let p = NFourBar::new(10);
        let n = p.dof();
        let pattern = p.sparsity().unwrap();
        let ec = ErrorControl::absolute(1e-6);
        for base in [PerturbationConfig::default(), PerturbationConfig::keerthi()] {
            // a perturbation larger than the acceptance bound, which the sparse path would
            // hand to the dense one
            let cfg = PerturbationConfig {
                accept_factor: 1e3,
                ..base
            };
            let mut sp = SparseProjection::new(&p, &pattern, ec, &cfg).unwrap();
            let mut dp = ManifoldProjection::new(&p, ec, &cfg).unwrap();
            let (q, qd) = p.state(1.1, -2.0);
            let mut xbar: Vec<f64> = q.iter().chain(&qd).copied().collect();
            for (k, x) in xbar.iter_mut().enumerate() {
                *x += 3e-7 * ((k * 7) as f64).sin();
            }
            let (mut a, mut b) = (vec![0.0; 2 * n], vec![0.0; 2 * n]);
            let oa = sp.project(&p, 0.0, &xbar, &mut a).unwrap();
            let ob = dp.project(&p, 0.0, &xbar, &mut b).unwrap();
            assert!(oa.converged && ob.converged);
            assert!((oa.norm - ob.norm).abs() < 1e-9 * ob.norm, "{oa:?} {ob:?}");
            for k in 0..2 * n {
                assert!((a[k] - b[k]).abs() < 1e-13, "{k}: {} {}", a[k], b[k]);
            }
            // with J(q̄) (Keerthi's (3.4)) the velocity residual is O(|Δq| |v|)
            let (ph, pd) = sp.violations(&p, 0.0, &a);
            let vtol = match cfg.velocity_jacobian {
                VelocityJacobian::Projected => 1e-12,
                VelocityJacobian::Predicted => 1e-5,
            };
            assert!(ph < 1e-13 && pd < vtol, "{ph:e} {pd:e}");
        }
    }

    /// The sparse path's refusal certificate (inverse iteration with its own factor): a
    /// correction refused far above the round-off bound is returned as refused, with no
    /// dense correction; one just above the acceptance bound goes to the dense path and its
    /// second look.
    #[test]
    fn sparse_refusal_certificate() {
        let p = NFourBar::new(10);
        let n = p.dof();
        let pattern = p.sparsity().unwrap();
        let ec = ErrorControl::absolute(1e-9);
        let cfg = PerturbationConfig::default();
        let (q, qd) = p.state(1.1, -2.0);
        let x: Vec<f64> = q.iter().chain(&qd).copied().collect();
        let shifted = |d: f64| {
            let mut xb = x.clone();
            xb[0] += d;
            xb
        };
        let mut out = vec![0.0; 2 * n];
        let mut sp = SparseProjection::new(&p, &pattern, ec, &cfg).unwrap();
        let mut dense = ManifoldProjection::new(&p, ec, &cfg).unwrap();
        let o = project(&mut dense, Some(&mut sp), &p, 0.0, &shifted(1e-7), &mut out).unwrap();
        assert!(o.converged && o.norm > 50.0, "{o:?}");
        assert_eq!((sp.certified_refusals, sp.fallbacks), (1, 0));
        assert_eq!((dense.projections, dense.rank_revealing), (0, 0));
        let d = 1e-7 * (0.5 + 5e-5) / o.norm;
        let o = project(&mut dense, Some(&mut sp), &p, 0.0, &shifted(d), &mut out).unwrap();
        // the second look leaves the residuals' round-off in place and is accepted here
        // (measured: 0.49819)
        assert!(o.norm > 0.49 && o.norm <= 0.5, "{o:?}");
        assert_eq!((sp.certified_refusals, sp.fallbacks), (1, 1));
        // the dense QR correction (refused too) and the second look: two QRs each
        assert_eq!((dense.second_looks, dense.qr_factorizations), (1, 4));
        assert!(dense.rank_revealing >= 1);
    }

    fn a02(loops: usize, mode: SparseMode) -> (Vec<f64>, Vec<(f64, f64)>, crate::SimulationStats) {
        a02_from(loops, mode, 0.0)
    }

    fn a02_from(
        loops: usize,
        mode: SparseMode,
        dtheta: f64,
    ) -> (Vec<f64>, Vec<(f64, f64)>, crate::SimulationStats) {
        let p = NFourBar::new(loops);
        let (q0, qd0) = p.state(FRAC_PI_2 + dtheta, -1.0);
        let times: Vec<f64> = (0..=400).map(|k| 0.05 * k as f64).collect();
        let tr = Simulation::new(&p, &q0, &qd0, 0.0, 20.0)
            .method(Method::Perturbation(PerturbationConfig {
                sparse: mode,
                ..PerturbationConfig::default()
            }))
            .integrator(Integrator::abm())
            .error_control(ErrorControl::absolute(1e-6))
            .output_times(times.clone())
            .run()
            .map_err(|e: ProjectionError| format!("N = {loops} {mode:?} dθ = {dtheta:e}: {e}"))
            .unwrap();
        let b0 = tr.q.iter().map(|q| (q[0], q[1])).collect();
        (times, b0, tr.stats)
    }

    /// A02, perturbation + ABM at τ = 1e-6 over 20 s (through the singular passages): the
    /// sparse path gives the dense path's B0 to round-off over the first 2 s (past the first
    /// flat passage) and, over 20 s, differs from it by no more than the dense path differs
    /// from itself when θ(0) moves by 4e-16 rad (the problem's own amplification of
    /// round-off, ~1e-5 at 20 s, through the step-size control and the singular passages);
    /// both meet the exact reduced solution (`NFourBar::reduced_solution`, an independent RK4
    /// of the reduced equation) within A02's 1e-3.
    #[test]
    fn sparse_path_matches_dense_run_and_the_reduced_solution() {
        for loops in [4usize, 10] {
            let (times, dense, _) = a02(loops, SparseMode::Dense);
            let (_, sparse, stats) = a02(loops, SparseMode::Sparse);
            let (_, moved, _) = a02_from(loops, SparseMode::Dense, 4e-16);
            let exact = NFourBar::new(loops).reduced_solution(FRAC_PI_2, -1.0, &times, 20_000);
            let dist = |a: &(f64, f64), b: &(f64, f64)| (a.0 - b.0).hypot(a.1 - b.1);
            let (mut early, mut diff, mut witness, mut err) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
            for k in 0..times.len() {
                let d = dist(&dense[k], &sparse[k]);
                if times[k] <= 2.0 {
                    early = early.max(d);
                }
                diff = diff.max(d);
                witness = witness.max(dist(&dense[k], &moved[k]));
                let th = exact[k].0;
                err = err.max(dist(&sparse[k], &(th.cos(), th.sin())));
                err = err.max(dist(&dense[k], &(th.cos(), th.sin())));
            }
            eprintln!("N = {loops}: first 2 s {early:e}, 20 s {diff:e}, witness {witness:e}, B0 error {err:e}");
            // the paths differ (the sparse one ran), by round-off
            assert!(early > 0.0 && early < 1e-9, "N = {loops}: {early:e}");
            assert!(
                diff < 10.0 * witness,
                "N = {loops}: {diff:e} vs {witness:e}"
            );
            assert!(err < 1e-3, "N = {loops}: {err:e}");
            assert!(stats.steps > 500 && stats.max_phi < 1e-9, "{stats:?}");
        }
    }
}
