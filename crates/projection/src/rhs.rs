//! The vector field `ẋ = f(x)` of Keerthi (1.5), `x = (q, q̇)`, and the constraint monitor.
//!
//! [`ConstrainedRhs`] solves (1.1) with (1.4) — or with Baumgarte's (4.3) — for `(q̈, λ)` at
//! every evaluation through `contour_model::ConstrainedDynamics` (no allocation) and counts
//! the evaluations: this count is `N_f` of Keerthi's tables. [`ConstraintMonitor`] evaluates
//! `g(x) = (φ(q), J q̇ + b)` of (1.6) for the violation history (not counted in `N_f`).

use contour_model::{ConstrainedDynamics, DynamicsOptions, Mechanism, ModelError};
use contour_ode::{OdeRhs, RhsError};
use faer::MatMut;

use crate::error::ProjectionError;

/// `ẋ = f(t, x) = (q̇, q̈(t, q, q̇))` with `q̈` from (1.1) + (1.4) (+ (4.3)), counting evaluations.
#[derive(Debug)]
pub struct ConstrainedRhs<'m, M: ?Sized> {
    mech: &'m M,
    dynamics: ConstrainedDynamics,
    n: usize,
    lambda: Vec<f64>,
    /// Evaluations of the constrained accelerations (Keerthi's `N_f`).
    pub evals: usize,
    /// The model error behind the last failed evaluation (the ode crate only sees
    /// [`RhsError`]).
    pub last_error: Option<ModelError>,
    /// Rank floor of the singular-passage guard: an evaluation whose `J` has a numerical
    /// rank below it fails (`None`: no guard).
    passage_floor: Option<usize>,
    /// `(t, rank)` of the evaluation that met the guard.
    passage: Option<(f64, usize)>,
}

impl<'m, M: Mechanism + ?Sized> ConstrainedRhs<'m, M> {
    /// Workspace for `mech` (allocates once).
    pub fn new(mech: &'m M, options: DynamicsOptions) -> Result<Self, ProjectionError> {
        let n = mech.dof();
        let l = mech.n_constraints();
        Ok(Self {
            mech,
            dynamics: ConstrainedDynamics::with_options(mech, options)?,
            n,
            lambda: vec![0.0; l],
            evals: 0,
            last_error: None,
            passage_floor: None,
            passage: None,
        })
    }

    /// Ends every later evaluation whose `J` has a numerical rank below `floor` with a
    /// failure, keeping its time and rank for [`Self::take_passage`]: the singular-passage
    /// guard of the direct and Baumgarte methods ([`crate::PassagePolicy::Stop`]).
    pub(crate) fn guard_passages(&mut self, floor: usize) {
        self.passage_floor = Some(floor);
    }

    /// `(t, rank)` of the evaluation that met the singular-passage guard, once.
    pub(crate) fn take_passage(&mut self) -> Option<(f64, usize)> {
        self.passage.take()
    }

    /// The mechanism.
    pub fn mechanism(&self) -> &'m M {
        self.mech
    }

    /// The error of a run for an integrator failure `e`: the model error behind a failed
    /// right-hand side when there is one (taken from [`Self::last_error`]), else `e`.
    pub fn ode_error(&mut self, e: contour_ode::OdeError) -> ProjectionError {
        ode_error(e, &mut self.last_error)
    }

    /// Number of coordinates N.
    pub fn dof(&self) -> usize {
        self.n
    }

    /// The constrained dynamics of the evaluations (e.g. to lend it to the driver for the
    /// outputs' multipliers: [`crate::ConstraintMethod::kkt_dynamics`]).
    pub fn dynamics_mut(&mut self) -> &mut ConstrainedDynamics {
        &mut self.dynamics
    }

    /// Evaluations that took the rank-revealing solve (`J` not certified of full rank).
    pub fn rank_revealing_solves(&self) -> usize {
        self.dynamics.rank_revealing_solves()
    }

    /// Multipliers λ of the last evaluation.
    pub fn lambda(&self) -> &[f64] {
        &self.lambda
    }

    /// `(q̈, λ)` at `(t, q, q̇)` without counting (for outputs).
    pub fn accelerations(
        &mut self,
        t: f64,
        q: &[f64],
        qd: &[f64],
        qdd: &mut [f64],
        lambda: &mut [f64],
    ) -> Result<(), ModelError> {
        self.dynamics
            .accelerations(self.mech, t, q, qd, qdd, lambda)
    }

    /// Evaluates `dx = f(t, x)`, counted, keeping the model error.
    pub fn eval_counted(&mut self, t: f64, x: &[f64], dx: &mut [f64]) -> Result<(), RhsError> {
        self.evals += 1;
        let (mech, dynamics, lambda) = (self.mech, &mut self.dynamics, &mut self.lambda);
        let (floor, passage) = (self.passage_floor, &mut self.passage);
        first_order_eval(self.n, x, dx, &mut self.last_error, |q, qd, qdd| {
            let r = dynamics.accelerations(mech, t, q, qd, qdd, lambda);
            // the rank of this solve: counted by the rank-revealing path, L after the fast path
            let rank = match &r {
                Ok(()) => Some(dynamics.last_rank()),
                Err(ModelError::InconsistentAtSingularity { rank, .. })
                | Err(ModelError::RankDeficientJacobian { rank, .. }) => Some(*rank),
                Err(_) => None,
            };
            if let (Some(floor), Some(rank)) = (floor, rank) {
                if rank < floor {
                    *passage = Some((t, rank));
                    return Err(ModelError::RankDeficientJacobian {
                        rank,
                        rows: floor,
                        tolerance: 0.0,
                    });
                }
            }
            r
        })
    }
}

impl<M: Mechanism + ?Sized> OdeRhs for ConstrainedRhs<'_, M> {
    fn dim(&self) -> usize {
        2 * self.n
    }
    fn eval(&mut self, t: f64, y: &[f64], dy: &mut [f64]) -> Result<(), RhsError> {
        self.eval_counted(t, y, dy)
    }
}

/// Evaluates `‖φ(t, q)‖₂` and `‖J(t, q) q̇ + b(t, q)‖₂` (Keerthi (1.6)) in preallocated storage.
#[derive(Debug)]
pub struct ConstraintMonitor {
    n: usize,
    /// `J`, L × N column-major (a plain slice: faer's indexing and column views cost more
    /// than the few products of a small system).
    j: Vec<f64>,
    phi: Vec<f64>,
    b: Vec<f64>,
}

impl ConstraintMonitor {
    /// Workspace for `mech`.
    pub fn new<M: Mechanism + ?Sized>(mech: &M) -> Self {
        let (n, l) = (mech.dof(), mech.n_constraints());
        Self {
            n,
            j: vec![0.0; l * n],
            phi: vec![0.0; l],
            b: vec![0.0; l],
        }
    }

    /// `(‖φ‖₂, ‖J q̇ + b‖₂)` at `x = (q, q̇)`.
    pub fn violations<M: Mechanism + ?Sized>(&mut self, mech: &M, t: f64, x: &[f64]) -> (f64, f64) {
        let (n, l) = (self.n, self.phi.len());
        let (q, qd) = x.split_at(n);
        let j = MatMut::from_column_major_slice_mut(&mut self.j, l, n);
        mech.constraints_jacobian_and_rate_bias(t, q, &mut self.phi, j, &mut self.b);
        let p = self.phi.iter().map(|v| v * v).sum::<f64>().sqrt();
        let mut s = 0.0;
        for (i, &bi) in self.b.iter().enumerate() {
            let mut v = bi;
            for (k, &qdk) in qd[..n].iter().enumerate() {
                v += self.j[i + k * l] * qdk;
            }
            s += v * v;
        }
        (p, s.sqrt())
    }
}

/// Maps an integrator error caused by a failed right-hand side back to the model error.
pub(crate) fn ode_error(
    e: contour_ode::OdeError,
    last: &mut Option<ModelError>,
) -> ProjectionError {
    match (&e, last.take()) {
        (contour_ode::OdeError::RhsFailed { .. }, Some(m)) => ProjectionError::Model(m),
        _ => ProjectionError::Ode(e),
    }
}

/// `y′ = (q̇, q̈)`: the first-order form of `M q̈ = …` that every method integrates (`N = n`
/// coordinates), with `accel` writing `q̈` at `(q, q̇) = y` straight into the second half of
/// `y′` (no copy). A model error is kept in `last` (for [`ode_error`])
/// and reported to the integrator as a singular matrix (M, or J of deficient rank) or a
/// failure.
pub(crate) fn first_order_eval(
    n: usize,
    y: &[f64],
    dy: &mut [f64],
    last: &mut Option<ModelError>,
    accel: impl FnOnce(&[f64], &[f64], &mut [f64]) -> Result<(), ModelError>,
) -> Result<(), RhsError> {
    let (q, qd) = y.split_at(n);
    let (dq, qdd) = dy.split_at_mut(n);
    match accel(q, qd, qdd) {
        Ok(()) => {
            dq.copy_from_slice(qd);
            Ok(())
        }
        Err(e) => {
            let r = match e {
                ModelError::MassMatrixNotPositiveDefinite { .. }
                | ModelError::RankDeficientJacobian { .. } => RhsError::SingularMatrix,
                _ => RhsError::Failed,
            };
            *last = Some(e);
            Err(r)
        }
    }
}
