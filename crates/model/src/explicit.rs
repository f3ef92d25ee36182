//! Explicit constraints `q = γ(y)` and the forward dynamics `FDgq` of
//! spatial_v2 (Featherstone, "Describing Constraints with gamma_q",
//! `papers/004`; RBDA §3.2, §8.3).
//!
//! ```text
//! q = γ(y),  q̇ = G ẏ,  q̈ = G ÿ + g,   G = ∂γ/∂y,  g = Ġ ẏ
//! gs = g + gstab,  gstab = 2/T_stab (q̇ − q̇_o) + 1/T_stab² (q − q_o)
//! Gᵀ H G ÿ = Gᵀ (τ − C − H gs),   q̈ = G ÿ + gs          (FDgq)
//! ```
//!
//! `H = M(q)`, `C = h(q, q̇)` and `τ = u(t, q, q̇)` are evaluated at the
//! corrected `(q, q̇)` returned by `gamma_q`, not at the integrated
//! `(q_o, q̇_o)`, so the equation of motion does not see constraint drift,
//! and `gstab` pulls the integrated state back to the constraint manifold.
//! The mechanism's own implicit rows (`φ`), if any, are ignored by FDgq.

use crate::validate::{check_finite, check_len};
use crate::{Mechanism, ModelError};
use contour_linalg::Cholesky;
use faer::{Mat, MatMut};

/// An explicit constraint `q = γ(y)` on `N` coordinates with `m ≤ N`
/// independent variables `y`: spatial_v2's `gamma_q`.
pub trait ExplicitConstraint {
    /// Number N of (dependent) coordinates `q`.
    fn n_coordinates(&self) -> usize;
    /// Number m of independent variables `y`.
    fn n_independent(&self) -> usize;
    /// From the given `(q_o, q̇_o)` (length N) computes the corrected
    /// `q = γ(y(q_o))`, `q̇ = G ẏ` (length N), `G = ∂γ/∂y` (N×m, every entry
    /// written) and `gs = Ġ ẏ + gstab` (length N), with `gstab` from
    /// [`stabilization`] or an equivalent.
    fn gamma_q(
        &self,
        qo: &[f64],
        qdo: &[f64],
        q: &mut [f64],
        qd: &mut [f64],
        g: MatMut<'_, f64>,
        gs: &mut [f64],
    );
}

/// Adds `gstab = 2/T_stab (q̇ − q̇_o) + 1/T_stab² (q − q_o)` to `gs`
/// (critically damped stabilization with time constant `T_stab`, RBDA §8.3).
pub fn stabilization(tstab: f64, q: &[f64], qd: &[f64], qo: &[f64], qdo: &[f64], gs: &mut [f64]) {
    let (a, b) = (2.0 / tstab, 1.0 / (tstab * tstab));
    for i in 0..gs.len() {
        gs[i] += a * (qd[i] - qdo[i]) + b * (q[i] - qo[i]);
    }
}

/// Workspace of [`ExplicitDynamics::accelerations`] (FDgq) for one
/// mechanism/constraint pair: `H` (N×N), `G` (N×m), `GᵀHG` (m×m), its
/// Cholesky factor and the vectors; allocated once in `new`.
#[derive(Debug)]
pub struct ExplicitDynamics {
    n: usize,
    m: usize,
    q: Vec<f64>,
    qd: Vec<f64>,
    g: Mat<f64>,
    gs: Vec<f64>,
    h: Mat<f64>,
    c: Vec<f64>,
    tau: Vec<f64>,
    hg: Mat<f64>,
    ghg: Mat<f64>,
    ydd: Vec<f64>,
    chol: Cholesky,
}

impl ExplicitDynamics {
    /// Allocates the workspace; [`ModelError::DimensionMismatch`] when the
    /// constraint's `N` differs from the mechanism's or `m > N`.
    pub fn new<M: Mechanism + ?Sized, G: ExplicitConstraint + ?Sized>(
        mech: &M,
        gamma: &G,
    ) -> Result<Self, ModelError> {
        let n = mech.dof();
        let m = gamma.n_independent();
        if gamma.n_coordinates() != n {
            return Err(ModelError::DimensionMismatch {
                what: "gamma_q coordinates",
                expected: n,
                found: gamma.n_coordinates(),
            });
        }
        if m > n {
            return Err(ModelError::DimensionMismatch {
                what: "gamma_q independent variables (at most N)",
                expected: n,
                found: m,
            });
        }
        Ok(Self {
            n,
            m,
            q: vec![0.0; n],
            qd: vec![0.0; n],
            g: Mat::zeros(n, m),
            gs: vec![0.0; n],
            h: Mat::zeros(n, n),
            c: vec![0.0; n],
            tau: vec![0.0; n],
            hg: Mat::zeros(n, m),
            ghg: Mat::zeros(m, m),
            ydd: vec![0.0; m],
            chol: Cholesky::new(m),
        })
    }

    /// FDgq: `q̈ = G ÿ + gs` with `Gᵀ H G ÿ = Gᵀ (τ − C − H gs)` at the
    /// corrected state (module doc); `τ = u(t, q, q̇)` from
    /// [`Mechanism::applied_forces`]. Does not allocate.
    ///
    /// Errors: wrong lengths or non-finite inputs or `gamma_q` outputs;
    /// [`ModelError::MassMatrixNotPositiveDefinite`] when `GᵀHG` is singular.
    pub fn accelerations<M: Mechanism + ?Sized, G: ExplicitConstraint + ?Sized>(
        &mut self,
        mech: &M,
        gamma: &G,
        t: f64,
        qo: &[f64],
        qdo: &[f64],
        qdd: &mut [f64],
    ) -> Result<(), ModelError> {
        let (n, m) = (self.n, self.m);
        check_len("qo", qo, n)?;
        check_len("qdo", qdo, n)?;
        check_len("qdd", qdd, n)?;
        check_finite("qo", qo)?;
        check_finite("qdo", qdo)?;
        gamma.gamma_q(
            qo,
            qdo,
            &mut self.q,
            &mut self.qd,
            self.g.as_mut(),
            &mut self.gs,
        );
        check_finite("gamma_q: q", &self.q)?;
        check_finite("gamma_q: qd", &self.qd)?;
        check_finite("gamma_q: gs", &self.gs)?;
        crate::validate::check_finite_mat("gamma_q: G", self.g.as_ref())?;
        mech.mass_matrix(&self.q, self.h.as_mut());
        mech.bias_forces(&self.q, &self.qd, &mut self.c);
        mech.applied_forces(t, &self.q, &self.qd, &mut self.tau);
        // τ ← τ − C − H gs
        for i in 0..n {
            let hgs: f64 = (0..n).map(|j| self.h[(i, j)] * self.gs[j]).sum();
            self.tau[i] -= self.c[i] + hgs;
        }
        // HG, GᵀHG, Gᵀ(τ − C − H gs)
        for k in 0..m {
            for i in 0..n {
                self.hg[(i, k)] = (0..n).map(|j| self.h[(i, j)] * self.g[(j, k)]).sum();
            }
        }
        for a in 0..m {
            for b in 0..m {
                self.ghg[(a, b)] = (0..n).map(|i| self.g[(i, a)] * self.hg[(i, b)]).sum();
            }
            self.ydd[a] = (0..n).map(|i| self.g[(i, a)] * self.tau[i]).sum();
        }
        self.chol
            .factor(self.ghg.as_ref())
            .map_err(|e| ModelError::from_solver(e, 0))?;
        self.chol.solve_in_place(&mut self.ydd);
        for i in 0..n {
            qdd[i] = self.gs[i] + (0..m).map(|k| self.g[(i, k)] * self.ydd[k]).sum::<f64>();
        }
        Ok(())
    }

    /// The corrected `(q, q̇)` of the last [`ExplicitDynamics::accelerations`] call.
    pub fn corrected_state(&self) -> (&[f64], &[f64]) {
        (&self.q, &self.qd)
    }
}

/// FDgq in one call (allocates a workspace; use [`ExplicitDynamics`] in loops).
pub fn fd_gq<M: Mechanism + ?Sized, G: ExplicitConstraint + ?Sized>(
    mech: &M,
    gamma: &G,
    t: f64,
    qo: &[f64],
    qdo: &[f64],
    qdd: &mut [f64],
) -> Result<(), ModelError> {
    ExplicitDynamics::new(mech, gamma)?.accelerations(mech, gamma, t, qo, qdo, qdd)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::Planar2g;
    use crate::testing::{check_accel_bias, check_jacobian};

    /// Classical RK4 on `(q, q̇)` with FDgq accelerations.
    fn rk4(p: &Planar2g, t_end: f64, steps: usize) -> ([f64; 2], [f64; 2], f64) {
        let mut fd = ExplicitDynamics::new(p, p).unwrap();
        let h = t_end / steps as f64;
        let mut y = [0.0f64; 4];
        let mut f = |t: f64, y: &[f64; 4]| -> [f64; 4] {
            let mut qdd = [0.0; 2];
            fd.accelerations(p, p, t, &y[..2], &y[2..], &mut qdd)
                .unwrap();
            [y[2], y[3], qdd[0], qdd[1]]
        };
        let mut max_res = 0.0f64;
        for k in 0..steps {
            let t = k as f64 * h;
            let k1 = f(t, &y);
            let y2: [f64; 4] = std::array::from_fn(|i| y[i] + 0.5 * h * k1[i]);
            let k2 = f(t + 0.5 * h, &y2);
            let y3: [f64; 4] = std::array::from_fn(|i| y[i] + 0.5 * h * k2[i]);
            let k3 = f(t + 0.5 * h, &y3);
            let y4: [f64; 4] = std::array::from_fn(|i| y[i] + h * k3[i]);
            let k4 = f(t + h, &y4);
            for i in 0..4 {
                y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
            max_res = max_res.max((y[1] - 2.0 * y[0].sin()).abs());
        }
        ([y[0], y[1]], [y[2], y[3]], max_res)
    }

    #[test]
    fn planar2g_work_equals_kinetic_energy_and_stays_on_the_constraint() {
        let p = Planar2g::default();
        let (q, qd, max_res) = rk4(&p, 2.0, 2000);
        let ke = p.kinetic_energy(&q, &qd).unwrap();
        let rel = (q[0] - ke).abs() / ke;
        eprintln!(
            "planar2g: q1(T) = {}, KE = {ke}, rel = {rel:e}, max residual {max_res:e}",
            q[0]
        );
        assert!(q[0] > 0.1, "the torque moved the arm: {q:?}");
        assert!(rel <= 1e-8, "energy balance {rel:e}");
        assert!(max_res <= 1e-10, "constraint residual {max_res:e}");
        // a coarse step has a visibly larger mismatch (the test can fail)
        let (q, qd, _) = rk4(&p, 2.0, 20);
        let coarse = (q[0] - p.kinetic_energy(&q, &qd).unwrap()).abs();
        assert!(coarse > 10.0 * rel * ke, "{coarse:e}");
    }

    #[test]
    fn fdgq_agrees_with_the_implicit_constraint_on_the_manifold() {
        // on the manifold, FDgq and the Lagrange-multiplier dynamics coincide
        let p = Planar2g::default();
        let y = 0.7f64;
        let yd = -1.3;
        let q = [y, 2.0 * y.sin()];
        let qd = [yd, 2.0 * y.cos() * yd];
        let mut a = [0.0; 2];
        fd_gq(&p, &p, 0.0, &q, &qd, &mut a).unwrap();
        let mut cd = crate::ConstrainedDynamics::new(&p);
        let (mut b, mut lam) = ([0.0; 2], [0.0]);
        cd.accelerations(&p, 0.0, &q, &qd, &mut b, &mut lam)
            .unwrap();
        assert!(
            (a[0] - b[0]).abs() < 1e-12 && (a[1] - b[1]).abs() < 1e-12,
            "{a:?} {b:?}"
        );
        // the implicit row's J and ρ are right
        assert!(check_jacobian(&p, 0.0, &q).unwrap() < 1e-8);
        assert!(check_accel_bias(&p, 0.0, &q, &qd).unwrap() < 1e-7);
        // off the manifold, the correction reacts: gstab ≠ 0
        let mut c = [0.0; 2];
        fd_gq(&p, &p, 0.0, &[y, 2.0 * y.sin() + 1e-3], &qd, &mut c).unwrap();
        assert!((c[1] - a[1]).abs() > 1e-2);
        // dimension errors
        assert!(matches!(
            fd_gq(&p, &p, 0.0, &[0.0], &qd, &mut c),
            Err(ModelError::DimensionMismatch { what: "qo", .. })
        ));
        assert!(matches!(
            fd_gq(&p, &p, 0.0, &[f64::NAN, 0.0], &qd, &mut c),
            Err(ModelError::NonFinite { what: "qo", .. })
        ));
    }
}
