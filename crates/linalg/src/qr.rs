//! Skinny Householder QR `A = Q R` of a tall `rows × cols` matrix (`rows ≥ cols`).
//!
//! Keerthi, Sudarsan & Sancheti solve the modified-Newton normal equations
//! `G'ᵀ G' δμ = G` (their (2.16)) through the skinny QR `G' = Q₁ R₁` of the
//! `n × m` constraint-gradient matrix, replacing `G'ᵀ G'` by `R₁ᵀ R₁` and
//! solving "twin triangular systems". [`SkinnyQr::solve_normal_in_place`] is
//! exactly that; the iterate update (2.17) `X = G' μ` is left to the caller.
//!
//! The factorization uses faer's blocked `qr_in_place`; `Q` is kept implicitly
//! as Householder reflectors and applied with faer's block-Householder routines.

use faer::dyn_stack::StackReq;
use faer::linalg::householder::{
    apply_block_householder_sequence_on_the_left_in_place_scratch,
    apply_block_householder_sequence_on_the_left_in_place_with_conj,
    apply_block_householder_sequence_transpose_on_the_left_in_place_scratch,
    apply_block_householder_sequence_transpose_on_the_left_in_place_with_conj,
};
use faer::linalg::qr::no_pivoting::factor::{
    qr_in_place, qr_in_place_scratch, recommended_block_size,
};
use faer::linalg::triangular_solve::{
    solve_lower_triangular_in_place, solve_upper_triangular_in_place,
};
use faer::{Conj, Mat, MatRef, Par};

use crate::error::{check_dims, check_finite, check_finite_vec, check_len, check_tol, LinalgError};
use crate::scratch::Scratch;
use crate::DEFAULT_RANK_RTOL;
use faer::prelude::ReborrowMut;

/// Workspace for the skinny QR factorization of a `rows × cols` matrix, `rows ≥ cols`.
///
/// `A = Q R` with `Q` (`rows × cols`) having orthonormal columns and `R`
/// (`cols × cols`) upper triangular. Allocates in [`SkinnyQr::new`] only.
///
/// The solvers refuse (with [`LinalgError::RankDeficient`]) to work when some
/// `|R_ii| ≤ rank_rtol · max_j |R_jj|`; `rank_rtol` defaults to
/// [`DEFAULT_RANK_RTOL`] and is set with [`SkinnyQr::set_rank_rtol`]. Without
/// column pivoting this test is only "rank-revealing enough" for a check: an
/// exactly dependent column gives `|R_ii| = O(ε‖A‖)`, but a nearly-deficient
/// matrix can have all `|R_ii|` moderate.
#[derive(Debug)]
pub struct SkinnyQr {
    rows: usize,
    cols: usize,
    /// Factored matrix: `R` in the upper triangle, Householder vectors below.
    qr: Mat<f64>,
    q_coeff: Mat<f64>,
    r: Mat<f64>,
    work: Mat<f64>,
    buf: Scratch,
    rank_rtol: f64,
    factored: bool,
}

impl SkinnyQr {
    /// Allocates a workspace for `rows × cols` matrices.
    ///
    /// A wide shape (`rows < cols`) is accepted here but every
    /// [`SkinnyQr::factor`] then returns [`LinalgError::NotSkinny`].
    pub fn new(rows: usize, cols: usize) -> Self {
        let size = rows.min(cols);
        let bs = recommended_block_size::<f64>(rows, cols).max(1);
        let req = StackReq::any_of(&[
            qr_in_place_scratch::<f64>(rows, cols, bs, Par::Seq, Default::default()),
            apply_block_householder_sequence_transpose_on_the_left_in_place_scratch::<f64>(
                rows, bs, 1,
            ),
            apply_block_householder_sequence_on_the_left_in_place_scratch::<f64>(rows, bs, 1),
        ]);
        Self {
            rows,
            cols,
            qr: Mat::zeros(rows, cols),
            q_coeff: Mat::zeros(bs, size),
            r: Mat::zeros(size, size),
            work: Mat::zeros(rows, 1),
            buf: Scratch::new(req),
            rank_rtol: DEFAULT_RANK_RTOL,
            factored: false,
        }
    }

    /// Sets the relative tolerance of the rank test used by the solvers.
    pub fn set_rank_rtol(&mut self, rel_tol: f64) -> Result<(), LinalgError> {
        check_tol("SkinnyQr::set_rank_rtol: rel_tol", rel_tol)?;
        self.rank_rtol = rel_tol;
        Ok(())
    }

    /// The relative tolerance of the rank test used by the solvers.
    pub fn rank_rtol(&self) -> f64 {
        self.rank_rtol
    }

    /// `(rows, cols)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// Factors `A = Q R`.
    ///
    /// Errors: [`LinalgError::NotSkinny`] if `rows < cols`,
    /// [`LinalgError::DimensionMismatch`], [`LinalgError::NonFinite`].
    pub fn factor(&mut self, a: MatRef<'_, f64>) -> Result<(), LinalgError> {
        self.factored = false;
        if self.rows < self.cols {
            return Err(LinalgError::NotSkinny {
                rows: self.rows,
                cols: self.cols,
            });
        }
        check_dims("SkinnyQr::factor: a", a, self.rows, self.cols)?;
        check_finite("SkinnyQr::factor: a", a)?;
        self.qr.copy_from(a);
        if self.cols > 0 {
            qr_in_place(
                self.qr.as_mut(),
                self.q_coeff.as_mut(),
                Par::Seq,
                self.buf.stack(),
                Default::default(),
            );
        }
        let m = self.cols;
        for j in 0..m {
            for i in 0..m {
                self.r[(i, j)] = if i <= j { self.qr[(i, j)] } else { 0.0 };
            }
        }
        self.factored = true;
        Ok(())
    }

    /// The `cols × cols` upper-triangular factor `R` (zero below the diagonal).
    pub fn r(&self) -> MatRef<'_, f64> {
        self.r.as_ref()
    }

    /// Number of `|R_ii| > rel_tol · max_j |R_jj|` (0 for a zero matrix or before `factor`).
    pub fn rank(&self, rel_tol: f64) -> usize {
        if !self.factored {
            return 0;
        }
        let max = self.max_diag();
        if max == 0.0 {
            return 0;
        }
        (0..self.cols)
            .filter(|&i| self.r[(i, i)].abs() > rel_tol * max)
            .count()
    }

    /// The ratio `σ̂_min / c_max` of an upper estimate of the smallest singular value of `A`
    /// (`σ̂_min ≥ σ_min(A) = σ_min(R)`) to the largest column norm of `A`
    /// (`c_max ≤ σ_max ≤ √cols · c_max`): a condition test that, unlike the diagonal of `R`,
    /// also sees a nearly dependent set of columns whose `|R_ii|` are all moderate.
    ///
    /// `σ̂_min = ‖z‖^(-1/2)` after three steps of inverse iteration on `RᵀR`
    /// (`z = (RᵀR)⁻¹ x`, `‖x‖ = 1`, from a fixed start of alternating signs), `O(cols²)` per
    /// step, no allocation. 0 for a zero or exactly singular `R`; 1 for `cols = 0`; 0 before
    /// [`SkinnyQr::factor`].
    pub fn condition_estimate(&mut self) -> f64 {
        let m = self.cols;
        if !self.factored {
            return 0.0;
        }
        if m == 0 {
            return 1.0;
        }
        let cmax = (0..m)
            .map(|j| (0..=j).map(|i| self.r[(i, j)].powi(2)).sum::<f64>())
            .fold(0.0_f64, f64::max)
            .sqrt();
        if cmax == 0.0 || self.max_diag() == 0.0 || (0..m).any(|i| self.r[(i, i)] == 0.0) {
            return 0.0;
        }
        let norm0 = ((0..m)
            .map(|i| (1.0 + i as f64 / m as f64).powi(2))
            .sum::<f64>())
        .sqrt();
        for i in 0..m {
            let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
            self.work[(i, 0)] = sign * (1.0 + i as f64 / m as f64) / norm0;
        }
        let mut est = f64::INFINITY;
        for _ in 0..3 {
            let mut x = self.work.as_mut().get_mut(..m, ..);
            // z = R⁻¹ R⁻ᵀ x
            solve_lower_triangular_in_place(self.r.as_ref().transpose(), x.rb_mut(), Par::Seq);
            solve_upper_triangular_in_place(self.r.as_ref(), x.rb_mut(), Par::Seq);
            let nz = (0..m).map(|i| x[(i, 0)].powi(2)).sum::<f64>().sqrt();
            if !(nz.is_finite() && nz > 0.0) {
                return 0.0;
            }
            est = est.min(1.0 / nz.sqrt());
            for i in 0..m {
                x[(i, 0)] /= nz;
            }
        }
        est / cmax
    }

    fn max_diag(&self) -> f64 {
        (0..self.cols)
            .map(|i| self.r[(i, i)].abs())
            .fold(0.0, f64::max)
    }

    fn check_full_rank(&self) -> Result<(), LinalgError> {
        if !self.factored {
            return Err(LinalgError::NotFactored { what: "SkinnyQr" });
        }
        let rank = self.rank(self.rank_rtol);
        if rank < self.cols {
            return Err(LinalgError::RankDeficient {
                rank,
                required: self.cols,
                tolerance: self.rank_rtol,
            });
        }
        Ok(())
    }

    /// Solves `(AᵀA) δ = r` in place through `Rᵀ R δ = r` (Keerthi (2.16)):
    /// `r ← R⁻¹ R⁻ᵀ r`. `r` has length `cols`.
    ///
    /// Errors: [`LinalgError::RankDeficient`] if some `|R_ii| ≤ rank_rtol·max|R_jj|`,
    /// [`LinalgError::DimensionMismatch`], [`LinalgError::NonFinite`],
    /// [`LinalgError::NotFactored`].
    pub fn solve_normal_in_place(&mut self, r: &mut [f64]) -> Result<(), LinalgError> {
        check_len("SkinnyQr::solve_normal_in_place: r", r, self.cols)?;
        check_finite_vec("SkinnyQr::solve_normal_in_place: r", r)?;
        self.check_full_rank()?;
        let mut x = faer::ColMut::from_slice_mut(r).as_mat_mut();
        // Keerthi (2.16): G'ᵀG' = R₁ᵀR₁, twin triangular systems.
        solve_lower_triangular_in_place(self.r.as_ref().transpose(), x.rb_mut(), Par::Seq);
        solve_upper_triangular_in_place(self.r.as_ref(), x, Par::Seq);
        Ok(())
    }

    /// Minimum-norm solution of the underdetermined system `Aᵀ x = c`:
    /// `x = Q R⁻ᵀ c` (`c` has length `cols`, `x` length `rows`).
    ///
    /// Errors as [`SkinnyQr::solve_normal_in_place`].
    pub fn solve_transpose_min_norm(
        &mut self,
        c: &[f64],
        x: &mut [f64],
    ) -> Result<(), LinalgError> {
        let what = [
            "SkinnyQr::solve_transpose_min_norm: c",
            "SkinnyQr::solve_transpose_min_norm: x",
        ];
        self.load_work(what, c, self.cols, x, self.rows)?;
        let m = self.cols;
        solve_lower_triangular_in_place(
            self.r.as_ref().transpose(),
            self.work.as_mut().get_mut(..m, ..),
            Par::Seq,
        );
        if m > 0 {
            apply_block_householder_sequence_on_the_left_in_place_with_conj(
                self.qr.as_ref(),
                self.q_coeff.as_ref(),
                Conj::No,
                self.work.as_mut(),
                Par::Seq,
                self.buf.stack(),
            );
        }
        self.unload_work(x);
        Ok(())
    }

    /// Least-squares solution of `min ‖A x − b‖₂`: `x = R⁻¹ (Qᵀ b)[..cols]`
    /// (`b` has length `rows`, `x` length `cols`).
    ///
    /// Errors as [`SkinnyQr::solve_normal_in_place`].
    pub fn solve_least_squares(&mut self, b: &[f64], x: &mut [f64]) -> Result<(), LinalgError> {
        let what = [
            "SkinnyQr::solve_least_squares: b",
            "SkinnyQr::solve_least_squares: x",
        ];
        self.load_work(what, b, self.rows, x, self.cols)?;
        let m = self.cols;
        if m > 0 {
            apply_block_householder_sequence_transpose_on_the_left_in_place_with_conj(
                self.qr.as_ref(),
                self.q_coeff.as_ref(),
                Conj::No,
                self.work.as_mut(),
                Par::Seq,
                self.buf.stack(),
            );
        }
        solve_upper_triangular_in_place(
            self.r.as_ref(),
            self.work.as_mut().get_mut(..m, ..),
            Par::Seq,
        );
        self.unload_work(x);
        Ok(())
    }

    /// The checks of the solves with `Q` (`input` of length `n_in`, `output` of length `n_out`,
    /// named by `what`; `input` finite; a full-rank factorization), then `work ← [input; 0]`.
    fn load_work(
        &mut self,
        what: [&'static str; 2],
        input: &[f64],
        n_in: usize,
        output: &[f64],
        n_out: usize,
    ) -> Result<(), LinalgError> {
        check_len(what[0], input, n_in)?;
        check_len(what[1], output, n_out)?;
        check_finite_vec(what[0], input)?;
        self.check_full_rank()?;
        for i in 0..self.rows {
            self.work[(i, 0)] = input.get(i).copied().unwrap_or(0.0);
        }
        Ok(())
    }

    /// `x ← work[..x.len()]`.
    fn unload_work(&self, x: &mut [f64]) {
        for (i, xi) in x.iter_mut().enumerate() {
            *xi = self.work[(i, 0)];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{low_rank, rand_mat, Rng};
    use faer::linalg::solvers::DenseSolveCore;
    use faer::Col;

    const EPS: f64 = f64::EPSILON;

    /// The estimate bounds the exact ratio σ_min/c_max from above and is within a small
    /// factor of it, also for nearly dependent columns whose R diagonal is moderate.
    #[test]
    fn condition_estimate_brackets_the_svd() {
        let mut rng = Rng::new(11);
        for (n, m, rank_gap) in [(6, 3, 0.0), (20, 7, 1e-7), (40, 13, 1e-4), (9, 9, 1e-9)] {
            let mut a = rand_mat(&mut rng, n, m);
            if rank_gap > 0.0 {
                // last column = mean of the others + a small perturbation
                for i in 0..n {
                    let mean = (0..m - 1).map(|j| a[(i, j)]).sum::<f64>() / (m - 1) as f64;
                    a[(i, m - 1)] = mean + rank_gap * rng.uniform();
                }
            }
            let s = a.singular_values().unwrap();
            let smin = s.iter().fold(f64::INFINITY, |x, &v| x.min(v));
            let cmax = (0..m).map(|j| a.col(j).norm_l2()).fold(0.0_f64, f64::max);
            let mut qr = SkinnyQr::new(n, m);
            qr.factor(a.as_ref()).unwrap();
            let est = qr.condition_estimate();
            let exact = smin / cmax;
            assert!(est >= exact * (1.0 - 1e-6), "{n}x{m}: {est:e} < {exact:e}");
            assert!(est <= 10.0 * exact, "{n}x{m}: {est:e} vs {exact:e}");
        }
        let mut qr = SkinnyQr::new(3, 2);
        qr.factor(Mat::<f64>::zeros(3, 2).as_ref()).unwrap();
        assert_eq!(qr.condition_estimate(), 0.0);
    }

    #[test]
    fn normal_equations_match_explicit_inverse() {
        let mut rng = Rng::new(5);
        for (n, m) in [(1, 1), (3, 2), (8, 8), (20, 7), (40, 13)] {
            let a = rand_mat(&mut rng, n, m);
            let rhs: Vec<f64> = (0..m).map(|_| rng.uniform()).collect();
            let mut qr = SkinnyQr::new(n, m);
            qr.factor(a.as_ref()).unwrap();
            // RᵀR = AᵀA
            let ata = a.transpose() * &a;
            let rtr = qr.r().transpose() * qr.r();
            assert!((&ata - &rtr).norm_max() <= 64.0 * EPS * n as f64 * ata.norm_max());
            let mut d = rhs.clone();
            qr.solve_normal_in_place(&mut d).unwrap();
            let inv = ata.partial_piv_lu().inverse();
            let expected = &inv * Col::from_fn(m, |i| rhs[i]);
            let scale = expected.norm_max();
            for i in 0..m {
                assert!(
                    (d[i] - expected[i]).abs() <= 1e4 * EPS * scale,
                    "{n}x{m}: {} vs {}",
                    d[i],
                    expected[i]
                );
            }
        }
    }

    #[test]
    fn min_norm_and_least_squares() {
        let mut rng = Rng::new(6);
        for (n, m) in [(5, 3), (12, 12), (30, 4)] {
            let a = rand_mat(&mut rng, n, m);
            let mut qr = SkinnyQr::new(n, m);
            qr.factor(a.as_ref()).unwrap();
            let pinv = a.as_ref().svd().unwrap().pseudoinverse();
            // Aᵀ x = c, minimum norm: x = (Aᵀ)† c
            let c: Vec<f64> = (0..m).map(|_| rng.uniform()).collect();
            let mut x = vec![0.0; n];
            qr.solve_transpose_min_norm(&c, &mut x).unwrap();
            let expected = pinv.transpose() * Col::from_fn(m, |i| c[i]);
            for i in 0..n {
                assert!((x[i] - expected[i]).abs() <= 1e4 * EPS * expected.norm_max());
            }
            // min ‖Ax − b‖: x = A† b
            let b: Vec<f64> = (0..n).map(|_| rng.uniform()).collect();
            let mut y = vec![0.0; m];
            qr.solve_least_squares(&b, &mut y).unwrap();
            let expected = &pinv * Col::from_fn(n, |i| b[i]);
            for i in 0..m {
                assert!((y[i] - expected[i]).abs() <= 1e4 * EPS * expected.norm_max());
            }
        }
    }

    #[test]
    fn rank_deficient_is_rejected() {
        let mut rng = Rng::new(7);
        let a = low_rank(&mut rng, 10, 5, 3);
        let mut qr = SkinnyQr::new(10, 5);
        qr.factor(a.as_ref()).unwrap();
        assert_eq!(qr.rank(DEFAULT_RANK_RTOL), 3);
        let mut r = vec![1.0; 5];
        assert!(matches!(
            qr.solve_normal_in_place(&mut r),
            Err(LinalgError::RankDeficient {
                rank: 3,
                required: 5,
                ..
            })
        ));
        let mut x = vec![0.0; 10];
        assert!(matches!(
            qr.solve_transpose_min_norm(&[1.0; 5], &mut x),
            Err(LinalgError::RankDeficient { .. })
        ));
        let mut y = vec![0.0; 5];
        assert!(matches!(
            qr.solve_least_squares(&[1.0; 10], &mut y),
            Err(LinalgError::RankDeficient { .. })
        ));
    }

    #[test]
    fn bad_input() {
        let mut wide = SkinnyQr::new(2, 3);
        let a = Mat::<f64>::zeros(2, 3);
        assert_eq!(
            wide.factor(a.as_ref()),
            Err(LinalgError::NotSkinny { rows: 2, cols: 3 })
        );
        let mut qr = SkinnyQr::new(4, 2);
        let mut r = vec![0.0; 2];
        assert_eq!(
            qr.solve_normal_in_place(&mut r),
            Err(LinalgError::NotFactored { what: "SkinnyQr" })
        );
        assert!(matches!(
            qr.factor(Mat::<f64>::zeros(3, 2).as_ref()),
            Err(LinalgError::DimensionMismatch {
                expected_rows: 4,
                rows: 3,
                ..
            })
        ));
        let mut a = Mat::<f64>::identity(4, 2);
        a[(3, 1)] = f64::NAN;
        assert!(matches!(
            qr.factor(a.as_ref()),
            Err(LinalgError::NonFinite { row: 3, col: 1, .. })
        ));
        qr.factor(Mat::<f64>::identity(4, 2).as_ref()).unwrap();
        let mut r = vec![0.0; 3];
        assert!(matches!(
            qr.solve_normal_in_place(&mut r),
            Err(LinalgError::DimensionMismatch { .. })
        ));
        let mut r = vec![0.0, f64::INFINITY];
        assert!(matches!(
            qr.solve_normal_in_place(&mut r),
            Err(LinalgError::NonFinite { row: 1, .. })
        ));
        assert!(qr.set_rank_rtol(-1.0).is_err());
    }
}
