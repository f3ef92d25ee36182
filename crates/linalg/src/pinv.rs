//! Moore–Penrose pseudo-inverse through the thin SVD `A = U Σ Vᵀ`, with an
//! explicit rank tolerance, plus [`numerical_rank`], [`null_space`] and the
//! accuracy measure [`moore_penrose_residual`].
//!
//! `A† = V_r Σ_r⁻¹ U_rᵀ` where `r` counts the singular values
//! `σ_i > max(abs_tol, rel_tol · σ_max)` (faer's
//! `pseudoinverse_from_svd_with_tolerance` rule).

use faer::diag::{DiagMut, DiagRef};
use faer::dyn_stack::StackReq;
use faer::linalg::matmul::matmul;
use faer::linalg::svd::{
    pseudoinverse_from_svd_scratch, pseudoinverse_from_svd_with_tolerance, svd, svd_scratch,
    ComputeSvdVectors,
};
use faer::{Accum, ColMut, ColRef, Mat, MatRef, Par};

use crate::error::{check_dims, check_finite, check_tol, LinalgError};
use crate::scratch::Scratch;

/// Workspace for the SVD pseudo-inverse of a `rows × cols` matrix.
///
/// Allocates in [`PseudoInverse::new`] only; [`PseudoInverse::compute`] and
/// [`PseudoInverse::apply`] do not allocate.
#[derive(Debug)]
pub struct PseudoInverse {
    rows: usize,
    cols: usize,
    s: Vec<f64>,
    u: Mat<f64>,
    v: Mat<f64>,
    pinv: Mat<f64>,
    rank: usize,
    buf: Scratch,
}

impl PseudoInverse {
    /// Allocates a workspace for `rows × cols` matrices.
    pub fn new(rows: usize, cols: usize) -> Self {
        let size = rows.min(cols);
        let req = StackReq::any_of(&[
            svd_scratch::<f64>(
                rows,
                cols,
                ComputeSvdVectors::Thin,
                ComputeSvdVectors::Thin,
                Par::Seq,
                Default::default(),
            ),
            pseudoinverse_from_svd_scratch::<f64>(rows, cols, Par::Seq),
        ]);
        Self {
            rows,
            cols,
            s: vec![0.0; size],
            u: Mat::zeros(rows, size),
            v: Mat::zeros(cols, size),
            pinv: Mat::zeros(cols, rows),
            rank: 0,
            buf: Scratch::new(req),
        }
    }

    /// `(rows, cols)` of `A`.
    pub fn shape(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// Computes `A† = Σ_{σ_i > tol} v_i σ_i⁻¹ u_iᵀ`, `tol = max(abs_tol, rel_tol · σ_max)`.
    ///
    /// Errors: [`LinalgError::DimensionMismatch`], [`LinalgError::NonFinite`],
    /// [`LinalgError::InvalidTolerance`], [`LinalgError::SvdNoConvergence`].
    /// On error the previous result is cleared (`A† = 0`, rank 0).
    pub fn compute(
        &mut self,
        a: MatRef<'_, f64>,
        abs_tol: f64,
        rel_tol: f64,
    ) -> Result<(), LinalgError> {
        self.rank = 0;
        self.pinv.fill(0.0);
        self.s.fill(0.0);
        check_dims("PseudoInverse::compute: a", a, self.rows, self.cols)?;
        check_finite("PseudoInverse::compute: a", a)?;
        check_tol("PseudoInverse::compute: abs_tol", abs_tol)?;
        check_tol("PseudoInverse::compute: rel_tol", rel_tol)?;
        if self.s.is_empty() {
            return Ok(());
        }
        svd(
            a,
            DiagMut::from_slice_mut(&mut self.s),
            Some(self.u.as_mut()),
            Some(self.v.as_mut()),
            Par::Seq,
            self.buf.stack(),
            Default::default(),
        )
        .map_err(|_| LinalgError::SvdNoConvergence)?;
        let smax = self.s.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
        let tol = abs_tol.max(rel_tol * smax);
        self.rank = self.s.iter().filter(|x| x.abs() > tol).count();
        pseudoinverse_from_svd_with_tolerance(
            self.pinv.as_mut(),
            DiagRef::from_slice(&self.s),
            self.u.as_ref(),
            self.v.as_ref(),
            abs_tol,
            rel_tol,
            Par::Seq,
            self.buf.stack(),
        );
        Ok(())
    }

    /// The pseudo-inverse `A†` (`cols × rows`).
    pub fn pinv(&self) -> MatRef<'_, f64> {
        self.pinv.as_ref()
    }

    /// Numerical rank `r` (number of singular values kept).
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Singular values `σ_1 ≥ … ≥ σ_min(rows,cols)` of the last `compute`.
    pub fn singular_values(&self) -> &[f64] {
        &self.s
    }

    /// Thin left singular vectors `U` (`rows × min(rows, cols)`).
    pub fn u(&self) -> MatRef<'_, f64> {
        self.u.as_ref()
    }

    /// Thin right singular vectors `V` (`cols × min(rows, cols)`).
    pub fn v(&self) -> MatRef<'_, f64> {
        self.v.as_ref()
    }

    /// `out = A† x` (`x.len() == rows`, `out.len() == cols`; debug-asserted, a
    /// mismatch in release fills `out` with NaN).
    pub fn apply(&self, x: &[f64], out: &mut [f64]) {
        debug_assert_eq!(x.len(), self.rows);
        debug_assert_eq!(out.len(), self.cols);
        if x.len() != self.rows || out.len() != self.cols {
            out.fill(f64::NAN);
            return;
        }
        matmul(
            ColMut::from_slice_mut(out).as_mat_mut(),
            Accum::Replace,
            self.pinv.as_ref(),
            ColRef::from_slice(x).as_mat(),
            1.0,
            Par::Seq,
        );
    }
}

/// Numerical rank of `A`: the number of `σ_i > max(abs_tol, rel_tol · σ_max)`. Allocates.
pub fn numerical_rank(
    a: MatRef<'_, f64>,
    abs_tol: f64,
    rel_tol: f64,
) -> Result<usize, LinalgError> {
    check_finite("numerical_rank: a", a)?;
    check_tol("numerical_rank: abs_tol", abs_tol)?;
    check_tol("numerical_rank: rel_tol", rel_tol)?;
    if a.nrows().min(a.ncols()) == 0 {
        return Ok(0);
    }
    let s = a
        .singular_values()
        .map_err(|_| LinalgError::SvdNoConvergence)?;
    let smax = s.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    let tol = abs_tol.max(rel_tol * smax);
    Ok(s.iter().filter(|x| x.abs() > tol).count())
}

/// Orthonormal basis `N` (`cols × (cols − r)`) of the null space of `A`:
/// the right singular vectors `v_i` with `σ_i ≤ max(abs_tol, rel_tol · σ_max)`
/// together with the `cols − min(rows, cols)` trailing ones of the full SVD.
/// `A N ≈ 0`, `Nᵀ N = I`. Allocates.
pub fn null_space(a: MatRef<'_, f64>, abs_tol: f64, rel_tol: f64) -> Result<Mat<f64>, LinalgError> {
    check_finite("null_space: a", a)?;
    check_tol("null_space: abs_tol", abs_tol)?;
    check_tol("null_space: rel_tol", rel_tol)?;
    let n = a.ncols();
    if a.nrows().min(n) == 0 {
        return Ok(Mat::identity(n, n));
    }
    let svd = a.svd().map_err(|_| LinalgError::SvdNoConvergence)?;
    let s = svd.S().column_vector();
    let smax = (0..s.nrows()).map(|i| s[i].abs()).fold(0.0_f64, f64::max);
    let tol = abs_tol.max(rel_tol * smax);
    let rank = (0..s.nrows()).filter(|&i| s[i].abs() > tol).count();
    Ok(svd.V().get(.., rank..).to_owned())
}

/// Worst of the four Moore–Penrose conditions for a candidate `X ≈ A†`,
/// each as a dimensionless relative Frobenius residual with `κ = ‖A‖_F ‖X‖_F`:
///
/// * `‖A X A − A‖ / (‖A‖ κ)`,
/// * `‖X A X − X‖ / (‖X‖ κ)`,
/// * `‖(A X)ᵀ − A X‖ / κ`,
/// * `‖(X A)ᵀ − X A‖ / κ`.
///
/// A backward-stable SVD pseudo-inverse gives `O(ε · size)` for each, whatever
/// the conditioning of `A`; a wrong `X` gives `O(1)`. If `A = 0` the raw
/// (unscaled) residuals are returned. Shapes must be `m × n` and `n × m`
/// (otherwise `+∞`). Allocates.
pub fn moore_penrose_residual(a: MatRef<'_, f64>, pinv: MatRef<'_, f64>) -> f64 {
    if pinv.nrows() != a.ncols() || pinv.ncols() != a.nrows() {
        return f64::INFINITY;
    }
    let na = a.norm_l2();
    let nx = pinv.norm_l2();
    let kappa = na * nx;
    let div = |x: f64, d: f64| if d > 0.0 { x / d } else { x };
    let ax = a * pinv;
    let xa = pinv * a;
    let r1 = (&ax * a - a).norm_l2();
    let r2 = (&xa * pinv - pinv).norm_l2();
    let r3 = (ax.transpose() - &ax).norm_l2();
    let r4 = (xa.transpose() - &xa).norm_l2();
    div(r1, na * kappa)
        .max(div(r2, nx * kappa))
        .max(div(r3, kappa))
        .max(div(r4, kappa))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{low_rank, rand_mat, Rng};
    use crate::DEFAULT_RANK_RTOL;

    const EPS: f64 = f64::EPSILON;

    #[test]
    fn matches_faer_owned_pseudoinverse() {
        let mut rng = Rng::new(21);
        for (m, n) in [(1, 1), (3, 5), (5, 3), (10, 10), (25, 7), (7, 25)] {
            let a = rand_mat(&mut rng, m, n);
            let mut p = PseudoInverse::new(m, n);
            p.compute(a.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap();
            assert_eq!(p.rank(), m.min(n));
            let reference = a.as_ref().thin_svd().unwrap().pseudoinverse();
            let cond = p.singular_values()[0] / p.singular_values()[m.min(n) - 1];
            let err = (p.pinv() - &reference).norm_max() / reference.norm_max();
            assert!(err <= 1e2 * EPS * cond * (m + n) as f64, "{m}x{n}: {err}");
            assert!(moore_penrose_residual(a.as_ref(), p.pinv()) <= 1e2 * EPS * (m + n) as f64);
            // singular values sorted, nonnegative
            for w in p.singular_values().windows(2) {
                assert!(w[0] >= w[1] && w[1] >= 0.0);
            }
            // apply = pinv * x
            let x: Vec<f64> = (0..m).map(|_| rng.uniform()).collect();
            let mut out = vec![0.0; n];
            p.apply(&x, &mut out);
            for j in 0..n {
                let e: f64 = (0..m).map(|i| p.pinv()[(j, i)] * x[i]).sum();
                assert!((out[j] - e).abs() <= 1e-13 * (1.0 + e.abs()));
            }
        }
    }

    #[test]
    fn rank_deficient_and_tolerances() {
        let mut rng = Rng::new(22);
        let a = low_rank(&mut rng, 9, 6, 4);
        let mut p = PseudoInverse::new(9, 6);
        p.compute(a.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap();
        assert_eq!(p.rank(), 4);
        assert!(moore_penrose_residual(a.as_ref(), p.pinv()) <= 1e2 * EPS * 15.0);
        assert_eq!(
            numerical_rank(a.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap(),
            4
        );
        // a slightly wrong pseudo-inverse is noticed by the residual
        let wrong = p.pinv() * faer::Scale(1.001);
        assert!(moore_penrose_residual(a.as_ref(), wrong.as_ref()) > 1e-5);
        // with rel_tol = 0 the noise singular values are kept
        p.compute(a.as_ref(), 0.0, 0.0).unwrap();
        assert!(p.rank() > 4);
        // an absolute tolerance above σ_max drops everything
        p.compute(a.as_ref(), 1e6, 0.0).unwrap();
        assert_eq!(p.rank(), 0);
        assert_eq!(p.pinv().norm_max(), 0.0);
        // zero matrix
        let z = Mat::<f64>::zeros(4, 3);
        let mut p = PseudoInverse::new(4, 3);
        p.compute(z.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap();
        assert_eq!(p.rank(), 0);
        assert_eq!(moore_penrose_residual(z.as_ref(), p.pinv()), 0.0);
    }

    #[test]
    fn null_space_basis() {
        let mut rng = Rng::new(23);
        for (m, n, k) in [(3, 7, 3), (6, 6, 2), (8, 5, 5), (4, 9, 1)] {
            let a = low_rank(&mut rng, m, n, k);
            let ns = null_space(a.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap();
            assert_eq!(ns.ncols(), n - k);
            let ortho = ns.transpose() * &ns - Mat::<f64>::identity(n - k, n - k);
            assert!(ortho.norm_max() <= 1e2 * EPS * n as f64);
            assert!((&a * &ns).norm_max() <= 1e2 * EPS * n as f64 * a.norm_l2());
        }
        assert_eq!(
            null_space(Mat::<f64>::zeros(0, 3).as_ref(), 0.0, 0.0)
                .unwrap()
                .ncols(),
            3
        );
    }

    #[test]
    fn bad_input() {
        let mut p = PseudoInverse::new(3, 2);
        assert!(matches!(
            p.compute(Mat::<f64>::zeros(2, 3).as_ref(), 0.0, 0.0),
            Err(LinalgError::DimensionMismatch { .. })
        ));
        let mut a = Mat::<f64>::zeros(3, 2);
        a[(0, 1)] = f64::NEG_INFINITY;
        assert!(matches!(
            p.compute(a.as_ref(), 0.0, 0.0),
            Err(LinalgError::NonFinite { row: 0, col: 1, .. })
        ));
        assert!(matches!(
            numerical_rank(a.as_ref(), 0.0, 0.0),
            Err(LinalgError::NonFinite { .. })
        ));
        assert!(matches!(
            null_space(a.as_ref(), 0.0, 0.0),
            Err(LinalgError::NonFinite { .. })
        ));
        let a = Mat::<f64>::zeros(3, 2);
        assert!(matches!(
            p.compute(a.as_ref(), f64::NAN, 0.0),
            Err(LinalgError::InvalidTolerance { .. })
        ));
        assert!(matches!(
            p.compute(a.as_ref(), 0.0, -1.0),
            Err(LinalgError::InvalidTolerance { .. })
        ));
        assert_eq!(
            moore_penrose_residual(a.as_ref(), a.as_ref()),
            f64::INFINITY
        );
    }
}
