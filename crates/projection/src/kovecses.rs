//! The projector method of Kövecses & Piedbœuf (papers/001): forward dynamics by projection,
//! velocity filtering and configuration correction after every accepted step of any
//! integrator.
//!
//! With `M = L Lᵀ` (our lower factor, the paper's `L̂ = Lᵀ`), `Ã = A L⁻ᵀ` (13) and the
//! mass-weighted generalized inverse `W = L⁻ᵀ (A L⁻ᵀ)†` (17), `P_c = W A`, `P_a = I − W A`
//! ([`contour_linalg::WeightedProjectors`], valid for rank-deficient `A`):
//!
//! * **Forward dynamics** ([`ProjectionDynamics::accelerations`]), (29)–(31):
//!   `q̈ = P_a M⁻¹(Q − C) − W (Ȧq̇ + ḃ)`; in the workspace's notation `Q = u`, `C = h`,
//!   `Ȧq̇ + ḃ = ρ`. The multipliers are the minimum-norm solution of `Aᵀλ = M q̈ − (u − h)`:
//!   `λ = −Wᵀ M W (A M⁻¹(u − h) + ρ)` (for full row rank the KKT multipliers of (9)).
//! * **Inverse dynamics** ([`ProjectionDynamics::admissible_applied_force`]), (26)–(27):
//!   `P_aᵀ Q_applied = P_aᵀ (M q̈ + C)` for an admissible `q̈` — the applied force seen by the
//!   admissible motion, free of constraint forces; (28) is the same equation solved for `q̈`.
//! * **Velocity filtering** (33): `q̇ ← −W b + P_a q̇`, with `W`, `P_a` at the new
//!   configuration `q_{i+1}` ([`VelocityFiltering::AtNewConfiguration`]) or at the previous
//!   accepted one `q_i` ([`VelocityFiltering::AtPreviousConfiguration`]), `b` at `q_{i+1}`.
//! * **Configuration correction**: quasi-iterative (35) `q^{k+1} = q^k − W(q_i) φ(q^k)` with the
//!   directions frozen at `q_i`, or iterative (36) `q^{k+1} = q^k − W(q^k) φ(q^k)`; a fixed
//!   number of corrections ("open loop", the paper uses two) or until `‖φ‖₂ ≤ tol`.
//!
//! The corrections act on the accepted state (first the configuration, then the velocities at
//! the corrected configuration, as the paper's text before (34) asks), and the integrator
//! continues from the corrected point (`replace_y`). [`ProjectorConfig::default`] is the
//! paper's setting: one velocity filtering at `q_{i+1}`, two corrections by (36).
//!
//! ```
//! use contour_model::models::RedundantFourBar;
//! use contour_projection::{Integrator, Method, ProjectorConfig, Simulation, ErrorControl};
//!
//! // three closure rows of rank 2: the KKT-based methods report RankDeficientJacobian
//! let fb = RedundantFourBar::default();
//! let (q, qd) = fb.state(1.0, 0.0).unwrap();
//! let tr = Simulation::new(&fb, &q, &qd, 0.0, 2.0)
//!     .method(Method::Projector(ProjectorConfig::default()))
//!     .integrator(Integrator::dopri5())
//!     .error_control(ErrorControl::absolute(1e-8))
//!     .run()?;
//! assert!(tr.stats.max_phi < 1e-12 && tr.stats.max_phidot < 1e-12);
//! assert_eq!(tr.stats.configuration_corrections, 2 * tr.stats.steps);
//! # Ok::<(), contour_projection::ProjectionError>(())
//! ```
//!
//! **Caching.** The projectors of the velocity filtering at `q_{i+1}` are those of (35) at the
//! next step's `q_i`, so (35) with filtering at the new configuration needs one projector
//! evaluation (Cholesky of `M`, SVD of `Ã`) per step; (36) with two corrections needs three.

use contour_linalg::{Cholesky, LinalgError, WeightedProjectors, DEFAULT_RANK_RTOL};
use contour_model::{DynamicsOptions, Mechanism, ModelError};
use contour_ode::{Advance, OdeRhs, RhsError};
use faer::{Mat, MatRef};
use serde::{Deserialize, Serialize};

use crate::error::ProjectionError;
use crate::rhs::{ode_error, ConstrainedRhs};
use crate::simulation::{with_stepper, RunContext};
use crate::trajectory::{Recorder, Trajectory};

/// Where the velocity filtering (33) takes its directions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum VelocityFiltering {
    /// No filtering of the velocities.
    Off,
    /// `q̇ ← −W(q_{i+1}) b_{i+1} + P_a(q_{i+1}) q̇`, Kövecses (33) (at the corrected configuration).
    #[default]
    AtNewConfiguration,
    /// `q̇ ← −W(q_i) b_{i+1} + P_a(q_i) q̇` (the paper's alternative after (33)).
    AtPreviousConfiguration,
}

/// Which configuration correction is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ConfigurationCorrection {
    /// No configuration correction.
    Off,
    /// Kövecses (35): `q^{k+1} = q^k − W(q_i) h^k`, directions frozen at the previous step.
    QuasiIterative,
    /// Kövecses (36): `q^{k+1} = q^k − W(q^k) h^k`, directions updated (the paper's choice).
    #[default]
    Iterative,
}

/// How many configuration corrections per step.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum CorrectionCount {
    /// Exactly this many corrections ("open-loop", the paper recommends one or two).
    Fixed(usize),
    /// Until `‖φ‖₂ ≤ tol`; more than `max` corrections is [`ProjectionError::NoConvergence`].
    ToTolerance {
        /// Tolerance on `‖φ(t_{i+1}, q)‖₂` (units of φ).
        tol: f64,
        /// Most corrections per step.
        max: usize,
    },
}

impl Default for CorrectionCount {
    fn default() -> Self {
        Self::Fixed(2)
    }
}

/// How the accelerations of the integrated field are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum AccelerationSolver {
    /// Kövecses (29)–(31) with the weighted pseudo-inverse: valid for redundant constraints.
    #[default]
    Projection,
    /// The KKT system (9) (Lagrange multipliers, the paper's arm experiment); needs full row rank.
    Lagrange,
}

/// Options of the projector method ([`crate::Method::Projector`]).
///
/// `Default` — the paper's recommended setting: `velocity_filtering = AtNewConfiguration`
/// (one filtering (33) per step), `correction = Iterative` (36), `corrections = Fixed(2)`,
/// `acceleration = Projection` ((29)–(31)), `rank_rtol = 1e-10`
/// ([`contour_linalg::DEFAULT_RANK_RTOL`]), `corrected_output = true`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProjectorConfig {
    /// The velocity filtering (33).
    pub velocity_filtering: VelocityFiltering,
    /// The configuration correction (35) or (36).
    pub correction: ConfigurationCorrection,
    /// Number of configuration corrections per step.
    pub corrections: CorrectionCount,
    /// Accelerations by projection (29)–(31) or by the KKT system (9).
    pub acceleration: AccelerationSolver,
    /// Relative rank cut-off of the pseudo-inverse of `A L⁻ᵀ` (singular values
    /// `≤ rank_rtol·σ_max` are dropped): loosen it for configuration-dependent redundancy.
    pub rank_rtol: f64,
    /// Apply the same correction and filtering to interpolated outputs.
    pub corrected_output: bool,
}

impl Default for ProjectorConfig {
    fn default() -> Self {
        Self {
            velocity_filtering: VelocityFiltering::AtNewConfiguration,
            correction: ConfigurationCorrection::Iterative,
            corrections: CorrectionCount::Fixed(2),
            acceleration: AccelerationSolver::Projection,
            rank_rtol: DEFAULT_RANK_RTOL,
            corrected_output: true,
        }
    }
}

impl ProjectorConfig {
    /// The quasi-iterative correction (35), otherwise the defaults.
    #[must_use]
    pub fn quasi_iterative() -> Self {
        Self {
            correction: ConfigurationCorrection::QuasiIterative,
            ..Self::default()
        }
    }

    /// Checks `rank_rtol ∈ [0, 1)` and the correction tolerance.
    pub fn validate(&self) -> Result<(), ProjectionError> {
        if !(self.rank_rtol.is_finite() && (0.0..1.0).contains(&self.rank_rtol)) {
            return Err(ProjectionError::InvalidParameter {
                name: "rank_rtol",
                value: self.rank_rtol,
            });
        }
        if let CorrectionCount::ToTolerance { tol, max } = self.corrections {
            if !(tol.is_finite() && tol > 0.0) {
                return Err(ProjectionError::InvalidParameter {
                    name: "correction tol",
                    value: tol,
                });
            }
            if max == 0 {
                return Err(ProjectionError::InvalidParameter {
                    name: "correction max",
                    value: 0.0,
                });
            }
        }
        Ok(())
    }
}

/// Maps a linear-algebra failure on `M` or `A` to the model error naming the culprit
/// (non-finite entries by their column-major index).
fn model_error(e: LinalgError, what: &'static str, nrows: usize) -> ModelError {
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

fn check_finite(what: &'static str, x: &[f64]) -> Result<(), ModelError> {
    match x.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(ModelError::NonFinite { what, index }),
        None => Ok(()),
    }
}

/// Evaluates `M(q)`, factors it, evaluates `A(t, q)` and computes `W`, `P_c`, `P_a` (17).
#[allow(clippy::too_many_arguments)]
fn projectors_at<M: Mechanism + ?Sized>(
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
    proj.compute(chol, a.as_ref(), 0.0, rank_rtol)
        .map_err(|e| model_error(e, "constraint jacobian", a.nrows()))
}

/// Kövecses' forward and inverse dynamics (26)–(31) in a workspace allocated once.
#[derive(Debug)]
pub struct ProjectionDynamics {
    n: usize,
    l: usize,
    rank_rtol: f64,
    m: Mat<f64>,
    a: Mat<f64>,
    chol: Cholesky,
    proj: WeightedProjectors,
    h: Vec<f64>,
    u: Vec<f64>,
    rho: Vec<f64>,
    a0: Vec<f64>,
    r: Vec<f64>,
    z: Vec<f64>,
    y: Vec<f64>,
}

impl ProjectionDynamics {
    /// Workspace for `mech` with the rank cut-off `rank_rtol` (relative to `σ_max(A L⁻ᵀ)`).
    pub fn new<M: Mechanism + ?Sized>(mech: &M, rank_rtol: f64) -> Result<Self, ProjectionError> {
        if !(rank_rtol.is_finite() && (0.0..1.0).contains(&rank_rtol)) {
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
            m: Mat::zeros(n, n),
            a: Mat::zeros(l, n),
            chol: Cholesky::new(n),
            proj: WeightedProjectors::new(n, l),
            h: vec![0.0; n],
            u: vec![0.0; n],
            rho: vec![0.0; l],
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
        projectors_at(
            mech,
            t,
            q,
            &mut self.m,
            &mut self.a,
            &mut self.chol,
            &mut self.proj,
            self.rank_rtol,
        )?;
        mech.bias_forces(q, qd, &mut self.h);
        check_finite("bias forces", &self.h)?;
        self.u.fill(0.0);
        mech.applied_forces(t, q, qd, &mut self.u);
        check_finite("applied forces", &self.u)?;
        mech.constraint_accel_bias(t, q, qd, &mut self.rho);
        check_finite("accel bias", &self.rho)?;
        for i in 0..self.n {
            self.a0[i] = self.u[i] - self.h[i];
        }
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
        self.evaluate(mech, t, q, qd)?;
        for (what, expected, found) in
            [("qdd", self.n, qdd.len()), ("lambda", self.l, lambda.len())]
        {
            if expected != found {
                return Err(ModelError::DimensionMismatch {
                    what,
                    expected,
                    found,
                });
            }
        }
        let (n, l) = (self.n, self.l);
        let (pa, w) = (self.proj.p_a(), self.proj.w());
        // Kövecses (30)–(31): q̈ = P_a a0 − W ρ.
        for i in 0..n {
            let mut s = 0.0;
            for k in 0..n {
                s += pa[(i, k)] * self.a0[k];
            }
            for k in 0..l {
                s -= w[(i, k)] * self.rho[k];
            }
            qdd[i] = s;
        }
        // Minimum-norm λ: Aᵀλ = −M W r, r = A a0 + ρ  ⇒  λ = −Wᵀ M W r.
        for k in 0..l {
            let mut s = self.rho[k];
            for j in 0..n {
                s += self.a[(k, j)] * self.a0[j];
            }
            self.r[k] = s;
        }
        for i in 0..n {
            self.z[i] = (0..l).map(|k| w[(i, k)] * self.r[k]).sum();
        }
        for i in 0..n {
            self.y[i] = (0..n).map(|k| self.m[(i, k)] * self.z[k]).sum();
        }
        for k in 0..l {
            lambda[k] = -(0..n).map(|i| w[(i, k)] * self.y[i]).sum::<f64>();
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
        let n = self.n;
        for i in 0..n {
            self.z[i] = self.h[i] + (0..n).map(|k| self.m[(i, k)] * qdd[k]).sum::<f64>();
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
        self.m.as_ref()
    }

    /// `A(t, q)` of the last evaluation.
    pub fn jacobian(&self) -> MatRef<'_, f64> {
        self.a.as_ref()
    }

    /// `u(t, q, q̇)` of the last evaluation.
    pub fn applied_forces(&self) -> &[f64] {
        &self.u
    }

    /// `h(q, q̇)` of the last evaluation.
    pub fn bias_forces(&self) -> &[f64] {
        &self.h
    }

    /// `ρ = Ȧq̇ + ḃ` of the last evaluation.
    pub fn accel_bias(&self) -> &[f64] {
        &self.rho
    }

    /// Numerical rank of `A` at the last evaluation.
    pub fn rank(&self) -> usize {
        self.proj.rank()
    }
}

/// What one [`ConstraintFilter::apply`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CorrectionOutcome {
    /// Configuration corrections applied.
    pub corrections: usize,
    /// `‖φ‖₂` before the first correction.
    pub phi_before: f64,
    /// `‖φ‖₂` after the last correction when it was evaluated (tolerance mode), else NaN.
    pub phi_after: f64,
    /// Whether the velocities were filtered.
    pub filtered: bool,
}

/// The per-step part of the projector method: configuration correction (35)/(36), then
/// velocity filtering (33), in preallocated storage ([`ConstraintFilter::apply`] does not
/// allocate).
#[derive(Debug)]
pub struct ConstraintFilter {
    cfg: ProjectorConfig,
    n: usize,
    l: usize,
    m: Mat<f64>,
    a: Mat<f64>,
    chol: Cholesky,
    cur: WeightedProjectors,
    prev: WeightedProjectors,
    prev_valid: bool,
    t_prev: f64,
    q_prev: Vec<f64>,
    phi: Vec<f64>,
    b: Vec<f64>,
    v: Vec<f64>,
    /// Configuration corrections applied so far.
    pub corrections: usize,
    /// Velocity filterings applied so far.
    pub filterings: usize,
    /// Projector evaluations (Cholesky of `M` + SVD of `A L⁻ᵀ`) so far.
    pub projector_evaluations: usize,
}

impl ConstraintFilter {
    /// Workspace for `mech`; the previous state is unset until [`ConstraintFilter::set_previous`].
    pub fn new<M: Mechanism + ?Sized>(
        mech: &M,
        cfg: &ProjectorConfig,
    ) -> Result<Self, ProjectionError> {
        cfg.validate()?;
        let (n, l) = (mech.dof(), mech.n_constraints());
        Ok(Self {
            cfg: *cfg,
            n,
            l,
            m: Mat::zeros(n, n),
            a: Mat::zeros(l, n),
            chol: Cholesky::new(n),
            cur: WeightedProjectors::new(n, l),
            prev: WeightedProjectors::new(n, l),
            prev_valid: false,
            t_prev: f64::NAN,
            q_prev: vec![0.0; n],
            phi: vec![0.0; l],
            b: vec![0.0; l],
            v: vec![0.0; n],
            corrections: 0,
            filterings: 0,
            projector_evaluations: 0,
        })
    }

    /// Sets the previous accepted point `(t_i, x_i)` (`x = (q, q̇)`), whose directions (35)
    /// and [`VelocityFiltering::AtPreviousConfiguration`] use.
    pub fn set_previous(&mut self, t: f64, x: &[f64]) -> Result<(), ProjectionError> {
        self.check_x(x)?;
        self.t_prev = t;
        self.q_prev.copy_from_slice(&x[..self.n]);
        self.prev_valid = false;
        Ok(())
    }

    fn check_x(&self, x: &[f64]) -> Result<(), ProjectionError> {
        if x.len() != 2 * self.n {
            return Err(ProjectionError::DimensionMismatch {
                what: "x",
                expected: 2 * self.n,
                found: x.len(),
            });
        }
        check_finite("x", x)?;
        Ok(())
    }

    fn ensure_prev<M: Mechanism + ?Sized>(&mut self, mech: &M) -> Result<(), ProjectionError> {
        if !self.prev_valid {
            if !self.t_prev.is_finite() {
                return Err(ProjectionError::InvalidTimeSpan {
                    t0: self.t_prev,
                    t: self.t_prev,
                });
            }
            projectors_at(
                mech,
                self.t_prev,
                &self.q_prev,
                &mut self.m,
                &mut self.a,
                &mut self.chol,
                &mut self.prev,
                self.cfg.rank_rtol,
            )?;
            self.projector_evaluations += 1;
            self.prev_valid = true;
        }
        Ok(())
    }

    /// Corrects the accepted state `x = (q_{i+1}, q̇_{i+1})` at `t = t_{i+1}` in place:
    /// configuration corrections (35)/(36), then the velocity filtering (33). Afterwards
    /// `(t, x)` is the previous point of the next call. Does not allocate.
    ///
    /// Errors: wrong length or non-finite `x`, a non-positive-definite `M`, non-finite model
    /// outputs; [`ProjectionError::NoConvergence`] when a tolerance is not met within `max`.
    pub fn apply<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        x: &mut [f64],
    ) -> Result<CorrectionOutcome, ProjectionError> {
        self.check_x(x)?;
        let (n, l) = (self.n, self.l);
        let mut out = CorrectionOutcome {
            corrections: 0,
            phi_before: f64::NAN,
            phi_after: f64::NAN,
            filtered: false,
        };
        if l == 0 {
            return Ok(out);
        }
        let mut cur_at_q = false;
        let (fixed, tol, max) = match self.cfg.corrections {
            CorrectionCount::Fixed(k) => (true, 0.0, k),
            CorrectionCount::ToTolerance { tol, max } => (false, tol, max),
        };
        if self.cfg.correction != ConfigurationCorrection::Off && (max > 0 || !fixed) {
            if self.cfg.correction == ConfigurationCorrection::QuasiIterative {
                self.ensure_prev(mech)?;
            }
            let mut k = 0usize;
            loop {
                if fixed && k == max {
                    break;
                }
                mech.constraints(t, &x[..n], &mut self.phi);
                check_finite("phi", &self.phi)?;
                let res = self.phi.iter().map(|v| v * v).sum::<f64>().sqrt();
                if k == 0 {
                    out.phi_before = res;
                }
                if !fixed {
                    out.phi_after = res;
                    if res <= tol {
                        break;
                    }
                    if k == max {
                        return Err(ProjectionError::NoConvergence {
                            t,
                            iterations: k,
                            residual: res,
                        });
                    }
                }
                let w = match self.cfg.correction {
                    // Kövecses (35): W(q_i), frozen.
                    ConfigurationCorrection::QuasiIterative => self.prev.w(),
                    // Kövecses (36): W(q^k).
                    _ => {
                        projectors_at(
                            mech,
                            t,
                            &x[..n],
                            &mut self.m,
                            &mut self.a,
                            &mut self.chol,
                            &mut self.cur,
                            self.cfg.rank_rtol,
                        )?;
                        self.projector_evaluations += 1;
                        self.cur.w()
                    }
                };
                // q^{k+1} = q^k − W h^k
                for i in 0..n {
                    let mut s = 0.0;
                    for j in 0..l {
                        s += w[(i, j)] * self.phi[j];
                    }
                    x[i] -= s;
                }
                k += 1;
            }
            out.corrections = k;
            self.corrections += k;
        }
        match self.cfg.velocity_filtering {
            VelocityFiltering::Off => {}
            vf => {
                let proj = if vf == VelocityFiltering::AtNewConfiguration {
                    projectors_at(
                        mech,
                        t,
                        &x[..n],
                        &mut self.m,
                        &mut self.a,
                        &mut self.chol,
                        &mut self.cur,
                        self.cfg.rank_rtol,
                    )?;
                    self.projector_evaluations += 1;
                    cur_at_q = true;
                    &self.cur
                } else {
                    self.ensure_prev(mech)?;
                    &self.prev
                };
                mech.constraint_rate_bias(t, &x[..n], &mut self.b);
                check_finite("rate bias", &self.b)?;
                // Kövecses (33): q̇ = −W b + P_a q̇.
                let (w, pa) = (proj.w(), proj.p_a());
                for i in 0..n {
                    let mut s = 0.0;
                    for k in 0..n {
                        s += pa[(i, k)] * x[n + k];
                    }
                    for j in 0..l {
                        s -= w[(i, j)] * self.b[j];
                    }
                    self.v[i] = s;
                }
                x[n..].copy_from_slice(&self.v);
                out.filtered = true;
                self.filterings += 1;
            }
        }
        check_finite("x", x)?;
        // The corrected point is the next call's q_i; the projectors at it are reusable.
        self.t_prev = t;
        self.q_prev.copy_from_slice(&x[..n]);
        if cur_at_q {
            std::mem::swap(&mut self.cur, &mut self.prev);
            self.prev_valid = true;
        } else {
            self.prev_valid = false;
        }
        Ok(out)
    }
}

/// The integrated field of the projector method: `(q̇, q̈)` with `q̈` from (29)–(31) or (9).
#[derive(Debug)]
pub(crate) struct ProjectorRhs<'m, M: ?Sized> {
    mech: &'m M,
    n: usize,
    kind: RhsKind<'m, M>,
    qdd: Vec<f64>,
    lambda: Vec<f64>,
    pub evals: usize,
    pub last_error: Option<ModelError>,
}

#[derive(Debug)]
enum RhsKind<'m, M: ?Sized> {
    Projection(ProjectionDynamics),
    Lagrange(ConstrainedRhs<'m, M>),
}

impl<'m, M: Mechanism + ?Sized> ProjectorRhs<'m, M> {
    pub(crate) fn new(mech: &'m M, cfg: &ProjectorConfig) -> Result<Self, ProjectionError> {
        let (n, l) = (mech.dof(), mech.n_constraints());
        let kind = match cfg.acceleration {
            AccelerationSolver::Projection => {
                RhsKind::Projection(ProjectionDynamics::new(mech, cfg.rank_rtol)?)
            }
            AccelerationSolver::Lagrange => {
                RhsKind::Lagrange(ConstrainedRhs::new(mech, DynamicsOptions::default())?)
            }
        };
        Ok(Self {
            mech,
            n,
            kind,
            qdd: vec![0.0; n],
            lambda: vec![0.0; l],
            evals: 0,
            last_error: None,
        })
    }

    fn take_error(&mut self) -> Option<ModelError> {
        match &mut self.kind {
            RhsKind::Lagrange(r) => r.last_error.take().or(self.last_error.take()),
            RhsKind::Projection(_) => self.last_error.take(),
        }
    }
}

impl<M: Mechanism + ?Sized> OdeRhs for ProjectorRhs<'_, M> {
    fn dim(&self) -> usize {
        2 * self.n
    }
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        self.evals += 1;
        let n = self.n;
        match &mut self.kind {
            RhsKind::Lagrange(r) => r.eval_counted(t, y, dy),
            RhsKind::Projection(d) => {
                let (q, qd) = y.split_at(n);
                match d.accelerations(self.mech, t, q, qd, &mut self.qdd, &mut self.lambda) {
                    Ok(()) => {
                        dy[..n].copy_from_slice(qd);
                        dy[n..].copy_from_slice(&self.qdd);
                        Ok(())
                    }
                    Err(e) => {
                        let r = match e {
                            ModelError::MassMatrixNotPositiveDefinite { .. } => {
                                RhsError::SingularMatrix
                            }
                            _ => RhsError::Failed,
                        };
                        self.last_error = Some(e);
                        Err(r)
                    }
                }
            }
        }
    }
}

/// Runs the projector method with the context's integrator.
pub(crate) fn run<M: Mechanism + ?Sized>(
    ctx: &RunContext<'_, '_, M>,
    cfg: &ProjectorConfig,
) -> Result<Trajectory, ProjectionError> {
    cfg.validate()?;
    let tol = ctx.error_control.to_ode(ctx.x0.len());
    with_stepper!(ctx.integrator, ctx.t0, &ctx.x0, tol, |s| integrate(
        ctx, &mut s, cfg
    ))
}

fn integrate<'m, M, S>(
    ctx: &RunContext<'_, 'm, M>,
    stepper: &mut S,
    cfg: &ProjectorConfig,
) -> Result<Trajectory, ProjectionError>
where
    M: Mechanism + ?Sized,
    S: Advance<ProjectorRhs<'m, M>>,
{
    let mech = ctx.mech;
    let (n, l) = (mech.dof(), mech.n_constraints());
    let n2 = 2 * n;
    let mut rhs = ProjectorRhs::new(mech, cfg)?;
    let mut filter = ConstraintFilter::new(mech, cfg)?;
    let mut out_filter = ConstraintFilter::new(mech, cfg)?;
    let mut out_dyn = ProjectionDynamics::new(mech, cfg.rank_rtol)?;
    let mut rec = Recorder::new(
        mech,
        "projector",
        ctx.integrator.name(),
        ctx.output_times,
        DynamicsOptions::default(),
    )?;
    let mut qdd = vec![0.0; n];
    let mut lam = vec![0.0; l];
    let mut lambda_at = |t: f64, x: &[f64], lam: &mut [f64]| -> Result<(), ProjectionError> {
        out_dyn.accelerations(mech, t, &x[..n], &x[n..], &mut qdd, lam)?;
        Ok(())
    };
    lambda_at(ctx.t0, &ctx.x0, &mut lam)?;
    rec.start_with_lambda(mech, ctx.t0, &ctx.x0, &lam);
    filter.set_previous(ctx.t0, &ctx.x0)?;
    let mut buf = vec![0.0; n2];
    let mut xnew = vec![0.0; n2];
    let mut x_prev = ctx.x0.clone();
    let mut t_prev = ctx.t0;
    stepper.set_t_stop(Some(ctx.t_end));
    let mut steps = 0usize;
    while stepper.t() < ctx.t_end {
        if steps >= ctx.max_steps {
            return Err(ProjectionError::TooManySteps {
                t: stepper.t(),
                max_steps: ctx.max_steps,
            });
        }
        let info = stepper.step(&mut rhs).map_err(|e| {
            let mut last = rhs.take_error();
            ode_error(e, &mut last)
        })?;
        steps += 1;
        xnew.copy_from_slice(stepper.y());
        filter.apply(mech, info.t, &mut xnew)?;
        stepper.replace_y(&mut rhs, &xnew).map_err(|e| {
            let mut last = rhs.take_error();
            ode_error(e, &mut last)
        })?;
        let t = stepper.t();
        rec.step(mech, t, stepper.y());
        while let Some(to) = rec.next_output(t) {
            stepper.dense(to, &mut buf);
            if cfg.corrected_output {
                out_filter.set_previous(t_prev, &x_prev)?;
                out_filter.apply(mech, to, &mut buf)?;
            }
            lambda_at(to, &buf, &mut lam)?;
            rec.output_with_lambda(to, &buf, &lam);
        }
        if rec.every_step() {
            lambda_at(t, stepper.y(), &mut lam)?;
            rec.output_with_lambda(t, stepper.y(), &lam);
        }
        x_prev.copy_from_slice(stepper.y());
        t_prev = t;
    }
    let st = *stepper.stats();
    crate::trajectory::implicit_stats(&mut rec.traj.stats, &st, n2);
    let s = &mut rec.traj.stats;
    s.rejected_steps = st.rejected_steps;
    s.integrator_f_calls = st.f_evals;
    s.f_evals = rhs.evals;
    s.velocity_filterings = filter.filterings;
    s.configuration_corrections = filter.corrections;
    s.projector_evaluations = filter.projector_evaluations;
    Ok(rec.finish(stepper.y()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use contour_model::models::{Pendulum, RedundantFourBar};
    use contour_model::ConstrainedDynamics;

    #[test]
    fn default_is_the_papers_setting() {
        let c = ProjectorConfig::default();
        assert_eq!(c.velocity_filtering, VelocityFiltering::AtNewConfiguration);
        assert_eq!(c.correction, ConfigurationCorrection::Iterative);
        assert_eq!(c.corrections, CorrectionCount::Fixed(2));
        assert_eq!(c.acceleration, AccelerationSolver::Projection);
        assert!(c.validate().is_ok());
        assert_eq!(
            ProjectorConfig::quasi_iterative().correction,
            ConfigurationCorrection::QuasiIterative
        );
    }

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
        // KKT refuses the same state
        let mut kkt = ConstrainedDynamics::new(&fb);
        assert!(matches!(
            kkt.accelerations(&fb, 0.0, &q, &qd, &mut a, &mut l),
            Err(ModelError::RankDeficientJacobian { .. })
        ));
    }

    /// On the pendulum (circle of radius ℓ) the corrections (36) move the point radially
    /// (M = mI: the M-weighted minimum-norm step is the Euclidean one), and the filtering
    /// removes the radial velocity exactly (33).
    #[test]
    fn pendulum_filter_is_radial() {
        let p = Pendulum::default();
        let (q, qd) = p.state(0.7, 1.3);
        let x_prev = [q[0], q[1], qd[0], qd[1]];
        let mut x = [
            q[0] * 1.001,
            q[1] * 1.001,
            qd[0] + 1e-3 * q[0],
            qd[1] + 1e-3 * q[1],
        ];
        let cfg = ProjectorConfig {
            corrections: CorrectionCount::ToTolerance {
                tol: 1e-15,
                max: 10,
            },
            ..ProjectorConfig::default()
        };
        let mut f = ConstraintFilter::new(&p, &cfg).unwrap();
        f.set_previous(0.0, &x_prev).unwrap();
        let o = f.apply(&p, 0.0, &mut x).unwrap();
        assert!(
            o.filtered && o.corrections >= 2 && o.corrections <= 4,
            "{o:?}"
        );
        for i in 0..4 {
            assert!((x[i] - x_prev[i]).abs() <= 1e-14, "{x:?} vs {x_prev:?}");
        }
        assert_eq!((f.corrections, f.filterings), (o.corrections, 1));
        assert_eq!(f.projector_evaluations, o.corrections + 1);
    }
}
