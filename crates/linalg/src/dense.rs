//! In-place kernels for small dense matrices stored column-major in contiguous slices
//! (`a[i + j·n]` is `A_ij`), with no per-call dispatch: the sizes that dominate mechanics
//! (`N + L` up to a few tens) are below the sizes where blocking, SIMD dispatch and recursion
//! pay off. [`Cholesky`](crate::Cholesky) and [`KktSolver`](crate::KktSolver) use these kernels
//! up to [`SMALL_MAX`] and faer's above it (the crossover is measured by the `crossover`
//! criterion bench of `contour-benches`).
//!
//! Every kernel here exists once; the workspace types call them.

/// Largest dimension handled by the small-matrix kernels (`n` of a Cholesky, `n + m` of a
/// range-space KKT solve); faer's blocked kernels above it.
///
/// Measured by `cargo bench -p contour-benches --bench crossover` (2026-11-23, 2 shared cores,
/// fastest of 41 batches): Cholesky factor + solve, small / faer, 0.25 / 0.30 µs at n = 8,
/// 0.69 / 0.76 at 16, 1.76 / 1.76 at 24, 2.9 / 2.5 at 32; range-space KKT with m = n/2,
/// 0.52 / 0.60 µs at n + m = 12 and 1.85 / 1.55 at 24. The crossover lies between 16 and 24 for
/// both; 16 keeps every system of the tables (N + L ≤ 13) on the small kernels.
pub const SMALL_MAX: usize = 16;

/// How a workspace chooses between the kernels of this module and faer's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kernel {
    /// The small kernels for `n ≤` [`SMALL_MAX`], faer above (the default).
    #[default]
    Auto,
    /// Always the small kernels of this crate.
    Small,
    /// Always faer's kernels.
    Faer,
}

impl Kernel {
    /// Whether a matrix of dimension `n` uses the small kernels.
    pub fn is_small(self, n: usize) -> bool {
        match self {
            Kernel::Auto => n <= SMALL_MAX,
            Kernel::Small => true,
            Kernel::Faer => false,
        }
    }
}

/// `true` when every entry is finite: one branch-free pass (an `and` of `is_finite`, which
/// vectorizes); callers locate the culprit only after it fails.
#[inline]
pub fn all_finite(x: &[f64]) -> bool {
    x.iter().fold(true, |a, v| a & v.is_finite())
}

/// Copies column `col` of `a` into `dst` (rows `from..`, zero above when `zero_above`),
/// returning whether every entry of the column is finite: a slice copy for contiguous columns.
#[inline]
pub(crate) fn copy_col(a: faer::MatRef<'_, f64>, col: usize, dst: &mut [f64], from: usize) -> bool {
    let c = a.col(col);
    match c.try_as_col_major() {
        Some(src) => {
            let src = src.as_slice();
            dst[..from].fill(0.0);
            dst[from..].copy_from_slice(&src[from..]);
            all_finite(src)
        }
        None => {
            let mut finite = true;
            for (i, d) in dst.iter_mut().enumerate() {
                let v = c[i];
                finite &= v.is_finite();
                *d = if i >= from { v } else { 0.0 };
            }
            finite
        }
    }
}

/// Largest dimension for which the kernels below are compiled with `n` a compile-time
/// constant (fully unrolled loops, no bounds checks): Keerthi's robot (3), Andrews' squeezer
/// and the 7-joint arms (7), their Schur complements (2, 3, 6).
pub const UNROLL_MAX: usize = 8;

/// Evaluates `$body` with `$n` bound to a compile-time constant for `1 ≤ n ≤` [`UNROLL_MAX`]
/// (and to the run-time value above): the bodies are `#[inline(always)]` functions of `n`, so
/// each arm is the one kernel specialized to its size. One copy of each kernel's source.
macro_rules! fixed_n {
    ($n:expr, |$m:ident| $body:expr) => {
        match $n {
            1 => {
                let $m = 1;
                $body
            }
            2 => {
                let $m = 2;
                $body
            }
            3 => {
                let $m = 3;
                $body
            }
            4 => {
                let $m = 4;
                $body
            }
            5 => {
                let $m = 5;
                $body
            }
            6 => {
                let $m = 6;
                $body
            }
            7 => {
                let $m = 7;
                $body
            }
            8 => {
                let $m = 8;
                $body
            }
            $m => $body,
        }
    };
}

/// Cholesky `A = L Lᵀ` in place (left-looking, column by column, Golub & Van Loan Alg. 4.2.2
/// "gaxpy Cholesky"): on entry the lower triangle of the `n × n` column-major `a` holds `A`,
/// on success it holds `L` (the strict upper triangle is not touched) and `inv[j] = 1 / L_jj`,
/// so that the triangular solves multiply instead of divide. A pivot
/// `d_j = A_jj − Σ_{k<j} L_jk² ≤ 0` (or NaN) stops the factorization: `Err((j, d_j))`.
pub(crate) fn cholesky_in_place(
    a: &mut [f64],
    inv: &mut [f64],
    n: usize,
) -> Result<(), (usize, f64)> {
    debug_assert!(a.len() == n * n && inv.len() == n);
    fixed_n!(n, |n| cholesky_body(a, inv, n))
}

#[inline(always)]
fn cholesky_body(a: &mut [f64], inv: &mut [f64], n: usize) -> Result<(), (usize, f64)> {
    let (a, inv) = (&mut a[..n * n], &mut inv[..n]);
    for j in 0..n {
        let (left, right) = a.split_at_mut(j * n);
        let colj = &mut right[j..n];
        // a[j.., j] −= Σ_{k<j} L[j.., k] L[j, k]
        for k in 0..j {
            let colk = &left[k * n + j..k * n + n];
            let ljk = colk[0];
            for (x, l) in colj.iter_mut().zip(colk) {
                *x -= l * ljk;
            }
        }
        let d = colj[0];
        if d.is_nan() || d <= 0.0 {
            return Err((j, d));
        }
        let r = d.sqrt();
        colj[0] = r;
        let rinv = 1.0 / r;
        inv[j] = rinv;
        for x in &mut colj[1..] {
            *x *= rinv;
        }
    }
    Ok(())
}

/// `x ← L⁻¹ x` (forward substitution, column-oriented) for the lower-triangular column-major
/// `l` (`n × n`, only the strict lower triangle read) with `inv[j] = 1 / L_jj`.
pub(crate) fn solve_lower(l: &[f64], inv: &[f64], n: usize, x: &mut [f64]) {
    debug_assert!(l.len() == n * n && x.len() == n && inv.len() == n);
    fixed_n!(n, |n| solve_lower_body(l, inv, n, x))
}

#[inline(always)]
fn solve_lower_body(l: &[f64], inv: &[f64], n: usize, x: &mut [f64]) {
    let (l, inv, x) = (&l[..n * n], &inv[..n], &mut x[..n]);
    for j in 0..n {
        let col = &l[j * n + j..j * n + n];
        let xj = x[j] * inv[j];
        x[j] = xj;
        for (xi, lij) in x[j + 1..].iter_mut().zip(&col[1..]) {
            *xi -= lij * xj;
        }
    }
}

/// `x ← L⁻ᵀ x` (backward substitution with the transpose, dot products over the contiguous
/// columns of `L`), `inv[i] = 1 / L_ii`.
pub(crate) fn solve_lower_transpose(l: &[f64], inv: &[f64], n: usize, x: &mut [f64]) {
    debug_assert!(l.len() == n * n && x.len() == n && inv.len() == n);
    fixed_n!(n, |n| solve_lower_transpose_body(l, inv, n, x))
}

#[inline(always)]
fn solve_lower_transpose_body(l: &[f64], inv: &[f64], n: usize, x: &mut [f64]) {
    let (l, inv, x) = (&l[..n * n], &inv[..n], &mut x[..n]);
    for i in (0..n).rev() {
        let col = &l[i * n + i..i * n + n];
        let mut s = x[i];
        for (lki, xk) in col[1..].iter().zip(&x[i + 1..]) {
            s -= lki * xk;
        }
        x[i] = s * inv[i];
    }
}

/// `Σ a_i b_i` in index order.
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().zip(b) {
        s += x * y;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{spd, Rng};

    #[test]
    fn finiteness_check() {
        for len in 0..11 {
            let mut x = vec![1.5; len];
            assert!(all_finite(&x));
            for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                for i in 0..len {
                    x[i] = bad;
                    assert!(!all_finite(&x), "len {len} at {i}");
                    x[i] = -2.0;
                }
            }
        }
    }

    /// `L Lᵀ = A`, then `L⁻ᵀ L⁻¹ A x = x`, to `c · ε · n · ‖A‖` over seeded sizes.
    #[test]
    fn cholesky_and_triangular_solves() {
        let mut rng = Rng::new(5);
        // every unrolled size, the first general one, and two larger
        for n in (1..=UNROLL_MAX + 1).chain([16, 33]) {
            let a = spd(&mut rng, n);
            let mut l: Vec<f64> = (0..n * n).map(|k| a[(k % n, k / n)]).collect();
            let mut inv = vec![0.0; n];
            cholesky_in_place(&mut l, &mut inv, n).unwrap();
            let lij = |i: usize, j: usize| if i >= j { l[i + j * n] } else { 0.0 };
            let scale = a.norm_max();
            for i in 0..n {
                for j in 0..n {
                    let r: f64 = (0..n).map(|k| lij(i, k) * lij(j, k)).sum();
                    assert!((r - a[(i, j)]).abs() <= 8.0 * f64::EPSILON * n as f64 * scale);
                }
            }
            let xs: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin() + 0.5).collect();
            let mut b: Vec<f64> = (0..n)
                .map(|i| (0..n).map(|k| a[(i, k)] * xs[k]).sum())
                .collect();
            solve_lower(&l, &inv, n, &mut b);
            solve_lower_transpose(&l, &inv, n, &mut b);
            for i in 0..n {
                assert!(
                    (b[i] - xs[i]).abs() <= 1e4 * f64::EPSILON * n as f64,
                    "n = {n}"
                );
            }
        }
    }

    #[test]
    fn cholesky_reports_the_failing_pivot() {
        // [[1, 2], [2, 1]]: d_1 = 1 − 4 = −3
        let mut inv = [0.0; 2];
        let mut a = vec![1.0, 2.0, 2.0, 1.0];
        assert_eq!(cholesky_in_place(&mut a, &mut inv, 2), Err((1, -3.0)));
        let mut z = vec![0.0; 4];
        assert_eq!(cholesky_in_place(&mut z, &mut inv, 2), Err((0, 0.0)));
        let mut nan = vec![f64::NAN, 0.0, 0.0, 1.0];
        assert!(matches!(cholesky_in_place(&mut nan, &mut inv, 2), Err((0, d)) if d.is_nan()));
        assert_eq!(Kernel::default(), Kernel::Auto);
        assert!(Kernel::Auto.is_small(SMALL_MAX) && !Kernel::Auto.is_small(SMALL_MAX + 1));
        assert!(Kernel::Small.is_small(1000) && !Kernel::Faer.is_small(1));
    }
}
