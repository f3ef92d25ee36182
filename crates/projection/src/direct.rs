//! The direct approach: integrate `ẋ = f(x)` of Keerthi (1.5), with `q̈` from (1.1) + (1.4),
//! and nothing else — Keerthi's "ICS, δ = 0". With Baumgarte's terms (4.3) the same loop
//! integrates the stabilized field ([`crate::baumgarte`]).
//!
//! Nothing keeps `g(x) = (φ, J q̇ + b) = 0` of (1.6): the local errors of the integrator
//! accumulate along the manifold's normal (`φ̈ = 0` is only marginally stable: `φ` drifts
//! like `ε t + δ`, Huang 5.2.4).
//!
//! **Singular passages.** Where `J` drops below the rank it had at the start (a flat
//! four-bar) φ is quadratic along the lost direction `u` (`uᵀφ ≈ κe²/2` for a displacement
//! `e` along `u`): neither (1.4) nor Baumgarte's `αφ̇ + βφ` has a term linear in `e` that
//! restores it, and the sign of the drift left there picks the branch the run continues on.
//! By default ([`PassagePolicy::Stop`]) the first evaluation whose `J` has a numerical rank
//! (the rank-revealing KKT solve's, cut-off `DynamicsOptions::rank_rtol`) below the initial
//! rank ends the run with [`ProjectionError::SingularPassage`]; redundant rows present from
//! `t0` are not a passage.
//!
//! A step can also jump over the band where `J` loses rank: the drifted state does not cross
//! the singular configuration but turns onto the other branch along the level set `φ = d`
//! (near the crossing `φ ≈ xs` that level set is a hyperbola joining an arm of one branch to
//! an arm of the other). So with [`PassagePolicy::Stop`] every accepted step is also checked
//! for an ambiguous branch by two Newton steps toward `φ = 0`,
//! `Δq = M⁻¹Jᵀ(J M⁻¹Jᵀ)⁺φ`. The first removes the drift in the directions `J` keeps; the
//! second converges quadratically at a regular state but only linearly near a crossing
//! (from a point at distance `ρ` of the crossing on `xs = d`, one step leaves
//! `(d/ρ²)²` of the residual: 1/4 at the vertex). Where the second step leaves more than
//! [`AMBIGUOUS_CONTRACTION`] of its residual, and more than half the fraction the first step
//! left (a state far off the constraints contracts slowly at first, but faster at each step:
//! the SSRMS arm of Kövecses' direct run at τ = 1e-3 ends 80 s with ‖φ‖ = 0.14, first and
//! second fractions 0.26 and 0.056), the run ends with [`ProjectionError::AmbiguousBranch`]. The
//! check costs one mass matrix, two Jacobians, three constraint evaluations and two KKT
//! solves per accepted step, in a workspace allocated at the start: measured on A02
//! (`NFourBar`, n = 1, 4, 40, 0.6 s at τ = 1e-9, alone on a core), 16–31 % more time per
//! DOPRI5 step (six evaluations) and 1.4–2.1× per ABM step (two); `Continue` skips it
//! (`benches/examples/a02_check_cost.rs` measures it, with the hand-written and the
//! automatic-derivative model). Copying `M` and `J` from the step's last evaluation instead
//! of evaluating them again saves nothing measurable: the two KKT solves are the cost.
//! [`PassagePolicy::Continue`] continues through both.

use contour_linalg::{KktMethod, KktSolver};
use contour_model::{Baumgarte, ConstrainedDynamics, DynamicsOptions, Mechanism};
use contour_ode::OdeError;
use faer::Mat;
use serde::{Deserialize, Serialize};

use crate::error::ProjectionError;
use crate::method::{AfterStep, ConstraintMethod, MethodStart, RunContext};
use crate::rhs::{ode_error, ConstrainedRhs};
use crate::trajectory::SimulationStats;

/// What the direct and Baumgarte methods do at a singular passage: an evaluation where `J`
/// has a numerical rank below its rank at the initial state (module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PassagePolicy {
    /// End the run with [`ProjectionError::SingularPassage`] (the default): the drift, not
    /// the dynamics, would pick the branch after the passage.
    #[default]
    Stop,
    /// Continue with the unique `q̈` and the minimum-norm λ of the rank-revealing solve. The
    /// run may follow another branch; [`crate::Simulation::energy_tolerance`] turns the energy
    /// jump of a wrong branch into a typed error.
    Continue,
}

/// The direct (or, with Baumgarte's terms, the stabilized) integration of `ẋ = f(x)`.
#[derive(Debug)]
pub(crate) struct Direct<'m, M: ?Sized> {
    rhs: ConstrainedRhs<'m, M>,
    opts: DynamicsOptions,
    /// Numerical rank of `J` at the initial state (the floor of the passage guard).
    initial_rank: usize,
    /// The per-step ambiguous-branch check ([`PassagePolicy::Stop`] only).
    branch: Option<BranchCheck>,
}

/// Largest fraction of the residual that the second of two Newton steps toward `φ = 0` may
/// leave before a state is taken to be on an ambiguous branch (module documentation).
/// Measured on A02 (`NFourBar`, n = 1 and 4, τ = 1e-6 and 1e-9, direct and Baumgarte δ = 10
/// and 50 with the four integrators, 20 s, the check computed at every accepted step and
/// never acted on; B0 against the exact reduced solution): in the 31 runs that keep to the
/// physical branch the second step never leaves more than the round-off of `φ`; each of the
/// 16 runs that turn onto another branch (and one that stalls at a passage) exceeds 0.02
/// while B0 is still within 1.1e-3 of the exact solution. Where one crank row loses rank the
/// fraction reaches 1/4 (the vertex of the drifted hyperbola); where several lose rank
/// together it stays lower (n = 4, direct + RK-Gill at τ = 1e-6: 2.9e-2 at most before its
/// turn at t = 2.675 s), hence a bound well below 1/4.
pub const AMBIGUOUS_CONTRACTION: f64 = 0.02;

/// Multiple of the round-off in `φ` (`ε Σ_k |J_ik| |q_k|` per row) below which a residual
/// left by the Newton step is noise, not a sign of a crossing.
const NOISE_FACTOR: f64 = 64.0;

/// Workspace of the ambiguous-branch check: `M`, `J`, `φ` at the accepted state, the Newton
/// correction and `φ` after it. Allocated once.
#[derive(Debug)]
struct BranchCheck {
    mm: Mat<f64>,
    j: Mat<f64>,
    kkt: KktSolver,
    zero: Vec<f64>,
    phi: Vec<f64>,
    dq: Vec<f64>,
    mu: Vec<f64>,
    q1: Vec<f64>,
}

impl BranchCheck {
    fn new(n: usize, l: usize) -> Self {
        Self {
            mm: Mat::zeros(n, n),
            j: Mat::zeros(l, n),
            kkt: KktSolver::new(n, l, KktMethod::RangeSpace),
            zero: vec![0.0; n],
            phi: vec![0.0; l],
            dq: vec![0.0; n],
            mu: vec![0.0; l],
            q1: vec![0.0; n],
        }
    }

    /// `Some((‖φ‖, contraction))` where the second of two Newton steps from `q` toward
    /// `φ = 0` leaves more than [`AMBIGUOUS_CONTRACTION`] of the residual it starts from, more
    /// than half the fraction the first step left, and more than round-off; `None` otherwise.
    /// The first step removes the drift in the directions `J` keeps (quadratic convergence);
    /// what the second leaves measures the lost direction alone.
    fn ambiguous<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
        q: &[f64],
    ) -> Result<Option<(f64, f64)>, ProjectionError> {
        mech.constraints(t, q, &mut self.phi);
        let drift = norm(&self.phi);
        if drift == 0.0 || !drift.is_finite() {
            return Ok(None);
        }
        mech.mass_matrix(q, self.mm.as_mut());
        self.q1.copy_from_slice(q);
        self.newton_step(mech, t)?;
        let first = norm(&self.phi);
        self.newton_step(mech, t)?;
        let left = norm(&self.phi);
        let mut noise = 0.0;
        for i in 0..self.phi.len() {
            let row = (0..q.len()).fold(0.0, |a, k| a + (self.j[(i, k)] * q[k]).abs());
            noise += (NOISE_FACTOR * f64::EPSILON * row).powi(2);
        }
        let contraction = left / first;
        // Newton's quadratic convergence shows as a second contraction well below the first
        // (`left/first ≈ C·first` where `first/drift ≈ C·drift`), even from a state far off
        // the constraints; near a crossing the second is no better than half the first
        let accelerating = contraction <= 0.5 * first / drift;
        Ok(
            (left > noise.sqrt() && contraction > AMBIGUOUS_CONTRACTION && !accelerating)
                .then_some((drift, contraction)),
        )
    }

    /// One Newton step from `q1` with `φ(t, q1)` in `phi`: `M Δq − Jᵀμ = 0`, `J Δq = φ`
    /// (`J` at `q1`, the mass matrix of the accepted state as the metric), `q1 ← q1 − Δq`,
    /// `phi ← φ(t, q1)`.
    fn newton_step<M: Mechanism + ?Sized>(
        &mut self,
        mech: &M,
        t: f64,
    ) -> Result<(), ProjectionError> {
        mech.constraint_jacobian(t, &self.q1, self.j.as_mut());
        self.kkt.solve(
            self.mm.as_ref(),
            self.j.as_ref(),
            &self.zero,
            &self.phi,
            &mut self.dq,
            &mut self.mu,
        )?;
        for (q1, &d) in self.q1.iter_mut().zip(&self.dq) {
            *q1 -= d;
        }
        mech.constraints(t, &self.q1, &mut self.phi);
        Ok(())
    }
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

impl<'m, M: Mechanism + ?Sized> Direct<'m, M> {
    /// Keerthi (1.5), or with `baumgarte` the field of (4.3).
    pub(crate) fn new(
        ctx: &RunContext<'_, 'm, M>,
        baumgarte: Option<Baumgarte>,
    ) -> Result<MethodStart<Self>, ProjectionError> {
        let opts = DynamicsOptions {
            baumgarte,
            ..ctx.dynamics
        };
        let mut rhs = ConstrainedRhs::new(ctx.mech, opts)?;
        let initial_rank = initial_rank(ctx, opts);
        if ctx.passage_policy == PassagePolicy::Stop {
            rhs.guard_passages(initial_rank);
        }
        let branch = (ctx.passage_policy == PassagePolicy::Stop)
            .then(|| BranchCheck::new(ctx.mech.dof(), ctx.mech.n_constraints()));
        let method = Self {
            rhs,
            opts,
            initial_rank,
            branch,
        };
        Ok(MethodStart::on_x(method, &ctx.x0, ctx.error_control))
    }
}

/// Numerical rank of `J` at the initial state, by one solve of (1.1)+(1.4) in a workspace of
/// its own (the run's counters stay untouched). A failed solve gives the rank of the KKT
/// solver it reached, or L.
fn initial_rank<M: Mechanism + ?Sized>(
    ctx: &RunContext<'_, '_, M>,
    opts: DynamicsOptions,
) -> usize {
    let (n, l) = (ctx.mech.dof(), ctx.mech.n_constraints());
    let Ok(mut d) = ConstrainedDynamics::with_options(ctx.mech, opts) else {
        return l;
    };
    let (mut qdd, mut lambda) = (vec![0.0; n], vec![0.0; l]);
    let (q, qd) = ctx.x0.split_at(n);
    match d.accelerations(ctx.mech, ctx.t0, q, qd, &mut qdd, &mut lambda) {
        Err(contour_model::ModelError::InconsistentAtSingularity { rank, .. }) => rank,
        _ => d.last_rank(),
    }
}

impl<'m, M: Mechanism + ?Sized> ConstraintMethod<M> for Direct<'m, M> {
    type Problem = ConstrainedRhs<'m, M>;

    fn name(&self) -> &'static str {
        if self.opts.baumgarte.is_some() {
            "baumgarte"
        } else {
            "direct"
        }
    }

    fn problem(&mut self) -> &mut Self::Problem {
        &mut self.rhs
    }

    fn integrator_error(&mut self, e: OdeError) -> ProjectionError {
        if let Some((t, rank)) = self.rhs.take_passage() {
            return ProjectionError::SingularPassage {
                t,
                rank,
                rows: self.rhs.mechanism().n_constraints(),
                initial_rank: self.initial_rank,
                method: self.name(),
            };
        }
        ode_error(e, &mut self.rhs.last_error)
    }

    fn after_step(
        &mut self,
        t: f64,
        _h: f64,
        y: &[f64],
        _y_new: &mut [f64],
    ) -> Result<AfterStep, ProjectionError> {
        if let Some(check) = self.branch.as_mut() {
            let mech = self.rhs.mechanism();
            let n = mech.dof();
            if let Some((drift, contraction)) = check.ambiguous(mech, t, &y[..n])? {
                return Err(ProjectionError::AmbiguousBranch {
                    t,
                    drift,
                    contraction,
                    method: self.name(),
                });
            }
        }
        Ok(AfterStep::Keep)
    }

    fn output_dynamics(&self) -> DynamicsOptions {
        self.opts
    }

    fn kkt_dynamics(&mut self) -> Option<&mut ConstrainedDynamics> {
        Some(self.rhs.dynamics_mut())
    }

    fn add_stats(&self, s: &mut SimulationStats) {
        s.f_evals = self.rhs.evals;
        s.rank_revealing_evals = self.rhs.rank_revealing_solves();
    }
}
