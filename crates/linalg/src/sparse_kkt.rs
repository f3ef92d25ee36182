//! Sparse augmented (KKT) systems
//!
//! ```text
//! [ H  Jᵀ ] [ x ]   [ f ]
//! [ J  0  ] [ y ] = [ c ]
//! ```
//!
//! with `H` symmetric positive definite (N×N) and `J` (L×N) sparse: Keerthi (1.1)+(1.4) with
//! `H = M`, `y = −λ`, `f = u − h`, `c = −ρ`; Keerthi's correction step (2.16)–(2.17) with
//! `H = I`, `J = G_X(0)`, `x = δX`, `y = −δμ`, `f = 0`, `c = −G`.
//!
//! **Method.** The matrix with a small regularization `−δ I` in the lower block,
//! `K_δ = [H Jᵀ; J −δI]`, is quasi-definite, so it has an `LDLᵀ` factorization for every
//! symmetric permutation (Vanderbei 1995, Theorem 2.1): faer's sparse `LDLᵀ` with an
//! approximate-minimum-degree ordering factors it without pivoting, the symbolic analysis once
//! (in [`SparseKkt::new`]), the numeric factorization per evaluation into preallocated storage.
//! Iterative refinement against the unregularized `K` (δ = 0),
//! `z ← z + K_δ⁻¹ (b − K z)`, removes the regularization: the error contracts by about
//! `δ / (δ + σ_min(J H⁻¹ Jᵀ))` per step, so a regular system converges to round-off in two or
//! three steps. Near a rank loss of `J` the contraction tends to 1 and the refinement stalls:
//! the solve then reports [`SparseSolve::NearSingular`] and the caller takes its dense
//! rank-revealing path for that evaluation (the regularized answer is not the one the dense
//! path defines).
//!
//! `δ = SPARSE_KKT_DELTA_RTOL · max|J_ij|² / max H_kk`, relative to the scale of `J H⁻¹ Jᵀ`.
//! A smaller δ contracts the refinement faster in the constraint directions (`δ/σ_min`) but
//! loses more of `H` to cancellation in the pivots that follow a pivot `−δ` (about
//! `ε·‖J‖²/(δ·‖H‖)`); with `1e-10` both stay near `1e-6`, and A02 takes three refinement steps
//! from N = 10 to N = 400 (a correction of at most 64 ulps of the solution ends the
//! refinement).
//!
//! No allocation after [`SparseKkt::new`].

use faer::dyn_stack::StackReq;
use faer::linalg::cholesky::ldlt::factor::{LdltParams, LdltRegularization};
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, CholeskySymbolicParams, LdltRef, SymbolicCholesky,
    SymmetricOrdering,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat};
use faer::{Conj, MatMut, Par, Side, Spec};

use crate::error::{check_finite_vec, check_len};
use crate::scratch::Scratch;
use crate::LinalgError;

/// Relative regularization `δ` of the lower block (module documentation).
pub const SPARSE_KKT_DELTA_RTOL: f64 = 1e-10;

/// Most refinement steps of one solve.
const MAX_REFINEMENT: usize = 10;

/// A refinement that stalls above this relative size of the last correction is reported as
/// [`SparseSolve::NearSingular`].
const STALL_RTOL: f64 = 1e-12;

/// Outcome of [`SparseKkt::solve`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SparseSolve {
    /// The solution, refined to round-off; `refinements` steps of iterative refinement.
    Solved {
        /// Refinement steps taken.
        refinements: usize,
    },
    /// The factorization met a zero pivot, or the refinement stalled: `J` is (nearly)
    /// rank-deficient (or the data are inconsistent there). The output holds no answer.
    NearSingular,
}

/// Where a value of the caller's pattern goes in the matrix `K`.
#[derive(Debug, Clone, Copy)]
enum Source {
    H(usize),
    J(usize),
    Reg,
}

/// The sparse KKT solver (module documentation): symbolic `LDLᵀ` of the pattern once, numeric
/// factorization and refined solves in preallocated storage.
#[derive(Debug)]
pub struct SparseKkt {
    n: usize,
    l: usize,
    /// Upper triangle of `K` (CSC, sorted rows), dimension `N + L`.
    pattern: SymbolicSparseColMat<usize>,
    symbolic: SymbolicCholesky<usize>,
    /// Values of `K_δ` in the order of `pattern`.
    values: Vec<f64>,
    /// Position in `values` of every entry of the caller's `H` pattern.
    h_pos: Vec<usize>,
    /// Position in `values` of every entry of the caller's `J` pattern.
    j_pos: Vec<usize>,
    /// Position in `values` of the diagonal entries `(N + i, N + i)`.
    reg_pos: Vec<usize>,
    h_pattern: Vec<(usize, usize)>,
    j_pattern: Vec<(usize, usize)>,
    h_vals: Vec<f64>,
    j_vals: Vec<f64>,
    l_values: Vec<f64>,
    mem: Scratch,
    z: Vec<f64>,
    r: Vec<f64>,
    factored: bool,
    delta: f64,
    /// Numeric factorizations since the workspace was built.
    pub factorizations: usize,
}

impl SparseKkt {
    /// The symbolic analysis of `[H Jᵀ; J 0]` for `H` (N×N) with nonzeros at `h_pattern`
    /// (`(row, col)` with `row ≤ col`: the upper triangle; every diagonal entry is added) and
    /// `J` (L×N) with nonzeros at `j_pattern`. Repeated entries are summed. Allocates
    /// everything the factorizations and solves need.
    ///
    /// [`LinalgError::InvalidPattern`] for an entry outside the matrix or below the diagonal
    /// of `H`.
    pub fn new(
        n: usize,
        l: usize,
        h_pattern: &[(usize, usize)],
        j_pattern: &[(usize, usize)],
    ) -> Result<Self, LinalgError> {
        for &(r, c) in h_pattern {
            if r > c || c >= n {
                return Err(LinalgError::InvalidPattern {
                    what: "h_pattern",
                    row: r,
                    col: c,
                });
            }
        }
        for &(r, c) in j_pattern {
            if r >= l || c >= n {
                return Err(LinalgError::InvalidPattern {
                    what: "j_pattern",
                    row: r,
                    col: c,
                });
            }
        }
        let dim = n + l;
        // column lists of the upper triangle of K: (row, source)
        let mut cols: Vec<Vec<(usize, Option<Source>)>> = vec![Vec::new(); dim];
        for (k, col) in cols.iter_mut().enumerate().take(n) {
            col.push((k, None));
        }
        for (p, &(r, c)) in h_pattern.iter().enumerate() {
            cols[c].push((r, Some(Source::H(p))));
        }
        // Jᵀ in the upper-right block: column N + i, row k
        for (p, &(i, k)) in j_pattern.iter().enumerate() {
            cols[n + i].push((k, Some(Source::J(p))));
        }
        for i in 0..l {
            cols[n + i].push((n + i, Some(Source::Reg)));
        }
        let mut col_ptr = Vec::with_capacity(dim + 1);
        let mut row_idx = Vec::new();
        let (mut h_pos, mut j_pos) = (vec![0; h_pattern.len()], vec![0; j_pattern.len()]);
        let mut reg_pos = vec![0; l];
        col_ptr.push(0);
        for (c, col) in cols.iter_mut().enumerate() {
            col.sort_by_key(|e| e.0);
            let mut last = usize::MAX;
            for &(r, src) in col.iter() {
                if r != last {
                    row_idx.push(r);
                    last = r;
                }
                let pos = row_idx.len() - 1;
                match src {
                    Some(Source::H(p)) => h_pos[p] = pos,
                    Some(Source::J(p)) => j_pos[p] = pos,
                    Some(Source::Reg) => reg_pos[c - n] = pos,
                    None => {}
                }
            }
            col_ptr.push(row_idx.len());
        }
        let nnz = row_idx.len();
        let pattern = SymbolicSparseColMat::new_checked(dim, dim, col_ptr, None, row_idx);
        let symbolic = factorize_symbolic_cholesky(
            pattern.as_ref(),
            Side::Upper,
            SymmetricOrdering::Amd,
            CholeskySymbolicParams::default(),
        )
        .map_err(|_| LinalgError::InvalidPattern {
            what: "kkt pattern (symbolic factorization)",
            row: dim,
            col: dim,
        })?;
        let par = Par::Seq;
        let req = StackReq::any_of(&[
            symbolic.factorize_numeric_ldlt_scratch::<f64>(par, Spec::<LdltParams, f64>::default()),
            symbolic.solve_in_place_scratch::<f64>(1, par),
        ]);
        Ok(Self {
            n,
            l,
            l_values: vec![0.0; symbolic.len_val()],
            pattern,
            symbolic,
            values: vec![0.0; nnz],
            h_pos,
            j_pos,
            reg_pos,
            h_pattern: h_pattern.to_vec(),
            j_pattern: j_pattern.to_vec(),
            h_vals: vec![0.0; h_pattern.len()],
            j_vals: vec![0.0; j_pattern.len()],
            mem: Scratch::new(req),
            z: vec![0.0; dim],
            r: vec![0.0; dim],
            factored: false,
            delta: 0.0,
            factorizations: 0,
        })
    }

    /// Number N of primal unknowns.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number L of constraint rows.
    pub fn l(&self) -> usize {
        self.l
    }

    /// Nonzeros of the upper triangle of `K` (pattern of the analysis).
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// Nonzeros of the factor `L` (fill included).
    pub fn factor_nnz(&self) -> usize {
        self.l_values.len()
    }

    /// Numeric `LDLᵀ` of `K_δ` with `H` and `J` given in the order of the patterns of
    /// [`SparseKkt::new`]. `Ok(false)`: a zero pivot (the caller takes its dense path).
    /// Errors: lengths, non-finite values.
    pub fn factor(&mut self, h_vals: &[f64], j_vals: &[f64]) -> Result<bool, LinalgError> {
        check_len("h_vals", h_vals, self.h_pos.len())?;
        check_len("j_vals", j_vals, self.j_pos.len())?;
        check_finite_vec("h_vals", h_vals)?;
        check_finite_vec("j_vals", j_vals)?;
        self.factored = false;
        self.h_vals.copy_from_slice(h_vals);
        self.j_vals.copy_from_slice(j_vals);
        self.values.fill(0.0);
        let mut hmax = 0.0f64;
        for (p, &v) in h_vals.iter().enumerate() {
            self.values[self.h_pos[p]] += v;
            let (r, c) = self.h_pattern[p];
            if r == c {
                hmax = hmax.max(v.abs());
            }
        }
        let mut jmax = 0.0f64;
        for (p, &v) in j_vals.iter().enumerate() {
            self.values[self.j_pos[p]] += v;
            jmax = jmax.max(v.abs());
        }
        // δ on the scale of J H⁻¹ Jᵀ (module documentation)
        let scale = if hmax > 0.0 { jmax * jmax / hmax } else { 1.0 };
        self.delta = SPARSE_KKT_DELTA_RTOL * if scale > 0.0 { scale } else { 1.0 };
        for &p in &self.reg_pos {
            self.values[p] = -self.delta;
        }
        let a = SparseColMatRef::new(self.pattern.as_ref(), &self.values);
        let stack = self.mem.stack();
        let ok = self
            .symbolic
            .factorize_numeric_ldlt(
                &mut self.l_values,
                a,
                Side::Upper,
                LdltRegularization::default(),
                Par::Seq,
                stack,
                Spec::<LdltParams, f64>::default(),
            )
            .is_ok();
        // a quasi-definite K_δ has D > 0 on the first block and D < 0 on the second; a zero
        // or non-finite pivot shows up as a non-finite factor
        let finite = ok && self.l_values.iter().all(|v| v.is_finite());
        self.factorizations += 1;
        self.factored = finite;
        Ok(finite)
    }

    /// Solves `K (x, y) = (f, c)` with the last factorization, refined against `K` (δ = 0).
    /// [`SparseSolve::NearSingular`] when the refinement stalls above round-off (module
    /// documentation). Errors: lengths, no factorization.
    pub fn solve(
        &mut self,
        f: &[f64],
        c: &[f64],
        x: &mut [f64],
        y: &mut [f64],
    ) -> Result<SparseSolve, LinalgError> {
        let (n, l) = (self.n, self.l);
        check_len("f", f, n)?;
        check_len("c", c, l)?;
        check_len("x", x, n)?;
        check_len("y", y, l)?;
        if !self.factored {
            return Err(LinalgError::NotFactored { what: "SparseKkt" });
        }
        let dim = n + l;
        let ldlt = LdltRef::new(&self.symbolic, &self.l_values);
        let z = &mut self.z;
        let r = &mut self.r;
        z[..n].copy_from_slice(f);
        z[n..].copy_from_slice(c);
        ldlt.solve_in_place_with_conj(
            Conj::No,
            MatMut::from_column_major_slice_mut(z, dim, 1),
            Par::Seq,
            self.mem.stack(),
        );
        let mut prev = f64::INFINITY;
        let mut refinements = 0;
        let outcome = loop {
            // r = b − K z with the unregularized K
            r[..n].copy_from_slice(f);
            r[n..].copy_from_slice(c);
            for (p, &(row, col)) in self.h_pattern.iter().enumerate() {
                let v = self.h_vals[p];
                r[row] -= v * z[col];
                if row != col {
                    r[col] -= v * z[row];
                }
            }
            for (p, &(i, k)) in self.j_pattern.iter().enumerate() {
                let v = self.j_vals[p];
                r[k] -= v * z[n + i];
                r[n + i] -= v * z[k];
            }
            ldlt.solve_in_place_with_conj(
                Conj::No,
                MatMut::from_column_major_slice_mut(r, dim, 1),
                Par::Seq,
                self.mem.stack(),
            );
            let zmax = z.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let dmax = r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            for (zi, ri) in z.iter_mut().zip(r.iter()) {
                *zi += ri;
            }
            refinements += 1;
            if !dmax.is_finite() || !zmax.is_finite() {
                break SparseSolve::NearSingular;
            }
            let rel = if zmax > 0.0 { dmax / zmax } else { dmax };
            if rel <= 64.0 * f64::EPSILON {
                break SparseSolve::Solved { refinements };
            }
            if rel > 0.5 * prev || refinements >= MAX_REFINEMENT {
                break if rel <= STALL_RTOL {
                    SparseSolve::Solved { refinements }
                } else {
                    SparseSolve::NearSingular
                };
            }
            prev = rel;
        };
        x.copy_from_slice(&z[..n]);
        y.copy_from_slice(&z[n..]);
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::prelude::*;

    /// A chain: `H` tridiagonal SPD, each row of `J` couples two neighbouring coordinates.
    type Pattern = Vec<(usize, usize)>;

    fn chain(n: usize, l: usize) -> (Pattern, Vec<f64>, Pattern, Vec<f64>) {
        let mut hp = Vec::new();
        let mut hv = Vec::new();
        for k in 0..n {
            hp.push((k, k));
            hv.push(2.0 + 0.1 * k as f64);
            if k + 1 < n {
                hp.push((k, k + 1));
                hv.push(0.5);
            }
        }
        let mut jp = Vec::new();
        let mut jv = Vec::new();
        for i in 0..l {
            jp.push((i, i));
            jv.push(1.0 + 0.3 * (i as f64).sin());
            jp.push((i, i + 1));
            jv.push(-0.7 + 0.2 * (i as f64).cos());
        }
        (hp, hv, jp, jv)
    }

    /// Against a dense LU of the whole KKT matrix (an independent solver), to round-off; the
    /// refined answer solves the unregularized system.
    #[test]
    fn sparse_kkt_matches_the_dense_lu() {
        let (n, l) = (30, 12);
        let (hp, hv, jp, jv) = chain(n, l);
        let mut k = Mat::<f64>::zeros(n + l, n + l);
        for (&(r, c), &v) in hp.iter().zip(&hv) {
            k[(r, c)] += v;
            if r != c {
                k[(c, r)] += v;
            }
        }
        for (&(i, c), &v) in jp.iter().zip(&jv) {
            k[(n + i, c)] += v;
            k[(c, n + i)] += v;
        }
        let f: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        let c: Vec<f64> = (0..l).map(|i| (i as f64 * 0.71).cos()).collect();
        let b = Col::<f64>::from_fn(n + l, |i| if i < n { f[i] } else { c[i - n] });
        let dense = k.partial_piv_lu().solve(&b);
        let mut s = SparseKkt::new(n, l, &hp, &jp).unwrap();
        assert!(s.factor(&hv, &jv).unwrap());
        let (mut x, mut y) = (vec![0.0; n], vec![0.0; l]);
        let out = s.solve(&f, &c, &mut x, &mut y).unwrap();
        assert!(
            matches!(out, SparseSolve::Solved { refinements } if refinements <= 4),
            "{out:?}"
        );
        let mut err = 0.0f64;
        for i in 0..n {
            err = err.max((x[i] - dense[i]).abs());
        }
        for i in 0..l {
            err = err.max((y[i] - dense[n + i]).abs());
        }
        let size = (0..n + l).fold(0.0f64, |m, i| m.max(dense[i].abs()));
        assert!(err < 1e-14 * size, "{err:e} of {size:e}");
        // no fill beyond a band: the factor stays O(N)
        assert!(s.factor_nnz() < 8 * (n + l), "{}", s.factor_nnz());
    }

    /// Two equal rows of `J`: the refinement cannot converge for inconsistent data and the
    /// solve says so instead of answering.
    #[test]
    fn repeated_rows_are_near_singular() {
        let (n, l) = (6, 2);
        let hp: Vec<_> = (0..n).map(|k| (k, k)).collect();
        let hv = vec![1.0; n];
        let jp = vec![(0, 0), (0, 1), (1, 0), (1, 1)];
        let jv = vec![1.0, 2.0, 1.0, 2.0];
        let mut s = SparseKkt::new(n, l, &hp, &jp).unwrap();
        s.factor(&hv, &jv).unwrap();
        let (mut x, mut y) = (vec![0.0; n], vec![0.0; l]);
        let out = s.solve(&[0.0; 6], &[1.0, 2.0], &mut x, &mut y).unwrap();
        assert_eq!(out, SparseSolve::NearSingular);
    }

    #[test]
    fn bad_patterns_and_values() {
        assert!(matches!(
            SparseKkt::new(3, 1, &[(1, 0)], &[]),
            Err(LinalgError::InvalidPattern {
                what: "h_pattern",
                ..
            })
        ));
        assert!(matches!(
            SparseKkt::new(3, 1, &[], &[(1, 0)]),
            Err(LinalgError::InvalidPattern {
                what: "j_pattern",
                ..
            })
        ));
        let mut s = SparseKkt::new(2, 1, &[(0, 0), (1, 1)], &[(0, 0)]).unwrap();
        let (mut x, mut y) = ([0.0; 2], [0.0; 1]);
        assert!(matches!(
            s.solve(&[0.0; 2], &[0.0], &mut x, &mut y),
            Err(LinalgError::NotFactored { .. })
        ));
        assert!(matches!(
            s.factor(&[1.0, f64::NAN], &[1.0]),
            Err(LinalgError::NonFinite { what: "h_vals", .. })
        ));
        assert!(matches!(
            s.factor(&[1.0], &[1.0]),
            Err(LinalgError::DimensionMismatch { what: "h_vals", .. })
        ));
    }
}
