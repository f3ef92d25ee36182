//! Kövecses' forward dynamics by projection (29)–(31) and the constraint-force-free inverse
//! dynamics (26)–(27), with the mass-weighted projectors `W`, `P_c`, `P_a` of (17).

use contour_linalg::{axpy_col, dot_col, Cholesky, LinalgError, WeightedProjectors};
use contour_model::{Mechanism, ModelError, ModelTerms, Terms};
use faer::{Mat, MatRef};

use crate::error::ProjectionError;

/// Maps a linear-algebra failure on `M` or `A` to the model error naming the culprit
/// (non-finite entries by their column-major index).
pub(super) fn model_error(e: LinalgError, what: &'static str, nrows: usize) -> ModelError {
    match e {
        LinalgError::NotPositiveDefinite { index, pivot } => {
            ModelError::MassMatrixNotPositiveDefinite { index, pivot }
        }
        LinalgError::NonFinite { row, col, .. } => ModelError::NonFinite {
            what,
            index: row + col * nrows,
        },
        other => ModelError::Linalg(other),
    }
}

pub(super) use contour_model::validate::check_finite;

/// Evaluates `M(q)`, factors it, evaluates `A(t, q)` and computes `W`, `P_c`, `P_a` (17)
/// ((18) without an SVD where full row rank is certified, [`WeightedProjectors::update`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn projectors_at<M: Mechanism + ?Sized>(
    mech: &M,
    t: f64,
    q: &[f64],
    m: &mut Mat<f64>,
    a: &mut Mat<f64>,
    chol: &mut Cholesky,
    proj: &mut WeightedProjectors,
    rank_rtol: f64,
) -> Result<(), ModelError> {
    m.fill(0.0);
    mech.mass_matrix(q, m.as_mut());
    chol.factor(m.as_ref())
        .map_err(|e| model_error(e, "mass matrix", q.len()))?;
    a.fill(0.0);
    mech.constraint_jacobian(t, q, a.as_mut());
    proj.update(chol, a.as_ref(), 0.0, rank_rtol)
        .map_err(|e| model_error(e, "constraint jacobian", a.nrows()))
}

/// Kövecses' forward and inverse dynamics (26)–(31) in a workspace allocated once.
#[derive(Debug)]
pub struct ProjectionDynamics {
    n: usize,
    l: usize,
    rank_rtol: f64,
    /// `M, h, u, A (= J), ρ` at the last state.
    terms: ModelTerms,
    chol: Cholesky,
    proj: WeightedProjectors,
    a0: Vec<f64>,
    r: Vec<f64>,
    z: Vec<f64>,
    y: Vec<f64>,
}

impl ProjectionDynamics {
    /// Workspace for `mech` with the rank cut-off `rank_rtol` (relative to `σ_max(A L⁻ᵀ)`),
    /// in `(0, 1)`.
    pub fn new<M: Mechanism + ?Sized>(mech: &M, rank_rtol: f64) -> Result<Self, ProjectionError> {
        if !(rank_rtol > 0.0 && rank_rtol < 1.0) {
            return Err(ProjectionError::InvalidParameter {
                name: "rank_rtol",
                value: rank_rtol,
            });
        }
        let (n, l) = (mech.dof(), mech.n_constraints());
        Ok(Self {
            n,
            l,
            rank_rtol,
            terms: ModelTerms::new(mech),
            chol: Cholesky::new(n),
            proj: WeightedProjectors::new(n, l),
            a0: vec![0.0; n],
            r: vec![0.0; l],
            z: vec![0.0; n],
            y: vec![0.0; n],
        })
    }

    fn check<M: Mechanism + ?Sized>(
        &self,
        mech: &M,
        q: &[f64],
        qd: &[f64],
    ) -> Result<(), ModelError> {
        for (what, expected, found) in [
            ("mechanism dof", self.n, mech.dof()),
            ("mechanism constraints", self.l, mech.n_constraints()),
            ("q", self.n, q.len()),
            ("qd", self.n, qd.len()),
        ] {
            if expected != found {
                return Err(ModelError::DimensionMismatch {
                    what,
                    expected,
                    found,
                });
            }
        }
        check_finite("q", q)?;
        check_finite("qd", qd)
    }

    /// Evaluates `M, h, u, A, ρ` and the projectors at `(t, q, q̇)`; `a0 = M⁻¹(u − h)`.
    fn evaluate<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        qd: &[f64],
    ) -> Result<(), ModelError> {
        self.check(mech, q, qd)?;
        if !t.is_finite() {
            return Err(ModelError::NonFinite {
                what: "t",
                index: 0,
            });
        }
        self.terms
            .evaluate(mech, t, q, qd, None, Terms::Accelerations)?;
        self.chol
            .factor(self.terms.mass_matrix())
            .map_err(|e| model_error(e, "mass matrix", self.n))?;
        self.proj
            .update(&self.chol, self.terms.jacobian(), 0.0, self.rank_rtol)
            .map_err(|e| model_error(e, "constraint jacobian", self.l))?;
        self.a0.copy_from_slice(self.terms.net_force());
        // Kövecses (29) without constraint forces: M⁻¹(Q − C).
        self.chol.solve_in_place(&mut self.a0);
        Ok(())
    }

    /// Kövecses (29)–(31): `q̈ = P_a M⁻¹(Q − C) − W(Ȧq̇ + ḃ)` and the minimum-norm multipliers
    /// `λ = −Wᵀ M W (A M⁻¹(Q − C) + ρ)`. Valid for rank-deficient `A`. Does not allocate.
    ///
    /// Errors: dimensions, non-finite state or model outputs ([`ModelError::NonFinite`]),
    /// [`ModelError::MassMatrixNotPositiveDefinite`].
    pub fn accelerations<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        qd: &[f64],
        qdd: &mut [f64],
        lambda: &mut [f64],
    ) -> Result<(), ModelError> {
        contour_model::validate::check_outputs(mech, qdd, lambda)?;
        self.evaluate(mech, t, q, qd)?;
        let (n, l) = (self.n, self.l);
        let (pa, w) = (self.proj.p_a(), self.proj.w());
        let (a, m, rho) = (
            self.terms.jacobian(),
            self.terms.mass_matrix(),
            self.terms.accel_bias(),
        );
        // Kövecses (30)–(31): q̈ = P_a a0 − W ρ, column by column (each entry summed over k in
        // order, P_a's terms before W's).
        qdd.fill(0.0);
        for k in 0..n {
            axpy_col(qdd, self.a0[k], pa, k);
        }
        for k in 0..l {
            axpy_col(qdd, -rho[k], w, k);
        }
        // Minimum-norm λ: Aᵀλ = −M W r, r = A a0 + ρ  ⇒  λ = −Wᵀ M W r.
        self.r.copy_from_slice(rho);
        for j in 0..n {
            axpy_col(&mut self.r, self.a0[j], a, j);
        }
        self.z.fill(0.0);
        for k in 0..l {
            axpy_col(&mut self.z, self.r[k], w, k);
        }
        self.y.fill(0.0);
        for k in 0..n {
            axpy_col(&mut self.y, self.z[k], m, k);
        }
        for k in 0..l {
            lambda[k] = -dot_col(w, k, &self.y);
        }
        Ok(())
    }

    /// Kövecses (26)–(27), inverse dynamics without constraint forces: for an admissible
    /// `q̈` (`A q̈ + ρ = 0`) the generalized applied force in the admissible directions,
    /// `out = P_aᵀ (M q̈ + C)` (`C = h`). Any `Q` with `P_aᵀ Q = out` produces `q̈`.
    pub fn admissible_applied_force<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        qd: &[f64],
        qdd: &[f64],
        out: &mut [f64],
    ) -> Result<(), ModelError> {
        self.evaluate(mech, t, q, qd)?;
        for (what, found) in [("qdd", qdd.len()), ("out", out.len())] {
            if found != self.n {
                return Err(ModelError::DimensionMismatch {
                    what,
                    expected: self.n,
                    found,
                });
            }
        }
        check_finite("qdd", qdd)?;
        let (n, m, h) = (self.n, self.terms.mass_matrix(), self.terms.bias_forces());
        for i in 0..n {
            self.z[i] = h[i] + (0..n).map(|k| m[(i, k)] * qdd[k]).sum::<f64>();
        }
        let pa = self.proj.p_a();
        for i in 0..n {
            out[i] = (0..n).map(|k| pa[(k, i)] * self.z[k]).sum();
        }
        Ok(())
    }

    /// The projectors of the last evaluation.
    pub fn projectors(&self) -> &WeightedProjectors {
        &self.proj
    }

    /// `M(q)` of the last evaluation.
    pub fn mass_matrix(&self) -> MatRef<'_, f64> {
        self.terms.mass_matrix()
    }

    /// `A(t, q)` of the last evaluation.
    pub fn jacobian(&self) -> MatRef<'_, f64> {
        self.terms.jacobian()
    }

    /// `u(t, q, q̇)` of the last evaluation.
    pub fn applied_forces(&self) -> &[f64] {
        self.terms.applied_forces()
    }

    /// `h(q, q̇)` of the last evaluation.
    pub fn bias_forces(&self) -> &[f64] {
        self.terms.bias_forces()
    }

    /// `ρ = Ȧq̇ + ḃ` of the last evaluation.
    pub fn accel_bias(&self) -> &[f64] {
        self.terms.accel_bias()
    }

    /// Numerical rank of `A` at the last evaluation.
    pub fn rank(&self) -> usize {
        self.proj.rank()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contour_linalg::DEFAULT_RANK_RTOL;
    use contour_model::models::{Pendulum, RedundantFourBar};
    use contour_model::ConstrainedDynamics;

    /// (29)–(31) equal the KKT solution on the pendulum (full rank), and on the redundant
    /// four-bar the accelerations are admissible (`A q̈ + ρ = 0`) with `Aᵀλ = M q̈ + h − u`.
    #[test]
    fn projected_accelerations() {
        let p = Pendulum::default();
        let (q, qd) = p.state(0.8, -1.1);
        let mut pd = ProjectionDynamics::new(&p, DEFAULT_RANK_RTOL).unwrap();
        let (mut a, mut l) = ([0.0; 2], [0.0; 1]);
        pd.accelerations(&p, 0.0, &q, &qd, &mut a, &mut l).unwrap();
        let mut kkt = ConstrainedDynamics::new(&p);
        let (mut ak, mut lk) = ([0.0; 2], [0.0; 1]);
        kkt.accelerations(&p, 0.0, &q, &qd, &mut ak, &mut lk)
            .unwrap();
        for i in 0..2 {
            assert!(
                (a[i] - ak[i]).abs() <= 1e-13 * (1.0 + ak[i].abs()),
                "{a:?} {ak:?}"
            );
        }
        assert!((l[0] - lk[0]).abs() <= 1e-13 * (1.0 + lk[0].abs()));

        let fb = RedundantFourBar::default();
        let (q, qd) = fb.state(0.3, 2.0).unwrap();
        let mut pd = ProjectionDynamics::new(&fb, DEFAULT_RANK_RTOL).unwrap();
        let (mut a, mut l) = ([0.0; 3], [0.0; 3]);
        pd.accelerations(&fb, 0.0, &q, &qd, &mut a, &mut l).unwrap();
        assert_eq!(pd.rank(), 2);
        let (m, j) = (pd.mass_matrix().to_owned(), pd.jacobian().to_owned());
        let (h, u, rho) = (pd.bias_forces(), pd.applied_forces(), pd.accel_bias());
        for i in 0..3 {
            let acc: f64 = (0..3).map(|k| j[(i, k)] * a[k]).sum::<f64>() + rho[i];
            assert!(acc.abs() <= 1e-12, "A qdd + rho = {acc:e}");
            let lhs: f64 = (0..3).map(|k| j[(k, i)] * l[k]).sum();
            let rhs: f64 = (0..3).map(|k| m[(i, k)] * a[k]).sum::<f64>() + h[i] - u[i];
            assert!(
                (lhs - rhs).abs() <= 1e-12 * (1.0 + rhs.abs()),
                "{lhs} {rhs}"
            );
        }
        // the rank-revealing KKT solve gives the same q̈ and the same minimum-norm λ
        // (λ = −Wᵀ M W r = S† (c − J M⁻¹ f), S = J M⁻¹ Jᵀ), from an SVD of L⁻¹Jᵀ instead of
        // the projectors of (17)
        let mut kkt = ConstrainedDynamics::new(&fb);
        let (mut ak, mut lk) = ([0.0; 3], [0.0; 3]);
        kkt.accelerations(&fb, 0.0, &q, &qd, &mut ak, &mut lk)
            .unwrap();
        assert_eq!((kkt.rank_revealing_solves(), kkt.last_rank()), (1, 2));
        for i in 0..3 {
            assert!(
                (a[i] - ak[i]).abs() <= 1e-10 * (1.0 + a[i].abs()),
                "{a:?} {ak:?}"
            );
            assert!(
                (l[i] - lk[i]).abs() <= 1e-10 * (1.0 + l[i].abs()),
                "{l:?} {lk:?}"
            );
        }
        // and refuses the state on request
        let mut kkt = ConstrainedDynamics::with_options(
            &fb,
            contour_model::DynamicsOptions {
                rank_deficiency: contour_model::RankDeficiency::Error,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(matches!(
            kkt.accelerations(&fb, 0.0, &q, &qd, &mut a, &mut l),
            Err(ModelError::RankDeficientJacobian {
                rank: 2,
                rows: 3,
                ..
            })
        ));
    }
}
