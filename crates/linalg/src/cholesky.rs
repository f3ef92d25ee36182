//! Cholesky factorization `M = L Lᵀ` of a symmetric positive definite matrix.
//!
//! Only the lower triangle of `M` is read. The factor is computed by faer's
//! `cholesky_in_place` into storage owned by [`Cholesky`]; solves use faer's
//! triangular solves and never allocate.
//!
//! Kövecses & Piedbœuf write the factorization as `M = L̂ᵀ L̂` with `L̂` *upper*
//! triangular (text before their eq. (11)); our lower factor is `L = L̂ᵀ`.

use faer::linalg::cholesky::llt::factor::{cholesky_in_place, cholesky_in_place_scratch, LltError};
use faer::linalg::triangular_solve::{
    solve_lower_triangular_in_place, solve_upper_triangular_in_place,
};
use faer::{ColMut, MatMut, MatRef, Par};

use crate::dense::{self, Kernel};
use crate::error::{check_dims, check_finite, LinalgError};
use crate::scratch::Scratch;
use faer::prelude::ReborrowMut;

/// Workspace for the Cholesky factorization `M = L Lᵀ` of an `n × n` SPD matrix.
///
/// `L` is stored column-major in one contiguous buffer. Up to
/// [`SMALL_MAX`](crate::SMALL_MAX) the in-place kernels of this crate factor and solve
/// (no dispatch, no scratch); above it faer's blocked kernels work on the same buffer
/// ([`Kernel`]). Allocates in [`Cholesky::new`] only.
#[derive(Debug)]
pub struct Cholesky {
    n: usize,
    l: Vec<f64>,
    /// `1 / L_jj` (small kernels only).
    inv: Vec<f64>,
    kernel: Kernel,
    /// The lower triangle of `M` before faer's factorization, to report a failing pivot (faer
    /// path only; empty for the small kernels).
    backup: Vec<f64>,
    buf: Scratch,
    factored: bool,
}

impl Clone for Cholesky {
    fn clone(&self) -> Self {
        let mut c = Self::with_kernel(self.n, self.kernel);
        c.l.copy_from_slice(&self.l);
        c.inv.copy_from_slice(&self.inv);
        c.backup.copy_from_slice(&self.backup);
        c.factored = self.factored;
        c
    }
}

impl Cholesky {
    /// Allocates a workspace for `n × n` matrices ([`Kernel::Auto`]).
    pub fn new(n: usize) -> Self {
        Self::with_kernel(n, Kernel::Auto)
    }

    /// Allocates a workspace for `n × n` matrices with an explicit kernel choice (benches and
    /// tests compare the two; [`Cholesky::new`] is what callers want).
    pub fn with_kernel(n: usize, kernel: Kernel) -> Self {
        let req = if kernel.is_small(n) {
            faer::dyn_stack::StackReq::EMPTY
        } else {
            cholesky_in_place_scratch::<f64>(n, Par::Seq, Default::default())
        };
        Self {
            n,
            l: vec![0.0; n * n],
            inv: vec![0.0; if kernel.is_small(n) { n } else { 0 }],
            kernel,
            backup: if kernel.is_small(n) {
                Vec::new()
            } else {
                vec![0.0; n * n]
            },
            buf: Scratch::new(req),
            factored: false,
        }
    }

    /// Dimension `n`.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// Whether the last call to [`Cholesky::factor`] succeeded.
    pub fn is_factored(&self) -> bool {
        self.factored
    }

    /// Factors `M = L Lᵀ`, reading only the lower triangle of `m`.
    ///
    /// Errors: [`LinalgError::DimensionMismatch`], [`LinalgError::NonFinite`]
    /// (any entry of `m`), [`LinalgError::NotPositiveDefinite`] with the index
    /// `k` of the first pivot `M_kk − Σ_{j<k} L_kj² ≤ 0` and its value.
    pub fn factor(&mut self, m: MatRef<'_, f64>) -> Result<(), LinalgError> {
        self.factored = false;
        check_dims("Cholesky::factor: m", m, self.n, self.n)?;
        let n = self.n;
        // Copy the lower triangle (the upper one is zeroed after the factorization) and check
        // every entry's finiteness in the same pass; the culprit is located only on failure.
        let mut finite = true;
        for j in 0..n {
            finite &= dense::copy_col(m, j, &mut self.l[j * n..j * n + n], j);
        }
        if !finite {
            check_finite("Cholesky::factor: m", m)?;
        }
        self.factor_copied()
    }

    /// Factors the lower triangle already copied into the storage of `L`.
    pub(crate) fn factor_copied(&mut self) -> Result<(), LinalgError> {
        self.factored = false;
        let n = self.n;
        let res = if self.kernel.is_small(n) {
            dense::cholesky_in_place(&mut self.l, &mut self.inv, n)
                .map_err(|(index, pivot)| LinalgError::NotPositiveDefinite { index, pivot })
        } else {
            // keep M to recompute a failing pivot (O(n²) against the O(n³) factorization)
            self.backup.copy_from_slice(&self.l);
            let res = cholesky_in_place(
                MatMut::from_column_major_slice_mut(&mut self.l, n, n),
                Default::default(),
                Par::Seq,
                self.buf.stack(),
                Default::default(),
            );
            match res {
                Err(LltError::NonPositivePivot { index }) => {
                    let pivot = self.failed_pivot(index);
                    Err(LinalgError::NotPositiveDefinite { index, pivot })
                }
                _ => Ok(()),
            }
        };
        // the upper triangle was never copied (and is scratch of `failed_pivot`)
        self.zero_upper();
        res?;
        self.factored = true;
        Ok(())
    }

    /// Mutable access to the storage of `L` (column-major, `n × n`) for callers of this crate
    /// that copy `M` in themselves before [`Cholesky::factor_copied`].
    pub(crate) fn storage_mut(&mut self) -> &mut [f64] {
        &mut self.l
    }

    /// Recomputes the failing pivot `M_kk − ‖L₁₁⁻¹ M[k, :k]ᵀ‖²` of the faer path from the
    /// valid leading `k × k` block of `L` and the saved `M`, using the strict upper triangle of
    /// column `k` as scratch. No allocation.
    fn failed_pivot(&mut self, k: usize) -> f64 {
        let n = self.n;
        if k >= n {
            return f64::NAN;
        }
        let mut s = self.backup[k + k * n];
        let (left, right) = self.l.split_at_mut(k * n);
        let x = &mut right[..k];
        for (i, xi) in x.iter_mut().enumerate() {
            *xi = self.backup[k + i * n];
        }
        // x ← L₁₁⁻¹ x (forward substitution on the leading block)
        for j in 0..k {
            let xj = x[j] / left[j * n + j];
            x[j] = xj;
            for i in j + 1..k {
                x[i] -= left[j * n + i] * xj;
            }
        }
        for v in x.iter() {
            s -= v * v;
        }
        s
    }

    fn zero_upper(&mut self) {
        let n = self.n;
        for j in 0..n {
            self.l[j * n..j * n + j].fill(0.0);
        }
    }

    /// The lower-triangular factor `L` (strict upper triangle is zero).
    pub fn l(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.l, self.n, self.n)
    }

    /// `x ← M⁻¹ x` (forward then backward substitution).
    ///
    /// `x.len()` must be `n` (debug-asserted); without a successful factorization
    /// `x` is filled with NaN.
    pub fn solve_in_place(&mut self, x: &mut [f64]) {
        debug_assert_eq!(x.len(), self.n);
        self.solve_vec(x, false);
        self.solve_vec(x, true);
    }

    /// `x ← L⁻¹ x` for a vector (length `n`; NaN without a factorization).
    pub fn solve_lower_vec_in_place(&self, x: &mut [f64]) {
        self.solve_vec(x, false);
    }

    /// `x ← L⁻ᵀ x` for a vector (length `n`; NaN without a factorization).
    pub fn solve_upper_vec_in_place(&self, x: &mut [f64]) {
        self.solve_vec(x, true);
    }

    /// `x ← L⁻¹ x` (`transpose = false`) or `x ← L⁻ᵀ x` for a vector; NaN without a
    /// factorization or for a wrong length.
    fn solve_vec(&self, x: &mut [f64], transpose: bool) {
        if !self.factored || x.len() != self.n {
            x.fill(f64::NAN);
            return;
        }
        if self.kernel.is_small(self.n) {
            small_triangular(&self.l, &self.inv, x, transpose);
        } else {
            faer_triangular(self.l(), ColMut::from_slice_mut(x).as_mat_mut(), transpose);
        }
    }

    /// `X ← M⁻¹ X`.
    pub fn solve_mat_in_place(&mut self, mut x: MatMut<'_, f64>) {
        self.solve_lower_in_place(x.rb_mut());
        self.solve_upper_in_place(x);
    }

    /// `X ← L⁻¹ X`.
    pub fn solve_lower_in_place(&mut self, x: MatMut<'_, f64>) {
        self.solve_triangular_in_place(x, false);
    }

    /// `X ← L⁻ᵀ X`.
    pub fn solve_upper_in_place(&mut self, x: MatMut<'_, f64>) {
        self.solve_triangular_in_place(x, true);
    }

    /// `X ← L⁻¹ X` (`transpose = false`) or `X ← L⁻ᵀ X`: the small kernels column by column
    /// on contiguous columns (faer's on a strided one), faer's blocked solve above
    /// [`SMALL_MAX`](crate::SMALL_MAX).
    fn solve_triangular_in_place(&mut self, mut x: MatMut<'_, f64>, transpose: bool) {
        debug_assert_eq!(x.nrows(), self.n);
        if !self.guard(x.rb_mut()) {
            return;
        }
        if !self.kernel.is_small(self.n) {
            faer_triangular(self.l(), x, transpose);
            return;
        }
        for c in 0..x.ncols() {
            match x.rb_mut().col_mut(c).try_as_col_major_mut() {
                Some(col) => small_triangular(&self.l, &self.inv, col.as_slice_mut(), transpose),
                None => faer_triangular(self.l(), x.rb_mut().get_mut(.., c..c + 1), transpose),
            }
        }
    }

    fn guard(&self, mut x: MatMut<'_, f64>) -> bool {
        debug_assert!(self.factored, "Cholesky used before a successful factor()");
        if !self.factored || x.nrows() != self.n {
            x.fill(f64::NAN);
            return false;
        }
        true
    }
}

/// `x ← L⁻¹ x` or (`transpose`) `x ← L⁻ᵀ x` by the small kernels (`l` column-major
/// `n × n`, `inv[j] = 1 / L_jj`, `n = x.len()`).
fn small_triangular(l: &[f64], inv: &[f64], x: &mut [f64], transpose: bool) {
    if transpose {
        dense::solve_lower_transpose(l, inv, x.len(), x);
    } else {
        dense::solve_lower(l, inv, x.len(), x);
    }
}

/// `X ← L⁻¹ X` or (`transpose`) `X ← L⁻ᵀ X` by faer's triangular solves.
fn faer_triangular(l: MatRef<'_, f64>, x: MatMut<'_, f64>, transpose: bool) {
    if transpose {
        solve_upper_triangular_in_place(l.transpose(), x, Par::Seq);
    } else {
        solve_lower_triangular_in_place(l, x, Par::Seq);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{rand_mat, spd, Rng};
    use faer::linalg::solvers::Solve;
    use faer::Mat;
    use faer::Side;

    #[test]
    fn solve_matches_faer_llt() {
        let mut rng = Rng::new(11);
        for n in [1, 2, 5, 17, 40] {
            let m = spd(&mut rng, n);
            let b = rand_mat(&mut rng, n, 3);
            let mut ch = Cholesky::new(n);
            ch.factor(m.as_ref()).unwrap();
            // L Lᵀ reconstructs M.
            let l = ch.l();
            let rec = l * l.transpose();
            assert!((&rec - &m).norm_max() <= 16.0 * f64::EPSILON * n as f64 * m.norm_max());
            let mut x = b.clone();
            ch.solve_mat_in_place(x.as_mut());
            let reference = m.llt(Side::Lower).unwrap().solve(&b);
            let scale = reference.norm_max();
            assert!((&x - &reference).norm_max() <= 1e3 * f64::EPSILON * n as f64 * scale);
            // vector path
            let mut v: Vec<f64> = (0..n).map(|i| b[(i, 0)]).collect();
            ch.solve_in_place(&mut v);
            for i in 0..n {
                assert!((v[i] - reference[(i, 0)]).abs() <= 1e3 * f64::EPSILON * n as f64 * scale);
            }
            // L⁻ᵀ L⁻¹ = M⁻¹
            let mut y = b.clone();
            ch.solve_lower_in_place(y.as_mut());
            ch.solve_upper_in_place(y.as_mut());
            assert!((&y - &reference).norm_max() <= 1e3 * f64::EPSILON * n as f64 * scale);
        }
    }

    #[test]
    fn reads_lower_triangle_only() {
        let mut rng = Rng::new(3);
        let m = spd(&mut rng, 6);
        let mut garbage = m.clone();
        for j in 1..6 {
            for i in 0..j {
                garbage[(i, j)] = 1e6;
            }
        }
        for kernel in [Kernel::Small, Kernel::Faer] {
            let mut a = Cholesky::with_kernel(6, kernel);
            let mut b = Cholesky::with_kernel(6, kernel);
            a.factor(m.as_ref()).unwrap();
            b.factor(garbage.as_ref()).unwrap();
            assert_eq!((a.l() - b.l()).norm_max(), 0.0, "{kernel:?}");
            // a strict upper triangle of zeros, whatever the input held there
            assert!(
                (1..6).all(|j| (0..j).all(|i| b.l()[(i, j)] == 0.0)),
                "{kernel:?}"
            );
        }
    }

    #[test]
    fn not_positive_definite_reports_pivot() {
        let m = faer::mat![[1.0, 2.0], [2.0, 1.0]];
        let mut ch = Cholesky::new(2);
        match ch.factor(m.as_ref()) {
            Err(LinalgError::NotPositiveDefinite { index, pivot }) => {
                assert_eq!(index, 1);
                assert!((pivot - (-3.0)).abs() < 1e-12, "pivot {pivot}");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(!ch.is_factored());
        let d = faer::mat![[4.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, -5.0]];
        let mut ch = Cholesky::new(3);
        assert_eq!(
            ch.factor(d.as_ref()),
            Err(LinalgError::NotPositiveDefinite {
                index: 2,
                pivot: -5.0
            })
        );
        let z = Mat::<f64>::zeros(3, 3);
        assert!(matches!(
            ch.factor(z.as_ref()),
            Err(LinalgError::NotPositiveDefinite { index: 0, .. })
        ));
    }

    #[test]
    fn bad_input() {
        let mut ch = Cholesky::new(3);
        let m = Mat::<f64>::identity(2, 2);
        assert!(matches!(
            ch.factor(m.as_ref()),
            Err(LinalgError::DimensionMismatch {
                expected_rows: 3,
                rows: 2,
                ..
            })
        ));
        let mut m = Mat::<f64>::identity(3, 3);
        m[(2, 1)] = f64::NAN;
        assert_eq!(
            ch.factor(m.as_ref()),
            Err(LinalgError::NonFinite {
                what: "Cholesky::factor: m",
                row: 2,
                col: 1
            })
        );
        m[(2, 1)] = f64::INFINITY;
        assert!(matches!(
            ch.factor(m.as_ref()),
            Err(LinalgError::NonFinite { .. })
        ));
    }

    /// The small kernels and faer's give the same factor and solutions to round-off, on both
    /// sides of the crossover, and both report the failing pivot.
    #[test]
    fn small_and_faer_kernels_agree() {
        let mut rng = Rng::new(19);
        for n in [1, 3, 8, 32, 33, 50] {
            let m = spd(&mut rng, n);
            let b: Vec<f64> = (0..n).map(|_| rng.uniform()).collect();
            let mut small = Cholesky::with_kernel(n, Kernel::Small);
            let mut big = Cholesky::with_kernel(n, Kernel::Faer);
            small.factor(m.as_ref()).unwrap();
            big.factor(m.as_ref()).unwrap();
            let tol = 64.0 * f64::EPSILON * n as f64 * m.norm_max().sqrt();
            assert!((small.l() - big.l()).norm_max() <= tol, "n = {n}");
            let (mut xs, mut xb) = (b.clone(), b.clone());
            small.solve_in_place(&mut xs);
            big.solve_in_place(&mut xb);
            let scale = xb.iter().fold(1.0f64, |a, v| a.max(v.abs()));
            for i in 0..n {
                assert!((xs[i] - xb[i]).abs() <= 1e4 * f64::EPSILON * n as f64 * scale);
            }
            let (mut ls, mut us) = (b.clone(), b.clone());
            small.solve_lower_vec_in_place(&mut ls);
            small.solve_upper_vec_in_place(&mut ls);
            big.solve_lower_vec_in_place(&mut us);
            big.solve_upper_vec_in_place(&mut us);
            for i in 0..n {
                assert!((ls[i] - xs[i]).abs() <= 1e4 * f64::EPSILON * n as f64 * scale);
                assert!((us[i] - xb[i]).abs() <= 1e4 * f64::EPSILON * n as f64 * scale);
            }
        }
        for kernel in [Kernel::Small, Kernel::Faer] {
            let m = faer::mat![[1.0, 2.0], [2.0, 1.0]];
            let mut ch = Cholesky::with_kernel(2, kernel);
            match ch.factor(m.as_ref()) {
                Err(LinalgError::NotPositiveDefinite { index: 1, pivot }) => {
                    assert!((pivot + 3.0).abs() < 1e-12, "{kernel:?}: {pivot}")
                }
                other => panic!("{kernel:?}: {other:?}"),
            }
            // an indefinite 40 × 40: SPD with one diagonal entry made negative
            let mut big = spd(&mut Rng::new(4), 40);
            big[(37, 37)] = -1.0;
            let mut ch = Cholesky::with_kernel(40, kernel);
            match ch.factor(big.as_ref()) {
                Err(LinalgError::NotPositiveDefinite { index: 37, pivot }) => assert!(pivot < 0.0),
                other => panic!("{kernel:?}: {other:?}"),
            }
            let mut x = [1.0; 40];
            ch.solve_in_place(&mut x);
            assert!(x.iter().all(|v| v.is_nan()));
        }
    }
}
