//! Property tests over random shapes up to 30 × 30, including rank-deficient
//! `A = B C` with inner dimension `< min(rows, cols)`.
//!
//! The proptest runner is fully deterministic (ChaCha with a fixed seed, no
//! failure persistence); each case draws a shape and a `u64` seed from which
//! the matrices are generated with the crate's splitmix64 ([`Rng`]).
//!
//! Tolerances are relative to the natural scale of each identity:
//! `residual / (‖A‖ ‖A†‖ · ε · size)` (spectral norms from the SVD) must stay
//! below `C = 1e3`. A backward-stable SVD/Cholesky pipeline has constants of
//! order 1–10 in practice (the accuracy report measures ≲ 5 ε·size); 1e3
//! leaves room for unlucky draws, while any algebraic mistake (wrong
//! transpose, wrong metric, wrong rank) produces residuals of order one, i.e.
//! ratios around 1e14.

use contour_linalg::testing::{low_rank, rand_mat, spd, Rng};
use contour_linalg::{
    moore_penrose_residual, null_space, numerical_rank, projector_identity_residuals, Cholesky,
    KktMethod, KktSolver, PseudoInverse, SkinnyQr, WeightedProjectors, DEFAULT_RANK_RTOL,
};
use faer::linalg::solvers::DenseSolveCore;
use faer::Mat;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, RngSeed};

const EPS: f64 = f64::EPSILON;
const C: f64 = 1e3;

fn config() -> Config {
    Config {
        cases: 64,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(0x5EED_C0DE),
        failure_persistence: None,
        ..Config::default()
    }
}

/// `(rows, cols, inner, seed)` with `1 ≤ inner ≤ min(rows, cols)`; about half
/// of the cases are rank-deficient.
fn shape() -> impl Strategy<Value = (usize, usize, usize, u64)> {
    (
        1usize..=30,
        1usize..=30,
        0.0f64..1.0,
        any::<u64>(),
        any::<bool>(),
    )
        .prop_map(|(r, c, frac, seed, full)| {
            let k = r.min(c);
            let inner = if full || k == 1 {
                k
            } else {
                1 + ((k - 1) as f64 * frac) as usize
            };
            (r, c, inner, seed)
        })
}

/// `(n, m, seed)` with `1 ≤ m ≤ n ≤ 30`.
fn full_rank_shape() -> impl Strategy<Value = (usize, usize, u64)> {
    (1usize..=30, 0.0f64..1.0, any::<u64>())
        .prop_map(|(n, frac, seed)| (n, 1 + ((n - 1) as f64 * frac) as usize, seed))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn moore_penrose_conditions((rows, cols, inner, seed) in shape()) {
        let mut rng = Rng::new(seed);
        let a = low_rank(&mut rng, rows, cols, inner);
        let mut p = PseudoInverse::new(rows, cols);
        p.compute(a.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap();
        prop_assert_eq!(p.rank(), inner);
        let x = p.pinv();
        let s = p.singular_values();
        let na = s[0];
        let nx = 1.0 / s[inner - 1];
        let size = rows.max(cols) as f64;
        let unit = EPS * size * na * nx;
        let ax = &a * x;
        let xa = x * &a;
        let r1 = (&ax * &a - &a).norm_l2() / (na * unit);
        let r2 = (&xa * x - x).norm_l2() / (nx * unit);
        let r3 = (ax.transpose() - &ax).norm_l2() / unit;
        let r4 = (xa.transpose() - &xa).norm_l2() / unit;
        prop_assert!(r1.max(r2).max(r3).max(r4) <= C, "{rows}x{cols} rank {inner}: {r1:.1} {r2:.1} {r3:.1} {r4:.1}");
        prop_assert!(moore_penrose_residual(a.as_ref(), x) <= C * EPS * size);
        prop_assert_eq!(numerical_rank(a.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap(), inner);
    }

    #[test]
    fn weighted_projector_identities((rows, cols, inner, seed) in shape()) {
        // A is the rows × n constraint Jacobian, n = cols.
        let (m, n) = (rows, cols);
        let mut rng = Rng::new(seed);
        let a = low_rank(&mut rng, m, n, inner);
        let mass = spd(&mut rng, n);
        let mut ch = Cholesky::new(n);
        ch.factor(mass.as_ref()).unwrap();
        let mut wp = WeightedProjectors::new(n, m);
        wp.compute(&ch, a.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap();
        prop_assert_eq!(wp.rank(), inner);
        let s = wp.singular_values();
        let cond = s[0] / s[inner - 1];
        let size = m.max(n) as f64;
        let r = projector_identity_residuals(mass.as_ref(), a.as_ref(), &wp).unwrap();
        // P_c + P_a = I; P_aᵀ M P_c = 0 (21); P_aᵀ M P_a = P_aᵀ M (22); P_a M⁻¹ Aᵀ = 0 (23)
        let unit = EPS * size * cond;
        prop_assert!(r.complement <= C * EPS * size, "{r:?}");
        prop_assert!(r.max() / unit <= C, "{m}x{n} rank {inner} cond {cond:.1e}: {r:?}");
        // independent check of (23) with the explicit inverse
        let minv = mass.partial_piv_lu().inverse();
        let t = wp.p_a() * &minv * a.transpose();
        // either projector may vanish (P_a = 0 when rank A = n): scale by the larger
        let sp = wp.p_a().norm_l2().max(wp.p_c().norm_l2());
        let scale = sp * minv.norm_l2() * a.norm_l2();
        prop_assert!(t.norm_l2() / scale <= C * unit);
        // A P_a = 0: admissible motion satisfies the constraints
        let ap = &a * wp.p_a();
        prop_assert!(ap.norm_l2() / (a.norm_l2() * sp) <= C * unit);
    }

    #[test]
    fn weighted_inverse_full_rank_is_eq18((n, m, seed) in full_rank_shape()) {
        let mut rng = Rng::new(seed);
        let a = rand_mat(&mut rng, m, n);
        let mass = spd(&mut rng, n);
        let mut ch = Cholesky::new(n);
        ch.factor(mass.as_ref()).unwrap();
        let mut wp = WeightedProjectors::new(n, m);
        wp.compute(&ch, a.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap();
        prop_assert_eq!(wp.rank(), m);
        let minv = mass.partial_piv_lu().inverse();
        let w18 = &minv * a.transpose() * (&a * &minv * a.transpose()).partial_piv_lu().inverse();
        let s = wp.singular_values();
        let cond = s[0] / s[m - 1];
        // (18) is evaluated through A M⁻¹ Aᵀ, whose condition number is cond²
        let rel = (wp.w() - &w18).norm_l2() / w18.norm_l2();
        prop_assert!(rel / (EPS * n as f64 * cond * cond) <= C, "{n}x{m}: rel {rel:e}, cond {cond:.1e}");
    }

    #[test]
    fn null_space_is_orthonormal_kernel((rows, cols, inner, seed) in shape()) {
        let mut rng = Rng::new(seed);
        let a = low_rank(&mut rng, rows, cols, inner);
        let ns = null_space(a.as_ref(), 0.0, DEFAULT_RANK_RTOL).unwrap();
        prop_assert_eq!(ns.ncols(), cols - inner);
        let k = ns.ncols();
        let size = rows.max(cols) as f64;
        let ortho = ns.transpose() * &ns - Mat::<f64>::identity(k, k);
        prop_assert!(ortho.norm_max() <= C * EPS * size);
        prop_assert!((&a * &ns).norm_l2() <= C * EPS * size * a.norm_l2());
    }

    #[test]
    fn kkt_methods_agree((n, m, seed) in full_rank_shape()) {
        let mut rng = Rng::new(seed);
        let mass = spd(&mut rng, n);
        let j = rand_mat(&mut rng, m, n);
        let f: Vec<f64> = (0..n).map(|_| rng.uniform()).collect();
        let c: Vec<f64> = (0..m).map(|_| rng.uniform()).collect();
        let mut sols = Vec::new();
        for method in [KktMethod::RangeSpace, KktMethod::FullLu] {
            let mut s = KktSolver::new(n, m, method);
            let (mut x, mut l) = (vec![0.0; n], vec![0.0; m]);
            s.solve(mass.as_ref(), j.as_ref(), &f, &c, &mut x, &mut l).unwrap();
            sols.push((x, l));
        }
        let sv = j.as_ref().singular_values().unwrap();
        let cond = sv[0] / sv[m - 1];
        let scale = sols[1].0.iter().chain(&sols[1].1).fold(0.0f64, |a, x| a.max(x.abs()));
        let diff = sols[0].0.iter().zip(&sols[1].0).chain(sols[0].1.iter().zip(&sols[1].1))
            .fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
        prop_assert!(diff / scale <= C * EPS * (n + m) as f64 * cond * cond, "{n}x{m}: {diff:e} cond {cond:.1e}");
    }

    #[test]
    fn kkt_rejects_rank_deficient_jacobian((n, m, seed) in full_rank_shape()) {
        prop_assume!(m >= 2);
        let mut rng = Rng::new(seed);
        let mass = spd(&mut rng, n);
        let j = low_rank(&mut rng, m, n, m - 1);
        for method in [KktMethod::RangeSpace, KktMethod::FullLu] {
            let mut s = KktSolver::new(n, m, method);
            s.set_rank_deficiency(contour_linalg::RankDeficiency::Error);
            let (mut x, mut l) = (vec![0.0; n], vec![0.0; m]);
            let r = s.solve(mass.as_ref(), j.as_ref(), &vec![1.0; n], &vec![1.0; m], &mut x, &mut l);
            let ok = matches!(r, Err(contour_linalg::LinalgError::RankDeficient { rank, required, .. }) if required == m && rank == m - 1);
            prop_assert!(ok, "{method:?} {n}x{m}: {r:?}");
        }
    }

    #[test]
    fn qr_normal_equations((n, m, seed) in full_rank_shape()) {
        // tall n × m
        let mut rng = Rng::new(seed);
        let a = rand_mat(&mut rng, n, m);
        let mut qr = SkinnyQr::new(n, m);
        qr.factor(a.as_ref()).unwrap();
        let r: Vec<f64> = (0..m).map(|_| rng.uniform()).collect();
        let mut d = r.clone();
        qr.solve_normal_in_place(&mut d).unwrap();
        // residual of (AᵀA) d = r, relative to ‖AᵀA‖‖d‖
        let ata = a.transpose() * &a;
        let dc = faer::Col::from_fn(m, |i| d[i]);
        let res = &ata * &dc - faer::Col::from_fn(m, |i| r[i]);
        prop_assert!(res.norm_l2() <= C * EPS * n as f64 * ata.norm_l2() * dc.norm_l2());
    }
}
