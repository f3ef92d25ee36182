//! Contact dynamics of a mechanism with unilateral rows, for a chosen set of active rows.
//!
//! ```text
//! M q̈ + h = u + G_A λ_A,     G_A = J_Aᵀ − μ q̇/‖q̇‖ 1ᵀ   (friction (6.3.4), μ = 0 without)
//! J_A q̈ + ρ_A + α (J_A q̇ + b_A) + β φ_A = 0               (Huang (2.3.1)–(2.3.2), (6.3.2))
//! λ_A = −(J_A M⁻¹ G_A)⁻¹ (J_A M⁻¹ (u − h) + ρ_A + α(J_A q̇ + b_A) + β φ_A)
//! ```
//!
//! and the impact law (3.3.8)–(3.3.9) / (5.3.12)–(5.3.14), generalized to several rows and a
//! coefficient of restitution `e` by the LCP `w = A ξ + (1 + e) J q̇⁻ ≥ 0`, `ξ ≥ 0`, `ξᵀw = 0`,
//! `A = J M⁻¹ Jᵀ`, `q̇⁺ = q̇⁻ + M⁻¹ Jᵀ ξ` (with one row and `e = 0`:
//! `ξ = −A⁻¹ J q̇⁻`, exactly Huang (5.3.12)–(5.3.13), since Huang's `D J_H` is our `J`).
//! Workspaces are allocated in [`ContactDynamics::new`]; nothing allocates afterwards.

use crate::error::ContactError;
use crate::lcp::Lcp;
use contour_linalg::{Cholesky, LinalgError, Lu};
use contour_model::{Mechanism, ModelTerms, Terms};
use faer::MatRef;

/// Friction mode on the active rows (Huang (6.3.4) in joint space: valid when `p = q`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FrictionMode {
    /// No friction force.
    None,
    /// Sliding: `f = −μ (Σλ) q̇/‖q̇‖` (Huang (6.3.4)); zero when `q̇ = 0`.
    Slip {
        /// Coefficient μ.
        mu: f64,
    },
    /// Sticking: `q̈ = 0`, λ and the friction force from the static balance
    /// `u − h + Jᵀλ + f = 0` with `J f = 0`.
    Stick,
}

/// Workspace: the model terms `M, J, h, u, ρ, b, φ` of one mechanism at the last evaluated
/// state ([`ModelTerms`]), the factorizations and the active-row matrices.
#[derive(Debug, Clone)]
pub struct ContactDynamics {
    n: usize,
    l: usize,
    terms: ModelTerms,
    /// `M = L Lᵀ` of the last evaluation.
    chol_m: Cholesky,
    /// `S = J_A M⁻¹ J_Aᵀ = L_S L_Sᵀ` of `k` active rows, one workspace per size `k = 1..=L`.
    chol_s: Vec<Cholesky>,
    /// LU of `J_A M⁻¹ G_A` (unsymmetric with friction), one workspace per size `k = 1..=L`.
    lu_s: Vec<Lu>,
    minv_f: Vec<f64>,
    /// `C = M⁻¹ G` column-major (`n` per active row).
    c: Vec<f64>,
    s: Vec<f64>,
    rhs: Vec<f64>,
    w: Vec<f64>,
    lcp: Lcp,
    /// Baumgarte gains (α, β) on the active rows (`None`: plain index-1 form).
    pub baumgarte: Option<(f64, f64)>,
    /// Last friction force (length N) computed by [`ContactDynamics::accelerations`].
    pub friction_force: Vec<f64>,
    /// `true` once [`ContactDynamics::evaluate`] has succeeded.
    evaluated: bool,
}

/// `v.len() == expected`, else [`ContactError::DimensionMismatch`] naming `what`.
fn check_len(what: &'static str, v: &[f64], expected: usize) -> Result<(), ContactError> {
    if v.len() == expected {
        Ok(())
    } else {
        Err(ContactError::DimensionMismatch {
            what,
            expected,
            found: v.len(),
        })
    }
}

/// Every entry of `v` finite, else [`ContactError::NonFinite`] naming `what` and the index.
fn check_finite(what: &'static str, v: &[f64]) -> Result<(), ContactError> {
    match v.iter().position(|x| !x.is_finite()) {
        None => Ok(()),
        Some(index) => Err(ContactError::NonFinite { what, index }),
    }
}

/// `v.len() == expected` and every entry finite.
fn check_input(what: &'static str, v: &[f64], expected: usize) -> Result<(), ContactError> {
    check_len(what, v, expected)?;
    check_finite(what, v)
}

/// Row indices below `l`, each at most once (a repeated row makes `J_A M⁻¹ J_Aᵀ` singular).
fn check_rows(what: &'static str, rows: &[usize], l: usize) -> Result<(), ContactError> {
    for (r, &i) in rows.iter().enumerate() {
        if i >= l || rows[..r].contains(&i) {
            return Err(ContactError::RowIndex {
                what,
                index: i,
                len: l,
            });
        }
    }
    Ok(())
}

impl ContactDynamics {
    /// Workspace for `mech`.
    pub fn new<M: Mechanism + ?Sized>(mech: &M) -> Self {
        let (n, l) = (mech.dof(), mech.n_constraints());
        Self {
            n,
            l,
            terms: ModelTerms::new(mech),
            chol_m: Cholesky::new(n),
            chol_s: (1..=l).map(Cholesky::new).collect(),
            lu_s: (1..=l).map(Lu::new).collect(),
            minv_f: vec![0.0; n],
            c: vec![0.0; n * l.max(1)],
            s: vec![0.0; l * l],
            rhs: vec![0.0; l],
            w: vec![0.0; l],
            lcp: Lcp::new(l),
            baumgarte: None,
            friction_force: vec![0.0; n],
            evaluated: false,
        }
    }

    /// `mech` has the dimensions this workspace was made for.
    fn check_mechanism<M: Mechanism + ?Sized>(&self, mech: &M) -> Result<(), ContactError> {
        for (what, expected, found) in [
            ("mech.dof()", self.n, mech.dof()),
            ("mech.n_constraints()", self.l, mech.n_constraints()),
        ] {
            if expected != found {
                return Err(ContactError::DimensionMismatch {
                    what,
                    expected,
                    found,
                });
            }
        }
        Ok(())
    }

    /// [`ContactError::NotEvaluated`] before the first successful [`ContactDynamics::evaluate`].
    fn check_evaluated(&self, what: &'static str) -> Result<(), ContactError> {
        if self.evaluated {
            Ok(())
        } else {
            Err(ContactError::NotEvaluated { what })
        }
    }

    /// Evaluates `M, J, h, u, ρ, b, φ` at `(t, q, q̇)` ([`ModelTerms::evaluate`]: a non-finite
    /// output is [`ContactError::Model`] naming the term and index), factors `M` and
    /// computes `M⁻¹(u − h)`.
    ///
    /// Errors: `q`, `qd` not of length N or not finite, `t` not finite, the model's errors,
    /// `M` not positive definite, a non-finite `M⁻¹(u − h)`.
    pub fn evaluate<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        qd: &[f64],
    ) -> Result<(), ContactError> {
        let n = self.n;
        self.check_mechanism(mech)?;
        check_input("t", &[t], 1)?;
        check_input("q", q, n)?;
        check_input("qd", qd, n)?;
        self.evaluated = false;
        self.evaluate_in(mech, t, q, qd)?;
        check_finite("M^-1 (u - h)", &self.minv_f)?;
        self.evaluated = true;
        Ok(())
    }

    /// [`ContactDynamics::evaluate`] without the argument checks (lengths and finiteness are
    /// the caller's: the simulator checks them once at its boundary).
    pub(crate) fn evaluate_in<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
        qd: &[f64],
    ) -> Result<(), ContactError> {
        self.terms.evaluate(mech, t, q, qd, None, Terms::All)?;
        self.chol_m
            .factor(self.terms.mass_matrix())
            .map_err(|e| ContactError::factorization("mass matrix", e))?;
        self.minv_f.copy_from_slice(self.terms.net_force());
        self.chol_m.solve_in_place(&mut self.minv_f);
        self.evaluated = true;
        Ok(())
    }

    /// `C = M⁻¹ G_A` (column `r` of `n` entries per row `rows[r]`, `G_A = J_Aᵀ − μ q̇/‖q̇‖ 1ᵀ`,
    /// Huang (6.3.4); `friction = None`: `G_A = J_Aᵀ`) and `S = J_A C` (row-major k×k), the
    /// one place the active-row matrices of the acceleration solve, the contact LCP, the
    /// impact law (5.3.14) and the projection are formed. No allocation.
    fn active_schur(&mut self, rows: &[usize], friction: Option<(f64, &[f64], f64)>) {
        let (n, k) = (self.n, rows.len());
        let j = self.terms.jacobian();
        for (r, &i) in rows.iter().enumerate() {
            let col = &mut self.c[r * n..(r + 1) * n];
            for (p, cp) in col.iter_mut().enumerate() {
                *cp = j[(i, p)];
            }
            if let Some((mu, qd, speed)) = friction {
                for (cp, v) in col.iter_mut().zip(qd) {
                    *cp -= mu * v / speed;
                }
            }
            self.chol_m.solve_in_place(col);
        }
        for (r, &i) in rows.iter().enumerate() {
            for cc in 0..k {
                let col = &self.c[cc * n..(cc + 1) * n];
                self.s[r * k + cc] = (0..n).map(|p| j[(i, p)] * col[p]).sum();
            }
        }
    }

    /// `(J_A)_i · x` for row `i`.
    fn row_dot(&self, i: usize, x: &[f64]) -> f64 {
        let j = self.terms.jacobian();
        (0..self.n).map(|p| j[(i, p)] * x[p]).sum()
    }

    /// Number of constraint rows L.
    pub fn n_constraints(&self) -> usize {
        self.l
    }

    /// φ of the last evaluation.
    pub fn phi(&self) -> &[f64] {
        self.terms.phi()
    }

    /// Normal velocity `J_i q̇ + b_i` of row `i` at the last evaluation.
    ///
    /// Errors: `i ≥ L` ([`ContactError::RowIndex`]), `qd` not of length N or not finite, no
    /// evaluation yet, a non-finite result.
    pub fn normal_velocity(&self, i: usize, qd: &[f64]) -> Result<f64, ContactError> {
        check_rows("i", &[i], self.l)?;
        check_input("qd", qd, self.n)?;
        self.check_evaluated("normal_velocity")?;
        let w = self.normal_velocity_in(i, qd);
        check_finite("normal velocity", &[w])?;
        Ok(w)
    }

    /// [`ContactDynamics::normal_velocity`] without checks (`i < L`, `qd.len() == N`).
    pub(crate) fn normal_velocity_in(&self, i: usize, qd: &[f64]) -> f64 {
        self.terms.constraint_rate(i, qd)
    }

    /// Applied minus bias forces `u − h` of the last evaluation.
    pub fn net_force(&self) -> &[f64] {
        self.terms.net_force()
    }

    /// Accelerations and multipliers with the rows `active` held (λ of other rows set to 0).
    /// Call [`ContactDynamics::evaluate`] first.
    ///
    /// Errors: an index of `active` not below L or repeated ([`ContactError::RowIndex`]),
    /// `qd`, `qdd` not of length N, `lambda` not of length L, `qd` not finite, a sliding μ not
    /// finite or negative, no evaluation yet, a singular active set, a non-finite q̈, λ or
    /// friction force ([`ContactError::NonFinite`] naming it).
    pub fn accelerations(
        &mut self,
        active: &[usize],
        friction: FrictionMode,
        qd: &[f64],
        qdd: &mut [f64],
        lambda: &mut [f64],
    ) -> Result<(), ContactError> {
        check_rows("active", active, self.l)?;
        check_input("qd", qd, self.n)?;
        check_len("qdd", qdd, self.n)?;
        check_len("lambda", lambda, self.l)?;
        if let FrictionMode::Slip { mu } = friction {
            if !(mu >= 0.0 && mu.is_finite()) {
                return Err(ContactError::InvalidParameter {
                    name: "mu",
                    value: mu,
                });
            }
        }
        self.check_evaluated("accelerations")?;
        self.accelerations_in(active, friction, qd, qdd, lambda)?;
        check_finite("qdd", qdd)?;
        check_finite("lambda", lambda)?;
        check_finite("friction force", &self.friction_force)
    }

    /// [`ContactDynamics::accelerations`] without the argument checks.
    pub(crate) fn accelerations_in(
        &mut self,
        active: &[usize],
        friction: FrictionMode,
        qd: &[f64],
        qdd: &mut [f64],
        lambda: &mut [f64],
    ) -> Result<(), ContactError> {
        let (n, k) = (self.n, active.len());
        lambda.fill(0.0);
        self.friction_force.fill(0.0);
        if k == 0 {
            qdd.copy_from_slice(&self.minv_f);
            return Ok(());
        }
        if let FrictionMode::Stick = friction {
            // q̈ = 0; Jᵀλ + f = −(u − h) with J f = 0 (Euclidean split; p = q).
            qdd.fill(0.0);
            let (j, f) = (self.terms.jacobian(), self.terms.net_force());
            for (r, &i) in active.iter().enumerate() {
                for (c, &jj) in active.iter().enumerate() {
                    self.s[r * k + c] = (0..n).map(|p| j[(i, p)] * j[(jj, p)]).sum();
                }
                self.rhs[r] = -(0..n).map(|p| j[(i, p)] * f[p]).sum::<f64>();
            }
            self.solve_s(k)?;
            let (j, f) = (self.terms.jacobian(), self.terms.net_force());
            for p in 0..n {
                let jl: f64 = active
                    .iter()
                    .enumerate()
                    .map(|(r, &i)| j[(i, p)] * self.rhs[r])
                    .sum();
                self.friction_force[p] = -f[p] - jl;
            }
            for (r, &i) in active.iter().enumerate() {
                lambda[i] = self.rhs[r];
            }
            return Ok(());
        }
        let speed = qd.iter().map(|v| v * v).sum::<f64>().sqrt();
        let mu = match friction {
            FrictionMode::Slip { mu } if speed > 0.0 => mu,
            _ => 0.0,
        };
        // C = M⁻¹ G_A, G_A = J_Aᵀ − μ q̇/‖q̇‖   (Huang (6.3.4)), S = J_A C
        self.active_schur(active, (mu > 0.0).then_some((mu, qd, speed)));
        // rhs = −(J_A M⁻¹(u−h) + ρ + α(J q̇ + b) + β φ)   Huang (2.3.2), (6.3.2)
        for (r, &i) in active.iter().enumerate() {
            let mut v = self.row_dot(i, &self.minv_f) + self.terms.accel_bias()[i];
            if let Some((alpha, beta)) = self.baumgarte {
                v += alpha * self.terms.constraint_rate(i, qd) + beta * self.terms.phi()[i];
            }
            self.rhs[r] = -v;
        }
        self.solve_s(k)?;
        for p in 0..n {
            qdd[p] = self.minv_f[p] + (0..k).map(|r| self.c[r * n + p] * self.rhs[r]).sum::<f64>();
        }
        let lsum: f64 = self.rhs[..k].iter().sum();
        if mu > 0.0 {
            for p in 0..n {
                self.friction_force[p] = -mu * lsum * qd[p] / speed;
            }
        }
        for (r, &i) in active.iter().enumerate() {
            lambda[i] = self.rhs[r];
        }
        Ok(())
    }

    fn solve_s(&mut self, k: usize) -> Result<(), ContactError> {
        // S is J M⁻¹ Jᵀ (SPD) without friction; with friction it may be unsymmetric: LU.
        let lu = &mut self.lu_s[k - 1];
        let s = MatRef::from_row_major_slice(&self.s[..k * k], k, k);
        match lu.factor_with_rtol(s, 1e-14) {
            Ok(()) => {
                lu.solve_in_place(&mut self.rhs[..k]);
                Ok(())
            }
            Err(LinalgError::Singular { index, pivot }) => Err(ContactError::NotPositiveDefinite {
                what: "J M⁻¹ Jᵀ of the active rows",
                index,
                pivot,
            }),
            Err(e) => Err(ContactError::factorization(
                "J M⁻¹ Jᵀ of the active rows",
                e,
            )),
        }
    }

    /// Acceleration-level LCP on the candidate rows (closed, not separating): λ ≥ 0,
    /// `J q̈ + ρ ≥ 0`, complementary. Writes λ (full length L, zero outside `cands`) and
    /// returns nothing else; rows with λ > 0 are the new active set. Friction ignored here.
    ///
    /// Errors: an index of `cands` not below L or repeated, `lambda` not of length L, no
    /// evaluation yet, the LCP's errors, a non-finite λ.
    pub fn contact_lcp(&mut self, cands: &[usize], lambda: &mut [f64]) -> Result<(), ContactError> {
        check_rows("cands", cands, self.l)?;
        check_len("lambda", lambda, self.l)?;
        self.check_evaluated("contact_lcp")?;
        self.contact_lcp_in(cands, lambda)?;
        check_finite("lambda", lambda)
    }

    /// [`ContactDynamics::contact_lcp`] without the argument checks.
    pub(crate) fn contact_lcp_in(
        &mut self,
        cands: &[usize],
        lambda: &mut [f64],
    ) -> Result<(), ContactError> {
        let k = cands.len();
        lambda.fill(0.0);
        if k == 0 {
            return Ok(());
        }
        if k > crate::lcp::LCP_MAX_SIZE {
            return Err(ContactError::LcpTooLarge {
                size: k,
                limit: crate::lcp::LCP_MAX_SIZE,
            });
        }
        self.active_schur(cands, None);
        for (r, &i) in cands.iter().enumerate() {
            self.rhs[r] = self.row_dot(i, &self.minv_f) + self.terms.accel_bias()[i];
        }
        let mut z = [0.0f64; crate::lcp::LCP_MAX_SIZE];
        let (s, rhs, w) = (&self.s[..k * k], &self.rhs[..k], &mut self.w[..k]);
        self.lcp.solve(s, rhs, &mut z[..k], w)?;
        for (r, &i) in cands.iter().enumerate() {
            lambda[i] = z[r];
        }
        Ok(())
    }

    /// Impact on the rows `rows` (Huang (5.3.12)–(5.3.14), generalized by the LCP with
    /// restitution `e[r]` per row): `qd` is replaced by `q̇⁺`, `xi` (length `rows.len()`)
    /// receives the impulses. Call [`ContactDynamics::evaluate`] first.
    ///
    /// Errors: an index of `rows` not below L or repeated, `e` and `xi` not of length
    /// `rows.len()`, an `e[r]` outside \[0, 1\] ([`ContactError::InvalidParameter`] `"e"`), `qd`
    /// not of length N or not finite, no evaluation yet, the LCP's errors, a non-finite q̇⁺ or ξ.
    pub fn impact(
        &mut self,
        rows: &[usize],
        e: &[f64],
        qd: &mut [f64],
        xi: &mut [f64],
    ) -> Result<(), ContactError> {
        let k = rows.len();
        check_rows("rows", rows, self.l)?;
        check_len("e", e, k)?;
        if let Some(&value) = e.iter().find(|v| !(0.0..=1.0).contains(*v)) {
            return Err(ContactError::InvalidParameter { name: "e", value });
        }
        check_input("qd", qd, self.n)?;
        check_len("xi", xi, k)?;
        self.check_evaluated("impact")?;
        self.impact_in(rows, e, qd, xi)?;
        check_finite("xi", xi)?;
        check_finite("qd after the impact", qd)
    }

    /// [`ContactDynamics::impact`] without the argument checks.
    pub(crate) fn impact_in(
        &mut self,
        rows: &[usize],
        e: &[f64],
        qd: &mut [f64],
        xi: &mut [f64],
    ) -> Result<(), ContactError> {
        let (n, k) = (self.n, rows.len());
        // (i) M C = Jᵀ   (5.3.14);  (ii) A = J C
        self.active_schur(rows, None);
        // (iii) A ξ = −(1 + e) J q̇⁻ (complementarity for several rows)
        for (r, &i) in rows.iter().enumerate() {
            self.rhs[r] = (1.0 + e[r]) * self.normal_velocity_in(i, qd);
        }
        let (s, rhs, w) = (&self.s[..k * k], &self.rhs[..k], &mut self.w[..k]);
        self.lcp.solve(s, rhs, xi, w)?;
        // (iv) q̇⁺ = q̇⁻ + C ξ   (5.3.13)
        for p in 0..n {
            qd[p] += (0..k).map(|r| self.c[r * n + p] * xi[r]).sum::<f64>();
        }
        Ok(())
    }

    /// Projection of `q` onto `φ_A = 0` and of `q̇` onto `J_A q̇ + b_A = 0` in the metric of `M`
    /// (Gauss–Newton, at most `iters` position iterations):
    /// `Δq = −M⁻¹J_Aᵀ(J_A M⁻¹ J_Aᵀ)⁻¹ φ_A`, `Δq̇ = −M⁻¹J_Aᵀ(J_A M⁻¹ J_Aᵀ)⁻¹(J_A q̇ + b_A)`.
    ///
    /// Errors: an index of `active` not below L or repeated, `q`, `qd` not of length N or
    /// not finite, `t` not finite, the errors of [`ContactDynamics::evaluate`], a singular
    /// active set, a non-finite projected state.
    pub fn project<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        active: &[usize],
        q: &mut [f64],
        qd: &mut [f64],
        iters: usize,
    ) -> Result<(), ContactError> {
        check_rows("active", active, self.l)?;
        check_input("t", &[t], 1)?;
        check_input("q", q, self.n)?;
        check_input("qd", qd, self.n)?;
        self.check_mechanism(mech)?;
        self.project_in(mech, t, active, q, qd, iters)?;
        check_finite("projected q", q)?;
        check_finite("projected qd", qd)
    }

    /// [`ContactDynamics::project`] without the argument checks.
    pub(crate) fn project_in<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        active: &[usize],
        q: &mut [f64],
        qd: &mut [f64],
        iters: usize,
    ) -> Result<(), ContactError> {
        let (n, k) = (self.n, active.len());
        if k == 0 {
            return Ok(());
        }
        for it in 0..=iters {
            self.evaluate_in(mech, t, q, qd)?;
            let pos = it < iters;
            let res: f64 = active
                .iter()
                .map(|&i| {
                    if pos {
                        self.terms.phi()[i].abs()
                    } else {
                        self.normal_velocity_in(i, qd).abs()
                    }
                })
                .fold(0.0, f64::max);
            self.active_schur(active, None);
            for (r, &i) in active.iter().enumerate() {
                self.rhs[r] = if pos {
                    self.terms.phi()[i]
                } else {
                    self.normal_velocity_in(i, qd)
                };
            }
            if res == 0.0 && pos {
                continue;
            }
            let chol = &mut self.chol_s[k - 1];
            chol.factor(MatRef::from_row_major_slice(&self.s[..k * k], k, k))
                .map_err(|e| ContactError::factorization("J M⁻¹ Jᵀ of the active rows", e))?;
            chol.solve_in_place(&mut self.rhs[..k]);
            let target: &mut [f64] = if pos { q } else { qd };
            for p in 0..n {
                target[p] -= (0..k).map(|r| self.c[r * n + p] * self.rhs[r]).sum::<f64>();
            }
            if pos && res < 1e-15 {
                // converged: go straight to the velocity projection
                continue;
            }
        }
        Ok(())
    }
}

impl ContactDynamics {
    /// Kinetic energy `½ q̇ᵀ M q̇` with `M` of the last evaluation.
    ///
    /// Errors: `qd` not of length N or not finite, no evaluation yet, a non-finite energy.
    pub fn kinetic_energy(&self, qd: &[f64]) -> Result<f64, ContactError> {
        check_input("qd", qd, self.n)?;
        self.check_evaluated("kinetic_energy")?;
        let e = self.kinetic_energy_in(qd);
        check_finite("kinetic energy", &[e])?;
        Ok(e)
    }

    /// [`ContactDynamics::kinetic_energy`] without checks (`qd.len() == N`).
    pub(crate) fn kinetic_energy_in(&self, qd: &[f64]) -> f64 {
        let (n, m) = (self.n, self.terms.mass_matrix());
        let mut s = 0.0;
        for i in 0..n {
            for k in 0..n {
                s += qd[i] * m[(i, k)] * qd[k];
            }
        }
        0.5 * s
    }

    /// Residual of Huang's index-1 constrained model on the active rows, unknowns
    /// `(q, q̇, λ_A)` (Huang (5.2.19)–(5.2.20), for the Cartesian robot (6.3.2)):
    ///
    /// ```text
    /// r_q = q̇' − ... (done by the caller),   r_v = M v' − (u − h) − G_A λ_A,
    /// r_λ = J_A M⁻¹ ((u − h) + G_A λ_A) + ρ_A + α (J_A q̇ + b_A) + β φ_A
    /// ```
    ///
    /// Call [`ContactDynamics::evaluate`] at `(t, q, q̇)` first.
    ///
    /// Errors: an index of `active` not below L or repeated, `mu` not finite or negative,
    /// `qd`, `vdot`, `r_v` not of length N, `lam`, `r_l` not of length `active.len()`, a
    /// non-finite input, no evaluation yet, a non-finite residual.
    pub fn index1_residual(
        &mut self,
        active: &[usize],
        mu: f64,
        qd: &[f64],
        vdot: &[f64],
        lam: &[f64],
        r_v: &mut [f64],
        r_l: &mut [f64],
    ) -> Result<(), ContactError> {
        let (n, k) = (self.n, active.len());
        check_rows("active", active, self.l)?;
        if !(mu >= 0.0 && mu.is_finite()) {
            return Err(ContactError::InvalidParameter {
                name: "mu",
                value: mu,
            });
        }
        check_input("qd", qd, n)?;
        check_input("vdot", vdot, n)?;
        check_input("lam", lam, k)?;
        check_len("r_v", r_v, n)?;
        check_len("r_l", r_l, k)?;
        self.check_evaluated("index1_residual")?;
        self.index1_residual_in(active, mu, qd, vdot, lam, r_v, r_l);
        check_finite("r_v", r_v)?;
        check_finite("r_l", r_l)
    }

    /// [`ContactDynamics::index1_residual`] without the argument checks.
    pub(crate) fn index1_residual_in(
        &mut self,
        active: &[usize],
        mu: f64,
        qd: &[f64],
        vdot: &[f64],
        lam: &[f64],
        r_v: &mut [f64],
        r_l: &mut [f64],
    ) {
        let n = self.n;
        let speed = qd.iter().map(|v| v * v).sum::<f64>().sqrt();
        // (6.3.4) is undefined at zero speed: no friction below 1e-9 (keeps Newton finite)
        let mu = if speed > 1e-9 { mu } else { 0.0 };
        let lsum: f64 = lam.iter().sum();
        // g = (u − h) + G_A λ_A
        let (m, j, f) = (
            self.terms.mass_matrix(),
            self.terms.jacobian(),
            self.terms.net_force(),
        );
        for p in 0..n {
            let mut g = f[p];
            for (r, &i) in active.iter().enumerate() {
                g += j[(i, p)] * lam[r];
            }
            if mu > 0.0 {
                g -= mu * lsum * qd[p] / speed; // Huang (6.3.4)
            }
            self.minv_f[p] = g;
            r_v[p] = (0..n).map(|k| m[(p, k)] * vdot[k]).sum::<f64>() - g;
        }
        self.chol_m.solve_in_place(&mut self.minv_f);
        let (alpha, beta) = self.baumgarte.unwrap_or((0.0, 0.0));
        for (r, &i) in active.iter().enumerate() {
            let jq = self.row_dot(i, &self.minv_f);
            let phid = self.normal_velocity_in(i, qd);
            // Huang (6.3.2): J M⁻¹(F + Jᵀλ) + ρ + 2ρ₁² φ̇ + ρ₂² φ = 0
            r_l[r] = jq + self.terms.accel_bias()[i] + alpha * phid + beta * self.terms.phi()[i];
        }
    }
}
