//! Kövecses & Piedbœuf's mass-weighted generalized inverse and projectors.
//!
//! The paper factors the mass matrix as `M = L̂ᵀ L̂` with `L̂` upper triangular
//! (text before (11)); with our lower factor `M = L Lᵀ` ([`Cholesky`]) that is
//! `L̂ = Lᵀ`. The change of coordinates `δq̃ = L̂ δq` (11) turns the constraint
//! Jacobian `A` (`m × n`) into `Ã = A L̂⁻¹ = A L⁻ᵀ` (13), whose rows are
//! homogeneous in units, and
//!
//! ```text
//! W   = L̂⁻¹ (A L̂⁻¹)† = L⁻ᵀ (A L⁻ᵀ)†          (17)
//! P_c = W A,   P_a = I − W A                  (17)
//! ```
//!
//! valid for rank-deficient (redundant) `A`. For full row rank (18)
//! `W = M⁻¹Aᵀ (A M⁻¹ Aᵀ)⁻¹`. The projectors are `M`-orthogonal, not symmetric
//! in general: `P_aᵀ M P_c = 0` (21), `P_aᵀ M P_a = P_aᵀ M` (22),
//! `P_a M⁻¹ Aᵀ = 0` (23); [`projector_identity_residuals`] measures them.

use faer::linalg::matmul::matmul;
use faer::linalg::triangular_solve::{
    solve_lower_triangular_in_place, solve_upper_triangular_in_place,
};
use faer::{Accum, Mat, MatMut, MatRef, Par, Side};

use crate::cholesky::Cholesky;
use crate::dense;
use crate::error::{check_dims, check_finite, check_tol, LinalgError};
use crate::pinv::PseudoInverse;

/// Workspace for `W = L⁻ᵀ (A L⁻ᵀ)†`, `P_c = W A`, `P_a = I − W A` (Kövecses (17)),
/// `n` coordinates, `m` constraint rows (may exceed the rank).
///
/// Allocates in [`WeightedProjectors::new`] only.
#[derive(Debug)]
pub struct WeightedProjectors {
    n: usize,
    m: usize,
    at: Mat<f64>,
    atil: Mat<f64>,
    pinv: PseudoInverse,
    // `W` (n × m), `P_c`, `P_a` (n × n), column-major in contiguous storage: the Schur path
    // and the callers' products run over whole columns without per-entry index arithmetic.
    w: Vec<f64>,
    p_c: Vec<f64>,
    p_a: Vec<f64>,
    // The Schur path of `update`: Y = L⁻¹Aᵀ (n × m), S = YᵀY = L_S L_Sᵀ, G = L_S⁻¹ (T = Y S⁻¹ is
    // formed in the storage of W).
    y: Vec<f64>,
    /// `A` (m × n, column-major) as read by `update`.
    a_copy: Vec<f64>,
    chol_s: Cholesky,
    g: Vec<f64>,
    /// Whether the last computation went through the SVD (singular values available).
    svd: bool,
    rank: usize,
}

impl WeightedProjectors {
    /// Allocates a workspace for `n` coordinates and `m` constraint rows.
    pub fn new(n: usize, m: usize) -> Self {
        Self {
            n,
            m,
            at: Mat::zeros(n, m),
            atil: Mat::zeros(m, n),
            pinv: PseudoInverse::new(m, n),
            w: vec![0.0; n * m],
            p_c: vec![0.0; n * n],
            p_a: (0..n * n)
                .map(|k| if k % (n + 1) == 0 { 1.0 } else { 0.0 })
                .collect(),
            y: vec![0.0; n * m],
            a_copy: vec![0.0; m * n],
            chol_s: Cholesky::new(m),
            g: vec![0.0; m * m],
            svd: false,
            rank: 0,
        }
    }

    /// `(n, m)`.
    pub fn dims(&self) -> (usize, usize) {
        (self.n, self.m)
    }

    /// Computes `W`, `P_c`, `P_a` from a factored `M = L Lᵀ` and `A` (`m × n`);
    /// the pseudo-inverse of `Ã = A L⁻ᵀ` drops singular values
    /// `≤ max(abs_tol, rel_tol · σ_max(Ã))` (use [`crate::DEFAULT_RANK_RTOL`]).
    ///
    /// Errors: [`LinalgError::DimensionMismatch`] (`a`, or `chol` of the wrong
    /// dimension), [`LinalgError::NotFactored`], [`LinalgError::NonFinite`],
    /// [`LinalgError::InvalidTolerance`], [`LinalgError::SvdNoConvergence`].
    /// After an error the contents of `W`, `P_c`, `P_a` are unspecified.
    pub fn compute(
        &mut self,
        chol: &Cholesky,
        a: MatRef<'_, f64>,
        abs_tol: f64,
        rel_tol: f64,
    ) -> Result<(), LinalgError> {
        let n = self.n;
        if chol.dim() != n {
            return Err(LinalgError::DimensionMismatch {
                what: "WeightedProjectors::compute: chol",
                expected_rows: n,
                expected_cols: n,
                rows: chol.dim(),
                cols: chol.dim(),
            });
        }
        if !chol.is_factored() {
            return Err(LinalgError::NotFactored {
                what: "WeightedProjectors::compute: chol",
            });
        }
        check_dims("WeightedProjectors::compute: a", a, self.m, n)?;
        check_finite("WeightedProjectors::compute: a", a)?;
        // Kövecses (13): Ãᵀ = L̂⁻ᵀ Aᵀ = L⁻¹ Aᵀ.
        self.at.copy_from(a.transpose());
        solve_lower_triangular_in_place(chol.l(), self.at.as_mut(), Par::Seq);
        self.atil.copy_from(self.at.transpose());
        // Kövecses (15): Ã†.
        self.svd = false;
        self.rank = 0;
        self.pinv.compute(self.atil.as_ref(), abs_tol, rel_tol)?;
        self.svd = true;
        self.rank = self.pinv.rank();
        // Kövecses (17): W = L̂⁻¹ Ã† = L⁻ᵀ Ã†.
        let mut w = MatMut::from_column_major_slice_mut(&mut self.w, n, self.m);
        w.copy_from(self.pinv.pinv());
        solve_upper_triangular_in_place(chol.l().transpose(), w.as_mut(), Par::Seq);
        // P_c = W A, P_a = I − W A.
        matmul(
            MatMut::from_column_major_slice_mut(&mut self.p_c, n, n),
            Accum::Replace,
            MatRef::from_column_major_slice(&self.w, n, self.m),
            a,
            1.0,
            Par::Seq,
        );
        for (k, (pa, pc)) in self.p_a.iter_mut().zip(&self.p_c).enumerate() {
            *pa = if k % (n + 1) == 0 { 1.0 } else { 0.0 } - pc;
        }
        Ok(())
    }

    /// As [`WeightedProjectors::compute`], without an SVD where the rank is known to be full:
    /// for `m ≤ n` the full-row-rank formula (18), `W = L⁻ᵀ Y S⁻¹` with `Y = L⁻¹Aᵀ = Ãᵀ` and
    /// `S = Yᵀ Y = Ã Ãᵀ = L_S L_Sᵀ`, is used when the Cholesky factor of `S` *certifies* that
    /// the SVD would keep every singular value:
    ///
    /// ```text
    /// σ_min(Ã)² = λ_min(S) ≥ 1 / ‖L_S⁻¹‖_F²,     σ_max(Ã)² ≤ tr S,
    /// accept when  ‖L_S⁻¹‖_F² · tr S ≤ 1e8  and  1/‖L_S⁻¹‖_F > max(abs_tol, rel_tol · √tr S)
    /// ```
    ///
    /// (the first bound keeps `κ(S) ≤ 1e8`, so the `O(ε · tr S)` round-off of forming `S`
    /// cannot change the rank decision). Otherwise — a rank-deficient, nearly deficient or wide
    /// `A` — it falls back to [`WeightedProjectors::compute`]. Same results to round-off, same
    /// errors; [`WeightedProjectors::singular_values`] is empty after the full-rank path.
    pub fn update(
        &mut self,
        chol: &Cholesky,
        a: MatRef<'_, f64>,
        abs_tol: f64,
        rel_tol: f64,
    ) -> Result<(), LinalgError> {
        let (n, m) = (self.n, self.m);
        if m == 0 || m > n || chol.dim() != n || !chol.is_factored() {
            return self.compute(chol, a, abs_tol, rel_tol);
        }
        check_dims("WeightedProjectors::compute: a", a, m, n)?;
        check_tol("PseudoInverse::compute: abs_tol", abs_tol)?;
        check_tol("PseudoInverse::compute: rel_tol", rel_tol)?;
        self.svd = false;
        self.rank = 0;
        // Y = L⁻¹ Aᵀ: A copied (to `a_copy`, and as Aᵀ to `y`) column by column, finiteness
        // checked in the copy
        let mut finite = true;
        for k in 0..n {
            finite &= dense::copy_col(a, k, &mut self.a_copy[k * m..k * m + m], 0);
            dense::scatter_col(a, k, &mut self.y[k..], n);
        }
        if !finite {
            check_finite("WeightedProjectors::compute: a", a)?;
        }
        for row in 0..m {
            chol.solve_lower_vec_in_place(&mut self.y[row * n..row * n + n]);
        }
        // S = Yᵀ Y (lower triangle) and its trace
        let mut trace = 0.0;
        {
            let ls = self.chol_s.storage_mut();
            for b in 0..m {
                let yb = &self.y[b * n..b * n + n];
                for r in 0..m {
                    ls[r + b * m] = if r >= b {
                        dense::dot(&self.y[r * n..r * n + n], yb)
                    } else {
                        0.0
                    };
                }
                trace += ls[b + b * m];
            }
        }
        if self.chol_s.factor_copied().is_err() {
            return self.compute(chol, a, abs_tol, rel_tol);
        }
        // G = L_S⁻¹ (lower triangular), column by column
        for c in 0..m {
            let gc = &mut self.g[c * m..c * m + m];
            gc.fill(0.0);
            gc[c] = 1.0;
            self.chol_s.solve_lower_vec_in_place(gc);
        }
        let g_f2: f64 = self.g.iter().map(|v| v * v).sum();
        let sigma_min_lb = 1.0 / g_f2.sqrt();
        if !(g_f2 * trace <= 1e8 && sigma_min_lb > abs_tol.max(rel_tol * trace.sqrt())) {
            return self.compute(chol, a, abs_tol, rel_tol);
        }
        dense::fixed_n!(n, |n| schur_projectors(
            n,
            m,
            &self.y,
            &self.g,
            chol,
            &self.a_copy,
            &mut self.w,
            &mut self.p_c,
            &mut self.p_a
        ));
        self.rank = m;
        Ok(())
    }

    /// The weighted generalized inverse `W = L⁻ᵀ (A L⁻ᵀ)†` (`n × m`).
    pub fn w(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.w, self.n, self.m)
    }

    /// Projector onto constrained motion, `P_c = W A` (`n × n`).
    pub fn p_c(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.p_c, self.n, self.n)
    }

    /// Projector onto admissible motion, `P_a = I − W A` (`n × n`).
    pub fn p_a(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.p_a, self.n, self.n)
    }

    /// Numerical rank of `Ã = A L⁻ᵀ` (equal to that of `A`).
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Singular values of `Ã = A L⁻ᵀ` (unit-consistent, Kövecses after (13)) from the last
    /// [`WeightedProjectors::compute`], or from an [`WeightedProjectors::update`] that fell
    /// back to the SVD; empty after an update that took the full-rank path.
    pub fn singular_values(&self) -> &[f64] {
        if self.svd {
            self.pinv.singular_values()
        } else {
            &[]
        }
    }
}

/// The Schur path of [`WeightedProjectors::update`] from `Y` (`n × m`), `G = L_S⁻¹`
/// (`m × m`) and `A` (`m × n`), column-major: `W`, `P_c`, `P_a`. Inlined for each `n ≤`
/// [`UNROLL_MAX`](crate::UNROLL_MAX) so that the length-`n` column loops are unrolled.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn schur_projectors(
    n: usize,
    m: usize,
    y: &[f64],
    g: &[f64],
    chol: &Cholesky,
    a: &[f64],
    w: &mut [f64],
    p_c: &mut [f64],
    p_a: &mut [f64],
) {
    // Kövecses (18): T = Ã† = Y S⁻¹ = Y Gᵀ G, as Z = Y Gᵀ (m(m+1)/2 column axpys) then
    // T = Z G (as many), both in W's columns; then W = L⁻ᵀ T column by column.
    // Z_{:,a} = Σ_{b ≤ a} G_ab Y_{:,b}  (G lower triangular)
    for a_ in 0..m {
        let za = &mut w[a_ * n..a_ * n + n];
        za.fill(0.0);
        for b in 0..=a_ {
            let gab = g[a_ + b * m];
            for (x, yb) in za.iter_mut().zip(&y[b * n..b * n + n]) {
                *x += gab * yb;
            }
        }
    }
    // T_{:,c} = Σ_{a ≥ c} G_ac Z_{:,a}, in place in increasing c (column c is last read
    // there), then solved: W_{:,c} = L⁻ᵀ T_{:,c}.
    for c in 0..m {
        let (head, tail) = w.split_at_mut((c + 1) * n);
        let tc = &mut head[c * n..];
        let gcc = g[c + c * m];
        for x in tc.iter_mut() {
            *x *= gcc;
        }
        for (a_, za) in (c + 1..m).zip(tail.chunks_exact(n)) {
            let gac = g[a_ + c * m];
            for (x, z) in tc.iter_mut().zip(za) {
                *x += gac * z;
            }
        }
        chol.solve_upper_vec_in_place(tc);
    }
    // P_c = W A, P_a = I − W A: column j of P_c is Σ_c W_{:,c} A_cj (in order of c, as the
    // entry-wise sums of `compute`'s product), one pass over contiguous columns.
    for j in 0..n {
        let pc = &mut p_c[j * n..j * n + n];
        pc.fill(0.0);
        for c in 0..m {
            let acj = a[c + j * m];
            for (x, wc) in pc.iter_mut().zip(&w[c * n..c * n + n]) {
                *x += wc * acj;
            }
        }
        let pa = &mut p_a[j * n..j * n + n];
        for (i, (x, p)) in pa.iter_mut().zip(pc.iter()).enumerate() {
            *x = if i == j { 1.0 } else { 0.0 } - p;
        }
    }
}

/// Relative residuals of the projector identities (all dimensionless,
/// Frobenius norms, `s = max(‖P_c‖, ‖P_a‖)`, see [`projector_identity_residuals`]).
///
/// `s` rather than `‖P_a‖` and `‖P_c‖` separately scales the residuals because
/// either projector may vanish (`P_a = 0` for `rank A = n`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProjectorResiduals {
    /// `‖P_c + P_a − I‖ / s`.
    pub complement: f64,
    /// `‖P_c P_c − P_c‖ / s²`.
    pub idempotence: f64,
    /// Kövecses (21): `‖P_aᵀ M P_c‖ / (s² ‖M‖)`.
    pub m_orthogonality: f64,
    /// Kövecses (22): `‖P_aᵀ M P_a − P_aᵀ M‖ / (s² ‖M‖)`.
    pub eq22: f64,
    /// Kövecses (23): `‖P_a M⁻¹ Aᵀ‖ / (s ‖M⁻¹ Aᵀ‖)`.
    pub eq23: f64,
}

impl ProjectorResiduals {
    /// The largest of the five residuals.
    pub fn max(&self) -> f64 {
        self.complement
            .max(self.idempotence)
            .max(self.m_orthogonality)
            .max(self.eq22)
            .max(self.eq23)
    }
}

/// Measures `P_c + P_a = I`, `P_c² = P_c` and Kövecses (21)–(23) for projectors
/// computed from `m` (SPD, lower triangle read) and `a`. Allocates.
///
/// Errors: [`LinalgError::DimensionMismatch`], [`LinalgError::NonFinite`],
/// [`LinalgError::NotPositiveDefinite`] (index only; pivot NaN).
pub fn projector_identity_residuals(
    m: MatRef<'_, f64>,
    a: MatRef<'_, f64>,
    proj: &WeightedProjectors,
) -> Result<ProjectorResiduals, LinalgError> {
    let (n, rows) = proj.dims();
    check_dims("projector_identity_residuals: m", m, n, n)?;
    check_dims("projector_identity_residuals: a", a, rows, n)?;
    check_finite("projector_identity_residuals: m", m)?;
    check_finite("projector_identity_residuals: a", a)?;
    let msym = Mat::from_fn(n, n, |i, j| if i >= j { m[(i, j)] } else { m[(j, i)] });
    let llt = msym.llt(Side::Lower).map_err(|e| match e {
        faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index } => {
            LinalgError::NotPositiveDefinite {
                index,
                pivot: f64::NAN,
            }
        }
    })?;
    let div = |x: f64, d: f64| if d > 0.0 { x / d } else { x };
    let (pc, pa) = (proj.p_c(), proj.p_a());
    // P_c + P_a = I, so s ≥ √n / 2 > 0 unless n = 0.
    let sp = pc.norm_l2().max(pa.norm_l2());
    let nm = msym.norm_l2();
    let eye = Mat::<f64>::identity(n, n);
    let complement = div((pc + pa - &eye).norm_l2(), sp);
    let idempotence = div((pc * pc - pc).norm_l2(), sp * sp);
    let m_orthogonality = div((pa.transpose() * &msym * pc).norm_l2(), sp * sp * nm);
    let pa_t_m = pa.transpose() * &msym;
    let eq22 = div((&pa_t_m * pa - &pa_t_m).norm_l2(), sp * sp * nm);
    use faer::linalg::solvers::Solve;
    let minv_at = llt.solve(a.transpose().to_owned());
    let eq23 = div((pa * &minv_at).norm_l2(), sp * minv_at.norm_l2());
    Ok(ProjectorResiduals {
        complement,
        idempotence,
        m_orthogonality,
        eq22,
        eq23,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{low_rank, rand_mat, spd, Rng};
    use crate::DEFAULT_RANK_RTOL;
    use faer::linalg::solvers::DenseSolveCore;

    const EPS: f64 = f64::EPSILON;

    /// `update` gives `compute`'s W, P_c, P_a to round-off on full-rank A (the Schur path,
    /// no singular values), falls back to the SVD on rank-deficient and wide A (same rank,
    /// singular values present), and reports the same errors.
    #[test]
    fn update_matches_compute() {
        let mut rng = Rng::new(43);
        for (n, m) in [(1, 1), (3, 1), (6, 2), (7, 3), (7, 6), (10, 10), (40, 5)] {
            let mass = spd(&mut rng, n);
            let a = rand_mat(&mut rng, m, n);
            let mut ch = Cholesky::new(n);
            ch.factor(mass.as_ref()).unwrap();
            let (mut full, mut fast) =
                (WeightedProjectors::new(n, m), WeightedProjectors::new(n, m));
            full.compute(&ch, a.as_ref(), 0.0, DEFAULT_RANK_RTOL)
                .unwrap();
            fast.update(&ch, a.as_ref(), 0.0, DEFAULT_RANK_RTOL)
                .unwrap();
            let s = full.singular_values();
            let cond = s[0] / s[m - 1];
            assert_eq!(fast.rank(), m);
            if cond * cond < 1e7 {
                assert!(
                    fast.singular_values().is_empty(),
                    "{n}x{m}: Schur path expected"
                );
            }
            let tol = 1e3 * EPS * cond * cond * (n + m) as f64;
            assert!(
                (fast.w() - full.w()).norm_l2() <= tol * full.w().norm_l2(),
                "{n}x{m}"
            );
            assert!((fast.p_a() - full.p_a()).norm_max() <= tol, "{n}x{m}");
            assert!((fast.p_c() - full.p_c()).norm_max() <= tol, "{n}x{m}");
        }
        // rank-deficient and wide: the SVD decides
        let n = 6;
        let mass = spd(&mut rng, n);
        let mut ch = Cholesky::new(n);
        ch.factor(mass.as_ref()).unwrap();
        for (a, rank) in [
            (low_rank(&mut rng, 3, n, 2), 2),
            (rand_mat(&mut rng, 8, n), 6),
        ] {
            let mut wp = WeightedProjectors::new(n, a.nrows());
            wp.update(&ch, a.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap();
            assert_eq!(wp.rank(), rank);
            assert!(!wp.singular_values().is_empty());
        }
        let mut a = rand_mat(&mut rng, 2, n);
        a[(1, 4)] = f64::NAN;
        let mut wp = WeightedProjectors::new(n, 2);
        assert!(matches!(
            wp.update(&ch, a.as_ref(), 0.0, DEFAULT_RANK_RTOL),
            Err(LinalgError::NonFinite { row: 1, col: 4, .. })
        ));
        assert!(matches!(
            wp.update(&ch, a.transpose(), 0.0, DEFAULT_RANK_RTOL),
            Err(LinalgError::DimensionMismatch { .. })
        ));
        a[(1, 4)] = 1.0;
        assert!(matches!(
            wp.update(&ch, a.as_ref(), -1.0, DEFAULT_RANK_RTOL),
            Err(LinalgError::InvalidTolerance { .. })
        ));
        assert!(matches!(
            wp.update(&Cholesky::new(n), a.as_ref(), 0.0, DEFAULT_RANK_RTOL),
            Err(LinalgError::NotFactored { .. })
        ));
    }

    #[test]
    fn full_rank_matches_eq18() {
        let mut rng = Rng::new(41);
        for (n, m) in [(1, 1), (3, 1), (6, 2), (10, 6), (20, 20)] {
            let mass = spd(&mut rng, n);
            let a = rand_mat(&mut rng, m, n);
            let mut ch = Cholesky::new(n);
            ch.factor(mass.as_ref()).unwrap();
            let mut wp = WeightedProjectors::new(n, m);
            wp.compute(&ch, a.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap();
            assert_eq!(wp.rank(), m);
            // Kövecses (18)
            let minv = mass.partial_piv_lu().inverse();
            let w18 =
                &minv * a.transpose() * (&a * &minv * a.transpose()).partial_piv_lu().inverse();
            let s = wp.singular_values();
            let cond = s[0] / s[m - 1];
            let rel = (wp.w() - &w18).norm_l2() / w18.norm_l2();
            assert!(
                rel <= 1e2 * EPS * cond * cond * (n + m) as f64,
                "{n}x{m}: {rel}"
            );
            // A W = I for full row rank
            let aw = &a * wp.w();
            assert!(
                (&aw - Mat::<f64>::identity(m, m)).norm_max() <= 1e2 * EPS * cond * (n + m) as f64
            );
            let r = projector_identity_residuals(mass.as_ref(), a.as_ref(), &wp).unwrap();
            assert!(r.max() <= 1e2 * EPS * cond * (n + m) as f64, "{r:?}");
        }
    }

    #[test]
    fn redundant_constraints() {
        let mut rng = Rng::new(42);
        for (n, m, k) in [(6, 4, 2), (8, 10, 5), (5, 5, 1)] {
            let mass = spd(&mut rng, n);
            let a = low_rank(&mut rng, m, n, k);
            let mut ch = Cholesky::new(n);
            ch.factor(mass.as_ref()).unwrap();
            let mut wp = WeightedProjectors::new(n, m);
            wp.compute(&ch, a.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap();
            assert_eq!(wp.rank(), k);
            let r = projector_identity_residuals(mass.as_ref(), a.as_ref(), &wp).unwrap();
            assert!(r.max() <= 1e4 * EPS * (n + m) as f64, "{r:?}");
            // P_a has rank n − k: trace of an (oblique) projector = its rank
            let tr: f64 = (0..n).map(|i| wp.p_a()[(i, i)]).sum();
            assert!((tr - (n - k) as f64).abs() <= 1e-10);
            // A P_a = 0: admissible motions satisfy the constraints
            assert!((&a * wp.p_a()).norm_max() <= 1e4 * EPS * a.norm_l2() * n as f64);
        }
    }

    #[test]
    fn residuals_detect_wrong_weighting() {
        // projectors built with the identity metric are not M-orthogonal
        let mut rng = Rng::new(43);
        let (n, m) = (6, 2);
        let mass = spd(&mut rng, n);
        let a = rand_mat(&mut rng, m, n);
        let mut ch = Cholesky::new(n);
        ch.factor(Mat::<f64>::identity(n, n).as_ref()).unwrap();
        let mut wp = WeightedProjectors::new(n, m);
        wp.compute(&ch, a.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap();
        let r = projector_identity_residuals(mass.as_ref(), a.as_ref(), &wp).unwrap();
        assert!(r.m_orthogonality > 1e-3 && r.eq23 > 1e-3, "{r:?}");
    }

    #[test]
    fn bad_input() {
        let mut wp = WeightedProjectors::new(3, 2);
        let ch = Cholesky::new(3);
        let a = Mat::<f64>::zeros(2, 3);
        assert!(matches!(
            wp.compute(&ch, a.as_ref(), 0.0, 0.0),
            Err(LinalgError::NotFactored { .. })
        ));
        let mut ch4 = Cholesky::new(4);
        ch4.factor(Mat::<f64>::identity(4, 4).as_ref()).unwrap();
        assert!(matches!(
            wp.compute(&ch4, a.as_ref(), 0.0, 0.0),
            Err(LinalgError::DimensionMismatch { .. })
        ));
        let mut ch = Cholesky::new(3);
        ch.factor(Mat::<f64>::identity(3, 3).as_ref()).unwrap();
        assert!(matches!(
            wp.compute(&ch, Mat::<f64>::zeros(3, 3).as_ref(), 0.0, 0.0),
            Err(LinalgError::DimensionMismatch { .. })
        ));
        let mut an = a.clone();
        an[(1, 2)] = f64::NAN;
        assert!(matches!(
            wp.compute(&ch, an.as_ref(), 0.0, 0.0),
            Err(LinalgError::NonFinite { row: 1, col: 2, .. })
        ));
        assert!(matches!(
            wp.compute(&ch, a.as_ref(), -1.0, 0.0),
            Err(LinalgError::InvalidTolerance { .. })
        ));
        // zero A: P_c = 0, P_a = I
        wp.compute(&ch, a.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap();
        assert_eq!(wp.rank(), 0);
        assert_eq!((wp.p_a() - Mat::<f64>::identity(3, 3)).norm_max(), 0.0);
        let neg = Mat::<f64>::identity(3, 3) * faer::Scale(-1.0);
        assert!(matches!(
            projector_identity_residuals(neg.as_ref(), a.as_ref(), &wp),
            Err(LinalgError::NotPositiveDefinite { index: 0, .. })
        ));
    }
}
