//! Huang's three simulation models (section 5.2.2) as residual-form DAEs
//! `F(t, y, y') = 0` for any [`Mechanism`], to be solved by the BDFs of `contour-ode`
//! ([`contour::ode::Bdf`], [`contour::ode::HuangBdf2`], [`contour::ode::SinglyImplicitRk`]).
//!
//! The state is `y = (q, v, λ)` (`2N + L` components, `λ` algebraic) and, with Huang's
//! (5.2.10) `x = q`, `y = q̇` and our sign convention `M q̈ + h = u + Jᵀλ`,
//!
//! ```text
//! F₁ = q' − v                                   (5.2.10)
//! F₂ = M(q) v' + h(q, v) − u(t, q, v) − Jᵀ(q) λ (5.2.2), (5.2.5), (5.2.8)
//! F₃ = φ(t, q)                                  index 3, (5.2.3)
//!    = J v + b                                  index 2, (5.2.6)  (φ̇ = 0, (5.2.4))
//!    = J v' + ρ [+ α (J v + b) + β φ]           index 1, (5.2.9)  (φ̈ = 0, (5.2.7)),
//!                                               with Baumgarte (5.2.20)–(5.2.25):
//!                                               α = 2ρ₁², β = ρ₂²
//! ```
//!
//! (Huang's `Jᵀ Dᵀ λ` is our `Jᵀλ` with `J = ∂φ/∂q = D J_H`, see
//! `contour_model::ConstrainedDynamics::contact_force`.) The three forms have the same
//! solutions from consistent initial values; numerically only the index-3 form keeps
//! `φ = 0` (Huang, end of 5.2.2). His claims about them are checked numerically by
//! [`super::ch5_2_index`] (rows `huang/5.2/*` of `tables/huang.md`).
//!
//! The models live here, not in `contour-projection`, because only this reproduction uses
//! them: a library user solves a constrained system with the exact-stabilization method
//! (`contour_projection::Method::ExactStabilization`, a DAE on the BDF) or any other method of
//! the driver.

use contour::model::{ConstrainedDynamics, Mechanism};
use contour::ode::{DaeJacobian, DaeResidual, RhsError};
use contour::projection::{BaumgarteGains, ProjectionError};
use faer::{Mat, MatMut};

/// Which of Huang's simulation models (section 5.2.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HuangForm {
    /// (5.2.2)–(5.2.3): the position constraint `φ = 0` (index 3).
    Index3,
    /// (5.2.5)–(5.2.6): the velocity constraint `J v + b = 0` (index 2).
    Index2,
    /// (5.2.8)–(5.2.9): the acceleration constraint `J v' + ρ = 0` (index 1), optionally
    /// stabilized by Baumgarte's terms (5.2.20)/(5.2.22) `+ 2ρ₁²(J v + b) + ρ₂² φ`.
    Index1 {
        /// Baumgarte's gains (`None`: plain (5.2.9)).
        baumgarte: Option<BaumgarteGains>,
    },
}

impl HuangForm {
    /// Differentiation index of the form (3, 2 or 1).
    pub fn index(&self) -> usize {
        match self {
            HuangForm::Index3 => 3,
            HuangForm::Index2 => 2,
            HuangForm::Index1 { .. } => 1,
        }
    }

    /// Short name for row ids: `index3`, `index2`, `index1`, `index1_baumgarte`.
    pub fn name(&self) -> &'static str {
        match self {
            HuangForm::Index3 => "index3",
            HuangForm::Index2 => "index2",
            HuangForm::Index1 { baumgarte: None } => "index1",
            HuangForm::Index1 { baumgarte: Some(_) } => "index1_baumgarte",
        }
    }
}

/// One of Huang's models of `mech` in residual form `F(t, (q, v, λ), (q', v', λ')) = 0`
/// (see the module documentation). Holds the workspaces `M`, `J`, `h`, `u`, `φ`, `b`, `ρ`,
/// allocated in [`HuangModel::new`]; [`DaeResidual::residual`] does not allocate.
#[derive(Debug)]
pub struct HuangModel<'m, M: Mechanism + ?Sized> {
    mech: &'m M,
    form: HuangForm,
    n: usize,
    l: usize,
    m: Mat<f64>,
    j: Mat<f64>,
    h: Vec<f64>,
    u: Vec<f64>,
    c: Vec<f64>,
    b: Vec<f64>,
    /// Scratch of [`DaeJacobian::iteration_matrix`]: the perturbed state and two residuals.
    y_pert: Vec<f64>,
    r0: Vec<f64>,
    r1: Vec<f64>,
}

impl<'m, M: Mechanism + ?Sized> HuangModel<'m, M> {
    /// The model `form` of `mech`.
    ///
    /// Errors: [`ProjectionError::BadConstraintCount`] unless `0 < L < N`;
    /// [`ProjectionError::InvalidParameter`] for negative or non-finite Baumgarte gains.
    pub fn new(mech: &'m M, form: HuangForm) -> Result<Self, ProjectionError> {
        let (n, l) = (mech.dof(), mech.n_constraints());
        if l == 0 || l >= n {
            return Err(ProjectionError::BadConstraintCount {
                method: "Huang model",
                rows: l,
                dof: n,
            });
        }
        if let HuangForm::Index1 { baumgarte: Some(g) } = form {
            // validated again (the fields are public)
            BaumgarteGains::new(g.alpha, g.beta)?;
        }
        Ok(Self {
            mech,
            form,
            n,
            l,
            m: Mat::zeros(n, n),
            j: Mat::zeros(l, n),
            h: vec![0.0; n],
            u: vec![0.0; n],
            c: vec![0.0; l],
            b: vec![0.0; l],
            y_pert: vec![0.0; 2 * n + l],
            r0: vec![0.0; 2 * n + l],
            r1: vec![0.0; 2 * n + l],
        })
    }

    /// The form.
    pub fn form(&self) -> HuangForm {
        self.form
    }

    /// Number of coordinates N.
    pub fn dof(&self) -> usize {
        self.n
    }

    /// Number of multipliers L.
    pub fn n_constraints(&self) -> usize {
        self.l
    }

    /// `algebraic[i]`: the last L components (`λ`) are algebraic (for [`contour::ode::BdfConfig`]).
    pub fn algebraic(&self) -> Vec<bool> {
        (0..2 * self.n + self.l).map(|i| i >= 2 * self.n).collect()
    }

    /// Consistent `y₀ = (q, v, λ)` and `y'₀ = (v, q̈, 0)` at `(t, q, v)`: `q̈` and `λ` from the
    /// index-1 system (1.1)+(1.4) (Huang's (5.2.19), `λ₀` from (2.3.1)–(2.3.2)); `λ'₀ = 0`
    /// (it only enters the first predictor). `(q, v)` must be consistent already (use
    /// `contour_model::consistent_state`). Allocates.
    ///
    /// Errors: dimensions, NaN, singular `M` or rank-deficient `J` (from the model).
    pub fn consistent_initial(
        &self,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<(Vec<f64>, Vec<f64>), ProjectionError> {
        let (n, l) = (self.n, self.l);
        let mut dynamics = ConstrainedDynamics::new(self.mech);
        let mut a = vec![0.0; n];
        let mut lambda = vec![0.0; l];
        dynamics.accelerations(self.mech, t, q, v, &mut a, &mut lambda)?;
        let y0: Vec<f64> = q.iter().chain(v).chain(&lambda).copied().collect();
        let yp0: Vec<f64> = v
            .iter()
            .chain(&a)
            .copied()
            .chain(std::iter::repeat_n(0.0, l))
            .collect();
        Ok((y0, yp0))
    }
}

impl<M: Mechanism + ?Sized> DaeResidual for HuangModel<'_, M> {
    fn dim(&self) -> usize {
        2 * self.n + self.l
    }

    fn residual(&mut self, t: f64, y: &[f64], yp: &[f64], r: &mut [f64]) -> Result<(), RhsError> {
        let (n, l) = (self.n, self.l);
        let (q, v, lam) = (&y[..n], &y[n..2 * n], &y[2 * n..2 * n + l]);
        let (qp, vp) = (&yp[..n], &yp[n..2 * n]);
        let mech = self.mech;
        // Huang (5.2.10): x' = y.
        for i in 0..n {
            r[i] = qp[i] - v[i];
        }
        // Huang (5.2.2): M q̈ + F − T − Jᵀλ (F = h, T = u).
        self.m.fill(0.0);
        mech.mass_matrix(q, self.m.as_mut());
        mech.bias_forces(q, v, &mut self.h);
        mech.applied_forces(t, q, v, &mut self.u);
        self.j.fill(0.0);
        mech.constraint_jacobian(t, q, self.j.as_mut());
        for i in 0..n {
            let mut s = self.h[i] - self.u[i];
            for k in 0..n {
                s += self.m[(i, k)] * vp[k];
            }
            for c in 0..l {
                s -= self.j[(c, i)] * lam[c];
            }
            r[n + i] = s;
        }
        let rc = &mut r[2 * n..2 * n + l];
        match self.form {
            HuangForm::Index3 => {
                // Huang (5.2.3): φ = 0.
                mech.constraints(t, q, rc);
            }
            HuangForm::Index2 => {
                // Huang (5.2.6): φ̇ = J v + b = 0.
                mech.constraint_rate_bias(t, q, rc);
                for (c, x) in rc.iter_mut().enumerate() {
                    for k in 0..n {
                        *x += self.j[(c, k)] * v[k];
                    }
                }
            }
            HuangForm::Index1 { baumgarte } => {
                // Huang (5.2.9): φ̈ = J v' + ρ = 0.
                mech.constraint_accel_bias(t, q, v, rc);
                for (c, x) in rc.iter_mut().enumerate() {
                    for k in 0..n {
                        *x += self.j[(c, k)] * vp[k];
                    }
                }
                if let Some(g) = baumgarte {
                    // Huang (5.2.22)–(5.2.25): + 2ρ₁² φ̇ + ρ₂² φ.
                    mech.constraint_rate_bias(t, q, &mut self.b);
                    mech.constraints(t, q, &mut self.c);
                    for (c, x) in rc.iter_mut().enumerate() {
                        let mut phidot = self.b[c];
                        for k in 0..n {
                            phidot += self.j[(c, k)] * v[k];
                        }
                        *x += g.alpha * phidot + g.beta * self.c[c];
                    }
                }
            }
        }
        match r.iter().position(|x| !x.is_finite()) {
            Some(index) => Err(RhsError::NonFinite { index }),
            None => Ok(()),
        }
    }
}

/// `G = ∂F/∂y + c_j ∂F/∂y'`: the `∂F/∂y'` part exactly (`I` in the `q` rows, `M(q)` in the
/// `v` rows, and for index 1 `J(q)` in the constraint rows), the `∂F/∂y` part by forward
/// differences in `y` alone with increments `√u·max(|yⱼ|, 1)` — independent of the
/// tolerances, so that components that are zero at rest (and tiny absolute tolerances) do
/// not produce round-off columns, which DASSL's increments `√u·max(|yⱼ|, |h y'ⱼ|, 1/wⱼ)` do.
/// Costs `2N + L + 1` residual evaluations. Does not allocate.
impl<M: Mechanism + ?Sized> DaeJacobian for HuangModel<'_, M> {
    fn iteration_matrix(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        cj: f64,
        mut g: MatMut<'_, f64>,
    ) -> Result<(), RhsError> {
        let (n, l) = (self.n, self.l);
        let dim = 2 * n + l;
        let mut r0 = std::mem::take(&mut self.r0);
        let mut r1 = std::mem::take(&mut self.r1);
        let mut yv = std::mem::take(&mut self.y_pert);
        let res = (|| {
            self.residual(t, y, yp, &mut r0)?;
            yv.copy_from_slice(y);
            let squr = f64::EPSILON.sqrt();
            for jc in 0..dim {
                let del = {
                    let d = squr * y[jc].abs().max(1.0);
                    (y[jc] + d) - y[jc]
                };
                yv[jc] = y[jc] + del;
                self.residual(t, &yv, yp, &mut r1)?;
                yv[jc] = y[jc];
                for i in 0..dim {
                    g[(i, jc)] = (r1[i] - r0[i]) / del;
                }
            }
            // + c_j ∂F/∂y' (the mass matrix at y, as evaluated by the last residual call
            // at y: recompute it to be exact).
            self.m.fill(0.0);
            self.mech.mass_matrix(&y[..n], self.m.as_mut());
            for i in 0..n {
                g[(i, i)] += cj;
                for k in 0..n {
                    g[(n + i, n + k)] += cj * self.m[(i, k)];
                }
            }
            if let HuangForm::Index1 { .. } = self.form {
                self.j.fill(0.0);
                self.mech.constraint_jacobian(t, &y[..n], self.j.as_mut());
                for c in 0..l {
                    for k in 0..n {
                        g[(2 * n + c, n + k)] += cj * self.j[(c, k)];
                    }
                }
            }
            Ok(())
        })();
        self.r0 = r0;
        self.r1 = r1;
        self.y_pert = yv;
        res
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contour::model::models::Pendulum;

    /// On a consistent state with its exact derivative every residual vanishes to round-off.
    #[test]
    fn consistent_state_zeroes_every_form() {
        let p = Pendulum::default();
        let (q, v) = p.state(0.8, 1.7);
        for form in [
            HuangForm::Index3,
            HuangForm::Index2,
            HuangForm::Index1 { baumgarte: None },
            HuangForm::Index1 {
                baumgarte: Some(BaumgarteGains::critical(10.0).unwrap()),
            },
        ] {
            let mut model = HuangModel::new(&p, form).unwrap();
            let (y0, yp0) = model.consistent_initial(0.0, &q, &v).unwrap();
            let mut r = vec![1.0; model.dim()];
            model.residual(0.0, &y0, &yp0, &mut r).unwrap();
            let worst = r.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            assert!(worst < 64.0 * f64::EPSILON * 10.0, "{form:?}: {r:?}");
            assert_eq!(model.algebraic(), vec![false, false, false, false, true]);
        }
    }

    /// The pendulum's multiplier from (5.2.19) is −(m ℓ ω² + m g cos θ)/(2ℓ).
    #[test]
    fn initial_multiplier_is_the_rod_tension() {
        let p = Pendulum::default();
        let (theta, omega) = (0.8f64, 1.7f64);
        let (q, v) = p.state(theta, omega);
        let model = HuangModel::new(&p, HuangForm::Index3).unwrap();
        let (y0, _) = model.consistent_initial(0.0, &q, &v).unwrap();
        let lam = -(omega * omega + 9.81 * theta.cos()) / 2.0;
        assert!((y0[4] - lam).abs() < 1e-14 * 10.0, "{} vs {lam}", y0[4]);
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        let p = Pendulum::default();
        let bad = HuangForm::Index1 {
            baumgarte: Some(BaumgarteGains {
                alpha: -1.0,
                beta: 1.0,
            }),
        };
        assert!(matches!(
            HuangModel::new(&p, bad),
            Err(ProjectionError::InvalidParameter { .. })
        ));
        let mut model = HuangModel::new(&p, HuangForm::Index3).unwrap();
        let mut r = [0.0; 5];
        let y = [f64::NAN, 0.0, 0.0, 0.0, 0.0];
        assert!(model.residual(0.0, &y, &[0.0; 5], &mut r).is_err());
    }
}
