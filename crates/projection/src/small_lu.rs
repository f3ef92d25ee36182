//! LU with partial pivoting of a small dense square matrix in preallocated storage
//! (`J V₁` of the parametrization, L × L). No allocation after `new`.

/// `P A = L U` of an `n × n` matrix stored row-major.
#[derive(Debug, Clone)]
pub(crate) struct SmallLu {
    n: usize,
    pub a: Vec<f64>,
    piv: Vec<usize>,
}

impl SmallLu {
    pub fn new(n: usize) -> Self {
        Self {
            n,
            a: vec![0.0; n * n],
            piv: vec![0; n],
        }
    }

    /// Factors `self.a` in place; `Err(pivot)` when a pivot is `≤ rtol · max|aᵢⱼ|` (or not finite).
    pub fn factor(&mut self, rtol: f64) -> Result<(), f64> {
        let n = self.n;
        let amax = self.a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if !amax.is_finite() {
            return Err(f64::NAN);
        }
        for k in 0..n {
            let mut p = k;
            let mut best = self.a[k * n + k].abs();
            for i in k + 1..n {
                let v = self.a[i * n + k].abs();
                if v > best {
                    best = v;
                    p = i;
                }
            }
            if best <= rtol * amax || best == 0.0 {
                return Err(self.a[p * n + k]);
            }
            self.piv[k] = p;
            if p != k {
                for j in 0..n {
                    self.a.swap(k * n + j, p * n + j);
                }
            }
            let d = self.a[k * n + k];
            for i in k + 1..n {
                let f = self.a[i * n + k] / d;
                self.a[i * n + k] = f;
                for j in k + 1..n {
                    self.a[i * n + j] -= f * self.a[k * n + j];
                }
            }
        }
        Ok(())
    }

    /// Solves `A x = b` in place (after [`SmallLu::factor`]).
    pub fn solve(&self, x: &mut [f64]) {
        let n = self.n;
        for k in 0..n {
            x.swap(k, self.piv[k]);
        }
        for i in 0..n {
            let mut s = x[i];
            for j in 0..i {
                s -= self.a[i * n + j] * x[j];
            }
            x[i] = s;
        }
        for i in (0..n).rev() {
            let mut s = x[i];
            for j in i + 1..n {
                s -= self.a[i * n + j] * x[j];
            }
            x[i] = s / self.a[i * n + i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_with_pivoting() {
        let mut lu = SmallLu::new(3);
        lu.a = vec![0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0];
        lu.factor(1e-14).unwrap();
        let mut x = [3.0, 2.0, 4.0]; // A (1,1,1)
        lu.solve(&mut x);
        for v in x {
            assert!((v - 1.0).abs() < 1e-14, "{x:?}");
        }
        let mut s = SmallLu::new(2);
        s.a = vec![1.0, 2.0, 2.0, 4.0];
        assert!(s.factor(1e-12).is_err());
    }
}
