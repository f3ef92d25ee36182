//! LU factorization with partial pivoting `P A = L U` of a small square matrix, in place.
//!
//! `L` is unit lower triangular, `U` upper triangular, `P` the row interchanges that put the
//! largest remaining entry of each column on the diagonal (LAPACK's `getf2` order: pivot
//! search, row swap, `l_ik = a_ik / u_kk`, rank-1 update). Storage is allocated in
//! [`Lu::new`]; `factor` and `solve_in_place` never allocate, and the solve needs no scratch
//! (the interchanges are kept as transpositions).
//!
//! **Why not faer's `lu_in_place`.** faer's kernels multiply by the reciprocal pivot (in the
//! factorization and in its triangular solves); that is as accurate, but not bit-identical to
//! the divisions of the elimination this type replaced (`projection/src/small_lu.rs`), and
//! the difference, amplified by the finite-difference iteration matrices of the BDF, moves
//! the PARAM/BDF rows of the reproduced tables in their fourth digit. The tests compare
//! against faer's `partial_piv_lu` to round-off.

use faer::{Mat, MatRef};

use crate::error::{check_dims, check_finite, check_tol, LinalgError};

/// Default relative pivot tolerance of [`Lu::factor`]: a pivot `|u_kk| ≤ 1e-12 · max|a_ij|`
/// counts as zero.
pub const DEFAULT_LU_PIVOT_RTOL: f64 = 1e-12;

/// Workspace for `P A = L U` of an `n × n` matrix (allocates in [`Lu::new`] only).
#[derive(Debug, Clone)]
pub struct Lu {
    n: usize,
    lu: Mat<f64>,
    /// Row `k` was interchanged with row `piv[k] ≥ k` at step `k`.
    piv: Vec<usize>,
    factored: bool,
}

impl Lu {
    /// Allocates a workspace for `n × n` matrices.
    pub fn new(n: usize) -> Self {
        Self {
            n,
            lu: Mat::zeros(n, n),
            piv: vec![0; n],
            factored: false,
        }
    }

    /// Dimension `n`.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// Whether the last factorization succeeded.
    pub fn is_factored(&self) -> bool {
        self.factored
    }

    /// Factors `P A = L U` with the pivot tolerance [`DEFAULT_LU_PIVOT_RTOL`].
    ///
    /// Errors: see [`Lu::factor_with_rtol`].
    pub fn factor(&mut self, a: MatRef<'_, f64>) -> Result<(), LinalgError> {
        self.factor_with_rtol(a, DEFAULT_LU_PIVOT_RTOL)
    }

    /// Factors `P A = L U`; a pivot `|u_kk| ≤ rtol · max|a_ij|` (or zero) is
    /// [`LinalgError::Singular`] with its index `k` and value.
    ///
    /// Errors: [`LinalgError::DimensionMismatch`], [`LinalgError::NonFinite`] (any entry of
    /// `a`), [`LinalgError::InvalidTolerance`], [`LinalgError::Singular`].
    pub fn factor_with_rtol(&mut self, a: MatRef<'_, f64>, rtol: f64) -> Result<(), LinalgError> {
        self.factored = false;
        check_tol("Lu::factor: rtol", rtol)?;
        check_dims("Lu::factor: a", a, self.n, self.n)?;
        check_finite("Lu::factor: a", a)?;
        let n = self.n;
        self.lu.copy_from(a);
        let amax = a.norm_max();
        let lu = &mut self.lu;
        for k in 0..n {
            // Partial pivoting: the largest |a_ik|, i ≥ k (the first one on ties).
            let mut p = k;
            let mut best = lu[(k, k)].abs();
            for i in k + 1..n {
                let v = lu[(i, k)].abs();
                if v > best {
                    best = v;
                    p = i;
                }
            }
            // A NaN column (overflow inside the elimination) fails too.
            if best.is_nan() || best <= rtol * amax || best == 0.0 {
                return Err(LinalgError::Singular {
                    index: k,
                    pivot: lu[(p, k)],
                });
            }
            self.piv[k] = p;
            if p != k {
                for j in 0..n {
                    let t = lu[(k, j)];
                    lu[(k, j)] = lu[(p, j)];
                    lu[(p, j)] = t;
                }
            }
            // l_ik = a_ik / u_kk, then the rank-1 update of the trailing block.
            let d = lu[(k, k)];
            for i in k + 1..n {
                let f = lu[(i, k)] / d;
                lu[(i, k)] = f;
                for j in k + 1..n {
                    lu[(i, j)] -= f * lu[(k, j)];
                }
            }
        }
        self.factored = true;
        Ok(())
    }

    /// The packed factors: `U` on and above the diagonal, `L` (unit diagonal implied) below.
    pub fn factors(&self) -> MatRef<'_, f64> {
        self.lu.as_ref()
    }

    /// The interchanges: at step `k` row `k` was swapped with row `pivots()[k] ≥ k`.
    pub fn pivots(&self) -> &[usize] {
        &self.piv
    }

    /// `b ← A⁻¹ b = U⁻¹ L⁻¹ P b` (forward, then backward substitution).
    ///
    /// `b.len()` must be `n` (debug-asserted); without a successful factorization `b` is
    /// filled with NaN.
    pub fn solve_in_place(&self, b: &mut [f64]) {
        debug_assert_eq!(b.len(), self.n);
        let n = self.n;
        if !self.factored || b.len() != n {
            b.fill(f64::NAN);
            return;
        }
        let lu = &self.lu;
        for k in 0..n {
            b.swap(k, self.piv[k]);
        }
        // L y = P b
        for i in 0..n {
            let mut s = b[i];
            for j in 0..i {
                s -= lu[(i, j)] * b[j];
            }
            b[i] = s;
        }
        // U x = y
        for i in (0..n).rev() {
            let mut s = b[i];
            for j in i + 1..n {
                s -= lu[(i, j)] * b[j];
            }
            b[i] = s / lu[(i, i)];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{rand_mat, Rng};
    use faer::linalg::solvers::Solve;

    /// `‖A x − b‖∞ ≤ c·ε·n·‖A‖∞‖x‖∞` over seeded sizes, and `P A = L U` reconstructs `A`.
    #[test]
    fn residual_is_round_off() {
        let mut rng = Rng::new(7);
        for n in [1, 2, 3, 5, 8, 17, 33, 64] {
            let a = rand_mat(&mut rng, n, n);
            let xs = rand_mat(&mut rng, n, 1);
            let mut b: Vec<f64> = (0..n)
                .map(|i| (0..n).map(|k| a[(i, k)] * xs[(k, 0)]).sum())
                .collect();
            let b0 = b.clone();
            let mut lu = Lu::new(n);
            lu.factor(a.as_ref()).unwrap();
            lu.solve_in_place(&mut b);
            let xmax = b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let anorm = (0..n)
                .map(|i| (0..n).map(|k| a[(i, k)].abs()).sum::<f64>())
                .fold(0.0f64, f64::max);
            let mut res = 0.0f64;
            for i in 0..n {
                let r: f64 = (0..n).map(|k| a[(i, k)] * b[k]).sum::<f64>() - b0[i];
                res = res.max(r.abs());
            }
            let bound = 64.0 * f64::EPSILON * n as f64 * anorm * xmax;
            assert!(res <= bound, "n = {n}: residual {res:e} > {bound:e}");
            // P A = L U
            let mut pa = a.clone();
            for (k, &p) in lu.pivots().iter().enumerate() {
                for j in 0..n {
                    let t = pa[(k, j)];
                    pa[(k, j)] = pa[(p, j)];
                    pa[(p, j)] = t;
                }
            }
            let f = lu.factors();
            for i in 0..n {
                for j in 0..n {
                    let mut s = 0.0;
                    for k in 0..=i.min(j) {
                        let l = if k == i { 1.0 } else { f[(i, k)] };
                        s += l * f[(k, j)];
                    }
                    assert!(
                        (s - pa[(i, j)]).abs() <= 64.0 * f64::EPSILON * n as f64 * a.norm_max(),
                        "n = {n} ({i},{j})"
                    );
                }
            }
            // the same solution as faer's partial_piv_lu, to round-off
            let reference = a.partial_piv_lu().solve(&Mat::from_fn(n, 1, |i, _| b0[i]));
            let scale = reference.norm_max().max(1.0);
            for i in 0..n {
                assert!(
                    (b[i] - reference[(i, 0)]).abs() <= 1e4 * f64::EPSILON * n as f64 * scale,
                    "n = {n}: differs from faer at {i}"
                );
            }
        }
    }

    #[test]
    fn pivots_and_typed_errors() {
        // needs a row exchange: a₀₀ = 0
        let a = faer::mat![[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0]];
        let mut lu = Lu::new(3);
        lu.factor(a.as_ref()).unwrap();
        let mut x = [3.0, 2.0, 4.0]; // A (1, 1, 1)
        lu.solve_in_place(&mut x);
        for v in x {
            assert!((v - 1.0).abs() < 1e-14, "{x:?}");
        }
        // singular: second pivot 0
        let s = faer::mat![[1.0, 2.0], [2.0, 4.0]];
        let mut lu2 = Lu::new(2);
        assert!(matches!(
            lu2.factor(s.as_ref()),
            Err(LinalgError::Singular { index: 1, .. })
        ));
        let mut y = [1.0, 1.0];
        lu2.solve_in_place(&mut y);
        assert!(y.iter().all(|v| v.is_nan()));
        assert!(matches!(
            lu2.factor(faer::mat![[1.0, f64::NAN], [0.0, 1.0]].as_ref()),
            Err(LinalgError::NonFinite { row: 0, col: 1, .. })
        ));
        assert!(matches!(
            lu2.factor(Mat::<f64>::zeros(3, 3).as_ref()),
            Err(LinalgError::DimensionMismatch { .. })
        ));
        assert!(matches!(
            lu2.factor_with_rtol(s.as_ref(), -1.0),
            Err(LinalgError::InvalidTolerance { .. })
        ));
        assert_eq!(Lu::new(0).dim(), 0);
    }
}
