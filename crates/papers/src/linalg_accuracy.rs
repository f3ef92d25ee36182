//! Source `linalg`: a deterministic accuracy report of the dense kernels (rows `linalg/...`).
//!
//! A fixed list of shapes is filled from a splitmix64 stream
//! ([`contour::linalg::testing::Rng`]) seeded with `seed`, so the matrices are identical
//! on every machine. The measured quantities are round-off residuals; their
//! last digits depend on the SIMD path faer dispatches to (AVX2/AVX-512/NEON),
//! so [`accuracy_report`] returns each worst case rounded *up* to a power of
//! ten (an order-of-magnitude bound that prints identically everywhere, e.g.
//! `1.0e-15` meaning "≤ 1e-15"); [`accuracy_report_raw`] returns the raw
//! maxima.
//!
//! Rows (all dimensionless, worst case over the shapes):
//!
//! * `linalg/moore_penrose/max_residual` — [`moore_penrose_residual`] of
//!   [`PseudoInverse`] for full-rank and rank-deficient `A = B C`.
//! * `linalg/projectors/max_identity_residual` — [`ProjectorResiduals::max`]
//!   (`P_c + P_a = I`, `P_c² = P_c`, Kövecses (21)–(23)).
//! * `linalg/kkt/range_space_vs_lu_max_rel_diff` —
//!   `max(‖q̈_RS − q̈_LU‖∞ / ‖q̈_LU‖∞, ‖λ_RS − λ_LU‖∞ / ‖λ_LU‖∞)`.
//! * `linalg/weighted_inverse/full_rank_max_rel_diff_eq18` —
//!   `‖W − M⁻¹Aᵀ(AM⁻¹Aᵀ)⁻¹‖_F / ‖M⁻¹Aᵀ(AM⁻¹Aᵀ)⁻¹‖_F` for full row rank `A`
//!   (Kövecses (18); the explicit formula is evaluated with LU inverses).

use faer::linalg::solvers::DenseSolveCore;
use faer::Mat;

use contour::linalg::testing::{low_rank, rand_mat, spd, Rng};
use contour::linalg::{
    moore_penrose_residual, projector_identity_residuals, Cholesky, KktMethod, KktSolver,
    ProjectorResiduals, PseudoInverse, WeightedProjectors, DEFAULT_RANK_RTOL,
};

use crate::{Row, SourceOutput, SourceResult, Tolerance};

/// Seed of the committed report.
pub const SEED: u64 = 20261122;

/// The rows `linalg/*`: [`accuracy_report`] at [`SEED`], each a round-off bound checked only to
/// stay below 1e-10.
pub fn source() -> SourceResult {
    let rows = accuracy_report(SEED)
        .into_iter()
        .map(|(id, value)| {
            Row::roundoff(id, value, "relative", 1e-10)
                .rounded()
                .note("worst case over seeded random sizes up to 30, rank-deficient included; rounded up to a power of ten (round-off digits depend on the SIMD kernel faer picks), checked only to stay below 1e-10")
                .tolerance(Tolerance::AtMost(1e-10))
        })
        .collect();
    Ok(SourceOutput::rows(rows))
}

/// Shapes `(rows, cols, inner)` of the Moore–Penrose and projector cases;
/// `inner < min(rows, cols)` makes `A = B C` rank-deficient.
pub const SHAPES: [(usize, usize, usize); 10] = [
    (1, 1, 1),
    (3, 5, 3),
    (5, 3, 2),
    (8, 8, 8),
    (10, 10, 6),
    (12, 7, 7),
    (7, 12, 4),
    (20, 30, 20),
    (30, 20, 11),
    (30, 30, 29),
];

/// Shapes `(n, m)` (`m ≤ n`) of the KKT and eq. (18) cases.
pub const FULL_RANK_SHAPES: [(usize, usize); 7] = [
    (1, 1),
    (3, 1),
    (6, 3),
    (10, 10),
    (15, 4),
    (24, 12),
    (30, 20),
];

/// Raw worst-case values of the four rows (see the module documentation).
pub fn accuracy_report_raw(seed: u64) -> Vec<(&'static str, f64)> {
    let mut rng = Rng::new(seed);
    let mut mp: f64 = 0.0;
    let mut proj: f64 = 0.0;
    for &(rows, cols, inner) in &SHAPES {
        let a = low_rank(&mut rng, rows, cols, inner);
        let mut p = PseudoInverse::new(rows, cols);
        mp = mp.max(match p.compute(a.as_ref(), 0.0, DEFAULT_RANK_RTOL) {
            Ok(()) => moore_penrose_residual(a.as_ref(), p.pinv()),
            Err(_) => f64::INFINITY,
        });
        // projectors: A is the m × n constraint Jacobian, n = cols
        let mass = spd(&mut rng, cols);
        proj = proj.max(projector_case(&mass, &a).map_or(f64::INFINITY, |r| r.max()));
    }
    let mut kkt: f64 = 0.0;
    let mut eq18: f64 = 0.0;
    for &(n, m) in &FULL_RANK_SHAPES {
        let mass = spd(&mut rng, n);
        let j = rand_mat(&mut rng, m, n);
        let f: Vec<f64> = (0..n).map(|_| rng.uniform()).collect();
        let c: Vec<f64> = (0..m).map(|_| rng.uniform()).collect();
        kkt = kkt.max(kkt_case(&mass, &j, &f, &c));
        eq18 = eq18.max(eq18_case(&mass, &j));
    }
    vec![
        ("linalg/moore_penrose/max_residual", mp),
        ("linalg/projectors/max_identity_residual", proj),
        ("linalg/kkt/range_space_vs_lu_max_rel_diff", kkt),
        ("linalg/weighted_inverse/full_rank_max_rel_diff_eq18", eq18),
    ]
}

/// The rows of [`accuracy_report_raw`], each rounded up to a power of ten
/// (`0` stays `0`, non-finite values stay as they are).
pub fn accuracy_report(seed: u64) -> Vec<(&'static str, f64)> {
    accuracy_report_raw(seed)
        .into_iter()
        .map(|(k, v)| (k, pow10_ceil(v)))
        .collect()
}

/// Smallest power of ten `≥ x` for `x > 0` (`0`, negative and non-finite values unchanged).
pub fn pow10_ceil(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 || !x.is_finite() {
        return x;
    }
    let mut e = x.log10().ceil();
    // guard against log10 rounding at exact powers of ten
    if 10f64.powf(e - 1.0) >= x {
        e -= 1.0;
    }
    10f64.powf(e)
}

fn projector_case(mass: &Mat<f64>, a: &Mat<f64>) -> Option<ProjectorResiduals> {
    let (m, n) = (a.nrows(), a.ncols());
    let mut ch = Cholesky::new(n);
    ch.factor(mass.as_ref()).ok()?;
    let mut wp = WeightedProjectors::new(n, m);
    wp.compute(&ch, a.as_ref(), 0.0, DEFAULT_RANK_RTOL).ok()?;
    projector_identity_residuals(mass.as_ref(), a.as_ref(), &wp).ok()
}

fn kkt_case(mass: &Mat<f64>, j: &Mat<f64>, f: &[f64], c: &[f64]) -> f64 {
    let (m, n) = (j.nrows(), j.ncols());
    let mut sol = Vec::new();
    for method in [KktMethod::RangeSpace, KktMethod::FullLu] {
        let mut s = KktSolver::new(n, m, method);
        let mut x = vec![0.0; n];
        let mut l = vec![0.0; m];
        if s.solve(mass.as_ref(), j.as_ref(), f, c, &mut x, &mut l)
            .is_err()
        {
            return f64::INFINITY;
        }
        sol.push((x, l));
    }
    let rel = |a: &[f64], b: &[f64]| {
        let d = a
            .iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        let s = b.iter().map(|x| x.abs()).fold(0.0, f64::max);
        if s > 0.0 {
            d / s
        } else {
            d
        }
    };
    rel(&sol[0].0, &sol[1].0).max(rel(&sol[0].1, &sol[1].1))
}

fn eq18_case(mass: &Mat<f64>, a: &Mat<f64>) -> f64 {
    let (m, n) = (a.nrows(), a.ncols());
    let mut ch = Cholesky::new(n);
    if ch.factor(mass.as_ref()).is_err() {
        return f64::INFINITY;
    }
    let mut wp = WeightedProjectors::new(n, m);
    if wp.compute(&ch, a.as_ref(), 0.0, DEFAULT_RANK_RTOL).is_err() {
        return f64::INFINITY;
    }
    // Kövecses (18): W = M⁻¹Aᵀ(AM⁻¹Aᵀ)⁻¹
    let minv = mass.partial_piv_lu().inverse();
    let w18 = &minv * a.transpose() * (a * &minv * a.transpose()).partial_piv_lu().inverse();
    (wp.w() - &w18).norm_l2() / w18.norm_l2()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_is_deterministic_and_small() {
        let a = accuracy_report_raw(2024);
        let b = accuracy_report_raw(2024);
        assert_eq!(a, b);
        assert_eq!(a.len(), 4);
        for (name, v) in &a {
            // all are round-off quantities; 1e-11 is ~5e4 ε
            assert!(v.is_finite() && *v < 1e-11, "{name}: {v:e}");
        }
        let r = accuracy_report(2024);
        for ((n1, raw), (n2, bound)) in a.iter().zip(&r) {
            assert_eq!(n1, n2);
            assert!(*bound >= *raw && (*raw == 0.0 || *bound < 10.0 * raw));
        }
    }

    #[test]
    fn pow10() {
        assert_eq!(pow10_ceil(3.2e-16), 1e-15);
        assert_eq!(pow10_ceil(1e-15), 1e-15);
        assert_eq!(pow10_ceil(0.0), 0.0);
        assert_eq!(pow10_ceil(7.0), 10.0);
        assert!(pow10_ceil(f64::INFINITY).is_infinite());
    }
}
