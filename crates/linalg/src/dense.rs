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

/// Copies rows `from..` of column `col` of `a` into `dst[from..]` (`dst[..from]` is not
/// touched: the factorizations read only the lower triangle), returning whether every entry
/// of the column is finite. One element loop that copies and checks (no memset/memcpy call
/// per column: for the columns of a 7 × 7 those calls cost more than the copy).
#[inline]
pub(crate) fn copy_col(a: faer::MatRef<'_, f64>, col: usize, dst: &mut [f64], from: usize) -> bool {
    let c = a.col(col);
    match c.try_as_col_major() {
        Some(src) => {
            let src = src.as_slice();
            let mut finite = all_finite(&src[..from]);
            for (d, v) in dst[from..].iter_mut().zip(&src[from..]) {
                finite &= v.is_finite();
                *d = *v;
            }
            finite
        }
        None => {
            let mut finite = true;
            for i in 0..a.nrows() {
                let v = c[i];
                finite &= v.is_finite();
                if i >= from {
                    dst[i] = v;
                }
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
pub(crate) use fixed_n;

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

/// `A = L D Lᵀ` in place, `L` unit lower triangular (left-looking, column by column, the
/// square-root-free form of Golub & Van Loan Alg. 4.2.2; G&VL §4.1.2, Alg. 4.1.2 computes the
/// same `d_j = A_jj − Σ_{k<j} L_jk² d_k`): on entry the lower triangle of the `n × n`
/// column-major `a` holds `A`, on success its strict lower triangle holds `L`, its diagonal
/// `D`, and `dinv[j] = 1 / d_j` (the strict upper triangle is not touched). Each pivot costs
/// one division and no square root, the latency that dominates the tiny factorizations of
/// mechanics. The pivots are those of the Cholesky factorization (`d_j = L̃_jj²` for
/// `A = L̃ L̃ᵀ`): a pivot `d_j ≤ 0` (or NaN) stops it with `Err((j, d_j))`.
pub(crate) fn ldlt_in_place(a: &mut [f64], dinv: &mut [f64], n: usize) -> Result<(), (usize, f64)> {
    debug_assert!(a.len() == n * n && dinv.len() == n);
    fixed_n!(n, |n| ldlt_body(a, dinv, n))
}

#[inline(always)]
fn ldlt_body(a: &mut [f64], dinv: &mut [f64], n: usize) -> Result<(), (usize, f64)> {
    let (a, dinv) = (&mut a[..n * n], &mut dinv[..n]);
    for j in 0..n {
        let (left, right) = a.split_at_mut(j * n);
        let colj = &mut right[j..n];
        // a[j.., j] −= Σ_{k<j} L[j.., k] (d_k L[j, k])
        for k in 0..j {
            let colk = &left[k * n + j..k * n + n];
            let w = colk[0] * left[k * n + k];
            for (x, l) in colj.iter_mut().zip(colk) {
                *x -= l * w;
            }
        }
        let d = colj[0];
        if d.is_nan() || d <= 0.0 {
            return Err((j, d));
        }
        let r = 1.0 / d;
        dinv[j] = r;
        for x in &mut colj[1..] {
            *x *= r;
        }
    }
    Ok(())
}

/// `x ← L⁻¹ x` for the unit lower-triangular column-major `l` (`n × n`, only the strict lower
/// triangle read): forward substitution, column-oriented, no division.
pub(crate) fn solve_unit_lower(l: &[f64], n: usize, x: &mut [f64]) {
    debug_assert!(l.len() == n * n && x.len() == n);
    fixed_n!(n, |n| solve_unit_lower_body(l, n, x))
}

#[inline(always)]
fn solve_unit_lower_body(l: &[f64], n: usize, x: &mut [f64]) {
    let (l, x) = (&l[..n * n], &mut x[..n]);
    for j in 0..n {
        let xj = x[j];
        let col = &l[j * n + j + 1..j * n + n];
        for (xi, lij) in x[j + 1..].iter_mut().zip(col) {
            *xi -= lij * xj;
        }
    }
}

/// `x ← L⁻ᵀ x` for the unit lower-triangular column-major `l` (backward substitution with
/// dot products over the contiguous columns of `L`), no division.
pub(crate) fn solve_unit_lower_transpose(l: &[f64], n: usize, x: &mut [f64]) {
    debug_assert!(l.len() == n * n && x.len() == n);
    fixed_n!(n, |n| solve_unit_lower_transpose_body(l, n, x))
}

#[inline(always)]
fn solve_unit_lower_transpose_body(l: &[f64], n: usize, x: &mut [f64]) {
    let (l, x) = (&l[..n * n], &mut x[..n]);
    for i in (0..n).rev() {
        let col = &l[i * n + i + 1..i * n + n];
        let mut s = x[i];
        for (lki, xk) in col.iter().zip(&x[i + 1..]) {
            s -= lki * xk;
        }
        x[i] = s;
    }
}

/// `x ← A⁻¹ x` for `A = L D Lᵀ` as left by [`ldlt_in_place`]: `L⁻ᵀ D⁻¹ L⁻¹ x`.
pub(crate) fn ldlt_solve(l: &[f64], dinv: &[f64], n: usize, x: &mut [f64]) {
    solve_unit_lower(l, n, x);
    for (xi, di) in x.iter_mut().zip(dinv) {
        *xi *= di;
    }
    solve_unit_lower_transpose(l, n, x);
}

/// `Σ a_i d_i b_i` in index order (a quadratic form with a diagonal weight).
pub(crate) fn dot_scaled(a: &[f64], d: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for ((x, w), y) in a.iter().zip(d).zip(b) {
        s += x * w * y;
    }
    s
}

/// Writes column `col` of `a` with stride `stride` into `dst` (`dst[i·stride] = a_i,col`: a
/// column of `J` into a row of the column-major `Jᵀ`), returning whether every entry is finite.
#[inline]
pub(crate) fn scatter_col(
    a: faer::MatRef<'_, f64>,
    col: usize,
    dst: &mut [f64],
    stride: usize,
) -> bool {
    let c = a.col(col);
    let mut finite = true;
    match c.try_as_col_major() {
        Some(src) => {
            for (i, v) in src.as_slice().iter().enumerate() {
                finite &= v.is_finite();
                dst[i * stride] = *v;
            }
        }
        None => {
            for i in 0..a.nrows() {
                let v = c[i];
                finite &= v.is_finite();
                dst[i * stride] = v;
            }
        }
    }
    finite
}

/// `y ← y + s · A_{:,j}` for column `j` of a faer matrix (one loop over the contiguous column,
/// an indexed one over a strided view): the column-oriented matrix–vector product `y = A x`
/// as `Σ_j A_{:,j} x_j`, whose entries are summed in the order of `j` like row-oriented dots.
#[inline]
pub fn axpy_col(y: &mut [f64], s: f64, a: faer::MatRef<'_, f64>, j: usize) {
    let c = a.col(j);
    match c.try_as_col_major() {
        Some(src) => {
            for (x, v) in y.iter_mut().zip(src.as_slice()) {
                *x += v * s;
            }
        }
        None => {
            for (i, x) in y.iter_mut().enumerate().take(a.nrows()) {
                *x += c[i] * s;
            }
        }
    }
}

/// `Σ_i A_ij x_i` in index order for column `j` of a faer matrix (`(Aᵀ x)_j`).
#[inline]
pub fn dot_col(a: faer::MatRef<'_, f64>, j: usize, x: &[f64]) -> f64 {
    let c = a.col(j);
    match c.try_as_col_major() {
        Some(src) => dot(src.as_slice(), x),
        None => {
            let mut s = 0.0;
            for (i, xi) in x.iter().enumerate().take(a.nrows()) {
                s += c[i] * xi;
            }
            s
        }
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
    use crate::testing::{rand_mat, spd, Rng};

    /// `axpy_col` / `dot_col` give `A x` and `Aᵀ y` bit for bit like the row-oriented sums in
    /// index order, on contiguous columns and on a strided view (a transpose).
    #[test]
    fn column_products() {
        let mut rng = Rng::new(7);
        for (r, c) in [(1, 1), (3, 5), (7, 6), (9, 2)] {
            let a = rand_mat(&mut rng, r, c);
            let at = a.transpose().to_owned();
            let x: Vec<f64> = (0..c).map(|i| 0.3 - 0.7 * i as f64).collect();
            let y: Vec<f64> = (0..r).map(|i| 1.1 + 0.2 * i as f64).collect();
            for view in [a.as_ref(), at.transpose()] {
                let mut ax = vec![0.0; r];
                for j in 0..c {
                    axpy_col(&mut ax, x[j], view, j);
                }
                for i in 0..r {
                    let mut s = 0.0;
                    for j in 0..c {
                        s += a[(i, j)] * x[j];
                    }
                    assert_eq!(ax[i].to_bits(), s.to_bits(), "{r}x{c} row {i}");
                }
                for j in 0..c {
                    let mut s = 0.0;
                    for i in 0..r {
                        s += a[(i, j)] * y[i];
                    }
                    assert_eq!(
                        dot_col(view, j, &y).to_bits(),
                        s.to_bits(),
                        "{r}x{c} col {j}"
                    );
                }
            }
        }
    }

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

    /// `L D Lᵀ = A` with the pivots of the Cholesky factor (`d_j = L̃_jj²`), and
    /// `ldlt_solve` inverts `A`, over every unrolled size and two general ones.
    #[test]
    fn ldlt_and_unit_triangular_solves() {
        let mut rng = Rng::new(6);
        for n in (1..=UNROLL_MAX + 1).chain([16, 33]) {
            let a = spd(&mut rng, n);
            let col_major: Vec<f64> = (0..n * n).map(|k| a[(k % n, k / n)]).collect();
            let (mut l, mut dinv) = (col_major.clone(), vec![0.0; n]);
            ldlt_in_place(&mut l, &mut dinv, n).unwrap();
            let (mut c, mut inv) = (col_major, vec![0.0; n]);
            cholesky_in_place(&mut c, &mut inv, n).unwrap();
            let lij = |i: usize, j: usize| match i.cmp(&j) {
                std::cmp::Ordering::Greater => l[i + j * n],
                std::cmp::Ordering::Equal => 1.0,
                std::cmp::Ordering::Less => 0.0,
            };
            let scale = a.norm_max();
            for i in 0..n {
                let d = l[i + i * n];
                assert!((d - c[i + i * n].powi(2)).abs() <= 64.0 * f64::EPSILON * n as f64 * scale);
                assert_eq!(dinv[i], 1.0 / d);
                for j in 0..n {
                    let r: f64 = (0..n).map(|k| lij(i, k) * l[k + k * n] * lij(j, k)).sum();
                    assert!((r - a[(i, j)]).abs() <= 8.0 * f64::EPSILON * n as f64 * scale);
                }
            }
            let xs: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin() + 0.5).collect();
            let mut b: Vec<f64> = (0..n)
                .map(|i| (0..n).map(|k| a[(i, k)] * xs[k]).sum())
                .collect();
            ldlt_solve(&l, &dinv, n, &mut b);
            for i in 0..n {
                assert!(
                    (b[i] - xs[i]).abs() <= 1e4 * f64::EPSILON * n as f64,
                    "n = {n}"
                );
            }
        }
        // the failing pivot, as the Cholesky kernel reports it
        let mut dinv = [0.0; 2];
        assert_eq!(
            ldlt_in_place(&mut [1.0, 2.0, 2.0, 1.0], &mut dinv, 2),
            Err((1, -3.0))
        );
        assert_eq!(ldlt_in_place(&mut [0.0; 4], &mut dinv, 2), Err((0, 0.0)));
        let mut nan = [f64::NAN, 0.0, 0.0, 1.0];
        assert!(matches!(ldlt_in_place(&mut nan, &mut dinv, 2), Err((0, d)) if d.is_nan()));
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
