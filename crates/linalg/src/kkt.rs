//! The augmented (KKT) system of constrained dynamics
//!
//! ```text
//! [  M  −Jᵀ ] [ q̈ ]   [  f ]
//! [ −J   0  ] [ λ  ] = [ −c ]      i.e.  M q̈ − Jᵀλ = f,   J q̈ = c,
//! ```
//!
//! with `M` (`n × n`) symmetric positive definite and `J` (`m × n`) of full
//! row rank. Eliminating `q̈ = M⁻¹(f + Jᵀλ)` gives the Schur-complement system
//! `S λ = c − J M⁻¹ f`, `S = J M⁻¹ Jᵀ` (Huang's elimination (2.4.8)).
//!
//! Two methods ([`KktMethod`]):
//!
//! * **RangeSpace** — `M = L Lᵀ`, `Y = L⁻¹ Jᵀ`, `S = Yᵀ Y`, `S = L_S L_Sᵀ`.
//!   Cost `O(n³ + n²m + nm²+ m³)`, only `n × n` and `m × m` factorizations.
//! * **FullLu** — partial-pivot LU of the assembled `(n+m) × (n+m)` matrix.
//!
//! **Rank deficiency.** Where `J` loses rank (redundant rows, or a singular configuration
//! such as a flat four-bar), `q̈` is still unique but `λ` is not. When the fast path cannot
//! certify full rank (the Cholesky of `S` fails or a pivot is `≤ pivot_rtol · max S_jj`;
//! FullLu: a pivot of `K` at or below the tolerance) the solver switches to a rank-revealing
//! solve by the thin SVD of `Ỹ = L⁻¹ Jᵀ` (`S = ỸᵀỸ`), dropping singular values
//! `σ_i ≤ rank_rtol · σ_max` ([`DEFAULT_KKT_RANK_RTOL`]):
//!
//! ```text
//! r = c − Ỹᵀ z̃,  z̃ = L⁻¹ f,   λ = Ỹ† Ỹ†ᵀ r = S† r,   q̈ = L⁻ᵀ (z̃ + Ỹ†ᵀ r)
//! ```
//!
//! `λ` is the minimum-Euclidean-norm least-squares solution of `S λ = c − J M⁻¹ f` (the
//! minimum-norm multipliers of Kövecses' projector method, `λ = −Wᵀ M W (…)`), and `q̈` the
//! `M`-weighted least-squares solution of `J q̈ = c` over the kept singular directions, the
//! same for every λ of the solution set. With [`RankDeficiency::Error`] a numerical rank
//! below `m` (from the same SVD, so an error never reports full rank) is
//! [`LinalgError::RankDeficient`] instead.
//!
//! Both read only the lower triangle of `M`, and both reject a mass matrix
//! that is not positive definite (FullLu runs the same Cholesky check first,
//! although the LU itself would only need the whole matrix to be nonsingular:
//! an indefinite mass matrix is a modelling error, reported the same way
//! whichever method is chosen).

use faer::dyn_stack::StackReq;
use faer::linalg::lu::partial_pivoting::factor::{lu_in_place, lu_in_place_scratch};
use faer::linalg::lu::partial_pivoting::solve::{
    solve_in_place as lu_solve_in_place, solve_in_place_scratch,
};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef, Par};

use crate::cholesky::Cholesky;
use crate::dense::{self, Kernel};
use crate::error::{check_dims, check_finite, check_finite_vec, check_len, check_tol, LinalgError};
use crate::pinv::PseudoInverse;
use crate::scratch::Scratch;

/// Default relative pivot tolerance of [`KktSolver`], `1e-12`.
///
/// * RangeSpace: `J` is declared rank-deficient when the Cholesky of
///   `S = J M⁻¹ Jᵀ` fails or a pivot `d_i = (L_S)_ii² ≤ 1e-12 · max_j S_jj`.
///   `S` squares the singular values of `J L⁻ᵀ`, so this is a cut-off near
///   `σ_min/σ_max ≈ 1e-6`; rounding in forming `S` perturbs its pivots by
///   `O(ε · m · ‖S‖) ≈ 1e-14 ‖S‖` for the sizes used here, which the `1e-12`
///   threshold clears by two orders, and a λ computed from `S` with condition
///   number `> 1e12` would have fewer than four correct digits.
/// * FullLu: a pivot `|U_ii| ≤ 1e-12 · max |K_ij|` of the assembled matrix
///   counts as zero. The `λ`-block pivots of `K` are Schur-complement pivots
///   (scale `σ(J)² / ‖M‖`), so the same number has the same meaning.
pub const DEFAULT_KKT_PIVOT_RTOL: f64 = 1e-12;

/// Default relative rank cut-off of the rank-revealing solve of [`KktSolver`], `1e-6`:
/// singular values of `Ỹ = L⁻¹ Jᵀ` at or below `1e-6 · σ_max` are dropped.
///
/// It is the square root of [`DEFAULT_KKT_PIVOT_RTOL`] (the pivots of `S = ỸᵀỸ` square the
/// singular values), so the fast path and the rank-revealing one draw the line at the same
/// place. It is also the cut-off that keeps simulations through singular configurations on
/// their physical branch (MBS benchmark A02, where `10⁻¹⁰` lets the integrator's state error
/// in the nearly lost directions select another branch): a constraint direction weaker than
/// `10⁻⁶` of the strongest one carries no more information than the state error of a
/// simulation at `τ ≈ 10⁻⁹`.
pub const DEFAULT_KKT_RANK_RTOL: f64 = 1e-6;

/// What [`KktSolver`] does where `J` is numerically rank-deficient.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RankDeficiency {
    /// The unique `q̈` and the minimum-norm `λ` by the rank-revealing solve (module docs).
    #[default]
    MinimumNorm,
    /// [`LinalgError::RankDeficient`] with the numerical rank of the same SVD.
    Error,
}

/// Storage of the rank-revealing solve of [`KktSolver`].
#[derive(Debug)]
struct RankRevealing {
    /// `Ỹ = L⁻¹ Jᵀ` (n × m).
    ytil: Mat<f64>,
    /// Its pseudo-inverse by the thin SVD.
    pinv: PseudoInverse,
    /// `r = c − Ỹᵀ z̃` (m).
    rr: Vec<f64>,
    /// `Ỹ†ᵀ r` (n).
    wr: Vec<f64>,
    /// `(I − V_r V_rᵀ) r`: the part of the data in the dropped directions (m).
    dropped: Vec<f64>,
}

/// How [`KktSolver`] solves the augmented system.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KktMethod {
    /// Cholesky of `M`, then Cholesky of the Schur complement `S = J M⁻¹ Jᵀ`.
    #[default]
    RangeSpace,
    /// Partial-pivot LU of the whole `(n+m) × (n+m)` matrix.
    FullLu,
}

/// The data of one augmented system, `M`, `J`, `f`, `c` (dimensions checked by
/// [`KktSolver::solve`]), as the methods and the finiteness check take them.
#[derive(Clone, Copy)]
struct Inputs<'a> {
    m: MatRef<'a, f64>,
    j: MatRef<'a, f64>,
    f: &'a [f64],
    c: &'a [f64],
}

/// Workspace for the augmented system `M q̈ − Jᵀλ = f`, `J q̈ = c`
/// (`n` coordinates, `m` constraints). Allocates in [`KktSolver::new`] only.
///
/// RangeSpace works on contiguous column-major storage: for `n + m ≤`
/// [`SMALL_MAX`](crate::SMALL_MAX) with the square-root-free `L D Lᵀ` kernels of this crate (no
/// per-call dispatch, one division per pivot and none in the solves), above it with faer's
/// Cholesky ([`Kernel`]). The finiteness of the inputs is checked in the pass that copies them
/// into the workspace.
#[derive(Debug)]
pub struct KktSolver {
    n: usize,
    m: usize,
    method: KktMethod,
    kernel: Kernel,
    pivot_rtol: f64,
    rank_rtol: f64,
    rank_deficiency: RankDeficiency,
    /// Numerical rank of `J` found by the last rank-revealing solve (`m` after the fast path).
    last_rank: usize,
    /// Whether the last successful solve went through the rank-revealing path.
    last_rank_revealing: bool,
    /// Storage of the rank-revealing path (boxed: the fast path never touches it).
    rrv: Box<RankRevealing>,
    // RangeSpace, small kernels: `M = L D Lᵀ` and `S = L_S D_S L_Sᵀ` (unit `L` in the strict
    // lower triangle, `D` on the diagonal, column-major) and `D⁻¹`, `D_S⁻¹`.
    ldl_m: Vec<f64>,
    dinv_m: Vec<f64>,
    ldl_s: Vec<f64>,
    dinv_s: Vec<f64>,
    // RangeSpace, faer's kernels (and the definiteness check of FullLu)
    chol_m: Cholesky,
    chol_s: Cholesky,
    /// `Y = L⁻¹ Jᵀ`, `n × m` column-major.
    y: Vec<f64>,
    /// `S = Yᵀ Y`, `m × m` column-major (both triangles).
    s: Vec<f64>,
    // FullLu
    k: Mat<f64>,
    rhs: Mat<f64>,
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    buf: Scratch,
}

impl KktSolver {
    /// Allocates a workspace for `n` coordinates and `m` constraints ([`Kernel::Auto`]).
    ///
    /// Only the storage of the chosen `method` is allocated.
    pub fn new(n: usize, m: usize, method: KktMethod) -> Self {
        Self::with_kernel(n, m, method, Kernel::Auto)
    }

    /// As [`KktSolver::new`], with an explicit kernel choice for the range-space method
    /// (`Kernel::Auto` decides on `n + m`).
    pub fn with_kernel(n: usize, m: usize, method: KktMethod, kernel: Kernel) -> Self {
        let sub = if kernel.is_small(n + m) {
            Kernel::Small
        } else {
            Kernel::Faer
        };
        // (n, m) of the small kernels' storage, of the Cholesky workspaces, and the LU's size
        let (small, rs, lu) = match (method, sub) {
            (KktMethod::RangeSpace, Kernel::Small) => ((n, m), (0, 0), 0),
            (KktMethod::RangeSpace, _) => ((0, 0), (n, m), 0),
            (KktMethod::FullLu, _) => ((0, 0), (n, 0), n + m),
        };
        let req = StackReq::any_of(&[
            lu_in_place_scratch::<usize, f64>(lu, lu, Par::Seq, Default::default()),
            solve_in_place_scratch::<usize, f64>(lu, 1, Par::Seq),
        ]);
        Self {
            n,
            m,
            method,
            kernel: sub,
            pivot_rtol: DEFAULT_KKT_PIVOT_RTOL,
            rank_rtol: DEFAULT_KKT_RANK_RTOL,
            rank_deficiency: RankDeficiency::default(),
            last_rank: m,
            last_rank_revealing: false,
            rrv: Box::new(RankRevealing {
                ytil: Mat::zeros(n, m),
                pinv: PseudoInverse::new(n, m),
                rr: vec![0.0; m],
                wr: vec![0.0; n],
                dropped: vec![0.0; m],
            }),
            ldl_m: vec![0.0; small.0 * small.0],
            dinv_m: vec![0.0; small.0],
            ldl_s: vec![0.0; small.1 * small.1],
            dinv_s: vec![0.0; small.1],
            chol_m: Cholesky::with_kernel(rs.0, sub),
            chol_s: Cholesky::with_kernel(rs.1, sub),
            y: vec![0.0; (small.0 + rs.0) * (small.1 + rs.1)],
            s: vec![0.0; (small.1 + rs.1).pow(2)],
            k: Mat::zeros(lu, lu),
            rhs: Mat::zeros(lu, 1),
            perm: vec![0; lu],
            perm_inv: vec![0; lu],
            buf: Scratch::new(req),
        }
    }

    /// The method chosen in [`KktSolver::new`].
    pub fn method(&self) -> KktMethod {
        self.method
    }

    /// `(n, m)`.
    pub fn dims(&self) -> (usize, usize) {
        (self.n, self.m)
    }

    /// Relative pivot tolerance (see [`DEFAULT_KKT_PIVOT_RTOL`]).
    pub fn pivot_rtol(&self) -> f64 {
        self.pivot_rtol
    }

    /// Sets the relative pivot tolerance (see [`DEFAULT_KKT_PIVOT_RTOL`]).
    pub fn set_pivot_rtol(&mut self, rel_tol: f64) -> Result<(), LinalgError> {
        check_tol("KktSolver::set_pivot_rtol: rel_tol", rel_tol)?;
        self.pivot_rtol = rel_tol;
        Ok(())
    }

    /// Relative rank cut-off of the rank-revealing solve (see [`DEFAULT_KKT_RANK_RTOL`]).
    pub fn rank_rtol(&self) -> f64 {
        self.rank_rtol
    }

    /// Sets the relative rank cut-off of the rank-revealing solve, in `(0, 1)`: a zero
    /// cut-off keeps the round-off singular values (of order `ε · σ_max`) of exactly
    /// redundant rows as constraint directions, and `≥ 1` drops every direction.
    pub fn set_rank_rtol(&mut self, rel_tol: f64) -> Result<(), LinalgError> {
        if !(rel_tol > 0.0 && rel_tol < 1.0) {
            return Err(LinalgError::InvalidTolerance {
                what: "KktSolver::set_rank_rtol: rel_tol",
                value: rel_tol,
            });
        }
        self.rank_rtol = rel_tol;
        Ok(())
    }

    /// What a rank-deficient `J` gives (default [`RankDeficiency::MinimumNorm`]).
    pub fn rank_deficiency(&self) -> RankDeficiency {
        self.rank_deficiency
    }

    /// Sets what a rank-deficient `J` gives.
    pub fn set_rank_deficiency(&mut self, policy: RankDeficiency) {
        self.rank_deficiency = policy;
    }

    /// Numerical rank of `J` at the last solve: `m` after the fast path, the SVD's count after
    /// the rank-revealing one.
    pub fn last_rank(&self) -> usize {
        self.last_rank
    }

    /// Whether the last solve went through the rank-revealing path.
    pub fn last_solve_was_rank_revealing(&self) -> bool {
        self.last_rank_revealing
    }

    /// The part of `r = c − J M⁻¹ f` in the dropped singular directions after a rank-revealing
    /// solve, `d = (I − V_r V_rᵀ) r` (length `m`; zero after the fast path): the solution
    /// satisfies `J q̈ = c − d`, so `d` is the inconsistency of the data that no `q̈` can meet
    /// (zero for consistent data at an exactly rank-deficient `J`; at a nearly singular one
    /// the data in directions weaker than the rank cut-off).
    pub fn dropped_residual(&self) -> &[f64] {
        &self.rrv.dropped
    }

    /// Solves `M q̈ − Jᵀλ = f`, `J q̈ = c` for `q̈` (length `n`) and `λ` (length `m`).
    ///
    /// RangeSpace: `λ = S⁻¹(c − J M⁻¹ f)`, `q̈ = M⁻¹(f + Jᵀλ)`, `S = J M⁻¹ Jᵀ`.
    ///
    /// Errors: [`LinalgError::DimensionMismatch`], [`LinalgError::NonFinite`];
    /// [`LinalgError::NotPositiveDefinite`] for a non-SPD `M` (both methods);
    /// with [`RankDeficiency::Error`], [`LinalgError::RankDeficient`] when `J` is numerically
    /// rank-deficient (`required = m`, the rank and tolerance of the SVD of `L⁻¹ Jᵀ`; with the
    /// default [`RankDeficiency::MinimumNorm`] the rank-revealing solve answers instead);
    /// [`LinalgError::SvdNoConvergence`]. On error the outputs are left unspecified.
    pub fn solve(
        &mut self,
        m: MatRef<'_, f64>,
        j: MatRef<'_, f64>,
        f: &[f64],
        c: &[f64],
        qdd: &mut [f64],
        lambda: &mut [f64],
    ) -> Result<(), LinalgError> {
        let (n, nc) = (self.n, self.m);
        check_dims("KktSolver::solve: m", m, n, n)?;
        check_dims("KktSolver::solve: j", j, nc, n)?;
        check_len("KktSolver::solve: f", f, n)?;
        check_len("KktSolver::solve: c", c, nc)?;
        check_len("KktSolver::solve: qdd", qdd, n)?;
        check_len("KktSolver::solve: lambda", lambda, nc)?;
        let x = Inputs { m, j, f, c };
        self.last_rank = nc;
        if self.last_rank_revealing {
            self.rrv.dropped.fill(0.0);
        }
        self.last_rank_revealing = false;
        match self.method {
            KktMethod::RangeSpace if self.kernel == Kernel::Small => {
                self.solve_range_space_small(x, qdd, lambda)
            }
            KktMethod::RangeSpace => self.solve_range_space(x, qdd, lambda),
            KktMethod::FullLu => {
                check_all_finite(x)?;
                self.solve_full_lu(x, qdd, lambda)
            }
        }
    }

    /// Range-space method with the small kernels (Huang (2.4.8) with `M = L D Lᵀ`):
    ///
    /// ```text
    /// Y = L⁻¹ Jᵀ,  S = Yᵀ D⁻¹ Y = J M⁻¹ Jᵀ = L_S D_S L_Sᵀ,
    /// z = L⁻¹ f,  λ = S⁻¹ (c − Yᵀ D⁻¹ z),  q̈ = L⁻ᵀ D⁻¹ (z + Y λ)
    /// ```
    ///
    /// `M`'s lower triangle goes into the factor's storage and `J`'s columns into the rows of
    /// `Y = Jᵀ` in one pass that also checks their finiteness (the upper triangle of `M` is
    /// checked, not copied); `S` is formed once, in the storage of its factor. The rank test is
    /// the Cholesky one (`d_i = (L_S)_ii²`).
    fn solve_range_space_small(
        &mut self,
        x: Inputs<'_>,
        qdd: &mut [f64],
        lambda: &mut [f64],
    ) -> Result<(), LinalgError> {
        let Inputs { m, j, f, c } = x;
        let (n, nc) = (self.n, self.m);
        let mut finite = true;
        for k in 0..n {
            finite &= dense::copy_col(m, k, &mut self.ldl_m[k * n..k * n + n], k);
            if nc > 0 {
                finite &= dense::scatter_col(j, k, &mut self.y[k..], n);
            }
        }
        if !(finite && dense::all_finite(f) && dense::all_finite(c)) {
            check_all_finite(x)?;
        }
        dense::ldlt_in_place(&mut self.ldl_m, &mut self.dinv_m, n)
            .map_err(|(index, pivot)| LinalgError::NotPositiveDefinite { index, pivot })?;
        let (l, dinv) = (&self.ldl_m, &self.dinv_m);
        // z = L⁻¹ f
        qdd.copy_from_slice(f);
        dense::solve_unit_lower(l, n, qdd);
        if nc > 0 {
            // Y = L⁻¹ Jᵀ; S = Yᵀ D⁻¹ Y (lower triangle) and c − Yᵀ D⁻¹ z into λ
            for a in 0..nc {
                dense::solve_unit_lower(l, n, &mut self.y[a * n..a * n + n]);
            }
            for b in 0..nc {
                let yb = &self.y[b * n..b * n + n];
                for a in b..nc {
                    self.ldl_s[a + b * nc] = dense::dot_scaled(&self.y[a * n..a * n + n], dinv, yb);
                }
                lambda[b] = c[b] - dense::dot_scaled(yb, dinv, qdd);
            }
            let smax = (0..nc)
                .map(|i| self.ldl_s[i + i * nc])
                .fold(0.0_f64, f64::max);
            let tol = self.pivot_rtol;
            let ok = smax > 0.0
                && dense::ldlt_in_place(&mut self.ldl_s, &mut self.dinv_s, nc).is_ok()
                && (0..nc).all(|i| self.ldl_s[i + i * nc] > tol * smax);
            if ok {
                dense::ldlt_solve(&self.ldl_s, &self.dinv_s, nc, lambda);
                // z + Y λ
                add_y_lambda(&self.y, lambda, qdd);
            } else {
                // M = L D Lᵀ = (L D^½)(L D^½)ᵀ: Ỹ = D^-½ Y, z̃ = D^-½ z, and back to
                // z + Y λ = D^½ (z̃ + Ỹ λ)
                for a in 0..nc {
                    let ya = &self.y[a * n..a * n + n];
                    for (k, (yk, dk)) in ya.iter().zip(dinv).enumerate() {
                        self.rrv.ytil[(k, a)] = yk * dk.sqrt();
                    }
                }
                for (x, d) in qdd.iter_mut().zip(dinv) {
                    *x *= d.sqrt();
                }
                self.solve_min_norm(c, qdd, lambda)?;
                for (x, d) in qdd.iter_mut().zip(&self.dinv_m) {
                    *x /= d.sqrt();
                }
            }
        }
        // q̈ = L⁻ᵀ D⁻¹ (z + Y λ)
        for (x, d) in qdd.iter_mut().zip(&self.dinv_m) {
            *x *= d;
        }
        dense::solve_unit_lower_transpose(&self.ldl_m, n, qdd);
        Ok(())
    }

    /// Range-space method with faer's kernels on contiguous storage (Huang (2.4.8)):
    ///
    /// ```text
    /// M = L Lᵀ,  Y = L⁻¹ Jᵀ,  S = Yᵀ Y = J M⁻¹ Jᵀ = L_S L_Sᵀ,
    /// z = L⁻¹ f,  λ = S⁻¹ (c − Yᵀ z),  q̈ = L⁻ᵀ (z + Y λ)
    /// ```
    ///
    /// (`Yᵀ z = J M⁻¹ f` and `L⁻ᵀ(z + Yλ) = M⁻¹(f + Jᵀλ)`): two triangular solves with `L` on
    /// vectors besides the `m` columns of `Y`.
    fn solve_range_space(
        &mut self,
        x: Inputs<'_>,
        qdd: &mut [f64],
        lambda: &mut [f64],
    ) -> Result<(), LinalgError> {
        let Inputs { m, j, f, c } = x;
        let (n, nc) = (self.n, self.m);
        // Copy the lower triangle of M and Jᵀ, checking finiteness in the same pass (every
        // entry of `m`, as the error contract says); locate the culprit only on failure.
        let mut finite = true;
        {
            let l = self.chol_m.storage_mut();
            for col in 0..n {
                finite &= dense::copy_col(m, col, &mut l[col * n..col * n + n], col);
            }
        }
        let jt = j.transpose();
        for row in 0..nc {
            finite &= dense::copy_col(jt, row, &mut self.y[row * n..row * n + n], 0);
        }
        if !(finite && dense::all_finite(f) && dense::all_finite(c)) {
            check_all_finite(x)?;
        }
        self.chol_m.factor_copied()?;
        if nc > 0 {
            // Y = L⁻¹ Jᵀ, S = Yᵀ Y (symmetric PSD by construction).
            self.chol_m
                .solve_lower_in_place(MatMut::from_column_major_slice_mut(&mut self.y, n, nc));
            let y = MatRef::from_column_major_slice(&self.y, n, nc);
            matmul(
                MatMut::from_column_major_slice_mut(&mut self.s, nc, nc),
                Accum::Replace,
                y.transpose(),
                y,
                1.0,
                Par::Seq,
            );
            let smax = (0..nc).map(|i| self.s[i + i * nc]).fold(0.0_f64, f64::max);
            self.chol_s.storage_mut().copy_from_slice(&self.s);
            let tol = self.pivot_rtol;
            let ok = smax > 0.0 && self.chol_s.factor_copied().is_ok() && {
                let ls = self.chol_s.l();
                (0..nc).all(|i| {
                    let d = ls[(i, i)];
                    d * d > tol * smax
                })
            };
            if !ok {
                // Ỹ = Y, z̃ = L⁻¹ f, q̈ = L⁻ᵀ (z̃ + Ỹ†ᵀ r)
                for a in 0..nc {
                    for k in 0..n {
                        self.rrv.ytil[(k, a)] = self.y[a * n + k];
                    }
                }
                qdd.copy_from_slice(f);
                self.chol_m.solve_lower_vec_in_place(qdd);
                self.solve_min_norm(c, qdd, lambda)?;
                self.chol_m.solve_upper_vec_in_place(qdd);
                return Ok(());
            }
        }
        // z = L⁻¹ f
        qdd.copy_from_slice(f);
        self.chol_m.solve_lower_vec_in_place(qdd);
        if nc > 0 {
            // λ = S⁻¹ (c − Yᵀ z)
            for a in 0..nc {
                lambda[a] = c[a] - dense::dot(&self.y[a * n..a * n + n], qdd);
            }
            self.chol_s.solve_in_place(lambda);
            // z + Y λ
            add_y_lambda(&self.y, lambda, qdd);
        }
        // q̈ = L⁻ᵀ (z + Y λ)
        self.chol_m.solve_upper_vec_in_place(qdd);
        Ok(())
    }

    fn solve_full_lu(
        &mut self,
        x: Inputs<'_>,
        qdd: &mut [f64],
        lambda: &mut [f64],
    ) -> Result<(), LinalgError> {
        let Inputs { m, j, f, c } = x;
        let (n, nc) = (self.n, self.m);
        let size = n + nc;
        // Same definiteness check as RangeSpace (the factor itself is unused).
        self.chol_m.factor(m)?;
        // K = [[M, −Jᵀ], [−J, 0]], M symmetrized from its lower triangle.
        for col in 0..n {
            for row in 0..n {
                self.k[(row, col)] = if row >= col {
                    m[(row, col)]
                } else {
                    m[(col, row)]
                };
            }
            for row in 0..nc {
                self.k[(n + row, col)] = -j[(row, col)];
                self.k[(col, n + row)] = -j[(row, col)];
            }
        }
        for col in 0..nc {
            for row in 0..nc {
                self.k[(n + row, n + col)] = 0.0;
            }
        }
        let kmax = self.k.norm_max();
        for i in 0..n {
            self.rhs[(i, 0)] = f[i];
        }
        for i in 0..nc {
            self.rhs[(n + i, 0)] = -c[i];
        }
        if size == 0 {
            return Ok(());
        }
        let Self {
            k,
            rhs,
            perm,
            perm_inv,
            buf,
            pivot_rtol,
            ..
        } = self;
        let (_, p) = lu_in_place(
            k.as_mut(),
            perm,
            perm_inv,
            Par::Seq,
            buf.stack(),
            Default::default(),
        );
        let thr = *pivot_rtol * kmax;
        let good = (0..size).filter(|&i| k[(i, i)].abs() > thr).count();
        if kmax == 0.0 || good < size {
            // the rank-revealing solve with the Cholesky factor of M checked above
            self.rrv.ytil.copy_from(j.transpose());
            self.chol_m.solve_lower_in_place(self.rrv.ytil.as_mut());
            qdd.copy_from_slice(f);
            self.chol_m.solve_lower_vec_in_place(qdd);
            self.solve_min_norm(c, qdd, lambda)?;
            self.chol_m.solve_upper_vec_in_place(qdd);
            return Ok(());
        }
        let lu = k.as_ref();
        lu_solve_in_place(lu, lu, p, rhs.as_mut(), Par::Seq, buf.stack());
        for i in 0..n {
            qdd[i] = rhs[(i, 0)];
        }
        for i in 0..nc {
            lambda[i] = rhs[(n + i, 0)];
        }
        Ok(())
    }
}

impl KktSolver {
    /// The rank-revealing solve (module docs): on entry `self.rrv.ytil = Ỹ = L⁻¹ Jᵀ` and
    /// `x = z̃ = L⁻¹ f`; on exit `λ = Ỹ† Ỹ†ᵀ r` and `x = z̃ + Ỹ†ᵀ r` with `r = c − Ỹᵀ z̃`.
    /// No allocation.
    fn solve_min_norm(
        &mut self,
        c: &[f64],
        x: &mut [f64],
        lambda: &mut [f64],
    ) -> Result<(), LinalgError> {
        let nc = self.m;
        self.rrv
            .pinv
            .compute(self.rrv.ytil.as_ref(), 0.0, self.rank_rtol)?;
        let rank = self.rrv.pinv.rank();
        self.last_rank = rank;
        self.last_rank_revealing = true;
        if rank < nc && self.rank_deficiency == RankDeficiency::Error {
            return Err(LinalgError::RankDeficient {
                rank,
                required: nc,
                tolerance: self.rank_rtol,
            });
        }
        for (a, ra) in self.rrv.rr.iter_mut().enumerate() {
            *ra = c[a] - dot_col(self.rrv.ytil.as_ref(), a, x);
        }
        // Ỹ†ᵀ r (n) and λ = Ỹ† (Ỹ†ᵀ r) (m); Ỹ Ỹ† Ỹ†ᵀ = Ỹ†ᵀ, so z̃ + Ỹ λ = z̃ + Ỹ†ᵀ r
        let pinv = self.rrv.pinv.pinv();
        matmul(
            MatMut::from_column_major_slice_mut(&mut self.rrv.wr, self.n, 1),
            Accum::Replace,
            pinv.transpose(),
            MatRef::from_column_major_slice(&self.rrv.rr, nc, 1),
            1.0,
            Par::Seq,
        );
        matmul(
            MatMut::from_column_major_slice_mut(lambda, nc, 1),
            Accum::Replace,
            pinv,
            MatRef::from_column_major_slice(&self.rrv.wr, self.n, 1),
            1.0,
            Par::Seq,
        );
        for (xi, wi) in x.iter_mut().zip(&self.rrv.wr) {
            *xi += wi;
        }
        // d = r − V_r (V_rᵀ r)
        self.rrv.dropped.copy_from_slice(&self.rrv.rr);
        let v = self.rrv.pinv.v();
        for k in 0..rank {
            let mut vr = 0.0;
            for a in 0..nc {
                vr += v[(a, k)] * self.rrv.rr[a];
            }
            for a in 0..nc {
                self.rrv.dropped[a] -= v[(a, k)] * vr;
            }
        }
        Ok(())
    }
}

/// `Σ_k A_ka x_k` for column `a` of `A`.
fn dot_col(a: MatRef<'_, f64>, col: usize, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (k, xk) in x.iter().enumerate() {
        s += a[(k, col)] * xk;
    }
    s
}

/// `x += Y λ` for the column-major `Y` (`x.len()` rows, `λ.len()` columns).
fn add_y_lambda(y: &[f64], lambda: &[f64], x: &mut [f64]) {
    let n = x.len();
    for (a, la) in lambda.iter().enumerate() {
        for (xi, ya) in x.iter_mut().zip(&y[a * n..a * n + n]) {
            *xi += ya * la;
        }
    }
}

/// The finiteness checks of [`KktSolver::solve`] in their documented order (`m`, `j`, `f`,
/// `c`), each reporting the first non-finite entry.
fn check_all_finite(Inputs { m, j, f, c }: Inputs<'_>) -> Result<(), LinalgError> {
    check_finite("KktSolver::solve: m", m)?;
    check_finite("KktSolver::solve: j", j)?;
    check_finite_vec("KktSolver::solve: f", f)?;
    check_finite_vec("KktSolver::solve: c", c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{low_rank, rand_mat, spd, Rng};
    use faer::linalg::solvers::DenseSolveCore;
    use faer::Col;

    const EPS: f64 = f64::EPSILON;

    fn both(n: usize, m: usize) -> [KktSolver; 2] {
        [
            KktSolver::new(n, m, KktMethod::RangeSpace),
            KktSolver::new(n, m, KktMethod::FullLu),
        ]
    }

    /// A call with bad input: `j`, `f`, `c`, the length of `λ`, and the error it must give.
    type BadCall<'a> = (MatRef<'a, f64>, &'a [f64], &'a [f64], usize, LinalgError);

    /// The error of a wrong shape: `what` expected `er × ec`, got `r × c`.
    fn dim(what: &'static str, er: usize, ec: usize, r: usize, c: usize) -> LinalgError {
        LinalgError::DimensionMismatch {
            what,
            expected_rows: er,
            expected_cols: ec,
            rows: r,
            cols: c,
        }
    }

    #[test]
    fn methods_agree_with_explicit_formula() {
        let mut rng = Rng::new(31);
        for (n, m) in [(1, 0), (1, 1), (4, 2), (10, 3), (12, 12), (30, 9)] {
            let mass = spd(&mut rng, n);
            let j = rand_mat(&mut rng, m, n);
            let f: Vec<f64> = (0..n).map(|_| rng.uniform()).collect();
            let c: Vec<f64> = (0..m).map(|_| rng.uniform()).collect();
            // explicit: λ = S⁻¹(c − J M⁻¹ f), q̈ = M⁻¹(f + Jᵀλ)
            let minv = mass.partial_piv_lu().inverse();
            let fc = Col::from_fn(n, |i| f[i]);
            let cc = Col::from_fn(m, |i| c[i]);
            let s = &j * &minv * j.transpose();
            let lam = if m > 0 {
                s.partial_piv_lu().inverse() * (&cc - &j * &minv * &fc)
            } else {
                Col::zeros(0)
            };
            let qdd = &minv * (&fc + j.transpose() * &lam);
            let scale = qdd.norm_max().max(lam.norm_max());
            let mut sols = Vec::new();
            for mut solver in both(n, m) {
                let mut x = vec![0.0; n];
                let mut l = vec![0.0; m];
                solver
                    .solve(mass.as_ref(), j.as_ref(), &f, &c, &mut x, &mut l)
                    .unwrap();
                for i in 0..n {
                    assert!(
                        (x[i] - qdd[i]).abs() <= 1e4 * EPS * scale,
                        "{:?} {n}x{m}",
                        solver.method()
                    );
                }
                for i in 0..m {
                    assert!(
                        (l[i] - lam[i]).abs() <= 1e4 * EPS * scale,
                        "{:?} {n}x{m}",
                        solver.method()
                    );
                }
                // residuals of the two block equations
                let xc = Col::from_fn(n, |i| x[i]);
                let lc = Col::from_fn(m, |i| l[i]);
                let r1 = &mass * &xc - j.transpose() * &lc - &fc;
                let r2 = &j * &xc - &cc;
                assert!(r1.norm_max() <= 1e3 * EPS * n as f64 * scale * mass.norm_max().max(1.0));
                if m > 0 {
                    assert!(r2.norm_max() <= 1e3 * EPS * n as f64 * scale.max(1.0));
                }
                sols.push((x, l));
            }
            for i in 0..n {
                assert!((sols[0].0[i] - sols[1].0[i]).abs() <= 1e4 * EPS * scale);
            }
        }
    }

    /// The rank-deficient cases of the tests: a duplicated row, a zero row, a low-rank product
    /// and more rows than coordinates, with their ranks.
    fn deficient(rng: &mut Rng, n: usize) -> Vec<(Mat<f64>, usize)> {
        let mut dup = rand_mat(rng, 3, n);
        for col in 0..n {
            dup[(2, col)] = dup[(0, col)];
        }
        let mut zero_row = rand_mat(rng, 3, n);
        for col in 0..n {
            zero_row[(0, col)] = 0.0;
        }
        let lr = low_rank(rng, 5, n, 3);
        let wide = rand_mat(rng, 9, n);
        vec![
            (dup, 2),
            (zero_row, 2),
            (lr, 3),
            (wide, n),
            (Mat::zeros(2, n), 0),
        ]
    }

    /// With [`RankDeficiency::Error`] both methods report the rank of the SVD (never a rank
    /// equal to the rows).
    #[test]
    fn rank_deficient_jacobian_is_an_error_on_request() {
        let mut rng = Rng::new(32);
        let n = 8;
        let mass = spd(&mut rng, n);
        for (j, rank) in deficient(&mut rng, n) {
            let m = j.nrows();
            for mut solver in both(n, m) {
                solver.set_rank_deficiency(RankDeficiency::Error);
                let mut x = vec![0.0; n];
                let mut l = vec![0.0; m];
                let err = solver.solve(
                    mass.as_ref(),
                    j.as_ref(),
                    &vec![1.0; n],
                    &vec![1.0; m],
                    &mut x,
                    &mut l,
                );
                assert_eq!(
                    err,
                    Err(LinalgError::RankDeficient {
                        rank,
                        required: m,
                        tolerance: DEFAULT_KKT_RANK_RTOL
                    }),
                    "{:?}",
                    solver.method()
                );
            }
        }
    }

    /// By default a rank-deficient `J` gives `λ = S⁺ (c − J M⁻¹ f)` (pseudo-inverse of the
    /// explicit `S = J M⁻¹ Jᵀ` by faer's SVD: the minimum-norm least-squares λ) and
    /// `q̈ = M⁻¹ (f + Jᵀ λ)`, with both methods; consistent data (`c` in the range of `J`)
    /// satisfy `J q̈ = c`.
    #[test]
    fn rank_deficient_jacobian_gives_the_minimum_norm_solution() {
        let mut rng = Rng::new(34);
        let n = 8;
        let mass = spd(&mut rng, n);
        let minv = mass.partial_piv_lu().inverse();
        for (j, rank) in deficient(&mut rng, n) {
            let m = j.nrows();
            let f: Vec<f64> = (0..n).map(|_| rng.uniform()).collect();
            // consistent c = J v
            let v = Col::from_fn(n, |_| rng.uniform());
            let cc = &j * &v;
            let c: Vec<f64> = (0..m).map(|i| cc[i]).collect();
            let fc = Col::from_fn(n, |i| f[i]);
            let s = &j * &minv * j.transpose();
            let lam = s.svd().unwrap().pseudoinverse() * (&cc - &j * &minv * &fc);
            let qdd = &minv * (&fc + j.transpose() * &lam);
            let scale = 1.0 + qdd.norm_max().max(lam.norm_max());
            for mut solver in both(n, m) {
                let (mut x, mut l) = (vec![0.0; n], vec![0.0; m]);
                solver
                    .solve(mass.as_ref(), j.as_ref(), &f, &c, &mut x, &mut l)
                    .unwrap();
                assert!(solver.last_solve_was_rank_revealing());
                assert_eq!(solver.last_rank(), rank);
                for i in 0..n {
                    assert!(
                        (x[i] - qdd[i]).abs() <= 1e-9 * scale,
                        "{:?}",
                        solver.method()
                    );
                }
                for i in 0..m {
                    assert!(
                        (l[i] - lam[i]).abs() <= 1e-9 * scale,
                        "{:?}",
                        solver.method()
                    );
                }
                let xc = Col::from_fn(n, |i| x[i]);
                assert!((&j * &xc - &cc).norm_max() <= 1e-10 * scale);
            }
        }
        // a full-rank J keeps the fast path
        let j = rand_mat(&mut rng, 3, n);
        let mut solver = KktSolver::new(n, 3, KktMethod::RangeSpace);
        let (mut x, mut l) = (vec![0.0; n], vec![0.0; 3]);
        solver
            .solve(
                mass.as_ref(),
                j.as_ref(),
                &vec![1.0; n],
                &[1.0; 3],
                &mut x,
                &mut l,
            )
            .unwrap();
        assert!(!solver.last_solve_was_rank_revealing());
        assert_eq!(solver.last_rank(), 3);
        assert!(solver.set_rank_rtol(1.0).is_err() && solver.set_rank_rtol(-1.0).is_err());
        assert!(solver.set_rank_rtol(0.0).is_err() && solver.set_rank_rtol(f64::NAN).is_err());
    }

    #[test]
    fn bad_mass_and_bad_input() {
        let mut rng = Rng::new(33);
        let n = 4;
        let j = rand_mat(&mut rng, 2, n);
        let mut mass = spd(&mut rng, n);
        mass[(2, 2)] = -50.0;
        let (mut x, mut l) = (vec![0.0; n], vec![0.0; 2]);
        for mut solver in both(n, 2) {
            assert!(matches!(
                solver.solve(
                    mass.as_ref(),
                    j.as_ref(),
                    &[0.0; 4],
                    &[0.0; 2],
                    &mut x,
                    &mut l
                ),
                Err(LinalgError::NotPositiveDefinite { index: 2, .. })
            ));
        }
        let mass = spd(&mut rng, n);
        let mut jn = j.clone();
        jn[(1, 3)] = f64::NAN;
        let (zf, zc) = ([0.0; 4], [0.0; 2]);
        for mut solver in both(n, 2) {
            // (j, f, c, length of λ) → the error named
            let cases: [BadCall<'_>; 5] = [
                (
                    j.transpose(),
                    &zf,
                    &zc,
                    2,
                    dim("KktSolver::solve: j", 2, 4, 4, 2),
                ),
                (
                    j.as_ref(),
                    &zf[..3],
                    &zc,
                    2,
                    dim("KktSolver::solve: f", 4, 1, 3, 1),
                ),
                (
                    j.as_ref(),
                    &zf,
                    &zc,
                    1,
                    dim("KktSolver::solve: lambda", 2, 1, 1, 1),
                ),
                (
                    jn.as_ref(),
                    &zf,
                    &zc,
                    2,
                    LinalgError::NonFinite {
                        what: "KktSolver::solve: j",
                        row: 1,
                        col: 3,
                    },
                ),
                (
                    j.as_ref(),
                    &zf,
                    &[0.0, f64::INFINITY],
                    2,
                    LinalgError::NonFinite {
                        what: "KktSolver::solve: c",
                        row: 1,
                        col: 0,
                    },
                ),
            ];
            for (jj, f, c, nl, expected) in cases {
                let got = solver.solve(mass.as_ref(), jj, f, c, &mut x, &mut l[..nl]);
                assert_eq!(got, Err(expected), "{:?}", solver.method());
            }
        }
        let mut solver = KktSolver::new(n, 2, KktMethod::RangeSpace);
        assert!(solver.set_pivot_rtol(f64::NAN).is_err());
    }
}
