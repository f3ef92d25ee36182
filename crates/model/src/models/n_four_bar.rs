//! The N four-bar mechanism of the MBS benchmark library, problem A02 (González, Dopico,
//! Lugrís, Cuadrado 2006), in natural coordinates, with the exact reduced solution of its
//! physical branch.

use faer::MatMut;

use crate::autodiff::{AutoDiffModel, Scalar};
use crate::{Mechanism, SparsityPattern};

/// An assembly of `n` four-bar linkages: `n + 1` cranks pivoting at `A_i = (i·l, 0)` and `n`
/// couplers `B_{i−1} B_i`, every bar uniform with length `l` and mass `m`, gravity along −y
/// (A02: `l = 1` m, `m = 1` kg, `g = 9.81` m/s²).
///
/// Natural coordinates `q = (x_0, y_0, …, x_n, y_n)`, the moving points `B_i`
/// (`2n + 2` coordinates); `2n + 1` rows, cranks first, then couplers:
///
/// ```text
/// φ_i       = |B_i − A_i|² − l²          (i = 0 … n)
/// φ_{n+i}   = |B_i − B_{i−1}|² − l²      (i = 1 … n)
/// ```
///
/// A bar with ends `r_a`, `r_b` has `T = m/6 (ṙ_a² + ṙ_a·ṙ_b + ṙ_b²)`, so `M` is constant and
/// block tridiagonal (`m/3` per crank and coupler end on the diagonal, `m/6` between coupler
/// ends), `h` is gravity only (`m g/2` on each moving end of a bar), and `ρ = J̇ q̇ = 2|Ḃ_i|²`
/// for a crank, `2|Ḃ_i − Ḃ_{i−1}|²` for a coupler.
///
/// On the physical branch (a parallelogram) every crank has the same angle θ, with
/// `B_i = A_i + l (cos θ, sin θ)` and the reduced equation
/// `m l² ((n+1)/3 + n) θ̈ = −m g l ((n+1)/2 + n) cos θ` ([`NFourBar::reduced_acceleration`]).
/// At θ = 0 and θ = π every bar is horizontal: `J` loses rank (`n + 1` of `2n + 1` rows) and
/// the degrees of freedom jump from 1 to `n + 1`; other branches cross the physical one there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NFourBar {
    /// Number n of four-bar loops (≥ 1).
    pub loops: usize,
    /// Length l of every bar \[m\] (1).
    pub length: f64,
    /// Mass m of every bar \[kg\] (1).
    pub mass: f64,
    /// Gravitational acceleration along −y \[m/s²\] (9.81).
    pub gravity: f64,
}

impl NFourBar {
    /// A02 with `loops` loops: bars of 1 m and 1 kg, `g = 9.81` m/s².
    pub fn new(loops: usize) -> Self {
        Self {
            loops,
            length: 1.0,
            mass: 1.0,
            gravity: 9.81,
        }
    }

    /// The state on the physical branch with every crank at angle `theta` \[rad\] turning at
    /// `omega` \[rad/s\]; A02 starts at `state(π/2, −1)` (`Ḃ_i = (1, 0)` m/s).
    pub fn state(&self, theta: f64, omega: f64) -> (Vec<f64>, Vec<f64>) {
        let (s, c) = theta.sin_cos();
        let l = self.length;
        let mut q = Vec::with_capacity(2 * self.loops + 2);
        let mut qd = Vec::with_capacity(2 * self.loops + 2);
        for i in 0..=self.loops {
            q.extend([i as f64 * l + l * c, l * s]);
            qd.extend([-l * s * omega, l * c * omega]);
        }
        (q, qd)
    }

    /// Reduced inertia `m l² ((n+1)/3 + n)` of the physical branch \[kg m²\].
    pub fn reduced_inertia(&self) -> f64 {
        let n = self.loops as f64;
        self.mass * self.length * self.length * ((n + 1.0) / 3.0 + n)
    }

    /// Reduced gravity moment amplitude `m g l ((n+1)/2 + n)` \[N m\]: `V = this · sin θ`.
    pub fn reduced_gravity_moment(&self) -> f64 {
        let n = self.loops as f64;
        self.mass * self.gravity * self.length * ((n + 1.0) / 2.0 + n)
    }

    /// `θ̈ = −m g l ((n+1)/2 + n) cos θ / (m l² ((n+1)/3 + n))` on the physical branch.
    pub fn reduced_acceleration(&self, theta: f64) -> f64 {
        -self.reduced_gravity_moment() * theta.cos() / self.reduced_inertia()
    }

    /// The energy `½ I θ̇² + V sin θ` of the physical branch at `(θ, θ̇)` \[J\].
    pub fn reduced_energy(&self, theta: f64, omega: f64) -> f64 {
        0.5 * self.reduced_inertia() * omega * omega + self.reduced_gravity_moment() * theta.sin()
    }

    /// `(θ, θ̇)` of the physical branch at the sorted times `times` (from `t = 0`, where
    /// `(θ, θ̇) = (theta0, omega0)`), by the classical fourth-order Runge–Kutta method on the
    /// reduced equation with `steps_per_unit` fixed steps per second (an independent witness:
    /// no code of the constrained solvers; `2·10⁴` steps per second give about 1e-12 rad
    /// over the 20 s of A02).
    pub fn reduced_solution(
        &self,
        theta0: f64,
        omega0: f64,
        times: &[f64],
        steps_per_unit: usize,
    ) -> Vec<(f64, f64)> {
        super::rk4_reduced(
            |th, _| self.reduced_acceleration(th),
            theta0,
            omega0,
            times,
            steps_per_unit,
        )
    }

    /// Index of the coordinate `x` of point `B_i`.
    fn ix(i: usize) -> usize {
        2 * i
    }
}

impl Mechanism for NFourBar {
    fn validate(&self) -> Result<(), crate::ModelError> {
        if self.loops == 0 {
            return Err(crate::ModelError::InvalidParameter {
                what: "n_four_bar.loops",
                value: 0.0,
            });
        }
        crate::validate::check_positive_parameter("n_four_bar.length", self.length)?;
        crate::validate::check_positive_parameter("n_four_bar.mass", self.mass)?;
        crate::validate::check_finite_parameter("n_four_bar.gravity", self.gravity)?;
        Ok(())
    }
    fn name(&self) -> &str {
        "n-four-bar"
    }
    fn dof(&self) -> usize {
        2 * self.loops + 2
    }
    fn n_constraints(&self) -> usize {
        2 * self.loops + 1
    }
    fn mass_matrix(&self, _q: &[f64], mut m: MatMut<'_, f64>) {
        let n = self.loops;
        let (d, o) = (self.mass / 3.0, self.mass / 6.0);
        m.fill(0.0);
        for i in 0..=n {
            // crank i, and the couplers ending at B_i
            let couplers = usize::from(i > 0) + usize::from(i < n);
            let mii = d * (1 + couplers) as f64;
            for c in 0..2 {
                m[(Self::ix(i) + c, Self::ix(i) + c)] = mii;
                if i > 0 {
                    m[(Self::ix(i) + c, Self::ix(i - 1) + c)] = o;
                    m[(Self::ix(i - 1) + c, Self::ix(i) + c)] = o;
                }
            }
        }
    }
    fn bias_forces(&self, _q: &[f64], _qd: &[f64], h: &mut [f64]) {
        let n = self.loops;
        let w = 0.5 * self.mass * self.gravity;
        for i in 0..=n {
            let couplers = usize::from(i > 0) + usize::from(i < n);
            h[Self::ix(i)] = 0.0;
            h[Self::ix(i) + 1] = w * (1 + couplers) as f64;
        }
    }
    fn constraints(&self, _t: f64, q: &[f64], phi: &mut [f64]) {
        let (n, l) = (self.loops, self.length);
        for i in 0..=n {
            let (dx, dy) = (q[Self::ix(i)] - i as f64 * l, q[Self::ix(i) + 1]);
            phi[i] = dx * dx + dy * dy - l * l;
        }
        for i in 1..=n {
            let dx = q[Self::ix(i)] - q[Self::ix(i - 1)];
            let dy = q[Self::ix(i) + 1] - q[Self::ix(i - 1) + 1];
            phi[n + i] = dx * dx + dy * dy - l * l;
        }
    }
    fn constraint_jacobian(&self, _t: f64, q: &[f64], mut j: MatMut<'_, f64>) {
        let (n, l) = (self.loops, self.length);
        j.fill(0.0);
        for i in 0..=n {
            j[(i, Self::ix(i))] = 2.0 * (q[Self::ix(i)] - i as f64 * l);
            j[(i, Self::ix(i) + 1)] = 2.0 * q[Self::ix(i) + 1];
        }
        for i in 1..=n {
            for c in 0..2 {
                let d = 2.0 * (q[Self::ix(i) + c] - q[Self::ix(i - 1) + c]);
                j[(n + i, Self::ix(i) + c)] = d;
                j[(n + i, Self::ix(i - 1) + c)] = -d;
            }
        }
    }
    fn constraint_accel_bias(&self, _t: f64, _q: &[f64], qd: &[f64], rho: &mut [f64]) {
        let n = self.loops;
        for i in 0..=n {
            let (u, v) = (qd[Self::ix(i)], qd[Self::ix(i) + 1]);
            rho[i] = 2.0 * (u * u + v * v);
        }
        for i in 1..=n {
            let u = qd[Self::ix(i)] - qd[Self::ix(i - 1)];
            let v = qd[Self::ix(i) + 1] - qd[Self::ix(i - 1) + 1];
            rho[n + i] = 2.0 * (u * u + v * v);
        }
    }
    /// `M`: per point coordinate its diagonal and the coupler term to the previous point;
    /// `J`: two entries per crank row, four per coupler row (`4n + 2` and `6n + 2`
    /// entries: O(n)).
    fn sparsity(&self) -> Option<SparsityPattern> {
        let n = self.loops;
        let mut mass = Vec::with_capacity(4 * n + 2);
        for i in 0..=n {
            for c in 0..2 {
                mass.push((Self::ix(i) + c, Self::ix(i) + c));
                if i > 0 {
                    mass.push((Self::ix(i - 1) + c, Self::ix(i) + c));
                }
            }
        }
        let mut jacobian = Vec::with_capacity(8 * n + 2);
        for i in 0..=n {
            jacobian.extend([(i, Self::ix(i)), (i, Self::ix(i) + 1)]);
        }
        for i in 1..=n {
            for c in 0..2 {
                jacobian.extend([(n + i, Self::ix(i) + c), (n + i, Self::ix(i - 1) + c)]);
            }
        }
        Some(SparsityPattern { mass, jacobian })
    }
    fn mass_matrix_values(&self, _q: &[f64], values: &mut [f64]) {
        let n = self.loops;
        let (d, o) = (self.mass / 3.0, self.mass / 6.0);
        let mut p = 0;
        for i in 0..=n {
            let couplers = usize::from(i > 0) + usize::from(i < n);
            for _ in 0..2 {
                values[p] = d * (1 + couplers) as f64;
                p += 1;
                if i > 0 {
                    values[p] = o;
                    p += 1;
                }
            }
        }
    }
    fn constraint_jacobian_values(&self, _t: f64, q: &[f64], values: &mut [f64]) {
        let (n, l) = (self.loops, self.length);
        let mut p = 0;
        for i in 0..=n {
            values[p] = 2.0 * (q[Self::ix(i)] - i as f64 * l);
            values[p + 1] = 2.0 * q[Self::ix(i) + 1];
            p += 2;
        }
        for i in 1..=n {
            for c in 0..2 {
                let d = 2.0 * (q[Self::ix(i) + c] - q[Self::ix(i - 1) + c]);
                values[p] = d;
                values[p + 1] = -d;
                p += 2;
            }
        }
    }
    fn kinetic_energy(&self, _q: &[f64], qd: &[f64]) -> Option<f64> {
        let n = self.loops;
        let (m3, m6) = (self.mass / 3.0, self.mass / 6.0);
        let sq = |i: usize| qd[Self::ix(i)].powi(2) + qd[Self::ix(i) + 1].powi(2);
        // cranks: m/6 |Ḃ_i|²; couplers: m/6 (|Ḃ_a|² + Ḃ_a·Ḃ_b + |Ḃ_b|²)
        let mut t = 0.0;
        for i in 0..=n {
            t += 0.5 * m3 * sq(i);
        }
        for i in 1..=n {
            let dot = qd[Self::ix(i)] * qd[Self::ix(i - 1)]
                + qd[Self::ix(i) + 1] * qd[Self::ix(i - 1) + 1];
            t += 0.5 * m3 * (sq(i) + sq(i - 1)) + m6 * dot;
        }
        Some(t)
    }
    fn potential_energy(&self, q: &[f64]) -> Option<f64> {
        let n = self.loops;
        let w = 0.5 * self.mass * self.gravity;
        let mut v = 0.0;
        for i in 0..=n {
            let couplers = usize::from(i > 0) + usize::from(i < n);
            v += w * (1 + couplers) as f64 * q[Self::ix(i) + 1];
        }
        Some(v)
    }
}

/// A02 written once as energies and constraints for [`crate::autodiff::AutoDiff`]
/// (A02's bars: 1 m, 1 kg, g = 9.81 m/s²): the same mechanism as [`NFourBar`], whose
/// hand-written M, h, J and ρ it reproduces (a unit test checks it). Benchmarks compare the two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NFourBarEnergies {
    /// Number n of four-bar loops (≥ 1).
    pub loops: usize,
}

impl AutoDiffModel for NFourBarEnergies {
    fn dof(&self) -> usize {
        2 * self.loops + 2
    }
    fn n_constraints(&self) -> usize {
        2 * self.loops + 1
    }
    fn kinetic_energy<S: Scalar>(&self, _q: &[S], v: &[S]) -> S {
        let mut t = S::from(0.0);
        for i in 0..=self.loops {
            t += (v[2 * i] * v[2 * i] + v[2 * i + 1] * v[2 * i + 1]) / 6.0;
        }
        for i in 1..=self.loops {
            let (a, b) = (&v[2 * i - 2..2 * i], &v[2 * i..2 * i + 2]);
            t +=
                (a[0] * a[0] + a[1] * a[1] + a[0] * b[0] + a[1] * b[1] + b[0] * b[0] + b[1] * b[1])
                    / 6.0;
        }
        t
    }
    fn potential_energy<S: Scalar>(&self, q: &[S]) -> S {
        let mut v = S::from(0.0);
        for i in 0..=self.loops {
            let ends = 1 + usize::from(i > 0) + usize::from(i < self.loops);
            v += q[2 * i + 1] * (4.905 * ends as f64);
        }
        v
    }
    fn constraints<S: Scalar>(&self, _t: S, q: &[S], phi: &mut [S]) {
        for i in 0..=self.loops {
            let dx = q[2 * i] - i as f64;
            phi[i] = dx * dx + q[2 * i + 1] * q[2 * i + 1] - 1.0;
        }
        for i in 1..=self.loops {
            let (dx, dy) = (q[2 * i] - q[2 * i - 2], q[2 * i + 1] - q[2 * i - 1]);
            phi[self.loops + i] = dx * dx + dy * dy - 1.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{check_accel_bias, check_jacobian, SplitMix64};

    #[test]
    fn n_four_bar_passes_finite_difference_checks_and_matches_the_reduced_energy() {
        for loops in [1usize, 4] {
            let p = NFourBar::new(loops);
            let dim = p.dof();
            let mut rng = SplitMix64::new(3 + loops as u64);
            for _ in 0..5 {
                let q = rng.vector(dim, -1.0, 1.0);
                let qd = rng.vector(dim, -1.0, 1.0);
                let ej = check_jacobian(&p, 0.0, &q).unwrap();
                let er = check_accel_bias(&p, 0.0, &q, &qd).unwrap();
                assert!(ej < 1e-7 && er < 1e-6, "{ej:e} {er:e}");
                // T = ½ q̇ᵀ M q̇
                let mut m = faer::Mat::zeros(dim, dim);
                p.mass_matrix(&q, m.as_mut());
                let mut t = 0.0;
                for a in 0..dim {
                    for b in 0..dim {
                        t += 0.5 * qd[a] * m[(a, b)] * qd[b];
                    }
                }
                let tk = p.kinetic_energy(&q, &qd).unwrap();
                assert!((t - tk).abs() < 1e-14 * (1.0 + t), "{t} {tk}");
            }
            // on the branch: φ = 0, J q̇ = 0, E = the reduced energy
            for th in [0.3, 1.2, -2.0] {
                let (q, qd) = p.state(th, 0.7);
                let (pr, vr) = crate::constraint_residuals(&p, 0.0, &q, &qd).unwrap();
                assert!(pr < 1e-14 && vr < 1e-14, "{pr:e} {vr:e}");
                let e = p.kinetic_energy(&q, &qd).unwrap() + p.potential_energy(&q).unwrap();
                let er = p.reduced_energy(th, 0.7);
                assert!((e - er).abs() < 1e-13 * er.abs().max(1.0), "{e} {er}");
            }
            // rank 2n+1 off the singular positions, n+1 at θ = 0
            let mut j = faer::Mat::zeros(2 * loops + 1, dim);
            p.constraint_jacobian(0.0, &p.state(0.5, 0.0).0, j.as_mut());
            assert_eq!(
                contour_linalg::numerical_rank(j.as_ref(), 0.0, 1e-10).unwrap(),
                2 * loops + 1
            );
            p.constraint_jacobian(0.0, &p.state(0.0, 0.0).0, j.as_mut());
            assert_eq!(
                contour_linalg::numerical_rank(j.as_ref(), 0.0, 1e-10).unwrap(),
                loops + 1
            );
        }
        // A02's energy: E0 = 20.45 J at N = 1 (½·5/3 + 2·9.81)
        assert!(
            (NFourBar::new(1).reduced_energy(std::f64::consts::FRAC_PI_2, -1.0) - 20.4533).abs()
                < 1e-4
        );
    }

    /// At the flat position (θ = 0, rank n + 1 of 2n + 1 rows) the constrained dynamics give
    /// the unique q̈ by the rank-revealing solve: both equations hold, λ is the minimum-norm
    /// one (no component along the null space of Jᵀ), and for n = 1 q̈ is the physical
    /// branch's (`ẍ = −ω²`, `ÿ = θ̈`), also just beside the singular position, where the fast
    /// path cannot certify the rank; with `RankDeficiency::Error` the rank in the error is the
    /// same as the one counted.
    #[test]
    fn constrained_dynamics_at_the_flat_position() {
        use crate::{ConstrainedDynamics, DynamicsOptions, ModelError, RankDeficiency};
        for loops in [1usize, 4] {
            let p = NFourBar::new(loops);
            let (n, l) = (p.dof(), p.n_constraints());
            let mut d = ConstrainedDynamics::new(&p);
            let (q, qd) = p.state(0.0, -3.0);
            let (mut qdd, mut lambda) = (vec![0.0; n], vec![0.0; l]);
            d.accelerations(&p, 0.0, &q, &qd, &mut qdd, &mut lambda)
                .unwrap();
            assert_eq!((d.rank_revealing_solves(), d.last_rank()), (1, loops + 1));
            let (mut m, mut j) = (faer::Mat::zeros(n, n), faer::Mat::zeros(l, n));
            let (mut h, mut rho) = (vec![0.0; n], vec![0.0; l]);
            p.mass_matrix(&q, m.as_mut());
            p.constraint_jacobian(0.0, &q, j.as_mut());
            p.bias_forces(&q, &qd, &mut h);
            p.constraint_accel_bias(0.0, &q, &qd, &mut rho);
            for i in 0..l {
                let r: f64 = (0..n).map(|k| j[(i, k)] * qdd[k]).sum::<f64>() + rho[i];
                assert!(r.abs() < 1e-12, "J qdd + rho = {r:e}");
            }
            for k in 0..n {
                let r: f64 = (0..n).map(|c| m[(k, c)] * qdd[c]).sum::<f64>() + h[k]
                    - (0..l).map(|i| j[(i, k)] * lambda[i]).sum::<f64>();
                assert!(r.abs() < 1e-12, "M qdd + h - J^T lambda = {r:e}");
            }
            // null(Jᵀ) at θ = 0: coupler i = crank i − crank i−1, i.e. e_{n+i} − e_i + e_{i−1}
            for i in 1..=loops {
                let along = lambda[loops + i] - lambda[i] + lambda[i - 1];
                assert!(along.abs() < 1e-10, "{lambda:?}");
            }
            let mut e = ConstrainedDynamics::with_options(
                &p,
                DynamicsOptions {
                    rank_deficiency: RankDeficiency::Error,
                    ..Default::default()
                },
            )
            .unwrap();
            let err = e
                .accelerations(&p, 0.0, &q, &qd, &mut qdd, &mut lambda)
                .unwrap_err();
            assert!(
                matches!(err, ModelError::RankDeficientJacobian { rank, rows, .. } if rank == loops + 1 && rows == l),
                "{err}"
            );
        }
        let p = NFourBar::new(1);
        let mut d = ConstrainedDynamics::new(&p);
        for th in [0.0, 1e-9, -1e-8] {
            let w = -3.0;
            let (q, qd) = p.state(th, w);
            let (mut qdd, mut lambda) = ([0.0; 4], [0.0; 3]);
            d.accelerations(&p, 0.0, &q, &qd, &mut qdd, &mut lambda)
                .unwrap();
            let a = p.reduced_acceleration(th);
            let (s, c) = th.sin_cos();
            for i in 0..2 {
                assert!(
                    (qdd[2 * i] - (-s * a - c * w * w)).abs() < 1e-6,
                    "{th}: {qdd:?}"
                );
                assert!(
                    (qdd[2 * i + 1] - (c * a - s * w * w)).abs() < 1e-6,
                    "{th}: {qdd:?}"
                );
            }
        }
        assert_eq!(d.rank_revealing_solves(), 3);
    }

    /// The declared pattern holds every nonzero of the dense `M` and `J`, and the values in
    /// pattern order are the dense ones.
    #[test]
    fn sparsity_pattern_and_values_match_the_dense_matrices() {
        for loops in [1usize, 3] {
            let p = NFourBar::new(loops);
            let (n, l) = (p.dof(), p.n_constraints());
            let sp = p.sparsity().unwrap();
            let q = SplitMix64::new(9).vector(n, -1.0, 1.0);
            let (mut m, mut j) = (faer::Mat::zeros(n, n), faer::Mat::zeros(l, n));
            p.mass_matrix(&q, m.as_mut());
            p.constraint_jacobian(0.0, &q, j.as_mut());
            let mut mv = vec![0.0; sp.mass.len()];
            let mut jv = vec![0.0; sp.jacobian.len()];
            p.mass_matrix_values(&q, &mut mv);
            p.constraint_jacobian_values(0.0, &q, &mut jv);
            let mut ms = faer::Mat::<f64>::zeros(n, n);
            for (&(r, c), &v) in sp.mass.iter().zip(&mv) {
                assert!(r <= c);
                ms[(r, c)] += v;
                if r != c {
                    ms[(c, r)] += v;
                }
            }
            let mut js = faer::Mat::<f64>::zeros(l, n);
            for (&(r, c), &v) in sp.jacobian.iter().zip(&jv) {
                js[(r, c)] += v;
            }
            assert_eq!((&ms - &m).norm_max(), 0.0);
            assert_eq!((&js - &j).norm_max(), 0.0);
        }
    }

    /// The reduced solution conserves the reduced energy and converges at fourth order.
    #[test]
    fn reduced_solution_conserves_energy() {
        let p = NFourBar::new(4);
        let th0 = std::f64::consts::FRAC_PI_2;
        let times: Vec<f64> = (1..=40).map(|k| 0.5 * k as f64).collect();
        let fine = p.reduced_solution(th0, -1.0, &times, 20_000);
        let coarse = p.reduced_solution(th0, -1.0, &times, 2_000);
        let e0 = p.reduced_energy(th0, -1.0);
        let mut d = 0.0f64;
        for ((a, b), (c, _)) in fine.iter().zip(&coarse) {
            assert!((p.reduced_energy(*a, *b) - e0).abs() < 1e-10 * e0);
            d = d.max((a - c).abs());
        }
        // coarse error ~1e4 × fine error; coarse itself is below 1e-7 rad
        assert!(d < 1e-7 && d > 0.0, "{d:e}");
    }

    #[test]
    fn the_energy_model_gives_the_hand_written_dynamics() {
        use crate::autodiff::AutoDiff;
        for loops in [1usize, 3] {
            let p = NFourBar::new(loops);
            let ad = AutoDiff::new(NFourBarEnergies { loops });
            let dim = p.dof();
            let l = p.n_constraints();
            assert_eq!((ad.dof(), ad.n_constraints()), (dim, l));
            let mut rng = SplitMix64::new(11 + loops as u64);
            let q = rng.vector(dim, -1.0, 1.0);
            let qd = rng.vector(dim, -1.0, 1.0);
            let (mut m1, mut m2) = (faer::Mat::zeros(dim, dim), faer::Mat::zeros(dim, dim));
            p.mass_matrix(&q, m1.as_mut());
            ad.mass_matrix(&q, m2.as_mut());
            let (mut h1, mut h2) = (vec![0.0; dim], vec![0.0; dim]);
            p.bias_forces(&q, &qd, &mut h1);
            ad.bias_forces(&q, &qd, &mut h2);
            let (mut j1, mut j2) = (faer::Mat::zeros(l, dim), faer::Mat::zeros(l, dim));
            p.constraint_jacobian(0.0, &q, j1.as_mut());
            ad.constraint_jacobian(0.0, &q, j2.as_mut());
            let (mut r1, mut r2) = (vec![0.0; l], vec![0.0; l]);
            p.constraint_accel_bias(0.0, &q, &qd, &mut r1);
            ad.constraint_accel_bias(0.0, &q, &qd, &mut r2);
            let d = |a: &[f64], b: &[f64]| {
                a.iter()
                    .zip(b)
                    .map(|(x, y)| (x - y).abs())
                    .fold(0.0, f64::max)
            };
            let dm = (&m1 - &m2).norm_max();
            let dj = (&j1 - &j2).norm_max();
            assert!(dm < 1e-13 && dj < 1e-13, "M {dm:e}, J {dj:e}");
            assert!(
                d(&h1, &h2) < 1e-12 && d(&r1, &r2) < 1e-12,
                "h {:e}, rho {:e}",
                d(&h1, &h2),
                d(&r1, &r2)
            );
        }
    }
}
