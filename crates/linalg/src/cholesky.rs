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
use faer::{ColMut, Mat, MatMut, MatRef, Par};

use crate::error::{check_dims, check_finite, LinalgError};
use crate::scratch::Scratch;
use faer::prelude::{Reborrow, ReborrowMut};

/// Workspace for the Cholesky factorization `M = L Lᵀ` of an `n × n` SPD matrix.
///
/// Allocates in [`Cholesky::new`] only.
#[derive(Debug)]
pub struct Cholesky {
    n: usize,
    l: Mat<f64>,
    buf: Scratch,
    factored: bool,
}

impl Clone for Cholesky {
    fn clone(&self) -> Self {
        let mut c = Self::new(self.n);
        c.l.copy_from(&self.l);
        c.factored = self.factored;
        c
    }
}

impl Cholesky {
    /// Allocates a workspace for `n × n` matrices.
    pub fn new(n: usize) -> Self {
        let req = cholesky_in_place_scratch::<f64>(n, Par::Seq, Default::default());
        Self {
            n,
            l: Mat::zeros(n, n),
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
        check_finite("Cholesky::factor: m", m)?;
        let n = self.n;
        for j in 0..n {
            for i in 0..n {
                self.l[(i, j)] = if i >= j { m[(i, j)] } else { 0.0 };
            }
        }
        let res = cholesky_in_place(
            self.l.as_mut(),
            Default::default(),
            Par::Seq,
            self.buf.stack(),
            Default::default(),
        );
        match res {
            Ok(_) => {
                self.zero_upper();
                self.factored = true;
                Ok(())
            }
            Err(LltError::NonPositivePivot { index }) => {
                let pivot = self.failed_pivot(m, index);
                Err(LinalgError::NotPositiveDefinite { index, pivot })
            }
        }
    }

    /// Recomputes the failing pivot `M_kk − ‖L₁₁⁻¹ M[k, :k]ᵀ‖²` from the valid
    /// leading `k × k` block of `L`, using the free strict upper triangle of
    /// column `k` as scratch (no allocation).
    fn failed_pivot(&mut self, m: MatRef<'_, f64>, k: usize) -> f64 {
        if k >= self.n {
            return f64::NAN;
        }
        for i in 0..k {
            self.l[(i, k)] = m[(k, i)];
        }
        let (left, mut right) = self.l.as_mut().split_at_col_mut(k);
        let l11 = left.rb().get(..k, ..k);
        let rhs = right.rb_mut().get_mut(..k, 0..1);
        solve_lower_triangular_in_place(l11, rhs, Par::Seq);
        let mut s = m[(k, k)];
        for i in 0..k {
            s -= self.l[(i, k)] * self.l[(i, k)];
        }
        self.zero_upper();
        s
    }

    fn zero_upper(&mut self) {
        for j in 0..self.n {
            for i in 0..j {
                self.l[(i, j)] = 0.0;
            }
        }
    }

    /// The lower-triangular factor `L` (strict upper triangle is zero).
    pub fn l(&self) -> MatRef<'_, f64> {
        self.l.as_ref()
    }

    /// `x ← M⁻¹ x` (forward then backward substitution).
    ///
    /// `x.len()` must be `n` (debug-asserted); without a successful factorization
    /// `x` is filled with NaN.
    pub fn solve_in_place(&mut self, x: &mut [f64]) {
        debug_assert_eq!(x.len(), self.n);
        let col = ColMut::from_slice_mut(x);
        self.solve_mat_in_place(col.as_mat_mut());
    }

    /// `X ← M⁻¹ X`.
    pub fn solve_mat_in_place(&mut self, mut x: MatMut<'_, f64>) {
        self.solve_lower_in_place(x.rb_mut());
        self.solve_upper_in_place(x);
    }

    /// `X ← L⁻¹ X`.
    pub fn solve_lower_in_place(&mut self, mut x: MatMut<'_, f64>) {
        debug_assert_eq!(x.nrows(), self.n);
        if !self.guard(x.rb_mut()) {
            return;
        }
        solve_lower_triangular_in_place(self.l.as_ref(), x, Par::Seq);
    }

    /// `X ← L⁻ᵀ X`.
    pub fn solve_upper_in_place(&mut self, mut x: MatMut<'_, f64>) {
        debug_assert_eq!(x.nrows(), self.n);
        if !self.guard(x.rb_mut()) {
            return;
        }
        solve_upper_triangular_in_place(self.l.as_ref().transpose(), x, Par::Seq);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{rand_mat, spd, Rng};
    use faer::linalg::solvers::Solve;
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
        let mut a = Cholesky::new(6);
        let mut b = Cholesky::new(6);
        a.factor(m.as_ref()).unwrap();
        b.factor(garbage.as_ref()).unwrap();
        assert_eq!((a.l() - b.l()).norm_max(), 0.0);
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
}
