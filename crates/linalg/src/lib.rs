//! # contour-linalg
//!
//! Dense linear algebra for constrained multibody dynamics, on top of faer 0.24.
//! Every workspace type allocates in `new` only; `factor` / `compute` / `solve*`
//! work in preallocated storage with faer's `*_in_place` routines and a
//! `MemBuffer` owned by the struct. Inputs are validated (shapes, NaN/inf,
//! tolerances) and failures are reported as [`LinalgError`], never as a panic.
//!
//! ## Tour
//!
//! * [`Cholesky`] — `M = L Lᵀ` of the mass matrix; solves with `M`, `L`, `Lᵀ`.
//! * [`Lu`] — `P A = L U` of a small square matrix with partial pivoting, in place, the
//!   singular pivot reported as [`LinalgError::Singular`] (e.g. `J V₁` of the
//!   parametrization method).
//! * [`SkinnyQr`] — `A = Q R` of a tall matrix; the normal equations
//!   `AᵀA δ = r` through `RᵀR` (Keerthi (2.16)), minimum-norm `Aᵀx = c`,
//!   least squares.
//! * [`PseudoInverse`] — `A†` from the thin SVD with an explicit rank cut-off;
//!   [`numerical_rank`], [`null_space`], and the accuracy measure
//!   [`moore_penrose_residual`].
//! * [`WeightedProjectors`] — Kövecses' mass-weighted generalized inverse
//!   `W = L⁻ᵀ (A L⁻ᵀ)†` and the projectors `P_c = W A`, `P_a = I − W A`
//!   (Kövecses (11)–(18)), valid for redundant (rank-deficient) constraints;
//!   [`projector_identity_residuals`] checks (21)–(23).
//! * [`KktSolver`] — the augmented system `M q̈ − Jᵀλ = f`, `J q̈ = c`, by the
//!   range-space method (Schur complement `S = J M⁻¹ Jᵀ`) or by LU of the whole
//!   `(n+m)²` matrix ([`KktMethod`]); where `J` is rank-deficient (redundant rows, singular
//!   configurations) a rank-revealing solve by the SVD of `L⁻¹Jᵀ` gives the unique `q̈` and the
//!   minimum-norm `λ` ([`RankDeficiency`]).
//! * [`SparseKkt`] — the same augmented system with sparse `M` and `J` by faer's sparse
//!   `LDLᵀ` of the quasi-definite regularized matrix (symbolic analysis once) and iterative
//!   refinement; a (near) rank loss of `J` is reported, not answered ([`SparseSolve`]).
//! * [`testing`] — the seeded random matrices used by tests, benches and the accuracy report
//!   of `contour-papers` (`tables/linalg.md`).
//!
//! ## Example
//!
//! ```
//! use contour_linalg::{Cholesky, KktMethod, KktSolver, WeightedProjectors, DEFAULT_RANK_RTOL};
//! use faer::mat;
//!
//! // point mass on the line x = y: M q̈ − Jᵀλ = f, J q̈ = 0
//! let m = mat![[2.0, 0.0], [0.0, 2.0]];
//! let j = mat![[1.0, -1.0]];
//! let mut kkt = KktSolver::new(2, 1, KktMethod::RangeSpace); // allocates here only
//! let (mut qdd, mut lambda) = ([0.0; 2], [0.0; 1]);
//! kkt.solve(m.as_ref(), j.as_ref(), &[0.0, -9.81], &[0.0], &mut qdd, &mut lambda)?;
//! assert!((qdd[0] - qdd[1]).abs() < 1e-14 && (qdd[0] + 9.81 / 4.0).abs() < 1e-14);
//!
//! // Kövecses (17): P_a projects onto admissible motion, here along (1, 1)
//! let mut chol = Cholesky::new(2);
//! chol.factor(m.as_ref())?;
//! let mut proj = WeightedProjectors::new(2, 1);
//! proj.compute(&chol, j.as_ref(), 0.0, DEFAULT_RANK_RTOL)?;
//! assert!((proj.p_a()[(0, 0)] - 0.5).abs() < 1e-15);
//! # Ok::<(), contour_linalg::LinalgError>(())
//! ```
//!
//! ## Tolerances
//!
//! [`DEFAULT_RANK_RTOL`]` = 1e-10` is the default relative rank cut-off
//! (singular values, or `|R_ii|`, at or below `1e-10 · max` count as zero).
//! An exactly rank-deficient matrix has its "zero" singular values at
//! `O(ε · size · σ_max) ≈ 1e-15 · σ_max`, five orders below the cut-off, while
//! constraint Jacobians of a sane mechanism have condition numbers far below
//! `1e10`; solving with a condition number above `1e10` would leave fewer than
//! six correct digits anyway. The KKT solver has its own tolerance,
//! [`DEFAULT_KKT_PIVOT_RTOL`], because the Schur complement squares the
//! condition number (see [`KktSolver`]).

mod cholesky;
mod dense;
mod error;
mod kkt;
mod lu;
mod pinv;
mod qr;
mod scratch;
mod sparse_kkt;
pub mod testing;
mod weighted;

pub use cholesky::Cholesky;
pub use dense::{all_finite, axpy_col, dot_col, Kernel, SMALL_MAX, UNROLL_MAX};
pub use error::LinalgError;
pub use kkt::{
    KktMethod, KktSolver, RankDeficiency, DEFAULT_KKT_PIVOT_RTOL, DEFAULT_KKT_RANK_RTOL,
};
pub use lu::{Lu, DEFAULT_LU_PIVOT_RTOL};
pub use pinv::{moore_penrose_residual, null_space, numerical_rank, PseudoInverse};
pub use qr::SkinnyQr;
pub use sparse_kkt::{SparseKkt, SparseSolve, SPARSE_KKT_DELTA_RTOL};
pub use weighted::{projector_identity_residuals, ProjectorResiduals, WeightedProjectors};

/// Default relative rank tolerance: singular values (or `|R_ii|`)
/// `≤ 1e-10 · max` are treated as zero.
///
/// Exact rank deficiency shows up at `O(ε · size) ≈ 1e-15` relative, five
/// orders below; genuine constraint Jacobians are far better conditioned than
/// `1e10`, and results with condition numbers beyond it would be meaningless.
pub const DEFAULT_RANK_RTOL: f64 = 1e-10;
