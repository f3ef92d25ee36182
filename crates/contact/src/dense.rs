//! Tiny dense kernels on row-major slices for the small systems of contact mechanics
//! (N ≤ 20, a handful of contact rows): Cholesky `A = L Lᵀ` in place and its solve, and
//! Gaussian elimination with partial pivoting. No allocation.

/// In-place Cholesky of the `k×k` row-major SPD matrix `a` (lower triangle overwritten by L).
/// Returns `Err((index, pivot))` when a pivot is not positive.
pub(crate) fn cholesky(a: &mut [f64], k: usize) -> Result<(), (usize, f64)> {
    for j in 0..k {
        let mut d = a[j * k + j];
        for p in 0..j {
            d -= a[j * k + p] * a[j * k + p];
        }
        if d.is_nan() || d <= 0.0 || !d.is_finite() {
            return Err((j, d));
        }
        let d = d.sqrt();
        a[j * k + j] = d;
        for i in j + 1..k {
            let mut s = a[i * k + j];
            for p in 0..j {
                s -= a[i * k + p] * a[j * k + p];
            }
            a[i * k + j] = s / d;
        }
    }
    Ok(())
}

/// Solves `L Lᵀ x = b` in place (`l` from [`cholesky`]).
pub(crate) fn cholesky_solve(l: &[f64], k: usize, x: &mut [f64]) {
    for i in 0..k {
        let mut s = x[i];
        for p in 0..i {
            s -= l[i * k + p] * x[p];
        }
        x[i] = s / l[i * k + i];
    }
    for i in (0..k).rev() {
        let mut s = x[i];
        for p in i + 1..k {
            s -= l[p * k + i] * x[p];
        }
        x[i] = s / l[i * k + i];
    }
}

/// Solves `A x = b` (`k×k` row-major, destroyed) by Gaussian elimination with partial
/// pivoting; `x` holds `b` on entry. Returns `false` when a pivot is below `tol·max|A|`.
pub(crate) fn gauss_solve(a: &mut [f64], k: usize, x: &mut [f64], tol: f64) -> bool {
    let scale = a[..k * k].iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if scale == 0.0 {
        return k == 0;
    }
    for c in 0..k {
        let mut p = c;
        for r in c + 1..k {
            if a[r * k + c].abs() > a[p * k + c].abs() {
                p = r;
            }
        }
        if a[p * k + c].abs() <= tol * scale {
            return false;
        }
        if p != c {
            for j in 0..k {
                a.swap(p * k + j, c * k + j);
            }
            x.swap(p, c);
        }
        for r in c + 1..k {
            let f = a[r * k + c] / a[c * k + c];
            if f != 0.0 {
                for j in c..k {
                    a[r * k + j] -= f * a[c * k + j];
                }
                x[r] -= f * x[c];
            }
        }
    }
    for i in (0..k).rev() {
        let mut s = x[i];
        for j in i + 1..k {
            s -= a[i * k + j] * x[j];
        }
        x[i] = s / a[i * k + i];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cholesky_and_gauss_solve_a_3x3_system() {
        let a = [4.0, 2.0, 0.4, 2.0, 5.0, 1.0, 0.4, 1.0, 3.0];
        let b = [1.0, -2.0, 0.5];
        let mut l = a;
        cholesky(&mut l, 3).unwrap();
        let mut x = b;
        cholesky_solve(&l, 3, &mut x);
        let mut g = a;
        let mut y = b;
        assert!(gauss_solve(&mut g, 3, &mut y, 1e-14));
        for i in 0..3 {
            let r: f64 = (0..3).map(|j| a[i * 3 + j] * x[j]).sum::<f64>() - b[i];
            assert!(r.abs() < 8.0 * f64::EPSILON, "{r}");
            assert!((x[i] - y[i]).abs() < 8.0 * f64::EPSILON);
        }
        let mut bad = [1.0, 2.0, 2.0, 1.0];
        assert!(cholesky(&mut bad, 2).is_err());
    }
}
