//! Constrained accelerations and multipliers: the index-1 form of the
//! equations of motion (Keerthi (1.1) + (1.4)).
//!
//! ```text
//! M q̈ − Jᵀλ = u − h                 (1.1)
//! J q̈       = −ρ − α(J q̇ + b) − β φ  (1.4), with Baumgarte's terms (4.3) when enabled
//! ```
//!
//! solved by [`contour_linalg::KktSolver`] in a workspace allocated once per
//! mechanism ([`ConstrainedDynamics::new`]); [`ConstrainedDynamics::accelerations`]
//! does not allocate.
//!
//! **Singular configurations.** Where `J` loses rank (redundant rows, or a mechanism passing
//! through a singular configuration such as the flat position of a four-bar) `q̈` is still
//! unique and `λ` is not: by default the solver then takes a rank-revealing path (the SVD of
//! `L⁻¹Jᵀ`, `M = LLᵀ`) and returns that `q̈` with the minimum-Euclidean-norm `λ`
//! ([`contour_linalg::RankDeficiency::MinimumNorm`]); regular configurations keep the
//! Cholesky fast path. [`DynamicsOptions::rank_deficiency`] set to
//! [`RankDeficiency::Error`] turns a rank below L into [`ModelError::RankDeficientJacobian`].
//! Every returned number is finite: a NaN or ±∞ in `q̈` or `λ` is [`ModelError::NonFinite`].

use crate::terms::{ModelTerms, Terms};
use crate::validate::{check_finite, check_len, check_outputs, check_timed_state};
use crate::{Mechanism, ModelError};
use contour_linalg::{Cholesky, KktMethod, KktSolver, RankDeficiency};
use faer::MatRef;

/// Factor `c` of the residual check after every constrained solve,
/// `|(J q̈ + ρ)_i| ≤ c · ε · (|ρ_i| + ‖J_i‖₁ (‖q̈‖_∞ + ‖(|f| + |Jᵀλ|) / max M_kk‖_∞))`
/// (see [`ModelError::IllConditioned`]): the constraint must hold to about 8 digits
/// (c·ε ≈ 2.2e-8) relative to the size of its terms. Over every constrained solve of
/// `cargo xtask reproduce-tables` the ratio residual / (ε · terms) stays below 57, so 1e8
/// leaves six orders of margin; a pendulum with `M = diag(1, ε)` exceeds it from
/// ε ≈ 1e-8 on (relative residual 7.5e-8 at ε = 1e-8 is still accepted).
pub const RESIDUAL_FACTOR: f64 = 1e8;

/// Baumgarte's stabilization terms, Keerthi (4.3):
/// `J q̈ + ρ + α (J q̇ + b) + β φ = 0`, i.e. `φ̈ + α φ̇ + β φ = 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Baumgarte {
    /// Velocity gain α \[1/s\] (≥ 0).
    pub alpha: f64,
    /// Position gain β \[1/s²\] (≥ 0).
    pub beta: f64,
}

impl Baumgarte {
    /// Critical damping `α = 2δ`, `β = δ²` (Baumgarte's choice; Keerthi uses δ = 2).
    pub fn critical(delta: f64) -> Self {
        Self {
            alpha: 2.0 * delta,
            beta: delta * delta,
        }
    }
}

/// Options of [`ConstrainedDynamics`]. `Default`: range-space KKT method
/// (Cholesky of `M`, then of `S = J M⁻¹ Jᵀ`), no Baumgarte terms, the KKT
/// solver's default pivot tolerance (`1e-12`) and rank cut-off (`1e-6`,
/// [`contour_linalg::DEFAULT_KKT_RANK_RTOL`]), and the rank-revealing solve where `J` is
/// rank-deficient ([`RankDeficiency::MinimumNorm`]).
///
/// The range of each option, checked by [`DynamicsOptions::validate`] (the one check; every
/// workspace built from the options and every simulation calls it):
///
/// | option            | range      | meaning at the ends                                        |
/// |-------------------|------------|------------------------------------------------------------|
/// | `baumgarte.alpha` | `[0, ∞)`   | 0: no velocity term                                        |
/// | `baumgarte.beta`  | `[0, ∞)`   | 0: no position term                                        |
/// | `pivot_rtol`      | `[0, ∞)`   | 0: rank-revealing solve only where the Cholesky of `S` fails; ≥ 1: always |
/// | `rank_rtol`       | `(0, 1)`   | open at both ends (below)                                  |
///
/// `rank_rtol = 0` is refused: an exactly redundant row has a computed singular value of
/// order `ε · σ_max`, not 0, so a zero cut-off keeps round-off as a constraint direction and
/// the rank-revealing solve divides by it (λ of order `1/ε`, and a residual check that cannot
/// pass); no choice of the other options gives 0 a useful meaning. `rank_rtol ≥ 1` would drop
/// every direction.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DynamicsOptions {
    /// How the augmented system is solved.
    pub method: KktMethod,
    /// Baumgarte terms added to the acceleration constraint (`None`: plain (1.4)).
    pub baumgarte: Option<Baumgarte>,
    /// Relative pivot tolerance of the KKT solver, in `[0, ∞)` (`None`:
    /// `contour_linalg::DEFAULT_KKT_PIVOT_RTOL`).
    pub pivot_rtol: Option<f64>,
    /// Relative rank cut-off of the rank-revealing solve, on the singular values of `L⁻¹Jᵀ`,
    /// in `(0, 1)` (`None`: [`contour_linalg::DEFAULT_KKT_RANK_RTOL`]).
    pub rank_rtol: Option<f64>,
    /// What a rank-deficient `J` gives: the unique `q̈` and the minimum-norm `λ` (default), or
    /// [`ModelError::RankDeficientJacobian`].
    pub rank_deficiency: RankDeficiency,
}

impl DynamicsOptions {
    /// Checks every option against its range (table of [`DynamicsOptions`]):
    /// [`ModelError::InvalidOption`] names the first option out of range (NaN is out of every
    /// range), with its value and range.
    pub fn validate(&self) -> Result<(), ModelError> {
        /// `(option, value if set, whether it is in range, the range)`.
        type Check = (&'static str, Option<f64>, fn(f64) -> bool, &'static str);
        const NON_NEGATIVE: &str = "[0, ∞) (finite)";
        fn non_negative(v: f64) -> bool {
            v.is_finite() && v >= 0.0
        }
        fn open_unit(v: f64) -> bool {
            v > 0.0 && v < 1.0
        }
        let (alpha, beta) = self
            .baumgarte
            .map_or((None, None), |b| (Some(b.alpha), Some(b.beta)));
        let checks: [Check; 4] = [
            ("baumgarte.alpha", alpha, non_negative, NON_NEGATIVE),
            ("baumgarte.beta", beta, non_negative, NON_NEGATIVE),
            ("pivot_rtol", self.pivot_rtol, non_negative, NON_NEGATIVE),
            ("rank_rtol", self.rank_rtol, open_unit, "(0, 1)"),
        ];
        for (option, value, in_range, range) in checks {
            match value {
                Some(value) if !in_range(value) => {
                    return Err(ModelError::InvalidOption {
                        option,
                        value,
                        range,
                    })
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Workspace for the constrained dynamics of one mechanism: the matrices
/// `M` (N×N), `J` (L×N) and the vectors `h, u, ρ, b, φ`, evaluated at the
/// last state passed in, plus a KKT solver and a Cholesky factorization.
///
/// All constraint rows are treated as active equalities; choosing the active
/// set of unilateral rows is the job of `contour-contact`.
///
/// Where no constraint row enters (`L = 0`, or [`ConstrainedDynamics::unconstrained_accelerations`])
/// and the mechanism has an O(N) forward dynamics ([`Mechanism::fast_forward_dynamics`]: the
/// articulated-body algorithm of a [`crate::tree::KinematicTree`]), that is used instead of
/// `M` and a Cholesky factorization; `M` and `h` are then not evaluated, and
/// [`ConstrainedDynamics::mass_matrix`] / [`ConstrainedDynamics::bias_forces`] keep the values
/// of the last call that did evaluate them.
#[derive(Debug)]
pub struct ConstrainedDynamics {
    n: usize,
    l: usize,
    baumgarte: Option<Baumgarte>,
    /// `M, h, u, f = u − h, J, ρ, b, φ` at the last state.
    terms: ModelTerms,
    /// Right-hand side of the acceleration constraint, `−ρ` (minus the Baumgarte terms).
    c: Vec<f64>,
    qdd: Vec<f64>,
    /// `(|f_k| + Σ_j |J_jk λ_j|) / max M_kk` of the residual check.
    force: Vec<f64>,
    kkt: KktSolver,
    chol: Cholesky,
    /// The mechanism answers [`Mechanism::fast_forward_dynamics`] (a kinematic tree: ABA).
    fast: bool,
    /// Solves that took the rank-revealing path.
    rank_revealing_solves: usize,
    /// `t` of the last evaluation (for the messages).
    t: f64,
    /// Numerical rank of `J` at the first constrained solve: a rank deficiency present then
    /// is redundant rows, not a singular configuration (the messages).
    initial_rank: Option<usize>,
}

impl ConstrainedDynamics {
    /// Workspace for `mech` with the default options.
    pub fn new<M: Mechanism + ?Sized>(mech: &M) -> Self {
        Self::build(mech, None, KktMethod::default())
    }

    /// The workspace for `mech` with the Baumgarte terms `baumgarte` and a KKT solver of
    /// `method` (built once; the options are checked by the callers).
    fn build<M: Mechanism + ?Sized>(
        mech: &M,
        baumgarte: Option<Baumgarte>,
        method: KktMethod,
    ) -> Self {
        let n = mech.dof();
        let l = mech.n_constraints();
        Self {
            n,
            l,
            baumgarte,
            terms: ModelTerms::new(mech),
            c: vec![0.0; l],
            qdd: vec![0.0; n],
            force: vec![0.0; n],
            kkt: KktSolver::new(n, l, method),
            chol: Cholesky::new(n),
            // probe with empty slices: a model without the O(N) path answers `None` at once
            fast: mech.fast_forward_dynamics(&[], &[], &[], &mut []).is_some(),
            rank_revealing_solves: 0,
            t: f64::NAN,
            initial_rank: None,
        }
    }

    /// Workspace for `mech` with explicit options; [`ModelError::InvalidOption`] for an
    /// option out of its range ([`DynamicsOptions::validate`]), or bad model parameters
    /// ([`Mechanism::validate`]).
    pub fn with_options<M: Mechanism + ?Sized>(
        mech: &M,
        options: DynamicsOptions,
    ) -> Result<Self, ModelError> {
        mech.validate()?;
        options.validate()?;
        let mut s = Self::build(mech, options.baumgarte, options.method);
        // in range after `validate`: the solver's own checks agree with it
        if let Some(tol) = options.pivot_rtol {
            s.kkt.set_pivot_rtol(tol)?;
        }
        if let Some(tol) = options.rank_rtol {
            s.kkt.set_rank_rtol(tol)?;
        }
        s.kkt.set_rank_deficiency(options.rank_deficiency);
        Ok(s)
    }

    /// Number of solves that took the rank-revealing path (`J` not certified of full rank by
    /// the fast path) since the workspace was built.
    pub fn rank_revealing_solves(&self) -> usize {
        self.rank_revealing_solves
    }

    /// Numerical rank of `J` at the last constrained solve (L after the fast path).
    pub fn last_rank(&self) -> usize {
        self.kkt.last_rank()
    }

    /// Number of coordinates N.
    pub fn dof(&self) -> usize {
        self.n
    }

    /// Number of constraint rows L.
    pub fn n_constraints(&self) -> usize {
        self.l
    }

    /// The Baumgarte terms in use, if any.
    pub fn baumgarte(&self) -> Option<Baumgarte> {
        self.baumgarte
    }

    /// `M(q)` at the last evaluated state.
    pub fn mass_matrix(&self) -> MatRef<'_, f64> {
        self.terms.mass_matrix()
    }

    /// `J(t, q)` at the last state passed to a constrained call
    /// ([`ConstrainedDynamics::unconstrained_accelerations`] does not update it).
    pub fn jacobian(&self) -> MatRef<'_, f64> {
        self.terms.jacobian()
    }

    /// `h(q, q̇)` at the last evaluated state.
    pub fn bias_forces(&self) -> &[f64] {
        self.terms.bias_forces()
    }

    /// `u(t, q, q̇)` at the last evaluated state (or the input given to
    /// [`ConstrainedDynamics::contact_force_with_input`]).
    pub fn applied_forces(&self) -> &[f64] {
        self.terms.applied_forces()
    }

    /// `ρ(t, q, q̇)` at the last state passed to a constrained call.
    pub fn accel_bias(&self) -> &[f64] {
        self.terms.accel_bias()
    }

    fn check_mechanism<M: Mechanism + ?Sized>(&self, mech: &M) -> Result<(), ModelError> {
        if mech.dof() != self.n {
            return Err(ModelError::DimensionMismatch {
                what: "mechanism dof",
                expected: self.n,
                found: mech.dof(),
            });
        }
        if mech.n_constraints() != self.l {
            return Err(ModelError::DimensionMismatch {
                what: "mechanism constraints",
                expected: self.l,
                found: mech.n_constraints(),
            });
        }
        Ok(())
    }

    /// The checks of every call before the model is evaluated: the mechanism's dimensions and
    /// parameters ([`Mechanism::validate`]), a finite `t` and finite `q`, `q̇` of length N.
    fn check_call<M: Mechanism + ?Sized>(
        &self,
        mech: &M,
        t: f64,
        q: &[f64],
        qd: &[f64],
    ) -> Result<(), ModelError> {
        self.check_mechanism(mech)?;
        mech.validate()?;
        check_timed_state(mech, t, q, qd)
    }

    /// Evaluates `M, h, u` (unless `input` is given), and for L > 0 `J, ρ`
    /// (and `b, φ` with Baumgarte terms); checks that the model's outputs are finite.
    fn evaluate<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        qd: &[f64],
        input: Option<&[f64]>,
        constraints: bool,
    ) -> Result<(), ModelError> {
        self.check_call(mech, t, q, qd)?;
        self.t = t;
        let which = match (constraints, self.baumgarte) {
            (false, _) => Terms::Forces,
            (true, None) => Terms::Accelerations,
            (true, Some(_)) => Terms::All,
        };
        self.terms.evaluate(mech, t, q, qd, input, which)?;
        if constraints && self.l > 0 {
            // Keerthi (1.4): J q̈ = −ρ
            for (ci, ri) in self.c.iter_mut().zip(self.terms.accel_bias()) {
                *ci = -ri;
            }
            if let Some(bg) = self.baumgarte {
                // Keerthi (4.3): J q̈ = −ρ − α (J q̇ + b) − β φ
                let phi = self.terms.phi();
                for i in 0..self.l {
                    let phidot = self.terms.constraint_rate(i, qd);
                    self.c[i] -= bg.alpha * phidot + bg.beta * phi[i];
                }
            }
        }
        Ok(())
    }

    /// Constrained accelerations and multipliers: solves
    /// `M q̈ + h = u + Jᵀλ`, `J q̈ + ρ = 0` (Keerthi (1.1) + (1.4); with
    /// Baumgarte terms `J q̈ + ρ + α(J q̇ + b) + β φ = 0`, Keerthi (4.3)).
    ///
    /// `qdd` has length N, `lambda` length L. Does not allocate.
    ///
    /// Where `J` lacks full row rank (e.g. [`RedundantFourBar`](crate::models::RedundantFourBar):
    /// rank 2 of 3 rows; a flat [`NFourBar`](crate::models::NFourBar)) the unique `q̈` and the
    /// minimum-norm `λ` (module documentation).
    ///
    /// Errors: dimension and NaN checks on inputs and model outputs;
    /// [`ModelError::MassMatrixNotPositiveDefinite`]; [`ModelError::NonFinite`] for a NaN or
    /// ±∞ in `q̈` or `λ` (an overflowing solve); [`ModelError::IllConditioned`];
    /// [`ModelError::RankDeficientJacobian`] only with [`RankDeficiency::Error`].
    pub fn accelerations<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        qd: &[f64],
        qdd: &mut [f64],
        lambda: &mut [f64],
    ) -> Result<(), ModelError> {
        check_outputs(mech, qdd, lambda)?;
        if self.l == 0 && self.fast {
            return self.fast_unconstrained(mech, t, q, qd, qdd);
        }
        self.evaluate(mech, t, q, qd, None, true)?;
        self.solve(qdd, lambda)
    }

    /// `q̈ = M⁻¹(u − h)` by the mechanism's O(N) forward dynamics (ABA for trees), with the
    /// checks of [`ConstrainedDynamics::evaluate`] on the state and on `u`.
    fn fast_unconstrained<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        qd: &[f64],
        qdd: &mut [f64],
    ) -> Result<(), ModelError> {
        self.check_call(mech, t, q, qd)?;
        mech.applied_forces(t, q, qd, self.terms.applied_forces_mut());
        check_finite("applied forces", self.terms.applied_forces())?;
        match mech.fast_forward_dynamics(q, qd, self.terms.applied_forces(), qdd) {
            Some(r) => r?,
            None => {
                // the probe of `new` said otherwise: take the general path
                self.evaluate(mech, t, q, qd, None, false)?;
                self.solve_unconstrained(qdd)?;
            }
        }
        check_finite("accelerations", qdd)
    }

    fn solve(&mut self, qdd: &mut [f64], lambda: &mut [f64]) -> Result<(), ModelError> {
        let l = self.l;
        self.kkt
            .solve(
                self.terms.mass_matrix(),
                self.terms.jacobian(),
                self.terms.net_force(),
                &self.c,
                qdd,
                lambda,
            )
            .map_err(|e| ModelError::from_solver(e, l))?;
        let rank_revealing = self.kkt.last_solve_was_rank_revealing();
        if rank_revealing {
            self.rank_revealing_solves += 1;
        }
        if self.initial_rank.is_none() {
            self.initial_rank = Some(self.kkt.last_rank());
        }
        check_finite("accelerations", qdd)?;
        check_finite("lambda", lambda)?;
        self.check_residual(qdd, lambda, rank_revealing)
    }

    /// The acceleration constraint after the solve, row by row:
    ///
    /// ```text
    /// |(J q̈)_i − c_i| ≤ RESIDUAL_FACTOR · ε · ( |c_i| + ‖J_i‖₁ (‖q̈‖_∞ + ‖g‖_∞) ),
    /// g_k = (|f_k| + Σ_j |J_jk λ_j|) / m
    /// ```
    ///
    /// with `c = −ρ` (minus the Baumgarte terms), `f = u − h`, `m = max_k M_kk` and ε the
    /// machine epsilon. The bound is normwise in `q̈` and the forces: a backward-stable solve
    /// errs in every component by about `ε · cond · ‖q̈‖`, so a row whose own terms vanish (a
    /// unit-vector row `|u|² = 1` of a body at rest, `u̇ = ü = 0`) still gets the round-off of
    /// the whole solution, scaled by the size of its row of `J`, and never a bound of 1e-22.
    /// A well-conditioned system meets it by orders of magnitude; an ill-conditioned `M` or
    /// `J M⁻¹ Jᵀ` (e.g. `M = diag(1, 1e-12)`) does not, and is reported as
    /// [`ModelError::IllConditioned`] instead of returning accelerations that violate the
    /// constraint. After a rank-revealing solve the rows hold, besides round-off, the
    /// inconsistency `d` of the data in the dropped singular directions (`J q̈ = c − d`,
    /// [`contour_linalg::KktSolver::dropped_residual`]): `J q̈ − c + d` is checked (with `|d_i|`
    /// added to the scale), i.e. the accuracy of the solve in the directions it keeps; and `d`
    /// itself must stay within the rank cut-off times the row's own terms plus the round-off
    /// bound above, `|d_i| ≤ rank_rtol · (|c_i| + |d_i| + Σ_k |J_ik| (|q̈_k| + g_k)) + bound_i`
    /// (the data of exactly redundant rows are consistent to round-off), else
    /// [`ModelError::InconsistentAtSingularity`]: data that no `q̈` meets (a state that drifted
    /// off the constraint near a singular configuration) have no unique answer, and the
    /// least-squares one lets a simulation continue on a branch chosen by the drift. Not
    /// finite residuals fail. No allocation.
    fn check_residual(
        &mut self,
        qdd: &[f64],
        lambda: &[f64],
        rank_revealing: bool,
    ) -> Result<(), ModelError> {
        let factor = RESIDUAL_FACTOR * f64::EPSILON;
        let n = self.n;
        let dropped = self.kkt.dropped_residual();
        let (mm, j, f) = (
            self.terms.mass_matrix(),
            self.terms.jacobian(),
            self.terms.net_force(),
        );
        let m = (0..n).fold(0.0f64, |a, k| a.max(mm[(k, k)]));
        // force_k = |f_k| + Σ_j |J_jk λ_j|, once per column (O(L·N), not O(L²·N))
        for k in 0..n {
            let mut force = f[k].abs();
            for (jj, lj) in lambda.iter().enumerate() {
                force += (j[(jj, k)] * lj).abs();
            }
            self.force[k] = force / m;
        }
        // the normwise floor: ‖q̈‖_∞ + ‖force‖_∞, shared by every row
        let global = qdd.iter().fold(0.0f64, |a, x| a.max(x.abs()))
            + self.force.iter().fold(0.0f64, |a, x| a.max(*x));
        for i in 0..self.l {
            let d = if rank_revealing { dropped[i] } else { 0.0 };
            let mut r = d - self.c[i];
            let (mut row_norm, mut terms) = (0.0, self.c[i].abs() + d.abs());
            for k in 0..n {
                let jik = j[(i, k)];
                r += jik * qdd[k];
                row_norm += jik.abs();
                terms += jik.abs() * (qdd[k].abs() + self.force[k]);
            }
            // ‖J_i‖₁ (‖q̈‖_∞ + ‖force‖_∞) ≥ Σ_k |J_ik| (|q̈_k| + force_k): the normwise floor
            let scale = self.c[i].abs() + d.abs() + row_norm * global;
            let bound = factor * scale;
            // a NaN residual (or bound) fails too
            if !within(r.abs(), bound) {
                return Err(ModelError::IllConditioned {
                    what: "constrained accelerations (J qdd + rho)",
                    residual: r.abs(),
                    bound,
                });
            }
            // data inconsistent by round-off only (exactly redundant rows) pass the floor
            let bound = self.kkt.rank_rtol() * terms + factor * scale;
            if !within(d.abs(), bound) {
                let rank = self.kkt.last_rank();
                return Err(ModelError::InconsistentAtSingularity {
                    t: self.t,
                    row: i,
                    initial_rank: self.initial_rank.unwrap_or(rank),
                    rank,
                    rows: self.l,
                    tolerance: self.kkt.rank_rtol(),
                    residual: d.abs(),
                    bound,
                });
            }
        }
        Ok(())
    }

    /// The multipliers `λ` (length L) for the state `(t, q, q̇)` and the
    /// mechanism's own applied forces: the contact force of Huang (2.3.1)–(2.3.2).
    ///
    /// Huang writes `M q̈ + F = T + J_Hᵀ Dᵀ λ` with a scalar λ, `J_H = ∂p/∂q`
    /// the end-effector Jacobian and `D = ∂φ/∂p` (2.2.13); our `J = ∂φ/∂q = D J_H`,
    /// so `Jᵀλ = J_Hᵀ Dᵀ λ` and the multipliers coincide. Huang's
    /// `A λ = D J_H M⁻¹(F − T) − (D J̇_H + Ḋ J_H) q̇` has
    /// `A = D J_H M⁻¹ J_Hᵀ Dᵀ = J M⁻¹ Jᵀ` (the Schur complement `S`) and
    /// `(D J̇_H + Ḋ J_H) q̇ = J̇ q̇ = ρ`, so (2.3.2) reads
    /// `λ = S⁻¹ (J M⁻¹ (h − u) − ρ)`, exactly the multiplier of the KKT system
    /// solved by [`ConstrainedDynamics::accelerations`]. The workspace contact
    /// force vector is then `f = Dᵀλ` (Huang (2.2.14)); for Huang's robot
    /// `D = J` (`p = q`).
    pub fn contact_force<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        qd: &[f64],
        lambda: &mut [f64],
    ) -> Result<(), ModelError> {
        self.contact_force_from(mech, t, q, qd, None, lambda)
    }

    /// As [`ConstrainedDynamics::contact_force`], with the input `u` (Huang's
    /// joint torque T, length N) given explicitly instead of taken from
    /// [`Mechanism::applied_forces`].
    pub fn contact_force_with_input<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        qd: &[f64],
        u: &[f64],
        lambda: &mut [f64],
    ) -> Result<(), ModelError> {
        self.contact_force_from(mech, t, q, qd, Some(u), lambda)
    }

    /// The multipliers of [`ConstrainedDynamics::contact_force`] with `u` from the mechanism
    /// (`input = None`) or given; the accelerations stay in the workspace.
    fn contact_force_from<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        qd: &[f64],
        input: Option<&[f64]>,
        lambda: &mut [f64],
    ) -> Result<(), ModelError> {
        check_len("lambda", lambda, mech.n_constraints())?;
        self.evaluate(mech, t, q, qd, input, true)?;
        let mut qdd = std::mem::take(&mut self.qdd);
        let r = self.solve(&mut qdd, lambda);
        self.qdd = qdd;
        r
    }

    /// The accelerations computed by the last [`ConstrainedDynamics::contact_force`]
    /// or [`ConstrainedDynamics::contact_force_with_input`] call.
    pub fn last_contact_accelerations(&self) -> &[f64] {
        &self.qdd
    }

    /// Unconstrained accelerations `q̈ = M⁻¹ (u − h)` (constraints ignored),
    /// through a Cholesky factorization of `M`. Does not allocate.
    pub fn unconstrained_accelerations<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        qd: &[f64],
        qdd: &mut [f64],
    ) -> Result<(), ModelError> {
        check_len("qdd", qdd, mech.dof())?;
        if self.fast {
            return self.fast_unconstrained(mech, t, q, qd, qdd);
        }
        self.evaluate(mech, t, q, qd, None, false)?;
        self.solve_unconstrained(qdd)
    }

    /// `q̈ = M⁻¹ f` by a Cholesky factorization of the evaluated `M`.
    fn solve_unconstrained(&mut self, qdd: &mut [f64]) -> Result<(), ModelError> {
        self.chol
            .factor(self.terms.mass_matrix())
            .map_err(|e| ModelError::from_solver(e, self.l))?;
        qdd.copy_from_slice(self.terms.net_force());
        self.chol.solve_in_place(qdd);
        check_finite("accelerations", qdd)
    }
}

/// `x ≤ bound`, false when either is NaN (a NaN residual fails its check).
fn within(x: f64, bound: f64) -> bool {
    matches!(
        x.partial_cmp(&bound),
        Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::{KeerthiControlLaw, KeerthiRobot, SliderCrank, KEERTHI_IC2};
    use crate::testing::SplitMix64;
    use crate::WithController;
    use faer::linalg::solvers::DenseSolveCore;
    use faer::Mat;

    fn residuals<M: Mechanism + ?Sized>(
        mech: &M,
        q: &[f64],
        qd: &[f64],
        qdd: &[f64],
        lambda: &[f64],
    ) -> (f64, f64) {
        let (n, l) = (mech.dof(), mech.n_constraints());
        let mut m = Mat::<f64>::zeros(n, n);
        let mut j = Mat::<f64>::zeros(l, n);
        let (mut h, mut u, mut rho) = (vec![0.0; n], vec![0.0; n], vec![0.0; l]);
        mech.mass_matrix(q, m.as_mut());
        mech.constraint_jacobian(0.0, q, j.as_mut());
        mech.bias_forces(q, qd, &mut h);
        mech.applied_forces(0.0, q, qd, &mut u);
        mech.constraint_accel_bias(0.0, q, qd, &mut rho);
        let mut r1 = 0.0f64;
        for i in 0..n {
            let mut s = h[i] - u[i];
            for k in 0..n {
                s += m[(i, k)] * qdd[k];
            }
            for k in 0..l {
                s -= j[(k, i)] * lambda[k];
            }
            r1 = r1.max(s.abs());
        }
        let mut r2 = 0.0f64;
        for i in 0..l {
            let mut s = rho[i];
            for k in 0..n {
                s += j[(i, k)] * qdd[k];
            }
            r2 = r2.max(s.abs());
        }
        (r1, r2)
    }

    #[test]
    fn accelerations_satisfy_both_equations_with_both_kkt_methods() {
        let sc = SliderCrank::default();
        let mut rs = ConstrainedDynamics::new(&sc);
        let mut lu = ConstrainedDynamics::with_options(
            &sc,
            DynamicsOptions {
                method: KktMethod::FullLu,
                ..Default::default()
            },
        )
        .unwrap();
        let mut rng = SplitMix64::new(11);
        for _ in 0..20 {
            let (q, qd) = sc.state(rng.uniform(-3.0, 3.0), rng.uniform(-5.0, 5.0));
            let (mut a1, mut l1, mut a2, mut l2) = ([0.0; 3], [0.0; 2], [0.0; 3], [0.0; 2]);
            rs.accelerations(&sc, 0.0, &q, &qd, &mut a1, &mut l1)
                .unwrap();
            lu.accelerations(&sc, 0.0, &q, &qd, &mut a2, &mut l2)
                .unwrap();
            let (r1, r2) = residuals(&sc, &q, &qd, &a1, &l1);
            let scale = 1.0 + l1.iter().chain(&a1).fold(0.0f64, |m, x| m.max(x.abs()));
            assert!(r1 <= 1e-13 * scale && r2 <= 1e-13 * scale, "{r1:e} {r2:e}");
            for k in 0..3 {
                assert!((a1[k] - a2[k]).abs() <= 1e-12 * scale, "{a1:?} {a2:?}");
            }
            for k in 0..2 {
                assert!((l1[k] - l2[k]).abs() <= 1e-12 * scale, "{l1:?} {l2:?}");
            }
        }
    }

    /// Huang (2.3.2): λ = A⁻¹ [J M⁻¹ (h − u) − ρ], A = J M⁻¹ Jᵀ, by explicit inverses.
    #[test]
    fn contact_force_equals_huangs_explicit_formula() {
        let robot = KeerthiRobot::default();
        let law = KeerthiControlLaw::default();
        let sys = WithController::new(robot, law);
        let q = KEERTHI_IC2.q;
        let qd = [0.3, -0.2, 0.1];
        let mut d = ConstrainedDynamics::new(&sys);
        let mut lambda = [0.0; 2];
        d.contact_force(&sys, 0.0, &q, &qd, &mut lambda).unwrap();

        let mut m = Mat::<f64>::zeros(3, 3);
        let mut j = Mat::<f64>::zeros(2, 3);
        let (mut h, mut u, mut rho) = ([0.0; 3], [0.0; 3], [0.0; 2]);
        sys.mass_matrix(&q, m.as_mut());
        sys.constraint_jacobian(0.0, &q, j.as_mut());
        sys.bias_forces(&q, &qd, &mut h);
        sys.applied_forces(0.0, &q, &qd, &mut u);
        sys.constraint_accel_bias(0.0, &q, &qd, &mut rho);
        let minv = m.partial_piv_lu().inverse();
        let a = &j * &minv * j.transpose();
        let ainv = a.partial_piv_lu().inverse();
        let hu = Mat::from_fn(3, 1, |i, _| h[i] - u[i]);
        let rhs = &j * &minv * &hu - Mat::from_fn(2, 1, |i, _| rho[i]);
        let expected = &ainv * &rhs;
        for k in 0..2 {
            assert!(
                (lambda[k] - expected[(k, 0)]).abs() <= 1e-12 * (1.0 + expected[(k, 0)].abs()),
                "{lambda:?}"
            );
        }
        // the same multipliers come out of `accelerations`
        let (mut qdd, mut l2) = ([0.0; 3], [0.0; 2]);
        d.accelerations(&sys, 0.0, &q, &qd, &mut qdd, &mut l2)
            .unwrap();
        assert_eq!(lambda, l2);
        assert_eq!(d.last_contact_accelerations(), &qdd);
    }

    #[test]
    fn baumgarte_terms_enter_the_acceleration_constraint() {
        let robot = KeerthiRobot::default();
        let bg = Baumgarte::critical(2.0);
        assert_eq!((bg.alpha, bg.beta), (4.0, 4.0));
        let mut d = ConstrainedDynamics::with_options(
            &robot,
            DynamicsOptions {
                baumgarte: Some(bg),
                ..Default::default()
            },
        )
        .unwrap();
        // an inconsistent state: φ ≠ 0, J q̇ ≠ 0
        let q = KEERTHI_IC2.q;
        let qd = [0.2, 0.1, -0.3];
        let (mut qdd, mut lambda) = ([0.0; 3], [0.0; 2]);
        d.accelerations(&robot, 0.0, &q, &qd, &mut qdd, &mut lambda)
            .unwrap();
        let mut j = Mat::<f64>::zeros(2, 3);
        let (mut rho, mut phi) = ([0.0; 2], [0.0; 2]);
        robot.constraint_jacobian(0.0, &q, j.as_mut());
        robot.constraint_accel_bias(0.0, &q, &qd, &mut rho);
        robot.constraints(0.0, &q, &mut phi);
        for i in 0..2 {
            let (mut jqdd, mut jqd) = (0.0, 0.0);
            for k in 0..3 {
                jqdd += j[(i, k)] * qdd[k];
                jqd += j[(i, k)] * qd[k];
            }
            // Keerthi (4.3)
            let r = jqdd + rho[i] + bg.alpha * jqd + bg.beta * phi[i];
            assert!(r.abs() < 1e-13, "{r:e}");
            assert!((bg.alpha * jqd + bg.beta * phi[i]).abs() > 1e-4);
        }
        assert!(ConstrainedDynamics::with_options(
            &robot,
            DynamicsOptions {
                baumgarte: Some(Baumgarte {
                    alpha: -1.0,
                    beta: 0.0
                }),
                ..Default::default()
            },
        )
        .is_err());
    }

    #[test]
    fn unconstrained_accelerations_solve_m_qdd_equals_u_minus_h() {
        let robot = KeerthiRobot::default();
        let sys = WithController::new(&robot, KeerthiControlLaw::default());
        let mut d = ConstrainedDynamics::new(&sys);
        let q = [0.5, 0.3, 0.1];
        let qd = [1.0, -1.0, 0.5];
        let mut qdd = [0.0; 3];
        d.unconstrained_accelerations(&sys, 0.0, &q, &qd, &mut qdd)
            .unwrap();
        let (mut h, mut u) = ([0.0; 3], [0.0; 3]);
        sys.bias_forces(&q, &qd, &mut h);
        sys.applied_forces(0.0, &q, &qd, &mut u);
        let l = 0.3;
        let m = [0.4 + 2.0 * l * l, 3.0, 2.0];
        for i in 0..3 {
            assert!((m[i] * qdd[i] - (u[i] - h[i])).abs() < 1e-13, "{qdd:?}");
        }
        assert_eq!(d.applied_forces(), &u);
        assert_eq!(d.bias_forces(), &h);
    }

    #[test]
    fn with_controller_adds_the_controller_to_the_model_input() {
        let sc = SliderCrank {
            torque: 2.0,
            slider_force: 0.5,
            ..Default::default()
        };
        struct Damper;
        impl crate::Controller for Damper {
            fn forces(&self, _t: f64, _q: &[f64], qd: &[f64], u: &mut [f64]) {
                for (ui, v) in u.iter_mut().zip(qd) {
                    *ui -= 0.1 * v;
                }
            }
        }
        let sys = WithController::new(sc, Damper);
        let mut u = [9.0; 3];
        sys.applied_forces(0.0, &[0.0; 3], &[1.0, 2.0, 3.0], &mut u);
        assert_eq!(u, [2.0 - 0.1 * 1.0, -0.1 * 2.0, 0.5 - 0.1 * 3.0]);
        // boxed trait objects work too
        let boxed: Box<dyn Mechanism> = Box::new(sys);
        assert_eq!(
            (boxed.dof(), boxed.n_constraints(), boxed.name()),
            (3, 2, "slider-crank")
        );
        let mut d = ConstrainedDynamics::new(&boxed);
        let (q, qd) = sc.state(0.3, 1.0);
        let (mut qdd, mut lambda) = ([0.0; 3], [0.0; 2]);
        d.accelerations(&boxed, 0.0, &q, &qd, &mut qdd, &mut lambda)
            .unwrap();
    }

    /// A kinematic tree without closures takes the articulated-body path (its `M` is never
    /// evaluated), and gives CRBA + Cholesky's accelerations to 1e-12; with `u` from a
    /// controller; a mechanism without the O(N) path still factors `M`.
    #[test]
    fn trees_without_closures_use_the_articulated_body_algorithm() {
        let tree = crate::models::panda_arm();
        struct Damper;
        impl crate::Controller for Damper {
            fn forces(&self, _t: f64, _q: &[f64], qd: &[f64], u: &mut [f64]) {
                for (ui, v) in u.iter_mut().zip(qd) {
                    *ui -= 0.7 * v;
                }
            }
        }
        let sys = WithController::new(&tree, Damper);
        let n = sys.dof();
        let mut d = ConstrainedDynamics::new(&sys);
        assert!(d.fast);
        let mut rng = SplitMix64::new(5);
        for _ in 0..5 {
            let q: Vec<f64> = (0..n).map(|_| rng.uniform(-2.0, 2.0)).collect();
            let qd: Vec<f64> = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
            let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
            d.accelerations(&sys, 0.0, &q, &qd, &mut a, &mut [])
                .unwrap();
            d.unconstrained_accelerations(&sys, 0.0, &q, &qd, &mut b)
                .unwrap();
            assert_eq!(a, b);
            assert!(d.mass_matrix().norm_max() == 0.0, "M was evaluated");
            // reference: M q̈ = u − h by CRBA + LU
            let mut m = Mat::<f64>::zeros(n, n);
            let (mut h, mut u) = (vec![0.0; n], vec![0.0; n]);
            sys.mass_matrix(&q, m.as_mut());
            sys.bias_forces(&q, &qd, &mut h);
            sys.applied_forces(0.0, &q, &qd, &mut u);
            let rhs = Mat::from_fn(n, 1, |i, _| u[i] - h[i]);
            let x = m.partial_piv_lu().inverse() * &rhs;
            let scale = (0..n).fold(1.0f64, |s, i| s.max(x[(i, 0)].abs()));
            for i in 0..n {
                assert!(
                    (a[i] - x[(i, 0)]).abs() <= 1e-12 * scale,
                    "{i}: {} {}",
                    a[i],
                    x[(i, 0)]
                );
            }
        }
        // a NaN state is still the typed error of the general path
        let mut a = vec![0.0; n];
        let mut q = vec![0.1; n];
        q[3] = f64::NAN;
        assert_eq!(
            d.accelerations(&sys, 0.0, &q, &vec![0.0; n], &mut a, &mut []),
            Err(ModelError::NonFinite {
                what: "q",
                index: 3
            })
        );
        // Keerthi's robot has no O(N) path
        let robot = KeerthiRobot::default();
        assert!(!ConstrainedDynamics::new(&robot).fast);
    }

    /// An ill-conditioned `M = diag(1, 1e-300)` under `u = (1e300, 1e300)` overflows `q̈`:
    /// a typed error naming the accelerations, with and without a constraint row, never NaN
    /// or ∞ returned as `Ok`.
    #[test]
    fn overflowing_accelerations_are_a_typed_error() {
        struct Stiff(usize);
        impl Mechanism for Stiff {
            fn name(&self) -> &str {
                "stiff"
            }
            fn dof(&self) -> usize {
                2
            }
            fn n_constraints(&self) -> usize {
                self.0
            }
            fn mass_matrix(&self, _q: &[f64], mut m: faer::MatMut<'_, f64>) {
                m.fill(0.0);
                m[(0, 0)] = 1.0;
                m[(1, 1)] = 1e-300;
            }
            fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
                h.fill(0.0);
            }
            fn applied_forces(&self, _t: f64, _q: &[f64], _qd: &[f64], u: &mut [f64]) {
                u.fill(1e300);
            }
            fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
                phi.fill(q[0]);
            }
            fn constraint_jacobian(&self, _t: f64, _q: &[f64], mut j: faer::MatMut<'_, f64>) {
                j.fill(0.0);
                if self.0 > 0 {
                    j[(0, 0)] = 1.0;
                }
            }
            fn constraint_accel_bias(&self, _t: f64, _q: &[f64], _qd: &[f64], rho: &mut [f64]) {
                rho.fill(0.0);
            }
        }
        for l in [0usize, 1] {
            let m = Stiff(l);
            let mut d = ConstrainedDynamics::new(&m);
            let (mut qdd, mut lambda) = ([0.0; 2], vec![0.0; l]);
            let e = d
                .accelerations(&m, 0.0, &[0.0; 2], &[0.0; 2], &mut qdd, &mut lambda)
                .unwrap_err();
            assert!(
                matches!(
                    e,
                    ModelError::NonFinite {
                        what: "accelerations",
                        ..
                    }
                ),
                "L = {l}: {e:?}"
            );
            let e = d
                .unconstrained_accelerations(&m, 0.0, &[0.0; 2], &[0.0; 2], &mut qdd)
                .unwrap_err();
            assert!(matches!(
                e,
                ModelError::NonFinite {
                    what: "accelerations",
                    ..
                }
            ));
        }
    }

    /// One range per option, checked by `validate` and by every workspace built from the
    /// options; `rank_rtol = 0` is refused like 1, NaN and negative values.
    #[test]
    fn options_out_of_range_are_named() {
        let d = DynamicsOptions::default();
        assert_eq!(d.validate(), Ok(()));
        let ok = [
            DynamicsOptions {
                pivot_rtol: Some(0.0),
                ..d
            },
            DynamicsOptions {
                pivot_rtol: Some(10.0),
                ..d
            },
            DynamicsOptions {
                rank_rtol: Some(0.5),
                ..d
            },
            DynamicsOptions {
                baumgarte: Some(Baumgarte {
                    alpha: 0.0,
                    beta: 0.0,
                }),
                ..d
            },
        ];
        for o in ok {
            assert_eq!(o.validate(), Ok(()), "{o:?}");
        }
        let bg = |alpha, beta| Some(Baumgarte { alpha, beta });
        let bad = [
            (
                "rank_rtol",
                0.0,
                DynamicsOptions {
                    rank_rtol: Some(0.0),
                    ..d
                },
            ),
            (
                "rank_rtol",
                1.0,
                DynamicsOptions {
                    rank_rtol: Some(1.0),
                    ..d
                },
            ),
            (
                "rank_rtol",
                -1.0,
                DynamicsOptions {
                    rank_rtol: Some(-1.0),
                    ..d
                },
            ),
            (
                "rank_rtol",
                f64::NAN,
                DynamicsOptions {
                    rank_rtol: Some(f64::NAN),
                    ..d
                },
            ),
            (
                "pivot_rtol",
                -1.0,
                DynamicsOptions {
                    pivot_rtol: Some(-1.0),
                    ..d
                },
            ),
            (
                "pivot_rtol",
                f64::NAN,
                DynamicsOptions {
                    pivot_rtol: Some(f64::NAN),
                    ..d
                },
            ),
            (
                "pivot_rtol",
                f64::INFINITY,
                DynamicsOptions {
                    pivot_rtol: Some(f64::INFINITY),
                    ..d
                },
            ),
            (
                "baumgarte.alpha",
                -1.0,
                DynamicsOptions {
                    baumgarte: bg(-1.0, 0.0),
                    ..d
                },
            ),
            (
                "baumgarte.beta",
                f64::NAN,
                DynamicsOptions {
                    baumgarte: bg(1.0, f64::NAN),
                    ..d
                },
            ),
        ];
        let sc = SliderCrank::default();
        for (option, value, o) in bad {
            for e in [
                o.validate().unwrap_err(),
                ConstrainedDynamics::with_options(&sc, o).unwrap_err(),
            ] {
                match e {
                    ModelError::InvalidOption {
                        option: got,
                        value: v,
                        ..
                    } => assert!(got == option && v.total_cmp(&value).is_eq(), "{e}"),
                    e => panic!("{option}: {e}"),
                }
            }
        }
        let msg = DynamicsOptions {
            rank_rtol: Some(0.0),
            ..d
        }
        .validate()
        .unwrap_err()
        .to_string();
        assert!(msg.contains("rank_rtol") && msg.contains("(0, 1)"), "{msg}");
    }

    /// The message of an inconsistency at a singularity says what is wrong: a lost rank (r < L)
    /// or, with every row kept, a cut-off below the solve's round-off.
    #[test]
    fn inconsistency_messages_say_what_is_wrong() {
        let e = |rank| ModelError::InconsistentAtSingularity {
            t: 0.5,
            row: 1,
            initial_rank: 2,
            rank,
            rows: 2,
            tolerance: 1e-20,
            residual: 1e-17,
            bound: 1e-21,
        };
        let lost = e(1).to_string();
        assert!(
            lost.contains("rank 1 < 2 at the start")
                && lost.contains("row 1 lost rank")
                && lost.contains("t = 5.000e-1")
                && lost.contains("1.000e-20")
                && lost.contains("singular configuration"),
            "{lost}"
        );
        // redundant since the start, rank unchanged: not a singular configuration
        let redundant = ModelError::InconsistentAtSingularity {
            t: 0.5,
            row: 1,
            initial_rank: 1,
            rank: 1,
            rows: 2,
            tolerance: 1e-20,
            residual: 1e-17,
            bound: 1e-21,
        }
        .to_string();
        assert!(
            redundant.contains("redundant")
                && redundant.contains("no singular configuration")
                && !redundant.contains("near a singular configuration"),
            "{redundant}"
        );
        let kept = e(2).to_string();
        assert!(!kept.contains("2 < 2"), "{kept}");
        assert!(
            kept.contains("kept all 2 rows") && kept.contains("raise rank_rtol"),
            "{kept}"
        );
    }

    /// MBS benchmark A04 (Bricard, 24 rows of rank 23) at rest: the solve is exact to round-off
    /// and its unit-vector rows have no terms of their own, so only the normwise floor lets the
    /// check pass; with the row-wise bound alone (`global = 0`) this fails with a bound of
    /// about 1e-21.
    #[test]
    fn redundant_rows_at_rest_pass_the_residual_check() {
        let model = crate::autodiff::AutoDiff::new(crate::models::Bricard::default());
        let (q, qd) = crate::models::Bricard::default().initial_state();
        let mut d = ConstrainedDynamics::new(&model);
        let (mut qdd, mut lambda) = (vec![0.0; 24], vec![0.0; 24]);
        d.accelerations(&model, 0.0, &q, &qd, &mut qdd, &mut lambda)
            .unwrap();
        assert_eq!(d.last_rank(), 23);
        assert!(qdd.iter().any(|a| a.abs() > 1.0), "{qdd:?}");
    }

    /// A genuinely wrong solve is caught: the accelerations of a regular (slider-crank) and a
    /// redundant (Bricard) system, each corrupted by a relative 1e-5 in one component, fail the
    /// check with [`ModelError::IllConditioned`].
    #[test]
    fn a_corrupted_solution_fails_the_residual_check() {
        fn corrupt<M: Mechanism + ?Sized>(mech: &M, q: &[f64], qd: &[f64]) {
            let (n, l) = (mech.dof(), mech.n_constraints());
            let mut d = ConstrainedDynamics::new(mech);
            let (mut qdd, mut lambda) = (vec![0.0; n], vec![0.0; l]);
            d.accelerations(mech, 0.0, q, qd, &mut qdd, &mut lambda)
                .unwrap();
            let rr = d.kkt.last_solve_was_rank_revealing();
            assert_eq!(d.check_residual(&qdd, &lambda, rr), Ok(()));
            let big = qdd.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            let mut bad = 0;
            for k in 0..n {
                let mut wrong = qdd.clone();
                wrong[k] += 1e-5 * big;
                if let Err(e) = d.check_residual(&wrong, &lambda, rr) {
                    assert!(matches!(e, ModelError::IllConditioned { .. }), "{e:?}");
                    bad += 1;
                }
            }
            // every coordinate is caught (each enters some row of J)
            assert_eq!(bad, n);
        }
        let sc = SliderCrank::default();
        let (q, qd) = sc.state(0.4, 2.0);
        corrupt(&sc, &q, &qd);
        let model = crate::autodiff::AutoDiff::new(crate::models::Bricard::default());
        let (q, qd) = crate::models::Bricard::default().initial_state();
        corrupt(&model, &q, &qd);
    }

    #[test]
    fn workspace_rejects_a_different_mechanism() {
        let sc = SliderCrank::default();
        let mut d = ConstrainedDynamics::new(&sc);
        let p = crate::models::Pendulum::default();
        let (mut qdd, mut lambda) = ([0.0; 2], [0.0; 1]);
        let e = d
            .accelerations(&p, 0.0, &[1.0, 0.0], &[0.0, 0.0], &mut qdd, &mut lambda)
            .unwrap_err();
        assert_eq!(
            e,
            ModelError::DimensionMismatch {
                what: "mechanism dof",
                expected: 3,
                found: 2
            }
        );
    }
}
