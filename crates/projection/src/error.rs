//! Errors of `contour-projection`.

use contour_linalg::LinalgError;
use contour_model::ModelError;
use contour_ode::OdeError;

use crate::trajectory::Trajectory;

/// The end of the singular-passage messages of the direct and Baumgarte methods: the methods
/// that pass (MBS benchmark A02, `benches/results/a02_n40_*.md`) and how to go on anyway.
const PASSAGE_ADVICE: &str = "Methods that keep the state on the constraints pass here: \
     projector (Method::Projector), parametrization, and perturbation with its defaults (its \
     round-off filter, PerturbationConfig::roundoff_filter: MBS benchmark A02 at tau = 1e-9); \
     GGL (exact stabilization) at moderate tolerances (A02: tau = 1e-6) and in its multiplier \
     form (EcsForm::Multipliers) at tight ones (A02: tau = 1e-9). To continue anyway: \
     Simulation::passage_policy(PassagePolicy::Continue), with an energy_tolerance where \
     another branch changes the energy";

/// Everything that can go wrong in a constrained simulation.
///
/// Bad input (negative gains, `τ ≤ 0`, wrong dimensions, an inconsistent initial state) and
/// numerical failure (a projection that does not converge even with smaller steps, a rank-
/// deficient Jacobian where a method needs full rank) are reported here; nothing panics on
/// user input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ProjectionError {
    /// Model evaluation or constrained dynamics failed (dimensions, NaN, singular `M`, rank of `J`).
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The integrator failed (step size too small, tolerance too small, ...).
    #[error(transparent)]
    Ode(#[from] OdeError),
    /// A dense kernel failed (QR of a rank-deficient `J T`, ...).
    #[error(transparent)]
    Linalg(#[from] LinalgError),
    /// The initial state violates `φ = 0` or `J q̇ + b = 0` by more than `tol`.
    #[error("inconsistent initial state: |phi| = {position_residual:.3e}, |J qd + b| = {velocity_residual:.3e} (tol {tol:.3e}); ask for make_consistent or project it with consistent_state")]
    InconsistentInitialState {
        /// `‖φ(t0, q0)‖₂`.
        position_residual: f64,
        /// `‖J q̇0 + b‖₂`.
        velocity_residual: f64,
        /// The tolerance that was applied.
        tol: f64,
    },
    /// A method parameter is out of range (negative Baumgarte gain, zero iteration limit, ...).
    #[error("invalid parameter {name} = {value:.3e}")]
    InvalidParameter {
        /// Name of the parameter.
        name: &'static str,
        /// The rejected value.
        value: f64,
    },
    /// An option of [`contour_model::DynamicsOptions`] that the chosen method does not use is
    /// set ([`crate::Simulation::dynamics`]): refused instead of ignored, with where the
    /// method takes that setting from instead.
    #[error("the {method} method does not use DynamicsOptions::{option}: {instead}")]
    UnusedOption {
        /// The method (`"projector"`, `"explicit"`, ...).
        method: &'static str,
        /// The option (`"rank_rtol"`, `"baumgarte"`, ...).
        option: &'static str,
        /// Where the method's own setting comes from.
        instead: &'static str,
    },
    /// `rtol`/`atol` outside their range (see `ErrorControl::validate`): negative, not finite,
    /// both zero, above 1, or below what `f64` can resolve.
    #[error("invalid tolerance {which} = {value:.3e}: {reason}")]
    InvalidTolerance {
        /// `"rtol"` or `"atol"`.
        which: &'static str,
        /// The rejected value.
        value: f64,
        /// Which bound it breaks.
        reason: &'static str,
    },
    /// A vector has the wrong length.
    #[error("{what}: expected length {expected}, found {found}")]
    DimensionMismatch {
        /// Name of the argument.
        what: &'static str,
        /// Expected length.
        expected: usize,
        /// Actual length.
        found: usize,
    },
    /// The energy `E = T + V` of a model that reports it ([`contour_model::Mechanism::kinetic_energy`],
    /// [`contour_model::Mechanism::potential_energy`]) left `E(t0) ± tol` at an accepted step
    /// ([`crate::Simulation::energy_tolerance`]): for a conservative model (no applied forces,
    /// scleronomic constraints) the run has left the physical solution, e.g. on a wrong branch
    /// after a singular configuration.
    #[error(
        "energy drift |E - E0| = {drift:.3e} exceeds {tol:.3e} at t = {t:.3e} (E0 = {e0:.3e})"
    )]
    EnergyDrift {
        /// Time of the first accepted step beyond the tolerance.
        t: f64,
        /// `|E(t) − E(t0)|` there.
        drift: f64,
        /// `E(t0)`.
        e0: f64,
        /// The tolerance.
        tol: f64,
    },
    /// The time span is invalid (`t_end ≤ t0`, or a non-finite end).
    #[error("invalid time span: t0 = {t0:.3e}, t = {t:.3e}")]
    InvalidTimeSpan {
        /// Start time.
        t0: f64,
        /// The offending end time.
        t: f64,
    },
    /// The output times are not sorted: `output_times[index] = t` comes before its
    /// predecessor `previous`.
    #[error("output times not sorted: output_times[{index}] = {t:.3e} < {previous:.3e}")]
    UnsortedOutputTimes {
        /// Position in `output_times`.
        index: usize,
        /// The offending time.
        t: f64,
        /// `output_times[index − 1]`.
        previous: f64,
    },
    /// An output time lies outside `[t0, t_end]` (or is not finite).
    #[error("output time output_times[{index}] = {t:.3e} outside [{t0:.3e}, {t_end:.3e}]")]
    OutputTimeOutsideSpan {
        /// Position in `output_times`.
        index: usize,
        /// The offending time.
        t: f64,
        /// Start time.
        t0: f64,
        /// End time.
        t_end: f64,
    },
    /// The method cannot run with this integrator (e.g. ECS needs the BDF, which is an
    /// implicit DAE method).
    #[error("method {method} cannot use integrator {integrator}")]
    UnsupportedIntegrator {
        /// Method name.
        method: &'static str,
        /// Integrator name.
        integrator: &'static str,
    },
    /// The method needs a (scaled) l2 error norm (Keerthi section 2: the projection (2.3) is a
    /// least-squares problem only in an l2 norm).
    #[error("method {method} needs an l2 error norm")]
    UnsupportedNorm {
        /// Method name.
        method: &'static str,
    },
    /// The mechanism has no constraint rows (L = 0) where the method needs some; a method that
    /// counts rank, not rows, refuses `r = N` with [`ProjectionError::NoFreeCoordinates`].
    #[error("method {method} needs 0 < L < N constraint rows, got L = {rows}, N = {dof}")]
    BadConstraintCount {
        /// Method name.
        method: &'static str,
        /// L.
        rows: usize,
        /// N.
        dof: usize,
    },
    /// The constraint Jacobian at the initial state has numerical rank `r = N`: the rows
    /// (however many, redundant or not) leave no coordinate free to integrate.
    #[error(
        "method {method} needs a constraint Jacobian of rank r < N: J at the initial state has \
         numerical rank {rank} with L = {rows} rows and N = {dof} coordinates (no motion is left)"
    )]
    NoFreeCoordinates {
        /// Method name.
        method: &'static str,
        /// Numerical rank r of `J` at the initial state.
        rank: usize,
        /// L.
        rows: usize,
        /// N.
        dof: usize,
    },
    /// The numerical rank of the constraint rows changed during a run of a method whose
    /// coordinates count it (the parametrization's chart has `N − r` of them): a singular
    /// configuration, where the rows that were independent at the start became dependent (or
    /// the reverse). A rank deficiency present at the start and unchanged is not this error.
    #[error(
        "method {method}: at t = {t:.3e} the constraint Jacobian has numerical rank {rank}, the run \
         started with rank {expected}: row {row} changed its dependence on the rows before it \
         (a singular configuration of the mechanism)"
    )]
    RankChanged {
        /// Method name.
        method: &'static str,
        /// Time of the state where the rank changed.
        t: f64,
        /// Numerical rank found there (a lower bound when it dropped).
        rank: usize,
        /// Numerical rank at the start.
        expected: usize,
        /// The first row whose dependence changed.
        row: usize,
    },
    /// The manifold correction of Procedure P1 failed (`‖X*‖ > τ/2` or no MNR convergence)
    /// even after `redos` step-size halvings (Keerthi Remark 2.5).
    #[error(
        "projection failed at t = {t:.3e} after {redos} step halvings (|X*| = {norm:.3e} in units of tau); \
         a correction that halving does not shrink comes from the state the previous step left: \
         with `VelocityJacobian::Predicted` (Keerthi (3.4)) J q̇ + b is left at O(|Δq|·|q̇|) — use \
         `VelocityJacobian::Projected` (the default) — or the tolerance is too loose for the motion"
    )]
    ProjectionFailed {
        /// Time of the step.
        t: f64,
        /// Step halvings tried.
        redos: usize,
        /// Weighted size of the last correction, in units of τ.
        norm: f64,
    },
    /// A Newton iteration (parametrization ψ(y), ...) did not converge.
    #[error(
        "no convergence at t = {t:.3e} after {iterations} iterations (residual {residual:.3e})"
    )]
    NoConvergence {
        /// Time.
        t: f64,
        /// Iterations performed.
        iterations: usize,
        /// Last residual or update norm.
        residual: f64,
    },
    /// A small dense matrix (e.g. `J V₁` of the parametrization) is singular.
    #[error("singular {what} (pivot {pivot:.3e})")]
    SingularMatrix {
        /// Which matrix.
        what: &'static str,
        /// The failing pivot.
        pivot: f64,
    },
    /// The direct method or Baumgarte's stabilization met a singular passage: `J` lost rank
    /// during the run, below the rank it had at the start (redundant rows present from `t0`
    /// are not a passage). φ is quadratic in the lost direction there, so neither method has
    /// a restoring term in it and the sign of its drift picks the branch the run continues
    /// on. Default: end the run ([`crate::PassagePolicy::Stop`]);
    /// [`crate::Simulation::passage_policy`] with [`crate::PassagePolicy::Continue`] opts in
    /// to continue, best with [`crate::Simulation::energy_tolerance`] as the guard.
    #[error(
        "singular passage at t = {t:.3e}: the constraint Jacobian dropped to rank {rank} of \
         {rows} rows (rank {initial_rank} at the start); the {method} method has no \
         correction in the lost direction and may continue on a wrong branch. {PASSING}",
        PASSING = PASSAGE_ADVICE
    )]
    SingularPassage {
        /// Time of the evaluation that found the rank drop.
        t: f64,
        /// Numerical rank of `J` there.
        rank: usize,
        /// Constraint rows L.
        rows: usize,
        /// Numerical rank of `J` at the initial state.
        initial_rank: usize,
        /// `"direct"` or `"baumgarte"`.
        method: &'static str,
    },
    /// Exact stabilization (GGL, the index-2 DAE in `(x, μ)` on the BDF) could not step through
    /// a singular configuration: the BDF failed (no Newton convergence, a step size collapse or
    /// a singular iteration matrix) where the constraint Jacobian at the last accepted state has
    /// a smallest singular value below [`crate::passage::PASSAGE_BAND_RATIO`] of its
    /// largest. Near such a configuration the iteration matrix `∂F/∂y + c_j ∂F/∂y'` of (4.4) has,
    /// after row and column equilibration, a pivot of order `σ³` (`σ` the relative smallest
    /// singular value of `J`): on A02 at N = 4 and τ = 1e-9 its condition number reaches
    /// 1e17 at `σ ≈ 5e-4`, the Newton updates of `μ` grow to 1e3–1e7, and every step
    /// reduction raises `c_j` and makes it worse. See the module `exact_stabilization`.
    #[error(
        "exact stabilization (GGL) cannot pass the singular configuration near t = {t:.3e}: \
         the constraint Jacobian's smallest singular value is {sigma_ratio:.1e} of its largest \
         at the last accepted state, and the BDF failed there ({source}). The iteration matrix \
         of the index-2 DAE is numerically singular near the passage (an equilibrated pivot of \
         order sigma^3), so Newton cannot converge at small steps. Methods that pass here at \
         tight tolerances: projector (Method::Projector), parametrization and perturbation \
         with its defaults; GGL passes where its steps are larger (A02: tolerance 1e-6), and \
         in its multiplier form (EcsForm::Multipliers) at tolerance 1e-9 (A02 up to N = 40)"
    )]
    GglSingularPassage {
        /// Time of the last accepted step.
        t: f64,
        /// `σ_min(J) / σ_max(J)` at the last accepted state.
        sigma_ratio: f64,
        /// The BDF's failure.
        source: OdeError,
    },
    /// The direct method or Baumgarte's stabilization reached a state whose drift off the
    /// constraints is as large as its distance from a configuration where branches of motion
    /// cross. Two Newton steps toward `φ = 0` (the mass-weighted minimum-norm correction
    /// `Δq = M⁻¹Jᵀ(J M⁻¹Jᵀ)⁺φ`) are taken from the accepted state: at a regular state the
    /// second leaves a negligible fraction of the residual it starts from (quadratic
    /// convergence); near the crossing of two branches, `φ ≈ xs`, Newton converges linearly
    /// (a fraction 1/4 per step at the vertex of the drifted level set `xs = φ`, a hyperbola
    /// that joins an arm of one branch to an arm of the other), and the sign of the drift, not
    /// the dynamics, picks the branch. The run ends where the second step leaves more than
    /// [`crate::AMBIGUOUS_CONTRACTION`] and more than half the fraction the first left;
    /// checked at every accepted step with [`crate::PassagePolicy::Stop`] (the default).
    #[error(
        "ambiguous branch at t = {t:.3e}: the {method} method's state is off the constraints \
         by |phi| = {drift:.3e} near a singular configuration: a second Newton step toward \
         them leaves {contraction:.2e} of the residual it starts from (linear convergence; \
         bound AMBIGUOUS_CONTRACTION), so the drift, not the dynamics, would pick the branch \
         after the passage. {PASSING}",
        PASSING = PASSAGE_ADVICE
    )]
    AmbiguousBranch {
        /// Time of the accepted step.
        t: f64,
        /// `‖φ(t, q)‖₂` there.
        drift: f64,
        /// `‖φ(q₂)‖₂ / ‖φ(q₁)‖₂` of the second Newton step `q₁ → q₂`.
        contraction: f64,
        /// `"direct"` or `"baumgarte"`.
        method: &'static str,
    },
    /// The direct method or Baumgarte's stabilization stalled on its way to a singular
    /// configuration: inside the band where `J`'s smallest singular value is below
    /// [`crate::passage::PASSAGE_BAND_RATIO`] of its largest, the accepted steps
    /// shrank at least in proportion to that singular value (the distance to the crossing)
    /// while it fell by [`crate::PASSAGE_STALL_DEPTH`]. Off the constraints the field of either
    /// method has a pole at the crossing (`q̈` grows like the drift over the distance), the
    /// error test resolves it with steps proportional to the distance, and the run creeps
    /// toward the crossing without reaching it. Checked after every accepted step with
    /// [`crate::PassagePolicy::Stop`] (the default); see the module [`crate::passage`].
    #[error(
        "stalled at a singular passage at t = {t:.3e}: the {method} method's step fell to \
         h = {h:.3e}, in proportion to its distance from a configuration where the constraint \
         Jacobian loses rank (its smallest singular value is {sigma_ratio:.1e} of its largest). \
         Off the constraints the method's accelerations grow without bound toward that \
         configuration, so the run creeps toward it and cannot pass. {PASSING}",
        PASSING = PASSAGE_ADVICE
    )]
    StalledPassage {
        /// Time of the accepted step.
        t: f64,
        /// Its size.
        h: f64,
        /// `σ_r(J) / σ_1(J)` there (`r` the rank of `J` at the initial state).
        sigma_ratio: f64,
        /// `"direct"` or `"baumgarte"`.
        method: &'static str,
    },
    /// A run failed after it had started: the failure with the time and state of the last
    /// accepted step and the trajectory computed so far ([`ProjectionError::cause`] is the
    /// error behind it).
    #[error(transparent)]
    Failed(Box<SimulationFailure>),
    /// The output sink of a streaming run ([`crate::Recording::Stream`]) failed.
    #[error("output sink failed at t = {t:.3e}: {message}")]
    OutputSink {
        /// Time of the row it refused.
        t: f64,
        /// The sink's error.
        message: String,
    },
    /// The step budget was exhausted.
    #[error("maximum number of steps ({max_steps}) reached at t = {t:.3e}")]
    TooManySteps {
        /// Time reached.
        t: f64,
        /// The budget.
        max_steps: usize,
    },
}

/// A simulation that failed after it had started: what went wrong, and what was computed.
///
/// `t_failed` is where it failed: the end of the attempted step (`t + h`), or `t` when the
/// failure came before a step was attempted. `t`, `q`, `q̇` are the last accepted point (the
/// initial one when no step was accepted); `partial` holds the outputs, violation history,
/// events and statistics up to it (`partial.x_final` is that point).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("simulation failed at t = {t_failed:.3e} (last accepted t = {t:.3e}): {source}")]
pub struct SimulationFailure {
    /// Time where the run failed: the end of the attempted step.
    pub t_failed: f64,
    /// Time of the last accepted step.
    pub t: f64,
    /// `q` at `t`.
    pub q: Vec<f64>,
    /// `q̇` at `t`.
    pub qd: Vec<f64>,
    /// The trajectory up to `t`.
    pub partial: Box<Trajectory>,
    /// What failed (the model's, the integrator's or the method's error).
    #[source]
    pub source: ProjectionError,
}

impl ProjectionError {
    /// The error behind a failed run ([`ProjectionError::Failed`]), else `self`.
    pub fn cause(&self) -> &ProjectionError {
        match self {
            ProjectionError::Failed(f) => f.source.cause(),
            e => e,
        }
    }

    /// The error behind a failed run, by value (drops the partial trajectory).
    pub fn into_cause(self) -> ProjectionError {
        match self {
            ProjectionError::Failed(f) => f.source.into_cause(),
            e => e,
        }
    }

    /// The trajectory computed before a run failed, if it had started.
    pub fn partial(&self) -> Option<&Trajectory> {
        match self {
            ProjectionError::Failed(f) => Some(&f.partial),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ProjectionError, SimulationFailure};
    use crate::trajectory::Trajectory;
    use contour_linalg::LinalgError;
    use contour_model::ModelError;

    /// The longest run of characters of `text` that can belong to a printed number.
    fn longest_number(text: &str) -> usize {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+')))
            .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
            .map(str::len)
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn numbers_in_messages_are_short_whatever_their_size() {
        let tiny = -1.234_567_890_123_456_7e-300;
        let huge = 9.876_543_210_987_654e300;
        let v = f64::MIN_POSITIVE / 3.0;
        let errors: Vec<String> = vec![
            ProjectionError::InconsistentInitialState {
                position_residual: tiny,
                velocity_residual: huge,
                tol: v,
            }
            .to_string(),
            ProjectionError::InvalidParameter {
                name: "gain",
                value: tiny,
            }
            .to_string(),
            ProjectionError::InvalidTolerance {
                which: "atol",
                value: tiny,
                reason: "below the floor",
            }
            .to_string(),
            ProjectionError::EnergyDrift {
                t: huge,
                drift: tiny,
                e0: v,
                tol: huge,
            }
            .to_string(),
            ProjectionError::InvalidTimeSpan { t0: tiny, t: huge }.to_string(),
            ProjectionError::UnsortedOutputTimes {
                index: 3,
                t: tiny,
                previous: huge,
            }
            .to_string(),
            ProjectionError::OutputTimeOutsideSpan {
                index: 1,
                t: tiny,
                t0: v,
                t_end: huge,
            }
            .to_string(),
            ProjectionError::ProjectionFailed {
                t: tiny,
                redos: 4,
                norm: huge,
            }
            .to_string(),
            ProjectionError::NoConvergence {
                t: tiny,
                iterations: 9,
                residual: huge,
            }
            .to_string(),
            ProjectionError::SingularMatrix {
                what: "J V1",
                pivot: tiny,
            }
            .to_string(),
            ProjectionError::OutputSink {
                t: tiny,
                message: "full".into(),
            }
            .to_string(),
            ProjectionError::TooManySteps {
                t: tiny,
                max_steps: 10,
            }
            .to_string(),
            ProjectionError::SingularPassage {
                t: tiny,
                rank: 1,
                rows: 3,
                initial_rank: 2,
                method: "direct",
            }
            .to_string(),
            ProjectionError::AmbiguousBranch {
                t: tiny,
                drift: tiny,
                contraction: 0.25,
                method: "baumgarte",
            }
            .to_string(),
            ProjectionError::StalledPassage {
                t: tiny,
                h: tiny,
                sigma_ratio: tiny,
                method: "direct",
            }
            .to_string(),
            ProjectionError::GglSingularPassage {
                t: tiny,
                sigma_ratio: tiny,
                source: contour_ode::OdeError::StepSizeTooSmall { t: tiny, h: tiny },
            }
            .to_string(),
            ProjectionError::Failed(Box::new(SimulationFailure {
                t_failed: tiny,
                t: tiny,
                q: vec![],
                qd: vec![],
                partial: Box::new(Trajectory::new("direct", "rkg")),
                source: ProjectionError::TooManySteps {
                    t: huge,
                    max_steps: 1,
                },
            }))
            .to_string(),
            ModelError::MassMatrixNotPositiveDefinite {
                index: 0,
                pivot: tiny,
            }
            .to_string(),
            ModelError::RankDeficientJacobian {
                rank: 1,
                rows: 2,
                tolerance: tiny,
            }
            .to_string(),
            ModelError::InconsistentAtSingularity {
                t: tiny,
                row: 0,
                initial_rank: 2,
                rank: 1,
                rows: 2,
                tolerance: tiny,
                residual: tiny,
                bound: huge,
            }
            .to_string(),
            ModelError::InvalidOption {
                option: "rank_rtol",
                value: v,
                range: "(0, 1)",
            }
            .to_string(),
            ModelError::UndeclaredSparsity {
                matrix: "jacobian",
                row: 1,
                col: 2,
                value: v,
            }
            .to_string(),
            ModelError::SparseValuesMismatch {
                matrix: "jacobian",
                row: 1,
                col: 2,
                value: v,
                dense: tiny,
            }
            .to_string(),
            ModelError::NoConvergence {
                iterations: 3,
                residual: tiny,
            }
            .to_string(),
            ModelError::InconsistentInitialState {
                position_residual: tiny,
                velocity_residual: huge,
            }
            .to_string(),
            ModelError::InvalidParameter {
                what: "mass",
                value: tiny,
            }
            .to_string(),
            ModelError::IllConditioned {
                what: "KKT",
                residual: tiny,
                bound: huge,
            }
            .to_string(),
            LinalgError::NotPositiveDefinite {
                index: 2,
                pivot: tiny,
            }
            .to_string(),
            LinalgError::Singular {
                index: 2,
                pivot: huge,
            }
            .to_string(),
            LinalgError::RankDeficient {
                rank: 1,
                required: 2,
                tolerance: tiny,
            }
            .to_string(),
            LinalgError::InvalidTolerance {
                what: "rtol",
                value: v,
            }
            .to_string(),
        ];
        for e in &errors {
            assert!(e.contains("e-30") || e.contains("e30"), "{e}");
            assert!(
                longest_number(e) <= 20,
                "{} characters in {e}",
                longest_number(e)
            );
        }
        assert_eq!(
            ProjectionError::InvalidParameter {
                name: "gain",
                value: 1e-300
            }
            .to_string(),
            "invalid parameter gain = 1.000e-300"
        );
    }
}
