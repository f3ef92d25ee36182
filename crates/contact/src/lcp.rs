//! The linear complementarity problem of several unilateral rows (beyond the thesis, its
//! chapter-7 list): find `z ≥ 0` with
//!
//! ```text
//! w = A z + b ≥ 0,   z ≥ 0,   zᵀ w = 0
//! ```
//!
//! At the velocity level (impacts) `z = ξ` (impulses), `A = J M⁻¹ Jᵀ`, `b = (1 + e) J q̇⁻`
//! (Newton's law `J q̇⁺ ≥ −e J q̇⁻`); at the acceleration level `z = λ`, `b = J M⁻¹(u − h) + ρ`
//! (the contact force of Huang (2.3.2) for each row, with λ ≥ 0 and `J q̈ + ρ ≥ 0`).
//! [`Lcp::solve`] enumerates the `2ᵏ` active sets (exact for small `k`, at most
//! [`LCP_MAX_SIZE`]) and returns the first complementary feasible one; for a symmetric positive
//! definite `A` the solution is unique. No solution → [`ContactError::LcpNoSolution`].
//! [`Lemke`] (in `lcp/lemke.rs`) solves the same problem of any size by complementary pivoting.

mod lemke;

pub use lemke::Lemke;

use crate::error::ContactError;
use contour_linalg::Lu;
use faer::MatRef;

/// Largest LCP handled by enumeration.
pub const LCP_MAX_SIZE: usize = 12;

/// Workspace of the enumeration LCP solver (allocated once, for sizes up to `capacity`).
#[derive(Debug, Clone)]
pub struct Lcp {
    capacity: usize,
    a_ss: Vec<f64>,
    x: Vec<f64>,
    idx: Vec<usize>,
    /// LU workspaces for the principal submatrices, one per size `m = 1..=capacity`.
    lu: Vec<Lu>,
    /// Relative feasibility tolerance (default `1e-12`).
    pub tol: f64,
}

impl Lcp {
    /// Workspace for LCPs of size ≤ `capacity` (at most [`LCP_MAX_SIZE`]: a larger capacity
    /// allocates for [`LCP_MAX_SIZE`], and [`Lcp::solve`] refuses larger problems).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.min(LCP_MAX_SIZE);
        Self {
            capacity,
            a_ss: vec![0.0; capacity * capacity],
            x: vec![0.0; capacity],
            idx: vec![0; capacity],
            lu: (1..=capacity).map(Lu::new).collect(),
            tol: 1e-12,
        }
    }

    /// Solves `w = A z + b ≥ 0, z ≥ 0, zᵀw = 0` for the `k×k` row-major `a` by enumeration of the
    /// active sets (smallest first): `z` and `w` (length `k`) receive the solution.
    pub fn solve(
        &mut self,
        a: &[f64],
        b: &[f64],
        z: &mut [f64],
        w: &mut [f64],
    ) -> Result<(), ContactError> {
        let k = b.len();
        if k > LCP_MAX_SIZE || k > self.capacity {
            return Err(ContactError::LcpTooLarge {
                size: k,
                limit: LCP_MAX_SIZE.min(self.capacity),
            });
        }
        for (name, s, len) in [("a", a, k * k), ("z", &*z, k), ("w", &*w, k)] {
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
        let scale = b
            .iter()
            .chain(a)
            .fold(0.0f64, |m, v| m.max(v.abs()))
            .max(f64::MIN_POSITIVE);
        let tol = self.tol * scale;
        let mut best = f64::INFINITY;
        // Masks ordered by number of active rows: fewer contacts first.
        for count in 0..=k {
            for mask in 0u32..(1u32 << k) {
                if mask.count_ones() as usize != count {
                    continue;
                }
                let mut m = 0;
                for i in 0..k {
                    if mask & (1 << i) != 0 {
                        self.idx[m] = i;
                        m += 1;
                    }
                }
                for r in 0..m {
                    for c in 0..m {
                        self.a_ss[r * m + c] = a[self.idx[r] * k + self.idx[c]];
                    }
                    self.x[r] = -b[self.idx[r]];
                }
                if m > 0 {
                    let a_ss = MatRef::from_row_major_slice(&self.a_ss[..m * m], m, m);
                    let lu = &mut self.lu[m - 1];
                    if lu.factor_with_rtol(a_ss, 1e-13).is_err() {
                        continue; // singular principal submatrix: not this active set
                    }
                    lu.solve_in_place(&mut self.x[..m]);
                }
                z.fill(0.0);
                for r in 0..m {
                    z[self.idx[r]] = self.x[r];
                }
                let mut viol = 0.0f64;
                for i in 0..k {
                    let wi = b[i] + (0..k).map(|j| a[i * k + j] * z[j]).sum::<f64>();
                    w[i] = wi;
                    // a NaN (an overflowing solve) is a violation, kept: f64::max drops it
                    viol = if viol.is_nan() || z[i].is_nan() || wi.is_nan() {
                        f64::NAN
                    } else {
                        viol.max(-z[i]).max(-wi)
                    };
                }
                if viol <= tol {
                    for i in 0..k {
                        if mask & (1 << i) != 0 {
                            w[i] = 0.0;
                        }
                        z[i] = z[i].max(0.0);
                        w[i] = w[i].max(0.0);
                    }
                    return Ok(());
                }
                best = best.min(viol);
            }
        }
        Err(ContactError::LcpNoSolution {
            size: k,
            violation: best,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_row_lcp_has_the_expected_active_set() {
        let mut lcp = Lcp::new(4);
        let a = [2.0, 1.0, 1.0, 2.0];
        // both rows pushed: z = A⁻¹(−b) = (1, 1) for b = (−3, −3)
        let (mut z, mut w) = ([0.0; 2], [0.0; 2]);
        lcp.solve(&a, &[-3.0, -3.0], &mut z, &mut w).unwrap();
        assert!((z[0] - 1.0).abs() < 1e-15 && (z[1] - 1.0).abs() < 1e-15);
        // second row separating: z = (1.5, 0), w2 = 1.5 + 1 = 2.5 with b = (−3, 1)
        lcp.solve(&a, &[-3.0, 1.0], &mut z, &mut w).unwrap();
        assert!((z[0] - 1.5).abs() < 1e-15 && z[1] == 0.0 && (w[1] - 2.5).abs() < 1e-15);
    }

    #[test]
    fn lcp_without_solution_is_a_typed_error() {
        let mut lcp = Lcp::new(2);
        // w = −z − 1 can never be ≥ 0 with z ≥ 0
        let e = lcp.solve(&[-1.0], &[-1.0], &mut [0.0], &mut [0.0]);
        assert!(matches!(
            e,
            Err(ContactError::LcpNoSolution { size: 1, .. })
        ));
        let e = lcp.solve(&[1.0], &[f64::NAN], &mut [0.0], &mut [0.0]);
        assert!(matches!(e, Err(ContactError::NonFinite { .. })));
    }

    /// An active set whose solve overflows (`z = (∞, ∞)`, `w₁ = ∞ − ∞ = NaN`) is not taken as
    /// a solution: the NaN violation is kept, not dropped by `f64::max`.
    #[test]
    fn an_overflowing_active_set_is_no_solution() {
        let mut lcp = Lcp::new(2);
        let a = [1e-300, -1e-300, 0.0, 1e-300];
        let (mut z, mut w) = ([0.0; 2], [0.0; 2]);
        match lcp.solve(&a, &[-1e300, -1e300], &mut z, &mut w) {
            Ok(()) => assert!(
                z.iter().chain(&w).all(|v| v.is_finite()),
                "z = {z:?}, w = {w:?}"
            ),
            Err(e) => assert!(matches!(e, ContactError::LcpNoSolution { .. }), "{e:?}"),
        }
    }
}
