//! Exact constraint stabilization (ECS): the Gear–Gupta–Leimkuhler form, Keerthi (4.4),
//!
//! ```text
//! ẋ = f(x) − g_x(x)ᵀ μ,     g(x) = (φ(t, q), J(q) v + b) = 0,          (4.4), (1.6)
//! g_x = [[J, 0], [D, J]],   D = ∂(J v + b)/∂q,
//! ```
//!
//! an index-2 DAE in `(x, μ)`, `μ ∈ ℝ^{2L}`, whose solutions have `μ = 0` and coincide with
//! those of (1.5)–(1.6). Solved with the variable-order BDF of `contour_ode` ([`Bdf`], DASSL
//! style) with `μ` algebraic and out of the error test. The residual is
//! `F = (q̇ − v + Jᵀμ₁ + Dᵀμ₂,  v̇ − q̈(x) + Jᵀμ₂,  φ,  J v + b)`; each evaluation is one
//! solution of (1.1)+(1.4) (counted in `N_f`); `D` is formed by forward differences of
//! `J(q) v + b(q)` (N constraint-Jacobian evaluations, no acceleration solve; with
//! [`EcsForm::BlockDiagonal`] the `Dᵀμ₂` coupling is dropped — any correction direction with
//! `g_x Gᵀ` nonsingular gives the same `μ = 0` solution). [`EcsForm::Multipliers`] is GGL's
//! form with `λ` an unknown in place of `μ₂` (no acceleration solve; see there). The iteration matrix
//! `∂F/∂y + c_j ∂F/∂y'` is supplied through [`DaeJacobian`]: `∂q̈/∂x` by forward differences
//! of the accelerations (`2N + 1` acceleration solves per matrix, **counted in `N_f`** as for
//! every BDF run, and reported separately as `jacobian_f_evals`), the `μ`-dependence of
//! `g_xᵀμ` neglected (`μ ≈ 0`), the rest exact. The initial derivative is consistent: `ẋ₀ = f(x₀)`, `μ₀ = 0`,
//! `μ̇₀ = 0` (index-2 initialization by Newton is singular).

use contour_linalg::{Lu, PseudoInverse};
use contour_model::{ConstrainedDynamics, DynamicsOptions, Mechanism};
use contour_ode::{Bdf, BdfConfig, DaeJacobian, DaeResidual, OdeError, RhsError, WithJacobian};
use faer::{Mat, MatMut};
use serde::{Deserialize, Serialize};

use crate::error::ProjectionError;
use crate::integrator::Integrator;
use crate::method::{Accepted, ConstraintMethod, RunContext};
use crate::passage::PASSAGE_BAND_RATIO;
use crate::rhs::{ode_error, ConstrainedRhs};
use crate::trajectory::{EventKind, SimulationStats};

/// Which `g_x` multiplies `μ` in (4.4).
///
/// **Why `BlockDiagonal` is the default**. `Full` needs `D = ∂(J v + b)/∂q` inside
/// the residual, formed by forward differences: the residual then carries `O(√u)` noise that
/// is not a smooth function of `y`, and Newton and the error estimate see it. On Andrews'
/// squeezer (`ErrorControl::mixed(τ)`, t ∈ [0, 0.03]) `Full` gives relative errors of β(0.03)
/// of 3.5e-4 / 7.9e-6 / 1.6e-7 at τ = 1e-4 / 1e-6 / 1e-8 with 3,036 / 6,357 / 16,563
/// evaluations and fails at τ = 1e-10 (no Newton convergence at t = 0.0102), while
/// `BlockDiagonal` gives 6.0e-5 / 1.9e-8 / 1.8e-9 / 4.6e-10 with 1,877 / 3,605 / 15,975 / 21,212.
/// Both have the same exact solution (`μ = 0`). `Full` stays available as Keerthi's (4.4)
/// literally ([`EcsConfig::keerthi`], used for the paper's tables).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum EcsForm {
    /// `g_x = [[J, 0], [D, J]]` exactly as (4.4).
    Full,
    /// `[[J, 0], [0, J]]` (GGL's mechanical form `q̇ = v − Jᵀμ₁`, `v̇ = a − Jᵀμ₂`).
    #[default]
    BlockDiagonal,
    /// GGL's multiplier form (Gear, Gupta & Leimkuhler 1985): `y = (q, v, μ, λ)`,
    ///
    /// ```text
    /// q̇ = v − Jᵀμ,   M(q) v̇ = u − h + Jᵀλ,   φ = 0,   J v + b = 0,
    /// ```
    ///
    /// `μ` and `λ` algebraic and out of the error test, `λ₀` from the KKT solve at `x₀`; the
    /// residual needs `M, h, u, φ, J, b` and no acceleration solve (each residual is counted
    /// in `N_f`). The iteration matrix: the dynamic rows by forward differences of
    /// `M a + h − u − Jᵀλ` in `(q, v)` (`2N + 1` evaluations of `M, h, u, J` per matrix,
    /// counted in `N_f` as for every BDF run and reported separately as
    /// `jacobian_f_evals`), the rest exact
    /// (`∂(Jᵀμ)/∂q` neglected, `μ ≈ 0`). Two parts carry it through singular configurations
    /// (`J` losing rank with a unique `q̈`, e.g. MBS benchmark A02):
    ///
    /// * least-norm multiplier updates (the SVD pseudo-inverse of the equilibrated multiplier Schur
    ///   complement, cut-off [`MULTIPLIER_PINV_RTOL`]): in a lost direction the Schur complement
    ///   is singular in `(μ, λ)` together, and the least-norm update there is zero, not
    ///   amplified round-off;
    /// * the constrained velocities' error measured through the positions, and the multiplier
    ///   updates measured by the state they move in the Newton test.
    ///
    /// The derivations, the measurements on A02, the slider-crank and Andrews' squeezer, and the
    /// designs tried are in `benches/results/ggl_singular_passages_2026-11-27.md`.
    Multipliers,
}

/// Options of ECS. Defaults: `form = BlockDiagonal` (see [`EcsForm`]).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct EcsConfig {
    /// The correction term of (4.4).
    pub form: EcsForm,
}

impl EcsConfig {
    /// ECS exactly as Keerthi et al. write (4.4): `g_x = [[J, 0], [D, J]]`.
    pub fn keerthi() -> Self {
        Self {
            form: EcsForm::Full,
        }
    }
}

/// The integrator ECS uses in the tables: variable-order BDF, default configuration.
pub fn ecs_integrator() -> Integrator {
    Integrator::Bdf(BdfConfig::default())
}

/// Residual of (4.4) with (1.6).
#[derive(Debug)]
pub(crate) struct EcsResidual<'m, M: ?Sized> {
    inner: ConstrainedRhs<'m, M>,
    n: usize,
    /// Rows of (4.4): L, or the rank r of `J` after [`EcsResidual::remove_redundant_rows`].
    l: usize,
    /// The rows of `J` kept (empty: all L rows; `jp`, `bp` stay L rows and are read
    /// through it).
    sel: Vec<usize>,
    /// `J`, `φ`, `b` of all L rows when rows were removed (empty otherwise).
    jf: Mat<f64>,
    phif: Vec<f64>,
    bf: Vec<f64>,
    form: EcsForm,
    j: Mat<f64>,
    jp: Mat<f64>,
    d: Mat<f64>,
    phi: Vec<f64>,
    b: Vec<f64>,
    bp: Vec<f64>,
    g0: Vec<f64>,
    qp: Vec<f64>,
    f: Vec<f64>,
    f2: Vec<f64>,
    xp: Vec<f64>,
    jac_f_evals: usize,
    mw: MultiplierWork,
}

/// Relative cut-off of the least-norm Newton solve of [`EcsForm::Multipliers`]: singular
/// values of the equilibrated multiplier Schur complement `S = C A⁻¹ B` at or below
/// `MULTIPLIER_PINV_RTOL · s_max` are round-off and their directions get no update.
/// Measured on A02 at τ = 1e-9 over 20 s with the multiplier updates in the Newton test
/// through the BDF's column weights: every cut-off from 1e-14 to 1e-11 passes N = 1 and 4
/// (and the isosceles slider-crank); 1e-10 ends N = 4 at t = 7.10.
pub const MULTIPLIER_PINV_RTOL: f64 = 1e-12;

/// Workspace of [`EcsForm::Multipliers`] (allocated once): the dynamic rows, the least-norm
/// Newton solve and the error-estimate map.
#[derive(Debug)]
pub(crate) struct MultiplierWork {
    mass: Mat<f64>,
    hb: Vec<f64>,
    ua: Vec<f64>,
    r0: Vec<f64>,
    r1: Vec<f64>,
    vp: Vec<f64>,
    /// The iteration matrix `G = [[A, B], [C, 0]]` of the last `iteration_matrix` call.
    g: Mat<f64>,
    /// `A = P⁻¹LU` of its `(q, v)` block.
    a_lu: Lu,
    /// `X = A⁻¹B`.
    x_ab: Mat<f64>,
    /// `R S C_s`, the equilibrated Schur complement, and its pseudo-inverse.
    s_eq: Mat<f64>,
    s_pinv: PseudoInverse,
    row_sc: Vec<f64>,
    col_sc: Vec<f64>,
    /// Scratch of the solve: `A⁻¹ r_x` (2n), the multiplier right-hand side and update (2L).
    ax: Vec<f64>,
    rz: Vec<f64>,
    dz: Vec<f64>,
    /// The SVD of `J` at the corrector for the error map, the step `(t, h)` it belongs to,
    /// and the weights `ωᵢ` of the velocity estimate along the right singular vectors.
    j_svd: PseudoInverse,
    map_key: (f64, f64),
    map_y: Vec<f64>,
    omega: Vec<f64>,
}

impl MultiplierWork {
    fn new(n: usize, l: usize) -> Self {
        let dim = 2 * n + 2 * l;
        Self {
            mass: Mat::zeros(n, n),
            hb: vec![0.0; n],
            ua: vec![0.0; n],
            r0: vec![0.0; n],
            r1: vec![0.0; n],
            vp: vec![0.0; n],
            g: Mat::zeros(dim, dim),
            a_lu: Lu::new(2 * n),
            x_ab: Mat::zeros(2 * n, 2 * l),
            s_eq: Mat::zeros(2 * l, 2 * l),
            s_pinv: PseudoInverse::new(2 * l, 2 * l),
            row_sc: vec![1.0; 2 * l],
            col_sc: vec![1.0; 2 * l],
            ax: vec![0.0; 2 * n],
            rz: vec![0.0; 2 * l],
            dz: vec![0.0; 2 * l],
            j_svd: PseudoInverse::new(l, n),
            map_key: (f64::NAN, f64::NAN),
            map_y: vec![0.0; dim],
            omega: vec![1.0; l.min(n)],
        }
    }
}

impl<'m, M: Mechanism + ?Sized> EcsResidual<'m, M> {
    /// Workspace for `mech` (allocates once).
    fn new(mech: &'m M, form: EcsForm, dynamics: DynamicsOptions) -> Result<Self, ProjectionError> {
        let (n, l) = (mech.dof(), mech.n_constraints());
        let n2 = 2 * n;
        Ok(Self {
            inner: ConstrainedRhs::new(mech, dynamics)?,
            n,
            l,
            sel: Vec::new(),
            jf: Mat::zeros(0, 0),
            phif: Vec::new(),
            bf: Vec::new(),
            form,
            j: Mat::zeros(l, n),
            jp: Mat::zeros(l, n),
            d: Mat::zeros(l, n),
            phi: vec![0.0; l],
            b: vec![0.0; l],
            bp: vec![0.0; l],
            g0: vec![0.0; l],
            qp: vec![0.0; n],
            f: vec![0.0; n2],
            f2: vec![0.0; n2],
            xp: vec![0.0; n2],
            jac_f_evals: 0,
            mw: MultiplierWork::new(n, l),
        })
    }

    /// The dynamic rows of the multiplier form, `M(q) a + h(q, v) − u(t, q, v) − J(q)ᵀλ`,
    /// into `out` (`J` into `jp`).
    #[allow(clippy::too_many_arguments)]
    fn dynamic_rows(
        mech: &M,
        mw: &mut MultiplierWork,
        jp: &mut Mat<f64>,
        t: f64,
        q: &[f64],
        v: &[f64],
        a: &[f64],
        lam: &[f64],
        out: &mut [f64],
    ) {
        let (n, l) = (q.len(), lam.len());
        mech.mass_matrix(q, mw.mass.as_mut());
        mech.bias_forces(q, v, &mut mw.hb);
        mech.applied_forces(t, q, v, &mut mw.ua);
        mech.constraint_jacobian(t, q, jp.as_mut());
        for k in 0..n {
            let mut s = mw.hb[k] - mw.ua[k];
            for c in 0..n {
                s += mw.mass[(k, c)] * a[c];
            }
            for i in 0..l {
                s -= jp[(i, k)] * lam[i];
            }
            out[k] = s;
        }
    }

    /// Removes the redundant rows of `J(t, q)` once (the forms `Full` and `BlockDiagonal`):
    /// (4.4) with L rows of rank r < L has a singular iteration matrix, and `φ = 0` of the r
    /// independent rows ([`crate::method::independent_rows`]) holds the others on the
    /// manifold. `μ` then has `2r` components. Allocates (start only).
    fn remove_redundant_rows(&mut self, t: f64, q: &[f64]) {
        let (n, l) = (self.n, self.l);
        self.inner
            .mechanism()
            .constraint_jacobian(t, q, self.jp.as_mut());
        let sel = crate::method::independent_rows(self.jp.as_ref());
        if sel.len() == l || sel.is_empty() {
            return;
        }
        let r = sel.len();
        self.sel = sel;
        self.l = r;
        self.jf = Mat::zeros(l, n);
        self.phif = vec![0.0; l];
        self.bf = vec![0.0; l];
        self.j = Mat::zeros(r, n);
        self.d = Mat::zeros(r, n);
        self.phi = vec![0.0; r];
        self.b = vec![0.0; r];
        self.g0 = vec![0.0; r];
    }

    /// The row of the mechanism behind row `i` of (4.4).
    fn row(&self, i: usize) -> usize {
        if self.sel.is_empty() {
            i
        } else {
            self.sel[i]
        }
    }

    /// `J(t, q)` of the rows of (4.4) into `self.j`.
    fn jacobian_into_j(&mut self, t: f64, q: &[f64]) {
        let mech = self.inner.mechanism();
        if self.sel.is_empty() {
            mech.constraint_jacobian(t, q, self.j.as_mut());
            return;
        }
        mech.constraint_jacobian(t, q, self.jf.as_mut());
        for (i, &row) in self.sel.iter().enumerate() {
            for k in 0..self.n {
                self.j[(i, k)] = self.jf[(row, k)];
            }
        }
    }

    /// `σ_min(J)/σ_max(J)` at `x = (q, q̇)` (`None` when the SVD fails or `J` is zero);
    /// allocates (for a run's start and its error only).
    fn sigma_ratio(&mut self, t: f64, x: &[f64]) -> Option<f64> {
        let q = x.get(..self.n)?;
        self.jacobian_into_j(t, q);
        let s = self.j.as_ref().singular_values().ok()?;
        let hi = s.iter().fold(0.0f64, |m, v| m.max(*v));
        let lo = s.iter().fold(f64::INFINITY, |m, v| m.min(*v));
        (hi > 0.0 && s.len() == self.l).then_some(lo / hi)
    }

    /// `J`, `b`, `φ` at `q`, and `D = ∂(J v + b)/∂q` by forward differences.
    fn constraint_parts(&mut self, t: f64, q: &[f64], v: &[f64], with_d: bool) {
        let (n, l) = (self.n, self.l);
        let mech = self.inner.mechanism();
        if self.sel.is_empty() {
            mech.constraints(t, q, &mut self.phi);
            mech.constraint_rate_bias(t, q, &mut self.b);
        } else {
            mech.constraints(t, q, &mut self.phif);
            mech.constraint_rate_bias(t, q, &mut self.bf);
            for (i, &row) in self.sel.iter().enumerate() {
                self.phi[i] = self.phif[row];
                self.b[i] = self.bf[row];
            }
        }
        self.jacobian_into_j(t, q);
        if !with_d {
            return;
        }
        for i in 0..l {
            let mut s = self.b[i];
            for k in 0..n {
                s += self.j[(i, k)] * v[k];
            }
            self.g0[i] = s;
        }
        self.qp.copy_from_slice(q);
        for c in 0..n {
            let h = f64::EPSILON.sqrt() * q[c].abs().max(1.0);
            self.qp[c] = q[c] + h;
            let hh = self.qp[c] - q[c];
            mech.constraint_jacobian(t, &self.qp, self.jp.as_mut());
            mech.constraint_rate_bias(t, &self.qp, &mut self.bp);
            for i in 0..l {
                let row = self.row(i);
                let mut s = self.bp[row];
                for k in 0..n {
                    s += self.jp[(row, k)] * v[k];
                }
                self.d[(i, c)] = (s - self.g0[i]) / hh;
            }
            self.qp[c] = q[c];
        }
    }

    /// Factors the stored iteration matrix `G = [[A, B], [C, 0]]` of the multiplier form
    /// for the least-norm solve: `A = LU`, `X = A⁻¹B`, and the pseudo-inverse of the
    /// equilibrated Schur complement `R (C X) C_s` (rows, then columns, scaled to unit
    /// max-norm) with the cut-off [`MULTIPLIER_PINV_RTOL`].
    fn factor_least_norm(&mut self) -> bool {
        let (n2, l2) = (2 * self.n, 2 * self.l);
        let mw = &mut self.mw;
        if mw.a_lu.factor(mw.g.get(..n2, ..n2)).is_err() {
            return false;
        }
        for j in 0..l2 {
            for i in 0..n2 {
                mw.ax[i] = mw.g[(i, n2 + j)];
            }
            mw.a_lu.solve_in_place(&mut mw.ax);
            for i in 0..n2 {
                mw.x_ab[(i, j)] = mw.ax[i];
            }
        }
        for i in 0..l2 {
            for j in 0..l2 {
                let mut s = 0.0;
                for k in 0..n2 {
                    s += mw.g[(n2 + i, k)] * mw.x_ab[(k, j)];
                }
                mw.s_eq[(i, j)] = s;
            }
        }
        for i in 0..l2 {
            let m = (0..l2).fold(0.0f64, |m, j| m.max(mw.s_eq[(i, j)].abs()));
            mw.row_sc[i] = if m > 0.0 { 1.0 / m } else { 1.0 };
            for j in 0..l2 {
                mw.s_eq[(i, j)] *= mw.row_sc[i];
            }
        }
        for j in 0..l2 {
            let m = (0..l2).fold(0.0f64, |m, i| m.max(mw.s_eq[(i, j)].abs()));
            mw.col_sc[j] = if m > 0.0 { 1.0 / m } else { 1.0 };
            for i in 0..l2 {
                mw.s_eq[(i, j)] *= mw.col_sc[j];
            }
        }
        mw.s_pinv
            .compute(mw.s_eq.as_ref(), 0.0, MULTIPLIER_PINV_RTOL)
            .is_ok()
    }

    /// `x ← G⁺x` by block elimination with the least-norm multiplier update, `x = (r_x, r_z)`:
    /// `δz = C_s (R S C_s)⁺ R (C A⁻¹ r_x − r_z)`, `δx = A⁻¹ r_x − X δz`.
    fn solve_least_norm(&mut self, x: &mut [f64]) -> bool {
        let (n2, l2) = (2 * self.n, 2 * self.l);
        let mw = &mut self.mw;
        mw.ax.copy_from_slice(&x[..n2]);
        mw.a_lu.solve_in_place(&mut mw.ax);
        for i in 0..l2 {
            let mut s = -x[n2 + i];
            for k in 0..n2 {
                s += mw.g[(n2 + i, k)] * mw.ax[k];
            }
            mw.rz[i] = s * mw.row_sc[i];
        }
        mw.s_pinv.apply(&mw.rz, &mut mw.dz);
        for (d, c) in mw.dz.iter_mut().zip(&mw.col_sc) {
            *d *= c;
        }
        x[n2..].copy_from_slice(&mw.dz);
        for k in 0..n2 {
            let mut s = mw.ax[k];
            for j in 0..l2 {
                s -= mw.x_ab[(k, j)] * mw.dz[j];
            }
            x[k] = s;
        }
        x.iter().all(|v| v.is_finite())
    }

    /// The weights of the error map at the corrector `y` (see [`EcsForm::Multipliers`]):
    /// `J = UΣWᵀ`, `ωᵢ = min(1, Tᵢ)`, `Tᵢ = σᵢ/‖uᵢᵀD‖` (0 where `σᵢ = 0`). `false` when the SVD
    /// fails.
    fn error_weights(&mut self, t: f64, y: &[f64]) -> bool {
        let (n, l) = (self.n, self.l);
        let (q, v) = (&y[..n], &y[n..2 * n]);
        self.constraint_parts(t, q, v, true);
        if self.mw.j_svd.compute(self.j.as_ref(), 0.0, 0.0).is_err() {
            return false;
        }
        let (u, sv) = (self.mw.j_svd.u(), self.mw.j_svd.singular_values());
        for (k, om) in self.mw.omega.iter_mut().enumerate() {
            // ‖uₖᵀD‖: how a position error moves the constraint row uₖᵀ(J v + b)
            let mut ud = 0.0f64;
            for c in 0..n {
                let mut s = 0.0;
                for i in 0..l {
                    s += u[(i, k)] * self.d[(i, c)];
                }
                ud = ud.hypot(s);
            }
            *om = if ud > 0.0 { (sv[k] / ud).min(1.0) } else { 1.0 };
        }
        true
    }
}

impl<M: Mechanism + ?Sized> DaeResidual for EcsResidual<'_, M> {
    fn dim(&self) -> usize {
        2 * self.n + 2 * self.l
    }
    fn residual(&mut self, t: f64, y: &[f64], yp: &[f64], r: &mut [f64]) -> Result<(), RhsError> {
        let (n, l) = (self.n, self.l);
        let n2 = 2 * n;
        if self.form == EcsForm::Multipliers {
            self.inner.evals += 1;
            let (q, v) = (&y[..n], &y[n..n2]);
            let (mu, lam) = (&y[n2..n2 + l], &y[n2 + l..]);
            let mech = self.inner.mechanism();
            Self::dynamic_rows(
                mech,
                &mut self.mw,
                &mut self.jp,
                t,
                q,
                v,
                &yp[n..n2],
                lam,
                &mut r[n..n2],
            );
            self.constraint_parts(t, q, v, false);
            // GGL: q̇ − v + Jᵀμ
            for k in 0..n {
                let mut s = yp[k] - v[k];
                for i in 0..l {
                    s += self.j[(i, k)] * mu[i];
                }
                r[k] = s;
            }
            self.constraint_rows(v, r);
            if let Some(index) = r.iter().position(|x| !x.is_finite()) {
                return Err(RhsError::NonFinite { index });
            }
            return Ok(());
        }
        self.inner.eval_counted(t, &y[..n2], &mut self.f)?;
        let (q, v) = (&y[..n], &y[n..n2]);
        let full = self.form == EcsForm::Full;
        self.constraint_parts(t, q, v, full);
        let (mu1, mu2) = (&y[n2..n2 + l], &y[n2 + l..]);
        // Keerthi (4.4): ẋ − f(x) + g_xᵀ μ
        for k in 0..n {
            let mut s = yp[k] - self.f[k];
            for i in 0..l {
                s += self.j[(i, k)] * mu1[i];
                if full {
                    s += self.d[(i, k)] * mu2[i];
                }
            }
            r[k] = s;
            let mut s2 = yp[n + k] - self.f[n + k];
            for i in 0..l {
                s2 += self.j[(i, k)] * mu2[i];
            }
            r[n + k] = s2;
        }
        self.constraint_rows(v, r);
        Ok(())
    }
}

impl<M: Mechanism + ?Sized> DaeJacobian for EcsResidual<'_, M> {
    fn iteration_matrix(
        &mut self,
        t: f64,
        y: &[f64],
        _yp: &[f64],
        cj: f64,
        mut m: MatMut<'_, f64>,
    ) -> Result<(), RhsError> {
        let (n, l) = (self.n, self.l);
        let n2 = 2 * n;
        m.fill(0.0);
        if self.form == EcsForm::Multipliers {
            self.multiplier_matrix(t, y, _yp, cj, m.as_mut());
            self.mw.g.copy_from(m.as_ref());
            if !self.factor_least_norm() {
                return Err(RhsError::SingularMatrix);
            }
            return Ok(());
        }
        // ∂F_x/∂x = cj I − ∂f/∂x (forward differences of the accelerations).
        // Every acceleration solve is in N_f, as for every other BDF run ([`crate::BdfOde`]):
        // the base point and the 2N columns (`jacobian_f_evals` reports them separately).
        self.xp.copy_from_slice(&y[..n2]);
        self.jac_f_evals += 1;
        self.inner.eval_counted(t, &y[..n2], &mut self.f)?;
        for c in 0..n2 {
            let h = f64::EPSILON.sqrt() * y[c].abs().max(1.0);
            self.xp[c] = y[c] + h;
            let hh = self.xp[c] - y[c];
            self.jac_f_evals += 1;
            self.inner.eval_counted(t, &self.xp, &mut self.f2)?;
            for rrow in 0..n2 {
                m[(rrow, c)] = -(self.f2[rrow] - self.f[rrow]) / hh;
            }
            self.xp[c] = y[c];
        }
        for k in 0..n2 {
            m[(k, k)] += cj;
        }
        let (q, v) = (&y[..n], &y[n..n2]);
        self.constraint_parts(t, q, v, true);
        let full = self.form == EcsForm::Full;
        for i in 0..l {
            for k in 0..n {
                // μ columns: g_xᵀ
                m[(k, n2 + i)] = self.j[(i, k)];
                if full {
                    m[(k, n2 + l + i)] = self.d[(i, k)];
                }
                m[(n + k, n2 + l + i)] = self.j[(i, k)];
                // g rows: g_x
                m[(n2 + i, k)] = self.j[(i, k)];
                m[(n2 + l + i, k)] = self.d[(i, k)];
                m[(n2 + l + i, n + k)] = self.j[(i, k)];
            }
        }
        Ok(())
    }

    fn owns_solve(&self) -> bool {
        self.form == EcsForm::Multipliers
    }

    fn solve_iteration(&mut self, x: &mut [f64]) -> bool {
        self.form == EcsForm::Multipliers && self.solve_least_norm(x)
    }

    fn map_newton_update(&mut self, delta: &mut [f64]) -> bool {
        if self.form != EcsForm::Multipliers {
            return false;
        }
        let (n2, l2) = (2 * self.n, 2 * self.l);
        let mw = &self.mw;
        for k in 0..n2 {
            let mut s = 0.0;
            for j in 0..l2 {
                s += mw.x_ab[(k, j)] * delta[n2 + j];
            }
            delta[k] = delta[k].hypot(s);
        }
        delta[n2..].fill(0.0);
        true
    }

    fn map_error_estimate(&mut self, t: f64, h: f64, y: &[f64], e: &mut [f64]) -> bool {
        if self.form != EcsForm::Multipliers {
            return false;
        }
        // the weights at this corrector (the error test and the order selection of one step
        // map several estimates at one corrector)
        if self.mw.map_key != (t, h) || self.mw.map_y != y {
            self.mw.map_key = (f64::NAN, f64::NAN);
            if !self.error_weights(t, y) {
                return false;
            }
            self.mw.map_key = (t, h);
            self.mw.map_y.copy_from_slice(y);
        }
        // e_v ← e_v − Σ (1 − ωₖ) wₖ wₖᵀe_v
        let n = self.n;
        let w = self.mw.j_svd.v();
        for (k, &om) in self.mw.omega.iter().enumerate() {
            if om >= 1.0 {
                continue;
            }
            let mut p = 0.0;
            for c in 0..n {
                p += w[(c, k)] * e[n + c];
            }
            for c in 0..n {
                e[n + c] -= (1.0 - om) * p * w[(c, k)];
            }
        }
        true
    }
}

impl<M: Mechanism + ?Sized> EcsResidual<'_, M> {
    /// The constraint rows of the residual, (1.6): `g(x) = (φ, J v + b)` after the `2N`
    /// differential rows, from `φ`, `J` and `b` at the current `q`.
    fn constraint_rows(&self, v: &[f64], r: &mut [f64]) {
        let (n, l) = (self.n, self.l);
        let n2 = 2 * n;
        for i in 0..l {
            r[n2 + i] = self.phi[i];
            let mut s = self.b[i];
            for k in 0..n {
                s += self.j[(i, k)] * v[k];
            }
            r[n2 + l + i] = s;
        }
    }

    /// The iteration matrix of the multiplier form: the dynamic rows by forward differences
    /// of `M a + h − u − Jᵀλ` in `(q, v)`, the rest exact (`∂(Jᵀμ)/∂q` neglected, `μ ≈ 0`).
    fn multiplier_matrix(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        cj: f64,
        mut m: MatMut<'_, f64>,
    ) {
        let (n, l) = (self.n, self.l);
        let n2 = 2 * n;
        let mech = self.inner.mechanism();
        let (q, v) = (&y[..n], &y[n..n2]);
        let (a, lam) = (&yp[n..n2], &y[n2 + l..]);
        let mut r0 = std::mem::take(&mut self.mw.r0);
        let mut r1 = std::mem::take(&mut self.mw.r1);
        Self::dynamic_rows(mech, &mut self.mw, &mut self.jp, t, q, v, a, lam, &mut r0);
        self.jac_f_evals += 1;
        self.inner.evals += 1;
        self.qp.copy_from_slice(q);
        self.mw.vp.copy_from_slice(v);
        for c in 0..n2 {
            self.jac_f_evals += 1;
            self.inner.evals += 1;
            let base = y[c];
            let h = f64::EPSILON.sqrt() * base.abs().max(1.0);
            let hh = (base + h) - base;
            if c < n {
                self.qp[c] = base + hh;
            } else {
                self.mw.vp[c - n] = base + hh;
            }
            let vp = std::mem::take(&mut self.mw.vp);
            Self::dynamic_rows(
                mech,
                &mut self.mw,
                &mut self.jp,
                t,
                &self.qp,
                &vp,
                a,
                lam,
                &mut r1,
            );
            self.mw.vp = vp;
            for row in 0..n {
                m[(n + row, c)] = (r1[row] - r0[row]) / hh;
            }
            if c < n {
                self.qp[c] = base;
            } else {
                self.mw.vp[c - n] = base;
            }
        }
        self.mw.r0 = r0;
        self.mw.r1 = r1;
        // M v̇ enters with c_j M
        mech.mass_matrix(q, self.mw.mass.as_mut());
        for r in 0..n {
            for c in 0..n {
                m[(n + r, n + c)] += cj * self.mw.mass[(r, c)];
            }
            m[(r, r)] = cj;
            m[(r, n + r)] = -1.0;
        }
        self.constraint_parts(t, q, v, true);
        for i in 0..l {
            for k in 0..n {
                m[(k, n2 + i)] = self.j[(i, k)];
                m[(n + k, n2 + l + i)] = -self.j[(i, k)];
                m[(n2 + i, k)] = self.j[(i, k)];
                m[(n2 + l + i, k)] = self.d[(i, k)];
                m[(n2 + l + i, n + k)] = self.j[(i, k)];
            }
        }
    }
}

/// GGL (4.4) as a method of the driver. The stepper is the BDF on the DAE residual (not an
/// explicit-interface integrator): [`ExactStabilization::new`] builds both, the loop is the
/// one of every method.
#[derive(Debug)]
pub(crate) struct ExactStabilization<'m, M: ?Sized> {
    prob: WithJacobian<EcsResidual<'m, M>>,
    /// `σ_min(J)/σ_max(J)` at the initial state.
    initial_ratio: f64,
}

impl<'m, M: Mechanism + ?Sized> ExactStabilization<'m, M> {
    /// The method and its BDF (needs [`Integrator::Bdf`]) at `y₀ = (x₀, 0)`,
    /// `y'₀ = (f(x₀), 0)` with `μ` out of the error test.
    pub(crate) fn new(
        ctx: &RunContext<'_, 'm, M>,
        cfg: &EcsConfig,
    ) -> Result<(Self, Bdf), ProjectionError> {
        let bdf_cfg = match ctx.integrator {
            Integrator::Bdf(c) => c.clone(),
            other => {
                return Err(ProjectionError::UnsupportedIntegrator {
                    method: "exact_stabilization",
                    integrator: other.name(),
                })
            }
        };
        let mech = ctx.mech;
        let n = mech.dof();
        let n2 = 2 * n;
        let mut res = EcsResidual::new(mech, cfg.form, ctx.dynamics)?;
        if cfg.form != EcsForm::Multipliers {
            // rank, not rows: L rows of rank r < L enter (4.4) as their r independent rows
            res.remove_redundant_rows(ctx.t0, &ctx.x0[..n]);
        }
        let l = res.l;
        let dim = n2 + 2 * l;
        // Consistent y'₀ = (f(x₀), 0); counted as the initial evaluation.
        let mut y0 = ctx.x0.clone();
        y0.resize(dim, 0.0);
        let mut yp0 = vec![0.0; dim];
        res.inner
            .eval_counted(ctx.t0, &ctx.x0, &mut yp0[..n2])
            .map_err(|_| match res.inner.last_error.take() {
                Some(e) => ProjectionError::Model(e),
                None => ProjectionError::InvalidParameter {
                    name: "initial state",
                    value: f64::NAN,
                },
            })?;
        if cfg.form == EcsForm::Multipliers {
            // λ₀ from the KKT solve at x₀; y'₀ = (v₀, a₀, 0, 0)
            let lam = res.inner.lambda().to_vec();
            y0[n2 + l..].copy_from_slice(&lam);
        }
        let mut alg = vec![false; dim];
        for a in &mut alg[n2..] {
            *a = true;
        }
        let bdf_cfg = bdf_cfg
            .with_algebraic_excluded(alg)
            .with_initial_derivative(yp0);
        let tol = ctx.error_control.to_ode_with_algebraic(dim, 2 * l);
        let stepper = Bdf::new(ctx.t0, &y0, tol, bdf_cfg)?;
        let initial_ratio = res.sigma_ratio(ctx.t0, &ctx.x0).unwrap_or(0.0);
        Ok((
            Self {
                prob: WithJacobian(res),
                initial_ratio,
            },
            stepper,
        ))
    }

    /// The run's error for a failure `e` of the BDF after the accepted state `last`:
    /// [`ProjectionError::GglSingularPassage`] where `J` there is near a rank drop (see
    /// [`PASSAGE_BAND_RATIO`]), otherwise the integrator's error.
    fn failure(&mut self, e: OdeError, last: Accepted<'_>) -> ProjectionError {
        let newton = matches!(
            e,
            OdeError::NoConvergence { .. }
                | OdeError::StepSizeTooSmall { .. }
                | OdeError::SingularIterationMatrix { .. }
        );
        if newton && self.initial_ratio >= PASSAGE_BAND_RATIO {
            if let Some(ratio) = self.prob.0.sigma_ratio(last.t, last.x) {
                if ratio < PASSAGE_BAND_RATIO {
                    return ProjectionError::GglSingularPassage {
                        t: last.t,
                        sigma_ratio: ratio,
                        source: e,
                    };
                }
            }
        }
        self.integrator_error(e)
    }
}

impl<'m, M: Mechanism + ?Sized> ConstraintMethod<M> for ExactStabilization<'m, M> {
    type Problem = WithJacobian<EcsResidual<'m, M>>;

    fn name(&self) -> &'static str {
        "exact_stabilization"
    }

    fn problem(&mut self) -> &mut Self::Problem {
        &mut self.prob
    }

    fn kkt_dynamics(&mut self) -> Option<&mut ConstrainedDynamics> {
        Some(self.prob.0.inner.dynamics_mut())
    }

    fn integrator_error(&mut self, e: OdeError) -> ProjectionError {
        ode_error(e, &mut self.prob.0.inner.last_error)
    }

    fn step_failed(
        &mut self,
        e: OdeError,
        last: Accepted<'_>,
        _y_restart: &mut [f64],
    ) -> Result<EventKind, ProjectionError> {
        Err(self.failure(e, last))
    }

    fn add_stats(&self, s: &mut SimulationStats) {
        s.f_evals = self.prob.0.inner.evals;
        s.jacobian_f_evals = self.prob.0.jac_f_evals;
        s.rank_revealing_evals = self.prob.0.inner.rank_revealing_solves();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contour_model::models::Pendulum;

    /// The iteration matrix `∂F/∂y + c_j ∂F/∂y'` supplied at `(y, y')` for the pendulum
    /// (`y = (q, v, ·, ·)`, four differential components), checked column by column against
    /// central differences of the residual; returned for further checks.
    fn assert_matrix_is_central_differences(
        res: &mut EcsResidual<'_, Pendulum>,
        y: &[f64; 6],
        yp: &[f64; 6],
        cj: f64,
    ) -> Mat<f64> {
        let mut m = Mat::<f64>::zeros(6, 6);
        res.iteration_matrix(0.0, y, yp, cj, m.as_mut()).unwrap();
        for c in 0..6 {
            let h = 1e-6;
            let (mut y1, mut y2) = (*y, *y);
            y1[c] += h;
            y2[c] -= h;
            let (mut d1, mut d2) = (*yp, *yp);
            if c < 4 {
                d1[c] += cj * h;
                d2[c] -= cj * h;
            }
            let (mut r1, mut r2) = ([0.0; 6], [0.0; 6]);
            res.residual(0.0, &y1, &d1, &mut r1).unwrap();
            res.residual(0.0, &y2, &d2, &mut r2).unwrap();
            for row in 0..6 {
                let fd = (r1[row] - r2[row]) / (2.0 * h);
                assert!(
                    (fd - m[(row, c)]).abs() < 1e-5 * (1.0 + fd.abs()),
                    "({row},{c}) {fd} {}",
                    m[(row, c)]
                );
            }
        }
        m
    }

    /// At a consistent state with `μ = 0` and `ẋ = f(x)` the residual of (4.4) vanishes, and
    /// the supplied iteration matrix agrees with finite differences of the residual.
    #[test]
    fn residual_and_iteration_matrix() {
        let p = Pendulum::default();
        let (q, qd) = p.state(0.6, -0.8);
        let mut res = EcsResidual {
            inner: ConstrainedRhs::new(&p, DynamicsOptions::default()).unwrap(),
            n: 2,
            l: 1,
            sel: Vec::new(),
            jf: Mat::zeros(0, 0),
            phif: Vec::new(),
            bf: Vec::new(),
            form: EcsForm::Full,
            j: Mat::zeros(1, 2),
            jp: Mat::zeros(1, 2),
            d: Mat::zeros(1, 2),
            phi: vec![0.0; 1],
            b: vec![0.0; 1],
            bp: vec![0.0; 1],
            g0: vec![0.0; 1],
            qp: vec![0.0; 2],
            f: vec![0.0; 4],
            f2: vec![0.0; 4],
            xp: vec![0.0; 4],
            jac_f_evals: 0,
            mw: MultiplierWork::new(2, 1),
        };
        let y = [q[0], q[1], qd[0], qd[1], 0.0, 0.0];
        let mut yp = [0.0; 6];
        res.inner.eval_counted(0.0, &y[..4], &mut yp[..4]).unwrap();
        let mut r = [0.0; 6];
        res.residual(0.0, &y, &yp, &mut r).unwrap();
        assert!(r.iter().all(|v| v.abs() < 1e-14), "{r:?}");
        // iteration matrix vs central differences (μ ≠ 0 terms are neglected: use μ = 0)
        assert_matrix_is_central_differences(&mut res, &y, &yp, 7.0);
    }

    /// The multiplier form: at a consistent state with `μ = 0`, `λ` from the KKT solve and
    /// `y' = (q̇, q̈, 0, 0)` the residual vanishes; the supplied iteration matrix agrees with
    /// central differences of the residual; at this regular state the least-norm solve is the
    /// solve (against faer's complete-pivoting LU of the same matrix); the error map leaves
    /// the position estimate alone and weights the velocity estimate by `ωᵢ ≤ 1`.
    #[test]
    fn multiplier_form_residual_matrix_and_solve() {
        let p = Pendulum::default();
        let (q, qd) = p.state(0.6, -0.8);
        let mut res =
            EcsResidual::new(&p, EcsForm::Multipliers, DynamicsOptions::default()).unwrap();
        let mut a = [0.0; 4];
        res.inner
            .eval_counted(0.0, &[q[0], q[1], qd[0], qd[1]], &mut a)
            .unwrap();
        let lam = res.inner.lambda()[0];
        let y = [q[0], q[1], qd[0], qd[1], 0.0, lam];
        let yp = [a[0], a[1], a[2], a[3], 0.0, 0.0];
        let mut r = [0.0; 6];
        res.residual(0.0, &y, &yp, &mut r).unwrap();
        assert!(r.iter().all(|v| v.abs() < 1e-12), "{r:?}");
        let m = assert_matrix_is_central_differences(&mut res, &y, &yp, 7.0);
        let rhs = [0.3, -1.2, 0.7, 2.0, -0.4, 0.9];
        let mut x = rhs;
        assert!(res.owns_solve() && res.solve_iteration(&mut x));
        use faer::linalg::solvers::Solve;
        let b = Mat::<f64>::from_fn(6, 1, |i, _| rhs[i]);
        let want = m.full_piv_lu().solve(&b);
        for i in 0..6 {
            assert!(
                (x[i] - want[(i, 0)]).abs() < 1e-12 * (1.0 + want[(i, 0)].abs()),
                "{i}"
            );
        }
        let mut e = [1.0; 6];
        assert!(res.map_error_estimate(0.0, 1e-3, &y, &mut e));
        assert!(e[..2].iter().all(|v| *v == 1.0), "{e:?}");
        let (before, after) = (2.0f64.sqrt(), e[2].hypot(e[3]));
        assert!(after <= before * (1.0 + 1e-14), "{e:?}");
        // the Newton test's measure: |δx_k| and |(A⁻¹B δz)_k| combined, the multipliers out;
        // A⁻¹B δz by faer's full-pivoting LU of the (q, v) block of G
        let d = [1e-3, -2e-3, 5e-4, 0.0, 3.0, -0.25];
        let mut mapped = d;
        assert!(res.map_newton_update(&mut mapped));
        let bz = Mat::<f64>::from_fn(4, 1, |i, _| m[(i, 4)] * d[4] + m[(i, 5)] * d[5]);
        let xz = m.get(..4, ..4).full_piv_lu().solve(&bz);
        for k in 0..4 {
            let want = d[k].hypot(xz[(k, 0)]);
            assert!(
                (mapped[k] - want).abs() < 1e-12 * (1.0 + want),
                "{k}: {mapped:?}"
            );
        }
        // the multiplier update counts through its effect on x
        assert!((0..4).any(|k| mapped[k] > d[k].abs() + 1e-6), "{mapped:?}");
        assert_eq!(&mapped[4..], &[0.0, 0.0]);
        let mut other =
            EcsResidual::new(&p, EcsForm::BlockDiagonal, DynamicsOptions::default()).unwrap();
        assert!(!other.map_newton_update(&mut mapped));
    }

    /// The multiplier form's per-step work (residual, iteration matrix, least-norm solve, error
    /// map, Newton map) allocates nothing once its workspace exists, as a second step would
    /// run it (the counter is shown live first).
    #[test]
    fn multiplier_form_step_allocates_nothing() {
        let live = allocation_counter::measure(|| {
            std::hint::black_box(Box::new(1.0f64));
        });
        assert_eq!(live.count_total, 1, "counter not live: {live:?}");
        let p = Pendulum::default();
        let (q, qd) = p.state(0.6, -0.8);
        let mut res =
            EcsResidual::new(&p, EcsForm::Multipliers, DynamicsOptions::default()).unwrap();
        let mut a = [0.0; 4];
        res.inner
            .eval_counted(0.0, &[q[0], q[1], qd[0], qd[1]], &mut a)
            .unwrap();
        let y = [q[0], q[1], qd[0], qd[1], 0.0, res.inner.lambda()[0]];
        let yp = [a[0], a[1], a[2], a[3], 0.0, 0.0];
        let mut m = Mat::<f64>::zeros(6, 6);
        let mut step = |res: &mut EcsResidual<'_, Pendulum>, t: f64| {
            let mut r = [0.0; 6];
            res.residual(t, &y, &yp, &mut r).unwrap();
            res.iteration_matrix(t, &y, &yp, 7.0, m.as_mut()).unwrap();
            let mut x = [0.3, -1.2, 0.7, 2.0, -0.4, 0.9];
            assert!(res.solve_iteration(&mut x));
            let mut e = [1.0; 6];
            assert!(res.map_error_estimate(t, 1e-3, &y, &mut e));
            let mut d = [1e-3, -2e-3, 5e-4, 0.0, 3.0, -0.25];
            assert!(res.map_newton_update(&mut d));
        };
        step(&mut res, 0.0);
        let info = allocation_counter::measure(|| step(&mut res, 1e-3));
        assert_eq!(info.count_total, 0, "{info:?}");
    }
}
