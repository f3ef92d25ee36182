//! Lemke's complementary pivoting method for `w = A z + b ≥ 0, z ≥ 0, zᵀw = 0` (Cottle, Pang &
//! Stone, *The Linear Complementarity Problem*, 1992, Algorithm 4.4.5), with any size: the
//! augmented problem `w − A z − e z₀ = b` (covering vector `e = 1`) starts from the almost
//! complementary basis `{w}` with `z₀ = −min bᵢ`; each pivot brings in the complement of the
//! variable that left, until `z₀` leaves (a solution) or no variable blocks the entering one
//! (ray termination: for a copositive-plus `A`, e.g. positive semidefinite or the friction
//! LCP of time-stepping, the problem then has no solution, Cottle–Pang–Stone Theorem 4.4.13).
//! Ties in the ratio test are broken lexicographically on the rows of `B⁻¹` (which the
//! tableau carries in its first `n` columns), so the method cannot cycle on degenerate
//! problems (Cottle–Pang–Stone §4.9); a pivot limit guards against round-off anyway.

use crate::error::ContactError;

/// Workspace of Lemke's method: the dense tableau `[B⁻¹ | −B⁻¹A | −B⁻¹e | B⁻¹b]` (`n` rows,
/// `2n + 2` columns) and the basis, allocated for `capacity` rows and grown (once) when a
/// larger problem comes.
#[derive(Debug, Clone)]
pub struct Lemke {
    capacity: usize,
    tab: Vec<f64>,
    /// Basic variable of each row: `0..n` the `wᵢ`, `n..2n` the `zᵢ`, `2n` the artificial `z₀`.
    basis: Vec<usize>,
    /// Pivots of the last solve.
    pivots: usize,
    /// Relative tolerance of the pivot entries and the ratio ties (default `1e-12`).
    pub tol: f64,
    /// The pivot limit is `pivots_per_row · (n + 1)` (default 50): Lemke's method needs about
    /// `n` pivots on the problems of contact; reaching the limit is
    /// [`ContactError::LcpPivotLimit`].
    pub pivots_per_row: usize,
}

impl Lemke {
    /// A workspace for problems of up to `capacity` rows (larger ones grow it).
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            tab: vec![0.0; capacity * (2 * capacity + 2)],
            basis: vec![0; capacity],
            pivots: 0,
            tol: 1e-12,
            pivots_per_row: 50,
        }
    }

    /// Number of pivots of the last [`Lemke::solve`].
    pub fn pivots(&self) -> usize {
        self.pivots
    }

    /// Solves `w = A z + b ≥ 0, z ≥ 0, zᵀw = 0` for the `n×n` row-major `a`: `z` and `w`
    /// (length `n`) receive the solution (`w` recomputed as `A z + b`).
    ///
    /// Errors: [`ContactError::DimensionMismatch`], [`ContactError::NonFinite`] for the data;
    /// [`ContactError::LcpRayTermination`] when the method ends on a ray (no solution for a
    /// copositive-plus `A`); [`ContactError::LcpPivotLimit`].
    pub fn solve(
        &mut self,
        a: &[f64],
        b: &[f64],
        z: &mut [f64],
        w: &mut [f64],
    ) -> Result<(), ContactError> {
        let n = b.len();
        for (name, s, len) in [("a", a, n * n), ("z", &*z, n), ("w", &*w, n)] {
            if s.len() != len {
                return Err(ContactError::DimensionMismatch {
                    what: name,
                    expected: len,
                    found: s.len(),
                });
            }
        }
        if let Some(i) = a.iter().chain(b).position(|v| !v.is_finite()) {
            return Err(ContactError::NonFinite {
                what: "lcp data",
                index: i,
            });
        }
        self.pivots = 0;
        z.fill(0.0);
        if b.iter().all(|&x| x >= 0.0) {
            w.copy_from_slice(b);
            return Ok(());
        }
        if n > self.capacity {
            *self = Self {
                tol: self.tol,
                pivots_per_row: self.pivots_per_row,
                ..Self::new(n)
            };
        }
        let width = 2 * n + 2;
        let (z0, rhs) = (2 * n, 2 * n + 1);
        let scale = a.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        let piv_tol = self.tol * scale;
        let tab = &mut self.tab[..n * width];
        tab.fill(0.0);
        for i in 0..n {
            let row = &mut tab[i * width..(i + 1) * width];
            row[i] = 1.0;
            for j in 0..n {
                row[n + j] = -a[i * n + j];
            }
            row[z0] = -1.0;
            row[rhs] = b[i];
            self.basis[i] = i;
        }
        // z₀ enters at −min bᵢ; among tied rows the last (the lexicographic rule with B⁻¹ = 1)
        let mut r = 0;
        for i in 1..n {
            if b[i] <= b[r] {
                r = i;
            }
        }
        let limit = self.pivots_per_row.saturating_mul(n + 1);
        let mut entering = z0;
        loop {
            if self.pivots >= limit {
                return Err(ContactError::LcpPivotLimit { size: n, limit });
            }
            let leaving = self.basis[r];
            pivot(tab, width, n, r, entering);
            self.basis[r] = entering;
            self.pivots += 1;
            if leaving == z0 {
                break;
            }
            // the complement of the variable that left enters
            entering = if leaving < n {
                leaving + n
            } else {
                leaving - n
            };
            r = match ratio_test(tab, width, n, entering, &self.basis, piv_tol, self.tol) {
                Some(r) => r,
                None => {
                    return Err(ContactError::LcpRayTermination {
                        size: n,
                        pivots: self.pivots,
                    })
                }
            };
        }
        for i in 0..n {
            let v = self.basis[i];
            if (n..2 * n).contains(&v) {
                z[v - n] = tab[i * width + rhs].max(0.0);
            }
        }
        for i in 0..n {
            w[i] = b[i] + (0..n).map(|j| a[i * n + j] * z[j]).sum::<f64>();
        }
        Ok(())
    }
}

/// Gauss–Jordan pivot of the tableau on `(r, c)`.
fn pivot(tab: &mut [f64], width: usize, n: usize, r: usize, c: usize) {
    let p = tab[r * width + c];
    for x in &mut tab[r * width..(r + 1) * width] {
        *x /= p;
    }
    for i in 0..n {
        if i == r {
            continue;
        }
        let f = tab[i * width + c];
        if f == 0.0 {
            continue;
        }
        let (lo, hi) = tab.split_at_mut(i.max(r) * width);
        let (row_i, row_r) = if i < r {
            (&mut lo[i * width..(i + 1) * width], &hi[..width])
        } else {
            (&mut hi[..width], &lo[r * width..(r + 1) * width])
        };
        for (x, y) in row_i.iter_mut().zip(row_r) {
            *x -= f * y;
        }
        row_i[c] = 0.0;
    }
}

/// The blocking row for the entering column `c`: the least ratio `rhsᵢ / Tᵢc` over `Tᵢc > 0`;
/// among ties the row of `z₀` when it is one, otherwise the lexicographically least row of
/// `B⁻¹ / Tᵢc`. `None`: no row blocks (a ray).
fn ratio_test(
    tab: &[f64],
    width: usize,
    n: usize,
    c: usize,
    basis: &[usize],
    piv_tol: f64,
    tol: f64,
) -> Option<usize> {
    let rhs = width - 1;
    let mut best: Option<(usize, f64)> = None;
    for i in 0..n {
        let t = tab[i * width + c];
        if t <= piv_tol {
            continue;
        }
        let ratio = tab[i * width + rhs].max(0.0) / t;
        best = match best {
            None => Some((i, ratio)),
            Some((k, rk)) => {
                let tie = tol * (1.0 + rk.abs());
                let tied = ratio <= rk + tie && prefer(tab, width, n, basis, c, i, k);
                if ratio < rk - tie || tied {
                    Some((i, ratio))
                } else {
                    Some((k, rk))
                }
            }
        };
    }
    best.map(|(i, _)| i)
}

/// Among two tied rows, whether row `i` leaves rather than row `k`: `z₀` first, then the
/// lexicographically smaller row of `B⁻¹ / T·c`.
fn prefer(
    tab: &[f64],
    width: usize,
    n: usize,
    basis: &[usize],
    c: usize,
    i: usize,
    k: usize,
) -> bool {
    let z0 = 2 * n;
    if basis[k] == z0 {
        return false;
    }
    if basis[i] == z0 {
        return true;
    }
    let (ti, tk) = (tab[i * width + c], tab[k * width + c]);
    for j in 0..n {
        let (x, y) = (tab[i * width + j] / ti, tab[k * width + j] / tk);
        if x < y {
            return true;
        }
        if x > y {
            return false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lcp::Lcp;

    /// A seeded generator (SplitMix64) for the random problems.
    fn rng(seed: u64) -> impl FnMut() -> f64 {
        let mut s = seed;
        move || {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut x = s;
            x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            x ^= x >> 31;
            (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
    }

    /// `A = G Gᵀ + δ 1` (symmetric positive definite: one solution).
    fn spd(n: usize, r: &mut impl FnMut() -> f64, delta: f64) -> Vec<f64> {
        let g: Vec<f64> = (0..n * n).map(|_| r()).collect();
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] = (0..n).map(|k| g[i * n + k] * g[j * n + k]).sum::<f64>();
            }
            a[i * n + i] += delta;
        }
        a
    }

    fn check(a: &[f64], b: &[f64], z: &[f64], w: &[f64], tol: f64) {
        let n = b.len();
        for i in 0..n {
            let wi = b[i] + (0..n).map(|j| a[i * n + j] * z[j]).sum::<f64>();
            assert!((wi - w[i]).abs() <= tol);
            assert!(
                z[i] >= 0.0 && w[i] >= -tol && (z[i] * w[i]).abs() <= tol,
                "row {i}: z {} w {}",
                z[i],
                w[i]
            );
        }
    }

    #[test]
    fn lemke_and_enumeration_agree_on_random_positive_definite_problems() {
        let mut r = rng(7);
        let (mut lemke, mut enumeration) = (Lemke::new(2), Lcp::new(8));
        for n in 1..=8 {
            for _ in 0..25 {
                let a = spd(n, &mut r, 0.1);
                let b: Vec<f64> = (0..n).map(|_| 2.0 * r()).collect();
                let (mut z1, mut w1, mut z2, mut w2) =
                    (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
                lemke.solve(&a, &b, &mut z1, &mut w1).unwrap();
                enumeration.solve(&a, &b, &mut z2, &mut w2).unwrap();
                check(&a, &b, &z1, &w1, 1e-11);
                for i in 0..n {
                    assert!((z1[i] - z2[i]).abs() < 1e-10, "n {n}: {z1:?} vs {z2:?}");
                }
            }
        }
    }

    #[test]
    fn lemke_solves_a_forty_row_problem() {
        let mut r = rng(40);
        let n = 40;
        let a = spd(n, &mut r, 0.01);
        let b: Vec<f64> = (0..n).map(|_| r()).collect();
        let (mut z, mut w) = (vec![0.0; n], vec![0.0; n]);
        let mut lemke = Lemke::new(n);
        lemke.solve(&a, &b, &mut z, &mut w).unwrap();
        check(&a, &b, &z, &w, 1e-9);
        assert!(z.iter().filter(|&&x| x > 0.0).count() > 5);
        assert!(lemke.pivots() <= 2 * n);
    }

    #[test]
    fn a_problem_without_solution_ends_on_a_ray() {
        // w = −z − 1 ≥ 0 has no solution with z ≥ 0
        let mut lemke = Lemke::new(1);
        let e = lemke.solve(&[-1.0], &[-1.0], &mut [0.0], &mut [0.0]);
        assert!(
            matches!(e, Err(ContactError::LcpRayTermination { size: 1, .. })),
            "{e:?}"
        );
        let e = lemke.solve(&[1.0], &[f64::NAN], &mut [0.0], &mut [0.0]);
        assert!(matches!(e, Err(ContactError::NonFinite { .. })));
        lemke.pivots_per_row = 0;
        let e = lemke.solve(&[1.0], &[-1.0], &mut [0.0], &mut [0.0]);
        assert!(matches!(e, Err(ContactError::LcpPivotLimit { .. })));
    }

    #[test]
    fn a_degenerate_problem_is_solved() {
        // every row tied at the start and a singular A (two equal rows)
        let a = [1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 2.0];
        let b = [-1.0, -1.0, -1.0];
        let (mut z, mut w) = ([0.0; 3], [0.0; 3]);
        Lemke::new(3).solve(&a, &b, &mut z, &mut w).unwrap();
        check(&a, &b, &z, &w, 1e-12);
    }
}
