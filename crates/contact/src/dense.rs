//! Gaussian elimination with partial pivoting on a small row-major slice (the `J M⁻¹ G` of
//! the active rows with friction, which may be unsymmetric). No allocation. The Cholesky
//! factorizations of contact use `contour_linalg::Cholesky`.

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
    fn gauss_solves_a_3x3_system() {
        let a = [4.0, 2.0, 0.4, 2.0, 5.0, 1.0, 0.4, 1.0, 3.0];
        let b = [1.0, -2.0, 0.5];
        let mut g = a;
        let mut x = b;
        assert!(gauss_solve(&mut g, 3, &mut x, 1e-14));
        for i in 0..3 {
            let r: f64 = (0..3).map(|j| a[i * 3 + j] * x[j]).sum::<f64>() - b[i];
            assert!(r.abs() < 8.0 * f64::EPSILON, "{r}");
        }
        let mut singular = [1.0, 2.0, 2.0, 4.0];
        assert!(!gauss_solve(&mut singular, 2, &mut [1.0, 1.0], 1e-14));
    }
}
